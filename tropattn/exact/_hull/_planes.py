"""Float-filtered orientation signs of the simplices of a claimed boundary, from the points.

The hyperplane of a simplex ``s`` with homogeneous points ``v_0..v_{k-1}`` is the
generalised cross product ``h_s`` (:func:`~tropattn.exact._hull._normals.simplex_normals`),
and ``h_s . x = (-1)^k det[v_0; ...; v_{k-1}; x]``.  :class:`SimplexPlanes` keeps the
float images of the ``k + 1`` cofactors of every simplex and of their permanents (one
vectorised Laplace expansion each, :func:`~tropattn.exact._linalg._expand_last`); the
sign of ``h_s . x`` for any integer point ``x`` is then one float dot product and one
bound: the float evaluation is a Laplace expansion of that ``(k + 1) x (k + 1)``
determinant, along which each monomial meets at most ``n = K^2 + 2K`` roundings
(``K = k + 1``, the rounding of the entries to float included), so
``|fl(h . x) - h . x| <= gamma_n perm|[v; x]|``, and the same expansion of the absolute
values computes that permanent to within ``1 + gamma_n``: a value beyond
``2 gamma_n fl(perm)`` has the float sign (as in
:func:`~tropattn.exact._predicates.determinant_signs`).  The entries are integers, so
every intermediate value is an integer (no underflow); a non-finite value or bound is
unsure.  Unsure signs are exact integer determinants, counted as ``filter_failures`` at
``"hull.orientation"``.  No exact hyperplane is built.

>>> from tropattn.exact._predicates import PreparedPoints
>>> tri = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 2)])
>>> planes = SimplexPlanes.of(tri, np.array([[1, 2], [0, 1]]))   # the lines x + y = 1 and y = 0
>>> planes.pair_signs(np.array([0, 0, 1]), np.array([0, 3, 2])).tolist()
[1, 0, 1]
"""

from __future__ import annotations

import numpy as np

from ..._config import config
from .._counters import record
from .._linalg import _expand_last, determinants
from .._predicates import PreparedPoints, negative_columns, sign_array

__all__ = ["SimplexPlanes"]

_U = 2.0 ** -53


