"""Edge flips in 3-D: a joggled Qhull run may pick the wrong diagonal of four nearly coplanar points.

When the local certificate fails only because some edges are not convex, those edges are
flipped and the new claim is certified from scratch (:func:`certify_with_flips`): the flip
only proposes, the certificate decides.
"""

from __future__ import annotations

import numpy as np

from .._predicates import PreparedPoints
from ._boundary import _certify_boundary

__all__ = ["certify_with_flips"]


def certify_with_flips(pts: PreparedPoints, simplices: np.ndarray, inner: tuple, report: dict | None = None):
    """:func:`certify_boundary`; in 3-D, when it fails only because some edges are not
    convex (a joggled run can pick the wrong diagonal of four nearly coplanar points),
    those edges are flipped and the new claim is certified from scratch.  ``report``
    (optional): what the certificates report (see :func:`_certify_boundary`)."""
    report = {} if report is None else report
    report.pop("ridges", None)
    out = _certify_boundary(pts, simplices, inner, report)
    if out[0] is None and "ridges" in report and simplices.shape[1] == 3:
        flipped = _flip_edges(simplices, *report.pop("ridges"))
        if flipped is not None:
            out = _certify_boundary(pts, flipped, inner, report)
    return out


def _flip_edges(simplices: np.ndarray, s1: np.ndarray, s2: np.ndarray, r: np.ndarray, t: np.ndarray):
    """Triangles ``s1[i] = (p, q, r[i])`` and ``s2[i] = (p, q, t[i])`` replaced by
    ``(r, t, p)`` and ``(r, t, q)``; None when two edges share a triangle."""
    both = np.concatenate([s1, s2])
    if len(np.unique(both)) < len(both):
        return None
    A = simplices[s1]
    pq = A[A != r[:, None]].reshape(len(s1), 2)
    out = simplices.copy()
    out[s1] = np.stack([r, t, pq[:, 0]], axis=1)
    out[s2] = np.stack([r, t, pq[:, 1]], axis=1)
    return out
