"""The certified cells of a power diagram, read off the upper hull of the lifted points.

How the cells are computed and certified (docs/ALGORITHMS.md §2-3), in integer (homogeneous)
coordinates ``L (a_j . x + b_j) = A_j . x + B_j`` throughout:

* on the line (``d = 1``), the upper hull of the lifted points ``(A_j, B_j)`` is an exact
  integer monotone chain: no floats, nothing to certify;
* in the plane, Qhull computes the upper hull of the lifted points once; each upper
  triangle's plane is rebuilt exactly from integer coordinates, and numpy object arrays of
  Python integers check, all triangles at once, that the triangles tile ``conv{a_j}`` once
  (edges paired in opposite directions, boundary edges on lines with every point inside),
  that the surface is locally concave (so it is a concave graph), and that every other
  lifted point lies below it (located in a triangle, else :func:`tropattn.exact.dot_signs`
  against every plane).  Flat edges merge triangles into facets.  Cells, adjacency, hidden
  sites, interior points (centroids of cell vertices, pushed along the recession cone when the
  cell is unbounded, checked exactly against every row) and facet points are read off;
* in dimension ``d >= 3``, Qhull's upper hull in ``R^{d+1}`` is certified when every upper face
  is a simplex (:func:`tropattn.exact.upper_facets`, simplicial kernel: filtered determinant
  signs for all simplices and ridges at once, ridges paired across or on the boundary of
  ``conv{a_j}``, every other lifted point located below a simplex); it gives the hidden sites and
  each cell's neighbours, and the cells' interior and wall points follow from it (built in
  integers when first read);
* otherwise, or where a certificate fails, each cell is decided by the certified LPs
  :func:`tropattn.exact.interior_point` and :func:`tropattn.exact.facets` on its full system
  of ``N - 1`` bisector rows.

The fast paths keep a cell's rows and points as integers and build the Fractions of
:class:`PowerCell` only when they are read.

>>> from tropattn.geometry import PowerDiagram
>>> [c.neighbors for c in power_cells(PowerDiagram.voronoi([[0, 0], [2, 0], [0, 2]]))]
[(1, 2), (0, 2), (0, 1)]
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .._validate import choice
from ..exact import certified_hull, facets, homogeneous_row, interior_point, record
from ._lifting import METHODS, integer_upper_hull

__all__ = ["PowerCell", "power_cells", "power_table"]


@dataclass(frozen=True, init=False, eq=False)
class PowerCell:
    """One full-dimensional cell ``{x : A x <= b}`` of a power diagram, certified.

    Attributes
    ----------
    site : int
        The site (key) index owning the cell.
    A, b : tuple of tuple of Fraction, tuple of Fraction
        Only the facet rows: row ``i`` is the bisector ``(a_k - a_j) . x <= b_j - b_k``
        with ``k = neighbors[i]`` (``b`` in score form, see :func:`weights_to_scores`).
    neighbors : tuple of int
        The site across each facet, sorted increasingly.
    interior_point : tuple of Fraction
        A rational point strictly inside every row (checked exactly).
    facet_points : tuple of tuple of Fraction
        ``facet_points[i]`` lies on row ``i`` and strictly inside every other row: a
        point in the relative interior of the facet shared with ``neighbors[i]``.

    The fast paths certify a cell in integer (homogeneous) coordinates and build the
    Fractions of ``A``, ``b``, ``interior_point`` and ``facet_points`` only when they are
    first read; equality, hashing and ``repr`` use those exact values.

    >>> from tropattn.geometry import PowerDiagram
    >>> cell = PowerDiagram.voronoi([[0], [2]]).cells()[0]
    >>> cell.A, cell.b, cell.neighbors                   # x <= 1
    (((Fraction(2, 1),),), (Fraction(2, 1),), (1,))
    """

    site: int
    neighbors: tuple
    _exact: object = field(repr=False)

    def __init__(self, site, A, b, neighbors, interior_point, facet_points=()):
        object.__setattr__(self, "site", site)
        object.__setattr__(self, "neighbors", tuple(neighbors))
        object.__setattr__(self, "_exact", {"A": tuple(map(tuple, A)), "b": tuple(b),
                                            "interior_point": tuple(interior_point),
                                            "facet_points": tuple(map(tuple, facet_points))})

    @classmethod
    def _deferred(cls, site, neighbors, source):
        """A cell whose exact fields ``source.build(name)`` makes on first access."""
        cell = object.__new__(cls)
        object.__setattr__(cell, "site", site)
        object.__setattr__(cell, "neighbors", neighbors)
        object.__setattr__(cell, "_exact", source)
        return cell

    def _get(self, name):
        ex = self._exact
        return ex[name] if type(ex) is dict else ex.get(name)

    A = property(lambda self: self._get("A"), doc="Facet rows (tuple of tuples of Fraction).")
    b = property(lambda self: self._get("b"), doc="Right-hand sides (tuple of Fraction).")
    interior_point = property(lambda self: self._get("interior_point"), doc="Certified strict interior point.")
    facet_points = property(lambda self: self._get("facet_points"), doc="A relative-interior point per facet.")

    def _key(self):
        return (self.site, self.A, self.b, self.neighbors, self.interior_point, self.facet_points)

    def __eq__(self, other):
        return self._key() == other._key() if isinstance(other, PowerCell) else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):                     # pickles and copies hold the exact values
        return PowerCell, (self.site, self.A, self.b, self.neighbors, self.interior_point, self.facet_points)

    def __repr__(self):
        return (f"PowerCell(site={self.site!r}, A={self.A!r}, b={self.b!r}, neighbors={self.neighbors!r}, "
                f"interior_point={self.interior_point!r}, facet_points={self.facet_points!r})")


def _make_cell(diagram, j, neighbors, point, fpoints) -> PowerCell:
    a, off = diagram.sites, diagram.offsets
    aj, bj = a[j], off[j]
    A = tuple(tuple(u - v for u, v in zip(a[k], aj)) for k in neighbors)
    b = tuple(bj - off[k] for k in neighbors)
    return PowerCell(j, A, b, tuple(neighbors), tuple(point), tuple(fpoints))


def _cell_by_lp(diagram, j, candidates):
    """Certified cell of site j from the bisector rows toward ``candidates`` (or None)."""
    a, off = diagram.sites, diagram.offsets
    aj, bj = a[j], off[j]
    if not candidates:
        return PowerCell(j, (), (), (), (Fraction(0),) * diagram.dim, ())
    A = [tuple(u - v for u, v in zip(a[k], aj)) for k in candidates]
    b = [bj - off[k] for k in candidates]
    cert = interior_point(A, b)
    if not cert.feasible:
        return None
    fs = facets(A, b, cert.point)
    groups = {}
    for r in fs.rows:
        groups[r] = [r]
    for r, first in fs.same_as.items():
        if first in groups:
            groups[first].append(r)
    found = []
    for r in fs.rows:
        # several sites may share this bisector; the one that wins just across it is the neighbour
        # (largest a_k . n for the outward normal n; equal values only for exact duplicates)
        n = A[r]
        k = max(groups[r], key=lambda i: (sum(u * v for u, v in zip(a[candidates[i]], n)), -candidates[i]))
        found.append((candidates[k], fs.points[r]))
    found.sort()
    return _make_cell(diagram, j, [k for k, _ in found], cert.point, [p for _, p in found])


def _cells_by_lp(diagram, unique):
    out = [None] * diagram.N
    for j in unique:
        out[j] = _cell_by_lp(diagram, j, [k for k in unique if k != j])
    return out


class _LazyCell:
    """One certified cell held as integers; its Fractions are built on first access and kept.

    The cell of site ``j`` is entry ``i`` of its :class:`_Context`; its neighbours and wall ids
    are ``ctx.nbrs[s:t]`` and ``ctx.eids[s:t]``.
    """

    __slots__ = ("ctx", "j", "i", "s", "t", "memo")

    def __init__(self, ctx, j, i, s, t):
        self.ctx, self.j, self.i, self.s, self.t, self.memo = ctx, j, i, s, t, None

    def get(self, name):
        if self.memo is None:
            self.memo = {}
        if name not in self.memo:
            self.memo[name] = getattr(self, "_" + name)()
        return self.memo[name]

    def _A(self):
        A_int, L = self.ctx.A_int, self.ctx.L
        aj = A_int[self.j]
        return tuple(tuple(Fraction(u - v, L) for u, v in zip(A_int[k], aj)) for k in self.ctx.nbrs[self.s:self.t])

    def _b(self):
        B_int, L = self.ctx.B_int, self.ctx.L
        bj = B_int[self.j]
        return tuple(Fraction(bj - B_int[k], L) for k in self.ctx.nbrs[self.s:self.t])

    def _interior_point(self):
        *X, D = (col[self.i] for col in self.ctx.centers)
        return tuple(Fraction(x, D) for x in X)

    def _facet_points(self):
        return tuple(self.ctx.point(e) for e in self.ctx.eids[self.s:self.t])


class _Context:
    """Integer data shared by the lazily built cells of one diagram.

    ``A_int, B_int, L``: the integer scores (:meth:`PowerDiagram._int_scores`); ``nbrs`` and
    ``eids``: neighbour sites and wall ids of all cells, concatenated; ``make_centers()``:
    columns ``X_1, ..., X_d, D`` of the homogeneous interior points; ``make_points()``: the
    homogeneous wall points ``(X_1, ..., X_d, D)`` by wall id.  Both are computed on first use;
    a wall's Fraction point is built once and shared by its two cells.
    """

    def __init__(self, A_int, B_int, L, nbrs, eids, make_centers, make_points):
        self.A_int, self.B_int, self.L = A_int, B_int, L
        self.nbrs, self.eids = nbrs, eids
        self.make_centers, self._centers = make_centers, None
        self.make_points, self.points, self.memo = make_points, None, {}

    @property
    def centers(self):
        if self._centers is None:
            self._centers = self.make_centers()
        return self._centers

    def point(self, e):
        p = self.memo.get(e)
        if p is None:
            if self.points is None:
                self.points = self.make_points()
            *X, D = self.points[e]
            p = self.memo[e] = tuple(Fraction(x, D) for x in X)
        return p


def _cells_line(diagram, unique, hull):
    """Cells of a diagram on the line, exactly, from the upper chain of the lifted points ``(a_j, b_j)``.

    The chain (:func:`tropattn.geometry._lifting.upper_hull`, kernel ``"chain"``) gives the sites
    with an interval cell, left to right; consecutive ones meet at the breakpoint
    ``x = (B_j - B_k) / (A_k - A_j)``.  Everything is exact integer arithmetic (no certificate is
    needed); interior points are midpoints of breakpoints (or a breakpoint -+ 1 at the ends).
    """
    A_int, B_int, L = diagram._int_scores()
    chain = [unique[i] for i in hull.data]
    breaks = [Fraction(B_int[j] - B_int[k], A_int[k][0] - A_int[j][0]) for j, k in zip(chain, chain[1:])]
    out = [None] * diagram.N
    for t, j in enumerate(chain):
        left = breaks[t - 1] if t > 0 else None
        right = breaks[t] if t < len(breaks) else None
        if left is None and right is None:
            out[j] = PowerCell(j, (), (), (), (Fraction(0),), ())
            continue
        mid = (left + right) / 2 if left is not None and right is not None else (
            left + 1 if right is None else right - 1)
        nb = sorted(([(chain[t - 1], left)] if left is not None else [])
                    + ([(chain[t + 1], right)] if right is not None else []))
        A = tuple((Fraction(A_int[k][0] - A_int[j][0], L),) for k, _ in nb)
        b = tuple(Fraction(B_int[j] - B_int[k], L) for k, _ in nb)
        out[j] = PowerCell(j, A, b, tuple(k for k, _ in nb), (mid,), tuple((x,) for _, x in nb))
    return out


def _cells_planar(diagram, unique, hull):
    """Cells of a planar diagram from the certified lifted upper hull, or None.

    All in integer (homogeneous) arithmetic, vectorised over numpy object arrays; the cells'
    Fractions are built only when read (:class:`PowerCell`).  Dual vertices ``x_F = (nx, ny) / nb``
    of the certified facets are power-diagram vertices; a facet point of cells ``j, k`` is the
    midpoint of the two vertices dual to the two hull facets on edge ``(j, k)`` (or a vertex plus
    the outward normal of a hull edge of ``conv{a_j}``), which lies in the relative interior of
    the diagram edge because the hull is certified.  Interior points (centroid of three cell
    vertices, or of fewer plus the sum of the recession rays) are checked exactly against every
    row of their cell.
    """
    A_int, B_int, L = diagram._int_scores()
    P = hull.lifted
    planes, cycles, ea, eb, ef, eg, T = hull.data
    keep = (eg < 0) | (ea < eb)                       # each diagram edge once
    ea, eb, ef, eg = ea[keep], eb[keep], ef[keep], eg[keep]
    pts = np.empty((len(P), 3), dtype=object)
    pts[:] = P
    centers = _centers_2d(pts, planes, cycles, T, ea, eb, eg)
    if centers is None:
        return None
    X, Y, D = centers
    E = len(ea)
    src, dst = np.concatenate([ea, eb]), np.concatenate([eb, ea])
    eid = np.concatenate([np.arange(E), np.arange(E)])
    order = np.lexsort((dst, src))
    src, dst, eid = src[order], dst[order], eid[order]
    # certificate: the interior point of cell j is strictly inside every row toward a neighbour k
    Xs, Ys, Ds = X[src], Y[src], D[src]
    val = ((pts[dst, 0] - pts[src, 0]) * Xs + (pts[dst, 1] - pts[src, 1]) * Ys
           - (pts[src, 2] - pts[dst, 2]) * Ds)
    if np.any(val >= 0):
        return None
    sites = np.asarray(unique, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, src[1:] != src[:-1]])
    nbrs = sites[dst].tolist()
    columns = (X.tolist(), Y.tolist(), D.tolist())
    ctx = _Context(A_int, B_int, L, nbrs, eid.tolist(), functools.partial(_given, columns),
                   functools.partial(_edge_points, pts, planes, ea, eb, ef, eg))
    out = [None] * diagram.N
    for i, s, t in zip(src[starts].tolist(), starts.tolist(), np.r_[starts[1:], len(src)].tolist()):
        j = unique[i]
        out[j] = PowerCell._deferred(j, tuple(nbrs[s:t]), _LazyCell(ctx, j, i, s, t))
    return out


def _edge_points(pts, planes, ea, eb, ef, eg):
    """Homogeneous ``(X, Y, D)`` of a point inside each diagram edge (see :func:`_cells_planar`)."""
    x1, y1, d1 = planes[ef, 0], planes[ef, 1], planes[ef, 2]
    inner = eg >= 0
    g = np.where(inner, eg, 0)
    x2, y2, d2 = planes[g, 0], planes[g, 1], planes[g, 2]
    gx, gy = pts[eb, 1] - pts[ea, 1], pts[ea, 0] - pts[eb, 0]          # outward normal of a -> b
    X = np.where(inner, x1 * d2 + x2 * d1, x1 + gx * d1)
    Y = np.where(inner, y1 * d2 + y2 * d1, y1 + gy * d1)
    Dn = np.where(inner, 2 * d1 * d2, d1)
    return list(zip(X.tolist(), Y.tolist(), Dn.tolist()))


def _centers_2d(pts, planes, cycles, T, ea, eb, eg):
    """Homogeneous interior-point candidates ``(X, Y, D)`` (object arrays over points), or None.

    Centroid of the duals of three facets at the point, or, for a point with fewer facets
    (on the boundary of ``conv{a_j}``), their centroid plus the sum of the outward normals of
    its boundary edges (the cell's recession directions).  Unused for hidden points.
    """
    n = len(pts)
    if cycles:
        vs, fs = [], []
        for f, tri in enumerate(T.tolist()):
            cyc = cycles.get(f, tri)
            vs.extend(cyc)
            fs.extend([f] * len(cyc))
        v, f = np.array(vs, dtype=np.int64), np.array(fs, dtype=np.int64)
    else:
        v, f = T.T.ravel(), np.tile(np.arange(len(T)), 3)
    order = np.argsort(v, kind="stable")
    v, f = v[order], f[order]
    starts = np.flatnonzero(np.r_[True, v[1:] != v[:-1]])
    counts = np.diff(np.r_[starts, len(v)])
    X, Y, D = (np.zeros(n, dtype=object) for _ in range(3))
    full = starts[counts >= 3]
    p1, p2, p3 = (planes[f[full + s]] for s in range(3))
    d1, d2, d3 = p1[:, 2], p2[:, 2], p3[:, 2]
    i = v[full]
    X[i] = p1[:, 0] * d2 * d3 + p2[:, 0] * d1 * d3 + p3[:, 0] * d1 * d2
    Y[i] = p1[:, 1] * d2 * d3 + p2[:, 1] * d1 * d3 + p3[:, 1] * d1 * d2
    D[i] = 3 * d1 * d2 * d3
    few = [(int(v[s]), f[s:s + c].tolist()) for s, c in zip(starts[counts < 3].tolist(), counts[counts < 3].tolist())]
    if few:
        rays = {}
        bd = eg < 0
        for a, b in zip(ea[bd].tolist(), eb[bd].tolist()):
            gx, gy = pts[b, 1] - pts[a, 1], pts[a, 0] - pts[b, 0]
            for t in (a, b):
                r = rays.setdefault(t, [0, 0])
                r[0] += gx
                r[1] += gy
        for i, fl in few:
            ray = rays.get(i)
            if ray is None:
                return None
            X[i], Y[i], D[i] = _ray_candidate([planes[f] for f in fl], ray)
    return X, Y, D


def _ray_candidate(verts, ray):
    """Homogeneous (X, Y, D): centroid of one or two cell vertices plus the recession ray."""
    if len(verts) == 1:
        x1, y1, d1 = verts[0][:3]
        return x1 + ray[0] * d1, y1 + ray[1] * d1, d1
    (x1, y1, d1), (x2, y2, d2) = (v[:3] for v in verts)
    D = 2 * d1 * d2
    return x1 * d2 + x2 * d1 + ray[0] * D, y1 * d2 + y2 * d1 + ray[1] * D, D


def _table_lifted(diagram, unique, hull):
    """The cell table in any dimension ``d >= 2`` from a certified simplicial upper hull.

    Every face of the certified hull (:func:`certified_upper_simplices`) is a simplex, so the
    neighbours of a vertex ``j`` are the vertices sharing a simplex with it (one sort of all
    simplex edges, numpy), and the cell of ``j`` is ``Q + C``: ``Q`` the hull of the dual vertices
    ``x_F = (n_1, ..., n_d) / n_{d+1}`` of the simplices at ``j``, ``C`` the cone of the outward
    normals of the facets of ``conv{a_j}`` at ``a_j``.  Nothing here needs checking: the hull
    certificate proves it all.  Only integer arrays are made here; the cells and their exact
    fields are built when read (:func:`_simplicial_centers`, :func:`_simplicial_wall_points`).
    """
    res = hull.data
    n = len(hull.lifted)
    _, src, dst, _ = _walls(res.simplices, n)
    sites = np.asarray(unique, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, src[1:] != src[:-1]])

    return _CellTable(diagram.N, sites[src[starts]], np.r_[starts, len(src)], sites[dst],
                      local=src[starts], context=functools.partial(_lifted_context, diagram, res, n))


def _given(value):
    """``value`` (a :class:`_Context`'s maker of something already made; picklable, unlike a lambda)."""
    return value


def _lifted_context(diagram, res, n, nbrs) -> "_Context":
    """The :class:`_Context` of a lifted table's cells: the wall arrays again (the table holds none).

    A module-level function (the table keeps it as a ``functools.partial``), so that a
    diagram, a head and a region search's steps pickle with their cell tables.
    """
    walls, _, _, eid = _walls(res.simplices, n)
    wall_of = np.searchsorted(walls, _pair_keys(res.simplices, n))
    A_int, B_int, L = diagram._int_scores()
    return _Context(A_int, B_int, L, nbrs, eid.tolist(), functools.partial(_simplicial_centers, res, n),
                    functools.partial(_simplicial_wall_points, res, walls, wall_of, n))


def _pair_keys(S, n) -> np.ndarray:
    """The key ``a * n + b`` (``a < b``) of every vertex pair of every simplex of ``S`` (simplex-major).

    >>> _pair_keys(np.array([[2, 0, 1]]), 3).tolist()       # pairs (0, 2), (1, 2), (0, 1)
    [2, 5, 1]
    """
    pairs = list(itertools.combinations(range(S.shape[1]), 2))
    u, v = S[:, [a for a, _ in pairs]], S[:, [b for _, b in pairs]]
    return (np.minimum(u, v).astype(np.int64) * n + np.maximum(u, v)).ravel()


def _walls(S, n):
    """The walls of simplices ``S`` over ``n`` points: ``(walls, src, dst, eid)``.

    ``walls``: sorted keys ``a * n + b`` (``a < b``) of the vertex pairs of the simplices
    (:func:`_pair_keys`; one sort: numpy's ``unique`` hashes, several times slower here);
    ``src -> dst`` both directions of every wall sorted by ``(src, dst)``, ``eid`` the wall of each.
    """
    keys = np.sort(_pair_keys(S, n))
    walls = keys[np.r_[True, keys[1:] != keys[:-1]]]
    wa, wb = walls // n, walls % n
    E = len(walls)
    src, dst = np.concatenate([wa, wb]), np.concatenate([wb, wa])
    eid = np.concatenate([np.arange(E), np.arange(E)])
    order = np.argsort(src * n + dst)                 # by site, then neighbour (the pairs are distinct)
    return walls, src[order], dst[order], eid[order]


class _CellTable:
    """The certified cells of one diagram as integer arrays: what counting reads.

    ``sites`` (C,) int64: the sites with a nonempty cell, increasing; ``indptr`` (C + 1,) and
    ``nbrs``: the neighbours of cell ``c`` are ``nbrs[indptr[c]:indptr[c + 1]]``, increasing
    (CSR).  :meth:`cells` builds the :class:`PowerCell` objects on first call: from ``context``
    (the neighbour list -> a :class:`_Context` for :class:`_LazyCell`; ``local[c]`` is the
    position of cell ``c`` in it), or given ready-made (``cells``).
    """

    __slots__ = ("N", "sites", "indptr", "nbrs", "_local", "_context", "_cells")

    def __init__(self, N, sites, indptr, nbrs, local=None, context=None, cells=None):
        self.N, self.sites, self.indptr, self.nbrs = N, sites, indptr, nbrs
        self._local, self._context, self._cells = local, context, cells

    @classmethod
    def from_cells(cls, cells) -> "_CellTable":
        """The table of a list of cells (None for hidden sites)."""
        live = [c for c in cells if c is not None]
        sizes = [len(c.neighbors) for c in live]
        nbrs = np.array([k for c in live for k in c.neighbors], dtype=np.int64)
        return cls(len(cells), np.array([c.site for c in live], dtype=np.int64),
                   np.r_[0, np.cumsum(sizes, dtype=np.int64)], nbrs, cells=tuple(cells))

    def edges(self) -> np.ndarray:
        """(E, 2) int64: the adjacent pairs ``(j, k)``, ``j < k``, sorted."""
        src = np.repeat(self.sites, np.diff(self.indptr))
        keep = src < self.nbrs
        return np.stack([src[keep], self.nbrs[keep]], axis=1)

    def cells(self) -> tuple:
        """The :class:`PowerCell` of every site (None for hidden ones), built on first call."""
        if self._cells is None:
            nbrs = self.nbrs.tolist()
            ctx = self._context(nbrs)
            out = [None] * self.N
            bounds = self.indptr.tolist()
            for c, (j, i) in enumerate(zip(self.sites.tolist(), self._local.tolist())):
                s, t = bounds[c], bounds[c + 1]
                out[j] = PowerCell._deferred(j, tuple(nbrs[s:t]), _LazyCell(ctx, j, i, s, t))
            self._cells = tuple(out)
        return self._cells


def _group_sums(groups, values, n) -> np.ndarray:
    """Row sums of ``values`` (object array) by group id in ``range(n)``; zero rows for empty groups."""
    out = np.zeros((n, values.shape[1]), dtype=object)
    if len(groups):
        order = np.argsort(groups, kind="stable")
        g = groups[order]
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        out[g[starts]] = np.add.reduceat(values[order], starts, axis=0)
    return out


def _dual_points(N, R, d):
    """Homogeneous ``(X_1, ..., X_d, D)`` rows: ``X = sum_F n_F + S sum_h h`` over ``D = S = sum_F n_{F,d+1}``.

    With ``N`` the sums of the hyperplanes ``(n_1, ..., n_{d+1})`` of some simplices and ``R``
    the sums of some outward normals: a convex combination of the dual vertices ``x_F`` with
    weights ``n_{F,d+1} / S > 0`` plus a positive combination of the normals.
    """
    X = N[:, :d] + N[:, d:] * R
    return np.concatenate([X, N[:, d:]], axis=1)


def _simplicial_centers(res, n):
    """Columns ``X_1, ..., X_d, D`` of an interior point of every vertex's cell (exact integers).

    All simplices and all boundary normals at the vertex: a point of ``relint Q + relint C``,
    the interior of the cell (:func:`_cells_lifted`).
    """
    S, R = res.simplices, res.ridges
    d = S.shape[1] - 1
    N = _group_sums(S.ravel(), np.repeat(res.planes[:, :d + 1], d + 1, axis=0), n)
    H = _group_sums(R.ravel(), np.repeat(res.normals, d, axis=0), n)
    return [col.tolist() for col in _dual_points(N, H, d).T]


def _simplicial_wall_points(res, walls, wall_of, n):
    """Homogeneous ``(X_1, ..., X_d, D)`` of a point in the relative interior of every wall.

    Wall ``e`` joins ``walls[e] // n`` and ``walls[e] % n``; ``wall_of`` is the wall of every
    pair of vertices of every simplex (simplex-major).  The simplices through both sites and the
    boundary ridges through both give the relative interior of the wall, as for the cells.
    """
    S, R = res.simplices, res.ridges
    d = S.shape[1] - 1
    per = len(wall_of) // len(S)
    N = _group_sums(wall_of, np.repeat(res.planes[:, :d + 1], per, axis=0), len(walls))
    if len(R):
        pairs = list(itertools.combinations(range(d), 2))
        u, v = R[:, [a for a, _ in pairs]].ravel(), R[:, [b for _, b in pairs]].ravel()
        ridge_wall = np.searchsorted(walls, np.minimum(u, v) * n + np.maximum(u, v))
        H = _group_sums(ridge_wall, np.repeat(res.normals, len(pairs), axis=0), len(walls))
    else:
        H = np.zeros((len(walls), d), dtype=object)
    return [tuple(p) for p in _dual_points(N, H, d).tolist()]


def power_cells(diagram, method: str = "auto") -> tuple:
    """The certified cells of ``diagram`` (see :meth:`PowerDiagram.cells`).

    The lifted points ``(a_j, b_j)`` go to the one certified upper hull of tropattn
    (:func:`tropattn.geometry.upper_hull`, which picks its kernel; ``method`` forces one);
    the kernel that answered decides how the cells are read off: the chain on the line, the
    planar certificate, the simplicial certificate, or (general hulls) one certified LP per
    nonempty cell on the rows of the sites sharing an upper edge with it.  A fast path whose
    own check fails declines to the general construction; both are counted
    (:func:`tropattn.exact.record`, places ``power.<kernel>``).

    Parameters
    ----------
    diagram : PowerDiagram
    method : {"auto", "chain", "planar", "simplicial", "general", "exact"}, optional
        The kernel of the upper hull (see :func:`tropattn.geometry.upper_hull`);
        ``"general"`` or ``"exact"`` force the construction by certified LPs.

    Returns
    -------
    tuple of PowerCell or None
        Indexed by site; None for hidden sites.

    Raises
    ------
    InvalidInputError
        An unknown ``method``, or a kernel that does not fit the dimension of the sites.

    Examples
    --------
    >>> from tropattn.geometry import PowerDiagram
    >>> square = PowerDiagram.voronoi([[0, 0], [1, 0], [0, 1], [1, 1]])
    >>> [c.neighbors for c in power_cells(square)]
    [(1, 2), (0, 3), (0, 3), (1, 2)]
    >>> [c.neighbors for c in power_cells(square, method="general")]      # one certified LP per cell
    [(1, 2), (0, 3), (0, 3), (1, 2)]
    """
    return power_table(diagram, method).cells()


def power_table(diagram, method: str = "auto") -> _CellTable:
    """:func:`power_cells` as integer arrays (a :class:`_CellTable`); the cells are built when read.

    A simplicial certified hull (in ``d >= 3``, and in the plane when every upper face is a
    triangle) gives the table straight from its arrays; the other kernels build their cells
    and tabulate them.
    """
    choice(method, "method", METHODS, "the kernel of the upper hull of the lifted sites")
    dups = diagram.duplicates
    unique = [j for j in range(diagram.N) if j not in dups] if dups else list(range(diagram.N))
    rows = diagram._score_matrix()[unique] if dups else diagram._score_matrix()     # [A_j | B_j], Python ints below
    hull = integer_upper_hull(list(map(tuple, rows.tolist())), method, distinct=True)
    if hull.kernel in ("planar", "simplicial") and getattr(hull.data, "simplices", None) is not None:
        record("certified", where=f"power.{hull.kernel}")
        return _table_lifted(diagram, unique, hull)
    kernels = {"chain": _cells_line, "planar": _cells_planar}
    out = None
    if hull.kernel in kernels:
        out = kernels[hull.kernel](diagram, unique, hull)
        record("certified" if out is not None else "declined", where=f"power.{hull.kernel}")
    if out is None:
        out = _cells_from_hull(diagram, unique, hull)
    return _CellTable.from_cells(out)


def _cells_from_hull(diagram, unique, hull) -> list:
    """The general construction: one certified LP per upper vertex on its upper-edge rows.

    A facet of the cell of site ``j`` is the wall to a site ``k`` joined to ``j`` by an upper
    edge, and every upper edge is an edge of a maximal upper face; so the rows toward the
    sites that share an *edge* of a maximal face with ``j`` cut out the cell exactly (any
    superset does too).  The edges of a simplex are all its pairs; larger faces get their
    edges from a certified hull of their points (:func:`_face_edges`).  Sites that are not
    upper vertices are hidden.
    """
    verts = set(hull.vertices)
    near = {i: set() for i in verts}
    if hull.neighbors is not None:
        for i, ks in hull.neighbors.items():
            near[i].update(ks)
    else:
        for cell in hull.cells:
            for i, k in _face_edges(hull, [p for p in sorted(cell) if p in verts]):
                near[i].add(k)
                near[k].add(i)
    record("fallbacks", where="power.general")
    out = [None] * diagram.N
    for i in sorted(verts):
        out[unique[i]] = _cell_by_lp(diagram, unique[i], sorted(unique[k] for k in near[i]))
    return out


def _face_edges(hull, members):
    """Pairs of ``members`` (vertices of one maximal upper face) that span an edge of it.

    A face with at most ``d + 1`` vertices is a simplex when it is full-dimensional, and its
    pairs are all edges; otherwise a pair is an edge iff the facets of the face's
    certified hull (projected, exact) through both meet in those two points alone.  Returning
    more pairs than edges would only add redundant rows, never a wrong cell.
    """
    d = len(hull.lifted[0]) - 1
    pairs = [(a, b) for t, a in enumerate(members) for b in members[t + 1:]]
    if len(members) <= d + 1:
        return pairs
    face = certified_hull([homogeneous_row([Fraction(v) for v in hull._points[m][:-1]]) for m in members])
    if face.dim <= 1:
        return [(members[v], members[w]) for t, v in enumerate(face.vertices) for w in face.vertices[t + 1:]]
    out = []
    for a, b in itertools.combinations(face.vertices, 2):
        both = (1 << a) | (1 << b)
        meet = -1
        for m in face.masks:
            if m & both == both:
                meet &= m
        if meet == both:
            out.append((members[a], members[b]))
    return out
