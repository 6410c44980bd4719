"""A fixed integer matrix prepared for many exact signs (:class:`PreparedRows`).

The rows, their scaled floats and their norms are made once; each call then pays one float
product with the columns and the filter of :func:`dense_signs`, whose row bounds come from
the norms (no second pass over the rows).  The ReLU steps of the region search sign every
unit of a d_model-sized FFN at a parent polygon's vertices with it.
"""

from __future__ import annotations

import numpy as np

from ._predicates import _as_int_matrix, dense_signs, scaled_floats

__all__ = ["PreparedRows"]


class PreparedRows:
    """A fixed integer matrix prepared for many exact sign evaluations (:func:`dot_signs`).

    The rows and their scaled floats (:func:`scaled_floats`) are made once; :meth:`signs`
    then pays only for the columns and the filter (:func:`dense_signs`).

    >>> R = PreparedRows([[1, -1], [2, 2], [3 ** 40, -3 ** 40 + 1]])
    >>> R.signs([[1, 1]]).tolist(), R.signs([[3, 3], [1, -1]], [0, 1]).tolist()
    ([[0], [1], [1]], [[0, 1], [1, 0]])
    >>> R.take([2]).signs([[1, 1]]).tolist()
    [[1]]
    """

    def __init__(self, rows):
        self.R = _as_int_matrix(rows)
        self.Rf = scaled_floats(self.R)
        self.norms = _row_norms(self.Rf)              # dense_signs' row bounds, without a pass over the rows

    def take(self, subset) -> "PreparedRows":
        """The rows ``subset`` (their floats copied, not made again)."""
        out = object.__new__(PreparedRows)
        out.R, out.Rf, out.norms = self.R[subset], self.Rf[subset], self.norms[subset]
        return out

    def signs(self, cols, subset=None) -> np.ndarray:
        """``sign(rows[i] . cols[k])`` for the rows ``subset`` (all when None), exactly (int8).

        One float product per call (:func:`dense_signs` with the rows' norms made once): the
        error bound of a row needs no pass over the rows.
        """
        C = _as_int_matrix(cols)
        rows = self if subset is None else self.take(subset)
        return dense_signs(rows.R, C, rows.Rf, _unit_scaled(scaled_floats(C)), row_norms=rows.norms)


def _unit_scaled(F: np.ndarray) -> np.ndarray:
    """Each row of scaled floats times a power of two that brings its largest entry into ``[1/2, 1)``.

    A positive factor changes no sign, and a power of two rounds nothing but entries far
    below the row's largest (underflow, which the filters' ``eta`` covers): the rows are
    still :func:`scaled_floats` of their integers.  One bound per row of :func:`dense_signs`
    then serves columns of any sizes (homogeneous points with very different denominators).

    >>> _unit_scaled(np.array([[2.0 ** 300, -3.0], [0.0, 0.0]]))[:, 0].tolist()   # the first row times 2^-301
    [0.5, 0.0]
    """
    if not F.size:
        return F
    e = np.frexp(np.abs(F).max(axis=1))[1]
    return np.ldexp(F, -e[:, None])


def _row_norms(Rf: np.ndarray) -> np.ndarray:
    """Per row, ``sum_{j < m-1} |Rf_ij|`` and ``|Rf_i,m-1|`` (float64, shape (r, 2)): :func:`dense_signs`' bounds.

    >>> _row_norms(np.array([[1.0, -2.0, 5.0]])).tolist()
    [[3.0, 5.0]]
    """
    A = np.abs(Rf)
    return np.stack([A[:, :-1].sum(axis=1), A[:, -1]], axis=1) if Rf.shape[1] else np.zeros((len(Rf), 2))
