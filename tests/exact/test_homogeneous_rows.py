"""The vectorised rows of rational points (``homogeneous_rows``) against a Fraction-only oracle.

The oracle clears denominators by hand (lcm of the denominators, then numerator times lcm / q);
it shares no code with the numpy path.  Out-of-range inputs must give None (the caller's general
path), never a wrapped int64.
"""

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.exact import homogeneous_rows
from tropattn.geometry import convex_hull


def oracle_row(point):
    den = 1
    for v in point:
        den = den * F(v).denominator // math.gcd(den, F(v).denominator)
    return [int(F(v) * den) for v in point] + [den]


coordinate = st.one_of(st.integers(-10 ** 6, 10 ** 6),
                       st.builds(F, st.integers(-10 ** 9, 10 ** 9), st.integers(1, 10 ** 5)))


@settings(max_examples=80, deadline=None)
@given(st.integers(1, 6).flatmap(lambda d: st.lists(st.lists(coordinate, min_size=d, max_size=d), min_size=1,
                                                     max_size=12)))
def test_rows_equal_the_oracle_or_decline(points):
    G = homogeneous_rows(points)
    want = [oracle_row(p) for p in points]
    if G is None:  # declined: only when some exact entry really reaches 2^61 (a margin for the float guard)
        assert max(abs(v) for r in want for v in r) >= 2 ** 60
    else:
        assert G.dtype == np.int64 and G.tolist() == want


@pytest.mark.parametrize("points", [
    [[F(1, 2 ** 40), F(1, 3 ** 30)]],                   # the lcm passes 2^61
    [[F(2 ** 62, 3), F(1, 2)]],                          # a numerator beyond what the scale allows
    [[F(10 ** 30, 7)]],                                  # a numerator beyond int64
    [[F(1, 10 ** 30)]],                                  # a denominator beyond int64
])
def test_out_of_range_declines(points):
    assert homogeneous_rows(points) is None


def test_edges_of_the_guard():
    """Entries just below 2^61 are answered exactly; a product just past it declines."""
    q = 2 ** 30 - 35          # a prime: the lcm of q and q + 2 is q (q + 2) < 2^61
    G = homogeneous_rows([[F(1, q), F(-1, q + 2)], [F(2 ** 60 - 1), F(0)]])
    assert G.tolist() == [oracle_row([F(1, q), F(-1, q + 2)]), [2 ** 60 - 1, 0, 1]]
    assert homogeneous_rows([[F(2 ** 61)]]) is None


def test_hull_of_mixed_ints_fractions_and_duplicates():
    """Duplicates (the same rational written twice), ints beside Fractions, a point on a facet."""
    pts = [[0, 0, 0], [F(1), 0, 0], [0, F(2, 2), 0], [0, 0, 1], [F(1, 3), F(1, 3), F(1, 3)],
           [F(1, 2), F(1, 2), 0], [F(1, 1), 0, 0], [F(1, 7), F(1, 11), F(1, 13)]]
    P = convex_hull(pts)
    assert sorted(P.vertices) == sorted([(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)])
    assert P.facet_count == 4
    assert all(type(v) is F for v in P.vertices[0])
