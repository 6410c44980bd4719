"""The exact planar facet kernel against the general certified facets (random and degenerate polygons)."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.exact import homogeneous_point, integer_facets
from tropattn.exact._facets_batch import planar_facets, small_facets

small = st.integers(-6, 6)
point = st.tuples(st.fractions(-5, 5, max_denominator=4), st.fractions(-5, 5, max_denominator=4))


@st.composite
def polygons(draw):
    """Rows strictly satisfied at a point: generic, through shared vertices, repeated, parallel, thin, huge."""
    p = draw(point)
    vertices = draw(st.lists(point, min_size=1, max_size=3))
    scale = draw(st.sampled_from([1, 1, 10 ** 12, Fraction(1, 10 ** 9)]))
    rows = []
    for kind in draw(st.lists(st.sampled_from("gvrpt"), min_size=1, max_size=14)):
        a = (draw(small), draw(small))
        if a == (0, 0):
            a = (1, 0)
        if kind == "g":                                         # generic, at some scale
            a = (a[0] * scale, a[1] * scale)
        ap = a[0] * p[0] + a[1] * p[1]
        if kind == "g":
            b = ap + draw(st.fractions(Fraction(1, 8), 8))
        elif kind == "v":                                       # through a shared vertex
            v = draw(st.sampled_from(vertices))
            av = a[0] * v[0] + a[1] * v[1]
            if av == ap:
                continue
            if av < ap:
                a, ap, av = (-a[0], -a[1]), -ap, -av
            b = av
        elif kind == "r" and rows:                              # the same half-plane again
            rows.append(rows[draw(st.integers(0, len(rows) - 1))])
            continue
        elif kind == "p" and rows:                              # parallel to an earlier row
            r = rows[draw(st.integers(0, len(rows) - 1))]
            a = (r[0], r[1])
            ap = a[0] * p[0] + a[1] * p[1]
            b = ap + draw(st.fractions(Fraction(1, 8), 8))
        else:                                                   # a thin slab around p
            b = ap + Fraction(1, 2 ** 40)
        den = math.lcm(Fraction(a[0]).denominator, Fraction(a[1]).denominator, Fraction(b).denominator)
        r = (int(a[0] * den), int(a[1] * den), int(b * den))
        g = math.gcd(*r)
        rows.append(tuple(v // g for v in r))
    if not rows:
        rows = [(1, 0, math.floor(p[0]) + 1)]
    return rows, p


@settings(max_examples=400, deadline=None)
@given(polygons())
@pytest.mark.slow
def test_planar_facets_equal_the_general_facets(case):
    rows, p = case
    X, D = homogeneous_point(p)
    keep, points = planar_facets(rows, X, D)
    ref = integer_facets(rows, p)
    assert {rows[i] for i in keep} == {rows[i] for i in ref.rows}          # the same half-planes
    assert len(keep) == len({rows[i] for i in keep})                       # one index per half-plane
    for i in keep:                                                         # each point proves its facet
        N, E = points[i]
        assert E > 0
        for r in rows:
            s = r[0] * N[0] + r[1] * N[1] - r[2] * E
            assert s == 0 if r == rows[i] else s < 0
    fast = small_facets(rows, X, D)                                        # the float kernel, when it answers
    if fast is not None:
        assert {rows[i] for i in fast[0]} == {rows[i] for i in keep}


def test_planar_facets_on_lines_strips_wedges_and_concurrent_lines():
    assert planar_facets([(1, 0, 1)], (0, 0), 1) == ((0,), {0: ((1, 0), 1)})                 # a half-plane
    keep, pts = planar_facets([(1, 0, 1), (-1, 0, 1), (2, 0, 3)], (0, 0), 1)                 # a strip
    assert keep == (0, 1) and pts[1] == ((-1, 0), 1)
    keep, _ = planar_facets([(1, 1, 0), (-1, 1, 0), (0, 1, 0), (0, -1, 5)], (0, -1), 1)    # 3 lines through 0
    assert keep == (0, 1, 3)
    keep, _ = planar_facets([(1, 0, 0), (0, 1, 0), (1, 1, 0)], (-1, -1), 1)                  # x + y <= 0 touches
    assert keep == (0, 1)
    huge = 10 ** 400                                                                         # beyond floats
    keep, _ = planar_facets([(huge, 1, huge), (-huge, 1, huge), (0, -1, 1)], (0, 0), 1)
    assert keep == (0, 1, 2)


def _corners(rows):
    """The polygon's vertices from the definition: points where two rows' lines meet and every row holds."""
    out = set()
    for i, (a0, a1, b) in enumerate(rows):
        for c0, c1, e in rows[i + 1:]:
            det = a0 * c1 - a1 * c0
            if det:
                x = (Fraction(b * c1 - a1 * e, det), Fraction(a0 * e - b * c0, det))
                if all(r0 * x[0] + r1 * x[1] <= rb for r0, r1, rb in rows):
                    out.add(x)
    return out


@settings(max_examples=60, deadline=None)
@given(polygons(), st.integers(1, 40))
def test_planar_vertices_are_the_corners_counterclockwise(case, half):
    """The vertices the scan returns: every corner once, in lowest terms, turning left; None when unbounded."""
    rows, p = case
    X, D = homogeneous_point(p)
    keep, points, V = planar_facets(rows, X, D, vertices=True)
    assert (keep, points) == planar_facets(rows, X, D)
    boxed = rows + [(1, 0, half + 5), (-1, 0, half + 5), (0, 1, half + 5), (0, -1, half + 5)]
    keep, _, W = planar_facets(boxed, X, D, vertices=True)
    for corners in (V, W):
        if corners is None:
            continue
        assert all(e > 0 and math.gcd(x0, x1, e) == 1 for x0, x1, e in corners)
        assert len(corners) == len(set(corners))
        k = len(corners)
        for j in range(k):                        # consecutive edges turn left: counterclockwise, convex
            (x0, x1, e), (y0, y1, g), (z0, z1, h) = corners[j], corners[(j + 1) % k], corners[(j + 2) % k]
            u = (Fraction(y0, g) - Fraction(x0, e), Fraction(y1, g) - Fraction(x1, e))
            v = (Fraction(z0, h) - Fraction(y0, g), Fraction(z1, h) - Fraction(y1, g))
            assert u[0] * v[1] - u[1] * v[0] > 0
    assert W is not None and len(W) == len(keep)
    assert {(Fraction(x0, e), Fraction(x1, e)) for x0, x1, e in W} == _corners(boxed)
    if V is not None:
        assert {(Fraction(x0, e), Fraction(x1, e)) for x0, x1, e in V} == _corners(rows)


def test_planar_vertices_of_unbounded_polygons_are_none():
    assert planar_facets([(1, 0, 0), (0, 1, 0), (1, 1, 1)], (-1, -1), 1, vertices=True)[2] is None   # a quadrant
    assert planar_facets([(1, 0, 1), (-1, 0, 1)], (0, 0), 1, vertices=True)[2] is None              # a strip
    assert planar_facets([(1, 0, 1)], (0, 0), 1, vertices=True)[2] is None                          # a half-plane
