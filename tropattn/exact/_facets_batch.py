"""Certified facets of small polyhedra from one float vertex enumeration each.

The region search asks, hundreds of thousands of times, for the facets of
``{x : A x <= b}`` with a few dozen integer rows in dimension 2 to 6.  The floats propose
the vertices of the polyhedron cut by a box far out (which makes it bounded): with few rows
one numpy call solves every d-subset of rows; past ``tropattn.config.facets_max_subsets``
subsets, one Qhull run on the polar (the convex hull of the points ``a_i / (b_i - a_i . p)``
seen from the interior point ``p``) gives the vertices as the d-subsets of its triangulated
boundary.  The feasible vertices on a row's hyperplane give a float point in its relative
interior (their mean).  Nothing float is trusted:

* a **facet** is certified by that point, rounded, projected exactly onto the row's
  hyperplane and checked to satisfy every other row strictly (in floats with a rigorous
  error bound, in integers where the bound leaves the sign open);
* a **dropped row** ``a.x <= beta`` is certified by ``d`` rows active at the vertex where
  ``a.x`` is largest: Cramer's rule in integers gives ``a = sum y_i a_i`` with ``y >= 0``
  and ``sum y_i b_i <= beta`` (a Farkas certificate); one cofactor matrix per support serves
  every row that the same vertex maximises.

Why that is the facet set (the argument the certificates rest on): the polyhedron ``P`` has
an interior point, and of rows with one normal direction only the tightest is kept, so no
two rows define the same half-space.  Then a row is a facet iff it is irredundant: a facet
row cannot be dropped (points just beyond its facet's relative interior satisfy every other
row), and ``P`` is the intersection of its facet half-spaces, so every other row is implied.
A certified facet point proves irredundance; a Farkas certificate proves that the row follows
from the others.  Both are exact statements about ``P`` itself -- neither depends on the box,
on the point the polar was taken around, or on the other rows' verdicts (a row may be
certified by rows that are themselves dropped) -- so a certificate for every row is the exact
facet set, whatever the floats got wrong: completeness of the float vertex set is never
needed.  A row that no certificate settles (a facet far below float resolution, an optimum
outside the box) gets one certified LP (counted as ``fallbacks`` at ``facets_batch``) on the
Qhull path; the subset path answers None and the caller takes
:func:`tropattn.exact.integer_facets`.  Qhull is never handed a point nearer than
``10^-9`` (relative) to a wall: the polar is then taken around a float Chebyshev centre,
or the step declines (Qhull crashed on a point 1e-301 from a wall, issue 23).

In the plane :func:`planar_facets` needs no float and no fallback: a Graham scan on the
polar dual whose every test is the sign of an integer (a 3 x 3 determinant of rows).

>>> rows = [(1, 0, 1), (0, 1, 1), (-1, 0, 0), (1, 1, 5), (0, -1, 0)]   # the unit square and x + y <= 5
>>> keep, points = small_facets(rows, (1, 1), 2)                        # from the point (1/2, 1/2)
>>> keep                                                                 # x + y <= 5 is implied
(0, 1, 2, 4)
>>> points[0]                                                            # on x = 1, inside the others
((2, 1), 2)
"""

from __future__ import annotations

import functools
import math
from itertools import combinations

import numpy as np

from .._config import config
from .._lazy import lazy_import
from ._counters import record
from ._hull import qhull_simplices
from ._linalg import integer_determinant
from ._lp import relative_interior_point
from ._numbers import homogeneous_point

__all__ = ["small_facets", "planar_facets"]

optimize = lazy_import("scipy.optimize")

_BOX = 64.0      # the float box |y|_inf <= _BOX in units of the largest wall distance
_TOL = 1e-10
#: The Qhull path needs the interior point this far (relative to the farthest wall) from every wall: Qhull was
#: handed points 1e-301 from a wall and crashed (issue 23); nearer, the exact path decides.
_HULL_CLEARANCE = 1e-9


