"""The region search's polyhedral questions, answered exactly: facets, facets that meet, and merged sets.

The search of :mod:`tropattn.regions` holds regions as primitive integer rows ``(a, b)`` for
``a . x <= b`` and rational points as integers ``(X, D)`` (the point ``X / D``).  It asks
three questions, all of them here, where floats may only *propose* what integers then prove:

* :func:`region_facets` -- which rows of a region are facets, each with a point in its
  relative interior (the planar Graham scan, the batched float enumeration of small
  polyhedra, or the general certified LP of :func:`~tropattn.exact.integer_facets`);
* :func:`facets_overlap` and :func:`overlapping_pairs` -- do two facets on one hyperplane
  (from the two sides of a wall) share a ``(d-1)``-dimensional piece?  Exact Fractions on a
  line; above, float vertices of the facets pick dual certificates (integer Cramer's rule,
  weak duality) that prove exact coordinate bounds or a separating row, a rounded float
  point proves an overlap, and a certified LP decides what is left;
* :class:`UnionFind` -- the linear regions: sets of region ids merged across facets.

>>> keep, points = region_facets([(1, 0, 1), (-1, 0, 0), (0, 1, 1), (0, -1, 0), (1, 1, 5)], (1, 1), 2)
>>> keep                                  # the unit square seen from (1/2, 1/2); x + y <= 5 is implied
[0, 1, 2, 3]
>>> u = WallFacet(((1, 0, 0), (0, 1, 1), (0, -1, 0)), 0, None)     # x <= 0 with 0 <= y <= 1, and
>>> v = WallFacet(((-1, 0, 0), (0, 1, 2), (0, -1, -1)), 0, None)   # x >= 0 with 1 <= y <= 2: one point
>>> facets_overlap(u, v, (1, 0, 0), 2)                            # in common, no segment
False
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

import numpy as np

from ._counters import record
from ._facets_batch import planar_facets, small_facets
from ._linalg import determinants
from ._lp import relative_interior_point
from ._numbers import homogeneous_point
from ._redundancy import integer_facets

__all__ = ["region_facets", "WallFacet", "facets_overlap", "overlapping_pairs", "UnionFind"]

#: Float vertex enumeration of a facet: at most this many of the region's other rows.
_MAX_ROWS = 24
#: A float vertex is feasible when every row holds up to this relative slack (it only proposes).
_SLACK = 1e-9
#: A float d x d system is solved when its scaled determinant is above this (it only proposes).
_SINGULAR = 1e-10
#: A rounded float point on the hyperplane has this many fractional bits.
_POINT_BITS = 48


def region_facets(rows, X, D, entry=None, vertices=False):
    """Certified facets of ``{x : rows}`` seen from the strictly interior point ``X / D``.

    Parameters
    ----------
    rows : sequence of tuple of int
        Integer rows ``(a_1, ..., a_d, b)`` for ``a . x <= b`` (rows with ``a = 0`` are skipped).
    X : tuple of int
        Numerator of a point strictly inside every row.
    D : int
        Its positive denominator.
    entry : tuple of int, optional
        In the plane only: a row known to be a facet of a region known to have interior
        (the reversed row crossed into it); then ``X / D`` may lie on that row instead.
    vertices : bool, optional
        In the plane only: also return the polygon's vertices.

    Returns
    -------
    keep : list of int
        Indices into ``rows`` of the facets (irredundant: each is needed).
    points : list of tuple
        For each kept row, ``(N, E)``: the point ``N / E`` in that facet's relative interior.
    vertices : list of tuple or None
        With ``vertices`` only: the vertices ``(X1, X2, D)`` (``D > 0``, lowest terms) of a
        bounded polygon, counterclockwise (:func:`~._facets_batch.planar_facets`); None
        when the polygon is unbounded or has zero rows.

    Examples
    --------
    >>> region_facets([(1, 1), (-1, 1), (2, 5)], (1,), 2)     # -1 <= x <= 1; 2x <= 5 is implied
    ([0, 1], [((1,), 1), ((-1,), 1)])
    """
    if len(X) == 2 and all(r[0] or r[1] for r in rows):    # the plane, no zero rows: no renumbering
        keep, points, V = planar_facets(rows, X, D, entry, vertices=True)
        return (list(keep), [points[i] for i in keep]) + ((V,) if vertices else ())
    nonzero = [i for i, r in enumerate(rows) if any(r[:-1])]
    sub = [rows[i] for i in nonzero]
    V = None
    if len(X) == 2:
        keep, points, V = planar_facets(sub, X, D, entry, vertices=True)
    else:
        fast = small_facets(sub, X, D)
        if fast is None:
            fs = integer_facets(sub, tuple(Fraction(x, D) for x in X))
            fast = fs.rows, {i: homogeneous_point(p) for i, p in fs.points.items()}
        keep, points = fast
    return ([nonzero[i] for i in keep], [points[i] for i in keep]) + ((V,) if vertices else ())


@dataclass(slots=True)
class WallFacet:
    """A region's facet on a hyperplane: the region's rows, which of them is the facet, a point on it.

    The facet is ``{x : all_rows[k] tight, every other row}``; ``point`` is ``(N, E)``, a
    point ``N / E`` in its relative interior (used in dimension >= 3, may be None below).
    Exact coordinate bounds and float vertices are computed when first needed and kept.
    """

    all_rows: tuple
    k: int
    point: tuple
    box: list = None        # exact coordinate bounds of the facet, computed when needed (d >= 3)
    vertices: tuple = None  # (float vertices of the facet and their active rows,), when needed

    @property
    def rows(self) -> tuple:
        """The region's other rows."""
        return self.all_rows[:self.k] + self.all_rows[self.k + 1:]


