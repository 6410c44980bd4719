"""Certified convex hulls of homogeneous integer points (any dimension), one module per certificate.

* :mod:`~tropattn.exact._hull._qhull` -- the Qhull driver: float boundary triangulations, proposed;
* :mod:`~tropattn.exact._hull._normals` -- exact simplex hyperplanes, primitive outward facet rows;
* :mod:`~tropattn.exact._hull._boundary` -- a claimed boundary certified: the local or the global check;
* :mod:`~tropattn.exact._hull._surface` -- the global check (every point against every row, the surface);
* :mod:`~tropattn.exact._hull._local` -- the local certificate (O(facets + points) exact signs);
* :mod:`~tropattn.exact._hull._planes` -- float-filtered orientation signs of simplices, from the points;
* :mod:`~tropattn.exact._hull._filtered` -- the local certificate decided from the points, rows built when read;
* :mod:`~tropattn.exact._hull._flips` -- 3-D edge flips of a claim that is not convex at some edges;
* :mod:`~tropattn.exact._hull._dd` -- the exact fallback, double description;
* this module -- :class:`Hull` and :func:`certified_hull`, which chains them.

How a hull is computed (docs/ALGORITHMS.md §3, docs/THEORY.md §12).  Every point
``x = num / den`` is stored as the primitive integer row ``(num, den)``.  The affine hull
is found exactly; coordinates are projected to an independent subset so that the set is
full-dimensional there.  Qhull triangulates the boundary in floats (in dimension 4
and up unmerged first, then joggled input, then the default merged run); for each
simplex the hyperplane through its points is rebuilt exactly (signed minors, vectorised in blocks of simplices, in int64
when a bound proves it exact, else modulo primes and rebuilt by the Chinese remainder
theorem).  Simplices with equal exact normals are merged into one facet row.  The
rows are proved to be exactly the facets by the certificate of Mehlhorn et al.:
the simplices form a closed, consistently oriented surface, locally convex at every
ridge, met once by a ray from an interior point, and every other point lies inside
(the local certificate, O(facets + points) exact signs; by default decided from the points
by float-filtered orientation determinants, the facets being the classes of simplices
joined by flat ridges, and the exact rows built only when ``facets`` is first read);
for flat simplices or small inputs, every point is tested against every row instead,
in bounded blocks (the global certificate).  Otherwise an exact double-description algorithm over
Python integers computes the facets, and the fallback is counted.  A point is a vertex
iff the facets through it meet in that point alone.

>>> H = certified_hull([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1), (1, 1, 2)])   # a square and its centre
>>> len(H.facets), H.vertices
(4, (0, 1, 2, 3))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from ..._validate import choice
from .._counters import record
from .._linalg import nullspace
from .._numbers import integer_row, primitive_row, set_bits
from .._predicates import INT64_SAFE, PreparedPoints
from ._boundary import certify_boundary
from ._filtered import FacetRows
from ._dd import facets_1d, facets_dd, vertices_from_masks
from ._flips import certify_with_flips
from ._normals import _row_tuples, independent_rows, normalise_rows, row_masks, row_sum, simplex_normals, unique_rows
from ._qhull import QHULL_OPTIONS, qhull_runs, qhull_simplices
from ._surface import meets_alone, surface_certified

__all__ = ["Hull", "certified_hull", "certify_boundary", "qhull_simplices", "QHULL_OPTIONS", "independent_rows",
           "row_sum", "simplex_normals", "normalise_rows", "unique_rows", "surface_certified", "meets_alone"]



def _equations(rows: Sequence[tuple]) -> tuple:
    """Canonical equations ``normal . x == offset`` of the affine hull of homogeneous rows.

    The nullspace basis comes from the reduced row echelon form, which depends only
    on the row space, so it is canonical; each vector is scaled to primitive integers.
    """
    eqs = []
    for vec in nullspace([list(r) for r in rows]):
        ints = integer_row(vec)
        eqs.append((ints[:-1], Fraction(-ints[-1])))
    return tuple(sorted(eqs))


@dataclass(frozen=True)
class Hull:
    """Facets of distinct homogeneous points ``G`` (ambient), computed in projected coordinates.

    ``coords`` are the ambient coordinates kept by the projection (sorted);
    ``facets[f]`` is a primitive integer row ``h`` over ``coords + (den,)`` with
    ``h . g <= 0`` for every projected point; ``incidence`` says which points lie on
    which facet, as int bitmasks or a boolean (facets, points) array, and ``masks[f]``
    (built on first use) has bit ``i`` set iff point ``i`` lies on facet ``f``;
    ``vertices`` are point indices.

    ``facet_rows`` is the tuple of rows, or a sequence that builds them exactly when first
    read (:class:`~tropattn.exact._hull._filtered.FacetRows`); ``facets`` reads it once,
    ``facet_count`` never.
    """

    G: tuple
    dim: int
    coords: tuple
    equations: tuple
    facet_rows: Sequence
    incidence: object
    vertices: tuple

    @functools.cached_property
    def facets(self) -> tuple:
        """The facet rows, as tuples of ints (built on first access when certified lazily)."""
        return self.facet_rows if isinstance(self.facet_rows, tuple) else tuple(self.facet_rows)

    @property
    def facet_count(self) -> int:
        """The number of facets (no row is built)."""
        return len(self.facet_rows)

    @functools.cached_property
    def facet_points(self) -> tuple:
        """For each facet, the sorted indices of the points on it (memory proportional to
        the incidences, unlike ``masks`` on large inputs)."""
        Z = self.incidence
        if isinstance(Z, np.ndarray):  # one nonzero pass, split by rows
            if not len(Z):
                return ()
            f, i = np.nonzero(Z)
            cuts = np.searchsorted(f, np.arange(1, Z.shape[0])).tolist()
            pts = i.tolist()
            return tuple(tuple(pts[a:b]) for a, b in zip([0] + cuts, cuts + [len(pts)]))
        if hasattr(Z, "tocsr"):
            Z = Z.tocsr()
            Z.sort_indices()
            return tuple(tuple(Z.indices[Z.indptr[r]:Z.indptr[r + 1]].tolist()) for r in range(Z.shape[0]))
        return tuple(tuple(set_bits(m)) for m in Z)

    @functools.cached_property
    def masks(self) -> tuple:
        if isinstance(self.incidence, np.ndarray) or hasattr(self.incidence, "tocsr"):
            return tuple(row_masks(self.incidence))
        return tuple(self.incidence)


def certified_hull(G: Sequence[tuple], method: str = "auto", qhull_options=QHULL_OPTIONS) -> Hull:
    """Exact facets and vertices of distinct homogeneous points (any dimension).

    The affine hull is found exactly and the points are projected onto independent
    coordinates; Qhull proposes a boundary triangulation that is certified exactly
    (:func:`certify_boundary`), else an exact double description decides (counted as
    a fallback).  See the module docstring and docs/ALGORITHMS.md §3.

    Parameters
    ----------
    G : sequence of tuple of int, or numpy.ndarray of int64, shape (m, n + 1)
        Distinct homogeneous points ``(num, den)`` with ``den > 0`` (see
        :func:`~tropattn.exact._numbers.homogeneous_row`); at least one.
    method : {"auto", "exact"}, optional
        ``"auto"``: certified Qhull first; ``"exact"``: double description only.
    qhull_options : sequence of str or None, optional
        The Qhull runs tried in turn before the exact fallback.

    Returns
    -------
    Hull
        ``dim`` (dimension of the hull), ``coords`` (projection), ``equations`` of the
        affine hull, primitive outward ``facets`` over ``coords + (den,)``, their
        ``incidence`` and the ``vertices`` (point indices).

    Raises
    ------
    InvalidInputError
        When ``method`` is not ``"auto"`` or ``"exact"``.

    Examples
    --------
    A unit square with its centre and the midpoint of an edge:

    >>> H = certified_hull([(0, 0, 1), (2, 0, 2), (0, 1, 1), (1, 1, 1), (1, 1, 2), (1, 0, 2)])
    >>> H.dim, len(H.facets), H.vertices
    (2, 4, (0, 1, 2, 3))
    >>> certified_hull([(0, 0, 1), (1, 1, 1), (2, 2, 1)]).equations    # a segment on x = y
    (((-1, 1), Fraction(0, 1)),)
    """
    choice(method, "method", _METHODS, "'auto' certifies Qhull's proposals (exact fallback), 'exact' is "
           "double description only")
    return _certified_hull(G, method, qhull_options)


#: The methods of :func:`certified_hull`.
_METHODS = ("auto", "exact")


def _certified_hull(G, method: str = "auto", qhull_options=QHULL_OPTIONS, propose=qhull_simplices,
                    report: dict | None = None) -> Hull:
    """:func:`certified_hull` (``method`` unchecked), with its proposer as a parameter.

    ``propose(X, options)`` gives the claimed boundary triangulation of the float points
    ``X`` (:func:`~tropattn.exact._hull._qhull.qhull_simplices`; a test passes a dishonest
    one to see the certificate refuse it), and ``report`` (optional) collects what the
    certificates report (:func:`~tropattn.exact._hull._local.certify_local`) plus
    ``"runs"``, the options tried.
    """
    G64 = G if isinstance(G, np.ndarray) and G.dtype == np.int64 else None
    if G64 is not None:
        G = _row_tuples(G64)
    n = len(G[0]) - 1
    kept, pivots = independent_rows(G)
    dim = len(kept) - 1
    coords = tuple(sorted(c for c in pivots if c != n))
    eqs = _equations([G[i] for i in kept]) if dim < n else ()
    if dim == 0:
        return Hull(tuple(G), 0, coords, eqs, (), (), (0,))
    P = list(G) if dim == n else [primitive_row([g[c] for c in coords] + [g[n]]) for g in G]
    if dim >= 2 and method == "auto":
        pts = _prepared(G, G64) if G64 is not None and dim == n else PreparedPoints.of(P)
        inner = row_sum([P[i] for i in kept])  # kept: d + 1 affinely independent points
        for options in qhull_runs(qhull_options, dim):
            if report is not None:
                report.setdefault("runs", []).append(options)
            run = propose(pts.X_scaled, options)
            if run is None:
                continue
            facets, Z, verts = certify_with_flips(pts, run[0], inner, report)
            if facets is not None:
                record("certified")
                rows = facets if isinstance(facets, FacetRows) else tuple(facets)
                return Hull(tuple(G), dim, coords, eqs, rows, Z, tuple(np.flatnonzero(verts).tolist()))
        record("fallbacks")
    facets, masks = facets_1d(P) if dim == 1 else facets_dd(P, kept)
    verts = vertices_from_masks(masks, len(P), dim)
    return Hull(tuple(G), dim, coords, eqs, tuple(facets), tuple(masks), verts)


def _prepared(G: list, G64: np.ndarray) -> PreparedPoints:
    """``PreparedPoints.of(G64)`` reusing the tuples ``G`` already made from it."""
    A = np.abs(G64)
    top = int(A.max())
    if top * G64.shape[1] >= INT64_SAFE:
        return PreparedPoints.of(G64)
    return PreparedPoints(G, G64.astype(object), G64, top, int(A.sum(axis=1).max()))
