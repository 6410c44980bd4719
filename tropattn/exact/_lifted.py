"""Certified upper hulls of lifted points: the chain, the planar kernel and the simplicial kernel.

For points ``(a_j, b_j)`` lifted over a line the upper hull is an exact monotone chain
(:func:`upper_chain`); over ``R^2`` (:func:`certified_upper_facets_2d`) and over ``R^d``,
``d >= 3`` (:func:`certified_upper_simplices`), Qhull proposes the upper facets and
integer arithmetic certifies them: exact planes, a consistently oriented surface that
tiles ``conv{a_j}`` once, local concavity, and every other point on or below.
:func:`upper_facets` runs the kernel its caller chose (``tropattn.geometry.upper_hull``
chooses, and falls back to the general hull certificate when a kernel declines).

>>> upper_facets([(0, 0), (1, 1), (2, 1), (3, 0)], "chain")      # (1, 1) and (2, 1) share the top
[0, 1, 2, 3]
>>> upper_facets([(0, 0), (1, 1), (2, 2)], "chain")               # collinear: only the ends
[0, 2]
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .._config import config
from .._lazy import lazy_import
from ..errors import InvalidInputError
from ._counters import record
from ._hull import qhull_simplices
from ._linalg import maximal_minors
from ._predicates import _U, _expansion, dot_signs, small_determinant_signs

spatial = lazy_import("scipy.spatial")

__all__ = ["KERNELS", "upper_facets", "PlanarUpperHull", "SimplicialUpperHull", "StrictPlanarUpperHull", "upper_chain",
           "certified_upper_facets_2d", "certified_upper_simplices", "cross2", "hull_2d"]

#: The kernels of :func:`upper_facets`, with the dimension ``d`` of the projection each needs.
KERNELS = {"chain": "d = 1", "planar": "d = 2", "simplicial": "d >= 3"}


def upper_facets(lifted, kernel: str):
    """The certified upper facets of lifted integer points, by the kernel the caller chose.

    Parameters
    ----------
    lifted : sequence of tuple of int, shape (n, d + 1)
        Lifted points ``(x, height)`` with distinct projections ``x`` (one common
        denominator already cleared).
    kernel : {"chain", "planar", "simplicial"}
        ``"chain"`` (``d = 1``): the exact upper monotone chain, nothing to certify;
        ``"planar"`` (``d = 2``): :func:`certified_upper_facets_2d`; ``"simplicial"``
        (``d >= 3``, every upper face a simplex): :func:`certified_upper_simplices`.

    Returns
    -------
    list of int, PlanarUpperHull, SimplicialUpperHull or None
        The chain's point indices left to right, or the kernel's certified structure;
        None when the kernel declines (its certificate does not hold, a face is not a
        simplex, numbers beyond the float range): then only the general hull
        certificate (:func:`~tropattn.exact.certified_hull`) answers.

    Raises
    ------
    InvalidInputError
        An unknown kernel, or one that does not fit the dimension of the points.

    Examples
    --------
    >>> upper_facets([(0, 0, 0), (2, 0, 0), (0, 2, 0), (2, 2, 1)], "planar").tri.shape
    (2, 3)
    """
    d = len(lifted[0]) - 1
    fits = {"chain": d == 1, "planar": d == 2, "simplicial": d >= 3}
    if not fits.get(kernel, False):
        need = KERNELS.get(kernel)
        raise InvalidInputError(f"kernel = {kernel!r} needs points lifted over {need}; these are over R^{d}"
                                if need else f"kernel = {kernel!r}; use one of {', '.join(map(repr, KERNELS))}")
    if kernel == "chain":
        return upper_chain(lifted)
    if kernel == "planar":
        return certified_upper_facets_2d(list(lifted))
    return certified_upper_simplices(lifted, d)


def upper_chain(lifted) -> list:
    """Over a line: the exact upper monotone chain of points ``(x, height)`` (strict turns only).

    Parameters
    ----------
    lifted : sequence of pairs of int
        Points with distinct ``x``.

    Returns
    -------
    list of int
        The indices of the upper vertices, by increasing ``x``.

    Examples
    --------
    >>> upper_chain([(0, 0), (2, 0), (1, 5)])
    [0, 2, 1]
    """
    order = sorted(range(len(lifted)), key=lambda i: lifted[i][0])
    chain = []
    for j in order:
        while len(chain) >= 2 and cross2(lifted[chain[-2]], lifted[chain[-1]], lifted[j]) >= 0:
            chain.pop()
        chain.append(j)
    return chain


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


#: Qhull options for the simplicial proposals, tried in turn until one is certified: without
#: pre-merging first (about 20% faster; on degenerate input it may fail or propose something the
#: certificate refuses), then Qhull's default merging.
PROPOSAL_OPTIONS = ("Q0", None)


class SimplicialUpperHull:
    """The certified simplicial upper hull over ``R^d`` (:func:`certified_upper_simplices`).

    ``points``: the lifted integer points (n x (d+1), int64 when they fit, else Python ints);
    ``simplices`` (F x (d+1) int array): the upper facets, each ordered so that its projection
    to ``R^d`` is positively oriented; ``ridges`` (R x d) and ``normals`` (R x d, Python ints):
    the boundary ridges and the outward normal in ``R^d`` of the facet of ``conv{a_j}`` each
    lies on.  ``planes`` (F x (d+2), Python ints): the primitive hyperplanes
    ``(n_1, ..., n_{d+1}, e)`` with ``n_{d+1} > 0``, exact, computed on first access (the
    certificate itself never needs them).
    """

    __slots__ = ("points", "simplices", "ridges", "normals", "_planes")

    def __init__(self, points, simplices, ridges, normals):
        self.points, self.simplices, self.ridges, self.normals = points, simplices, ridges, normals
        self._planes = None

    @property
    def planes(self) -> np.ndarray:
        """The exact primitive hyperplane of every simplex (built on first access)."""
        if self._planes is None:
            A, S = self.points.astype(object), self.simplices
            d = S.shape[1] - 1
            N = _normals(A, S)
            N[N[:, d] < 0] *= -1
            H = np.concatenate([N, -(N * A[S[:, 0]]).sum(axis=1)[:, None]], axis=1)
            self._planes = H // np.gcd.reduce(H, axis=1)[:, None]
        return self._planes


class StrictPlanarUpperHull(SimplicialUpperHull):
    """A planar upper hull whose faces are all triangles, certified by the strict simplicial kernel.

    What :func:`certified_upper_facets_2d` returns when Qhull's triangles are strictly concave
    across every interior edge (no two share a plane): the :class:`SimplicialUpperHull` of the
    points over ``R^2``, with the fields of :class:`PlanarUpperHull` (``planes``, ``cycles``,
    ``eu``, ``ev``, ``ef``, ``eg``, ``tri``) built from it on first access.
    """

    __slots__ = ("_edges",)

    def __init__(self, hull):
        super().__init__(hull.points, hull.simplices, hull.ridges, hull.normals)
        self._edges = None

    cycles = property(lambda self: {}, doc="No merged facets: every facet is the triangle ``tri[f]``.")
    tri = property(lambda self: self.simplices, doc="The triangles (F x 3, counter-clockwise).")

    def _edge_arrays(self):
        if self._edges is None:
            T = self.simplices
            m = len(T)
            a = np.concatenate([T[:, 0], T[:, 1], T[:, 2]]).astype(np.int64)
            b = np.concatenate([T[:, 1], T[:, 2], T[:, 0]]).astype(np.int64)
            f = np.tile(np.arange(m, dtype=np.int64), 3)
            first, second, _ = _pair_edges(a, b, len(self.points))
            g = np.full(len(a), -1, dtype=np.int64)
            g[first], g[second] = f[second], f[first]
            self._edges = (a, b, f, g)
        return self._edges

    eu = property(lambda self: self._edge_arrays()[0], doc="Directed facet edges ``eu -> ev`` (ccw).")
    ev = property(lambda self: self._edge_arrays()[1], doc="Heads of the facet edges.")
    ef = property(lambda self: self._edge_arrays()[2], doc="The facet of each edge.")
    eg = property(lambda self: self._edge_arrays()[3], doc="The facet across each edge, -1 on the boundary.")


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


def _proposal(flt, options):
    """:func:`qhull_simplices` of ``flt``, in Morton (Z-) order from ``config.qhull_sort_from`` points on.

    Qhull's walks then stay in cache (about 25% less time at 10^5 points); the simplices come
    back in the original indices.  Only the proposal depends on the order; every check runs
    on the original points.
    """
    n, d = flt.shape
    if config.qhull_sort_from < 0 or n < config.qhull_sort_from:
        return qhull_simplices(flt, options)
    bits = min(20, 62 // (d - 1))
    span = np.ptp(flt[:, :d - 1], axis=0)
    span[span == 0] = 1.0
    q = ((flt[:, :d - 1] - flt[:, :d - 1].min(axis=0)) / span * ((1 << bits) - 1)).astype(np.int64)
    code = np.zeros(n, dtype=np.int64)
    for b in range(bits - 1, -1, -1):
        for c in range(d - 1):
            code = (code << 1) | ((q[:, c] >> b) & 1)
    order = np.argsort(code, kind="stable")
    run = qhull_simplices(np.ascontiguousarray(flt[order]), options)
    if run is None:
        return None
    return order[run[0]], run[1]


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

    First, on one Qhull proposal without merging (:data:`PROPOSAL_OPTIONS`), the strict
    simplicial certificate of :func:`certified_upper_simplices` is tried: when it holds (every
    face a triangle, strictly concave across every edge; the usual case) it answers with a
    :class:`StrictPlanarUpperHull`, in float-filtered determinant signs only, and the exact
    planes are built only when read.

    Parameters
    ----------
    P : sequence of (X, Y, Z) triples of int
        Lifted points with distinct projections ``(X, Y)``.

    Returns
    -------
    PlanarUpperHull, StrictPlanarUpperHull or None
        None when Qhull fails or a check does not hold (the caller then uses the general hull).

    Examples
    --------
    >>> hull = certified_upper_facets_2d([(0, 0, 0), (2, 0, 0), (0, 2, 0), (2, 2, 1)])
    >>> len(hull.planes), sorted(sorted(t) for t in hull.tri.tolist())
    (2, [[0, 1, 3], [0, 2, 3]])
    """
    n = len(P)
    A = _int_points(P)
    try:
        flt = A.astype(float)
    except OverflowError:
        flt = None
    run = None if flt is None else _proposal(_pow2_scaled(flt), PROPOSAL_OPTIONS[0])
    if run is not None:
        strict = _certify_simplices(A, _pow2_scaled(flt), run, 2, _degree_one)   # all faces triangles
        if strict is not None:
            return StrictPlanarUpperHull(strict)
    pts = A.astype(object)
    if flt is None:
        return _one_face(pts)
    run = qhull_simplices(_pow2_scaled(flt))
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