def facets_overlap(u: WallFacet, v: WallFacet, key, d) -> bool:
    """Do two facets on the hyperplane ``key`` share a (d-1)-dimensional piece?  Exact.

    A facet point of one strictly inside the other's rows proves it at once; on a line
    (``d = 2``) the facets are intervals (exact Fractions); above, exact coordinate bounds,
    a separating row or a rounded common point decide most pairs, and a certified LP in the
    hyperplane decides the rest.

    Parameters
    ----------
    u, v : WallFacet
        Facets on the same hyperplane (usually from its two sides).
    key : tuple of int
        The hyperplane ``(a, beta)``: ``a . x = beta``, primitive.
    d : int
        The dimension.

    Returns
    -------
    bool

    Examples
    --------
    >>> u = WallFacet(((1, 0, 0), (0, 1, 1), (0, -1, 0)), 0, None)       # on x = 0: 0 <= y <= 1
    >>> v = WallFacet(((-1, 0, 0), (0, 1, 3), (0, -2, -1)), 0, None)     # ... and 1/2 <= y <= 3
    >>> facets_overlap(u, v, (1, 0, 0), 2)
    True
    """
    if d == 1:
        return True
    for p, q in ((u, v), (v, u)) if d > 2 else ():
        N, E = p.point
        if all(sum(a * x for a, x in zip(r, N)) < r[-1] * E for r in q.rows):
            return True
    if d == 2:
        lo1, hi1 = _interval(u.rows, key)
        lo2, hi2 = _interval(v.rows, key)
        lo = lo1 if lo2 is None else lo2 if lo1 is None else max(lo1, lo2)
        hi = hi1 if hi2 is None else hi2 if hi1 is None else min(hi1, hi2)
        return lo is None or hi is None or lo < hi
    if _separated(_facet_box(u, key, d), _facet_box(v, key, d), key) or _row_separates(u, v, key, d) \
            or _row_separates(v, u, key, d):
        return False
    if _common_point(u, v, key, d):
        return True
    rows = u.rows + v.rows
    cert = relative_interior_point([r[:-1] for r in rows], [r[-1] for r in rows], [key[:-1]], [key[-1]])
    return cert.feasible