def small_facets(rows, X, D):
    """The facet rows of ``{x : r[:-1] . x <= r[-1]}`` seen from the interior point ``X / D``.

    Parameters
    ----------
    rows : sequence of tuple of int
        Primitive integer rows ``(a_1, ..., a_d, b)``, each with a nonzero normal and
        strictly satisfied at ``X / D`` (not checked here; the caller knows it).
    X, D : tuple of int, int
        The interior point as integer numerators over a positive denominator.

    Returns
    -------
    (keep, points) or None
        ``keep``: indices of the facet rows (one per distinct row, in order); ``points``:
        for each kept index, a point ``(N, E)`` (integers, ``N / E``) on that row's
        hyperplane and strictly inside every other distinct row.  ``None`` when some
        certificate could not be made (the caller then decides exactly otherwise).
        Records ``certified`` or ``declined`` at ``facets_batch`` (and ``fallbacks`` there
        for each row the Qhull path had to settle by an LP).

    Notes
    -----
    Up to ``tropattn.config.facets_max_subsets`` d-subsets of rows (and box rows) every
    subset is solved; above, one Qhull run on the polar proposes the vertices
    (``tropattn.config.facets_hull = 0`` declines such polyhedra instead).  The
    certificates and why they suffice: see the module docstring.

    Examples
    --------
    >>> small_facets([(1, 1), (-1, 1), (1, 3)], (0,), 1)                   # -1 < x < 1; x < 3 is implied
    ((0, 1), {0: ((1,), 1), 1: ((-1,), 1)})
    """
    out = _small_facets(rows, X, D)
    record("certified" if out is not None else "declined", where="facets_batch")
    return out


def _small_facets(rows, X, D):
    """:func:`small_facets` without the counter."""
    d = len(X)
    distinct = _tightest(rows)
    R = [rows[i] for i in distinct]
    n = len(R)
    if d == 0 or n == 0:
        return None
    hull = math.comb(n + 2 * d, d) > config.facets_max_subsets
    if hull and (d < 2 or not config.facets_hull):
        return None
    slack = [r[-1] * D - sum(a * x for a, x in zip(r, X)) for r in R]  # D (b - a.p) > 0
    try:
        G = np.array([[float(v) for v in r[:-1]] for r in R])
        slack_f = np.array([s / D for s in slack])
    except OverflowError:
        return None
    with np.errstate(all="ignore"):
        norms = np.sqrt(np.einsum("ij,ij->i", G, G))
        dist = slack_f / norms                                               # distance of p to each wall
        top = float(dist.max())
        if not (math.isfinite(top) and top > 0 and float(norms.min()) > 0):
            return None
        near = float(dist.min()) <= (_HULL_CLEARANCE if hull else 1e-13) * top
        if near and not hull:
            return None
        sigma = 2.0 ** math.frexp(top)[1]                                    # a power of two: exact to undo
        # y = (x - p) / sigma: the rows become  (a/|a|) . y <= dist / sigma,  plus the box |y| <= _BOX
        U = np.concatenate([G / norms[:, None], _box_normals(d)])
        c = np.concatenate([dist / sigma, np.full(2 * d, _BOX)])
        if hull:
            shift = _centre(U, c) if near else None   # the polar is taken around a point with clearance
            if near and shift is None:
                return None
            subsets = _dual_hull_simplices(U, c if shift is None else c - U @ shift)
            if subsets is None:
                return None
        else:
            subsets = _subsets(n + 2 * d, d)
        M = U[subsets]
        V = _solve_all(M, c[subsets])
        S = V @ U.T - c
        # tolerances relative to the sizes involved: a region may be 10^-9 of its farthest wall's distance
        tol = _TOL * (np.abs(V).max(axis=1)[:, None] + c)
        feasible = np.all(S <= tol, axis=1)
        V, S, tol = V[feasible], S[feasible], tol[feasible]
        active = np.abs(S) <= tol                       # vertex x row
        real = ~active[:, n:].any(axis=1)                # vertices of the polyhedron, not of the box
        # a weighted mean of a facet's vertices (box corners weigh 1/64) lies in its relative interior and, for
        # an unbounded facet, near its real vertices: points do not drift outwards from one sub-layer to the next
        on = active[:, :n].T * np.where(real, 1.0, 1 / 64)   # row x vertex weights
        count = on.sum(axis=1)
        means = (on @ V) / count[:, None]
        margins = (on @ S[:, :n]) / count[:, None]   # every row's weighted mean slack there
        margins += _TOL * (np.abs(means).max(axis=1)[:, None] + c[:n])
    np.fill_diagonal(margins, -1.0)
    claimed = ((count > 0) & np.all(margins < 0, axis=1)).tolist()
    points = _claimed_facet_points(R, [k for k in range(n) if claimed[k]], X, D, means, sigma)
    if points is None:
        return None
    keep = [k for k in range(n) if claimed[k]]
    dropped = [k for k in range(n) if not claimed[k]]
    hard = []
    cones = {}   # a support of d rows -> its exact cone test (one adjugate, shared by every row it implies)
    if dropped and real.any():
        idx = np.flatnonzero(real)
        best = idx[np.argmax(S[idx][:, dropped], axis=0)].tolist()   # per row: the real vertex where it is largest
        groups = {}
        for k, v in zip(dropped, best):
            groups.setdefault(v, []).append(k)
        for v, ks in groups.items():   # the rows active there (d at a simple vertex) imply every row of the group
            support = np.flatnonzero(active[v, :n]).tolist()
            for sub in combinations(support, d):
                ks = [k for k, ok in zip(ks, _implied_many(cones, R, sub, ks, d)) if not ok]
                if not ks:
                    break
            hard.extend(ks)
    else:
        hard = dropped
    if hard and hull:   # rows Qhull saw on the boundary first: a facet found late may certify the others
        seen = set(subsets.ravel().tolist())
        hard.sort(key=lambda k: k not in seen)
    for k in hard:  # unbounded polyhedra: by LP duality some d facets imply the row; there are few facets
        if any(_implied_by(cones, R, sub, k, d) for sub in combinations(keep, d)):
            continue
        if not hull:
            return None
        point = _decided_by_lp(R, k)     # a row the floats got wrong (far below their resolution): exact LP
        if point is not None:
            keep.append(k)
            points[k] = point
    keep.sort()
    return tuple(distinct[k] for k in keep), {distinct[k]: points[k] for k in keep}


