"""Certified Minkowski sums: one summand at a time, facets checked against the summands separately.

A vertex of ``P + Q`` is a sum of a vertex of ``P`` and a vertex of ``Q``, so
:func:`minkowski_hull` adds the summands one at a time and prunes each partial sum to its
vertices (docs/ALGORITHMS.md §5).  A hyperplane supports ``conv(A) + conv(B)`` iff it
supports ``A`` and ``B`` separately, so each candidate facet Qhull proposes for the float
sums is checked against the ``|A| + |B|`` summand points rather than the ``|A| |B|`` sums
(:func:`certified_sum_hull`); the surface certificate of :mod:`tropattn.exact._hull`
proves that no facet is missing.  Tiny or lower-dimensional partial sums take the hull of
all pairwise sums instead.  The sizes at which the strategies switch are the knobs
``tropattn.config.minkowski_small_sum`` and ``tropattn.config.minkowski_prefilter_pairs``.

>>> square = [(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
>>> segment = [(0, 0, 1), (1, 1, 1)]
>>> len(minkowski_hull([(square, (), None), (segment, ((1, -1), 0), None)]).vertices)   # a hexagon
6
"""

from __future__ import annotations


import numpy as np

from .._config import config
from ._counters import record
from ._hull import (QHULL_OPTIONS, Hull, certified_hull, independent_rows, meets_alone, normalise_rows,
                    qhull_simplices, row_sum, simplex_normals, surface_certified, unique_rows)
from ._linalg import rank
from ._numbers import primitive_row
from ._predicates import INT64_SAFE, PreparedPoints, as_small_ints, dense_signs, matrix_signs, scaled_floats

__all__ = ["minkowski_hull", "certified_sum_hull", "pairwise_sums"]


def minkowski_hull(summands) -> Hull:
    """The certified hull of ``P_1 + P_2 + ...``, each summand given by its vertices.

    The summands are added one at a time and each partial sum is pruned to its vertices.
    When a partial sum is full-dimensional and has more than
    ``tropattn.config.minkowski_small_sum`` vertex pairs with the next summand, its facets
    are certified against the two summands separately (:func:`certified_sum_hull`);
    otherwise (or if that certificate fails) the certified hull of all pairwise sums is
    taken.  Either way the answer is exact.

    Parameters
    ----------
    summands : sequence of (vertices, equations, facets), at least two
        For each summand: its vertices as primitive homogeneous integer rows
        ``(num_1, ..., num_n, den)``; the equations ``(normal, offset)`` of its affine hull
        (empty when it is full-dimensional); and, when full-dimensional, its facets as
        integer rows ``(a, b)`` meaning ``a . x + b <= 0`` (only a hint for a float
        pre-filter; None for none).

    Returns
    -------
    Hull
        The hull of the sum, ``G`` holding (at least) its vertex sums.

    Examples
    --------
    The unit square plus the triangle (0, 0), (1, 1), (0, 1) is a pentagon:

    >>> square = [(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
    >>> triangle = [(0, 0, 1), (1, 1, 1), (0, 1, 1)]
    >>> H = minkowski_hull([(square, (), None), (triangle, (), None)])
    >>> len(H.facets), sorted(H.G[i] for i in H.vertices)
    (5, [(0, 0, 1), (0, 2, 1), (1, 0, 1), (2, 1, 1), (2, 2, 1)])
    """
    G, eqs, facets = summands[0]
    n = len(G[0]) - 1
    hull = None
    for H, eqs_h, facets_h in summands[1:]:
        hull = None
        if len(G) * len(H) > config.minkowski_small_sum and _full_dimensional_sum(eqs, eqs_h, n):
            hull = certified_sum_hull(PreparedPoints.of(G), PreparedPoints.of(H), facets, facets_h)
        if hull is None:
            hull = certified_hull(pairwise_sums(G, H))
        G = [hull.G[i] for i in hull.vertices]
        eqs, facets = hull.equations, hull
    return hull


