"""A ReLU step's hashed maps from on-set sums (``ReluStep.on_sums``), against maps written in Fractions.

A count hashes the last ReLU step's piece maps from ``G [Mi | ci] + g m`` modulo three primes,
``(G, g)`` the on-set's sums of ``W2n W1n`` and ``W2n b1n``, updated from the nearest recent
on-set by the units that differ.  The oracle writes each piece's map in Fractions straight
from the FFN's definition, ``f + W2 diag(bits) (W1 f + b1) + b2``; the deferred map must
equal it and hash as it does, whatever order the on-sets come in (near ones, far ones,
several parents in turn).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.attention import FFN
from tropattn.regions import AffineMap
from tropattn.regions._affine import _PRIMES
from tropattn.regions._relu import ReluStep

_weight = st.one_of(st.integers(-9, 9), st.builds(F, st.integers(-(2 ** 70), 2 ** 70), st.sampled_from([1, 2 ** 40])))


def _piece_map(ffn, f, bits):
    """``x -> f(x) + W2 diag(bits) (W1 f(x) + b1) + b2`` in Fractions (the oracle: no integers, no residues)."""
    d, k = len(f.M), len(f.M[0])
    hidden_M = [[sum(ffn.W1[u][i] * f.M[i][j] for i in range(d)) for j in range(k)] for u in range(len(bits))]
    hidden_c = [sum(ffn.W1[u][i] * f.c[i] for i in range(d)) + ffn.b1[u] for u in range(len(bits))]
    M = [[f.M[r][j] + sum(ffn.W2[r][u] * hidden_M[u][j] for u in range(len(bits)) if bits[u]) for j in range(k)]
         for r in range(d)]
    c = [f.c[r] + ffn.b2[r] + sum(ffn.W2[r][u] * hidden_c[u] for u in range(len(bits)) if bits[u]) for r in range(d)]
    return AffineMap(tuple(map(tuple, M)), tuple(c))


@settings(max_examples=40, deadline=None)
@given(data=st.data(), d=st.integers(1, 4), n=st.integers(1, 12))
def test_deferred_piece_maps_equal_and_hash_as_the_fraction_maps(data, d, n):
    ffn = FFN([[data.draw(_weight) for _ in range(d)] for _ in range(n)], [data.draw(_weight) for _ in range(n)],
              [[data.draw(_weight) for _ in range(n)] for _ in range(d)], [data.draw(_weight) for _ in range(d)])
    step = ReluStep(ffn, 0)
    parents = []
    for _ in range(data.draw(st.integers(1, 3))):
        m = data.draw(st.integers(1, 10 ** 30).filter(lambda v: all(v % p for p in _PRIMES)))
        Mi = [[data.draw(st.integers(-(10 ** 30), 10 ** 30)) for _ in range(2)] for _ in range(d)]
        parents.append(AffineMap.from_integers(Mi, [data.draw(st.integers(-(10 ** 30), 10 ** 30)) for _ in range(d)], m))
    bits = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    for _ in range(data.draw(st.integers(1, 8))):
        f = data.draw(st.sampled_from(parents))
        if data.draw(st.booleans()):                       # a near on-set: a few units flipped
            for u in data.draw(st.lists(st.integers(0, n - 1), max_size=3)):
                bits[u] = 1 - bits[u]
        else:                                              # any on-set
            bits = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
        got, want = step.output_map(tuple(bits), f, lazy=True), _piece_map(ffn, f, bits)
        assert hash(got) == hash(want)
        assert got == want


def test_on_sums_updated_from_a_near_on_set_equal_those_made_from_scratch():
    ffn = FFN([[3, -2 ** 61], [5, 7], [2 ** 45, 1], [-1, 0]], [1, F(-1, 2), 0, 9],
              [[1, 2, 3, 4], [-5, 2 ** 50, 0, 1]], [0, 1])
    fresh, step = ReluStep(ffn, 0), ReluStep(ffn, 0)
    for on in ([1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]):
        on = np.array(on, dtype=np.int8)
        fresh._sums = []
        for (G, g), (G0, g0), p in zip(step.on_sums(on), fresh.on_sums(on), _PRIMES):
            assert G.tolist() == G0.tolist() and g.tolist() == g0.tolist()
            W1, b1, W2 = (np.array(A, dtype=object) for A in (step._W1.tolist(), step._b1.tolist(), step._W2.tolist()))
            units = np.flatnonzero(on)
            assert G.astype(np.int64).tolist() == [[int(v) % p for v in row]
                                                   for row in (W2[:, units].dot(W1[units]) if len(units)
                                                               else np.zeros((2, 2), dtype=object))]
            assert g.astype(np.int64).tolist() == [int(v) % p for v in
                                                   (W2[:, units].dot(b1[units]) if len(units) else [0, 0])]
