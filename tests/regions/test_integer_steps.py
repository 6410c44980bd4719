"""The FFN step in integers against the Fraction definition (issue 23, item 2).

``ReluStep`` carries the weights as integer matrices over one denominator and computes one
integer product per parent; these tests recompute labels, rows and maps from the definition
``y -> y + W2 relu(W1 y + b1) + b2`` in Fractions, written here, and compare exactly.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from tropattn.attention import FFN
from tropattn.exact import counting, int_matmul
from tropattn.regions import AffineMap
from tropattn.regions._steps import ReluStep

_number = st.one_of(
    st.integers(-3, 3),
    st.builds(lambda m, e: float(np.float32(m * 2.0 ** e)), st.integers(-2 ** 23, 2 ** 23), st.integers(-140, 60)),
    st.builds(Fraction, st.integers(-10 ** 30, 10 ** 30), st.integers(1, 10 ** 6)))


@st.composite
def _case(draw):
    d_in, d, n = draw(st.integers(1, 3)), draw(st.integers(1, 4)), draw(st.integers(1, 6))
    mat = lambda r, c: [[draw(_number) for _ in range(c)] for _ in range(r)]   # noqa: E731
    ffn = FFN(mat(n, d), [draw(_number) for _ in range(n)], mat(d, n), [draw(_number) for _ in range(d)])
    f = AffineMap(tuple(tuple(Fraction(v) for v in r) for r in mat(d, d_in)), tuple(Fraction(draw(_number))
                                                                                  for _ in range(d)))
    patterns = [tuple(draw(st.integers(0, 1)) for _ in range(n))]
    for _ in range(draw(st.integers(0, 5))):          # neighbours: one unit flipped (the search's next pieces)
        i = draw(st.integers(0, n - 1))
        patterns.append(patterns[-1][:i] + (1 - patterns[-1][i],) + patterns[-1][i + 1:])
    X = tuple(draw(st.integers(-50, 50)) for _ in range(d_in))
    return ffn, f, patterns, X, draw(st.integers(1, 9))


def _pre(ffn, f, x):
    y = f.apply(x)
    return [sum((Fraction(w) * v for w, v in zip(row, y)), Fraction(0)) + Fraction(b) for row, b in zip(ffn.W1, ffn.b1)]


@settings(max_examples=60, deadline=None)
@given(case=_case())
def test_integer_ffn_step_equals_the_fraction_definition(case):
    ffn, f, patterns, X, D = case
    step = ReluStep(ffn, 0)
    for bits in patterns:        # one parent, several pieces: later maps may start from an earlier piece's
        _check_piece(step, ffn, f, bits, X, D)


def _check_piece(step, ffn, f, bits, X, D):
    d_in = len(X)
    # the output map, entry by entry
    W1 = [[Fraction(v) for v in r] for r in ffn.W1]
    W2 = [[Fraction(v) for v in r] for r in ffn.W2]
    hid_M = [[sum((W1[i][r] * f.M[r][k] for r in range(len(f.M))), Fraction(0)) * bits[i] for k in range(d_in)]
             for i in range(len(W1))]
    hid_c = [(sum((W1[i][r] * f.c[r] for r in range(len(f.c))), Fraction(0)) + Fraction(ffn.b1[i])) * bits[i]
             for i in range(len(W1))]
    M = tuple(tuple(f.M[o][k] + sum((W2[o][i] * hid_M[i][k] for i in range(len(W1))), Fraction(0))
                    for k in range(d_in)) for o in range(len(f.M)))
    c = tuple(f.c[o] + sum((W2[o][i] * hid_c[i] for i in range(len(W1))), Fraction(0)) + Fraction(ffn.b2[o])
              for o in range(len(f.M)))
    assert step.output_map(bits, f) == AffineMap(M, c)
    # the rows: the same half-spaces (positive multiples) as the Fraction pull-back
    x = tuple(Fraction(v, D) for v in X)
    pre = _pre(ffn, f, x)
    A, b, walls = step.rows(bits, f)
    for a, beta, wall in zip(A, b, walls):
        i, bit = wall[2], wall[3]
        lhs = sum((Fraction(ai) * xi for ai, xi in zip(a, x)), Fraction(0)) - beta
        want = -pre[i] if bit else pre[i]                       # the row reads want <= 0, up to a positive factor
        assert (lhs > 0) == (want > 0) and (lhs == 0) == (want == 0)
    # the labels at X / D
    labels = step.labels_at(f, X, D)
    if labels is not None:
        assert labels == tuple(int(p > 0) for p in pre)
    else:
        assert any(p == 0 for p in pre)


@settings(max_examples=40, deadline=None)
@given(bits=st.integers(1, 70), n=st.integers(1, 4), k=st.integers(1, 3), data=st.data())
def test_int_matmul_is_exact_on_both_sides_of_int64(bits, n, k, data):
    ints = st.integers(-(2 ** bits), 2 ** bits)
    A = [[data.draw(ints) for _ in range(n)] for _ in range(k)]
    B = [[data.draw(ints) for _ in range(k)] for _ in range(n)]
    with counting() as scope:
        got = int_matmul(A, B).tolist()
    assert got == [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]
    assert all(type(v) is int for row in got for v in row)
    object_path = scope.snapshot()["by_place"].get("fallbacks:int_matmul.object", 0)
    size = lambda M: max(abs(v) for row in M for v in row).bit_length()    # noqa: E731
    assert object_path == (size(A) + size(B) + n.bit_length() > 62)        # int64 only where no sum can overflow


_P61 = (1 << 61) - 1


@st.composite
def _integer_maps(draw):
    """Two maps ``(N x + n) / m`` from numerator arrays (unreduced, scaled), and their Fraction entries."""
    rows, d = draw(st.integers(1, 20)), draw(st.integers(1, 3))
    entry = st.integers(-10 ** 20, 10 ** 20) | st.integers(-3, 3)
    m = draw(st.sampled_from([1, 6, _P61, 2 * _P61, 10 ** 25]) | st.integers(1, 10 ** 6))
    N = [[draw(entry) for _ in range(d + 1)] for _ in range(rows)]
    if draw(st.booleans()):       # the second map: the same one, or one entry changed (maybe after the 16 hashed)
        N2 = [list(r) for r in N]
        i, k = draw(st.integers(0, rows - 1)), draw(st.just(d) | st.integers(0, d))   # d: the offset
        N2[i][k] += draw(st.sampled_from([1, -1, m]))
    else:
        N2 = N
    g = draw(st.sampled_from([1, 2, 7, _P61]))
    g2 = draw(st.sampled_from([g, 1, 3, _P61]))       # often the same denominator: the array comparison
    arrays = []
    for rows_, scale in ((N, g), (N2, g2)):
        A = np.empty((rows, d + 1), dtype=object)
        A[:, :] = [[v * scale for v in r] for r in rows_]
        arrays.append((A, m * scale))
    fractions = [tuple(Fraction(v, m) for r in rows_ for v in r) for rows_ in (N, N2)]
    return arrays, fractions


@settings(max_examples=150, deadline=None)
@given(case=_integer_maps())
def test_unreduced_maps_compare_and_hash_like_their_fractions(case):
    """``from_integers`` on arrays keeps them unreduced: equality and hash follow the rational entries."""
    ((A, m), (B, m2)), (fa, fb) = case
    d = A.shape[1] - 1
    f, g = AffineMap.from_integers(A[:, :d], A[:, d], m), AffineMap.from_integers(B[:, :d], B[:, d], m2)
    assert (f == g) == (fa == fb) == (g == f)
    ref = AffineMap(tuple(tuple(Fraction(v) for v in row[:d]) for row in A.tolist()),
                    tuple(Fraction(row[d]) for row in A.tolist()))        # A itself over 1: f times m
    assert (ref == f) == (f == ref) == (fa == tuple(Fraction(v) for row in A.tolist() for v in row))
    assert ref != f or hash(ref) == hash(f)
    if fa == fb:
        assert hash(f) == hash(g)
    h = AffineMap.from_integers(A[:, :d], A[:, d], m)
    assert h.M == tuple(tuple(fa[r * (d + 1):r * (d + 1) + d]) for r in range(len(A)))      # the Fraction view
    assert h == f and hash(h) == hash(f) == hash(AffineMap(h.M, h.c))
    assert len({f, g}) == (1 if fa == fb else 2)
