"""Upper hulls of lifted points: the regular subdivision and the terms that win.

A point ``(x, h)`` is lifted to height ``h``; the upper faces of the lifted points
project to the regular subdivision induced by the heights, and a point is an upper
vertex iff its affine function ``h + <x, .>`` is the unique max somewhere.

>>> H = upper_hull([[x, -x * x] for x in range(-2, 3)])
>>> H.vertices
(0, 1, 2, 3, 4)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction


from ..exact.hull import certified_hull
from ..exact.numbers import homogeneous_row, primitive_row, set_bits
from .polytope import _to_points


__all__ = ["UpperHull", "upper_hull", "upper_vertex_count"]


@dataclass(frozen=True)
class UpperHull:
    """The upper hull of points whose last coordinate is a height.

    Attributes
    ----------
    vertices : tuple of int
        Sorted indices of the points that are vertices of the upper hull (the first
        index among equal points).
    cells : tuple of frozenset of int
        One set per maximal upper face: every point index lying on it.  Projected
        down, these are the maximal cells of the regular subdivision induced by the
        heights (maximal within the affine hull of the projected points).
    """

    vertices: tuple
    cells: tuple


def upper_hull(points, method: str = "auto") -> UpperHull:
    """Upper vertices and maximal upper faces of points ``(x, height)``.

    The upper faces are the faces of ``conv(points) + R_{<=0} e_last``: the facets
    whose normal has a positive last coordinate.  A projective transformation maps
    this polyhedron to the polytope spanned by the (transformed) points and one apex
    point, the image of the ray; the faces not through the apex are the upper faces
    (:func:`_with_apex`).  This needs one extra point instead of a lowered copy of
    every point.
    ``method`` is as in :func:`convex_hull`.

    Examples
    --------
    Lift ``x = -2..2`` to the parabola ``-x^2``: every point is an upper vertex,
    and consecutive pairs are the cells.

    >>> H = upper_hull([[x, -x * x] for x in range(-2, 3)])
    >>> H.vertices, sorted(sorted(c) for c in H.cells)
    ((0, 1, 2, 3, 4), [[0, 1], [1, 2], [2, 3], [3, 4]])
    """
    pts = _to_points(points, "points")
    rows = [homogeneous_row(p) for p in pts]
    ids = {}
    for r in rows:
        ids.setdefault(r, len(ids))
    top = list(ids)
    apex = len(top)
    hull = certified_hull(_with_apex(top), method)
    owners = {}
    for i, r in enumerate(rows):
        owners.setdefault(ids[r], []).append(i)
    cells = []
    for m in hull.masks:
        if not m >> apex & 1:
            cells.append(frozenset(i for p in set_bits(m) for i in owners[p]))
    verts = tuple(sorted(owners[p][0] for p in hull.vertices if p != apex))
    return UpperHull(vertices=verts, cells=tuple(sorted(cells, key=sorted)))


def _with_apex(top: list) -> list:
    """Distinct lifted points (homogeneous rows) mapped projectively, plus the image of ``-e_last``.

    The upper faces of ``conv(points)`` are the faces of the polyhedron
    ``conv(points) + R_{<=0} e_last`` whose normal has a positive last coordinate.
    The invertible linear map ``(x, y, den) -> (x, y, c den - y)`` on homogeneous
    rows, with an integer ``c`` above every height, sends the points to finite points
    (new denominator ``den (c - y) > 0``) and the ray to the finite apex ``(0, -1)``:
    the polyhedron becomes the polytope ``conv(points' + [apex])``, with the same
    faces and incidences (a projective transformation whose hyperplane at infinity
    misses the polyhedron).  The faces not through the apex are the upper faces; the
    faces through it are the vertical ones.  ``c`` is chosen so that the new
    denominators vary by at most a factor of two (well-conditioned floats for Qhull).
    """
    heights = [Fraction(r[-2], r[-1]) for r in top]
    hi, lo = math.floor(max(heights)) + 1, math.floor(min(heights))
    c = hi + (hi - lo)  # c - y lies in [hi - lo, 2 (hi - lo)], and c > every height
    c = c if c else c + 1
    lifted = [primitive_row(r[:-1] + (c * r[-1] - r[-2],)) for r in top]
    return lifted + [(0,) * (len(top[0]) - 2) + (-1, 1)]


def upper_vertex_count(points) -> int:
    """Number of upper vertices: the non-redundant terms of a max-plus polynomial.

    >>> upper_vertex_count([[0, 0], [1, 0], [2, 0]])   # max(0, x, 2x): the middle term is hidden
    2
    """
    return len(upper_hull(points).vertices)