def _decided_by_lp(R, k):
    """Row k of the distinct rows ``R``: ``(N, E)`` on its hyperplane strictly inside the others, or None (implied).

    A certified LP (:func:`~tropattn.exact.relative_interior_point`: a rational point or a
    Farkas vector, an exact simplex when both fail); counted at ``facets_batch``.
    """
    record("fallbacks", where="facets_batch")
    others = R[:k] + R[k + 1:]
    cert = relative_interior_point([r[:-1] for r in others], [r[-1] for r in others], [R[k][:-1]], [R[k][-1]])
    if cert.point is None:
        return None
    N, E = homogeneous_point(cert.point)
    return tuple(N), E


def _centre(U, c):
    """A float point ``y`` with ``U y <= c - r`` for the largest ``r`` (in the box), if ``r`` has clearance.

    The region search's points may lie just across a wall; the polar is then taken around
    this point instead (only the float proposal moves: every certificate is exact and does not
    depend on where the polar was taken).  None when the polyhedron is too thin for floats.
    """
    m, d = U.shape
    A = np.hstack([U, np.ones((m, 1))])
    cost = np.zeros(d + 1)
    cost[-1] = -1.0
    try:
        res = optimize.linprog(cost, A_ub=A, b_ub=c, bounds=[(None, None)] * d + [(0, 1)], method="highs")
    except (ValueError, RuntimeError):
        return None
    if res.status != 0 or not res.x[-1] > _HULL_CLEARANCE * float(c[:-2 * d].max()):
        return None
    y = res.x[:-1]
    if not float((c - U @ y).min()) > _HULL_CLEARANCE * float(c[:-2 * d].max()):
        return None
    return y


def _claimed_facet_points(R, ks, X, D, means, sigma):
    """Certified points on the facets ``ks``: ``{k: (N, E)}``, or None when some facet has none.

    Each rounded mean is projected exactly onto its row (so it lies on it, by construction),
    then tested against every other row at once in floats with a rigorous error bound
    (:func:`_surely_negative`); only entries the bound leaves open are computed in integers,
    and a facet whose point fails gets the finer rounding of :func:`_certified_facet_point`.
    """
    out = {}
    ys = means.tolist()     # Python floats: rounding them is cheaper than rounding numpy scalars
    cand = [(k, _rounded_facet_point(R, k, X, D, ys[k], sigma, 16)) for k in ks]
    sure = _surely_negative(R, [N + (E,) for _, (N, E) in cand]) if cand else None
    for col, (k, (N, E)) in enumerate(cand):
        ok = True
        if sure is None:
            rest = range(len(R))
        else:
            rest = np.flatnonzero(~sure[:, col]).tolist()
        for j in rest:
            if j != k:
                r = R[j]
                if sum(a * x for a, x in zip(r, N)) - r[-1] * E >= 0:
                    ok = False
                    break
        if ok:
            out[k] = (N, E)
            continue
        point = _certified_facet_point(R, k, X, D, ys[k], sigma)
        if point is None:
            return None
        out[k] = point
    return out


