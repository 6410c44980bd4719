"""The sign filters' error bounds, pinned from both sides with inputs whose float value is exact.

Each case puts the exact float value of a dot product or determinant just below or just above
the documented bound (checked here in Fractions): below, the filter must decline (the entry is
computed in integers and counted, or handed to the per-pair filter); above, it must decide.  A
bound made smaller would decide the first kind, one made larger would decline the second; both
are what mutation testing (scripts/mutation.py predicates) found unwatched.  The expected signs
come from Python integers.
"""

import sys
from contextlib import contextmanager
from fractions import Fraction

import numpy as np
import pytest

from tropattn import config
from tropattn.exact import counting
from tropattn.exact._predicates import (dense_signs, determinant_signs, filtered_signs, row_products, scaled_floats,
                                        small_determinant_signs)

U = Fraction(1, 2 ** 53)


def gamma(n):
    return n * U / (1 - n * U)


def exact_signs(R, C):
    return [[(s > 0) - (s < 0) for s in (sum(int(a) * int(b) for a, b in zip(r, c)) for c in C)] for r in R]


def obj(rows):
    return np.array(rows, dtype=object)


def filtered(R, C):
    """``filtered_signs`` (checked against integers) and how many entries it computed in Python integers."""
    with counting() as c:
        out = filtered_signs(R, C, scaled_floats(R), scaled_floats(C))
    assert out.tolist() == exact_signs(R, C)
    return c.filter_failures


@contextmanager
def returns(name):
    """The values that Python functions called ``name`` return inside the block.

    A profile hook only watches (nothing is patched): it shows which path did the work
    where every path gives the same answer.  Under mutmut (scripts/mutation.py) the body
    of ``name`` runs as ``x_name__mutmut_orig`` or ``x_name__mutmut_<n>``; those count too.
    """
    seen, previous = [], sys.getprofile()
    mutmut_copy = f"x_{name}__mutmut_"

    def hook(frame, event, arg):
        code = frame.f_code.co_name
        if event == "return" and arg is not None and (code == name or code.startswith(mutmut_copy)):
            seen.append(arg)

    sys.setprofile(hook)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


def dense(R, C, **blocks):
    """``dense_signs`` (checked) and how many entries its row bound left to the per-pair filter."""
    with config.override(**blocks), returns("_pair_signs") as handed:
        out = dense_signs(R, C, scaled_floats(R), scaled_floats(C))
    assert out.tolist() == exact_signs(R, C)
    return sum(len(signs) for signs, _ in handed)


# ------------------------------------------------------------------ shapes and types

def test_filters_accept_empty_sides():
    R, C, E = np.array([[1, 2], [3, 4], [5, 6]]), np.array([[1, 1], [2, -1]]), np.zeros((0, 2), dtype=np.int64)
    for f in (filtered_signs, dense_signs):
        assert f(R, E, scaled_floats(R), scaled_floats(E)).shape == (3, 0)
        assert f(E, C, scaled_floats(E), scaled_floats(C)).shape == (0, 2)


@pytest.mark.parametrize("shape", [(1, 1), (1, 3), (3, 1)])
def test_dense_signs_of_one_row_or_one_column(shape):
    rng = np.random.default_rng(3)
    R = rng.integers(-5, 6, size=(shape[0], 3)) * (2 ** 40)
    C = rng.integers(-5, 6, size=(shape[1], 3))
    R[0], C[0] = [2 ** 40, 2 ** 40, 1], [1, -1, 7]                    # a clear nonzero, at [0, 0]
    out = dense_signs(R, C, scaled_floats(R), scaled_floats(C))
    assert out.tolist() == exact_signs(R, C) and out[0, 0] == 1


@pytest.mark.parametrize("R,C", [
    (np.array([[0, 1, -1]]), obj([[2 ** 600, 2 ** 60 + 1, 2 ** 60]])),      # int64 rows, object points
    (obj([[2 ** 600, 2 ** 60 + 1, 2 ** 60]]), np.array([[0, 1, -1]])),      # and the other way round
])
def test_scaled_rows_are_never_taken_as_exact_floats(R, C):
    """Scaling ``2^60 + 1`` by ``2^-101`` loses the 1: the float value 0 is tiny but not exact."""
    assert filtered(R, C) == 1


