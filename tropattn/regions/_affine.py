"""Exact affine maps ``x -> M x + c``: what a model computes on one activation region.

>>> f = AffineMap(((Fraction(2),),), (Fraction(1),))              # x -> 2x + 1
>>> f.pull_back((Fraction(1),), Fraction(5))                      # 2x + 1 <= 5
((Fraction(2, 1),), Fraction(4, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from fractions import Fraction

import numpy as np

from ..exact import homogeneous_point


__all__ = ["AffineMap"]

#: The primes of the hash (residues of the rational entries modulo each; below 2^20, so that a
#: ReLU step computes its pieces' residues by exact float64 products, ``exact.residue_matmul``),
#: their product ``_Q`` (the hash reads residues modulo ``_Q``: one modular product per entry), the
#: Chinese remainder basis (``_CRT[i]`` is 1 modulo the i-th prime and 0 modulo the others), and
#: how many offsets the hash reads.
_PRIMES = (1048573, 1048571, 1048559)
_Q = math.prod(_PRIMES)
_CRT = tuple((_Q // p) * pow(_Q // p, -1, p) for p in _PRIMES)
_HASHED = 16
_CRT_ARRAY = np.array(_CRT, dtype=object)


def augmented(integers) -> np.ndarray:
    """``[Mi | ci]`` of a map's integers ``(Mi, ci, m)`` as one object array (the factor of the
    exact products that pull rows back through the map, or push weights forward).

    >>> augmented((((1, 2), (3, 4)), (5, 6), 7)).tolist()
    [[1, 2, 5], [3, 4, 6]]
    """
    Mi, ci, _ = integers
    d = len(Mi[0])
    MC = np.empty((len(Mi), d + 1), dtype=object)
    MC[:, :d], MC[:, d] = Mi, ci
    return MC


def hashable(m) -> bool:
    """Can a map over the denominator ``m`` be hashed by its residues (``m`` prime to every prime of the hash)?

    >>> hashable(2 ** 40 * 3), hashable(1048573 * 2)
    (True, False)
    """
    return math.gcd(m, _Q) == 1


def residue_hash(offsets, row, m) -> int:
    """The hash of a map from a few of its numerators over ``m`` (:func:`hashable`).

    The residues modulo ``_Q`` (the product of the primes ``_PRIMES``) of the rationals
    ``offsets / m`` (the first ``_HASHED`` offsets) and ``row / m`` (the first row of ``M``):
    the same for every way of writing the same map, so equal maps hash equal, and a
    different hash proves two maps differ.  :func:`residues_hash` gives the same hash from
    the residues modulo each prime, computed elsewhere.

    >>> residue_hash([1], [2], 4) == residue_hash([2], [4], 8)        # 1/4, 1/2 either way
    True
    """
    inv = pow(m, -1, _Q)
    return hash(tuple(v * inv % _Q for v in list(offsets) + list(row)))


def residues_hash(R) -> int:
    """:func:`residue_hash` from the residues modulo each prime (one row per prime of ``_PRIMES``).

    The Chinese remainder theorem joins them into the residues modulo ``_Q``.

    >>> R = [[pow(4, -1, p)] for p in _PRIMES]                     # 1/4 modulo each prime
    >>> residues_hash(R) == residue_hash([1], [], 4)
    True
    """
    A = np.array(R).astype(np.int64).astype(object)          # residues below 2^20: Python ints for the sums
    return hash(tuple((_CRT_ARRAY.dot(A) % _Q).tolist()))


@dataclass(frozen=True)
class AffineMap:
    """The exact map ``x -> M x + c`` (M as a tuple of rows).

    >>> f = AffineMap.identity(2)
    >>> f.apply((Fraction(1), Fraction(2)))
    (Fraction(1, 1), Fraction(2, 1))
    """

    M: tuple
    c: tuple

    # Equal maps have equal canonical integer forms (numerators with no common factor with the
    # positive denominator): comparing and hashing those needs no Fraction objects, so a map made
    # by from_integers builds its Fraction views M and c only when they are read (__getattr__).
    # A map made from integer arrays keeps them unreduced (_raw) until its canonical form is read:
    # two maps over the same denominator are equal iff their numerator arrays are (no gcd), and
    # the hash is the residues of a few of its rational entries modulo a prime (equal for equal
    # maps however they are written; a mere filter: equal hashes are then compared exactly).
    def __eq__(self, other):
        if not isinstance(other, AffineMap):
            return NotImplemented
        if self is other:
            return True
        if "_make" in self.__dict__ or "_make" in other.__dict__:     # deferred: by the hash first
            if hash(self) != hash(other):   # the hash is a function of the map: different, so unequal
                return False
            self._force()
            other._force()
        a, b = self.__dict__.get("_raw"), other.__dict__.get("_raw")
        if a is not None and b is not None and a[2] == b[2] and a[0].shape == b[0].shape:
            return bool((a[1] == b[1]).all() and (a[0] == b[0]).all())
        return self._integers == other._integers

    def __hash__(self):
        state = self.__dict__
        h = state.get("_hash")
        if h is None:
            raw = state.get("_raw")
            if raw is not None and hashable(raw[2]):
                Mi, ci, m = raw
                offsets, row = ci[:_HASHED].tolist(), (Mi[0].tolist() if len(Mi) else [])
            else:
                Mi, ci, m = self._integers
                offsets, row = ci[:_HASHED], (Mi[0] if Mi else ())
            # every representation's denominator is a multiple of the reduced one: when that shares
            # a prime with the hash, all do, and the hash is that of the canonical integers
            h = residue_hash(offsets, row, m) if hashable(m) else hash(self._integers)
            state["_hash"] = h
        return h

    def __getattr__(self, name):
        state = self.__dict__
        if name not in ("M", "c") or not ({"_integers", "_raw", "_make"} & state.keys()):
            raise AttributeError(name)
        Mi, ci, m = self._integers
        state["M"] = tuple(tuple(Fraction(v, m) for v in row) for row in Mi)
        state["c"] = tuple(Fraction(v, m) for v in ci)
        return state[name]

    @staticmethod
    def identity(d: int) -> "AffineMap":
        """The identity ``x -> I x + 0`` on ``Q^d``: the map of a region before any layer.

        Parameters
        ----------
        d : int
            Dimension.

        Returns
        -------
        AffineMap
            ``M = I_d`` and ``c = 0``, as Fractions.

        Examples
        --------
        >>> AffineMap.identity(2).M
        ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)))
        """
        one, zero = Fraction(1), Fraction(0)
        return AffineMap(tuple(tuple(one if i == j else zero for j in range(d)) for i in range(d)),
                         (zero,) * d)

    def apply(self, x) -> tuple:
        """The image ``M x + c``, exactly.

        Parameters
        ----------
        x : sequence of Fraction or int, length d
            The point (not converted or checked: pass exact numbers of the right length;
            ``zip`` silently drops extra coordinates).

        Returns
        -------
        tuple
            ``M x + c``, one entry per row of ``M``.

        Examples
        --------
        >>> f = AffineMap(((Fraction(1), Fraction(1)),), (Fraction(-1, 2),))   # x + y - 1/2
        >>> f.apply((Fraction(1), Fraction(1, 4)))
        (Fraction(3, 4),)
        """
        return tuple(sum((m * xi for m, xi in zip(row, x)), ci) for row, ci in zip(self.M, self.c))

    @staticmethod
    def from_integers(Mi, ci, m) -> "AffineMap":
        """The map ``x -> (Mi x + ci) / m`` from integers (``m > 0``), its integer form kept.

        Parameters
        ----------
        Mi : sequence of sequences of int
            Numerator matrix (rows).
        ci : sequence of int
            Numerator offset.
        m : int
            Positive common denominator.

        Returns
        -------
        AffineMap
            With Fraction ``M`` and ``c`` (built when first read; equal maps compare equal
            however they were made) and :attr:`_integers` reduced by the gcd of all entries
            and ``m``.

        Examples
        --------
        >>> f = AffineMap.from_integers([[2, 4]], [6], 4)               # (2x + 4y + 6) / 4
        >>> f == AffineMap(((Fraction(1, 2), Fraction(1)),), (Fraction(3, 2),)), f._integers
        (True, (((1, 2),), (3,), 2))
        """
        f = object.__new__(AffineMap)          # M and c (Fractions) are built when first read
        if isinstance(Mi, np.ndarray) and Mi.dtype == object and isinstance(ci, np.ndarray):   # Python ints
            f.__dict__["_raw"] = (Mi, ci, m)   # reduced when _integers is first read
            return f
        Mi = [[int(v) for v in row] for row in Mi]
        ci = [int(v) for v in ci]
        g = math.gcd(m, *ci, *(v for row in Mi for v in row))
        if g > 1:
            Mi, ci, m = [[v // g for v in row] for row in Mi], [v // g for v in ci], m // g
        f.__dict__["_integers"] = (tuple(map(tuple, Mi)), tuple(ci), m)   # the cached_property, filled in
        return f

    @staticmethod
    def shifted(f: "AffineMap", shift, t: int = 1) -> "AffineMap":
        """``f + shift / (m t)``: ``(t Mi x + t ci + m shift) / (m t)``, reduced, from ``f``'s integers ``(Mi, ci, m)``.

        A residual sub-layer adds the heads' values ``shift / t`` and keeps the linear part.
        With ``t = 1`` the result is reduced as it stands (``gcd(m, Mi, ci) = 1``, and adding
        multiples of ``m`` keeps it) and shares the rows of ``Mi`` with ``f``; else its common
        factor is the gcd of ``m t`` and the ``d`` new offsets, then of ``t`` times the content
        of ``Mi`` where that is above 1.  The content and the rows ``t Mi / g`` of each factor
        ``g`` are made once per map ``f`` (the parent of many pieces), and shared by its pieces.

        >>> f = AffineMap.from_integers([[1, 2]], [1], 2)              # (x + 2y + 1) / 2
        >>> g = AffineMap.shifted(f, [3])                               # + 3: (x + 2y + 7) / 2
        >>> g == AffineMap.from_integers([[1, 2]], [7], 2), g._integers[0] is f._integers[0]
        (True, True)
        >>> AffineMap.shifted(f, [1], 4)._integers                      # + 1/4: (4x + 8y + 4 + 2) / 8
        (((2, 4),), (3,), 4)
        """
        Mi, ci, m = f._integers
        if t == 1:                      # adding multiples of m keeps gcd(m, Mi, ci) = 1
            c = [x + v * m for x, v in zip(ci, shift)] if m != 1 else [x + v for x, v in zip(ci, shift)]
            return AffineMap._reduced(Mi, c, m)
        c = [t * x + m * v for x, v in zip(ci, shift)]
        g = math.gcd(m * t, *c)
        state = f.__dict__
        scaled = state.get("_scaled")         # t * content(Mi), and t Mi / g by g: made once per parent map
        if scaled is None or scaled[0] != t:
            scaled = state["_scaled"] = (t, t * math.gcd(*(v for row in Mi for v in row)), {})
        if g > 1:                       # the linear part t Mi must share it too
            g = math.gcd(g, scaled[1])
        rows = scaled[2].get(g)
        if rows is None:
            rows = scaled[2][g] = tuple([tuple([v * t // g for v in row]) for row in Mi])
        return AffineMap._reduced(rows, [v // g for v in c] if g > 1 else c, m * t // g)

    @staticmethod
    def _reduced(Mi, c, m) -> "AffineMap":
        """The map with integers ``(Mi, c, m)`` (``Mi`` a tuple of tuples), known to be reduced."""
        g = object.__new__(AffineMap)
        g.__dict__["_integers"] = (Mi, tuple(c), m)
        return g

    @staticmethod
    def deferred(make, hash_value: int) -> "AffineMap":
        """A map known by its hash now and by ``make()`` (an :class:`AffineMap`) when first needed.

        ``hash_value`` must be the hash of the map ``make()`` returns; the map is made when it
        is compared with one of equal hash, when ``M``, ``c`` or its integers are read, or
        when it is pickled.  A region count hashes its last sub-layer's maps and compares
        only those with equal hashes.

        >>> g = AffineMap.from_integers([[2]], [6], 4)                  # x/2 + 3/2
        >>> f = AffineMap.deferred(lambda: g, hash(g))
        >>> f == AffineMap(((Fraction(1, 2),),), (Fraction(3, 2),)), f.c
        (True, (Fraction(3, 2),))
        """
        f = object.__new__(AffineMap)
        f.__dict__.update(_make=make, _hash=hash_value)
        return f

    def _force(self):
        """Make a deferred map's integers now (nothing for any other map)."""
        state = self.__dict__
        make = state.pop("_make", None)
        if make is not None:
            g = make().__dict__
            for k in ("_raw", "_integers"):
                if k in g:
                    state[k] = g[k]

    def __getstate__(self):
        """The map's integers (and its hash, if known): the Fraction views are rebuilt when read.

        A deferred map travels as its hash and its recipe when the recipe says it can
        (``make.portable``: a ReLU step's piece map, named by the step's token and made where
        it is unpickled, only if compared with an equal hash); any other deferred map is made
        first.  What travels to and from worker processes is the integer form only, so a
        pickled map costs its numerators, not a Fraction per entry.
        """
        make = self.__dict__.get("_make")
        if make is not None and getattr(make, "portable", False):
            return {"_make": make, "_hash": self.__dict__["_hash"]}
        self._force()
        state = self.__dict__
        if "_integers" not in state and "_raw" not in state:
            return dict(state)                         # made from Fractions: M and c are the map
        return {k: v for k, v in state.items() if k not in ("M", "c", "_augmented", "_scaled")}

    def __setstate__(self, state):
        # defined, so that unpickling does not ask __getattr__ for it (an AttributeError per map)
        self.__dict__.update(state)

    @cached_property
    def _augmented(self) -> np.ndarray:
        """:func:`augmented` of the map's integers, made once (read-only): ``[Mi | ci]`` as one object array.

        >>> AffineMap.from_integers([[2, 4]], [6], 4)._augmented.tolist()
        [[1, 2, 3]]
        """
        return augmented(self._integers)

    @cached_property
    def _integers(self):
        """``(Mi, ci, m)`` with ``M = Mi / m`` and ``c = ci / m``, all integers (canonical: reduced)."""
        self._force()
        if "_integers" in self.__dict__:
            return self.__dict__["_integers"]
        raw = self.__dict__.pop("_raw", None)
        if raw is not None:
            Mi, ci, m = raw
            g = math.gcd(m, *ci.tolist(), *Mi.ravel().tolist())
            if g > 1:
                Mi, ci, m = Mi // g, ci // g, m // g
            return tuple(map(tuple, Mi.tolist())), tuple(ci.tolist()), m
        d = len(self.M[0]) if self.M else 0
        flat, m = homogeneous_point([v for row in self.M for v in row] + list(self.c))
        Mi = tuple(tuple(flat[i * d:(i + 1) * d]) for i in range(len(self.M)))
        return Mi, tuple(flat[len(self.M) * d:]), m

    def apply_homogeneous(self, X, D):
        """``f(X / D)`` as integers ``(Z, E)`` with ``f(X / D) = Z / E``.

        With ``M = Mi / m`` and ``c = ci / m`` (integers), ``f(X / D) = (Mi X + ci D) / (m D)``:
        no Fraction arithmetic; the region search hands ``(Z, E)`` to
        :meth:`tropattn.attention.Head.argmax_homogeneous`.

        Parameters
        ----------
        X : sequence of int, length d
            Numerators of the point.
        D : int
            Its common denominator, ``> 0``.

        Returns
        -------
        tuple
            ``(Z, E)``: a tuple of ints (one per row of ``M``) and the int ``E = m D > 0``
            (not reduced).

        Examples
        --------
        >>> f = AffineMap(((Fraction(1, 2),),), (Fraction(1, 3),))     # x/2 + 1/3, m = 6
        >>> f.apply_homogeneous((3,), 2)                              # f(3/2) = 13/12
        ((13,), 12)
        >>> f.apply((Fraction(3, 2),))
        (Fraction(13, 12),)
        """
        Mi, ci, m = self._integers
        return tuple(sum(a * x for a, x in zip(row, X)) + c * D for row, c in zip(Mi, ci)), m * D

    def pull_back(self, normal, offset):
        """The row ``normal . f(x) <= offset`` as ``(normal^T M) . x <= offset - normal . c``.

        A half-space of the output space pulled back to the input space: how a wall of a
        later layer becomes a wall of the input region.

        Parameters
        ----------
        normal : sequence of Fraction or int, length = rows of ``M``
            Normal of the half-space in the output space.
        offset : Fraction or int
            Its right-hand side.

        Returns
        -------
        tuple
            ``(a, o)``: the row ``a`` (a tuple of length d) and the number ``o`` with
            ``a . x <= o`` iff ``normal . f(x) <= offset``.

        Examples
        --------
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

        Parameters
        ----------
        normal : sequence of int, length = rows of ``M``
            Integer normal of the half-space in the output space.
        offset : int
            Its integer right-hand side.

        Returns
        -------
        tuple
            ``(a, o)``: an integer row (tuple of length d) and an int, the same half-space
            as :meth:`pull_back` gives, multiplied by ``m > 0`` (not reduced).

        Examples
        --------
        >>> AffineMap(((Fraction(1, 2),),), (Fraction(1, 3),)).pull_back_integer((1,), 2)   # x/2 + 1/3 <= 2
        ((3,), 10)
        """
        Mi, ci, m = self._integers
        a = tuple(sum(n * row[k] for n, row in zip(normal, Mi)) for k in range(len(Mi[0]) if Mi else 0))
        return a, offset * m - sum(n * c for n, c in zip(normal, ci))
