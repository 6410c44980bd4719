"""Attention heads, weight form, multi-head dual counts, soft vs hard."""

import itertools
import math
import random
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from tropattn.attention import (
    FFN,
    Head,
    Layer,
    MultiHeadAttention,
    Transformer,
    count_dual,
)
from tropattn.errors import InvalidInputError, QuadraticWallError, TieError
from tropattn.exact import interior_point
from tropattn.soft import log_soft_weights, soft_output, soft_weights

small = st.integers(-3, 3).map(F)
rational = st.builds(F, st.integers(-20, 20), st.integers(1, 5))


def heads(dim, max_n=5):
    return st.integers(1, max_n).flatmap(lambda n: st.builds(
        Head, st.lists(st.lists(small, min_size=dim, max_size=dim), min_size=n, max_size=n),
        st.lists(small, min_size=n, max_size=n)))


def brute_force_count(hs):
    """Realisable label tuples: one certified LP per tuple of N^H.

    Keys equal in both key and offset are one key (the earlier index wins, as in Head.label)."""
    count = 0
    for labels in itertools.product(*[range(h.N) for h in hs]):
        A, b = [], []
        for h, j in zip(hs, labels):
            for k in range(h.N):
                if k != j and not (k > j and (h.keys[k], h.offsets[k]) == (h.keys[j], h.offsets[j])):
                    normal, offset = h.wall(j, k)
                    A.append(normal)
                    b.append(offset)
        if not A or interior_point(A, b).feasible:
            count += 1
    return count


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(lambda d: st.tuples(st.just(d), heads(d))), st.data())
@pytest.mark.slow
def test_label_is_power_cell(dh, data):
    d, head = dh
    pd = head.power_diagram()
    for _ in range(5):
        x = data.draw(st.lists(rational, min_size=d, max_size=d))
        try:
            j = head.label(x)
        except TieError:
            with pytest.raises(TieError):
                pd.locate(x)
            continue
        assert pd.locate(x) == j
        s = head.scores(x)
        assert s[j] == max(s) == head.tropical_polynomial()(x)
        normal_ok = all(sum(a * xi for a, xi in zip(head.wall(j, k)[0], x)) <= head.wall(j, k)[1]
                        for k in range(head.N))
        assert normal_ok


def test_weight_form_matches_direct_scores():
    rng = np.random.default_rng(0)
    for trial in range(5):
        d, dk, dv, n = 3, 2, 2, 6
        ints = lambda *s: rng.integers(-3, 4, size=s)
        W_Q, W_K, W_V, W_O, Y = ints(dk, d), ints(dk, d), ints(dv, d), ints(d, dv), ints(n, d)
        b_Q, b_K, b_V = ints(dk), ints(dk), ints(dv)
        head = Head.from_weights(W_Q, W_K, W_V, W_O, Y, b_Q, b_K, b_V)
        assert head.score_scale == pytest.approx(1 / math.sqrt(dk))
        for _ in range(30):
            x = [F(int(v), 3) for v in rng.integers(-9, 10, size=d)]
            q = [sum(F(int(W_Q[r][c])) * x[c] for c in range(d)) + int(b_Q[r]) for r in range(dk)]
            raw = [sum(q[r] * (sum(int(W_K[r][c]) * int(Y[j][c]) for c in range(d)) + int(b_K[r]))
                       for r in range(dk)) for j in range(n)]
            assert head.scores(x) == tuple(raw)          # the same scores, exactly (up to 1/sqrt(d_k))
            win = [j for j in range(n) if raw[j] == max(raw)]
            if len({(head.keys[j], head.offsets[j]) for j in win}) == 1:
                j = head.label(x)
                assert j in win
                v = W_O @ (W_V @ Y[j] + b_V)
                assert head.hard(x) == tuple(F(int(t)) for t in v)
            # soft with score_scale = 1/sqrt(d_k) is standard attention softmax(q.k / sqrt(d_k))
            z = np.array([float(r) for r in raw]) / math.sqrt(dk)
            p = np.exp(z - z.max())
            p /= p.sum()
            assert np.allclose(soft_weights(head, np.array(x, dtype=float), 1.0)[0], p)


def test_self_attention_is_refused():
    with pytest.raises(QuadraticWallError, match="quadratic"):
        Head.from_weights([[1]], [[1]], [[1]], None, [[1]], include_query=True)
    with pytest.raises(QuadraticWallError, match="include_query=False"):
        Transformer.from_weights([[1]], [{"heads": [dict(W_Q=[[1]], W_K=[[1]], W_V=[[1]])]}], include_query=True)


def test_empty_context_and_shapes():
    for make in (lambda: Head([]), lambda: Head.from_weights([[1]], [[1]], [[1]], None, [])):
        with pytest.raises(InvalidInputError, match="context is empty"):
            make()
    with pytest.raises(InvalidInputError, match="offsets"):
        Head([[0], [1]], [0])
    with pytest.raises(InvalidInputError, match="values"):
        Head([[0], [1]], values=[[1]])
    with pytest.raises(InvalidInputError, match="NaN"):
        Head([[float("nan")]])
    with pytest.raises(InvalidInputError, match="residual"):
        Layer([Head([[0, 0], [1, 1]], values=[[1], [2]])])


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 2).flatmap(lambda d: st.lists(heads(d, 3), min_size=1, max_size=3)))
def test_count_dual_equals_brute_force(hs):
    assert count_dual(hs) == brute_force_count(hs)


