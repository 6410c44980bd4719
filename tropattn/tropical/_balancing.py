"""Weighted tropical hypersurfaces: edge weights from the dual subdivision, and balancing.

A wall of the tropical hypersurface of ``f`` separates the regions of two terms ``j, k``
and is dual to the edge ``[α_j, α_k]`` of the regular subdivision of ``Newt(f)``.  Its
**weight** is the lattice length of that edge: the number of lattice steps
``gcd(α_k - α_j)`` for integer exponents (a rational multiple of the primitive direction
in general).  For plane curves with integer exponents the weighted curve is
**balanced**: at every vertex, the weighted primitive edge directions pointing away from
it sum to zero (the dual edges close up around the dual polygon).

>>> from tropattn.tropical import parse_polynomial
>>> [(e.ends, e.weight) for e in curve_edges(parse_polynomial("max(0, 2*x)"))]   # the wall x = 0 has weight 2
[((0, 1), Fraction(2, 1))]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from ..errors import InternalError, InvalidInputError
from ..exact import homogeneous_point
from ._subdivision import HypersurfaceCell

if TYPE_CHECKING:
    from ._polynomial import TropicalPolynomial

__all__ = ["CurveEdge", "lattice_length", "curve_edges", "balancing_sums"]


def lattice_length(v) -> Fraction:
    """``L`` with ``v = L u`` for a primitive integer vector ``u`` (the lattice length of ``[0, v]``).

    Parameters
    ----------
    v : sequence of Fraction or int
        A nonzero rational vector.

    Returns
    -------
    Fraction
        ``gcd(numerators) / common denominator``: the number of lattice steps for an
        integer vector.

    Examples
    --------
    >>> lattice_length((4, 6)), lattice_length((Fraction(1, 2), 0))
    (Fraction(2, 1), Fraction(1, 2))
    """
    nums, den = homogeneous_point(tuple(Fraction(x) for x in v))
    return Fraction(math.gcd(*nums), den)


@dataclass(frozen=True)
class CurveEdge:
    """A wall of the tropical hypersurface with its weight.

    Attributes
    ----------
    ends : (int, int)
        The terms whose regions meet across the wall (``j < k``).
    weight : Fraction
        Lattice length of the dual edge ``[α_j, α_k]``.
    cell : HypersurfaceCell
        The exact cell (``cell.terms`` also lists redundant terms tying on it).
    """

    ends: tuple
    weight: Fraction
    cell: HypersurfaceCell


def curve_edges(f: TropicalPolynomial) -> tuple:
    """The walls (cells of dimension ``d - 1``) of ``f``'s hypersurface with their weights.

    The two terms whose linear regions meet across a wall are its ``ends``; the
    weight is the lattice length of the dual edge ``[α_j, α_k]``.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial (any dimension ``d >= 1``).

    Returns
    -------
    tuple of CurveEdge
        Sorted by ``ends``.

    Raises
    ------
    InternalError
        If a wall does not separate exactly two linear regions (cannot happen for a
        correct subdivision; please report the polynomial).

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> conic = parse_polynomial("max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)")
    >>> len(curve_edges(conic)), {e.weight for e in curve_edges(conic)}
    (9, {Fraction(1, 1)})
    """
    owners = {r.term for r in f.linear_regions()}
    out = []
    for cell in f.hypersurface_cells():
        if cell.dim != f.dim - 1:
            continue
        ends = tuple(sorted(t for t in cell.terms if t in owners))
        if len(ends) != 2:
            raise InternalError(f"the wall of terms {sorted(cell.terms)} separates "
                                    f"{len(ends)} regions; please report this polynomial")
        j, k = ends
        out.append(CurveEdge(ends, lattice_length(tuple(u - v for u, v in zip(f.exponents[k], f.exponents[j]))),
                             cell))
    return tuple(sorted(out, key=lambda e: e.ends))


def balancing_sums(f: TropicalPolynomial) -> dict:
    """For a plane curve: ``{vertex terms: sum of weight * primitive direction away from it}``.

    Every sum is ``(0, 0)`` (the balancing condition) when the exponents are integers.
    The direction of a wall is perpendicular to its dual edge, oriented from the
    vertex towards the wall's interior point.

    Parameters
    ----------
    f : TropicalPolynomial
        A polynomial in two variables.

    Returns
    -------
    dict
        ``frozenset`` of the terms tying at each vertex -> ``(Fraction, Fraction)``,
        the weighted sum of the edge directions leaving it.

    Raises
    ------
    InvalidInputError
        When ``f`` is not in two variables.
    InternalError
        As for :func:`curve_edges`.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> set(balancing_sums(parse_polynomial("max(0, x, y)")).values())     # the tropical line
    {(Fraction(0, 1), Fraction(0, 1))}
    """
    if f.dim != 2:
        raise InvalidInputError(f"balancing_sums is for plane curves (d = 2); this polynomial has d = {f.dim}")
    edges = curve_edges(f)
    out = {}
    for cell in f.hypersurface_cells():
        if cell.dim != 0:
            continue
        total = [Fraction(0), Fraction(0)]
        V = cell.point
        for e in edges:
            if not e.cell.terms <= cell.terms:
                continue
            j, k = e.ends
            dx, dy = (u - v for u, v in zip(f.exponents[k], f.exponents[j]))
            u = (-dy, dx)                      # weight * primitive direction, up to sign
            away = tuple(p - q for p, q in zip(e.cell.point, V))
            if u[0] * away[0] + u[1] * away[1] < 0:
                u = (dy, -dx)
            total = [total[0] + u[0], total[1] + u[1]]
        out[cell.terms] = tuple(total)
    return out
