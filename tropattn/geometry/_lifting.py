"""Upper hulls of lifted points: the regular subdivision and the terms that win.

A point ``(x, h)`` is lifted to height ``h``; the upper faces of the lifted points
project to the regular subdivision induced by the heights, and a point is an upper
vertex iff its affine function ``h + <x, .>`` is the unique max somewhere.  This is
the one certified upper hull of tropattn: tropical polynomials (their linear regions
and dual subdivisions), power diagrams (their cells) and the dual count of attention
heads all ask :func:`upper_hull`.

Which certificate answers is chosen in one place, :func:`integer_upper_hull` (the kernels
live in :mod:`tropattn.exact`; the kernel used is :attr:`UpperHull.kernel`), and
``method=`` forces one per call:

* ``"chain"`` -- points over a line: an exact monotone chain in integers (nothing to certify);
* ``"planar"`` -- points over the plane: Qhull's upper triangles certified by
  :func:`tropattn.exact.upper_facets` (surface, concavity, points below);
* ``"simplicial"`` -- over ``R^d``, ``d >= 3``, when every upper facet is a simplex:
  :func:`tropattn.exact.upper_facets` again;
* ``"general"`` -- the complete hull certificate of :func:`tropattn.exact.certified_hull`
  on the points and one apex point; ``"exact"`` the same by double description only.

``method="auto"`` takes the kernel of the dimension (chain for ``d = 1``, planar for
``d = 2`` with three or more points, simplicial for ``d >= 3`` with ``d + 2`` or more) and
the general certificate otherwise.  A fast kernel that declines (its certificate fails on
degenerate input, or too few points) hands over to the general certificate, counted as
``declined`` at ``upper_hull.<kernel>``; :attr:`UpperHull.kernel` says who answered.

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

from .._validate import choice
from ..errors import InvalidInputError
from ..exact import certified_hull, common_denominator, homogeneous_row, primitive_row, record, upper_facets
from ._polytope import _to_points

__all__ = ["UpperHull", "upper_hull", "integer_upper_hull", "upper_vertex_count", "METHODS"]

#: The methods of :func:`upper_hull`: "auto", a fast kernel, the general certificate, or exact
#: double description.
METHODS = ("auto", "chain", "planar", "simplicial", "general", "exact")

#: The dimension ``d`` of the projection each fast kernel needs.
_DIMENSIONS = {"chain": "d = 1", "planar": "d = 2", "simplicial": "d >= 3"}


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
        The kernel's certified structure (for :mod:`tropattn.geometry._power_cells`).
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
        if self.kernel == "chain" and len(self.data) >= 2:
            return _chain_cells(self.lifted, self.index, self._owners, self.data)
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
    method : {"auto", "chain", "planar", "simplicial", "general", "exact"}, optional
        ``"auto"``: the fastest certified kernel for the dimension, the general
        certificate where it declines; a kernel's name forces it (it must fit the
        dimension; where it declines the general certificate answers); ``"general"``:
        the general certificate; ``"exact"``: exact double description (module docstring).

    Returns
    -------
    UpperHull

    Raises
    ------
    InvalidInputError
        Empty or malformed points, an unknown ``method``, or a kernel that does not fit
        the dimension of the points.

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
    choice(method, "method", METHODS, "'auto' picks the kernel of the dimension")
    pts = _to_points(points, "points")
    if len(pts[0]) < 2:
        raise InvalidInputError("points need at least one coordinate and a height, e.g. [[0, 1], [1, 0]]")
    if all(v.denominator == 1 for p in pts for v in p):
        pts = tuple(tuple(v.numerator for v in p) for p in pts)
    return integer_upper_hull(pts, method)


def integer_upper_hull(pts, method: str = "auto", distinct: bool = False) -> UpperHull:
    """:func:`upper_hull` of points given as tuples of Python ints (or Fractions), unchecked.

    The entry point for callers that already hold exact integer rows (power diagrams keep
    their scores as integers over one denominator): nothing is converted on the way in.

    Parameters
    ----------
    pts : sequence of tuples of int (or Fraction)
        Points ``(x, height)``; not checked or converted.
    method : str, optional
        As for :func:`upper_hull`.
    distinct : bool, optional
        The caller guarantees that no two points share their ``x`` (a power diagram without its
        duplicate sites): the search for equal and stacked points is skipped.

    Returns
    -------
    UpperHull

    Examples
    --------
    >>> integer_upper_hull([(0, 0), (1, 1), (2, 0)]).vertices
    (0, 1, 2)
    """
    owners, top = ({i: [i] for i in range(len(pts))}, range(len(pts))) if distinct else _top_points(pts)
    d = len(pts[0]) - 1
    den = common_denominator([v for p in top for v in pts[p]])
    lifted = tuple(tuple(int(v * den) for v in pts[p]) for p in top) if den != 1 else tuple(pts[p] for p in top)
    kernel = _kernel(method, d, len(lifted))
    result = None
    if kernel in _FAST:
        result = _FAST[kernel](lifted)
        if result is None:
            record("declined", where=f"upper_hull.{kernel}")
    elif method in _DIMENSIONS:                              # forced, but too few points for it
        record("declined", where=f"upper_hull.{method}")
    if result is None:
        verts, cells = _general(pts, owners, "exact" if method == "exact" else "auto")   # counted by the hull
        hull = UpperHull(pts, lifted, tuple(top), owners, verts, "general")
        hull.__dict__["cells"] = cells
        return hull
    verts_local, nbrs_local, data = result
    record("certified", where=f"upper_hull.{kernel}")
    index = tuple(top)
    verts = tuple(sorted(index[i] for i in verts_local))
    local = nbrs_local if callable(nbrs_local) else (lambda: nbrs_local)
    return UpperHull(pts, lifted, index, owners, verts, kernel, local, data)


def _kernel(method: str, d: int, n: int) -> str:
    """The one place that picks the kernel: ``method`` forced, else the rule of the module docstring.

    A forced fast kernel must fit ``d`` (else InvalidInputError); with too few points for it
    (planar: 3, simplicial: ``d + 2``) the general certificate answers.
    """
    if method in _DIMENSIONS:
        fits = {"chain": d == 1, "planar": d == 2, "simplicial": d >= 3}[method]
        if not fits:
            raise InvalidInputError(f"method = {method!r} needs points over {_DIMENSIONS[method]}; these are "
                                    f"{d + 1} coordinates (x in R^{d}, then the height): use method='auto'")
    elif method != "auto":
        return "general"
    if d == 1:
        return "chain"
    if d == 2:
        return "planar" if n >= 3 else "general"
    return "simplicial" if n >= d + 2 else "general"


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
    chain = upper_facets(lifted, "chain")
    neighbors = {v: [] for v in chain}
    for u, v in zip(chain, chain[1:]):
        neighbors[u].append(v)
        neighbors[v].append(u)
    return chain, neighbors, tuple(chain)


def _chain_cells(lifted, index, owners, chain):
    """The cells of an upper chain: per edge, every point on that segment (exact cross products).

    >>> lifted = ((0, 0), (1, 1), (2, 2), (3, 0))           # (1, 1) lies on the edge from (0, 0) to (2, 2)
    >>> _chain_cells(lifted, (0, 1, 2, 3), {0: [0], 1: [1], 2: [2], 3: [3]}, (0, 2, 3))
    (frozenset({0, 1, 2}), frozenset({2, 3}))
    """
    cells = []
    for a, b in zip(chain, chain[1:]):
        (xa, ha), (xb, hb) = lifted[a], lifted[b]
        lo, hi = min(xa, xb), max(xa, xb)
        on = [p for p, (x, h) in enumerate(lifted)
              if lo <= x <= hi and (xb - xa) * (h - ha) == (hb - ha) * (x - xa)]
        cells.append(frozenset(i for p in on for i in owners[index[p]]))
    return tuple(sorted(cells, key=sorted))


def _planar(lifted):
    """Over the plane: the certified planar kernel, its corners and its edges (None: it declines)."""
    res = upper_facets(lifted, "planar")
    if res is None:
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

    return sorted(corners), neighbors, res


def _simplicial(lifted):
    """Over ``R^d``, ``d >= 3``: the certified simplicial kernel (declines non-simplicial faces)."""
    res = upper_facets(lifted, "simplicial")
    if res is None:
        return None
    S = res.simplices

    def neighbors():
        out = {}
        for s in S.tolist():
            for i in s:
                out.setdefault(i, set()).update(k for k in s if k != i)
        return out

    used = np.zeros(len(lifted), dtype=bool)          # the vertices (np.unique would hash: slower)
    used[S.ravel()] = True
    return np.flatnonzero(used).tolist(), neighbors, res


#: The fast kernels: lifted points -> (vertices, neighbours, data), or None when one declines.
_FAST = {"chain": _chain, "planar": _planar, "simplicial": _simplicial}


def _general(pts, owners, method="auto"):
    """The general certificate on the top points and one apex: ``(vertices, cells)`` (point indices)."""
    top = sorted(owners)
    rows = [homogeneous_row(pts[p]) for p in top]
    apex = len(rows)
    hull = certified_hull(_with_apex(rows), method)
    cells = [frozenset(i for p in on for i in owners[top[p]]) for on in hull.facet_points if on[-1] != apex]
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