def grid_heads(d, H, N):
    out = []
    for h in range(H):
        keys = [[j if c == h % d else 0 for c in range(d)] for j in range(N)]
        out.append(Head(keys, [F(-j * j, 2) for j in range(N)]))
    return out


@pytest.mark.parametrize("d,H,N", [(1, 1, 4), (2, 2, 3), (2, 2, 5), (3, 3, 3), (3, 2, 4)])
def test_grid_heads_attain_N_to_the_H(d, H, N):
    hs = grid_heads(d, H, N)
    assert count_dual(hs) == N ** H
    if N ** H <= 30:
        assert brute_force_count(hs) == N ** H


@pytest.mark.parametrize("d,H", [(1, 3), (2, 3), (2, 4), (3, 4)])
def test_two_key_heads_in_general_position(d, H):
    rng = random.Random(d * 10 + H)
    hs = [Head([[F(rng.randint(-50, 50), 7) for _ in range(d)] for _ in range(2)],
               [F(rng.randint(-50, 50), 11) for _ in range(2)]) for _ in range(H)]
    assert count_dual(hs) == sum(math.comb(H, i) for i in range(d + 1))
    assert MultiHeadAttention(hs).count_dual() == count_dual(hs)


@settings(max_examples=30, deadline=None)
@given(heads(2, 6), st.lists(st.lists(st.integers(-20, 20), min_size=2, max_size=2), min_size=1, max_size=8))
def test_soft_argmax_is_hard_label(head, X):
    Xf = np.array(X, dtype=float) / 4
    W = soft_weights(head, Xf, tau=0.7)
    assert np.allclose(W.sum(axis=1), 1.0)
    for x, w in zip(X, W):
        xr = [F(v, 4) for v in x]
        try:
            j = head.label(xr)
        except TieError:
            continue
        top = np.flatnonzero(w == w.max())
        assert j in top
        same = [k for k in range(head.N) if (head.keys[k], head.offsets[k]) == (head.keys[j], head.offsets[j])]
        assert set(top.tolist()) == set(same)
        assert np.allclose(soft_output(head, np.array(xr, dtype=float), 1e-4)[0],
                           np.mean([np.array(head.values[k], dtype=float) for k in same], axis=0))


def test_tropical_rational_map_is_the_zero_temperature_limit():
    head = Head([[0, 0], [1, 0], [0, 1]], [0, F(-1, 2), F(1, 3)])
    U = [[0, F(-1)], [F(2), 0], [F(-1, 2), float("-inf")]]
    Fmap = head.tropical_rational_map(U)
    x = [F(3, 5), F(-1, 7)]
    xf = np.array(x, dtype=float)
    for c in range(2):
        exact = Fmap.components[c](x)
        tau = 1e-3
        u = np.array([float(r[c]) for r in U])
        approx = tau * logsumexp(log_soft_weights(head, xf, tau)[0] + u / tau)      # tau log sum_j p_j e^{u_j / tau}
        assert approx == pytest.approx(float(exact), abs=1e-2)


def test_transformer_from_weights_propagates_context_causally():
    ctx = [[1, 0], [0, 1], [-1, -1]]
    spec = dict(W_Q=[[1, 0], [0, 1]], W_K=[[1, 0], [0, 1]], W_V=[[1, 0], [0, 1]], W_O=[[1, 0], [0, 1]])
    T = Transformer.from_weights(ctx, [{"heads": [spec]}, {"heads": [spec]}])
    # layer 0 on the context: token i attends to tokens 0..i with score y_i . y_j
    Y1 = []
    for i, y in enumerate(ctx):
        s = [sum(a * b for a, b in zip(y, ctx[j])) for j in range(i + 1)]
        j = s.index(max(s))
        Y1.append([F(a + b) for a, b in zip(y, ctx[j])])
    assert T.layers[1].heads[0].keys == tuple(tuple(y) for y in Y1)
    x = [F(1, 3), F(1, 2)]
    out, pattern = T.evaluate(x)
    l0 = T.layers[0].heads[0].label(x)
    y = [a + b for a, b in zip(x, ctx[l0])]
    l1 = T.layers[1].heads[0].label(y)
    assert pattern == (((l0,), ()), ((l1,), ()))
    assert out == tuple(a + b for a, b in zip(y, Y1[l1]))


def test_layer_with_projection_and_ffn():
    heads_ = [Head([[0], [1]], [0, F(-1, 2)], values=[[1, 0], [0, 1]])]
    layer = Layer(heads_, residual=True, projection=[[1, 2]], ffn=FFN([[1]], [-3], [[2]], [1]))
    y, labels, bits = layer.evaluate([2])             # head picks key 1: value (0, 1), P -> 2
    assert labels == (1,) and y == (F(2 + 2 + 2 * (4 - 3) + 1),) and bits == (1,)
    T = Transformer([layer, layer])
    assert T.dim == 1 and len(T.evaluate([2])[1]) == 2
    with pytest.raises(TieError, match="head 0"):
        layer.evaluate([F(1, 2)])