def _surely_negative(R, P):
    """``T[j, c]``: is ``R[j][:-1] . P[c][:-1] - R[j][-1] P[c][-1]`` certainly negative?  None beyond floats."""
    found = _float_products(P, R)
    if found is None:
        return None
    T, B = found
    return (T < -B).T


def _float_products(H, P):
    """Float values ``T[i, c] ~ H[i] . P[c]`` of integer vectors and a bound ``B`` with ``|T - exact| < B``.

    Every entry is a sum of ``m`` products of integers; computed in floats (each integer
    rounded, ``|err| <= u |v|``) its error is at most ``gamma_{m+2} sum |h_i p_i|`` (Higham's
    bound; rounding the two inputs adds two to the count), taken here twice over to spare the
    rounding of the bound itself.  Where ``|T| > B`` the sign of ``T`` is the exact sign.  (The
    last entry of ``P``'s vectors enters negated: rows ``(a, b)`` of ``a . x <= b`` against
    homogeneous points ``(N, E)`` give ``a . N - b E``.)  None when an entry is beyond floats.
    """
    try:
        Hf = np.array([[float(v) for v in h] for h in H])
        Pf = np.array([[float(v) for v in p[:-1]] + [-float(p[-1])] for p in P])
    except OverflowError:
        return None
    m = Hf.shape[1]
    u = 2.0 ** -53
    gamma = 2 * (m + 2) * u / (1 - (m + 2) * u)
    with np.errstate(all="ignore"):
        T = Hf @ Pf.T
        B = gamma * (np.abs(Hf) @ np.abs(Pf).T)
    if not (np.isfinite(T).all() and np.isfinite(B).all()):
        return None
    return T, B


