"""The global boundary certificate: every point against every row, then the surface.

When the claimed simplices may be degenerate (or the input is small), every point is
tested against every certified row, in bounded blocks (:func:`_global_zeros`), and
:func:`surface_certified` checks the rest of the certificate of Mehlhorn et al.: the
simplices lie on the boundary, form a consistently oriented closed surface, and a ray
from an interior point meets them once.  The incidence read off the zeros gives the
vertices (:func:`meets_alone_any`).

>>> Z = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)        # two edges of a path a-b-c
>>> meets_alone_any(Z, np.arange(3)).tolist()               # only b is cut out by its facets
[False, True, False]
"""

from __future__ import annotations

import itertools

import numpy as np

from ..._config import config
from ..._lazy import lazy_import
from .._linalg import solve
from .._predicates import INT64_SAFE, PreparedPoints, matrix_signs
from ._normals import _outward, row_sum, simplex_normals

sparse = lazy_import("scipy.sparse")

__all__ = ["surface_certified", "meets_alone", "meets_alone_any"]


def surface_certified(pts: "PreparedPoints", simplices: np.ndarray, U: np.ndarray, Z: np.ndarray,
                       facet_of: np.ndarray, inner: tuple, raw: np.ndarray | None = None) -> bool:
    """Do the simplices form the boundary of ``conv(points)`` exactly once?  (Exact.)

    The caller has certified that every row of ``U`` (outward facet rows, ``U . g <= 0``
    for every point ``g``, ``Z`` = the zeros) supports ``conv(points)``; ``facet_of[s]``
    is a row of ``U`` whose zero set holds simplex ``s`` (checked again here),
    ``inner`` a homogeneous point in the interior of ``conv(points)``, and ``raw``
    (optional) the simplices' own normals (:func:`simplex_normals`).  The rest of the
    certificate of Mehlhorn et al. ("Checking geometric programs or verification of
    geometric structures") is checked here:

    1. ``inner`` is strictly inside every facet row and every simplex lies in the zero
       set of a facet row, so the simplices lie on the boundary, away from ``inner``;
    2. the simplices, oriented outward (:func:`_outward`), form an oriented cycle:
       every ridge lies in exactly two simplices, which induce opposite orientations
       on it (:func:`_consistently_oriented`);
    3. the ray from ``inner`` through a relative-interior point ``c`` of one simplex
       meets exactly one simplex, in its relative interior (:func:`_ray_meets_once`).

    Why this suffices.  By 2 the central projection from ``inner`` of the surface to
    the unit sphere has a degree, and every non-degenerate simplex counts +1 where it
    is crossed (outward orientation; degenerate simplices project to a null set).  By
    3 the direction of ``c`` is a regular value crossed once, so the degree is 1 and
    every generic direction crosses some non-degenerate simplex.  For any facet ``F``
    of the hull take a generic ``x`` in its relative interior: the ray through ``x``
    meets a simplex at ``y``, which lies on the boundary (1), and a ray from an
    interior point meets the boundary only once, so ``y = x`` lies on a certified
    facet row, which is then the hyperplane of ``F``: no facet is missing.  (Local
    convexity at the ridges, the remaining part of the certificate, is implied by the
    global test that every point lies on one side of every row.)  A doubled or
    folded surface (a face triangulated twice, two copies of the boundary) fails 2
    or 3.

    Parameters
    ----------
    pts : PreparedPoints
        The points, shape (m, k + 1), full-dimensional.
    simplices : numpy.ndarray of int, shape (S, k)
        The claimed boundary triangulation.
    U : numpy.ndarray of int64 or object, shape (F, k + 1)
        Outward facet rows, each certified to support the points.
    Z : numpy.ndarray of bool, shape (F, m)
        ``Z[f, i]``: point ``i`` lies on row ``f``.
    facet_of : numpy.ndarray of int, shape (S,)
        The row of ``U`` holding each simplex.
    inner : tuple of int, shape (k + 1,)
        A homogeneous interior point.
    raw : numpy.ndarray or None, optional
        The simplices' normals, if already computed.

    Returns
    -------
    bool
        True when the surface is proved to be the boundary, exactly once.

    Examples
    --------
    The four edges of a square pass; the same edges listed twice (a doubled
    boundary) fail:

    >>> from tropattn.exact._predicates import PreparedPoints
    >>> square = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)])
    >>> edges = np.array([[0, 1], [1, 3], [3, 2], [2, 0]])
    >>> U = np.array([[0, -1, 0], [1, 0, -1], [0, 1, -1], [-1, 0, 0]])
    >>> Z = np.array([[1, 1, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 1, 0]], dtype=bool)
    >>> surface_certified(square, edges, U, Z, np.arange(4), (1, 1, 2))
    True
    >>> surface_certified(square, np.vstack([edges, edges]), U, Z, np.r_[0:4, 0:4], (1, 1, 2))
    False
    """
    if not np.all(_entries(Z, facet_of[:, None], simplices)):
        return False
    if not np.all(matrix_signs(U, PreparedPoints.of([inner])) < 0):
        return False
    sigma = _outward(pts, simplices, U, facet_of, raw)
    degenerate = np.flatnonzero(sigma == 0)
    flat = _holds(Z, simplices[degenerate])  # (facets, degenerate simplices): s in f
    return (_consistently_oriented(simplices, sigma, len(pts.P))
            and _ray_meets_once(pts, simplices, facet_of, degenerate, flat, inner))