def _pow2_scaled(flt) -> np.ndarray:
    """Each column of ``flt`` scaled by a power of two to below 1 in absolute value (exact).

    Qhull then sees the same centred, scaled points (:func:`tropattn.exact._hull.qhull_simplices`),
    but the column sums of lifted heights near the top of the float range no longer overflow.
    """
    return np.ldexp(flt, -np.frexp(np.abs(flt).max(axis=0))[1])


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
        _, near = spatial.cKDTree(flt[T, :2].mean(axis=1)).query(flt[rest, :2], k=k)
        # squared distances past the float range come back as "no neighbour" (index len(T)):
        # any triangle will do for those, the guess is only checked
        near = np.minimum(near.reshape(len(rest), k), len(T) - 1)
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


def _normals(A, groups) -> np.ndarray:
    """Integer normals of the hyperplanes through each group of ``n`` points of ``A`` (rows in ``Z^n``).

    ``A`` is an object array of Python ints (n columns); the generalised cross product of the
    differences to the group's first point: ``h_c = (-1)^c`` times the minor without column
    ``c``, for all groups at once (:func:`tropattn.exact._linalg.maximal_minors`, exact).
    """
    G = np.asarray(groups, dtype=np.intp)
    diffs = A[G[:, 1:]] - A[G[:, :1]]                                 # (groups, n - 1, n)
    minors = maximal_minors(diffs)[:, ::-1]                           # column c omits column c
    signs = np.array([(-1) ** c for c in range(minors.shape[1])], dtype=object)
    return minors * signs


