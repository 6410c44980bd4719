"""Certified upper hulls of lifted points: the planar kernel and the simplicial kernel.

For points ``(a_j, b_j)`` lifted over ``R^2`` (:func:`certified_upper_facets_2d`) and over
``R^d``, ``d >= 3`` (:func:`certified_upper_simplices`), Qhull proposes the upper facets
and integer arithmetic certifies them: exact planes, a consistently oriented surface
that tiles ``conv{a_j}`` once, local concavity, and every other point on or below.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .hull import qhull_simplices
from .linalg import maximal_minors
from .predicates import determinant_signs, dot_signs


__all__ = ["cross2", "hull_2d", "PlanarUpperHull", "SimplicialUpperHull", "certified_upper_facets_2d",
           "certified_upper_simplices"]


class PlanarUpperHull(NamedTuple):
    """The certified upper facets of points lifted over the plane (:func:`certified_upper_facets_2d`).

    ``planes`` (F x 4 object array): the exact plane ``nx X + ny Y + nb Z + e = 0`` of each facet;
    ``cycles``: the ccw corners of merged (non-triangular) facets, ``{f: [i, ...]}``, every other
    facet ``f`` being the triangle ``tri[f]`` (ccw); ``eu[t] -> ev[t]``: the facet edges (ccw on
    facet ``ef[t]``; ``eg[t]`` the facet across, or -1 on the boundary of ``conv{a_j}``).
    """

    planes: np.ndarray
    cycles: dict
    eu: np.ndarray
    ev: np.ndarray
    ef: np.ndarray
    eg: np.ndarray
    tri: np.ndarray


class SimplicialUpperHull(NamedTuple):
    """The certified simplicial upper hull over ``R^d`` (:func:`certified_upper_simplices`).

    ``simplices``: vertex-index lists; ``planes``: their primitive hyperplanes
    ``(n_1, ..., n_{d+1}, e)``; ``boundary``: the boundary ridges with the outward normal in
    ``R^d`` of the facet of ``conv{a_j}`` they lie on.
    """

    simplices: list
    planes: list
    boundary: list


def cross2(o, p, q):
    """The exact cross product ``(p - o) x (q - o)`` of points in the plane.

    Parameters
    ----------
    o, p, q : pairs of int (or Fractions)

    Returns
    -------
    int
        Positive for a left turn ``o -> p -> q``, zero when the three are collinear.

    Examples
    --------
    >>> cross2((0, 0), (1, 0), (0, 1)), cross2((0, 0), (1, 1), (2, 2))
    (1, 0)
    """
    return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])


def hull_2d(points):
    """Indices of the strict convex hull of integer points (counter-clockwise), exact.

    Parameters
    ----------
    points : sequence of pairs of int

    Returns
    -------
    list of int
        The indices of the strict corners, counter-clockwise; collinear points are dropped.

    Examples
    --------
    >>> hull_2d([(0, 0), (2, 0), (1, 0), (2, 2), (0, 2), (1, 1)])
    [0, 1, 3, 4]
    """
    order = sorted(range(len(points)), key=lambda i: points[i])
    if len(order) < 3:
        return order

    def chain(seq):
        h = []
        for i in seq:
            while len(h) >= 2 and cross2(points[h[-2]], points[h[-1]], points[i]) <= 0:
                h.pop()
            h.append(i)
        return h

    lower, upper = chain(order), chain(order[::-1])
    return lower[:-1] + upper[:-1]


def _pair_edges(a, b, n):
    """Match directed edges ``a[t] -> b[t]`` into opposite pairs, or None.

    Returns ``(first, second, single)``: index arrays with ``a[first] == b[second]`` and
    ``b[first] == a[second]`` (an interior edge, traversed once each way), and the indices of
    edges met once (boundary edges).  None if an edge is met more than twice or twice in the
    same direction.
    """
    key = np.minimum(a, b) * n + np.maximum(a, b)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    new = np.ones(len(ks), dtype=bool)
    new[1:] = ks[1:] != ks[:-1]
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, len(ks)))
    if counts.max(initial=0) > 2:
        return None
    first, second = order[starts[counts == 2]], order[starts[counts == 2] + 1]
    if np.any(a[first] != b[second]) or np.any(b[first] != a[second]):
        return None
    return first, second, order[starts[counts == 1]]


def _exact_planes(pts, T):
    """Exact planes ``nx X + ny Y + nb Z + e = 0`` of the triangles ``T`` (object arrays).

    ``T`` is reordered in place to be counter-clockwise in the projection, so ``nb > 0``
    (twice the projected area); returns None if some triangle is vertical (``nb = 0``).
    """
    p0, p1, p2 = pts[T[:, 0]], pts[T[:, 1]], pts[T[:, 2]]
    u, v = p1 - p0, p2 - p0
    nb = u[:, 0] * v[:, 1] - u[:, 1] * v[:, 0]
    if np.any(nb == 0):
        return None
    neg = nb < 0
    if neg.any():
        T[neg, 1], T[neg, 2] = T[neg, 2].copy(), T[neg, 1].copy()
        u[neg], v[neg] = v[neg], u[neg]
        nb[neg] = -nb[neg]
    nx = u[:, 1] * v[:, 2] - u[:, 2] * v[:, 1]
    ny = u[:, 2] * v[:, 0] - u[:, 0] * v[:, 2]
    e = -(nx * p0[:, 0] + ny * p0[:, 1] + nb * p0[:, 2])
    return np.stack([nx, ny, nb, e], axis=1)


def certified_upper_facets_2d(P):
    """Certified upper facets of the lifted integer points P (n x 3, distinct projections), or None.

    Qhull proposes the upper triangles; then, exactly (Python integers, vectorised):

    1. each triangle's plane ``nx X + ny Y + nb Z + e = 0`` is rebuilt from integer coordinates,
       with the triangle turned counter-clockwise in the projection so that ``nb > 0``;
    2. the triangles form a consistently oriented surface: every edge lies on two triangles in
       opposite directions, or on one triangle and then on a line with every point on its inner
       side (an edge of ``conv{a_j}``), and no point starts two such boundary edges -- so the
       boundary runs once around ``conv{a_j}`` and the triangles tile it exactly once;
    3. the surface is locally concave: across every interior edge ``i -> k`` of triangle ``f``
       the opposite vertex of the other triangle ``g`` lies on or below ``f``'s plane (this value
       is the determinant of the four points, the same seen from ``g``); so it is the graph of a
       concave function ``psi = min_F plane_F`` and every triangle lies in a face of the upper
       hull.  Edges with the vertex *on* the plane are flat: their triangles merge into one
       facet, whose polygon is the exact convex hull of their vertices;
    4. every other point lies on or below ``psi``: in the projection of a triangle (found in
       floats) and on or below its plane, checked exactly; else below every plane
       (:func:`tropattn.dot_signs`).

    Returns ``(planes, cycles, eu, ev, ef, eg, tri)``: ``planes`` (F x 4 object array) per
    facet; ``cycles`` the corners (ccw) of the merged facets, ``{f: [i, ...]}``, every other
    facet ``f`` being the triangle ``tri[f]`` (ccw); and the facet edges ``eu[t] -> ev[t]`` (ccw
    on facet ``ef[t]``, ``eg[t]`` the facet across or -1 on the boundary of ``conv{a_j}``).
    Points too large for floats give None (the LPs decide).

    Parameters
    ----------
    P : sequence of (X, Y, Z) triples of int
        Lifted points with distinct projections ``(X, Y)``.

    Returns
    -------
    PlanarUpperHull or None
        None when Qhull fails or a check does not hold (the caller then uses the general hull).

    Examples
    --------
    >>> hull = certified_upper_facets_2d([(0, 0, 0), (2, 0, 0), (0, 2, 0), (2, 2, 1)])
    >>> len(hull.planes), sorted(sorted(t) for t in hull.tri.tolist())
    (2, [[0, 1, 3], [0, 2, 3]])
    """
    n = len(P)
    pts = np.empty((n, 3), dtype=object)
    pts[:] = P
    try:
        flt = pts.astype(float)
    except OverflowError:
        return _one_face(pts)
    run = qhull_simplices(flt)
    if run is None:                                   # Qhull refuses flat input: one face, or the general hull
        return _one_face(pts)
    simplices, equations = run
    T = simplices[equations[:, 2] > 0].astype(np.int64)  # a proposal: certified below
    if len(T) == 0:
        return _one_face(pts)
    planes = _exact_planes(pts, T)                                    # 1.
    if planes is None:
        return None
    m = len(T)
    a = np.concatenate([T[:, 0], T[:, 1], T[:, 2]])                   # 2. directed edges a -> b
    b = np.concatenate([T[:, 1], T[:, 2], T[:, 0]])
    opp = np.concatenate([T[:, 2], T[:, 0], T[:, 1]])
    tri = np.tile(np.arange(m), 3)
    paired = _pair_edges(a, b, n)
    if paired is None:
        return None
    first, second, single = paired
    if not _boundary_ok(pts, a[single], b[single]):
        return None
    pl, q = planes[tri[first]], pts[opp[second]]                      # 3. local concavity
    side = pl[:, 0] * q[:, 0] + pl[:, 1] * q[:, 1] + pl[:, 2] * q[:, 2] + pl[:, 3]
    if np.any(side > 0):
        return None
    flat = side == 0
    if not _rest_below(pts, flt, T, planes):                         # 4.
        return None
    if not flat.any():
        g = np.full(len(a), -1, dtype=np.int64)
        g[first], g[second] = tri[second], tri[first]
        return PlanarUpperHull(planes, {}, a, b, tri, g, T)
    return _merge_flat(pts, planes, T, tri[first[flat]], tri[second[flat]])


def _one_face(pts):
    """The upper hull when every lifted point lies on one plane (Qhull cannot hull a flat set), or None.

    Exact: the strict hull of the projections (:func:`hull_2d`) gives the corners; the plane
    through three of them must hold every point.  The one facet is the polygon of the
    corners, its edges the consecutive corners, all on the boundary of ``conv{a_j}``.
    """
    corners = hull_2d([(x, y) for x, y in pts[:, :2].tolist()])
    if len(corners) < 3:
        return None
    T = np.array([corners[:3]], dtype=np.int64)
    planes = _exact_planes(pts, T)
    if planes is None:
        return None
    a, b, c, e = planes[0]
    if any(a * x + b * y + c * z + e != 0 for x, y, z in pts.tolist()):
        return None
    m = len(corners)
    eu = np.array(corners, dtype=np.int64)
    return PlanarUpperHull(planes, {0: list(corners)}, eu, np.roll(eu, -1), np.zeros(m, dtype=np.int64),
                           np.full(m, -1, dtype=np.int64), T)


def _boundary_ok(pts, a, b) -> bool:
    """Boundary edges ``a -> b`` (ccw) run once around ``conv``: all points on their inner side."""
    if len(a) < 3 or len(np.unique(a)) != len(a):
        return False
    ax, ay, bx, by = pts[a, 0], pts[a, 1], pts[b, 0], pts[b, 1]
    gx, gy = by - ay, ax - bx
    lines = list(zip(gx.tolist(), gy.tolist(), (-(gx * ax + gy * ay)).tolist()))
    return dot_signs(lines, [(x, y, 1) for x, y in pts[:, :2].tolist()]).max() <= 0


def _rest_below(pts, flt, T, planes) -> bool:
    """Every point that is no triangle vertex lies on or below the surface (step 4)."""
    mask = np.ones(len(pts), dtype=bool)
    mask[T.ravel()] = False
    rest = np.flatnonzero(mask)
    if len(rest) == 0:
        return True
    from scipy.spatial import cKDTree

    # a float guess of the triangle above each point: the lowest plane among the triangles with
    # the k nearest centroids, then among all triangles for the misses; checked exactly
    try:
        pf = planes.astype(float)
    except OverflowError:
        pf = None
    unsure = rest
    if pf is not None and np.all(np.isfinite(pf)):
        w = -pf[:, [0, 1, 3]] / pf[:, 2:3]                 # height over (x, y, 1)
        k = min(12, len(T))
        _, near = cKDTree(flt[T, :2].mean(axis=1)).query(flt[rest, :2], k=k)
        near = near.reshape(len(rest), k)
        h = w[near, 0] * flt[rest, 0:1] + w[near, 1] * flt[rest, 1:2] + w[near, 2]
        unsure = rest[~_below_triangle(pts, T, planes, rest, near[np.arange(len(rest)), np.argmin(h, axis=1)])]
        if len(unsure):
            h = np.outer(flt[unsure, 0], w[:, 0]) + np.outer(flt[unsure, 1], w[:, 1]) + w[:, 2]
            unsure = unsure[~_below_triangle(pts, T, planes, unsure, np.argmin(h, axis=1))]
    if len(unsure) == 0:
        return True
    return dot_signs([tuple(r) for r in planes.tolist()],
                     [(x, y, z, 1) for x, y, z in pts[unsure].tolist()]).max() <= 0


def _below_triangle(pts, T, planes, idx, tri):
    """Exact: point ``idx[r]`` projects into triangle ``tri[r]`` (ccw) and lies on or below its plane."""
    t, p = T[tri], pts[idx]
    ok = np.ones(len(idx), dtype=bool)
    for s in range(3):
        o, r = pts[t[:, s]], pts[t[:, (s + 1) % 3]]
        ok &= (r[:, 0] - o[:, 0]) * (p[:, 1] - o[:, 1]) - (r[:, 1] - o[:, 1]) * (p[:, 0] - o[:, 0]) >= 0
    pl = planes[tri]
    return ok & (pl[:, 0] * p[:, 0] + pl[:, 1] * p[:, 1] + pl[:, 2] * p[:, 2] + pl[:, 3] <= 0)


def _merge_flat(pts, planes, T, f1, f2):
    """Merge triangles across flat edges into facets (union-find), then re-pair the facet edges."""
    m = len(T)
    parent = list(range(m))

    def root(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for x, y in zip(f1.tolist(), f2.tolist()):
        rx, ry = root(x), root(y)
        if rx != ry:
            parent[max(rx, ry)] = min(rx, ry)
    roots = [root(x) for x in range(m)]
    groups = {}
    for x, r in enumerate(roots):
        groups.setdefault(r, []).append(x)
    keep = sorted(groups)
    index = {r: f for f, r in enumerate(keep)}
    cycles, us, vs, fs = {}, [], [], []
    Tl = T.tolist()
    for r in keep:
        f = index[r]
        if len(groups[r]) == 1:
            cyc = Tl[r]
        else:
            verts = sorted({v for x in groups[r] for v in Tl[x]})
            cyc = [verts[i] for i in hull_2d([tuple(pts[v, :2]) for v in verts])]
            if len(cyc) < 3:
                return None
            cycles[f] = cyc
        for s in range(len(cyc)):
            us.append(cyc[s])
            vs.append(cyc[(s + 1) % len(cyc)])
            fs.append(f)
    a, b, ef = np.array(us, dtype=np.int64), np.array(vs, dtype=np.int64), np.array(fs, dtype=np.int64)
    paired = _pair_edges(a, b, len(pts))
    if paired is None:
        return None
    first, second, _ = paired
    g = np.full(len(a), -1, dtype=np.int64)
    g[first], g[second] = ef[second], ef[first]
    return PlanarUpperHull(planes[keep], cycles, a, b, ef, g, T[keep])


def _normals(P, groups) -> list:
    """Integer normals of the hyperplanes through each group of ``n`` points of ``P`` (rows in ``Z^n``).

    The generalised cross product of the differences to the group's first point:
    ``h_c = (-1)^c`` times the minor without column ``c``, for all groups at once
    (:func:`tropattn.exact.linalg.maximal_minors` on Python integers, exact).
    """
    A = np.empty((len(P), len(P[0])), dtype=object)
    A[:] = [list(p) for p in P]
    G = np.array(groups, dtype=np.intp)
    diffs = A[G[:, 1:]] - A[G[:, :1]]                                 # (groups, n - 1, n)
    minors = maximal_minors(diffs)[:, ::-1]                           # column c omits column c
    signs = np.array([(-1) ** c for c in range(minors.shape[1])], dtype=object)
    return (minors * signs).tolist()


def certified_upper_simplices(P, d):
    """Certified simplicial upper hull of lifted integer points P (n x (d+1)), or None.

    Qhull proposes the upper facets; then, exactly:

    1. each facet's hyperplane ``n . p + e = 0`` is rebuilt from integer coordinates with
       ``n_{d+1} > 0``; facets with equal (primitive) hyperplanes are refused (a non-simplicial
       face: left to the general hull);
    2. the projected facets tile ``conv{a_j}`` exactly once: every ridge (``d`` vertices) lies on
       two facets whose opposite vertices project strictly to opposite sides of it, or on one
       facet and then on a hyperplane of ``R^d`` with every projected point on the facet's side
       (a facet of ``conv{a_j}``), so the projection is a covering of ``conv{a_j}`` with
       consistent orientation; and the centroid of one facet lies in no other facet's
       projection (degree one);
    3. the surface is locally concave: across every interior ridge the opposite vertex of each
       facet lies on or below the other's hyperplane.  A piecewise-linear function on a convex
       domain that is concave across every ridge is concave, so every hyperplane lies on or
       above the surface ``psi`` and every vertex lies on or below every hyperplane;
    4. every point that is no vertex lies on or below every hyperplane
       (:func:`tropattn.exact.predicates.dot_signs`), hence below ``psi``.

    So the facets are exactly the upper faces.  No dense points x facets sign matrix is
    built for the vertices (only for the few points off the surface).

    Returns ``(simplices, planes, boundary)``: vertex-index lists, their primitive hyperplanes
    ``(n_1, ..., n_{d+1}, e)``, and the boundary ridges with the outward normal in ``R^d`` of the
    facet of ``conv{a_j}`` they lie on.

    Parameters
    ----------
    P : sequence of integer rows of length ``d + 1``
        Lifted points with distinct projections.
    d : int
        The dimension of the projection, ``d >= 3``.

    Returns
    -------
    SimplicialUpperHull or None
        None when Qhull fails, a face is not a simplex, or a check does not hold.

    Examples
    --------
    >>> hull = certified_upper_simplices([(0, 0, 0, 0), (4, 0, 0, 0), (0, 4, 0, 0), (0, 0, 4, 0), (1, 1, 1, 5)], 3)
    >>> len(hull.simplices), len(hull.boundary)
    (4, 4)
    """
    try:
        flt = np.array(P, dtype=float)
    except OverflowError:
        return None
    run = qhull_simplices(flt)
    if run is None:
        return None
    simplices = run[0][run[1][:, d] > 0].tolist()
    if not simplices:
        return None
    A = np.empty((len(P), d + 1), dtype=object)                       # 1.
    A[:] = [list(p) for p in P]
    S = np.array(simplices, dtype=np.intp)
    N = np.array(_normals(P, simplices), dtype=object)
    if np.any(N[:, d] == 0):
        return None
    N[N[:, d] < 0] *= -1
    H = np.concatenate([N, -(N * A[S[:, 0]]).sum(axis=1)[:, None]], axis=1)
    H = H // np.gcd.reduce(H, axis=1)[:, None]
    planes = [tuple(r) for r in H.tolist()]
    if len(set(planes)) != len(planes):
        return None
    ridges = {}                                                       # 2.
    for f, s in enumerate(simplices):
        for r in range(d + 1):
            ridges.setdefault(tuple(sorted(s[:r] + s[r + 1:])), []).append((f, s[r]))
    if any(len(sides) > 2 for sides in ridges.values()):
        return None
    keys = list(ridges)
    R = np.array(keys, dtype=np.intp)
    Hr = np.array(_normals([p[:d] for p in P], keys), dtype=object)   # ridge normals in R^d
    c = -(Hr * A[R[:, 0], :d]).sum(axis=1)
    first = np.array([sides[0][1] for sides in ridges.values()], dtype=np.intp)
    v0 = (Hr * A[first, :d]).sum(axis=1) + c
    two = np.array([len(sides) == 2 for sides in ridges.values()])
    second = np.array([sides[-1][1] for sides in ridges.values()], dtype=np.intp)
    v1 = (Hr * A[second, :d]).sum(axis=1) + c
    if np.any(v0[two] * v1[two] >= 0) or np.any(v0[~two] == 0):
        return None
    one = np.flatnonzero(~two)
    flip = np.where(v0[one] < 0, 1, -1).astype(object)
    L = np.concatenate([Hr[one] * flip[:, None], (c[one] * flip)[:, None]], axis=1)
    lines = [tuple(r) for r in L.tolist()]
    boundary = [(keys[i], line[:d]) for i, line in zip(one.tolist(), lines)]
    if lines and dot_signs(lines, [tuple(p[:d]) + (1,) for p in P]).max() > 0:
        return None
    if not _degree_one([p[:d] for p in P], simplices, d):
        return None
    pairs = [sides for sides in ridges.values() if len(sides) == 2]   # 3.
    if pairs:
        (f, o), (g, q) = (np.array(col, dtype=np.intp).T for col in zip(*pairs))
        below = lambda plane_idx, pts: (H[plane_idx, :-1] * A[pts]).sum(axis=1) + H[plane_idx, -1]  # noqa: E731
        if np.any(below(f, q) > 0) or np.any(below(g, o) > 0):
            return None
    used = np.zeros(len(P), dtype=bool)                               # 4.
    used[S.ravel()] = True
    rest = [tuple(P[i]) + (1,) for i in np.flatnonzero(~used).tolist()]
    if rest:
        step = max(1, 2_000_000 // len(rest))
        if any(dot_signs(planes[i:i + step], rest).max() > 0 for i in range(0, len(planes), step)):
            return None
    return SimplicialUpperHull(simplices, planes, boundary)


def _degree_one(projected, simplices, d) -> bool:
    """The centroid of the first projected simplex lies in no other projected simplex (exact).

    Candidates are the simplices whose exact bounding box holds the centroid; each is
    tested with the signs of the ``d + 1`` determinants that give its barycentric
    coordinates.
    """
    V = np.empty((len(projected), d), dtype=object)
    V[:] = [list(p) for p in projected]
    S = np.array(simplices, dtype=np.intp)
    C = V[S[0]].sum(axis=0)                                           # (d + 1) x the centroid
    corners = V[S] * (d + 1)                                          # (F, d + 1, d)
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    near = np.flatnonzero(np.all((lo <= C) & (C <= hi), axis=1))
    for t in near.tolist():
        if t == 0:
            continue
        rows = [list(V[i]) + [1] for i in simplices[t]]
        base = _det_sign(rows)
        signs = [_det_sign(rows[:i] + [list(C) + [d + 1]] + rows[i + 1:]) for i in range(d + 1)]
        if all(s * base >= 0 for s in signs):
            return False
    return True


def _det_sign(rows) -> int:
    """The exact sign of a small integer determinant."""
    return int(determinant_signs(np.array([rows], dtype=object), False)[0])
