"""The one certified upper hull: its kernels against the general certificate, and the two
objects built on it (power diagrams, tropical regions) against independent methods."""

import random
from fractions import Fraction as F

import networkx as nx
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import pytest

from tropattn.errors import InvalidInputError
from tropattn.exact import counting, integer_determinant
from tropattn.exact._linalg import determinants
from tropattn.exact._predicates import sign_array, small_determinant_signs
from tropattn.geometry import PowerDiagram, upper_hull
from tropattn.tropical import TropicalPolynomial


def lifted_points(dim, max_n=12, radius=2):
    """Small grids with repeated heights: coplanar lifts, duplicates, points over one x."""
    coord = st.integers(-radius, radius)
    return st.lists(st.tuples(*[coord] * dim, st.integers(-3, 3)), min_size=1, max_size=max_n)


def edges_of(hull):
    return {tuple(sorted((i, k))) for i, ks in hull.neighbors.items() for k in ks}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(lifted_points))
def test_fast_kernels_agree_with_the_general_certificate(points):
    fast = upper_hull(points)
    exact = upper_hull(points, method="exact")
    assert fast.vertices == exact.vertices
    assert fast.cells == exact.cells
    if fast.neighbors is not None:      # upper edges: pairs of vertices on a common cell, an edge of it
        for i, k in edges_of(fast):
            assert any(i in c and k in c for c in exact.cells)


def test_kernels_are_taken_on_generic_input():
    rng = random.Random(3)
    for d, kernel in ((1, "chain"), (2, "planar"), (3, "simplicial")):
        points = [[F(rng.randint(-999, 999), 97) for _ in range(d)] + [F(rng.randint(0, 10**6), 10**3)]
                  for _ in range(40)]
        with counting() as c:
            hull = upper_hull(points)
        assert hull.kernel == kernel and c.by_place[f"certified:upper_hull.{kernel}"] == (kernel != "chain") or \
            hull.kernel == "chain"
        assert hull.vertices == upper_hull(points, method="exact").vertices


def test_method_forces_the_kernel_per_call():
    rng = random.Random(5)
    for d, kernel in ((1, "chain"), (2, "planar"), (3, "simplicial")):
        points = [[rng.randint(-99, 99) for _ in range(d)] + [rng.randint(0, 10**4)] for _ in range(30)]
        ref = upper_hull(points, method="exact")
        assert ref.kernel == "general"
        for method in (kernel, "general", "auto"):
            hull = upper_hull(points, method=method)
            assert hull.kernel == (kernel if method != "general" else "general")
            assert hull.vertices == ref.vertices and hull.cells == ref.cells
        other = "planar" if d != 2 else "chain"
        with pytest.raises(InvalidInputError, match=f"method = '{other}' needs points over"):
            upper_hull(points, method=other)                   # a kernel of another dimension is refused
    with pytest.raises(InvalidInputError, match="did you mean 'planar'"):
        upper_hull([[0, 0, 0]], method="planr")


def test_a_forced_kernel_with_too_few_points_hands_over_to_the_general_certificate():
    with counting() as c:
        hull = upper_hull([[0, 0, 1], [1, 0, 0]], method="planar")
    assert hull.kernel == "general" and hull.vertices == (0, 1) and c.by_place["declined:upper_hull.planar"] == 1


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 5).flatmap(lambda k: st.lists(st.lists(st.integers(-10**12, 10**12), min_size=k, max_size=k),
                                                    min_size=k, max_size=k)))
def test_integer_determinant_equals_the_stacked_determinants(M):
    if len(M) >= 2:
        assert integer_determinant(M) == int(determinants(np.array([M], dtype=object))[0])
    elif len(M) == 1:
        assert integer_determinant(M) == M[0][0]
    else:
        assert integer_determinant(M) == 1


def diagram_inputs(dim, max_n=9):
    """Sites on a small grid (duplicates, cocircular, collinear) with small integer offsets."""
    coord = st.integers(-2, 2).map(F)
    return st.integers(1, max_n).flatmap(lambda n: st.tuples(
        st.lists(st.lists(coord, min_size=dim, max_size=dim), min_size=n, max_size=n),
        st.lists(st.integers(-3, 3).map(F), min_size=n, max_size=n)))


@settings(max_examples=80, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(diagram_inputs))
@pytest.mark.slow
def test_power_diagram_and_tropical_polynomial_have_the_same_cells_and_adjacency(data):
    slopes, intercepts = data
    pd = PowerDiagram.from_max_affine(slopes, intercepts)
    f = TropicalPolynomial(slopes, intercepts)
    search = f.linear_regions("search")           # independent: one certified LP per region against all terms
    assert pd.nonempty == tuple(r.term for r in search) == tuple(r.term for r in f.linear_regions())
    g = nx.Graph()
    g.add_nodes_from(r.term for r in search)
    g.add_edges_from((r.term, k) for r in search for k in r.neighbors)
    assert sorted(pd.adjacency_graph().edges) == sorted(tuple(sorted(e)) for e in g.edges)
    for r in search:
        assert f.argmax_terms(r.interior_point)[0] == pd.locate(r.interior_point)


def test_circle_polynomial_is_output_sensitive():
    # 200 rational points of the unit circle plus the centre, all at height 0: the lifted points are
    # coplanar (one cell); each region still gets only its two circle neighbours (and the centre is hidden)
    ts = [F(k, 50) for k in range(-100, 100)]
    circle = [(F(1 - t * t, 1 + t * t), F(2 * t, 1 + t * t)) for t in ts]
    f = TropicalPolynomial(circle + [(F(0), F(0))], [0] * 201)
    regions = f.linear_regions()
    assert len(regions) == 200 and f.redundant_terms() == (200,)
    assert all(len(r.neighbors) == 2 for r in regions)


def test_simplicial_kernel_in_four_dimensions():
    rng = random.Random(8)
    for n in (8, 25):
        points = [[F(rng.randint(-99, 99), 7) for _ in range(4)] + [F(rng.randint(0, 10**5), 10**2)] for _ in range(n)]
        with counting() as c:
            fast = upper_hull(points)
        assert fast.kernel == "simplicial" and c.by_place["certified:upper_hull.simplicial"] == 1
        exact = upper_hull(points, method="exact")
        assert fast.vertices == exact.vertices and fast.cells == exact.cells
        assert edges_of(fast) == {tuple(sorted((i, k))) for cell in exact.cells for i in cell for k in cell if i != k}


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.tuples(
    st.just(k), st.integers(0, 200), st.lists(st.lists(st.integers(-3, 3), min_size=k * k, max_size=k * k),
                                              min_size=1, max_size=12))))
def test_small_determinant_signs_are_exact(data):
    k, bits, mats = data                   # small entries: many exact zeros; scaled: near the float limits
    M = np.array(mats, dtype=object).reshape(-1, k, k) * (1 << bits) + np.array(mats[::-1], dtype=object).reshape(-1, k, k)
    assert small_determinant_signs(M).tolist() == sign_array(determinants(M)).tolist()
    if bits < 60:
        assert small_determinant_signs(M.astype(np.int64)).tolist() == sign_array(determinants(M)).tolist()
