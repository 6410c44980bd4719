"""The map hash from residues: equal maps hash equal however they are written and whichever path hashes them.

A count hashes the last ReLU step's maps from residues modulo three primes below 2^20
(``_PieceMaps.deferred``); every other map is hashed from its integers modulo the primes'
product (``AffineMap.__hash__``).  Equal maps must hash equal on both paths (else a linear
region is split), and a denominator that shares a prime with the hash must fall back to the
whole map.  Counts are checked against the reference brute force (tests/oracles).
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles.compare import reference_counts
from tropattn.attention import FFN, Head, Layer, Transformer
from tropattn.io import model_to_json
from tropattn.regions import AffineMap, count_regions, enumerate_regions
from tropattn.regions._affine import _PRIMES, residue_hash, residues_hash

_num = st.builds(F, st.integers(-10 ** 30, 10 ** 30), st.integers(1, 10 ** 12))


@settings(max_examples=80, deadline=None)
@given(M=st.lists(st.lists(_num, min_size=2, max_size=2), min_size=1, max_size=20),
       scale=st.integers(1, 10 ** 40))
def test_equal_maps_hash_equal_on_every_path(M, scale):
    c = [row[0] - row[1] for row in M]
    plain = AffineMap(tuple(map(tuple, M)), tuple(c))
    Mi, ci, m = plain._integers
    if any(m * scale % p == 0 for p in _PRIMES):
        return
    written = AffineMap.from_integers(np.array([[v * scale for v in r] for r in Mi], dtype=object),
                                      np.array([v * scale for v in ci], dtype=object), m * scale)
    values = list(ci[:16]) + list(Mi[0])
    per_prime = [[v * pow(m, -1, p) % p for v in values] for p in _PRIMES]     # what a ReLU step computes
    assert written == plain
    assert hash(written) == hash(plain) == residues_hash(per_prime) == residue_hash(ci[:16], Mi[0], m)


def test_a_denominator_sharing_a_prime_of_the_hash_makes_the_whole_map():
    p = _PRIMES[0]
    head = Head([[0, 0], [1, 0], [0, 1]], [0, 0, F(-1, 2)], [[1, 0], [1, 0], [0, 1]])
    ffn = FFN([[F(1, p), 1], [1, -1], [0, 1]], [0, F(1, 3), -1], [[1, 0, 0], [0, 0, 1]], [0, 0])   # t1 = 3p
    model = Transformer([Layer([head], ffn=ffn)])
    want = reference_counts(model_to_json(model))
    counted = count_regions(model, keep="counts", progress=False)
    assert (counted.n_activation, counted.n_linear) == want
    kept = enumerate_regions(model, progress=False)
    assert (kept.n_activation, kept.n_linear) == want
    assert counted.n_linear < counted.n_activation                  # the dead unit joins equal maps