def _ridge_pairs(simplices: np.ndarray, npoints: int):
    """The two sides of every ridge of sorted simplices, or None if some ridge does not
    lie in exactly two simplices.

    Row ``j * F + s`` of the ridge list is simplex ``s`` without its ``j``-th smallest
    vertex; returns ``(a, b)``, the two rows of each ridge.
    """
    S = np.sort(simplices, axis=1)
    k = S.shape[1]
    ridges = np.concatenate([np.delete(S, j, axis=1) for j in range(k)], axis=0)
    if npoints ** (k - 1) < INT64_SAFE:  # one int64 key per ridge, one sort
        keys = ridges.astype(np.int64) @ (npoints ** np.arange(k - 1, dtype=np.int64))
        if npoints ** (k - 1) * len(keys) < INT64_SAFE:  # (key, row) packed: one plain sort, same order
            order = np.sort(keys * len(keys) + np.arange(len(keys))) % len(keys)
        else:
            order = np.argsort(keys, kind="stable")
        ks = keys[order]
        if len(ks) % 2 or np.any(ks[0::2] != ks[1::2]) or np.any(ks[2::2] == ks[1:-1:2]):
            return None
        return order[0::2], order[1::2]
    _, inverse, counts = np.unique(ridges, axis=0, return_inverse=True, return_counts=True)
    if not np.all(counts == 2):
        return None
    order = np.argsort(inverse.reshape(-1), kind="stable")
    return order[0::2], order[1::2]


def _permutation_signs(simplices: np.ndarray) -> np.ndarray:
    """Sign of the permutation sorting each row (+1 even, -1 odd), by counting inversions."""
    k = simplices.shape[1]
    inversions = np.zeros(len(simplices), dtype=np.int64)
    for i, j in itertools.combinations(range(k), 2):
        inversions += simplices[:, i] > simplices[:, j]
    return 1 - 2 * (inversions % 2)


def _consistently_oriented(simplices: np.ndarray, sigma: np.ndarray, npoints: int, pairs=None) -> bool:
    """Every ridge lies in exactly two simplices, which induce opposite orientations on it.

    ``sigma[s]`` is +1 / -1 when simplex ``s`` in its given order is outward / inward,
    0 when it is degenerate (its orientation is then free).  The oriented simplex
    ``sigma [v_0, ..., v_{k-1}]`` (vertices sorted; the sort permutation's sign is
    folded into ``sigma``) has the boundary ``sum_j (-1)^j [v_0..^v_j..v_{k-1}]``, so
    it induces the sign ``sigma (-1)^j`` on its ``j``-th ridge; a consistently
    oriented closed surface is one whose ridge terms cancel in pairs.  (Equivalently,
    ``sign det[v_1 - v_0, ..., ridge..., opposite - v_0, normal]`` is opposite on the
    two sides, exactly.)  Degenerate simplices must admit an orientation too: their
    signs are propagated across ridges and checked for conflicts.
    """
    F, k = simplices.shape
    pairs = _ridge_pairs(simplices, npoints) if pairs is None else pairs
    if pairs is None:
        return False
    a, b = pairs
    sigma = sigma * _permutation_signs(simplices)
    owner = np.tile(np.arange(F), k)
    parity = np.repeat(1 - 2 * (np.arange(k) % 2), F)
    rel = -parity[a] * parity[b]  # opposite induced signs iff sigma[a] * sigma[b] == rel
    sa, sb = sigma[owner[a]], sigma[owner[b]]
    known = (sa != 0) & (sb != 0)
    if np.any(sa[known] * sb[known] != rel[known]):
        return False
    loose = ~known
    return _propagate_signs(sigma.tolist(), owner[a[loose]].tolist(), owner[b[loose]].tolist(),
                            rel[loose].tolist())