def overlapping_pairs(plus, minus, key, d) -> list:
    """Every pair (u from ``plus``, v from ``minus``) of facets on the hyperplane ``key`` that overlap.

    In the plane the facets are open intervals of the line; the facets of one side are
    disjoint, so are their intervals, and one merge of the two lists sorted by their left
    ends finds every overlapping pair.  Above, every pair is tested (:func:`facets_overlap`).

    Parameters
    ----------
    plus, minus : sequence of WallFacet
        The facets on the two sides of the hyperplane, each side's facets pairwise disjoint.
    key : tuple of int
        The hyperplane ``(a, beta)``.
    d : int
        The dimension.

    Returns
    -------
    list of tuple
        ``(u, v)`` pairs, ``u`` from ``plus`` and ``v`` from ``minus``.

    Examples
    --------
    >>> left = [WallFacet(((1, 0, 0), (0, 1, 1), (0, -1, 0)), 0, None),      # on x = 0: 0 <= y <= 1
    ...         WallFacet(((1, 0, 0), (0, 1, 2), (0, -1, -1)), 0, None)]     # and 1 <= y <= 2
    >>> right = [WallFacet(((-1, 0, 0), (0, 1, 3), (0, -2, -1)), 0, None)]   # 1/2 <= y <= 3
    >>> [(left.index(u), right.index(v)) for u, v in overlapping_pairs(left, right, (1, 0, 0), 2)]
    [(0, 0), (1, 0)]
    """
    if d != 2:
        return [(u, v) for u in plus for v in minus if facets_overlap(u, v, key, d)]
    a = sorted(((_interval(u.rows, key), u) for u in plus), key=_left_end)
    b = sorted(((_interval(v.rows, key), v) for v in minus), key=_left_end)
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        (lo1, hi1), u = a[i]
        (lo2, hi2), v = b[j]
        lo = lo1 if lo2 is None else lo2 if lo1 is None else max(lo1, lo2)
        hi = hi1 if hi2 is None else hi2 if hi1 is None else min(hi1, hi2)
        if lo is None or hi is None or lo < hi:
            out.append((u, v))
        if hi2 is None or (hi1 is not None and hi1 <= hi2):   # the interval that ends first is done
            i += 1
        else:
            j += 1
    return out


def _interval(rows, key):
    """The open interval ``(lo, hi)`` of the line ``key`` where every row holds strictly (None: unbounded).

    The line is ``x(t) = beta a / |a|^2 + t (-a_2, a_1)``; a row ``r`` holds at ``x(t)`` iff
    ``c t < K / |a|^2`` with ``c = r . (-a_2, a_1)`` and ``K = r_b |a|^2 - beta (r . a)``: the
    bounds ``K / (c |a|^2)`` are compared in integers, and the two ends made Fractions.
    """
    a0, a1, beta = key
    n2 = a0 * a0 + a1 * a1
    lo = hi = None  # as (numerator, positive denominator) of t |a|^2
    for r0, r1, rb in rows:
        c = r1 * a0 - r0 * a1
        if c == 0:
            continue
        K = rb * n2 - beta * (r0 * a0 + r1 * a1)
        if c > 0:
            if hi is None or K * hi[1] < hi[0] * c:
                hi = (K, c)
        elif lo is None or K * lo[1] < lo[0] * c:   # K / c > lo with c < 0: -K / -c against lo
            lo = (-K, -c)
    return (None if lo is None else Fraction(lo[0], lo[1] * n2)), (None if hi is None else Fraction(hi[0], hi[1] * n2))


def _left_end(item):
    lo = item[0][0]
    return (0, 0) if lo is None else (1, lo)


def _row_separates(u: WallFacet, v: WallFacet, key, d) -> bool:
    """Some row ``q`` of ``v`` has all of ``u``'s facet on its far side (``q . x >= q_b``), proved by duality.

    In a plane (d = 3) two convex facets with no common open set are always separated by
    the line of an edge of one of them (separating axes), so this decides every bounded case.
    """
    found = _vertices_of(u, key, d)
    if found is None:
        return False
    subsets, V = found
    for q in v.rows:
        Q = _floats([q])
        if Q is None:                      # beyond the float range: no proposal, the LP decides
            continue
        values = V @ Q[0, :-1]
        if values.min() < Q[0, -1] - _SLACK * (1 + abs(Q[0, -1])):
            continue
        best = subsets[int(np.argmin(values))]
        bound = _dual_bounds([[u.rows[i] for i in best]], key, [[-c for c in q[:-1]]], d)[0]
        if bound is not None and bound <= -q[-1]:
            return True
    return False


