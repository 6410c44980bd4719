"""Upper hulls of lifted points: the regular subdivision and the terms that win.

A point ``(x, h)`` is lifted to height ``h``; the upper faces of the lifted points
project to the regular subdivision induced by the heights, and a point is an upper
vertex iff its affine function ``h + <x, .>`` is the unique max somewhere.  This is
the one certified upper hull of tropattn: tropical polynomials (their linear regions
and dual subdivisions), power diagrams (their cells) and the dual count of attention
heads all ask :func:`upper_hull`.

Which certificate answers depends on the dimension of the projection (all live in
:mod:`tropattn.exact`; the kernel used is :attr:`UpperHull.kernel`):

* ``"chain"`` -- points over a line: an exact monotone chain in integers (nothing to certify);
* ``"planar"`` -- points over the plane: Qhull's upper triangles certified by
  :func:`tropattn.exact._lifted.certified_upper_facets_2d` (surface, concavity, points below);
* ``"simplicial"`` -- over ``R^d``, ``d >= 3``, when every upper facet is a simplex:
  :func:`tropattn.exact._lifted.certified_upper_simplices`;
* ``"general"`` -- anything else (lower-dimensional, non-simplicial, huge numbers, or
  ``method="exact"``): the complete hull certificate (or double description) of
  :func:`tropattn.exact._hull.certified_hull` on the points and one apex point.

The fast kernels also give the upper edges (:attr:`UpperHull.neighbors`); the maximal
upper faces (:attr:`UpperHull.cells`, every point on each) come from the general kernel,
computed on first use.  Fast and general kernels are cross-checked in the tests.

>>> H = upper_hull([[x, -x * x] for x in range(-2, 3)])
>>> H.vertices, H.kernel, H.neighbors[2]
((0, 1, 2, 3, 4), 'chain', (1, 3))
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property

import numpy as np

from ..errors import InvalidInputError
from ..exact._counters import record
from ..exact._hull import certified_hull
from ..exact._lifted import certified_upper_facets_2d, certified_upper_simplices, cross2
from ..exact._numbers import common_denominator, homogeneous_row, primitive_row, set_bits
from ._polytope import _to_points

__all__ = ["UpperHull", "upper_hull", "integer_upper_hull", "upper_vertex_count"]

_KERNELS = ("chain", "planar", "simplicial", "general")


class UpperHull:
    """The certified upper hull of points whose last coordinate is a height.

    Attributes
    ----------
    vertices : tuple of int
        Sorted indices of the points that are vertices of the upper hull (the first
        index among equal points).
    cells : tuple of frozenset of int
        One set per maximal upper face: every point index lying on it (equal points
        included).  Projected down, these are the maximal cells of the regular
        subdivision induced by the heights (maximal within the affine hull of the
        projected points).  Computed on first access.
    neighbors : dict int -> tuple of int, or None
        For each vertex, the vertices joined to it by an upper edge (sorted), when the
        kernel provides them (``chain``, ``planar``, ``simplicial``); None otherwise.
    kernel : str
        Which certificate decided the hull (module docstring).
    lifted : tuple of tuple of int
        The distinct top points as integer rows over one common denominator
        (``lifted[i]`` belongs to point ``index[i]``); kernels' data refer to these.
    index : tuple of int
        The point index of each row of ``lifted``.
    data : object
        The kernel's certified structure (for :mod:`tropattn.geometry._power`).
    """

    def __init__(self, points, lifted, index, owners, vertices, kernel, neighbors=None, data=None):
        self._points, self.lifted, self.index, self._owners = points, lifted, index, owners
        self.vertices, self.kernel, self.data = vertices, kernel, data
        self._neighbors = neighbors          # a dict, or a function giving the local one (built on first use)

    @cached_property
    def neighbors(self):
        nb = self._neighbors
        if not callable(nb):
            return nb
        index = self.index
        return {index[i]: tuple(sorted(index[k] for k in ks)) for i, ks in nb().items()}

    @cached_property
    def cells(self) -> tuple:
        return _general(self._points, self._owners)[1]

    def __eq__(self, other):
        if not isinstance(other, UpperHull):
            return NotImplemented
        return self.vertices == other.vertices and self.cells == other.cells

    def __hash__(self):
        return hash(self.vertices)

    def __repr__(self):
        return f"UpperHull(vertices={self.vertices!r}, kernel={self.kernel!r})"


def upper_hull(points, method: str = "auto") -> UpperHull:
    """Upper vertices, upper edges and maximal upper faces of points ``(x, height)``.

    Parameters
    ----------
    points : (n, d + 1) rationals
        Each row is a point ``x`` of ``Q^d`` followed by its height.  Duplicates are fine.
    method : {"auto", "exact"}
        ``"auto"``: the fastest certified kernel for the dimension (module docstring),
        the general certificate where it declines; ``"exact"``: exact double description.

    Returns
    -------
    UpperHull

    Raises
    ------
    InvalidInputError
        Empty or malformed points, or an unknown ``method``.

    Examples
    --------
    Lift ``x = -2..2`` to the parabola ``-x^2``: every point is an upper vertex,
    and consecutive pairs are the cells.

    >>> H = upper_hull([[x, -x * x] for x in range(-2, 3)])
    >>> H.vertices, sorted(sorted(c) for c in H.cells)
    ((0, 1, 2, 3, 4), [[0, 1], [1, 2], [2, 3], [3, 4]])

    Over the plane, a lifted point below the others is no vertex (a hidden power cell):

    >>> upper_hull([[0, 0, 0], [4, 0, 0], [0, 4, 0], [4, 4, 0], [1, 1, -5]]).vertices
    (0, 1, 2, 3)
    """
    if method not in ("auto", "exact"):
        raise InvalidInputError(f"method = {method!r}; expected 'auto' (certified kernels) or 'exact'")
    pts = _to_points(points, "points")
    if len(pts[0]) < 2:
        raise InvalidInputError("points need at least one coordinate and a height, e.g. [[0, 1], [1, 0]]")
    if all(v.denominator == 1 for p in pts for v in p):
        pts = tuple(tuple(v.numerator for v in p) for p in pts)
    return integer_upper_hull(pts, method)


def integer_upper_hull(pts, method: str = "auto") -> UpperHull:
    """:func:`upper_hull` of points given as tuples of Python ints (or Fractions), unchecked.

    The entry point for callers that already hold exact integer rows (power diagrams keep
    their scores as integers over one denominator): nothing is converted on the way in.

    Parameters
    ----------
    pts : sequence of tuples of int (or Fraction)
        Points ``(x, height)``; not checked or converted.
    method : {"auto", "exact"}

    Returns
    -------
    UpperHull

    Examples
    --------
    >>> integer_upper_hull([(0, 0), (1, 1), (2, 0)]).vertices
    (0, 1, 2)
    """
    owners, top = _top_points(pts)
    d = len(pts[0]) - 1
    den = common_denominator([v for p in top for v in pts[p]])
    lifted = tuple(tuple(int(v * den) for v in pts[p]) for p in top) if den != 1 else tuple(pts[p] for p in top)
    result = None
    if method == "auto":
        if d == 1:
            result = _chain(lifted)
        elif d == 2 and len(lifted) >= 3:
            result = _planar(lifted)
        elif d >= 3 and len(lifted) >= d + 2:
            result = _simplicial(lifted, d)
    if result is None:
        verts, cells = _general(pts, owners, method)          # counted by the hull certificate itself
        hull = UpperHull(pts, lifted, tuple(top), owners, verts, "general")
        hull.__dict__["cells"] = cells
        return hull
    kernel, verts_local, nbrs_local, data = result
    record("certified", where=f"upper_hull.{kernel}")
    index = tuple(top)
    verts = tuple(sorted(index[i] for i in verts_local))
    local = nbrs_local if callable(nbrs_local) else (lambda: nbrs_local)
    return UpperHull(pts, lifted, index, owners, verts, kernel, local, data)


def _top_points(pts):
    """Representatives of the distinct points that can lie on the upper hull, and their owners.

    Of several points over one ``x``, only the highest can be on an upper face; equal
    points share it.  Returns ``(owners, top)``: ``owners[p]`` is the sorted list of
    indices equal to point ``p`` (``p`` the first of them), ``top`` the ``p``'s kept.
    """
    best, owners = {}, {}
    for i, p in enumerate(pts):
        x, h = p[:-1], p[-1]
        j = best.get(x)
        if j is None or h > pts[j][-1]:
            best[x] = i
    for i, p in enumerate(pts):
        j = best[p[:-1]]
        if pts[j][-1] == p[-1]:
            owners.setdefault(j, []).append(i)
    top = sorted(owners)
    return owners, top


# ------------------------------------------------------------------------ kernels
def _chain(lifted):
    """Over a line: the exact upper monotone chain (strict turns only)."""
    order = sorted(range(len(lifted)), key=lambda i: lifted[i][0])
    chain = []
    for j in order:
        while len(chain) >= 2 and cross2(lifted[chain[-2]], lifted[chain[-1]], lifted[j]) >= 0:
            chain.pop()
        chain.append(j)
    neighbors = {v: [] for v in chain}
    for u, v in zip(chain, chain[1:]):
        neighbors[u].append(v)
        neighbors[v].append(u)
    return "chain", chain, neighbors, tuple(chain)


def _planar(lifted):
    """Over the plane: the certified planar kernel, its corners and its edges."""
    res = certified_upper_facets_2d(list(lifted))
    if res is None:
        record("declined", where="upper_hull.planar")
        return None
    cycles, T = res.cycles, res.tri
    plain = np.ones(len(T), dtype=bool)
    plain[list(cycles)] = False                       # merged facets: only their cycle's corners are vertices
    corners = set(np.unique(T[plain]).tolist()).union(*cycles.values())

    def neighbors():
        out = {v: set() for v in corners}
        for u, v in zip(res.eu.tolist(), res.ev.tolist()):
            out[u].add(v)
            out[v].add(u)
        return out

    return "planar", sorted(corners), neighbors, res


def _simplicial(lifted, d):
    """Over ``R^d``, ``d >= 3``: the certified simplicial kernel (declines non-simplicial faces)."""
    res = certified_upper_simplices(lifted, d)
    if res is None:
        record("declined", where="upper_hull.simplicial")
        return None
    S = res.simplices

    def neighbors():
        out = {}
        for s in S.tolist():
            for i in s:
                out.setdefault(i, set()).update(k for k in s if k != i)
        return out

    return "simplicial", np.unique(S).tolist(), neighbors, res


def _general(pts, owners, method="auto"):
    """The general certificate on the top points and one apex: ``(vertices, cells)`` (point indices)."""
    top = sorted(owners)
    rows = [homogeneous_row(pts[p]) for p in top]
    apex = len(rows)
    hull = certified_hull(_with_apex(rows), method)
    cells = [frozenset(i for p in set_bits(m) for i in owners[top[p]]) for m in hull.masks if not m >> apex & 1]
    verts = tuple(sorted(top[p] for p in hull.vertices if p != apex))
    return verts, tuple(sorted(cells, key=sorted))


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

    Parameters
    ----------
    points : (n, d + 1) rationals

    Returns
    -------
    int

    Examples
    --------
    >>> upper_vertex_count([[0, 0], [1, 0], [2, 0]])   # max(0, x, 2x): the middle term is hidden
    2
    """
    return len(upper_hull(points).vertices)