def _tightest(rows) -> list:
    """Indices of the rows that can be facets: of parallel rows (same normal direction) the tightest, first."""
    tightest = {}  # normal direction -> (index, bound, gcd)
    for i, r in enumerate(rows):
        g = math.gcd(*r[:-1])
        direction = tuple(v // g for v in r[:-1])
        j = tightest.get(direction)
        if j is None or r[-1] * j[2] < j[1] * g:  # b / g below the other's bound: a 1-row certificate
            tightest[direction] = (i, r[-1], g)
    return sorted(i for i, _, _ in tightest.values())


def _dual_hull_simplices(U, c):
    """The d-subsets of rows active at the float vertices of ``{y : U y <= c}``: one Qhull run on the polar.

    With the origin strictly inside (``c > 0``; the box rows make the polyhedron bounded),
    the polar is the convex hull of the points ``U_i / c_i``: row ``i`` is a facet iff its
    point is a vertex of the hull, and each simplex of the hull's triangulated boundary is a
    vertex of the polyhedron (its ``d`` points the rows active there).  Qhull only proposes:
    the caller solves each simplex's rows for its vertex and certifies everything exactly.
    """
    found = qhull_simplices(U / c[:, None])
    if found is None:
        found = qhull_simplices(U / c[:, None], "QJ")
    if found is None:
        return None
    return np.ascontiguousarray(found[0], dtype=np.intp)


def planar_facets(rows, X, D, start=None, vertices=False):
    """The facet rows of a polygon ``{x in R^2 : r[:-1] . x <= r[-1]}``, exactly in integers.

    The polar dual of the polygon seen from the interior point ``p = X / D`` is the
    convex hull of the origin and the points ``q_i = a_i / (b_i - a_i . p)``; row ``i``
    is a facet iff ``q_i`` is a vertex of it.  Every decision is the sign of an integer:
    ``q_i`` sorted by the angle of ``a_i`` (exact comparisons of cross products), and the
    turn of three dual points, which is the sign of the 3 x 3 determinant of the three
    rows ``(a_i, b_i)`` (the point only picks the farthest dual point, a vertex, to start
    a Graham scan).  Nothing is float, so nothing needs a certificate or a fallback.

    Parameters
    ----------
    rows : sequence of tuple of int
        Integer rows ``(a_1, a_2, b)`` with nonzero normals, each strictly satisfied at
        ``X / D`` (not checked here; the caller knows it).
    X, D : tuple of int, int
        The interior point as two integer numerators over a positive denominator
        (unused, and may be None, when ``start`` is given).
    start : tuple of int, optional
        A row known to be a facet of a polygon known to have interior (the region search
        knows both after a verified crossing): the scan starts there and needs no point.
    vertices : bool, optional
        Also return the vertices of a bounded polygon (the scan meets them anyway).

    Returns
    -------
    (keep, points) or (keep, points, vertices)
        ``keep``: indices of the facet rows, ascending (of rows on parallel lines with the
        same normal direction only the tightest, of equal ones the first); ``points``:
        for each kept index, ``(N, E)`` with ``N / E`` on that row's line and strictly
        inside every other row that is not the same half-plane: the midpoint of a bounded
        edge, a point on a ray one normal length beyond its vertex, or the point of a
        whole line nearest the origin.  Same format as :func:`small_facets`.  With
        ``vertices``: the polygon's vertices ``(X1, X2, D)``, ``D > 0``, in lowest terms and
        counterclockwise order, one per pair of consecutive facets; None when it is unbounded.

    Examples
    --------
    >>> rows = [(1, 0, 1), (0, 1, 1), (-1, 0, 0), (1, 1, 5), (0, -1, 0)]   # the unit square and x + y <= 5
    >>> planar_facets(rows, (1, 1), 2)                                     # x + y <= 5 is implied
    ((0, 1, 2, 4), {0: ((2, 1), 2), 1: ((1, 2), 2), 2: ((0, 1), 2), 4: ((1, 0), 2)})
    >>> planar_facets([(1, 0, 0), (0, 1, 0), (1, 1, 1)], (-1, -1), 1)     # a quadrant: two rays
    ((0, 1), {0: ((0, -1), 1), 1: ((-1, 0), 1)})
    >>> planar_facets(rows, (1, 1), 2, vertices=True)[2]                   # the square's corners
    [(1, 0, 1), (1, 1, 1), (0, 1, 1), (0, 0, 1)]
    """
    best = {}  # primitive normal direction -> (index, b, gcd, angle): of parallel rows only the tightest can be a facet
    info = _ROW_INFO
    for i, r in enumerate(rows):
        got = info.get(r)
        if got is None:
            got = _row_info(r)
        direction, g, angle = got
        j = best.get(direction)
        if j is None or r[2] * j[2] < j[1] * g:
            best[direction] = (i, r[2], g, angle)
    if not best:
        return ((), {}, None) if vertices else ((), {})
    order = _by_angle(best)
    m = len(order)
    dirs = [u for u, _ in order]
    idx = [i for _, i in order]
    gap = None  # the position after which the normals turn by pi or more: the polygon is unbounded there
    for k in range(m):
        u, v = dirs[k], dirs[k + 1 - m]
        if m == 1 or u[0] * v[1] - u[1] * v[0] <= 0:
            gap = k
            break
    R = rows
    if gap is None:   # bounded: a Graham scan from a vertex of the dual (a facet), around the cycle
        if start is not None:
            g = math.gcd(start[0], start[1])
            first = best[(start[0] // g, start[1] // g)][0]
            k0 = idx.index(first)
        else:             # the farthest dual point from the origin: the row nearest the interior point
            x0, x1 = X
            k0, best_n, best_s = 0, 0, 1
            for k, i in enumerate(idx):
                a0, a1, b = R[i]
                s = b * D - a0 * x0 - a1 * x1
                n2 = a0 * a0 + a1 * a1
                if n2 * best_s * best_s > best_n * s * s:
                    k0, best_n, best_s = k, n2, s
        seq = idx[k0:] + idx[:k0] + [idx[k0]]
    else:             # unbounded: the origin is a vertex of the dual (or on an edge); scan from it
        seq = idx[gap + 1:] + idx[:gap + 1]
    stack = [seq[0]]
    for q in seq[1:]:
        r2 = R[q]
        while len(stack) >= 2:
            r0, r1 = R[stack[-2]], R[stack[-1]]
            c0 = r1[1] * r2[2] - r1[2] * r2[1]
            c1 = r1[0] * r2[2] - r1[2] * r2[0]
            c2 = r1[0] * r2[1] - r1[1] * r2[0]
            if r0[0] * c0 - r0[1] * c1 + r0[2] * c2 > 0:    # a left turn q_{-2}, q_{-1}, q: q_{-1} stays
                break
            stack.pop()
        stack.append(q)
    if gap is None:
        stack.pop()
    if not vertices:
        return _facet_points(R, stack, gap is None)[:2]
    return _facet_points(R, stack, gap is None, True)


#: Rows seen by :func:`planar_facets` -> (primitive normal direction, its gcd, float angle or None): a region's rows
#: recur in every piece of its parent, so each is reduced once (cleared past _ROW_INFO_SIZE entries).
_ROW_INFO = {}
_ROW_INFO_SIZE = 1 << 12


def _row_info(r):
    a0, a1 = r[0], r[1]
    g = math.gcd(a0, a1)
    try:
        angle = math.atan2(a1, a0)
    except OverflowError:
        angle = None
    got = ((a0 // g, a1 // g), g, angle)
    if len(_ROW_INFO) >= _ROW_INFO_SIZE:
        _ROW_INFO.clear()
    _ROW_INFO[r] = got
    return got


def _by_angle(best):
    """``[(direction, index)]`` in the order of the normals' angle in (-pi, pi], checked exactly.

    The float angles (atan2) only propose the order; each neighbouring pair is compared
    exactly, and an exact sort replaces the proposal if one pair is out of order.
    """
    try:
        order = [(u, v[0]) for _, u, v in sorted((v[3], u, v) for u, v in best.items())]
    except TypeError:     # an angle beyond floats (None): the exact sort
        order = None
    if order is not None:
        for k in range(len(order) - 1):
            if _angle_cmp(order[k][0], order[k + 1][0]) >= 0:
                break
        else:
            return order
    return sorted(((u, v[0]) for u, v in best.items()), key=functools.cmp_to_key(lambda s, t: _angle_cmp(s[0], t[0])))


def _angle_cmp(u, v) -> int:
    """-1, 0, 1 as the angle of the integer vector ``u`` in (-pi, pi] is below, equal to, above that of ``v``."""
    cu = 0 if u[1] < 0 else 1 if (u[1] > 0 or u[0] > 0) else 2
    cv = 0 if v[1] < 0 else 1 if (v[1] > 0 or v[0] > 0) else 2
    if cu != cv:
        return -1 if cu < cv else 1
    c = u[0] * v[1] - u[1] * v[0]
    return -1 if c > 0 else 1 if c < 0 else 0


def _facet_points(R, F, bounded, corners=False):
    """``(keep, points, vertices)`` of the facets ``F`` (in counterclockwise order of their normals).

    ``vertices`` (only with ``corners``): those of a bounded polygon with at least three
    facets, in lowest terms; else None.
    """
    f = len(F)
    if bounded and f >= 3:   # the common case, a polygon: every facet point is the midpoint of its edge
        rows = [R[i] for i in F]
        vertices = []
        for k in range(f):
            a, c = rows[k], rows[k + 1 - f]
            vertices.append((a[2] * c[1] - a[1] * c[2], a[0] * c[2] - a[2] * c[0], a[0] * c[1] - a[1] * c[0]))
        if all(v[2] for v in vertices):         # no two consecutive facets parallel
            points = {}
            gcd = math.gcd
            for k, i in enumerate(F):
                n0, n1, e = vertices[k - 1]
                m0, m1, g = vertices[k]
                N0, N1, E = n0 * g + m0 * e, n1 * g + m1 * e, 2 * e * g
                h = gcd(E, N0, N1)
                points[i] = ((N0 // h, N1 // h), E // h) if h > 1 else ((N0, N1), E)
            keep = tuple(sorted(F))
            if not corners:
                return keep, {i: points[i] for i in keep}, None
            lowest = []
            for x0, x1, e in vertices:
                h = gcd(x0, x1, e)
                lowest.append((x0 // h, x1 // h, e // h) if h > 1 else (x0, x1, e))
            return keep, {i: points[i] for i in keep}, lowest
    vertices = []  # vertex k: the lines of F[k] and F[k + 1], as (N, E) with E > 0
    for k in range(f if bounded else f - 1):
        a, c = R[F[k]], R[F[k + 1 - f]]
        vertices.append(((a[2] * c[1] - a[1] * c[2], a[0] * c[2] - a[2] * c[0]), a[0] * c[1] - a[1] * c[0]))
    points = {}
    for k, i in enumerate(F):
        a0, a1, b = R[i]
        before = vertices[k - 1] if (bounded or k > 0) else None
        after = vertices[k] if (bounded or k < f - 1) else None
        if before is not None and before[1] == 0:   # a strip: the two lines are parallel
            before = None
        if after is not None and after[1] == 0:
            after = None
        if before is not None and after is not None:      # the midpoint of a bounded edge
            (n0, n1), e = before
            (m0, m1), g = after
            N, E = (n0 * g + m0 * e, n1 * g + m1 * e), 2 * e * g
        elif after is not None:                           # a ray leaving the vertex against the next facet
            (n0, n1), e = after
            N, E = (n0 + e * a1, n1 - e * a0), e
        elif before is not None:                          # a ray leaving the vertex against the previous facet
            (n0, n1), e = before
            N, E = (n0 - e * a1, n1 + e * a0), e
        else:                                             # a whole line
            N, E = (b * a0, b * a1), a0 * a0 + a1 * a1
        g = math.gcd(E, *N)
        points[i] = ((N[0] // g, N[1] // g), E // g) if g > 1 else (N, E)
    keep = tuple(sorted(F))
    return keep, {i: points[i] for i in keep}, None


def _solve_all(M, rhs):
    """Every nonsingular d x d system ``M[i] y = rhs[i]`` at once (closed form for d = 2); singular ones dropped."""
    if M.shape[1] == 2:
        det = M[:, 0, 0] * M[:, 1, 1] - M[:, 0, 1] * M[:, 1, 0]
        ok = np.abs(det) > 1e-12
        det, M, rhs = det[ok], M[ok], rhs[ok]
        return np.stack([(rhs[:, 0] * M[:, 1, 1] - M[:, 0, 1] * rhs[:, 1]) / det,
                         (M[:, 0, 0] * rhs[:, 1] - rhs[:, 0] * M[:, 1, 0]) / det], axis=1)
    ok = np.abs(np.linalg.det(M)) > 1e-12
    return np.linalg.solve(M[ok], rhs[ok][..., None])[..., 0]


@functools.lru_cache(maxsize=16)
def _box_normals(d):
    return np.concatenate([np.eye(d), -np.eye(d)])


@functools.lru_cache(maxsize=256)
def _subsets(m, d):
    return np.array(list(combinations(range(m), d)), dtype=np.intp)


def _certified_facet_point(R, k, X, D, y, sigma):
    """``p + sigma y`` rounded, projected exactly onto row k, checked against every other row.

    Rounded first to ``2^-16 sigma`` (small integers), then to ``2^-40 sigma`` if that fails.
    """
    for bits in (16, 40):
        point = _facet_point_at(R, k, X, D, y, sigma, bits)
        if point is not None:
            return point
    return None


def _rounded_facet_point(R, k, X, D, y, sigma, bits):
    """``p + sigma y`` rounded to ``2^-bits sigma``, projected exactly onto row k: ``(N, E)`` (on it; unchecked)."""
    e = math.frexp(sigma)[1] - 1                    # sigma = 2^e
    shift = bits - e if e < bits else 0
    yq = [round(v * 2.0 ** bits) << max(e - bits, 0) for v in y]   # sigma y ~ yq / 2^shift
    E = D << shift
    N = [(x << shift) + D * v for x, v in zip(X, yq)]
    a, beta = R[k][:-1], R[k][-1]
    norm2 = sum(v * v for v in a)
    gap = beta * E - sum(ai * xi for ai, xi in zip(a, N))
    N = [xi * norm2 + gap * ai for xi, ai in zip(N, a)]
    E *= norm2
    g = math.gcd(E, *N)
    if g > 1:
        N, E = [v // g for v in N], E // g
    return tuple(N), E


def _facet_point_at(R, k, X, D, y, sigma, bits):
    """:func:`_rounded_facet_point`, kept only when it lies on row k and strictly inside every other row."""
    N, E = _rounded_facet_point(R, k, X, D, y, sigma, bits)
    if len(N) == 2:
        n0, n1 = N
        for j, (r0, r1, rb) in enumerate(R):
            t = r0 * n0 + r1 * n1 - rb * E
            if (t != 0) if j == k else (t >= 0):
                return None
        return tuple(N), E
    for j, r in enumerate(R):
        t = sum(ai * xi for ai, xi in zip(r, N)) - r[-1] * E
        if (t != 0) if j == k else (t >= 0):
            return None
    return tuple(N), E


def _implied_many(cones, R, sub, ks, d) -> list:
    """:func:`_implied_by` for several rows ``ks`` and one support: one float product with an error bound.

    The tests ``C_i . a >= 0`` and ``b det - w . a >= 0`` are the signs of one small integer
    matrix against the rows ``(a, b)``; floats decide where :func:`_float_products`' bound
    allows, the rest is computed in integers.  A row of ``sub`` is never its own certificate.
    """
    test = cones.get(sub)
    if test is None:
        test = cones[sub] = _cone_test([R[j] for j in sub], d)
    if test is False:
        return [False] * len(ks)
    C, det, w = test
    H = [tuple(row) + (0,) for row in C] + [tuple(-v for v in w) + (-det,)]   # (a, b) enters as (a, -b)
    found = _float_products(H, [R[k] for k in ks])
    if found is None:
        return [k not in sub and _implied_by(cones, R, sub, k, d) for k in ks]
    T, B = found
    yes, no = (T > B).all(axis=0).tolist(), (T < -B).any(axis=0).tolist()
    return [k not in sub and not n_ and (y or _implied_by(cones, R, sub, k, d)) for k, y, n_ in zip(ks, yes, no)]


def _implied_by(cones, R, sub, k, d) -> bool:
    """Do the rows ``sub`` imply row ``k`` (``a_k = sum y_i a_i``, ``y >= 0``, ``sum y_i b_i <= b_k``)?  Exact.

    The test of a support is built once (:func:`_cone_test`) and kept in ``cones``: then each
    row costs ``d + 1`` integer dot products.
    """
    test = cones.get(sub)
    if test is None:
        test = cones[sub] = _cone_test([R[j] for j in sub], d)
    if test is False:
        return False
    C, det, w = test
    a = R[k]
    for row in C:
        if sum(x * y for x, y in zip(row, a)) < 0:
            return False
    return a[-1] * det - sum(x * y for x, y in zip(w, a)) >= 0


def _cone_test(rows, d):
    """``(C, det, w)`` for rows ``(a_i, b_i)`` with independent normals, or False when they are dependent.

    With ``M`` the matrix of the normals (one per row), ``M^T y = t`` has the solution
    ``y = C t / det`` where ``C`` is the cofactor matrix of ``M`` (Cramer's rule); the signs
    are folded in so that ``det > 0``.  Then ``t`` is implied with multipliers ``y >= 0`` iff
    every ``C_i . t >= 0``, and ``sum y_i b_i <= t_b`` iff ``t_b det - w . t >= 0`` with
    ``w = C^T b`` (weak duality: any such ``y`` proves ``t . x <= t_b`` on the rows).
    """
    A = [r[:-1] for r in rows]
    if d == 2:
        (a0, a1), (c0, c1) = A
        C = [[c1, -c0], [-a1, a0]]
        det = a0 * c1 - a1 * c0
    elif d == 3:
        (a0, a1, a2), (b0, b1, b2), (c0, c1, c2) = A
        C = [[b1 * c2 - b2 * c1, b2 * c0 - b0 * c2, b0 * c1 - b1 * c0],
             [c1 * a2 - c2 * a1, c2 * a0 - c0 * a2, c0 * a1 - c1 * a0],
             [a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0]]
        det = a0 * C[0][0] + a1 * C[0][1] + a2 * C[0][2]
    else:
        C = [[(-1) ** (i + j) * integer_determinant([[A[r][s] for s in range(d) if s != j] for r in range(d) if r != i])
              for j in range(d)] for i in range(d)]
        det = sum(A[0][j] * C[0][j] for j in range(d))
    if det == 0:
        return False
    if det < 0:
        C, det = [[-v for v in row] for row in C], -det
    b = [r[-1] for r in rows]
    w = [sum(C[i][j] * b[i] for i in range(d)) for j in range(d)]
    return C, det, w