def _vertices_of(u: WallFacet, key, d):
    if u.vertices is None:
        u.vertices = (_hyperplane_vertices(u.rows, key, d),)
    return u.vertices[0]


def _separated(box1, box2, key) -> bool:
    """Two facets' exact boxes (per coordinate: low, high; None = unbounded) meet in no open set of ``key``.

    A coordinate that is constant on the hyperplane (its normal is that axis) has
    ``low = high`` on both facets and separates nothing: it is skipped.
    """
    a = key[:-1]
    axis = [j for j, c in enumerate(a) if c]
    for j, ((lo1, hi1), (lo2, hi2)) in enumerate(zip(box1, box2)):
        if axis == [j]:
            continue
        if (hi1 is not None and lo2 is not None and hi1 <= lo2) or (hi2 is not None and lo1 is not None and hi2 <= lo1):
            return True
    return False


def _facet_box(u: WallFacet, key, d):
    """Exact bounds of every coordinate on the facet ``{x : key, u.rows}``, certified by duality.

    Floats find, for each direction ``+-e_j``, the facet's vertex where ``x_j`` is
    extreme and the ``d - 1`` rows active there; integer Cramer's rule then gives
    ``+-e_j = sum y_i a_i + mu h`` with ``y >= 0`` (``mu`` free), and so the exact bound
    ``+-x_j <= sum y_i b_i + mu beta`` on the whole facet (weak duality: any such ``y``
    proves it, the floats only choose it).  Unproved bounds are None.
    """
    if u.box is not None:
        return u.box
    box = [[None, None] for _ in range(d)]
    u.box = box
    rows = u.rows
    found = _vertices_of(u, key, d)
    if found is None:
        return box
    subsets, V = found
    asks = [(j, sign, side) for j in range(d) for sign, side in ((1, 1), (-1, 0))]
    actives = [[rows[i] for i in subsets[int(np.argmax(sign * V[:, j]))]] for j, sign, _ in asks]
    targets = [[sign * int(i == j) for i in range(d)] for j, sign, _ in asks]
    for (j, sign, side), bound in zip(asks, _dual_bounds(actives, key, targets, d)):
        if bound is not None:
            box[j][side] = bound * sign
    return box


def _hyperplane_vertices(rows, key, d):
    """Float vertices of ``{x : key . x = beta, rows}``: (the d - 1 rows active at each, the vertices), or None."""
    if len(rows) < d - 1 or len(rows) > _MAX_ROWS:
        return None
    G, h = _floats(rows), _floats([key])
    if G is None or h is None:
        record("declined", where="facets_overlap")        # beyond the float range: the LP decides
        return None
    h = h[0]
    subsets = np.array(list(combinations(range(len(rows)), d - 1)), dtype=np.intp)
    M = np.concatenate([G[subsets][:, :, :-1], np.broadcast_to(h[:-1], (len(subsets), 1, d))], axis=1)
    rhs = np.concatenate([G[subsets][:, :, -1], np.full((len(subsets), 1), h[-1])], axis=1)
    with np.errstate(all="ignore"):
        scale = np.abs(M).max(axis=(1, 2))
        ok = np.abs(np.linalg.det(M / scale[:, None, None])) > _SINGULAR
        if not ok.any():
            return None
        V = np.linalg.solve(M[ok], rhs[ok][..., None])[..., 0]
        slack = V @ G[:, :-1].T - G[:, -1]
        tol = _SLACK * (1 + np.abs(G[:, -1]))
        feasible = np.all(slack <= tol, axis=1) & np.all(np.isfinite(V), axis=1)
    if not feasible.any():
        return None
    return subsets[ok][feasible], V[feasible]


def _floats(rows):
    """The integer rows as a float array, or None when an entry is beyond the float range."""
    try:
        return np.array([[float(v) for v in r] for r in rows])
    except OverflowError:
        return None


