"""Products modulo small primes in float64 (exact.residue_matmul) and row subsets of limbs, against Python ints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.errors import InvalidInputError
from tropattn.exact import int_bits, int_limbs, int_matmul, residue_matmul, residues

PRIMES = [2, 3, 1048573, 1048559, 999983]
big = st.integers(-(2 ** 300), 2 ** 300)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), p=st.sampled_from(PRIMES))
def test_residue_products_are_the_integer_products_mod_p(data, p):
    r, n, c = data.draw(st.integers(1, 4)), data.draw(st.integers(1, 6)), data.draw(st.integers(1, 3))
    A = [[data.draw(big) for _ in range(n)] for _ in range(r)]
    B = [[data.draw(big) for _ in range(c)] for _ in range(n)]
    want = [[sum(A[i][k] * B[k][j] for k in range(n)) % p for j in range(c)] for i in range(r)]
    got = residue_matmul(residues(np.array(A, dtype=object), p), residues(np.array(B, dtype=object), p), p)
    assert got.tolist() == want


def test_long_inner_products_are_reduced_in_blocks():
    # 60,000 products of residues below p: one float64 sum would pass 2^53 and round
    p = 1048573
    rng = np.random.default_rng(5)
    a, b = rng.integers(p // 2, p, 60_000), rng.integers(p // 2, p, 60_000)
    want = sum(int(x) * int(y) for x, y in zip(a, b))
    got = residue_matmul(a.astype(float).reshape(1, -1), b.astype(float).reshape(-1, 1), p)
    assert got.tolist() == [[want % p]]
    assert int(a.astype(float) @ b.astype(float)) != want             # what the blocks avoid


def test_int64_input_and_bad_moduli():
    assert residues(np.array([[-1, 7]], dtype=np.int64), 5).tolist() == [[4.0, 2.0]]
    for p in (1, 2 ** 20, 2 ** 61 - 1):
        with pytest.raises(InvalidInputError, match="residues"):
            residues([[1]], p)


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_row_subsets_of_limbs_multiply_as_the_rows(data):
    A = [[data.draw(st.integers(-(2 ** 90), 2 ** 90)) for _ in range(3)] for _ in range(5)]
    B = [[data.draw(st.integers(-(2 ** 70), 2 ** 70))] for _ in range(3)]
    rows = data.draw(st.lists(st.integers(0, 4), max_size=6))
    got = int_matmul(int_limbs(A).take_rows(rows), B)
    assert got.shape == (len(rows), 1)
    assert got.tolist() == [[sum(a * b[0] for a, b in zip(A[i], B))] for i in rows]


def test_limbs_of_lists_whose_entries_numpy_would_read_as_floats_or_uint64():
    """``np.asarray([[2**63 + 5, 3]])`` is float64 and ``[[2**63 + 5]]`` uint64: the limbs read Python ints."""
    B = [[7], [2 ** 70]]
    for A in ([[2 ** 63 + 5, 3]], [[2 ** 63 + 5, 0], [1, 1]], [[-(2 ** 63) - 1, 2 ** 64 + 1]]):
        want = [[row[0] * 7 + row[1] * 2 ** 70] for row in A]
        assert int_matmul(int_limbs(A), np.array(B, dtype=object)).tolist() == want
        assert int_bits(A) == max(abs(v) for row in A for v in row).bit_length()
