"""Upper hulls over a line: the chain's cells (exact cross products) equal the general certificate's."""

from fractions import Fraction

from hypothesis import given, settings, strategies as st

from tropattn.geometry import upper_hull

points_1d = st.lists(st.tuples(st.integers(-4, 4), st.integers(-3, 3)), min_size=2, max_size=12)


@settings(max_examples=150, deadline=None)
@given(points_1d)
def test_chain_cells_equal_the_general_certificate(pts):
    if len({x for x, _ in pts}) < 2:
        return                                          # one column: no edge (the general path answers)
    chain, general = upper_hull(pts), upper_hull(pts, method="exact")
    assert chain.kernel == "chain" and general.kernel == "general"
    assert chain.vertices == general.vertices
    assert chain.cells == general.cells


def test_collinear_and_repeated_points_lie_in_their_cell():
    pts = [(0, 0), (1, 1), (1, 1), (2, 2), (3, Fraction(1, 2)), (1, -5)]
    cells = upper_hull(pts).cells
    assert cells == (frozenset({0, 1, 2, 3}), frozenset({3, 4}))     # (1, -5) is below: on no upper cell
