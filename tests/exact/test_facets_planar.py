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