def _propagate_signs(sigma: list, us: list, vs: list, rels: list) -> bool:
    """Can the zero entries of ``sigma`` be set to +-1 with ``sigma[u] sigma[v] == rel``
    on every edge?  (Breadth-first over the few edges that touch a degenerate simplex.)"""
    adj = {}
    for u, v, r in zip(us, vs, rels):
        adj.setdefault(u, []).append((v, r))
        adj.setdefault(v, []).append((u, r))
    starts = [u for u in adj if sigma[u]] + [u for u in adj if not sigma[u]]
    for start in starts:
        if not sigma[start]:
            sigma[start] = 1  # a component of degenerate simplices only: either sign
        stack = [start]
        while stack:
            u = stack.pop()
            for v, r in adj.pop(u, ()):
                want = sigma[u] * r
                if not sigma[v]:
                    sigma[v] = want
                    stack.append(v)
                elif sigma[v] != want:
                    return False
    return True


def _ray_meets_once(pts: "PreparedPoints", simplices: np.ndarray, facet_of: np.ndarray, degenerate: np.ndarray,
                    flat: np.ndarray, inner: tuple) -> bool:
    """Does the ray from ``inner`` through a relative-interior point ``c`` of one
    non-degenerate simplex ``s0`` meet no other simplex?  (Exact.)

    Every simplex lies on the boundary of the hull (in a supporting facet row) and
    the ray from an interior point meets the boundary only at ``c``, so the ray meets
    simplex ``s`` iff ``c`` lies in ``s``; and only simplices in ``s0``'s facet row can
    contain ``c`` (a supporting row through the relative interior of ``s0`` contains
    ``s0``).  ``c`` is the sum of ``s0``'s homogeneous rows (a centroid weighted by the
    denominators).  ``s0`` is taken in a facet row with few simplices, preferably one
    without degenerate simplices (``flat``: facets x degenerate simplices).
    """
    nf = len(flat)
    nondeg = np.ones(len(simplices), dtype=bool)
    nondeg[degenerate] = False
    counts = np.bincount(facet_of[nondeg], minlength=nf).astype(float)
    counts[counts == 0] = np.inf
    counts += len(simplices) * flat.any(axis=1)
    f0 = int(np.argmin(counts))
    here = np.flatnonzero(nondeg & (facet_of == f0))
    s0, rest = here[0], here[1:]
    c = row_sum([pts.P[i] for i in simplices[s0]])
    if len(rest) and _contains_point(pts, simplices[rest], c, inner).any():
        return False
    return not any(_in_hull([pts.P[i] for i in simplices[s]], c) for s in degenerate[flat[f0]])


def _contains_point(pts: "PreparedPoints", simplices: np.ndarray, c: tuple, inner: tuple) -> np.ndarray:
    """For non-degenerate simplices in one hyperplane through ``c``: does ``c`` lie in each?

    With ``inner`` off the hyperplane, ``D(x_1..x_k) = det[x_1; ...; x_k; inner]`` is a
    volume form on it, so the barycentric coordinates of ``c`` in ``v_0..v_{k-1}`` have
    the signs of ``D(v with v_i := c) / D(v)``: ``c`` lies in the simplex iff none is
    negative.  Each ``D`` is ``(-1)^k`` times ``raw . inner`` of that simplex.
    """
    F, k = simplices.shape
    used, local = np.unique(simplices, return_inverse=True)
    aug = PreparedPoints.of([pts.P[u] for u in used] + [c])
    idx = np.repeat(local.reshape(F, 1, k), k + 1, axis=1)  # variant k: the simplex itself
    for i in range(k):
        idx[:, i, i] = len(used)
    o = PreparedPoints.of([inner])
    D = matrix_signs(simplex_normals(aug, idx.reshape(-1, k)), o)[:, 0].reshape(F, k + 1).astype(np.int64)
    return np.all(D[:, :k] * D[:, k:] >= 0, axis=1)


def _in_hull(rows: list, c: tuple) -> bool:
    """Is the homogeneous point ``c`` in the hull of ``rows`` (few, possibly dependent)?

    By Caratheodory, iff ``c`` is a nonnegative combination of some linearly
    independent subset of the rows, whose coefficients are then unique (exact solve).
    """
    for size in range(1, len(rows) + 1):
        for sub in itertools.combinations(rows, size):
            w = solve([list(col) for col in zip(*sub)], list(c))
            if w is not None and all(v >= 0 for v in w):
                return True
    return False