@pytest.mark.parametrize("shape", [(1, 1, 16), (3000, 7, 5), (40, 2500, 7), (5, 5, 17), (0, 4, 3)])
def test_row_products_within_the_any_order_bound(shape):
    """Tiled BLAS products (any summation order): every entry within gamma_n sum |a_j b_j| of the
    exact value (checked in Fractions), and exact on integers whose sums stay below 2^53."""
    r, c, n = shape
    rng = np.random.default_rng(sum(shape))
    A = rng.standard_normal((r, n)) * 2.0 ** rng.integers(-30, 30, size=(r, 1))
    B = rng.standard_normal((c, n))
    out = row_products(A, B)
    assert out.shape == (r, c)
    for i, k in zip(rng.integers(0, max(r, 1), 60), rng.integers(0, c, 60)):
        if not r:
            break
        exact = sum(Fraction(a) * Fraction(b) for a, b in zip(A[i], B[k]))
        mag = sum(abs(Fraction(a) * Fraction(b)) for a, b in zip(A[i], B[k]))
        assert abs(Fraction(out[i, k]) - exact) <= gamma(n) * mag
    Ai, Bi = rng.integers(-2 ** 20, 2 ** 20, size=(300, n)), rng.integers(-2 ** 20, 2 ** 20, size=(2000, n))
    assert np.array_equal(row_products(Ai.astype(float), Bi.astype(float)), (Ai @ Bi.T).astype(float))


# ------------------------------------------------------------------ the relative term gamma_{m+3} (1 + 4u) mag

def filtered_bound(M, m=2):
    return gamma(m + 3) * (1 + 4 * U) * M + (m + 1) * Fraction(2) ** -570


def dense_bound(s, m=2):
    return gamma(m + 3) * (1 + 4 * (m + 6) * U) * s + 2 * (m + 1) * Fraction(2) ** -570


def pair_row(X, a, b):
    """The row ``(X + a, -(X - b))`` (exact floats, ``X < 2^53``) against ``(1, 1)``: value ``a + b``, mag ``2 X + a - b``."""
    return obj([[X + a, -(X - b)]]), np.array([[1, 1]])


@pytest.mark.parametrize("a,b,declined", [(1, 1, 1), (2, 1, 0)])
def test_filtered_signs_decide_exactly_above_the_bound(a, b, declined):
    R, C = pair_row(2 ** 51, a, b)
    ratio = (a + b) / filtered_bound(2 ** 52 + a - b)              # 0.8 and 1.2
    assert (ratio < 1) == bool(declined) and abs(ratio - 1) < Fraction(1, 4)
    assert filtered(R, C) == declined


def test_filtered_signs_decline_just_below_the_bound():
    """The value 8 within 6u below the bound: a bound a relative O(u) smaller would decide it."""
    X = 7205759403792789
    R, C = pair_row(X, 4, 4)
    B = filtered_bound(2 * X)
    assert B * (1 - 6 * U) < 8 < B
    assert filtered(R, C) == 1


@pytest.mark.parametrize("a,b,handed", [(1, 1, 1), (2, 1, 0)])
def test_dense_signs_row_bound_decides_exactly_above_it(a, b, handed):
    R, C = pair_row(2 ** 51, a, b)
    ratio = (a + b) / dense_bound(2 ** 52 + a - b)
    assert (ratio < 1) == bool(handed) and abs(ratio - 1) < Fraction(1, 4)
    assert dense(R, C) == handed


@pytest.mark.parametrize("X,handed", [(7205759403792766, 1), (7205759403792762, 0)])
def test_dense_signs_row_bound_to_within_a_few_u(X, handed):
    """The value 8 within 5u below, and within 3u above, the row bound."""
    R, C = pair_row(X, 4, 4)
    B = dense_bound(2 * X)
    if handed:
        assert B * (1 - 5 * U) < 8 < B
    else:
        assert B < 8 < B * (1 + 3 * U)
    assert dense(R, C) == handed


@pytest.mark.parametrize("blocks", [{}, dict(predicate_cache_entries=8, predicate_block_entries=200)])
def test_dense_signs_decide_clear_entries_in_every_row_block(blocks):
    rng = np.random.default_rng(5)
    R = rng.integers(1, 9, size=(11, 4)) * (2 ** 45)                   # positive rows, positive points: clear signs
    C = rng.integers(1, 9, size=(6, 4))
    C[::2] *= -1
    assert dense(R, C, **blocks) == 0


# ------------------------------------------------------------------ the absolute term (m + 1) 2^-570 (underflow)

