"""``AffineMap.shifted`` (a residual sub-layer's map) against Fraction arithmetic written here."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from tropattn.regions import AffineMap

_small = st.integers(-40, 40)


@st.composite
def _case(draw):
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    scale = draw(st.sampled_from([1, 2, 3, 4, 6, 8, 12]))      # shared factors: the reduction matters
    Mi = [[draw(_small) * draw(st.sampled_from([1, scale])) for _ in range(cols)] for _ in range(rows)]
    ci = [draw(_small) for _ in range(rows)]
    m = draw(st.integers(1, 24))
    shift = [draw(st.integers(-10 ** 6, 10 ** 6)) for _ in range(rows)]
    return Mi, ci, m, shift, draw(st.sampled_from([1, 2, 3, 4, 8, 12, 2 ** 40]))


def _check(f, Mi, ci, m, shift, t):
    g = AffineMap.shifted(f, shift, t)
    M = [[Fraction(v, m) for v in row] for row in Mi]
    c = [Fraction(x, m) + Fraction(s, t) for x, s in zip(ci, shift)]
    Gi, gc, gm = g._integers
    assert [[Fraction(v, gm) for v in row] for row in Gi] == M
    assert [Fraction(v, gm) for v in gc] == c
    assert gm > 0 and math.gcd(gm, *gc, *(v for row in Gi for v in row)) == 1   # lowest terms
    assert g == AffineMap(tuple(map(tuple, M)), tuple(c)) and hash(g) == hash(AffineMap(tuple(map(tuple, M)),
                                                                                          tuple(c)))


@settings(max_examples=300, deadline=None)
@given(_case(), st.lists(st.tuples(st.integers(-10 ** 6, 10 ** 6), st.sampled_from([1, 2, 3, 4, 6, 12])),
                         min_size=1, max_size=6))
def test_a_shifted_map_is_the_fraction_sum_in_lowest_terms(case, more):
    """One parent map, many pieces (the rows it shares are made once per parent, t and factor)."""
    Mi, ci, m, shift, t = case
    f = AffineMap.from_integers(Mi, ci, m)
    _check(f, Mi, ci, m, shift, t)
    for v, u in more:                                   # other pieces of the same parent, other values
        _check(f, Mi, ci, m, [v * (k + 1) for k in range(len(shift))], u)
    _check(f, Mi, ci, m, shift, t)