def _global_zeros(U: np.ndarray, pts: PreparedPoints, cols: np.ndarray | None = None):
    """The zeros of ``U @ P[cols].T`` if no entry is positive (None otherwise), by blocks of rows.

    Returns a boolean array (facets, points) when small, else a ``scipy.sparse``
    CSR matrix; with ``cols``, a CSR matrix over all points with only those columns.
    """
    sub = pts if cols is None else PreparedPoints.of(pts.Pa[cols] if pts.P64 is None else pts.P64[cols])
    n = len(sub.P)
    step = max(1, config.predicate_block_entries // max(n, 1))
    fi, pi, blocks = [], [], []
    dense = cols is None and len(U) * n <= config.hull_dense_entries
    for lo in range(0, len(U), step):
        S = matrix_signs(U[lo:lo + step], sub)
        if np.any(S > 0):
            return None
        if dense:
            blocks.append(S == 0)
        else:
            i, k = np.nonzero(S == 0)
            fi.append(i + lo)
            pi.append(k if cols is None else cols[k])
    if dense:
        return np.concatenate(blocks, axis=0)
    fi, pi = (np.concatenate(x) if x else np.zeros(0, dtype=np.intp) for x in (fi, pi))
    return sparse.csr_matrix((np.ones(len(fi), dtype=bool), (fi, pi)), shape=(len(U), len(pts.P)))


def _holds(Z, degenerate: np.ndarray) -> np.ndarray:
    """(facets, degenerate simplices): does facet row f hold every vertex of simplex s?"""
    if isinstance(Z, np.ndarray):
        return Z[:, degenerate].all(axis=2)
    Zc = Z.tocsc()
    out = np.ones((Z.shape[0], len(degenerate)), dtype=bool)
    for j, simplex in enumerate(degenerate):
        for v in simplex:
            out[:, j] &= Zc[:, int(v)].toarray()[:, 0]
    return out


def _entries(Z, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``Z[rows, cols]`` elementwise (broadcast index arrays) for a dense or sparse ``Z``."""
    if isinstance(Z, np.ndarray):
        return Z[rows, cols]
    r, c = np.broadcast_arrays(rows, cols)
    return np.asarray(Z[r.ravel(), c.ravel()]).reshape(r.shape).astype(bool)


def meets_alone_any(Z, cand: np.ndarray) -> np.ndarray:
    """Vertex flags from an incidence, dense (:func:`meets_alone`) or sparse.

    Point ``u`` (in ``cand``) is a vertex iff it lies on some facet and the facets
    through it meet in ``{u}`` alone.

    Parameters
    ----------
    Z : numpy.ndarray of bool or scipy.sparse matrix, shape (F, m)
        ``Z[f, i]``: point ``i`` lies on facet ``f``.
    cand : numpy.ndarray of int
        The candidate points.

    Returns
    -------
    numpy.ndarray of bool, shape (m,)
        True at the candidates that are vertices (False elsewhere).

    Examples
    --------
    Two edges of a path a-b-c: only b is cut out by the facets through it.

    >>> Z = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> meets_alone_any(Z, np.arange(3)).tolist()
    [False, True, False]
    >>> meets_alone_any(sparse.csr_matrix(Z), np.arange(3)).tolist()
    [False, True, False]
    """
    if isinstance(Z, np.ndarray):
        out = np.zeros(Z.shape[1], dtype=bool)
        out[cand] = meets_alone(Z[:, cand], Z, cand)
        return out
    Zc = Z.tocsc().astype(np.int32)
    deg = np.diff(Zc.indptr)[cand]
    C = (Zc[:, cand].T @ Zc).tocoo()  # shared facets of (u, point)
    full = C.data == deg[C.row]
    hits = np.bincount(C.row[full], minlength=len(cand))
    out = np.zeros(Z.shape[1], dtype=bool)
    out[cand] = (deg > 0) & (hits == 1)
    return out


def meets_alone(on: np.ndarray, Z: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """For each column ``u`` of ``on``: do the rows of ``Z`` over the facets holding ``u`` meet exactly in ``idx[u]``?

    The rows ``Z[f]`` over the facets ``f`` with ``on[f, u]`` are AND-ed (bitwise:
    ``Z``'s rows are packed into bytes and reduced per column of ``on``); the
    answer is False when no facet holds ``u``.

    Parameters
    ----------
    on : numpy.ndarray of bool, shape (F, c)
        Which facets hold each candidate.
    Z : numpy.ndarray of bool, shape (F, m)
        The incidence over all points.
    idx : numpy.ndarray of int, shape (c,) or (c, t)
        The expected meet of each candidate (a point, or a set of t points).

    Returns
    -------
    numpy.ndarray of bool, shape (c,)
        True where the meet is exactly ``idx[u]``.

    Examples
    --------
    >>> Z = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> meets_alone(Z, Z, np.arange(3)).tolist()
    [False, True, False]
    """
    idx = idx.reshape(len(idx), -1)
    u, f = np.nonzero(on.T)  # sorted by u
    out = np.zeros(on.shape[1], dtype=bool)
    if not len(u):
        return out
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    meet = np.bitwise_and.reduceat(np.packbits(Z, axis=1, bitorder="little")[f], starts, axis=0)
    who = u[starts]
    want = np.zeros((len(who), Z.shape[1]), dtype=bool)
    want[np.arange(len(who))[:, None], idx[who]] = True
    out[who] = np.all(meet == np.packbits(want, axis=1, bitorder="little"), axis=1)
    return out