def _int_points(P) -> np.ndarray:
    """Integer rows as int64 when every entry is below ``2^61`` (differences then fit), else objects.

    >>> [_int_points([(1, v)]).dtype.kind for v in (-2, 2 ** 61 - 1, 2 ** 61, -2 ** 61, -2 ** 63, 2 ** 70)]
    ['i', 'i', 'O', 'O', 'O', 'O']
    """
    try:
        A = np.array(P, dtype=np.int64)                  # straight from Python ints; too large: OverflowError
        if not A.size or (A.max() < 1 << 61 and A.min() > -(1 << 61)):
            return A
    except (OverflowError, TypeError):
        pass
    return np.array(P, dtype=object)


def _sorted_with_parity(R):
    """Rows of ``R`` sorted, and the sign (+-1) of the permutation that sorts each.

    Odd-even transposition sort on the columns (``k`` rounds of compare-exchanges sort ``k``
    entries), all rows at once; the parity counts the exchanges made.

    >>> R, sign = _sorted_with_parity(np.array([[2, 0, 1], [0, 2, 1]]))
    >>> R.tolist(), sign.tolist()
    ([[0, 1, 2], [0, 1, 2]], [1, -1])
    """
    cols = [np.ascontiguousarray(R[:, c]) for c in range(R.shape[1])]
    odd = np.zeros(len(R), dtype=bool)
    k = len(cols)
    for p in range(k):
        for i in range(p % 2, k - 1, 2):
            odd ^= cols[i] > cols[i + 1]
            cols[i], cols[i + 1] = np.minimum(cols[i], cols[i + 1]), np.maximum(cols[i], cols[i + 1])
    return np.stack(cols, axis=1) if k else R.copy(), 1 - 2 * odd.astype(np.int64)