def _full_dimensional_sum(eqs_p, eqs_q, n: int) -> bool:
    """Whether ``P + Q`` is full-dimensional (n >= 2), from the equations of P and Q.

    The normal space of ``P + Q`` is the intersection of those of P and Q; it is zero
    iff the two bases of equation normals are together independent.
    """
    if n < 2:
        return False
    if not eqs_p or not eqs_q:
        return True
    E = [list(e) for e, _ in eqs_p] + [list(e) for e, _ in eqs_q]
    return rank(E) == len(E)


def certified_sum_hull(A: PreparedPoints, B: PreparedPoints, facets_a=None, facets_b=None, cone_pairs=None):
    """Certified facets and vertices of a full-dimensional ``conv(A) + conv(B)``, or None.

    Qhull triangulates float sums ``a + b``; the hyperplane of each simplex is
    rebuilt exactly from the exact sums at its corners only.  It supports ``A + B``
    iff it supports ``A`` and ``B`` separately at the two halves ``a0, b0`` of one
    corner ``a0 + b0``: the maximum of ``h`` over the sums is ``max_A h + max_B h``.
    So the exact sign test runs over ``|A| + |B|`` points rather than ``|A| |B|``,
    and it certifies the hull of *all* sums.  The sums on the facet are exactly
    ``Z_A x Z_B`` (the zeros on each side), so a sum ``a + b`` is a vertex iff the
    facets through it meet in ``{a} x {b}`` alone (this also rejects sums that
    coincide with another pair's sum).  Ridge closure and coverage of degenerate
    simplices are checked as in :func:`tropattn.exact._hull.certify_boundary`.

    Because the certificate covers every pair, Qhull may be given fewer sums: when
    the facets of both summands are known and there are more than
    ``tropattn.config.minkowski_prefilter_pairs`` pairs, only pairs whose normal cones
    may meet (:func:`_cone_pairs`, a float filter) are passed first; if that run is not
    certified, all pairs are.

    Parameters
    ----------
    A, B : PreparedPoints
        Homogeneous points of the two summands, shape (a, n + 1) and (b, n + 1).
    facets_a, facets_b : Hull, sequence of integer rows, or None, optional
        The facets of each summand, full-dimensional: a :class:`Hull` (its rows and exact
        incidence) or integer rows ``(a, b)`` meaning ``a . x + b <= 0``; only their float
        images are used, as a hint for the pre-filter (floats decide nothing).
    cone_pairs : callable, optional
        The pre-filter, ``cone_pairs(XA, floats_a, XB, floats_b) -> pair indices``
        (default :func:`_cone_pairs`; a test passes one that drops pairs).

    Returns
    -------
    Hull or None
        The sum's hull with ``G`` = its vertex sums (homogeneous, primitive),
        outward facet rows and incidence; None when the certificate fails (the
        caller then takes the hull of all pairwise sums).

    Examples
    --------
    A unit square plus the triangle (0, 0), (1, 1), (0, 1) is a pentagon:

    >>> square = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)])
    >>> triangle = PreparedPoints.of([(0, 0, 1), (1, 1, 1), (0, 1, 1)])
    >>> H = certified_sum_hull(square, triangle)
    >>> len(H.facets), sorted(H.G)
    (5, [(0, 0, 1), (0, 2, 1), (1, 0, 1), (2, 1, 1), (2, 2, 1)])
    """
    nA, nB = len(A.P), len(B.P)
    everything = np.arange(nA * nB)
    tries = [everything]
    if facets_a is not None and facets_b is not None and nA * nB > config.minkowski_prefilter_pairs:
        floats_a, floats_b = _facet_floats(facets_a), _facet_floats(facets_b)
        if floats_a is not None and floats_b is not None:
            pairs = (cone_pairs or _cone_pairs)(A.X, floats_a, B.X, floats_b)
            if len(pairs) < len(everything):
                tries.insert(0, pairs)
    inner = _interior_sum(A, B)
    for pairs in tries:
        X = A.X[pairs // nB] + B.X[pairs % nB]
        for options in QHULL_OPTIONS:
            run = qhull_simplices(X, options)
            if run is None:
                continue
            simplices, planes = run
            out = _certify_sum(A, B, pairs[simplices], inner, _coplanar_groups(planes))
            if out is None:
                out = _certify_sum(A, B, pairs[simplices], inner)
            if out is not None:
                record("certified")
                return out
    return None


def _facet_floats(facets):
    """Float facet normals and offsets ``(N, c)`` (``N x <= c``) of a full-dimensional summand,
    for the pre-filter of :func:`certified_sum_hull`: from a :class:`Hull` (with its exact
    (vertex, facet) pairs as a third entry) or from integer rows ``(a, b)``; None when there
    are none, the hull is lower-dimensional, or the rows are too large for floats."""
    is_hull = isinstance(facets, Hull)
    if is_hull and facets.equations:
        return None
    rows = facets.facets if is_hull else facets
    if not len(rows):
        return None
    try:
        H = np.array(rows, dtype=float)
    except OverflowError:
        return None
    if not np.all(np.isfinite(H)):
        return None
    if not is_hull:
        return H[:, :-1], -H[:, -1]
    return H[:, :-1], -H[:, -1], _vertex_incidence(facets)


def _vertex_incidence(hull):
    """The exact (vertex, facet) pairs of a Hull, vertices numbered in ``hull.vertices`` order."""
    where = np.full(len(hull.G), -1)
    where[list(hull.vertices)] = np.arange(len(hull.vertices))
    if isinstance(hull.incidence, np.ndarray):  # boolean (facets, points): facet-major pairs directly
        f, i = np.nonzero(hull.incidence)
        v = where[i]
    else:
        f = np.repeat(np.arange(len(hull.facets)), [len(p) for p in hull.facet_points])
        v = where[np.fromiter((i for p in hull.facet_points for i in p), dtype=np.intp, count=len(f))]
    keep = v >= 0
    return v[keep], f[keep]


def _interior_sum(A: PreparedPoints, B: PreparedPoints) -> tuple:
    """A homogeneous point in the interior of a full-dimensional ``conv(A) + conv(B)``.

    The weighted centroid of an affinely independent spanning subset of each summand
    lies in its relative interior, and the relative interior of a Minkowski sum is the
    sum of the relative interiors.
    """
    a, b = (row_sum([X.P[i] for i in independent_rows(X.P)[0]]) for X in (A, B))
    return primitive_row([x * b[-1] + y * a[-1] for x, y in zip(a[:-1], b[:-1])] + [a[-1] * b[-1]])


def _cone_pairs(XA, facets_a, XB, facets_b) -> np.ndarray:
    """Indices ``i * |B| + j`` of the vertex pairs whose normal cones may intersect (floats).

    ``a_i + b_j`` is a vertex of ``A + B`` only if the normal cones of ``a_i`` and
    ``b_j`` share an interior direction.  Each cone is enclosed in a spherical cap
    (centre: the mean of its unit facet normals; radius: the largest angle to one of
    them), and pairs whose caps are disjoint are left out.  Only a filter: the hull
    is certified on all pairs either way.
    """
    ca, ra = _normal_caps(XA, *facets_a)
    cb, rb = _normal_caps(XB, *facets_b)
    angle = np.arccos(np.clip(ca @ cb.T, -1.0, 1.0))
    return np.flatnonzero(angle <= ra[:, None] + rb[None, :] + 1e-6)


def _normal_caps(X, N, c, incidence=None):
    """Centre and angular radius of a cap around each vertex's normal cone (radius pi: no cap).

    ``incidence`` (optional): the exact (vertex, facet) pairs as two index arrays;
    otherwise vertices on facets are found in floats (a dense vertices x facets test).
    """
    norm = np.linalg.norm(N, axis=1)
    U = N / norm[:, None]
    if incidence is None:
        off = c / norm
        tol = 1e-9 * (1.0 + np.abs(X).max() + np.abs(off).max())
        v, f = np.nonzero(np.abs(X @ U.T - off) <= tol)
    else:
        v, f = incidence
    centre = np.zeros((len(X), U.shape[1]))
    np.add.at(centre, v, U[f])
    length = np.linalg.norm(centre, axis=1)
    centre = centre / np.where(length > 0, length, 1.0)[:, None]
    cos = np.ones(len(X))
    np.minimum.at(cos, v, np.einsum("ij,ij->i", centre[v], U[f]))
    radius = np.arccos(np.clip(cos, -1.0, 1.0))
    bad = (np.bincount(v, minlength=len(X)) < X.shape[1]) | (length < 1e-9) | (radius > np.pi / 2 - 1e-3)
    radius[bad] = np.pi
    return centre, radius


def _coplanar_groups(planes: np.ndarray) -> np.ndarray:
    """Labels grouping simplices whose float hyperplanes (Qhull's) look equal: only a
    hint for which exact normals to compute (see :func:`_certify_sum`)."""
    U = planes[:, :-1] / np.linalg.norm(planes[:, :-1], axis=1)[:, None]
    key = np.round(U, 6) @ np.sqrt(np.arange(2, U.shape[1] + 2))  # one float per direction
    return np.unique(key, return_inverse=True)[1].reshape(-1)


def _certify_sum(A: PreparedPoints, B: PreparedPoints, simplices: np.ndarray, inner: tuple, groups=None):
    """The exact check of :func:`certified_sum_hull` for one triangulation (None if it fails).

    Exact normals are computed for one simplex per group (default: every simplex);
    then every simplex must lie in the zero set of a certified supporting hyperplane
    (its group's, or failing that any): a non-degenerate simplex there spans that
    facet's hyperplane, a degenerate one is covered by it.  Finally the simplices
    must pass :func:`surface_certified` (``inner``: a point inside ``A + B``), which
    proves that no facet is missing.
    """
    nB = len(B.P)
    used, local = np.unique(simplices, return_inverse=True)
    local = local.reshape(simplices.shape)
    ia, ib = used // nB, used % nB
    sums = PreparedPoints.of(_sum_rows(A, B, ia, ib))
    every = groups is None
    if every:
        groups = np.arange(len(simplices))
    _, reps, group_of = np.unique(groups, return_index=True, return_inverse=True)
    raw = simplex_normals(sums, local[reps])
    H = normalise_rows(raw)
    live = np.any(H != 0, axis=1)
    uniq, first, inverse = unique_rows(H[live])
    if len(uniq) == 0:
        return None
    corner = local[reps[live][first], 0]
    SA = _support_signs(uniq, A, ia[corner])
    SB = _support_signs(uniq, B, ib[corner])
    pos = (SA.max(axis=1) > 0) | (SB.max(axis=1) > 0)
    neg = (SA.min(axis=1) < 0) | (SB.min(axis=1) < 0)
    if np.any(pos == neg):  # both signs (not supporting) or none (cannot happen full-dim)
        return None
    uniq[pos] = -uniq[pos]
    ZA, ZB = SA == 0, SB == 0
    on = (np.ascontiguousarray(ZA.T)[ia] & np.ascontiguousarray(ZB.T)[ib]).T  # (facets, used sums); rows gathered
    facet = np.full(len(reps), -1)
    facet[live] = inverse
    facet = facet[group_of.reshape(-1)]
    inside = facet >= 0
    inside[inside] = on[facet[inside][:, None], local[inside]].all(axis=1)
    for s in np.flatnonzero(~inside):
        holds = np.flatnonzero(on[:, local[s]].all(axis=1))
        if not len(holds):
            return None
        facet[s] = holds[0]
    if not surface_certified(sums, local, uniq, on, facet, inner, raw if every else None):
        return None
    nA = ZA.shape[1]
    verts = np.nonzero(meets_alone(on, np.hstack([ZA, ZB]), np.stack([ia, nA + ib], axis=1)))[0]
    n = A.Pa.shape[1] - 1
    return Hull(tuple(sums.P[u] for u in verts), n, tuple(range(n)), (),
                 tuple(map(tuple, uniq.tolist())), on[:, verts],
                 tuple(range(len(verts))))


def _sum_rows(A: PreparedPoints, B: PreparedPoints, ia: np.ndarray, ib: np.ndarray):
    """Primitive homogeneous rows of ``A[ia[i]] + B[ib[i]]``: an int64 array when the
    bound ``2 max|A| max|B| < 2^62`` proves int64 exact, else a list of int tuples."""
    if A.P64 is not None and B.P64 is not None and 2 * A.max_abs * B.max_abs < INT64_SAFE:
        a, b = A.P64[ia], B.P64[ib]
    else:
        a, b = A.Pa[ia], B.Pa[ib]
    da, db = a[:, -1], b[:, -1]
    g = np.gcd(da, db)
    fa, fb = db // g, da // g
    rows = np.concatenate([a[:, :-1] * fa[:, None] + b[:, :-1] * fb[:, None], (da * fa)[:, None]], axis=1)
    rows = rows // np.gcd.reduce(rows, axis=1)[:, None]
    return rows if rows.dtype == np.int64 else list(map(tuple, rows.tolist()))


def _support_signs(normals: np.ndarray, pts: PreparedPoints, corner: np.ndarray) -> np.ndarray:
    """Exact ``sign(h_f . (x - x_f))`` for every normal ``h_f = (a, b)`` and point ``x``.

    ``x_f = pts[corner[f]]``.  With homogeneous points ``x = (m, d)`` the sign is that
    of ``(d_f a) . m - (a . m_f) d``, a dot product of integer rows; it is zero at the
    corner itself by construction (no exact test there).
    """
    a = normals[:, :-1]
    base = pts.Pa[corner] if pts.P64 is None else pts.P64[corner]
    if a.dtype == object or base.dtype == object or (
            max(int(a.max()), -int(a.min())) * pts.max_abs * a.shape[1] >= INT64_SAFE):
        a, base = a.astype(object), base.astype(object)
    rows = as_small_ints(np.concatenate([a * base[:, -1:], -(a * base[:, :-1]).sum(axis=1)[:, None]], axis=1))
    if rows.dtype != object and pts.P64 is not None:
        return matrix_signs(rows, pts)
    return dense_signs(rows, pts.Pa if pts.P64 is None else pts.P64, scaled_floats(rows), pts.F,
                       (np.arange(len(rows)), np.asarray(corner)))  # row f vanishes at its corner


def pairwise_sums(G, H) -> list:
    """Distinct homogeneous rows of all sums ``p + q`` (vectorised over object ints).

    Parameters
    ----------
    G : sequence of tuple of int, shape (a, n + 1)
        Homogeneous points ``(num, den)``, ``den > 0``.
    H : sequence of tuple of int, shape (b, n + 1)
        Homogeneous points of the same dimension.

    Returns
    -------
    list of tuple of int
        The primitive rows of the sums ``G[i] + H[j]`` (as points), first
        occurrences in the order ``i``-major, duplicates dropped.

    Examples
    --------
    ``{0, 1} + {0, 1/2}`` on the line:

    >>> pairwise_sums([(0, 1), (1, 1)], [(0, 1), (1, 2)])
    [(0, 1), (1, 2), (1, 1), (3, 2)]
    """
    A = np.array(G, dtype=object)
    B = np.array(H, dtype=object)
    da, db = A[:, -1], B[:, -1]
    g = np.gcd(da[:, None], db[None, :])
    fa, fb = db[None, :] // g, da[:, None] // g
    nums = A[:, None, :-1] * fa[:, :, None] + B[None, :, :-1] * fb[:, :, None]
    den = da[:, None] * fa
    rows = np.concatenate([nums, den[:, :, None]], axis=2).reshape(-1, A.shape[1])
    g = np.gcd.reduce(rows, axis=1)
    rows = rows // g[:, None]
    return list(dict.fromkeys(map(tuple, rows.tolist())))
