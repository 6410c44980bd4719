"""Integer matrices for the hot products of the region search: no Fraction objects.

A float weight is a dyadic rational, so a whole weight matrix is an integer matrix over one
common denominator (:func:`integer_matrix`, a power of two for float inputs).  Products of such
matrices (:func:`int_matmul`) are exact: in int64 when a bound on the entries proves that no sum
can overflow (``max|A| * max|B| * inner < 2^62``), else in Python integers (numpy object arrays,
the multiplications in C loops); the object path is counted as ``fallbacks`` at
``"int_matmul.object"``.  A fixed wide matrix can be split once into float64 *limbs*
(:func:`int_limbs`: ``A = sum_k A_k 2^(c k)`` with ``|A_k| < 2^c``); its products are then
BLAS float products of limbs whose every partial sum is an integer below ``2^53`` (so exact
in any summation order), recombined in Python integers only at the output's size.

>>> N, t = integer_matrix([[0.5, 0.25], [1, -0.75]])
>>> N.tolist(), t
([[2, 1], [4, -3]], 4)
>>> int_matmul(N, [[1], [2]]).tolist()
[[4], [-2]]
"""

from __future__ import annotations

from itertools import repeat

import numpy as np

from ..errors import InvalidInputError
from ._counters import record
from ._numbers import common_denominator, to_rational

__all__ = ["integer_matrix", "int_matmul", "int_bits", "int_limbs", "IntLimbs", "residues", "residue_matmul"]

_INT64_BITS = 62
_FLOAT_BITS = 53   # integers of magnitude <= 2^53 are exact in float64, and so is every sum that stays there
_RESIDUE_BITS = 20  # residues below 2^20: a float64 sum of 2^13 products of two is exact (below 2^53)
_LIMB_BITS = 16    # bits per limb of a split matrix (the other factor gets 53 - 16 - bits(inner), in whole bytes)


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
    if not (isinstance(A, np.ndarray) and A.dtype.kind in "iu"):
        A = np.asarray(A, dtype=object)
    return 0 if A.size == 0 else max(abs(int(A.max())), abs(int(A.min()))).bit_length()


class IntLimbs:
    """An integer matrix held as float64 limbs: ``A = sum_k parts[k] * 2^(bits k)``, ``|parts[k]| < 2^bits``.

    Made by :func:`int_limbs`; :func:`int_matmul` accepts it as its left factor.  ``parts`` is
    one stacked array of shape ``(n_limbs * rows, cols)`` (limb ``k`` in rows ``k*rows ...``).
    """

    def __init__(self, parts, bits, rows, nbits):
        self.parts, self.bits, self.rows, self.nbits = parts, bits, rows, nbits

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_joined", None)       # the joined matrix (when an int64 product used it) is made again
        return state

    @property
    def shape(self):
        return (self.rows, self.parts.shape[1])

    def columns(self, cols) -> "IntLimbs":
        """The limbs of ``A[:, cols]``."""
        return IntLimbs(self.parts[:, cols], self.bits, self.rows, self.nbits)

    def take_rows(self, rows) -> "IntLimbs":
        """The limbs of ``A[rows]`` (a copy of those rows of every limb).

        >>> L = int_limbs([[2 ** 40 + 1], [7], [-2 ** 33]])
        >>> int_matmul(L.take_rows([2, 0]), [[3]]).tolist() == [[-3 * 2 ** 33], [3 * 2 ** 40 + 3]]
        True
        """
        rows = np.asarray(rows, dtype=np.intp)
        limbs = self.parts.shape[0] // self.rows if self.rows else 1
        cols = self.parts.shape[1]
        parts = self.parts.reshape(limbs, self.rows, cols)[:, rows].reshape(limbs * len(rows), cols)
        return IntLimbs(parts, self.bits, len(rows), self.nbits)


