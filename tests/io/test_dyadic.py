"""The skeleton's integer-over-a-power-of-two products against Fraction arithmetic and Head.from_weights."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from tropattn.attention import Head, precompose_head
from tropattn.errors import InvalidInputError
from tropattn.io._dyadic import Dyadic, float_fractions
from tropattn.io._skeleton import Attention, Norm, _frozen_affine, _frozen_scale, _heads, _pull_head, _times_frozen

FLOATS = st.one_of(st.floats(allow_nan=False, allow_infinity=False, width=64, min_value=-1e150, max_value=1e150),
                   st.sampled_from([0.0, -0.0, 5e-324, -2.5e-310, 1e-300, 3.0, 1e150]))


def _fractions(A):
    A = np.asarray(A, dtype=float)
    return [[Fraction(x) for x in row] for row in A]


@settings(max_examples=60, deadline=None)
@given(arrays(np.float64, (2, 3), elements=FLOATS), arrays(np.float64, (3, 2), elements=FLOATS),
       arrays(np.float64, (2,), elements=FLOATS))
def test_products_and_sums_are_those_of_the_fractions(A, B, c):
    got = (Dyadic.of(A) @ Dyadic.of(B) + Dyadic.of(c)).fractions()
    FA, FB = _fractions(A), _fractions(B)
    want = tuple(tuple(sum((FA[i][k] * FB[k][j] for k in range(3)), Fraction(0)) + Fraction(c[j])
                       for j in range(2)) for i in range(2))
    assert got == want
    assert float_fractions(A) == tuple(tuple(r) for r in _fractions(A))


@pytest.mark.parametrize("scale", [1.0, 1e-200, 1e200])
def test_heads_equal_those_of_from_weights(scale):
    rng = np.random.default_rng(1)
    H, dk, d, N = 2, 3, 5, 4
    W = [rng.normal(size=s) * scale for s in [(H, dk, d), (H, dk), (H, dk, d), (H, dk), (H, dk, d), (H, dk)]]
    attn = Attention(*W, rng.normal(size=(d, H * dk)), rng.normal(size=d), d_k=7)
    Y = rng.normal(size=(N, d))
    mine = _heads(attn, Y, with_bias=True)
    for h in range(H):
        ref = Head.from_weights(attn.W_Q[h], attn.W_K[h], attn.W_V[h], attn.W_O[:, h * dk:(h + 1) * dk], Y,
                                attn.b_Q[h], attn.b_K[h], attn.b_V[h], d_k=7)
        if h == 0:                     # head 0 carries b_O in its values
            bO = [Fraction(x) for x in attn.b_O]
            ref = Head(ref.keys, ref.offsets, tuple(tuple(a + b for a, b in zip(v, bO)) for v in ref.values), d_k=7)
        assert mine[h] == ref


def test_non_finite_weights_are_named():
    with pytest.raises(InvalidInputError, match="W_K has a NaN or infinite entry"):
        Dyadic.of([1.0, float("nan")], "W_K")
    with pytest.raises(InvalidInputError, match="W1 has a NaN"):
        float_fractions([[float("inf")]], "W1")


def test_frozen_layernorm_structure_equals_the_full_matrix():
    rng = np.random.default_rng(3)
    d = 5
    norm = Norm(rng.normal(size=d), rng.normal(size=d), 1e-5)
    A, c = _frozen_affine(norm, 0.7)                         # the d x d matrix, entry by entry
    w, c2 = _frozen_scale("freeze", norm, 0.7)
    assert c2 == c
    head = Head(rng.normal(size=(3, d)), rng.normal(size=3), rng.normal(size=(3, d)))
    assert _pull_head(head, w, c) == precompose_head(head, A, c)
    row = [Fraction(x) for x in rng.normal(size=d)]
    assert _times_frozen(row, w) == tuple(sum((row[j] * A[j][k] for j in range(d)), Fraction(0)) for k in range(d))
    assert _frozen_scale("drop", norm, 0.7) is None


FLOAT32 = st.floats(min_value=-1e3, max_value=1e3, width=32, allow_subnormal=False).filter(lambda x: x == 0 or abs(x) > 1e-6)


@settings(max_examples=60, deadline=None)
@given(arrays(np.float32, (3, 4), elements=FLOAT32), arrays(np.float32, (4, 2), elements=FLOAT32),
       arrays(np.float32, (2,), elements=FLOAT32))
def test_float32_weights_are_int64_and_their_products_exact(A, B, c):
    """Checkpoint weights (float32, exponents within 2^-20 ... 2^10) are held in int64; the
    products on limbs and the sums equal the Fractions'."""
    DA, DB, Dc = Dyadic.of(A), Dyadic.of(B), Dyadic.of(c)
    assert DA.ints.dtype == DB.ints.dtype == Dc.ints.dtype == np.int64
    got = (DA @ DB + Dc).fractions()
    FA, FB = _fractions(A), _fractions(B)
    assert got == tuple(tuple(sum((FA[i][k] * FB[k][j] for k in range(4)), Fraction(0)) + Fraction(float(c[j]))
                              for j in range(2)) for i in range(3))
    v = (DA @ Dyadic.of(B[:, 0])).fractions()          # a matrix times a vector: a vector
    assert v == tuple(sum((FA[i][k] * FB[k][0] for k in range(4)), Fraction(0)) for i in range(3))


def test_sums_and_shifts_at_the_int64_edge_are_exact():
    a = Dyadic.of([1.0, 2.0 ** -61])                   # ints 2^61 and 1: the last int64 that fits
    assert a.ints.dtype == np.int64
    assert (a + a).fractions() == (Fraction(2), Fraction(1, 2 ** 60))
    assert (a + Dyadic.of([2.0 ** -70, 0.0])).fractions() == (1 + Fraction(1, 2 ** 70), Fraction(1, 2 ** 61))
    assert Dyadic.of([1.0, 2.0 ** -62]).ints.dtype == object           # 2^62: beyond the int64 budget
    assert (a @ Dyadic.of([[2.0 ** 40], [3.0]])).fractions() == (Fraction(2 ** 40) + Fraction(3, 2 ** 61),)