def _row_keys(R, n):
    """One int64 key per row of ``R`` (entries in ``range(n)``), equal iff the rows are equal."""
    if n ** R.shape[1] < 1 << 62:
        key = np.zeros(len(R), dtype=np.int64)
        for c in range(R.shape[1]):
            key = key * n + R[:, c]
        return key
    return np.unique(R, axis=0, return_inverse=True)[1].ravel()


def _lifted_signs(A, S, f, x, d):
    """Exact signs of ``det[s_1 - s_0, ..., s_d - s_0, x - s_0]`` (lifted, ``s = S[f]``).

    Positive iff the lifted point ``x`` lies strictly above the hyperplane of the upper simplex
    ``S[f]`` (positively oriented in the projection): the cofactor of the height column is the
    projected orientation.  A float filter with a rigorous bound decides
    (:func:`tropattn.exact._predicates.small_determinant_signs`); uncertain entries go to Python ints.
    """
    return _difference_signs(A, S[f, 0], [S[f, i] for i in range(1, d + 1)] + [x], d + 1)


#: Below this bound on the integer coordinates, their differences are exact in floats.
_EXACT_FLOAT = 1 << 52


def _difference_signs(A, base, rows, k):
    """Exact signs of ``det[A[rows[0]] - A[base], ..., A[rows[k-1]] - A[base]]`` (first ``k`` columns).

    :func:`small_determinant_signs` on the stack of difference matrices, but for int64 points
    below :data:`_EXACT_FLOAT` the float filter reads the columns straight from the points (the
    differences are exact in floats) and the integer matrices are made only for the entries it
    leaves unsure (counted as ``filter_failures``).
    """
    if A.dtype == object or not 2 <= k <= 4 or np.abs(A[:, :k]).max() >= _EXACT_FLOAT:
        base_rows = A[base, :k]
        return small_determinant_signs(np.stack([A[r, :k] - base_rows for r in rows], axis=1))
    F = [np.ascontiguousarray(A[:, c], dtype=float) for c in range(k)]
    Fb = [F[c][base] for c in range(k)]                               # the base point, gathered once
    T = [[F[c][r] - Fb[c] for c in range(k)] for r in rows]
    n = k * k + 2 * k
    gamma = n * _U / (1 - n * _U)
    with np.errstate(over="ignore", invalid="ignore"):
        det = _expansion(T)
        bound = functools.reduce(np.multiply, [sum(np.abs(t) for t in row) for row in T])
        sure = np.abs(det) > 2 * gamma * bound
    out = np.where(sure, np.sign(det), 0).astype(np.int64)
    unsure = np.flatnonzero(~sure)
    if len(unsure):
        base_rows = A[base[unsure], :k]
        M = np.stack([A[r[unsure], :k] - base_rows for r in rows], axis=1)
        out[unsure] = small_determinant_signs(M)
    return out


