"""A claimed boundary triangulation, certified: exact rows, then the local or the global certificate.

The triangulation may come from any source (Qhull, a flip, a test's dishonest claim).
Each simplex's hyperplane is rebuilt exactly and oriented away from an interior point;
then the local certificate (:func:`~tropattn.exact._hull._local.certify_local`, every
simplex non-degenerate and more than ``tropattn.config.hull_local_entries`` facet x point
entries) or the global one (every point against every row, then
:func:`~tropattn.exact._hull._surface.surface_certified`) proves that the rows are exactly
the facets.
"""

from __future__ import annotations

import numpy as np

from ..._config import config
from .._predicates import PreparedPoints
from ._filtered import certify_filtered
from ._local import certify_local
from ._normals import _outward_rows, _primitive_normals
from ._surface import _global_zeros, _holds, meets_alone_any, surface_certified

__all__ = ["certify_boundary"]


def _certify_triangulation(pts: PreparedPoints, simplices: np.ndarray, inner: tuple):
    """The facets of full-dimensional points and their incidence ``Z``, certified from a
    claimed boundary triangulation (any source); ``(None, None)`` if not proved
    (:func:`certify_boundary` without the vertex flags)."""
    return certify_boundary(pts, simplices, inner)[:2]


def certify_boundary(pts: PreparedPoints, simplices: np.ndarray, inner: tuple):
    """The facets of full-dimensional points, certified from a claimed boundary triangulation.

    The triangulation may come from any source.  The hyperplane of each simplex is
    rebuilt exactly and oriented away from ``inner``; then either the local
    certificate (:func:`~tropattn.exact._hull._local.certify_local`: every simplex non-degenerate) or the global
    one (every point against every row, in blocks, then :func:`surface_certified`)
    proves that they are exactly the facets.

    Parameters
    ----------
    pts : PreparedPoints
        The points, shape (m, k + 1), full-dimensional.
    simplices : numpy.ndarray of int, shape (S, k)
        The claimed boundary triangulation.
    inner : tuple of int, shape (k + 1,)
        A homogeneous point in the interior of the hull (e.g. :func:`~tropattn.exact._hull._normals.row_sum` of
        affinely independent points).

    Returns
    -------
    facets : list of tuple of int or None
        The outward primitive facet rows (``h . g <= 0`` for every point).
    Z : numpy.ndarray of bool or scipy.sparse matrix, shape (F, m), or None
        ``Z[f, i]``: point ``i`` lies on facet ``f`` (sparse when facets x points is
        large).
    vertex : numpy.ndarray of bool, shape (m,), or None
        Which points are vertices.

    All three are None when the claim is not proved.

    Examples
    --------
    >>> from tropattn.exact._predicates import PreparedPoints
    >>> square = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)])
    >>> facets, Z, vertex = certify_boundary(square, np.array([[0, 1], [1, 3], [3, 2], [2, 0]]), (1, 1, 2))
    >>> sorted(facets), vertex.tolist()
    ([(-1, 0, 0), (0, -1, 0), (0, 1, -1), (1, 0, -1)], [True, True, True, True])
    >>> certify_boundary(square, np.array([[0, 1], [1, 3], [3, 0]]), (1, 1, 2))[0] is None   # misses (0, 1)
    True
    """
    return _certify_boundary(pts, simplices, inner)


def _certify_boundary(pts: PreparedPoints, simplices: np.ndarray, inner: tuple, report: dict | None = None,
                      normals: tuple | None = None):
    """:func:`certify_boundary`; ``report`` (optional) receives what the local certificate
    reports (see :func:`~tropattn.exact._hull._local.certify_local`).  ``normals``: the claimed
    ``(raw, floats)`` rows of the simplices instead of :func:`_primitive_normals` (what a
    test plants: the certificate must refuse wrong ones).  Without ``normals``, a claim
    large enough for the local certificate is first decided from the points
    (:func:`~tropattn.exact._hull._filtered.certify_filtered`: its facet rows are built
    when read); where that does not apply, from the exact rows."""
    if normals is None and config.hull_filtered and len(simplices) * len(pts.P) > config.hull_local_entries:
        out = certify_filtered(pts, simplices, inner, report)
        if out is not None:
            return out
    raw, floats = _primitive_normals(pts, simplices) if normals is None else normals
    rows = _outward_rows(raw, inner, floats)
    if rows is None:
        return None, None, None
    uniq, live, inverse, Uf = rows
    facet_of = np.zeros(len(simplices), dtype=np.intp)
    facet_of[live] = inverse
    if np.all(live) and len(uniq) * len(pts.P) > config.hull_local_entries:
        return certify_local(pts, simplices, uniq, facet_of, inner, raw, Uf, report)
    Z = _global_zeros(uniq, pts)
    if Z is None:
        return None, None, None
    if not np.all(live):  # a degenerate simplex: any certified facet row holding it
        flat = _holds(Z, simplices[~live])
        if not np.all(flat.any(axis=0)):
            return None, None, None
        facet_of[~live] = np.argmax(flat, axis=0)
    if not surface_certified(pts, simplices, uniq, Z, facet_of, inner, raw):
        return None, None, None
    return [tuple(map(int, h)) for h in uniq.tolist()], Z, meets_alone_any(Z, np.arange(len(pts.P)))