def underflow_row(a, shift=570, b=0):
    """A row whose big entry scales the small ones ``a``, ``-b`` by ``2^-shift`` (exactly)."""
    return obj([[2 ** (shift + 499), a, -b]])


@pytest.mark.parametrize("a,shift,declined", [(3, 570, 1), (9, 571, 0)])      # 3 and 4.5 times 2^-570
def test_filtered_signs_absolute_term(a, shift, declined):
    R, C = underflow_row(a, shift), np.array([[0, 1, 1]])
    assert scaled_floats(R)[0, 1] == a * 2.0 ** -shift
    eta = 4 * Fraction(2) ** -570                                       # (m + 1) 2^-570, m = 3
    assert (Fraction(a, 2 ** shift) < eta) == bool(declined)
    assert filtered(R, C) == declined


@pytest.mark.parametrize("a,handed", [(6, 1), (9, 0)])                    # 2 eta = 8 * 2^-570
def test_dense_signs_absolute_term(a, handed):
    assert dense(underflow_row(a), np.array([[0, 1, 1]])) == handed


def test_dense_signs_add_the_absolute_term_to_the_relative_one():
    """Both terms near ``8 * 2^-570``: their sum bounds the value ``8 * 2^-570``, their difference would not."""
    N = 6004799503160662
    R, C = underflow_row(N // 2 + 2, b=N // 2 - 2), np.array([[0, 2, 2]])
    relative = gamma(6) * (1 + 4 * 9 * U) * 2 * N * Fraction(2) ** -570
    assert abs(relative / (8 * Fraction(2) ** -570) - 1) < Fraction(1, 100)
    assert dense(R, C) == 1


# ------------------------------------------------------------------ determinants

def in_integers(results):
    """How many determinants were computed on object arrays (Python integers)."""
    return sum(len(d) for d in results if d.dtype == object)


@pytest.mark.parametrize("p,q,declined", [(2 ** 51 + 3, 2 ** 51 - 3, 1), (2 ** 51 + 5, 2 ** 51 - 4, 0)])
def test_determinant_signs_decide_exactly_above_2_gamma_perm(p, q, declined):
    """``det [[p, q], [1, 1]] = p - q`` (6, 9) against ``2 gamma_8 perm`` (about 8)."""
    M = np.array([[[p, q], [1, 1]], [[3, 1], [1, 2]]])
    bound = 2 * gamma(8) * (p + q)
    assert ((p - q) < bound) == bool(declined) and abs((p - q) / bound - 1) < Fraction(3, 10)
    with returns("determinants") as dets:
        assert determinant_signs(M, False).tolist() == [1, 1]
    assert in_integers(dets) == declined


@pytest.mark.parametrize("p,q,declined", [(2 ** 51 + 6, 2 ** 51 - 6, 1), (2 ** 51 + 9, 2 ** 51 - 9, 0)])
def test_small_determinant_signs_decide_exactly_above_2_gamma_rowsums(p, q, declined):
    """``det [[p, q], [1, 1]] = p - q`` (12, 18) against ``2 gamma_8 (p + q) 2`` (about 16)."""
    M = np.array([[[p, q], [1, 1]], [[3, 1], [1, 2]]])
    bound = 2 * gamma(8) * (p + q) * 2
    assert ((p - q) < bound) == bool(declined) and abs((p - q) / bound - 1) < Fraction(3, 10)
    with counting() as c:
        assert small_determinant_signs(M).tolist() == [1, 1]
    assert c.filter_failures == declined


@pytest.mark.parametrize("p,q,factor,f", [(2 ** 51 + 4, 2 ** 51 - 4, 1, "determinant_signs"),
                                          (2 ** 50 + 4, 2 ** 50 - 4, 2, "small_determinant_signs")])
def test_determinant_filters_decline_just_below_their_bound(p, q, factor, f):
    """``det = 8`` within 16u below ``2 gamma_8 perm`` (``perm = 2^52``) and ``2 gamma_8 (p + q) 2`` (also 2^52)."""
    M = np.array([[[p, q], [1, 1]]])
    bound = 2 * gamma(8) * (p + q) * factor
    assert bound * (1 - 16 * U) < 8 < bound
    with counting() as c, returns("determinants") as dets:
        out = determinant_signs(M, False) if f == "determinant_signs" else small_determinant_signs(M)
    assert out.tolist() == [1] and in_integers(dets) == 1
    assert c.filter_failures == (factor == 2)
