"""Filtered signs on inputs that cancel: exact zeros and +-1 hidden under 2^60 ... 2^1000.

Every answer is compared with Python-integer arithmetic; the float filter must decline these
cases (its declined entries are counted in ``filter_failures``) rather than trust a float sign.
"""

import itertools
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tropattn import config
from tropattn.exact import counting, determinants, dot_signs
from tropattn.exact._predicates import (PreparedPoints, determinant_signs, filtered_signs, matrix_signs, paired_signs,
                                        scaled_floats, small_determinant_signs)

EXPONENTS = (53, 54, 60, 64, 100, 300, 520, 1000)


def sgn(v):
    return (v > 0) - (v < 0)


def exact_dot_signs(rows, cols):
    return [[sgn(sum(a * b for a, b in zip(r, c))) for c in cols] for r in rows]


def leibniz(M):
    k = len(M)
    total = 0
    for p in itertools.permutations(range(k)):
        inv = sum(1 for i in range(k) for j in range(i + 1, k) if p[i] > p[j])
        term = -1 if inv % 2 else 1
        for i in range(k):
            term *= M[i][p[i]]
        total += term
    return total


# ---------------------------------------------------------------- dot products

def test_the_issue_example_is_an_exact_zero():
    assert dot_signs([[1, 1, 1, 1]], [[2**60, 1, -2**60, -1]]).tolist() == [[0]]


@pytest.mark.parametrize("e", EXPONENTS)
@pytest.mark.parametrize("t", (-1, 0, 1))
def test_small_results_under_big_terms(e, t):
    big = 2**e
    rows = [[1, 1, 1, 1], [1, 1, 1, t], [big, 1, -big, 1], [3, big, 5, -big]]
    cols = [[big, 1, -big, t - 1], [1, t, -1, 1], [1, t, 1, 0], [big, 0, -big, t]]
    got = dot_signs(rows, cols).tolist()
    assert got == exact_dot_signs(rows, cols)


@pytest.mark.parametrize("e", EXPONENTS)
def test_sums_that_cancel_to_the_last_bit(e):
    big = 2**e
    # 2^e + 1 - 2^e: the 1 is below the last bit of 2^e in float64 once e > 53
    cases = [([big, 1, -big], [1, 1, 1], 1), ([big, -1, -big], [1, 1, 1], -1),
             ([big + 1, -big], [big - 1, big], -1), ([big + 1, -(big - 1)], [big - 1, big + 1], 0),
             ([big, big, big, -3 * big + 1], [1, 1, 1, 1], 1), ([big - 1, -big], [big + 1, big - 1], 1)]
    with counting() as c:
        for r, col, want in cases:
            assert sgn(sum(a * b for a, b in zip(r, col))) == want
            assert dot_signs([r], [col]).tolist() == [[want]], (r, col)
    assert c.filter_failures >= 1                  # the filter declined at least the cancelling sums


def _cancelling_pair(draw_ints, n, e, t):
    """Rows r, c of length n + 1 with r . c = t, entries up to 2^e."""
    a = draw_ints(n)
    x = draw_ints(n)
    x.append(1)
    r = list(a) + [t - sum(p * q for p, q in zip(a, x[:-1]))]
    return r, x


@settings(max_examples=150)
@given(seed=st.integers(0, 2**32), n=st.integers(1, 6), e=st.sampled_from(EXPONENTS),
       t=st.sampled_from((-1, 0, 1, 2, -2)))