def _split(A, bits):
    """``(parts, w)``: the signed limbs of an integer array, ``w = 8 floor(bits / 8)`` bits each (float64).

    Entries below 2^62 are split by int64 shifts; larger ones are written once as
    little-endian bytes (``int.to_bytes``) and read back by numpy: one Python call per
    entry, whatever its size.
    """
    A = np.asarray(A)
    w = 8 * (bits // 8)
    flat = A.ravel()
    try:
        a64 = flat.astype(np.int64)
    except OverflowError:
        a64 = None
    if a64 is not None and flat.size and int(np.abs(a64).max()) < 1 << 62:
        m64, sign = np.abs(a64), np.where(a64 < 0, -1.0, 1.0)
        n = max(1, -(-int(m64.max()).bit_length() // w))            # limbs per entry
        return [(((m64 >> (w * j)) & ((1 << w) - 1)) * sign).reshape(A.shape) for j in range(n)], w
    flat = flat.astype(object)
    mag, k = np.abs(flat), w // 8
    sign = np.where(flat < 0, -1.0, 1.0)
    top = int(mag.max()) if flat.size else 0
    n = max(1, -(-top.bit_length() // w))
    buf = b"".join(map(int.to_bytes, map(int, mag.tolist()), repeat(n * k), repeat("little")))
    U = np.frombuffer(buf, dtype=np.uint8).reshape(flat.size, n, k).astype(np.int64)
    limbs = U[..., 0]
    for i in range(1, k):
        limbs = limbs | (U[..., i] << (8 * i))
    return [(limbs[:, j] * sign).reshape(A.shape) for j in range(n)], w


def int_limbs(A, bits=_LIMB_BITS) -> IntLimbs:
    """Split an integer matrix once into float64 limbs for fast exact products (:func:`int_matmul`).

    Parameters
    ----------
    A : 2-D array or sequence of Python ints
    bits : int, optional
        Bits per limb, at most 26 (whole bytes are used: 8 floor(bits / 8)).

    Returns
    -------
    IntLimbs

    Examples
    --------
    >>> L = int_limbs([[2 ** 70 + 5, -3]])
    >>> int_matmul(L, [[2 ** 40], [7]]).tolist() == [[(2 ** 70 + 5) * 2 ** 40 - 21]]
    True
    """
    if not (isinstance(A, np.ndarray) and A.dtype == np.int64):   # int64 stays (_split's fast path)
        A = np.asarray(A, dtype=object)                           # never through numpy's guess of a dtype
    A = np.atleast_2d(A)
    parts, bits = _split(A, bits) if A.size else ([np.zeros(A.shape)], 8 * (bits // 8))
    return IntLimbs(np.concatenate(parts, axis=0), bits, A.shape[0], int_bits(A))


def _limb_product(L: IntLimbs, B):
    """``A @ B`` exactly from the limbs of ``A``, or None when the inner size leaves no room for B's limbs."""
    inner = L.parts.shape[1]
    b_limb = _FLOAT_BITS - L.bits - inner.bit_length()
    if b_limb < 8:
        return None
    Bp, b_limb = _split(B, b_limb)
    nb, cols, rows = len(Bp), B.shape[1], L.rows
    P = L.parts @ np.concatenate(Bp, axis=1)          # every entry an exact integer below 2^53
    P = P.astype(np.int64)
    blocks = {}                                       # shift / 8 -> the blocks of that weight
    for k in range(P.shape[0] // rows):
        for j in range(nb):
            blocks.setdefault((L.bits * k + b_limb * j) // 8, []).append(
                P[k * rows:(k + 1) * rows, j * cols:(j + 1) * cols].ravel())
    return _recombine(blocks, rows * cols).reshape(rows, cols)


#: Blocks of one weight summed in one int64 digit: 2^53 * 2^8 stays below 2^62, carries included.
_TURN = 256


def _recombine(blocks, n):
    """``sum_p 2^(8 p) sum(blocks[p])`` for ``n`` entries at once, as Python ints (object array).

    Every block entry is an integer below 2^53 in absolute value.  The sums are carried in
    int64 digits of base 2^8 (below 2^62 before a carry: at most ``_TURN`` blocks of one
    weight are summed at once), then each entry is read from its bytes by one ``int.from_bytes``.

    >>> _recombine({0: [np.array([-1, 300])], 1: [np.array([1, 1])]}, 2).tolist()   # -1 + 256, 300 + 256
    [255, 556]
    """
    if max(map(len, blocks.values())) > _TURN:        # more could overflow the int64 digits: in turns
        rest = {p: v[_TURN:] for p, v in blocks.items() if len(v) > _TURN}
        return _recombine({p: v[:_TURN] for p, v in blocks.items()}, n) + _recombine(rest, n)
    top = max(blocks) + 9                             # room for 53-bit digits and the carries
    digits = np.zeros((top + 1, n), dtype=np.int64)
    for p, parts in blocks.items():
        for b in parts:
            digits[p] += b
    for p in range(top):
        carry = digits[p] >> 8                        # floor: digits[p] becomes 0..255
        digits[p] -= carry << 8
        digits[p + 1] += carry
    low = np.ascontiguousarray(digits[:top].T.astype(np.uint8)).tobytes()
    high = digits[top].tolist()
    out = np.empty(n, dtype=object)
    out[:] = [int.from_bytes(low[i * top:(i + 1) * top], "little") + (high[i] << (8 * top)) for i in range(n)]
    return out


def int_matmul(A, B, a_bits=None):
    """The exact product ``A @ B`` of integer matrices, as an object array of Python ints.

    Parameters
    ----------
    A, B : 2-D arrays or sequences of Python ints (object or int64 arrays); ``A`` may be
        :class:`IntLimbs` (a fixed matrix split once: the product is then exact float64
        BLAS on limbs, counted at ``"int_matmul.limbs"``, where int64 cannot prove it safe)
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
    if isinstance(A, IntLimbs):
        B = np.atleast_2d(np.asarray(B, dtype=object))
        if A.shape[1] == 0 or A.rows == 0:
            return np.zeros((A.rows, B.shape[1]), dtype=object)
        if B.size == 0:
            return np.zeros((A.rows, B.shape[1]), dtype=object)
        out = None
        if A.nbits + int_bits(B) + A.shape[1].bit_length() > _INT64_BITS:
            out = _limb_product(A, B)
            if out is not None:
                record("certified", where="int_matmul.limbs")
                return out
        A, a_bits = _join(A), A.nbits
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


def _join(L: IntLimbs):
    """The object integer matrix that ``L`` holds (made once per ``L``)."""
    out = L.__dict__.get("_joined")
    if out is not None:
        return out
    out = L._joined = np.zeros(L.shape, dtype=object)
    for k in range(L.parts.shape[0] // L.rows):
        out += L.parts[k * L.rows:(k + 1) * L.rows].astype(np.int64).astype(object) * (1 << (L.bits * k))
    return out


def residues(A, p: int) -> np.ndarray:
    """The residues ``A mod p`` (in ``[0, p)``) of an integer array, as float64 (``p < 2^20``).

    >>> residues([[2 ** 70 + 5, -3]], 7).tolist() == [[(2 ** 70 + 5) % 7, 4.0]]
    True
    """
    if not 1 < p < 1 << _RESIDUE_BITS:
        raise InvalidInputError(f"p = {p}; residues are taken modulo a number between 2 and 2^{_RESIDUE_BITS}")
    A = np.asarray(A)
    if A.dtype == object:
        return (A % p).astype(np.float64)
    return np.mod(A.astype(np.int64), p).astype(np.float64)


#: Inner products of this many residue products are summed in float64 before a reduction (exact: below 2^53).
_RESIDUE_BLOCK = 1 << (53 - 2 * _RESIDUE_BITS)


def residue_matmul(A, B, p: int) -> np.ndarray:
    """``(A @ B) mod p`` of residue matrices (float64 entries in ``[0, p)``, ``p < 2^20``), exactly.

    Every product of two residues is below ``2^40``, so a float64 sum of ``2^13`` of them is
    an exact integer below ``2^53``; longer inner products are summed in blocks, each reduced
    mod ``p``.  BLAS computes the blocks in any order: the result is the same integers.  This
    is how a ReLU step hashes its pieces' maps without their big numerators
    (:func:`tropattn.regions` ``_PieceMaps``).

    Parameters
    ----------
    A : numpy.ndarray of float64, shape (r, n)
    B : numpy.ndarray of float64, shape (n, c)
        Residues mod ``p`` (:func:`residues`).
    p : int
        The modulus, below ``2^20``.

    Returns
    -------
    numpy.ndarray of float64, shape (r, c)
        The residues of the product, in ``[0, p)``.

    Examples
    --------
    >>> A, B = [[3 ** 50, -1]], [[5], [2 ** 80]]
    >>> p = 1048573
    >>> r = residue_matmul(residues(A, p), residues(B, p), p)
    >>> int(r[0, 0]) == (3 ** 50 * 5 - 2 ** 80) % p
    True
    """
    n = A.shape[1]
    if n <= _RESIDUE_BLOCK:
        return np.mod(A @ B, p)
    out = np.zeros((A.shape[0], B.shape[1]))
    for lo in range(0, n, _RESIDUE_BLOCK):
        out = np.mod(out + np.mod(A[:, lo:lo + _RESIDUE_BLOCK] @ B[lo:lo + _RESIDUE_BLOCK], p), p)
    return out
