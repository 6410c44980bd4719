"""Integer matrices for the hot products of the region search: no Fraction objects.

A float weight is a dyadic rational, so a whole weight matrix is an integer matrix over one
common denominator (:func:`integer_matrix`, a power of two for float inputs).  Products of such
matrices (:func:`int_matmul`) are exact: in int64 when a bound on the entries proves that no sum
can overflow (``max|A| * max|B| * inner < 2^62``), else in Python integers (numpy object arrays,
the multiplications in C loops); the object path is counted as ``fallbacks`` at
``"int_matmul.object"``.

>>> N, t = integer_matrix([[0.5, 0.25], [1, -0.75]])
>>> N.tolist(), t
([[2, 1], [4, -3]], 4)
>>> int_matmul(N, [[1], [2]]).tolist()
[[4], [-2]]
"""

from __future__ import annotations

import numpy as np

from ._counters import record
from ._numbers import common_denominator, to_rational

__all__ = ["integer_matrix", "int_matmul", "int_bits"]

_INT64_BITS = 62


def integer_matrix(rows):
    """``(N, t)``: an object array of Python ints and the least ``t > 0`` with ``rows = N / t``.

    Parameters
    ----------
    rows : 2-D sequence of exact numbers or floats (converted exactly)

    Returns
    -------
    N : numpy.ndarray of object (Python int)
    t : int

    Examples
    --------
    >>> integer_matrix([["1/3", 1]])[0].tolist(), integer_matrix([["1/3", 1]])[1]
    ([[1, 3]], 3)
    """
    Q = [[to_rational(v) for v in r] for r in rows]
    t = common_denominator(v for r in Q for v in r)
    N = np.empty((len(Q), len(Q[0]) if Q else 0), dtype=object)
    for i, r in enumerate(Q):
        for j, v in enumerate(r):
            N[i, j] = v.numerator * (t // v.denominator)
    return N, t


def int_bits(A) -> int:
    """The bit length of the largest ``|entry|`` of an integer array (0 when empty).

    >>> int_bits([[3, -8]])
    4
    """
    A = np.asarray(A, dtype=object)
    return 0 if A.size == 0 else max(abs(int(A.max())), abs(int(A.min()))).bit_length()


def int_matmul(A, B, a_bits=None):
    """The exact product ``A @ B`` of integer matrices, as an object array of Python ints.

    Parameters
    ----------
    A, B : 2-D arrays or sequences of Python ints (object or int64 arrays)
    a_bits : int, optional
        :func:`int_bits` of ``A`` when the caller keeps it (a fixed weight matrix).

    Returns
    -------
    numpy.ndarray of object
        ``A @ B``; computed in int64 only when ``bits(A) + bits(B) + bits(inner) <= 62``.

    Examples
    --------
    >>> int_matmul([[2 ** 40, 1]], [[2 ** 40], [3]]).tolist()        # 2^80 + 3: beyond int64
    [[1208925819614629174706179]]
    """
    A = np.asarray(A, dtype=object)
    B = np.asarray(B, dtype=object)
    if A.ndim != 2 or B.ndim != 2:
        A, B = np.atleast_2d(A), np.atleast_2d(B)
    inner = A.shape[1]
    if inner == 0:
        return np.zeros((A.shape[0], B.shape[1]), dtype=object)
    a_bits = int_bits(A) if a_bits is None else a_bits
    if a_bits + int_bits(B) + inner.bit_length() <= _INT64_BITS:
        return (A.astype(np.int64) @ B.astype(np.int64)).astype(object)
    record("fallbacks", where="int_matmul.object")
    return A.dot(B)