def _inside_signs(A, S, f, x, d):
    """Exact: the projection of point ``x[r]`` lies in the closed projected simplex ``S[f[r]]``.

    Replacing vertex ``v`` of a positively oriented simplex by the point gives an orientation
    of the sign of its barycentric coordinate ``lambda_v``; all ``d + 1`` must be ``>= 0``.
    """
    ok = np.ones(len(f), dtype=bool)
    for v in range(d + 1):
        verts = S[f].copy()
        verts[:, v] = x
        ok &= _difference_signs(A, verts[:, 0], [verts[:, i] for i in range(1, d + 1)], d) >= 0
    return ok


def certified_upper_simplices(P, d):
    """Certified simplicial upper hull of lifted integer points P (n x (d+1)), or None.

    Qhull proposes the upper facets (options :data:`PROPOSAL_OPTIONS`, in turn until a proposal
    is certified); then, exactly, all simplices or ridges at once (numpy, float filters with
    rigorous error bounds, Python integers only where a filter is unsure):

    1. every proposed facet projects to a nondegenerate simplex of ``R^d`` (its orientation
       determinant is nonzero); it is reordered to be positively oriented;
    2. the projected simplices tile ``conv{a_j}`` exactly once: every ridge (``d`` vertices)
       lies on two facets that induce opposite orientations on it -- for positively oriented
       simplices this says exactly that their opposite vertices lie strictly on opposite sides
       of it, a purely combinatorial check -- or on one facet and then on a hyperplane of
       ``R^d`` with the vertices of every such boundary ridge on the facet's side; so every
       boundary ridge lies on the boundary of the polyhedron ``Q`` these hyperplanes cut out,
       the projection is a covering of ``Q`` with consistent orientation, and the centroid of
       one facet lies in no other facet's projection (degree one): the facets tile ``Q``
       once, and ``Q = conv{a_j}`` once step 4 has placed every other point in ``Q``;
    3. the surface is strictly locally concave: across every interior ridge the opposite
       vertex of one facet lies strictly below the other's hyperplane (one determinant per
       ridge: seen from the other side it is the same determinant, by step 2).  A
       piecewise-linear function on a convex domain that is concave across every ridge is
       concave, so ``psi = min_F plane_F`` and every vertex lies on or below every hyperplane;
       strictness makes every facet a maximal face (no two facets share a hyperplane), so
       every upper face is a simplex and every simplex vertex an upper vertex;
    4. every point that is no vertex lies on or below the surface: a float guess finds the
       facet above it, then exactly: it projects into that simplex and lies on or below its
       hyperplane (if a guess fails: inside ``Q`` and below every hyperplane, by
       :func:`tropattn.exact._predicates.dot_signs`).

    So the facets are exactly the upper faces.  No points x facets sign matrix is built,
    and the exact hyperplanes are computed only when read
    (:attr:`SimplicialUpperHull.planes`).

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
    >>> len(hull.simplices), len(hull.ridges), hull.planes[0].tolist()
    (4, 4, [0, 0, -5, 1, 0])
    """
    return _certified_upper_simplices(P, d)


def _certified_upper_simplices(P, d, propose=None, degree_one=None):
    """:func:`certified_upper_simplices` with its proposer and its degree-one check as
    parameters (a test passes a dishonest proposal, or switches one check off to show
    that it is the one that refuses); ``propose=None`` is Qhull through :func:`_proposal`."""
    A = _int_points(P)
    try:
        flt = A.astype(float)
    except OverflowError:
        return None
    flt = _pow2_scaled(flt)
    for options in PROPOSAL_OPTIONS:
        run = _proposal(flt, options) if propose is None else propose(flt, options)
        hull = None if run is None else _certify_simplices(A, flt, run, d, degree_one or _degree_one)
        if hull is not None:
            return hull
    return None


