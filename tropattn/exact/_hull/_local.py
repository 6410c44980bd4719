"""The local certificate: O(facets + points) exact signs instead of a facets x points matrix.

For a claimed boundary whose simplices are all non-degenerate, the theorem of Mehlhorn,
Naeher, Schilz, Schirra, Seel, Seidel and Uhrig proves the rows are exactly the facets
from local checks: a closed, consistently oriented surface, locally convex at every
ridge, met once by a ray from an interior point, with every other point inside
(:func:`certify_local`).  Points off the surface are first proved interior by one
one-sided float filter, else located in the cone from the interior point over one
simplex; vertices are proved by independent facet normals around them.
"""

from __future__ import annotations

import numpy as np

from ..._config import config
from ..._lazy import lazy_import
from .._counters import record
from .._linalg import wrapped_dots
from .._predicates import (INT64_SAFE, PreparedPoints, as_small_ints, determinant_signs, filtered_signs,
                           matrix_signs, negative_columns, prepared_paired_signs, row_products, scaled_floats,
                           small_determinant_signs)
from ._normals import _outward, _row_tuples, row_sum
from ._surface import _consistently_oriented, _contains_point, _global_zeros, _ridge_pairs, meets_alone_any

sparse = lazy_import("scipy.sparse")

__all__ = ["certify_local"]


