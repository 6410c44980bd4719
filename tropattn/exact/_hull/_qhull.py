"""The Qhull driver: a float boundary triangulation, proposed for the exact certificates.

Only the combinatorics (which points form each simplex) leaves this module; every check
is exact, on the true points, in :mod:`~tropattn.exact._hull._boundary` and the modules it
calls.  scipy's private ``_Qhull`` runner is driven directly (it skips the volume, area and
neighbour arrays that :class:`scipy.spatial.ConvexHull` also computes); the knob
``tropattn.config.qhull_private_runner`` (1, the default) chooses it, 0 forces the public
class, which is also taken when the private one has changed.

>>> simplices, planes = qhull_simplices(np.array([[0., 0.], [1., 0.], [0., 1.]]), "QJ")
>>> sorted(map(sorted, simplices.tolist()))
[[0, 1], [0, 2], [1, 2]]
"""

from __future__ import annotations

import numpy as np

from ..._config import config
from ..._lazy import lazy_import

spatial = lazy_import("scipy.spatial")
_scipy_qhull = lazy_import("scipy.spatial._qhull")

__all__ = ["QHULL_OPTIONS", "QHULL_FIRST_HIGH_DIM", "qhull_simplices", "qhull_runs"]


#: Qhull runs tried in turn: joggled input ("QJ") first, whose output is simplicial with
#: every ridge in exactly two simplices even when many points are coplanar (and which
#: is the fastest, as no facets are merged), then the default triangulated output
#: ("Qt").  The exact checks are always on the original points.
QHULL_OPTIONS = ("QJ", None)

#: Tried first by :func:`certified_hull` (default options) in dimension 4 and up:
#: Qhull's triangulated output without merging ("Qt Q0") is cheaper there than the joggled
#: run on points in general position; on degenerate input the certificate refuses what
#: it gets wrong and :data:`QHULL_OPTIONS` run next.  (In 3-D the joggled run is faster.)
QHULL_FIRST_HIGH_DIM = "Qt Q0"


def qhull_simplices(X: np.ndarray, options=None):
    """Qhull's triangulated boundary of float points and the float hyperplane of each simplex.

    Only the combinatorics (index sets) is used, and every check is exact on the
    true points, so Qhull may see any affine image of them: coordinates are centred
    and scaled per axis, which helps Qhull on lopsided inputs.  Floats decide
    nothing here: the result is a claim for :func:`certify_boundary`.  scipy's private runner
    is used unless ``tropattn.config.qhull_private_runner`` is 0; the public
    :class:`scipy.spatial.ConvexHull` gives the same simplices.

    Parameters
    ----------
    X : numpy.ndarray of float, shape (m, d)
        The points in floats (full-dimensional, ``d >= 2``).
    options : str or None, optional
        Qhull options (an entry of :data:`QHULL_OPTIONS`).

    Returns
    -------
    tuple (simplices, equations) or None
        ``simplices`` (F, d) point indices and ``equations`` (F, d + 1) float planes
        of the scaled points, or None when Qhull fails or ``X`` is not finite.

    Examples
    --------
    >>> simplices, planes = qhull_simplices(np.array([[0., 0.], [1., 0.], [0., 1.], [1., 1.]]), "QJ")
    >>> simplices.shape
    (4, 2)
    >>> qhull_simplices(np.array([[0., 0.], [1., 1.], [2., 2.]])) is None      # flat: Qhull refuses
    True
    """
    if not np.all(np.isfinite(X)):
        return None
    span = np.ptp(X, axis=0)
    span[span == 0] = 1.0
    Y = np.ascontiguousarray((X - X.mean(axis=0)) / span)
    if config.qhull_private_runner:
        try:
            return _qhull_run(Y, options)
        except (spatial.QhullError, ValueError):
            return None
        except (AttributeError, TypeError):  # scipy's private _Qhull changed: the public class below
            pass
    try:
        qh = spatial.ConvexHull(Y, qhull_options=options)
    except (spatial.QhullError, ValueError):
        return None
    return qh.simplices, qh.equations


def _qhull_run(Y: np.ndarray, options) -> tuple:
    """``(simplices, equations)`` of ``ConvexHull(Y, qhull_options=options)`` without
    the volume, area and neighbour arrays that the class also computes: scipy's
    ``_Qhull`` driven as ``ConvexHull`` drives it (triangulated output, "Qt")."""
    qh = _scipy_qhull._Qhull(b"i", Y, (options or "").encode(), required_options=b"Qt")
    try:
        qh.triangulate()
        simplices, _, equations, _, _ = qh.get_simplex_facet_array()
    finally:
        qh.close()
    return simplices, equations


def qhull_runs(options, dim: int) -> tuple:
    """The Qhull options :func:`~tropattn.exact._hull.certified_hull` tries, in turn.

    The default list (:data:`QHULL_OPTIONS`, passed as that very object) gets
    :data:`QHULL_FIRST_HIGH_DIM` in front in dimension 4 and up; any other sequence is
    tried as given.

    >>> qhull_runs(QHULL_OPTIONS, 3), qhull_runs(QHULL_OPTIONS, 4), qhull_runs(("QJ",), 5)
    (('QJ', None), ('Qt Q0', 'QJ', None), ('QJ',))
    """
    if options is QHULL_OPTIONS and dim >= 4:
        return (QHULL_FIRST_HIGH_DIM,) + QHULL_OPTIONS
    return tuple(options)