class SimplexPlanes:
    """Float cofactors ``H`` and permanents ``B`` of each simplex's hyperplane (rows
    ``(F, k + 1)``: ``H[s] . x`` approximates ``h_s . x``), the float points ``Xf`` and
    the filter's factor ``2 gamma_n`` (infinite, every sign exact, with
    ``config.hull_filter_signs = 0``); built by :meth:`of`."""

    def __init__(self, pts: PreparedPoints, simplices: np.ndarray, H: np.ndarray, B: np.ndarray, Xf: np.ndarray):
        self.pts, self.simplices, self.H, self.B, self.Xf = pts, simplices, H, B, Xf
        self.Xa = np.abs(Xf)
        K = simplices.shape[1] + 1
        n = K * K + 2 * K
        self.factor = 2 * n * _U / (1 - n * _U) if config.hull_filter_signs else np.inf

    @classmethod
    def of(cls, pts: PreparedPoints, simplices: np.ndarray) -> "SimplexPlanes | None":
        """The planes of ``simplices`` (shape (F, k), points ``pts`` of k + 1 columns); None
        when the points or a permanent leave the float range (the caller's exact path answers)."""
        Xf = _integer_floats(pts)
        if Xf is None:
            return None
        T = np.ascontiguousarray(Xf[simplices].transpose(1, 2, 0))  # (k, k + 1, F): contiguous gathers
        with np.errstate(over="ignore", invalid="ignore"):
            minors = _expand_last(T)
            perms = _expand_last(np.abs(T), absolute=True)
        if not (np.all(np.isfinite(perms)) and np.all(np.isfinite(minors))):
            return None
        H = minors[:, ::-1].copy()  # minors[:, i] omits column k - i; h_j = (-1)^j (minor without j)
        H[:, 1::2] = -H[:, 1::2]
        return cls(pts, simplices, H, np.ascontiguousarray(perms[:, ::-1]), Xf)

    # ----------------------------------------------------------------- signs
    def pair_signs(self, s: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Exact ``sign(h_{s[i]} . P[x[i]])`` for index arrays ``s``, ``x`` of one length."""
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.einsum("ij,ij->i", self.H[s], self.Xf[x])
            b = np.einsum("ij,ij->i", self.B[s], self.Xa[x])
        return self._settle(v, b, s, lambda unsure: self.pts.Pa[x[unsure]])

    def point_signs(self, s: np.ndarray, c: tuple) -> np.ndarray:
        """Exact ``sign(h_{s[i]} . c)`` for one homogeneous integer point ``c``."""
        try:
            cf = np.array([float(v) for v in c])
        except OverflowError:
            cf = np.full(len(c), np.inf)
        with np.errstate(over="ignore", invalid="ignore"):
            v = self.H[s] @ cf
            b = self.B[s] @ np.abs(cf)
        return self._settle(v, b, s, lambda unsure: np.array([c] * int(unsure.sum()), dtype=object))

    def sign_matrix(self, s: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Exact signs ``(len(s), len(x))`` of ``h_{s[i]} . P[x[j]]`` (int8), by float matrix
        products in blocks of points."""
        out = np.zeros((len(s), len(x)), dtype=np.int8)
        if not len(s) or not len(x):
            return out
        Hs, Bs = self.H[s], self.B[s]
        step = max(32, config.predicate_block_entries // len(s))
        for lo in range(0, len(x), step):
            cols = x[lo:lo + step]
            with np.errstate(over="ignore", invalid="ignore"):
                v, b = Hs @ self.Xf[cols].T, Bs @ self.Xa[cols].T
            rows = np.broadcast_to(s[:, None], v.shape)
            out[:, lo:lo + step] = self._settle(v, b, rows, lambda unsure: self.pts.Pa[cols[np.nonzero(unsure)[1]]])
        return out

    def negative_columns(self, s: np.ndarray, sign: np.ndarray, x: np.ndarray) -> np.ndarray:
        """Which points ``x`` are proved strictly negative against every row ``sign[i] h_{s[i]}``
        (a one-sided float filter: False is only "not proved"), in float32 first, the points
        it leaves in float64.

        :func:`~tropattn.exact._predicates.negative_columns` with each row divided by the sum
        ``L`` of its permanents and the threshold raised by the filter's factor: with
        ``|x|_inf`` the largest entry of a point, ``perm|[v; x]| <= L |x|_inf`` (up to the
        roundings of ``L``, covered by the margin ``2^-20``) and ``|H[s]|_1 <= L``."""
        slack = self.factor * (1 + 2.0 ** -20)
        H, L = self.H[s] * sign[:, None], self.B[s].sum(axis=1)
        out = negative_columns(H, self.Xf[x], L, slack, single=True)
        rest = np.flatnonzero(~out)  # beyond float32's reach (e.g. coordinates far larger than denominators)
        if len(rest):
            out[rest] = negative_columns(H, self.Xf[x[rest]], L, slack)
        return out

    def _settle(self, v: np.ndarray, b: np.ndarray, s: np.ndarray, points) -> np.ndarray:
        """The signs of the float values ``v`` of simplices ``s`` (same shape) where
        ``|v| > factor b``, and where ``factor b <= 1/2`` (the determinant, an integer, is then
        ``round(v)``: small entries, exact zeros of flat ridges); elsewhere (NaN and inf
        included) exact determinants, with ``points(unsure)`` the integer rows of the points
        there (in ``v[unsure]``'s order)."""
        bound = self.factor * b
        out = np.sign(np.where(bound <= 0.5, np.round(v), v)).astype(np.int64)
        unsure = ~((np.abs(v) > bound) | (bound <= 0.5))
        if np.any(unsure):
            out[unsure] = self._exact(s[unsure], points(unsure))
        return out

    def _exact(self, s: np.ndarray, X: np.ndarray) -> np.ndarray:
        """``sign(h_{s[i]} . X[i])`` exactly, counted: ``(-1)^k det[v; x]``, in int64 where the
        product of the matrix's row L1 norms (a bound on every partial sum of its expansion)
        stays below ``2^61``, else in Python integers."""
        record("filter_failures", len(s), where="hull.orientation")
        k = self.simplices.shape[1]
        M = np.concatenate([self.pts.Pa[self.simplices[s]], X.astype(object)[:, None, :]], axis=1)
        try:
            with np.errstate(over="ignore"):
                small = np.abs(M.astype(float)).sum(axis=2).prod(axis=1) < 2.0 ** 61  # within 2^-40 of the bound
        except OverflowError:  # an entry beyond the float range
            small = np.zeros(len(M), dtype=bool)
        det = np.zeros(len(M), dtype=np.int64)
        if np.any(small):
            det[small] = sign_array(determinants(M[small].astype(np.int64)))
        if not np.all(small):
            det[~small] = sign_array(determinants(M[~small]))
        return det * (-1) ** k

    # ----------------------------------------------------------------- floats for guesses
    def unit_rows(self, s: np.ndarray, sign: np.ndarray) -> np.ndarray:
        """The float rows ``sign[i] H[s[i]]`` scaled to max norm 1 (for float guesses only)."""
        R = self.H[s] * sign[:, None]
        return R / np.maximum(np.abs(R).max(axis=1), 1e-300)[:, None]


def _integer_floats(pts: PreparedPoints) -> np.ndarray | None:
    """The points' integer entries as floats (each rounded once, none scaled); None when
    one is beyond the float range."""
    try:
        X = pts.P64.astype(float) if pts.P64 is not None else pts.Pa.astype(float)
    except OverflowError:
        return None
    return X if np.all(np.isfinite(X)) and np.abs(X).max(initial=0.0) < 2.0 ** 1000 else None