def certify_local(pts: PreparedPoints, simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
                   inner: tuple, raw: np.ndarray, Uf: np.ndarray | None = None, report: dict | None = None):
    """The local certificate for non-degenerate simplices with outward rows ``U``
    (``U . inner < 0``; ``facet_of[s]``: the row of simplex ``s``, built from its points).
    Returns like :func:`certify_boundary`; a refusal of check 0 is counted as
    ``declined`` at ``"hull.local_rows"``.
    ``report`` (optional, for tests and diagnostics) receives the ridges found not convex
    (``"ridges"``), the number of points the float filter left to the cone test
    (``"cone_points"``) and the vertices proved by the rows around one simplex
    (``"ridge_vertices"``).

    Checked, with O(facets + points) exact signs instead of O(facets x points):

    0. every row is nonzero and vanishes at the ``k`` points of each of its simplices
       (:func:`rows_vanish_on_simplices`, integer dot products): the rows come from
       modular or float-checked minors, and everything below takes each row to be
       the hyperplane of its simplices, so this is proved, not trusted;
    1. the simplices form a closed, consistently oriented surface ``S`` (every ridge in
       exactly two simplices with opposite induced orientations, outward orientation
       from ``raw``: :func:`_consistently_oriented`);
    2. ``S`` is locally convex at every ridge: the vertex of each neighbour opposite the
       ridge lies on the inner side (``<= 0``) of the simplex's row;
    3. a ray meets ``S`` once: ``c``, the centroid of one simplex ``s0`` of row ``f0``,
       lies strictly inside every other row, every point lies on the inner side of
       ``f0``, and no other simplex of ``f0`` contains ``c``.  A simplex ``t`` of a row
       ``g != f0`` cannot meet the ray from ``inner`` through ``c``: before ``c`` the
       ray is strictly inside ``g`` (``g(inner) < 0``, ``g(c) < 0``), beyond ``c`` it is
       strictly outside ``f0``, where no point of ``t`` (a convex combination of input
       points) lies; simplices of ``f0`` meet the ray only at ``c``.

    By the theorem of Mehlhorn, Naeher, Schilz, Schirra, Seel, Seidel and Uhrig
    ("Checking geometric programs or verification of geometric structures", CGTA 12,
    1999): a closed, consistently oriented surface that is locally convex at every
    ridge, with a point (``inner``) on the inner side of every facet and a ray from it
    that meets the surface exactly once, in the relative interior of a facet, is the
    boundary of a convex polytope ``K``.  (Sketch: local convexity makes the region
    of winding number ``w(x) >= 1`` locally convex near the surface, hence convex, and
    the ray shows that the winding number is 1.)  The vertices of ``S`` are input
    points, so ``K`` is contained in their hull; it remains that

    4. every other point ``x`` lies in ``K``: strictly inside every row (a one-sided
       float filter with a rigorous bound, :func:`~tropattn.exact._predicates.negative_columns`;
       every facet hyperplane of ``K`` holds a simplex of ``S``, hence is a row, so the
       rows cut out ``K``), else in ``conv(inner, t)`` for a simplex ``t``
       (nonnegative barycentric coordinates, exact determinants; ``t`` is guessed in
       floats as the row maximising ``g(x) / |g(inner)|``, the one the ray from
       ``inner`` through ``x`` leaves by), else tested against every row.

    Then ``K = conv(points)``, and the rows (each spanned by a non-degenerate simplex)
    are exactly its facets.  Incidences: a point strictly inside ``conv(inner, t)``
    towards ``inner`` (``t``'s row ``< 0``) is interior.  A vertex ``v`` of ``S`` is a
    vertex of ``K`` when ``d`` of the rows of its simplices have independent normals;
    then every facet ``F`` through ``v`` holds a simplex through ``v`` (the simplices
    cover ``F`` by 3, and ``v``, being extreme, is a vertex of any simplex holding it),
    so the rows of ``v``'s simplices are all its facets.  The remaining points (other
    vertices of ``S``, points on the boundary) are tested against every row.
    """
    n, F, k = len(pts.P), len(simplices), simplices.shape[1]
    U = as_small_ints(U)
    rows_out = _row_tuples(U) if U.dtype == object else None  # the answer's rows, made once
    if not rows_vanish_on_simplices(pts, simplices, U, facet_of, rows_out):  # 0
        record("declined", where="hull.local_rows")
        return None, None, None
    rows_out = _row_tuples(U) if rows_out is None else rows_out
    Uf = scaled_floats(U) if Uf is None else Uf  # ``U``'s floats, converted once
    sigma = _outward(pts, simplices, U, facet_of, raw)
    pairs = _ridge_pairs(simplices, n)
    if pairs is None or np.any(sigma == 0) or not _consistently_oriented(simplices, sigma, n, pairs):
        return None, None, None
    a, b = pairs  # rows j * F + s of the ridge list: simplex s without its j-th smallest vertex
    S = np.sort(simplices, axis=1)
    sa, sb = a % F, b % F
    opp_a, opp_b = S[sa, a // F], S[sb, b // F]
    fa, fb = facet_of[sa], facet_of[sb]
    bent = fa != fb
    rows = np.concatenate([fa[bent], fb[bent]])
    convex = prepared_paired_signs(U, Uf, pts, rows, np.concatenate([opp_b[bent], opp_a[bent]])) <= 0
    if not np.all(convex):
        if report is not None:  # (simplex, simplex, opposite vertex, opposite vertex) of each bad ridge
            bad = ~(convex[:len(convex) // 2] & convex[len(convex) // 2:])
            report["ridges"] = (sa[bent][bad], sb[bent][bad], opp_a[bent][bad], opp_b[bent][bad])
        return None, None, None
    if not _ray_meets_once_local(pts, simplices, U, facet_of, inner, Uf):
        return None, None, None
    on_surface = np.zeros(n, dtype=bool)
    on_surface[simplices.ravel()] = True
    others = np.flatnonzero(~on_surface)
    interior, boundary = inside_points(  # 4
        pts, simplices, inner, others, len(U), lambda idx: negative_columns(Uf, pts.F[idx]), Uf,
        first_simplices(facet_of, len(U)), lambda rows, cols: prepared_paired_signs(U, Uf, pts, rows, cols), report)
    star_f = np.repeat(facet_of, k)
    star_p = simplices.ravel()
    A = as_small_ints(U[:, :-1])
    by_ridges = _ridge_vertices(A, S, facet_of, pairs, n)
    if report is not None:  # the vertices proved by the rows around one simplex
        report.setdefault("ridge_vertices", []).append(by_ridges)
    proved = _star_vertices(A, star_f, star_p, n, k, Uf, by_ridges)
    suspicious = np.concatenate([np.flatnonzero(on_surface & ~proved), others[~interior | boundary]])
    dense = len(U) * n <= config.hull_dense_entries
    if dense and not len(suspicious):  # the common case: the incidence is the stars, built dense
        Z = np.zeros((len(U), n), dtype=bool)
        Z[star_f, star_p] = True
        return rows_out, Z, proved
    Z = sparse.csr_matrix((np.ones(len(star_f), dtype=bool), (star_f, star_p)), shape=(len(U), n))
    if len(suspicious):
        extra = _global_zeros(U, pts, suspicious)
        if extra is None:
            return None, None, None
        Z = (Z + extra).astype(bool)
    Z.sum_duplicates()
    vertex = proved.copy()
    if len(suspicious):
        vertex |= meets_alone_any(Z, suspicious)
    if dense:
        Z = Z.toarray()
    return rows_out, Z, vertex


def rows_vanish_on_simplices(pts: PreparedPoints, simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
                             rows: list | None = None) -> bool:
    """Check 0 of :func:`certify_local` (exact, integers): is every row ``U[facet_of[s]]``
    nonzero and zero at each of the ``k`` points of simplex ``s``?

    The rest of the local certificate takes each row to be the hyperplane of its
    simplices; the rows come from modular, wrapped or float-checked minors, so that is
    proved here rather than trusted: ``F k`` dot products, in int64 when
    ``max|U| max|P| (k + 1) < 2^62`` proves them exact, else from the float and wrapped
    int64 images (:func:`~tropattn.exact._linalg.wrapped_dots`, int64 rows), else in
    Python integers: numpy object products, one column of the simplices at a time in
    blocks of 1,024 simplices that stay in cache (``rows``, optional: ``U``'s rows as
    tuples of ints, when the caller has them, for the nonzero test).

    >>> pts = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1)])
    >>> edges = np.array([[0, 1], [1, 2], [2, 0]])
    >>> U = np.array([[0, -1, 0], [1, 1, -1], [-1, 0, 0]])
    >>> rows_vanish_on_simplices(pts, edges, U, np.arange(3))
    True
    >>> rows_vanish_on_simplices(pts, edges, U, np.array([0, 1, 1]))    # edge 2-0 is not on x + y = 1
    False
    >>> rows_vanish_on_simplices(pts, edges, U.astype(object) * 10**30, np.arange(3))
    True
    """
    if not len(simplices):
        return True
    F, k = simplices.shape
    if U.dtype != object and pts.P64 is not None:
        if not np.all(np.any(U != 0, axis=1)):
            return False
        H, X = U[facet_of], pts.P64[simplices]  # (F, k + 1), (F, k, k + 1)
        if int(np.abs(H).max()) * pts.max_abs * (k + 1) < INT64_SAFE:
            return not np.any(np.einsum("fj,fij->fi", H, X))
        return not np.any(wrapped_dots(np.repeat(H, k, axis=0), X.reshape(F * k, -1)) != 0)
    rows = _row_tuples(U) if rows is None else rows  # Python ints
    if not all(map(any, rows)):
        return False
    U = U.astype(object)
    for lo in range(0, F, 1024):  # object products column by column, in blocks that stay in cache
        H, S = U[facet_of[lo:lo + 1024]], simplices[lo:lo + 1024]
        if any(np.any((H * pts.Pa[S[:, i]]).sum(axis=1) != 0) for i in range(k)):
            return False
    return True


def _ray_meets_once_local(pts: PreparedPoints, simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
                          inner: tuple, Uf: np.ndarray) -> bool:
    """Check 3 of :func:`certify_local` (exact): the ray from ``inner`` through the
    centroid ``c`` of one simplex meets no other simplex (``Uf``: ``U``'s scaled floats)."""
    counts = np.bincount(facet_of, minlength=len(U))
    f0 = int(np.argmin(counts))
    here = np.flatnonzero(facet_of == f0)
    c = row_sum([pts.P[i] for i in simplices[here[0]]])
    crow = np.array([c], dtype=object)
    at_c = filtered_signs(U, as_small_ints(crow), Uf, scaled_floats(crow))[:, 0]
    if at_c[f0] != 0 or np.any(np.delete(at_c, f0) >= 0):
        return False
    if np.any(matrix_signs(U[f0:f0 + 1], pts) > 0):
        return False
    return not (len(here) > 1 and _contains_point(pts, simplices[here[1:]], c, inner).any())


def inside_points(pts: PreparedPoints, simplices: np.ndarray, inner: tuple, others: np.ndarray, nrows: int,
                  negative, Uf: np.ndarray, first: np.ndarray, row_signs, report: dict | None = None):
    """Check 4 of :func:`certify_local`: ``(interior, boundary)`` flags of the points ``others``
    off the surface (exact where True; the rest go to the incidence test).

    Up to ``config.hull_inside_filter_entries`` rows x points, ``negative(idx)`` first proves
    points strictly inside every row (a one-sided float filter); the others take the cone
    test (:func:`_in_cones`, with ``Uf``, ``first`` and ``row_signs``).  ``report``
    (optional) receives the number of points left to the cone test (``"cone_points"``).
    """
    if nrows * len(others) <= config.hull_inside_filter_entries:
        interior = negative(others)
    else:
        interior = np.zeros(len(others), dtype=bool)
    boundary = np.zeros(len(others), dtype=bool)
    rest = np.flatnonzero(~interior)
    if report is not None:
        report.setdefault("cone_points", []).append(len(rest))
    interior[rest], boundary[rest] = _in_cones(pts, simplices, inner, others[rest], Uf, first, row_signs)
    return interior, boundary


def first_simplices(facet_of: np.ndarray, nrows: int) -> np.ndarray:
    """The first simplex of each row (``facet_of[s]``: the row of simplex ``s``).

    >>> first_simplices(np.array([1, 0, 1, 2]), 3).tolist()
    [1, 0, 3]
    """
    first = np.full(nrows, -1)
    first[facet_of[::-1]] = np.arange(len(facet_of))[::-1]
    return first


def _in_cones(pts: PreparedPoints, simplices: np.ndarray, inner: tuple, idx: np.ndarray, Uf: np.ndarray,
              first: np.ndarray, row_signs):
    """For points ``idx`` off the surface: ``(inside, boundary)`` flags, exact.

    ``inside[i]``: the point lies in ``conv(inner, t)`` for the simplex ``t`` tried
    (nonnegative barycentric coordinates); ``boundary[i]``: its coordinate on
    ``inner`` is zero (the point lies in ``t``).  ``t`` is guessed in floats: the
    simplex ``first[g]`` of the row ``g`` maximising ``g(x) / |g(inner)|`` (``Uf``:
    positive multiples of the outward rows in floats, a guide only).
    ``row_signs(rows, cols)``: the exact signs of the outward rows ``rows`` at the
    points ``cols`` (pairwise).
    """
    inside = np.zeros(len(idx), dtype=bool)
    boundary = np.zeros(len(idx), dtype=bool)
    if not len(idx):
        return inside, boundary
    o = PreparedPoints.of([inner])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # a guess: any float will do
        Uf = Uf / np.abs(row_products(Uf, o.F))  # g / |g(inner)|, then one global scale: float32 for the guess
        Uf = (Uf / np.abs(Uf).max()).astype(np.float32)
    Pf = pts.F[idx]
    Pf = (Pf / np.abs(Pf).max(axis=1)[:, None]).astype(np.float32)  # a positive factor per point
    row = _largest_products(Pf, Uf)
    t = first[row]
    lam_o = row_signs(row, idx)
    k = simplices.shape[1]
    # det[inner; p_1; ...; p_k] (homogeneous rows (m, w), w > 0) has the sign of (-1)^k det N,
    # N = the rows w_o m_j - w_j m_o: eliminating the last column against inner's row.  Only
    # products of two such determinants are tested, so the factor (-1)^k cancels.
    used, local = np.unique(np.concatenate([simplices[t].ravel(), idx]), return_inverse=True)
    Q = _eliminated_rows(pts, used, inner)
    S_loc, X_loc = local[:t.size * k].reshape(len(t), k), local[t.size * k:]
    D = np.zeros((len(t), k + 1), dtype=np.int64)
    step = max(1, 4 * config.predicate_cache_entries // (k + 1) ** 3)
    for lo in range(0, len(t), step):  # blocks bound the memory of the determinant stacks
        base = Q[S_loc[lo:lo + step]]  # (block, k, k)
        stack = np.repeat(base[:, None], k + 1, axis=1)  # variant k: the simplex itself
        for i in range(k):
            stack[:, i, i] = Q[X_loc[lo:lo + step]]
        D[lo:lo + step] = small_determinant_signs(stack.reshape(-1, k, k)).reshape(len(base), k + 1)
    inside = (lam_o <= 0) & np.all(D[:, :k] * D[:, k:] >= 0, axis=1) & (D[:, k] != 0)
    boundary = lam_o == 0
    return inside, boundary


def _largest_products(A: np.ndarray, B: np.ndarray, width: int = 512) -> np.ndarray:
    """``argmax(A @ B.T, axis=1)`` for float rows (a guess only), in bounded blocks and on one
    thread: one stacked product of ``A``'s block with slices of ``width`` rows of ``B``, each
    small enough that BLAS does not start threads (which spin on a loaded machine).  ``B`` is
    padded with copies of its first row; should one win (its product rounded otherwise), it
    stands for the first row.

    >>> _largest_products(np.array([[1., 0.], [0., 1.]]), np.array([[1., 2.], [3., 1.], [0., 5.]]), 2).tolist()
    [1, 2]
    """
    width = min(width, len(B))
    nb = -(-len(B) // width)
    pad = np.concatenate([B, np.repeat(B[:1], nb * width - len(B), axis=0)])
    C = np.ascontiguousarray(pad.reshape(nb, width, -1).transpose(0, 2, 1))  # (nb, n, width)
    step = max(1, config.predicate_block_entries // 4 // (nb * width))
    out = [np.argmax(np.matmul(A[lo:lo + step][None], C).transpose(1, 0, 2).reshape(-1, nb * width), axis=1)
           for lo in range(0, len(A), step)]
    out = np.concatenate(out)
    out[out >= len(B)] = 0
    return out


def _eliminated_rows(pts: PreparedPoints, used: np.ndarray, inner: tuple) -> np.ndarray:
    """The rows ``w_o m_j - w_j m_o`` (all columns but the last) of points ``used``
    against the homogeneous point ``inner = (m_o, w_o)``: int64 when a bound allows."""
    o = list(inner)
    wo, mo = o[-1], o[:-1]
    bound = (abs(wo) + max(map(abs, mo), default=0)) * pts.max_abs
    if pts.P64 is not None and bound < INT64_SAFE:
        P = pts.P64[used]
        return wo * P[:, :-1] - P[:, -1:] * np.array(mo, dtype=np.int64)
    P = pts.Pa[used]
    return as_small_ints(wo * P[:, :-1] - P[:, -1:] * np.array(mo, dtype=object))


def _star_vertices(A: np.ndarray, star_f: np.ndarray, star_p: np.ndarray, n: int, k: int,
                   Uf: np.ndarray, proved: np.ndarray | None = None) -> np.ndarray:
    """Points proved to be vertices (``A``: the normals of the rows, all columns but the
    last, int64 when they fit): ``k`` rows through the point (from the simplices
    holding it) whose normals (all columns but the last) are independent (a nonzero
    ``k x k`` determinant, exact).  ``proved`` (optional): points the caller has
    already proved so (:func:`_ridge_vertices`); only the others are tried.  The ``k``
    rows are first taken spread over the point's rows; where they are dependent,
    chosen greedily in floats (the row farthest from the span of those already
    chosen).  The choice only guides the exact test.
    """
    out = np.zeros(n, dtype=bool) if proved is None else proved.copy()
    if proved is not None and proved[star_p].all():
        return out
    key = np.sort(star_p.astype(np.int64) * len(A) + star_f)
    key = key[np.r_[True, key[1:] != key[:-1]]]  # distinct (point, row) pairs
    p, f = key // len(A), key % len(A)
    counts = np.bincount(p, minlength=n)
    ok = np.flatnonzero((counts >= k) & ~out)
    if not len(ok):
        return out
    starts = np.searchsorted(p, ok)
    pick = f[starts[:, None] + (np.arange(k)[None, :] * counts[ok][:, None]) // k]  # distinct rows
    proved = _independent_normals(A, pick)
    out[ok] = proved
    miss = np.flatnonzero(~proved)
    if not len(miss):
        return out
    ok, starts = ok[miss], starts[miss]
    width = min(int(counts[ok].max()), 4 * k)  # a few rows suffice; a miss is only tested in full
    slot = starts[:, None] + np.arange(width)
    valid = np.arange(width)[None, :] < np.minimum(counts[ok], width)[:, None]
    rows = np.where(valid, f[np.minimum(slot, len(f) - 1)], 0)  # (vertices, width)
    W = Uf[rows, :-1]  # only the rows of the misses, normalised
    R = np.where(valid[:, :, None], W / np.linalg.norm(W, axis=2)[:, :, None], 0.0)
    pick = np.zeros((len(ok), k), dtype=np.intp)
    at = np.arange(len(ok))
    for i in range(k):
        j = np.argmax(np.einsum("vwd,vwd->vw", R, R), axis=1)
        pick[:, i] = rows[at, j]
        q = R[at, j] / np.maximum(np.linalg.norm(R[at, j], axis=1), 1e-300)[:, None]
        R = R - np.einsum("vwd,vd->vw", R, q)[:, :, None] * q[:, None, :]
    out[ok] = _independent_normals(A, pick)
    return out


def _ridge_vertices(A: np.ndarray, S: np.ndarray, facet_of: np.ndarray, pairs: tuple, n: int) -> np.ndarray:
    """Points proved to be vertices by the rows around one simplex holding them (exact).

    ``S``: the simplices, each sorted; ``pairs``: the two sides of every ridge
    (:func:`_ridge_pairs`).  For a point ``v`` of simplex ``s`` the ``k - 1`` ridges of
    ``s`` through ``v`` each lie in one other simplex; the rows of ``s`` and of those
    neighbours all hold ``v``, and when their normals (``A``) are independent (a nonzero
    ``k x k`` determinant, :func:`_independent_normals`) they meet in ``v`` alone.  When
    every ridge ``r`` through ``v`` is bent (the neighbour's row differs from ``s``'s: distinct
    primitive outward rows are distinct hyperplanes) no determinant is needed: the two rows
    meet exactly in ``aff(r)``, and the ``k - 1`` facets of the simplex ``s`` through ``v``
    meet in ``v`` alone, so the ``k`` hyperplanes do too.

    >>> S = np.array([[0, 1], [1, 2], [0, 2]])               # a triangle's edges (k = 2)
    >>> pairs = _ridge_pairs(S, 3)                           # its three vertices, each in two edges
    >>> A = np.array([[0, -1], [1, 1], [-1, 0]])
    >>> _ridge_vertices(A, S, np.arange(3), pairs, 3).tolist()           # every vertex: no determinant
    [True, True, True]
    >>> _ridge_vertices(A, S, np.array([0, 0, 1]), pairs, 3).tolist()    # edges 0, 1 on one row: 1 is flat
    [True, False, True]
    """
    F, k = S.shape
    a, b = pairs
    partner = np.empty(k * F, dtype=np.intp)
    partner[a], partner[b] = b, a  # ridge row j * F + s: simplex s without its j-th smallest vertex
    own = np.full(n, -1, dtype=np.intp)
    own[S.ravel()[::-1]] = np.arange(k * F)[::-1] // k  # one simplex holding each point
    v = np.flatnonzero(own >= 0)
    s = own[v]
    jv = np.argmax(S[s] == v[:, None], axis=1)  # v's place in s
    J = np.arange(k - 1)[None, :]
    J = J + (J >= jv[:, None])  # the k - 1 ridges of s through v
    pick = np.concatenate([facet_of[s][:, None], facet_of[partner[J * F + s[:, None]] % F]], axis=1)
    bent = np.all(pick[:, 1:] != pick[:, :1], axis=1)  # every ridge through v bent: proved, no determinant
    out = np.zeros(n, dtype=bool)
    out[v[bent]] = True
    out[v[~bent]] = _independent_normals(A, pick[~bent])
    return out


def _independent_normals(A: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """For each row of ``pick`` (k row indices): are those normals (rows of ``A``)
    linearly independent?  Exact (a k x k determinant)."""
    M = A[pick]
    k = M.shape[1]
    exact64 = M.dtype != object and (int(np.abs(M).max(initial=0)) * k) ** k < INT64_SAFE
    return (determinant_signs(M, True) if exact64 else small_determinant_signs(M)) != 0
