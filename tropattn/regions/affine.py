"""Exact affine maps ``x -> M x + c``: what a model computes on one activation region.

>>> f = AffineMap(((Fraction(2),),), (Fraction(1),))              # x -> 2x + 1
>>> f.pull_back((Fraction(1),), Fraction(5))                      # 2x + 1 <= 5
((Fraction(2, 1),), Fraction(4, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction

from ..exact import homogeneous_point


__all__ = ["AffineMap"]


@dataclass(frozen=True)
class AffineMap:
    """The exact map ``x -> M x + c`` (M as a tuple of rows).

    >>> f = AffineMap.identity(2)
    >>> f.apply((Fraction(1), Fraction(2)))
    (Fraction(1, 1), Fraction(2, 1))
    """

    M: tuple
    c: tuple

    @staticmethod
    def identity(d: int) -> "AffineMap":
        one, zero = Fraction(1), Fraction(0)
        return AffineMap(tuple(tuple(one if i == j else zero for j in range(d)) for i in range(d)),
                         (zero,) * d)

    def apply(self, x) -> tuple:
        return tuple(sum((m * xi for m, xi in zip(row, x)), ci) for row, ci in zip(self.M, self.c))

    @cached_property
    def _integers(self):
        """``(Mi, ci, m)`` with ``M = Mi / m`` and ``c = ci / m``, all integers."""
        d = len(self.M[0]) if self.M else 0
        flat, m = homogeneous_point([v for row in self.M for v in row] + list(self.c))
        Mi = tuple(tuple(flat[i * d:(i + 1) * d]) for i in range(len(self.M)))
        return Mi, tuple(flat[len(self.M) * d:]), m

    def apply_homogeneous(self, X, D):
        """``f(X / D)`` as integers ``(Z, E)`` with ``f(X / D) = Z / E``."""
        Mi, ci, m = self._integers
        return tuple(sum(a * x for a, x in zip(row, X)) + c * D for row, c in zip(Mi, ci)), m * D

    def pull_back(self, normal, offset):
        """The row ``normal . f(x) <= offset`` as ``(normal^T M) . x <= offset - normal . c``.

        >>> f = AffineMap(((Fraction(2),),), (Fraction(1),))              # x -> 2x + 1
        >>> f.pull_back((Fraction(1),), Fraction(5))                      # 2x + 1 <= 5
        ((Fraction(2, 1),), Fraction(4, 1))
        """
        d = len(self.M[0]) if self.M else 0
        a = tuple(sum(normal[i] * self.M[i][k] for i in range(len(normal))) for k in range(d))
        return a, offset - sum(n * ci for n, ci in zip(normal, self.c))

    def pull_back_integer(self, normal, offset):
        """:meth:`pull_back` for an integer row: an integer row on the same half-space.

        With ``M = Mi / m`` and ``c = ci / m``, ``n . f(x) <= o`` is ``(n Mi) . x <= o m - n . ci``.

        >>> AffineMap(((Fraction(1, 2),),), (Fraction(1, 3),)).pull_back_integer((1,), 2)   # x/2 + 1/3 <= 2
        ((3,), 10)
        """
        Mi, ci, m = self._integers
        a = tuple(sum(n * row[k] for n, row in zip(normal, Mi)) for k in range(len(Mi[0]) if Mi else 0))
        return a, offset * m - sum(n * c for n, c in zip(normal, ci))
