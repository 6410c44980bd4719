"""Exact products of float arrays: a float is a dyadic rational, an array of them is integers over one power of two.

A finite float64 is ``m 2^e`` with an integer ``m`` (53 bits); an array of them is an
integer array ``M`` (Python ints in an object array: no overflow) times ``2^E`` for the
smallest exponent ``E``.  Sums and products of such arrays stay in that form, so the
affine maps of a checkpoint's skeleton (keys ``W_Q^T (W_K y + b_K)``, values
``W_O (W_V y + b_V)``) are computed by numpy integer matrix products, exactly, and become
:class:`~fractions.Fraction` objects only at the end (one per output entry).

>>> a = Dyadic.of([[0.5, 0.25]]); b = Dyadic.of([[2.0], [0.1]])
>>> (a @ b).fractions()[0][0] == Fraction(1) + Fraction(0.1) / 4          # exact, 0.1 as the float it is
True
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InvalidInputError
from ..exact import int_bits, int_limbs, int_matmul

#: Bits an int64 entry may use (shifts and sums stay below 2^63).
_INT64_BITS = 62

__all__ = ["Dyadic", "float_fractions", "integer_rows"]


@dataclass(frozen=True)
class Dyadic:
    """The exact array ``ints * 2^exp`` (``ints``: int64 where every entry fits, else an
    object array of Python ints)."""

    ints: np.ndarray
    exp: int

    @classmethod
    def of(cls, values, name="weights") -> "Dyadic":
        """The floats ``values`` exactly (NaN or inf: an InvalidInputError naming ``name``).

        >>> d = Dyadic.of([3.0, 0.375]); d.ints.tolist(), d.exp
        ([24, 3], -3)
        """
        A = np.asarray(values, dtype=np.float64)
        if not np.isfinite(A).all():
            raise InvalidInputError(f"{name} has a NaN or infinite entry; every weight must be a finite number")
        if not A.flags.c_contiguous:  # a transposed checkpoint tensor: the integers row by row, as their users read them
            A = A.copy(order="C")
        mant, ex = np.frexp(A)
        M = (mant * 2.0 ** 53).astype(np.int64)            # exact: |mant| < 1 has 53 significant bits
        ex = ex.astype(np.int64) - 53
        nonzero = M != 0
        low = np.where(nonzero, M & -M, 1)                  # the lowest set bit: strip the trailing zeros
        tz = np.log2(low.astype(np.float64)).astype(np.int64)
        M, ex = M >> tz, ex + tz
        if not nonzero.any():
            return cls(np.zeros(A.shape, dtype=np.int64), 0)
        E = int(ex[nonzero].min())
        shift = np.where(nonzero, ex - E, 0)
        bits = np.frexp(np.abs(M).astype(np.float64))[1]   # bit lengths (|M| < 2^53: exact)
        if int((bits + shift).max()) <= _INT64_BITS:        # float32 weights: int64 shifts
            return cls(M << shift, E)
        return cls(np.left_shift(M.astype(object), shift.astype(object)), E)

    def _aligned(self, other):
        E = min(self.exp, other.exp)
        return _shifted(self.ints, self.exp - E), _shifted(other.ints, other.exp - E), E

    def __add__(self, other: "Dyadic") -> "Dyadic":
        a, b, E = self._aligned(other)
        if a.dtype == np.int64 and b.dtype == np.int64 and max(int_bits(a), int_bits(b)) < _INT64_BITS:
            return Dyadic(a + b, E)
        return Dyadic(a.astype(object) + b.astype(object), E)

    def __matmul__(self, other: "Dyadic") -> "Dyadic":
        """The exact product, on float64 limbs (:func:`tropattn.exact.int_matmul`):
        no Python-int arithmetic per multiply-add."""
        a, b = self.ints, other.ints
        out = int_matmul(int_limbs(a.reshape(1, -1) if a.ndim == 1 else a),
                         b.reshape(-1, 1) if b.ndim == 1 else b)
        shape = a.shape[:-1] + b.shape[1:]
        return Dyadic(out.reshape(shape), self.exp + other.exp)

    @property
    def T(self) -> "Dyadic":
        return Dyadic(self.ints.T, self.exp)

    def __getitem__(self, key) -> "Dyadic":
        return Dyadic(self.ints[key], self.exp)

    def fractions(self):
        """The entries as (nested tuples of) Fractions.

        >>> Dyadic.of([[1.5, -2.0]]).fractions()
        ((Fraction(3, 2), Fraction(-2, 1)),)
        """
        if self.exp >= 0:
            scale = 1 << self.exp
            return _nest(self.ints, lambda n: Fraction(n * scale))
        den = 1 << -self.exp
        return _nest(self.ints, lambda n: Fraction(n, den))


def _shifted(ints: np.ndarray, k: int) -> np.ndarray:
    """``ints * 2^k`` (int64 kept where it cannot overflow)."""
    if k == 0:
        return ints
    if ints.dtype == np.int64 and int_bits(ints) + k <= _INT64_BITS:
        return ints << k
    return ints.astype(object) * (1 << k)


def _nest(a, f):
    if a.ndim == 1:
        return tuple(f(int(v)) for v in a)
    return tuple(_nest(row, f) for row in a)


def float_fractions(values, name="weights"):
    """A float array as nested tuples of the Fractions its entries are (one ``as_integer_ratio`` each).

    >>> float_fractions([[0.5, 2.0]])
    ((Fraction(1, 2), Fraction(2, 1)),)
    """
    A = np.asarray(values, dtype=np.float64)
    if not np.isfinite(A).all():
        raise InvalidInputError(f"{name} has a NaN or infinite entry; every weight must be a finite number")
    if A.ndim == 1:
        return tuple(Fraction(*x.as_integer_ratio()) for x in A.tolist())
    return tuple(tuple(Fraction(*x.as_integer_ratio()) for x in row) for row in A.tolist())


def integer_rows(W, b, name="weights"):
    """``(N, t)``: the float matrix ``[W | b]`` exactly as integers ``N`` over the least power of two ``t``.

    What :meth:`tropattn.attention.FFN.from_integers` takes (no Fraction per weight).

    >>> N, t = integer_rows([[0.5, 3.0]], [0.25]); N.tolist(), t
    ([[2, 12, 1]], 4)
    """
    W = np.asarray(W, dtype=np.float64)
    D = Dyadic.of(np.concatenate([W, np.asarray(b, dtype=np.float64).reshape(-1, 1)], axis=1), name)
    if D.exp >= 0:
        return _shifted(D.ints, D.exp), 1
    return D.ints, 1 << -D.exp