def _certify_simplices(A, flt, run, d, degree_one):
    """Steps 1-4 of :func:`certified_upper_simplices` on one Qhull proposal ``run``."""
    up = run[1][:, d] > 0
    S = run[0][up].astype(np.intp)
    if not len(S):
        return None
    n, F = len(A), len(S)
    o = _difference_signs(A, S[:, 0], [S[:, i] for i in range(1, d + 1)], d)   # 1.
    if np.any(o == 0):
        return None
    neg = o < 0
    S[neg, 0], S[neg, 1] = S[neg, 1], S[neg, 0].copy()
    ridges = np.concatenate([np.delete(S, r, axis=1) for r in range(d + 1)])   # 2.
    opp = S.T.ravel()
    face = np.tile(np.arange(F), d + 1)
    ridges, parity = _sorted_with_parity(ridges)
    sigma = parity * np.repeat([(-1) ** (d - r) for r in range(d + 1)], F)   # induced orientations
    key = _row_keys(ridges, n)
    order = np.argsort(key)                      # either member of a pair may come first: the checks are symmetric
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    counts = np.diff(np.r_[starts, len(ks)])
    if counts.max() > 2:
        return None
    first, second = order[starts[counts == 2]], order[starts[counts == 2] + 1]
    if np.any(sigma[first] == sigma[second]):
        return None
    one = order[starts[counts == 1]]
    Ao = A.astype(object)
    Hr = _normals(Ao[:, :d], ridges[one])                             # boundary ridges in R^d
    c = -(Hr * Ao[ridges[one, 0], :d]).sum(axis=1)
    flip = np.where((Hr * Ao[opp[one], :d]).sum(axis=1) + c < 0, 1, -1).astype(object)
    normals = Hr * flip[:, None]
    lines = np.concatenate([normals, (c * flip)[:, None]], axis=1)
    if not _inside_lines(A, lines, np.flatnonzero(np.bincount(ridges[one].ravel(), minlength=n)), d):
        return None
    if not degree_one(A[:, :d], S, d):
        return None
    if len(first) and np.any(_lifted_signs(A, S, face[first], opp[second], d) >= 0):   # 3.
        return None
    used = np.zeros(n, dtype=bool)                                    # 4.
    used[S.ravel()] = True
    rest = np.flatnonzero(~used)
    hull = SimplicialUpperHull(A, S, ridges[one], normals)
    if len(rest) and not _rest_under_simplices(hull, flt, run[1][up], rest, d, lines):
        return None
    return hull


def _inside_lines(A, lines, x, d) -> bool:
    """Exact: the projections of the points ``x`` lie on the inner side of every boundary line.

    ``lines`` (R x (d + 1)) are the hyperplanes ``h . y + c <= 0`` of ``R^d`` the boundary ridges lie on.
    Only the ridges' own vertices need this (step 2): then every boundary ridge lies on the boundary
    of the polyhedron ``Q`` the lines cut out, so the degree of the covering is constant on the
    interior of ``Q`` and zero outside it, and by the degree-one check every simplex lies in ``Q``.
    Points that are no vertex are placed in a simplex, or checked here (step 4).

    >>> _inside_lines(np.array([[0, 0, 5], [2, 0, 5]]), np.array([[1, 0, -1]], dtype=object), np.array([0, 1]), 2)
    False
    """
    if not len(lines) or not len(x):
        return True
    proj = np.concatenate([A[x, :d], np.ones((len(x), 1), dtype=A.dtype)], axis=1)
    return bool(dot_signs(lines, proj).max() <= 0)


