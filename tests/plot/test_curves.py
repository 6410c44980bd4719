"""Weighted tropical curves, their pictures and ``tropattn curve``."""

import json
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from tropattn.attention import Head
from tropattn.cli import main
from tropattn.errors import InvalidInputError
from tropattn.tropical import TropicalPolynomial, balancing_sums, curve_edges, lattice_length, parse_polynomial

CONIC = "max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)"


def test_lattice_length():
    assert lattice_length((3, 0)) == 3 and lattice_length((2, -4)) == 2 and lattice_length((1, 1)) == 1
    assert lattice_length((Fraction(2, 3), Fraction(4, 3))) == Fraction(2, 3)


def test_conic_edges_and_weights():
    f = parse_polynomial(CONIC)
    edges = curve_edges(f)
    # a smooth conic: 9 walls (= interior + boundary edges of the unimodular subdivision), all weight 1
    assert len(edges) == 9 and {e.weight for e in edges} == {1}
    assert len([c for c in f.hypersurface_cells() if c.dim == 0]) == len(f.dual_subdivision()) == 4


def test_double_line_has_weight_two():
    f = parse_polynomial("max(0, 2*x, 2*y)")   # the tropical line with every edge doubled
    assert [(e.ends, e.weight) for e in curve_edges(f)] == [((0, 1), 2), ((0, 2), 2), ((1, 2), 2)]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(-4, 4)), min_size=3, max_size=7,
                unique_by=lambda t: t[:2]))
def test_random_curves_are_balanced(terms):
    f = TropicalPolynomial([t[:2] for t in terms], [t[2] for t in terms])
    sums = balancing_sums(f)
    assert all(v == (0, 0) for v in sums.values())
    # each wall's weight = number of lattice points on its dual edge, minus one (counted by brute force)
    for e in curve_edges(f):
        (x0, y0), (x1, y1) = (f.exponents[j] for j in e.ends)
        on = [(x, y) for x in range(int(min(x0, x1)), int(max(x0, x1)) + 1)
              for y in range(int(min(y0, y1)), int(max(y0, y1)) + 1) if (x - x0) * (y1 - y0) == (y - y0) * (x1 - x0)]
        assert e.weight == len(on) - 1


def test_curve_box():
    from tropattn.plot import curve_box

    f = parse_polynomial("max(0, x - 4, y + 2)")
    lo, hi = curve_box(f)
    cells = f.hypersurface_cells()
    vertices = [c for c in cells if c.dim == 0]
    assert all(l < c.point[i] < h for c in vertices for i, (l, h) in enumerate(zip(lo, hi)))
    # every wall reaches a vertex inside (or, a line without vertices, has its point inside)
    assert all(any(c.terms < v.terms for v in vertices) or all(l < p < h for p, l, h in zip(c.point, lo, hi))
               for c in cells if c.dim == 1)
    assert curve_box(f, 2) == ((-2, -2), (2, 2)) and curve_box(f, (-1, 3)) == ((-1, -1), (3, 3))
    with pytest.raises(InvalidInputError):
        curve_box(f, (3, -1))


@pytest.mark.slow
def test_pictures(tmp_path):
    from tropattn.plot import plot_minkowski_heads, plot_tropical_curve

    assert plot_tropical_curve(CONIC, tmp_path / "conic.png").stat().st_size > 0
    assert plot_tropical_curve("max(0, x, y, z)", tmp_path / "surface.png").stat().st_size > 0
    heads = [Head([[0, 0], [1, 0], [0, 1]]), Head([[0, 0], [1, 1], [-1, 1]], [0, -1, -1])]
    assert plot_minkowski_heads(heads, tmp_path / "sum.png").stat().st_size > 0
    with pytest.raises(InvalidInputError, match="d = 1"):
        plot_tropical_curve("max(0, x)", tmp_path / "x.png")


def test_cli_curve(tmp_path, capsys):
    out = tmp_path / "c.svg"
    assert main(["curve", "max(0, 2*x, 2*y, x + 1)", "-o", str(out), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["regions"] == 4 and sorted(w["weight"] for w in obj["walls"]) == ["1", "1", "1", "2", "2"]
    assert out.read_text().startswith("<?xml")
    assert main(["curve", "max(0, x, y)", "-o", str(tmp_path / "b.png"), "--box=-3,1", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["vertices"] == [{"terms": [0, 1, 2], "point": ["0", "0"]}]
    assert main(["curve", "max(0, x)", "-o", str(tmp_path / "c.png")]) == 2
    assert "d = 1" in capsys.readouterr().err