def _common_point(u: WallFacet, v: WallFacet, key, d) -> bool:
    """A rational point on ``key`` strictly inside both facets' rows, from the mean of float vertices."""
    rows = u.rows + v.rows
    found = _hyperplane_vertices(rows, key, d)
    if found is None or len(found[1]) < d:
        return False
    scale = 1 << _POINT_BITS
    with np.errstate(over="ignore", invalid="ignore"):
        y = found[1].mean(axis=0)
        finite = np.all(np.isfinite(y * float(scale)))
    if not finite:
        return False
    num = [round(c * scale) for c in y]
    a, beta = key[:-1], key[-1]
    norm2 = sum(c * c for c in a)
    gap = beta * scale - sum(c * x for c, x in zip(a, num))
    N, E = [x * norm2 + gap * c for x, c in zip(num, a)], scale * norm2    # projected onto the hyperplane
    return all(sum(c * x for c, x in zip(r, N)) < r[-1] * E for r in rows)


def _dual_bounds(actives, key, targets, d) -> list:
    """For each ``(active, target)``: ``target . x <= bound`` on ``{key: equality, active: <=}``, or None.

    ``target = sum y a + mu h`` by Cramer's rule over the integers (every determinant of
    every system in one call of :func:`~tropattn.exact._linalg.determinants`); the bound
    holds when ``y >= 0`` (weak duality), and is None where the system is singular or
    some ``y < 0``.
    """
    stack = []
    for active, target in zip(actives, targets):
        cols = [list(r[:-1]) for r in active] + [list(key[:-1])]
        stack.append([[c[i] for c in cols] for i in range(d)])
        for m in range(d):
            stack.append([[(target if k == m else c)[i] for k, c in enumerate(cols)] for i in range(d)])
    dets = determinants(np.array(stack, dtype=object)).tolist()
    out = []
    for t, active in enumerate(actives):
        det, *cramer = dets[t * (d + 1):(t + 1) * (d + 1)]
        if det == 0:
            out.append(None)
            continue
        y = [Fraction(c, det) for c in cramer]
        if any(v < 0 for v in y[:-1]):
            out.append(None)
            continue
        out.append(sum(v * r[-1] for v, r in zip(y[:-1], active)) + y[-1] * key[-1])
    return out


class UnionFind:
    """Union-find on the ids ``0, 1, ...``: one machine integer per element (``array('q')``).

    The root of a set is its smallest id, whatever the order of the unions, so a numbering of
    the sets by their roots does not depend on how the work was split.  (``networkx.utils.UnionFind``
    keeps two dicts, measured at 137 bytes per element against 8 here: a search of 10^6
    regions with ``keep="counts"`` must stay near 200 bytes per region.)

    >>> uf = UnionFind(); ids = [uf.add() for _ in range(4)]
    >>> uf.union(3, 1), uf.union(1, 3), uf.find(3), uf.groups()
    (True, False, 1, 3)
    """

    __slots__ = ("parent",)

    def __init__(self, parent=()):
        self.parent = array("q", parent)

    def __len__(self) -> int:
        return len(self.parent)

    def add(self) -> int:
        """A new singleton; its id."""
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def extend(self, parents, offset: int) -> None:
        """Append another union-find's parent array, its ids shifted by ``offset`` (its length before)."""
        self.parent.extend(offset + p for p in parents)

    def find(self, i: int) -> int:
        """The root (smallest id) of ``i``'s set, halving the path on the way."""
        p = self.parent
        root = i
        while p[root] != root:
            root = p[root]
        while p[i] != root:
            p[i], i = root, p[i]
        return root

    def union(self, i: int, j: int) -> bool:
        """Join the sets of i and j; True when they were apart."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return False
        if ri < rj:
            ri, rj = rj, ri
        self.parent[ri] = rj  # the smaller id is the root: roots do not depend on the order of unions
        return True

    def groups(self) -> int:
        """How many sets."""
        return sum(1 for i, p in enumerate(self.parent) if i == p)

    def numbering(self) -> array:
        """For each id, the number of its set, sets numbered in the order of their smallest ids.

        A root is the smallest id of its set, so it is numbered before the rest of its set:
        one pass, and no memory beyond the answer (8 bytes per element).

        >>> uf = UnionFind(); _ = [uf.add() for _ in range(3)]; _ = uf.union(2, 0)
        >>> list(uf.numbering())
        [0, 1, 0]
        """
        n = len(self.parent)
        out, count = array("q", bytes(8 * n)), 0
        for i in range(n):
            root = self.find(i)
            if root == i:
                out[i], count = count, count + 1
            else:
                out[i] = out[root]
        return out