def test_cancelling_dot_products(seed, n, e, t):
    rnd = random.Random(seed)

    def ints(k):
        return [rnd.choice((-1, 1)) * rnd.randint(2**(e - 1), 2**e) for _ in range(k)]

    pairs = [_cancelling_pair(ints, n, e, t) for _ in range(3)]
    rows = [p[0] for p in pairs] + [[-v for v in pairs[0][0]]]
    cols = [p[1] for p in pairs]
    perm = list(range(n + 1))
    rnd.shuffle(perm)
    rows = [[r[i] for i in perm] for r in rows]
    cols = [[c[i] for i in perm] for c in cols]
    want = exact_dot_signs(rows, cols)
    assert dot_signs(rows, cols).tolist() == want
    R, C = np.array(rows, dtype=object), np.array(cols, dtype=object)
    assert filtered_signs(R, C, scaled_floats(R), scaled_floats(C)).tolist() == want


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32), e=st.sampled_from((20, 30, 60, 200)), t=st.sampled_from((-1, 0, 1)))
def test_matrix_signs_against_points(seed, e, t):
    rnd = random.Random(seed)
    d = rnd.randint(1, 3)
    pts = [tuple(rnd.randint(-2**e, 2**e) for _ in range(d)) + (rnd.randint(1, 2**e),) for _ in range(4)]
    H = []
    for p in pts:                                   # a row through each point, then nudged by t
        a = [rnd.randint(-2**e, 2**e) for _ in range(d)]
        H.append(a + [t - sum(x * y for x, y in zip(a, p[:-1])) if p[-1] == 1 else 0])
        # an exact hit for a general denominator: h . p = t
        q = list(p)
        a2 = [q[-1] * rnd.randint(-8, 8) for _ in range(d)]
        H.append(a2 + [(t - sum(x * y for x, y in zip(a2, q[:-1]))) // q[-1]])
    want = exact_dot_signs(H, pts)
    Ho = np.array(H, dtype=object)
    assert matrix_signs(Ho, PreparedPoints.of(pts)).tolist() == want
    if all(abs(v) < 2**62 for r in H for v in r):
        assert matrix_signs(np.array(H, dtype=np.int64), PreparedPoints.of(pts)).tolist() == want


# ---------------------------------------------------------------- determinants

def _unimodular(rnd, k, e):
    """A random integer matrix of determinant +-1 with entries near 2^e (products of shears)."""
    M = [[int(i == j) for j in range(k)] for i in range(k)]
    for _ in range(2 * k):
        i, j = rnd.sample(range(k), 2)
        m = rnd.choice((-1, 1)) * rnd.randint(1, 2**(e // (2 * k) + 1))
        M = [[M[r][c] + (m * M[j][c] if r == i else 0) for c in range(k)] for r in range(k)]
    return M


def _matmul(A, B):
    return [[sum(a * b for a, b in zip(r, c)) for c in zip(*B)] for r in A]


@pytest.mark.parametrize("e", (60, 100, 300))
def test_near_singular_2x2_and_3x3(e):
    b = 2**e
    Ms = [[[b + 1, b], [b, b - 1]],                       # det -1
          [[b, b - 1], [b + 1, b]],                       # det 1
          [[b, b], [b, b]],                               # det 0
          [[b + 1, b - 1], [b - 1, b - 3]],               # det (b+1)(b-3)-(b-1)^2 = -4... exact
          [[b, 1, 0], [b, 1, 1], [0, 0, 1]],              # rows 0, 1 differ by e_3: det 0
          [[b + 1, b, 0], [b, b - 1, 0], [0, 0, 1]]]      # det -1
    for M in Ms:
        want = sgn(leibniz(M))
        A = np.array([M], dtype=object)
        assert small_determinant_signs(A).tolist() == [want], M
        assert determinant_signs(A, False).tolist() == [want], M
        assert determinants(A).tolist() == [leibniz(M)]


@settings(max_examples=80)
@given(seed=st.integers(0, 2**32), k=st.integers(2, 4), e=st.sampled_from((40, 60, 120, 400)),
       t=st.sampled_from((-1, 0, 1)))
def test_cancelling_determinants(seed, k, e, t):
    rnd = random.Random(seed)
    D = [[int(i == j) for j in range(k)] for i in range(k)]
    D[-1][-1] = t                                     # det(U D L) = +-t
    M = _matmul(_matmul(_unimodular(rnd, k, e), D), _unimodular(rnd, k, e))
    want = leibniz(M)
    assert abs(want) == abs(t)
    A = np.array([M], dtype=object)
    assert determinants(A).tolist() == [want]
    assert small_determinant_signs(A).tolist() == [sgn(want)]
    assert determinant_signs(A, False).tolist() == [sgn(want)]
    if max(abs(v) for r in M for v in r) < 2**20:
        assert small_determinant_signs(A.astype(np.int64)).tolist() == [sgn(want)]


def test_declined_determinants_are_counted():
    b = 2**80
    A = np.array([[[b + 1, b], [b, b - 1]], [[b, b], [b, b]]], dtype=object)
    with counting() as c:
        assert small_determinant_signs(A).tolist() == [-1, 0]
    assert c.filter_failures == 2


def test_paired_signs_with_a_cache_knob_below_the_row_width():
    """A ``predicate_cache_entries`` smaller than the row width still gives every pair's exact sign."""
    H = np.array([[1, 1, -2, 0, 0, 0], [2**40, -1, 0, 0, 0, -2**40]], dtype=object)
    pts = PreparedPoints.of([(1, 1, 1, 0, 0, 1), (1, 0, 0, 0, 0, 1)])
    rows, cols = np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1])
    with config.override(predicate_cache_entries=2):
        got = paired_signs(H, pts, rows, cols).tolist()
    want = [int(np.sign(sum(a * b for a, b in zip(H[r], p)))) for r, p in
            zip(rows, [(1, 1, 1, 0, 0, 1), (1, 0, 0, 0, 0, 1)] * 2)]
    assert got == want == [0, 1, -1, 0]