def _rest_under_simplices(hull, flt, E, rest, d, lines) -> bool:
    """Every point ``rest[r]`` (no vertex) lies on or below the surface (step 4).

    Float guess: the facet of smallest height above the point among those with the ``k``
    nearest centroids (in the coordinates Qhull saw, with its planes ``E``), then among all
    facets for the misses; each guess is checked exactly; the points still unplaced are
    checked against every boundary line (``lines``, :func:`_inside_lines`) and every exact
    hyperplane.
    """
    A, S = hull.points, hull.simplices
    span = np.ptp(flt, axis=0)
    span[span == 0] = 1.0
    X = (flt - flt.mean(axis=0)) / span                              # as in qhull_simplices
    unsure = rest
    if np.all(np.isfinite(E)):
        ST = np.ascontiguousarray(S.T)                               # contiguous gathers
        centroids = np.stack([sum(np.ascontiguousarray(X[:, c])[ST[i]] for i in range(d + 1)) for c in range(d)],
                             axis=1) / (d + 1)
        tree = spatial.cKDTree(centroids, balanced_tree=False, compact_nodes=False)   # cheaper to build
        for k in (16, 128):                      # the misses (long thin simplices) look further
            if not len(unsure):
                break
            k = min(k, len(S))
            _, near = tree.query(X[unsure, :d], k=k)
            # squared distances past the float range come back as "no neighbour" (index len(S)):
            # any triangle will do for those, the guess is only checked
            near = np.minimum(near.reshape(len(unsure), k), len(S) - 1)
            En = E[near]                                              # (points, k, d + 2)
            gap = -(np.einsum("rki,ri->rk", En[:, :, :d + 1], X[unsure]) + En[:, :, d + 1]) / En[:, :, d]
            guess = near[np.arange(len(unsure)), np.argmin(gap, axis=1)]
            unsure = unsure[~_placed(A, S, unsure, guess, d)]
        if len(unsure):                          # the lowest plane of all, in blocks of points
            step = max(1, 4_000_000 // len(S))
            guess = np.concatenate([np.argmin(-(X[unsure[i:i + step]] @ E[:, :d + 1].T + E[:, d + 1]) / E[:, d],
                                              axis=1) for i in range(0, len(unsure), step)])
            unsure = unsure[~_placed(A, S, unsure, guess, d)]
    if not len(unsure):
        return True
    record("filter_failures", len(unsure), where="upper_hull.simplicial")
    if not _inside_lines(A, lines, unsure, d):
        return False
    Ao = A.astype(object)
    pts = np.concatenate([Ao[unsure], np.ones((len(unsure), 1), dtype=object)], axis=1)
    planes = hull.planes
    step = max(1, 2_000_000 // len(unsure))
    return all(dot_signs(planes[i:i + step], pts).max() <= 0 for i in range(0, len(planes), step))


def _placed(A, S, x, f, d) -> np.ndarray:
    """Exact: point ``x[r]`` projects into simplex ``f[r]`` and lies on or below its hyperplane."""
    return _inside_signs(A, S, f, x, d) & (_lifted_signs(A, S, f, x, d) <= 0)


def _degree_one(V, S, d) -> bool:
    """The centroid of the first projected simplex lies in no other projected simplex (exact).

    Candidates are the simplices whose exact bounding box holds the centroid (int64 when the
    coordinates allow, else Python ints), found one coordinate at a time among the candidates
    left (contiguous columns: the first coordinate already leaves few); each is tested with the
    signs of the ``d + 1`` determinants that give its barycentric coordinates.
    """
    if V.dtype == object or np.abs(V).max() >= (1 << 62) // (d + 1):
        V = V.astype(object)
    C = V[S[0]].sum(axis=0)                                           # (d + 1) x the centroid
    near = np.arange(1, len(S))
    for c in range(d):
        col, ST = np.ascontiguousarray(V[:, c]), np.ascontiguousarray(S[near].T)
        corners = [col[ST[i]] for i in range(d + 1)]
        lo, hi = np.minimum.reduce(corners) * (d + 1), np.maximum.reduce(corners) * (d + 1)
        near = near[(lo <= C[c]) & (C[c] <= hi)]
    if not len(near):
        return True
    Vo = V.astype(object)
    rows = np.concatenate([Vo[S[near]], np.ones((len(near), d + 1, 1), dtype=object)], axis=2)
    base = small_determinant_signs(rows)
    inside = np.ones(len(near), dtype=bool)
    for i in range(d + 1):
        M = rows.copy()
        M[:, i, :d], M[:, i, d] = C, d + 1
        inside &= small_determinant_signs(M) * base >= 0
    return not inside.any()
