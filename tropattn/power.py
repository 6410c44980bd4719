"""Power diagrams: the exact geometry of zero-temperature attention.

A *power diagram* of sites ``a_1, ..., a_N`` in ``R^d`` with weights ``w_j`` assigns
each point ``x`` to the site of smallest *power distance*

    pow_j(x) = ||x - a_j||^2 - w_j .

Expanding the square, ``pow_j(x) = ||x||^2 - 2 (a_j . x + b_j)`` with the **score**
``s_j(x) = a_j . x + b_j`` and ``b_j = (w_j - ||a_j||^2) / 2``.  The term ``||x||^2``
is common to every site, so the nearest site (in power distance) is the site of
largest score: the diagram *is* the set of linear regions of the convex piecewise
affine function ``G(x) = max_j (a_j . x + b_j)`` -- and a zero-temperature attention
head with keys ``a_j`` and offsets ``b_j`` picks exactly that site (THEORY §2).

The cell of site ``j`` is the polyhedron cut out by the *bisector rows*

    (a_k - a_j) . x <= b_j - b_k        for every k != j,

and it is full-dimensional iff the lifted point ``(a_j, b_j)`` is a vertex of the
*upper* convex hull of all lifted points.  Sites whose cell has no interior are
*hidden* (their cell is reported as ``None``):

* a site with a small weight surrounded by others,
* a site lying on a face of the upper hull without being a vertex of it,
* an exact duplicate: two equal sites with different weights hide the one of smaller
  weight; equal sites with **equal** weights hide the *later* index (the earlier
  index wins every tie between them, in :meth:`PowerDiagram.locate` too).
  :attr:`PowerDiagram.duplicates` says which site hides which.

Special cases: weights 0 give the Voronoi diagram (nearest site); ``b_j = 0`` (weights
``||a_j||^2``) give the normal fan of ``conv{a_j}`` (cones from the origin).

How the cells are computed and certified (ALGORITHMS §2-3):

* in the plane, Qhull computes the upper hull of the lifted points once; each upper
  facet's plane is rebuilt exactly from integer coordinates, every lifted point is
  checked to lie on or below it with :func:`tropattn.exact.dot_signs` (filtered, so
  vectorised), each facet's edges come from an exact 2-D hull of the points on it,
  and completeness is certified by checking that every facet edge is shared by two
  facets or is an edge of ``conv{a_j}``.  Cells, adjacency, hidden sites, interior
  points (centroids of cell vertices, pushed along the recession cone when the cell
  is unbounded) and facet points are then read off and checked exactly;
* in any other dimension, or where a certificate fails, each cell is decided by the
  certified LPs :func:`tropattn.exact.interior_point` and :func:`tropattn.exact.facets`
  on its full system of ``N - 1`` bisector rows.

>>> vor = PowerDiagram.voronoi([[0, 0], [2, 0], [0, 2]])
>>> vor.locate(["1/2", "1/4"])        # nearer to (0, 0) than to (2, 0) or (0, 2)
0
>>> [c.neighbors for c in vor.cells()]
[(1, 2), (0, 2), (0, 1)]
>>> PowerDiagram([[0], [1], [2]], [0, -5, 0]).hidden     # a light site between two others
(1,)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .errors import InvalidInputError, TieError
from .exact import (
    dot_signs,
    facets,
    homogeneous_point,
    interior_point,
    to_rational_matrix,
    to_rational_vector,
)

__all__ = [
    "PowerCell",
    "PowerDiagram",
    "power_cells",
    "scores_to_weights",
    "weights_to_scores",
]


# ------------------------------------------------------------------------ value objects
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

    def __repr__(self):
        return (f"PowerCell(site={self.site!r}, A={self.A!r}, b={self.b!r}, neighbors={self.neighbors!r}, "
                f"interior_point={self.interior_point!r}, facet_points={self.facet_points!r})")


# ------------------------------------------------------------------------ conversions
def weights_to_scores(sites, weights) -> tuple:
    """Offsets ``b_j = (w_j - ||a_j||^2) / 2`` of the scores ``a_j . x + b_j``.

    >>> weights_to_scores([[1, 1]], [0])          # Voronoi site (1, 1): b = -||a||^2 / 2
    (Fraction(-1, 1),)
    """
    sites = to_rational_matrix(sites, "sites")
    weights = to_rational_vector(weights, "weights", len(sites))
    return tuple((w - sum(v * v for v in a)) / 2 for a, w in zip(sites, weights))


def scores_to_weights(keys, offsets) -> tuple:
    """Weights ``w_j = ||a_j||^2 + 2 b_j`` of the power diagram of ``max_j (a_j . x + b_j)``.

    >>> scores_to_weights([[1, 1]], [-1])
    (Fraction(0, 1),)
    """
    keys = to_rational_matrix(keys, "keys")
    offsets = to_rational_vector(offsets, "offsets", len(keys))
    return tuple(sum(v * v for v in a) + 2 * b for a, b in zip(keys, offsets))


# ------------------------------------------------------------------------ the diagram
@dataclass(frozen=True)
class PowerDiagram:
    """The power diagram of weighted sites in ``Q^d``, exact.

    Parameters
    ----------
    sites : (N, d) rationals
        The sites ``a_j`` (for a head: its keys).
    weights : (N,) rationals
        The weights ``w_j``; the power distance is ``||x - a_j||^2 - w_j``.

    Cells, adjacency and hidden sites are computed once, certified, and cached.

    >>> pd = PowerDiagram.from_max_affine([[0], [1], [2]], [0, 0, -1])   # max(0, x, 2x - 1)
    >>> pd.nonempty, pd.locate([3]), pd.locate(["1/2"])
    ((0, 1, 2), 2, 1)
    """

    sites: tuple
    weights: tuple
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        sites = to_rational_matrix(self.sites, "sites")
        if not sites:
            raise InvalidInputError("sites is empty; a power diagram needs at least one site")
        if not sites[0]:
            raise InvalidInputError("sites have 0 coordinates; give points in R^d with d >= 1, "
                                    "e.g. [[1], [2]] for sites on a line")
        weights = to_rational_vector(self.weights, "weights", len(sites))
        object.__setattr__(self, "sites", sites)
        object.__setattr__(self, "weights", weights)

    # ---------------------------------------------------------------- constructors
    @classmethod
    def voronoi(cls, sites) -> "PowerDiagram":
        """The Voronoi diagram (all weights 0): each point goes to its nearest site.

        >>> PowerDiagram.voronoi([[0, 0], [4, 0]]).locate([1, 5])
        0
        """
        sites = to_rational_matrix(sites, "sites")
        return cls(sites, (Fraction(0),) * len(sites))

    @classmethod
    def from_max_affine(cls, slopes, intercepts) -> "PowerDiagram":
        """The diagram of the linear regions of ``max_j (slopes_j . x + intercepts_j)``.

        Sites are the slopes, weights ``||a_j||^2 + 2 b_j``.

        >>> PowerDiagram.from_max_affine([[1], [-1]], [0, 0]).weights     # |x| = max(x, -x)
        (Fraction(1, 1), Fraction(1, 1))
        """
        slopes = to_rational_matrix(slopes, "slopes")
        intercepts = to_rational_vector(intercepts, "intercepts", len(slopes))
        return cls(slopes, scores_to_weights(slopes, intercepts))

    def to_max_affine(self) -> tuple:
        """``(slopes, intercepts)`` with ``argmax_j (slopes_j . x + intercepts_j)`` = nearest site.

        >>> PowerDiagram.voronoi([[2]]).to_max_affine()
        (((Fraction(2, 1),),), (Fraction(-2, 1),))
        """
        return self.sites, self.offsets

    # ---------------------------------------------------------------- basic data
    @property
    def N(self) -> int:
        """Number of sites."""
        return len(self.sites)

    @property
    def dim(self) -> int:
        """Ambient dimension ``d``."""
        return len(self.sites[0])

    @property
    def offsets(self) -> tuple:
        """Score offsets ``b_j = (w_j - ||a_j||^2) / 2`` (so the score is ``a_j . x + b_j``)."""
        if "offsets" not in self._cache:
            self._cache["offsets"] = weights_to_scores(self.sites, self.weights)
        return self._cache["offsets"]

    @property
    def duplicates(self) -> dict:
        """Hidden duplicate sites: ``{hidden index: index of the equal site that hides it}``.

        >>> PowerDiagram([[1], [1], [1]], [0, 2, 2]).duplicates   # weight 2 beats 0; index 1 beats 2
        {0: 1, 2: 1}
        """
        if "dups" not in self._cache:
            best = {}
            for j, (a, w) in enumerate(zip(self.sites, self.weights)):
                if a not in best or w > self.weights[best[a]]:
                    best[a] = j
            self._cache["dups"] = {j: best[a] for j, a in enumerate(self.sites) if best[a] != j}
        return self._cache["dups"]

    def _int_scores(self):
        """Scores as integers: ``L * (a_j . x + b_j) = A_j . x + B_j`` with one common ``L > 0``.

        ``L = 2 lcm(den(a)^2, den(w))`` makes ``L a_j`` and ``L b_j = (L w_j - L ||a_j||^2) / 2``
        integers without any Fraction arithmetic.
        """
        if "ints" not in self._cache:
            la = lw = 1
            for a in self.sites:
                for v in a:
                    la = la * v.denominator // math.gcd(la, v.denominator)
            for w in self.weights:
                lw = lw * w.denominator // math.gcd(lw, w.denominator)
            L = 2 * (la * la * lw // math.gcd(la * la, lw))
            A = [tuple(v.numerator * (L // v.denominator) for v in a) for a in self.sites]
            W = [w.numerator * (L // w.denominator) for w in self.weights]
            B = [(wj - sum(v * v for v in a) // L) // 2 for a, wj in zip(A, W)]
            self._cache["ints"] = (A, B, L)
        return self._cache["ints"]

    def power(self, x, j: int) -> Fraction:
        """Power distance ``||x - a_j||^2 - w_j``, exact.

        >>> PowerDiagram([[0, 0]], [1]).power([1, 1], 0)
        Fraction(1, 1)
        """
        x = to_rational_vector(x, "x", self.dim)
        return sum((xi - ai) ** 2 for xi, ai in zip(x, self.sites[j])) - self.weights[j]

    # ---------------------------------------------------------------- point location
    def locate_all(self, x) -> tuple:
        """Every site of minimal power distance at ``x`` (= maximal score), increasing.

        >>> PowerDiagram.voronoi([[0], [2]]).locate_all([1])
        (0, 1)
        """
        x = to_rational_vector(x, "x", self.dim)
        X, D = homogeneous_point(x)
        A, B, _ = self._int_scores()
        vals = [sum(a * xi for a, xi in zip(row, X)) + bj * D for row, bj in zip(A, B)]
        best = max(vals)
        return tuple(j for j, v in enumerate(vals) if v == best)

    def locate(self, x) -> int:
        """The site whose cell contains ``x`` in its interior, exactly.

        Exact duplicates are not ties: the site that hides the others wins.

        Raises
        ------
        TieError
            If ``x`` lies on a wall (two distinct sites minimise the power distance);
            ``labels`` holds the tied sites.

        >>> PowerDiagram.voronoi([[0], [2]]).locate([1])
        Traceback (most recent call last):
        ...
        tropattn.errors.TieError: x = (1,) is on the wall between sites (0, 1): they tie (power distance 1); move x off the wall or use locate_all(x)
        """
        winners = self.locate_all(x)
        dups = self.duplicates
        distinct = sorted({dups.get(j, j) for j in winners})
        if len(distinct) > 1:
            xr = to_rational_vector(x, "x", self.dim)
            pw = self.power(xr, distinct[0])
            raise TieError(f"x = {_fmt_point(xr)} is on the wall between sites {tuple(distinct)}: they tie "
                           f"(power distance {pw}); move x off the wall or use locate_all(x)", distinct)
        return distinct[0]

    # ---------------------------------------------------------------- cells
    def cells(self) -> tuple:
        """The certified cells, indexed by site: a :class:`PowerCell`, or None if hidden.

        >>> [c is None for c in PowerDiagram([[0], [1], [2]], [0, -5, 0]).cells()]
        [False, True, False]
        """
        if "cells" not in self._cache:
            self._cache["cells"] = power_cells(self)
        return self._cache["cells"]

    @property
    def hidden(self) -> tuple:
        """Sites whose cell has empty interior (increasing)."""
        return tuple(j for j, c in enumerate(self.cells()) if c is None)

    @property
    def nonempty(self) -> tuple:
        """Sites with a full-dimensional cell (increasing)."""
        return tuple(j for j, c in enumerate(self.cells()) if c is not None)

    def adjacency_graph(self):
        """networkx Graph on the nonempty sites; an edge per shared facet.

        Edge attribute ``point``: a rational point in the relative interior of the facet.

        >>> g = PowerDiagram.voronoi([[0], [1], [2]]).adjacency_graph()
        >>> sorted(g.edges), g.edges[0, 1]["point"]
        ([(0, 1), (1, 2)], (Fraction(1, 2),))
        """
        import networkx as nx

        g = nx.Graph()
        cells = self.cells()
        g.add_nodes_from(c.site for c in cells if c is not None)
        for c in cells:
            if c is None:
                continue
            for k, p in zip(c.neighbors, c.facet_points):
                if c.site < k:
                    g.add_edge(c.site, k, point=p)
        return g

    def clip_to_box(self, lo, hi) -> dict:
        """The cells cut to the box ``[lo, hi]``: ``{site: shapely Polygon}`` in 2-D.

        The clipping is exact (rational); the polygons are float copies for pictures.
        Cells that miss the box (or touch it only on its boundary) are left out, so
        the areas sum to the box area.  In 1-D the values are exact intervals
        ``(left, right)`` of Fractions.

        >>> polys = PowerDiagram.voronoi([[0, 0], [2, 0]]).clip_to_box([-1, -1], [3, 1])
        >>> sorted((k, p.area) for k, p in polys.items())
        [(0, 4.0), (1, 4.0)]
        """
        lo = to_rational_vector(lo, "lo", self.dim)
        hi = to_rational_vector(hi, "hi", self.dim)
        if any(l >= h for l, h in zip(lo, hi)):
            raise InvalidInputError(f"the box needs lo < hi in every coordinate; got lo = {_fmt_point(lo)}, "
                                    f"hi = {_fmt_point(hi)}")
        if self.dim == 1:
            return _clip_intervals(self.cells(), lo[0], hi[0])
        if self.dim != 2:
            raise InvalidInputError(f"clip_to_box draws cells in the plane; this diagram lives in R^{self.dim}. "
                                    "Project the sites to 2 coordinates first, or use cells() for exact "
                                    "inequalities in any dimension")
        from shapely.geometry import Polygon

        box = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
        out = {}
        for c in self.cells():
            if c is None:
                continue
            poly = box
            for a, b in zip(c.A, c.b):
                poly = _clip_polygon(poly, a, b)
                if len(poly) < 3:
                    break
            if len(poly) >= 3 and _area2(poly) > 0:
                out[c.site] = Polygon([(float(x), float(y)) for x, y in poly])
        return out


# ------------------------------------------------------------------------ helpers
def _fmt_point(x) -> str:
    return "(" + ", ".join(str(v) for v in x) + ("," if len(x) == 1 else "") + ")"


def _clip_polygon(poly, a, b):
    """Sutherland-Hodgman: the part of a convex polygon with ``a . p <= b``, exact."""
    out = []
    n = len(poly)
    vals = [a[0] * p[0] + a[1] * p[1] - b for p in poly]
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        vp, vq = vals[i], vals[(i + 1) % n]
        if vp <= 0:
            out.append(p)
        if (vp < 0 < vq) or (vq < 0 < vp):
            t = vp / (vp - vq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def _area2(poly) -> Fraction:
    return sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(poly, poly[1:] + poly[:1]))


def _clip_intervals(cells, lo, hi) -> dict:
    out = {}
    for c in cells:
        if c is None:
            continue
        left, right = lo, hi
        for a, b in zip(c.A, c.b):
            if a[0] > 0:
                right = min(right, b / a[0])
            else:
                left = max(left, b / a[0])
        if left < right:
            out[c.site] = (left, right)
    return out


def _make_cell(diagram, j, neighbors, point, fpoints) -> PowerCell:
    a, off = diagram.sites, diagram.offsets
    aj, bj = a[j], off[j]
    A = tuple(tuple(u - v for u, v in zip(a[k], aj)) for k in neighbors)
    b = tuple(bj - off[k] for k in neighbors)
    return PowerCell(j, A, b, tuple(neighbors), tuple(point), tuple(fpoints))


# ------------------------------------------------------------------------ the LP path
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


# ------------------------------------------------------------------------ the planar path
def _cross(o, p, q):
    return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])


def _hull_2d(points):
    """Indices of the strict convex hull of integer points (counter-clockwise), exact."""
    order = sorted(range(len(points)), key=lambda i: points[i])
    if len(order) < 3:
        return order

    def chain(seq):
        h = []
        for i in seq:
            while len(h) >= 2 and _cross(points[h[-2]], points[h[-1]], points[i]) <= 0:
                h.pop()
            h.append(i)
        return h

    lower, upper = chain(order), chain(order[::-1])
    return lower[:-1] + upper[:-1]


def _upper_facets_2d(P):
    """Certified upper facets of the lifted integer points P (n x 3), or None.

    Qhull proposes the upper triangles; then, exactly:

    1. each triangle's plane ``nx X + ny Y + nb B + e = 0`` (``nb > 0``) is rebuilt from integer
       coordinates, and triangles with equal planes are merged into one facet whose polygon is
       the exact convex hull of their vertices (counter-clockwise);
    2. the facets form a consistently oriented surface: every edge lies on two facets in
       opposite directions, or on one facet and then on a line with every point on its inner
       side (an edge of ``conv{a_j}``); so the facets tile ``conv{a_j}`` exactly once;
    3. the surface is locally concave: across every interior edge, a vertex of one facet lies
       strictly below the other facet's plane; so it is the graph of a concave function
       ``psi = min_F plane_F``, and every facet vertex is a vertex of the upper hull;
    4. every other point lies on or below ``psi``: below the plane of a facet containing its
       projection (found in floats, checked exactly), or below every plane
       (:func:`tropattn.exact.dot_signs`) when that facet cannot be confirmed.

    Returns ``(planes, cycles, edges, boundary)``: ``planes[f] = (nx, ny, nb, e)``,
    ``cycles[f]`` the facet's vertices (ccw), ``edges[(i, k)] = [f, ...]`` and
    ``boundary[(i, k)]`` the outward normal ``(gx, gy)`` of a hull edge of ``conv{a_j}``.
    """
    from scipy.spatial import ConvexHull, QhullError

    flt = np.array(P, dtype=float)
    try:
        hull = ConvexHull(flt / (np.abs(flt).max() or 1.0))
    except (QhullError, ValueError):
        return None
    up = np.nonzero(hull.equations[:, 2] > 0)[0]  # a proposal only: every claim is certified below
    if len(up) == 0:
        return None
    plane_ids, planes, members = {}, [], []
    for tri in hull.simplices[up].tolist():  # 1. exact planes, merged
        (x1, y1, z1), (x2, y2, z2), (x3, y3, z3) = P[tri[0]], P[tri[1]], P[tri[2]]
        ux, uy, uz, vx, vy, vz = x2 - x1, y2 - y1, z2 - z1, x3 - x1, y3 - y1, z3 - z1
        nx, ny, nb = uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx
        if nb == 0:
            return None
        if nb < 0:
            nx, ny, nb = -nx, -ny, -nb
        e = -(nx * x1 + ny * y1 + nb * z1)
        g = math.gcd(nx, ny, nb, e)
        key = (nx // g, ny // g, nb // g, e // g)
        f = plane_ids.get(key)
        if f is None:
            f = plane_ids[key] = len(planes)
            planes.append(key)
            members.append(set())
        members[f].update(tri)
    cycles, edges, on_surface = [], {}, set()
    for f, pts in enumerate(members):
        on_surface.update(pts)
        if len(pts) == 3:
            cyc = list(pts)
            turn = _cross(P[cyc[0]], P[cyc[1]], P[cyc[2]])
            if turn < 0:
                cyc = [cyc[0], cyc[2], cyc[1]]
            elif turn == 0:
                return None
        else:
            pts = sorted(pts)
            cyc = [pts[i] for i in _hull_2d([P[i][:2] for i in pts])]
            if len(cyc) < 3:
                return None
        cycles.append(cyc)
        for t in range(len(cyc)):
            i, k = cyc[t], cyc[(t + 1) % len(cyc)]
            edges.setdefault((min(i, k), max(i, k)), []).append((f, i, k))
    boundary, lines = {}, []
    for key, fs in edges.items():  # 2. orientation and boundary, 3. local concavity
        if len(fs) == 2:
            (f, i, k), (g, i2, k2) = fs
            if (i, k) != (k2, i2) or not (_below_plane(planes[f], P, cycles[g], key)
                                          and _below_plane(planes[g], P, cycles[f], key)):
                return None
        elif len(fs) == 1:
            _, i, k = fs[0]  # ccw along the facet: the outside of the edge is on its right
            gx, gy = P[k][1] - P[i][1], P[i][0] - P[k][0]
            boundary[key] = (gx, gy)
            lines.append((gx, gy, -(gx * P[i][0] + gy * P[i][1])))
        else:
            return None
    if not lines or dot_signs(lines, [(int(p[0]), int(p[1]), 1) for p in P]).max() > 0:
        return None
    rest = [i for i in range(len(P)) if i not in on_surface]  # 4. the other points
    if rest:
        pf = np.array(planes, dtype=float)
        pf /= np.abs(pf).max(axis=1, keepdims=True)
        q = np.hstack([flt[rest][:, :2], np.ones((len(rest), 1))])
        # the facet whose plane is lowest above the point: a float guess, checked exactly
        lowest = np.argmin(-(q @ pf[:, [0, 1, 3]].T) / pf[:, 2][None, :], axis=1).tolist()
        unsure = [i for i, f in zip(rest, lowest) if not _located_below(planes[f], cycles[f], P, i)]
        if unsure and dot_signs(planes, [(int(P[i][0]), int(P[i][1]), int(P[i][2]), 1)
                                         for i in unsure]).max() > 0:
            return None
    return planes, cycles, {k: [f for f, _, _ in fs] for k, fs in edges.items()}, boundary


def _side(plane, p) -> int:
    return plane[0] * p[0] + plane[1] * p[1] + plane[2] * p[2] + plane[3]


def _below_plane(plane, P, cycle, edge) -> bool:
    """Some vertex of ``cycle`` off ``edge`` lies strictly below ``plane``."""
    off = next(i for i in cycle if i not in edge)
    return _side(plane, P[off]) < 0


def _located_below(plane, cycle, P, i) -> bool:
    """Point i projects into the facet polygon ``cycle`` and lies on or below its plane."""
    q = P[i]
    n = len(cycle)
    return all(_cross(P[cycle[t]], P[cycle[(t + 1) % n]], q) >= 0 for t in range(n)) and _side(plane, q) <= 0


def _cells_planar(diagram, unique):
    """Cells of a planar diagram from the certified lifted upper hull, or None.

    Everything is integer (homogeneous) arithmetic until the final Fractions.  Dual vertices
    ``x_F = (nx, ny) / nb`` of the certified facets are power-diagram vertices; a facet point of
    cells ``j, k`` is the midpoint of the two vertices dual to the two hull facets on edge
    ``(j, k)`` (or a vertex plus the outward normal of a hull edge of ``conv{a_j}``), which lies in
    the relative interior of the diagram edge because the hull is certified.  Interior points
    (centroid of three cell vertices, or of fewer plus the sum of the recession rays) are checked
    exactly against every row of their cell.
    """
    A_int, B_int, L = diagram._int_scores()
    P = [(A_int[j][0], A_int[j][1], B_int[j]) for j in unique]
    res = _upper_facets_2d(P)
    if res is None:
        return None
    planes, cycles, edges, boundary = res
    nbrs = {}
    for (i, k), fs in edges.items():
        x1, y1, d1 = planes[fs[0]][:3]
        if len(fs) == 2:
            x2, y2, d2 = planes[fs[1]][:3]
            p = _frac_point(x1 * d2 + x2 * d1, y1 * d2 + y2 * d1, 2 * d1 * d2)
        else:
            gx, gy = boundary[(i, k)]
            p = _frac_point(x1 + gx * d1, y1 + gy * d1, d1)
        nbrs.setdefault(i, []).append((unique[k], p))
        nbrs.setdefault(k, []).append((unique[i], p))
    cell_vertices = {}
    for f, cyc in enumerate(cycles):
        for i in cyc:
            cell_vertices.setdefault(i, []).append(f)
    rays = {}
    for (i, k), (gx, gy) in boundary.items():
        for t in (i, k):
            r = rays.setdefault(t, [0, 0])
            r[0] += gx
            r[1] += gy
    rows = {}  # (j, k) -> (row, rhs) in Fractions, built once per edge and negated for (k, j)
    for (i, k) in edges:
        j1, j2 = unique[i], unique[k]
        a = (Fraction(A_int[j2][0] - A_int[j1][0], L), Fraction(A_int[j2][1] - A_int[j1][1], L))
        b = Fraction(B_int[j1] - B_int[j2], L)
        rows[j1, j2] = (a, b)
        rows[j2, j1] = ((-a[0], -a[1]), -b)
    out = [None] * diagram.N
    for i, lst in nbrs.items():
        j = unique[i]
        lst.sort(key=lambda t: t[0])
        ks = [k for k, _ in lst]
        X, Y, D = _interior_candidate([planes[f] for f in cell_vertices[i][:3]], rays.get(i))
        aj, bj = A_int[j], B_int[j]
        if D == 0 or any((A_int[k][0] - aj[0]) * X + (A_int[k][1] - aj[1]) * Y >= (bj - B_int[k]) * D
                         for k in ks):
            return None
        cell_rows = [rows[j, k] for k in ks]
        out[j] = PowerCell(j, tuple(r for r, _ in cell_rows), tuple(c for _, c in cell_rows), tuple(ks),
                           _frac_point(X, Y, D), tuple(p for _, p in lst))
    return out


def _frac_point(X, Y, D):
    return (Fraction(X, D), Fraction(Y, D))


def _interior_candidate(verts, ray):
    """Homogeneous (X, Y, D): centroid of three cell vertices, else centroid of fewer + ray."""
    if len(verts) == 3:
        (x1, y1, d1), (x2, y2, d2), (x3, y3, d3) = (v[:3] for v in verts)
        return (x1 * d2 * d3 + x2 * d1 * d3 + x3 * d1 * d2, y1 * d2 * d3 + y2 * d1 * d3 + y3 * d1 * d2,
                3 * d1 * d2 * d3)
    if ray is None or not verts:
        return 0, 0, 0
    if len(verts) == 1:
        x1, y1, d1 = verts[0][:3]
        return x1 + ray[0] * d1, y1 + ray[1] * d1, d1
    (x1, y1, d1), (x2, y2, d2) = (v[:3] for v in verts)
    D = 2 * d1 * d2
    return x1 * d2 + x2 * d1 + ray[0] * D, y1 * d2 + y2 * d1 + ray[1] * D, D


def power_cells(diagram: PowerDiagram) -> tuple:
    """The certified cells of ``diagram`` (see :meth:`PowerDiagram.cells`).

    >>> cells = power_cells(PowerDiagram.voronoi([[0, 0], [1, 0], [0, 1], [1, 1]]))
    >>> [c.neighbors for c in cells]
    [(1, 2), (0, 3), (0, 3), (1, 2)]
    """
    dups = diagram.duplicates
    unique = [j for j in range(diagram.N) if j not in dups]
    out = None
    if diagram.dim == 2 and len(unique) >= 4:
        out = _cells_planar(diagram, unique)
    if out is None:
        out = _cells_by_lp(diagram, unique)
    return tuple(out)
