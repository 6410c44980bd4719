"""Power diagrams: the exact geometry of zero-temperature attention.

A *power diagram* of sites ``a_1, ..., a_N`` in ``R^d`` with weights ``w_j`` assigns
each point ``x`` to the site of smallest *power distance*

    pow_j(x) = ||x - a_j||^2 - w_j .

Expanding the square, ``pow_j(x) = ||x||^2 - 2 (a_j . x + b_j)`` with the **score**
``s_j(x) = a_j . x + b_j`` and ``b_j = (w_j - ||a_j||^2) / 2``.  The term ``||x||^2``
is common to every site, so the nearest site (in power distance) is the site of
largest score: the diagram *is* the set of linear regions of the convex piecewise
affine function ``G(x) = max_j (a_j . x + b_j)`` -- and a zero-temperature attention
head with keys ``a_j`` and offsets ``b_j`` picks exactly that site (docs/THEORY.md §2).

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

The cells are computed and certified by :func:`power_cells` (module
:mod:`tropattn.geometry._power_cells`), from the one certified upper hull of the lifted points.

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

from .._display import grow_box, svg_picture
from .._lazy import lazy_import
from ..errors import InvalidInputError, TieError
from ..exact import format_point, homogeneous_point, to_rational_matrix, to_rational_vector
from ._power_cells import power_table

nx = lazy_import("networkx")
shapely_geometry = lazy_import("shapely.geometry")

__all__ = ["weights_to_scores", "scores_to_weights", "PowerDiagram", "clip_polygon"]


def weights_to_scores(sites, weights) -> tuple:
    """Offsets ``b_j = (w_j - ||a_j||^2) / 2`` of the scores ``a_j . x + b_j``.

    Parameters
    ----------
    sites : (N, d) rationals
    weights : (N,) rationals

    Returns
    -------
    tuple of Fraction
        The offsets ``b_j``: the score of site ``j`` is ``a_j . x + b_j``.

    Raises
    ------
    InvalidInputError
        Shapes that do not match, NaN or infinite entries.

    Examples
    --------
    >>> weights_to_scores([[1, 1]], [0])          # Voronoi site (1, 1): b = -||a||^2 / 2
    (Fraction(-1, 1),)
    """
    sites = to_rational_matrix(sites, "sites")
    weights = to_rational_vector(weights, "weights", len(sites))
    return tuple((w - sum(v * v for v in a)) / 2 for a, w in zip(sites, weights))


def scores_to_weights(keys, offsets) -> tuple:
    """Weights ``w_j = ||a_j||^2 + 2 b_j`` of the power diagram of ``max_j (a_j . x + b_j)``.

    Parameters
    ----------
    keys : (N, d) rationals
        The slopes ``a_j``.
    offsets : (N,) rationals
        The intercepts ``b_j``.

    Returns
    -------
    tuple of Fraction
        The weights ``w_j`` (power distance ``||x - a_j||^2 - w_j``).

    Raises
    ------
    InvalidInputError
        Shapes that do not match, NaN or infinite entries.

    Examples
    --------
    >>> scores_to_weights([[1, 1]], [-1])
    (Fraction(0, 1),)
    """
    keys = to_rational_matrix(keys, "keys")
    offsets = to_rational_vector(offsets, "offsets", len(keys))
    return tuple(sum(v * v for v in a) + 2 * b for a, b in zip(keys, offsets))


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

        Parameters
        ----------
        sites : (N, d) rationals

        Returns
        -------
        PowerDiagram

        Examples
        --------
        >>> PowerDiagram.voronoi([[0, 0], [4, 0]]).locate([1, 5])
        0
        """
        sites = to_rational_matrix(sites, "sites")
        return cls(sites, (Fraction(0),) * len(sites))

    @classmethod
    def from_max_affine(cls, slopes, intercepts) -> "PowerDiagram":
        """The diagram of the linear regions of ``max_j (slopes_j . x + intercepts_j)``.

        Sites are the slopes, weights ``||a_j||^2 + 2 b_j``.

        Parameters
        ----------
        slopes : (N, d) rationals
        intercepts : (N,) rationals

        Returns
        -------
        PowerDiagram
            Cell ``j`` is where term ``j`` is the unique max.

        Examples
        --------
        >>> PowerDiagram.from_max_affine([[1], [-1]], [0, 0]).weights     # |x| = max(x, -x)
        (Fraction(1, 1), Fraction(1, 1))
        """
        slopes = to_rational_matrix(slopes, "slopes")
        intercepts = to_rational_vector(intercepts, "intercepts", len(slopes))
        return cls(slopes, scores_to_weights(slopes, intercepts))

    def to_max_affine(self) -> tuple:
        """``(slopes, intercepts)`` with ``argmax_j (slopes_j . x + intercepts_j)`` = nearest site.

        Returns
        -------
        (slopes, intercepts) : tuple of tuples of Fraction, tuple of Fraction

        Examples
        --------
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
            self._cache["dups"] = _duplicates(self._score_matrix())
        return self._cache["dups"]

    def _int_scores(self):
        """Scores as integers: ``L * (a_j . x + b_j) = A_j . x + B_j`` with one common ``L > 0``.

        ``L = 2 lcm(den(a)^2, den(w))`` makes ``L a_j`` and ``L b_j = (L w_j - L ||a_j||^2) / 2``
        integers without any Fraction arithmetic: numerators times ``L / den``, and
        ``L ||a_j||^2 = sum (L / den^2) num^2``, on numpy arrays of Python integers.
        """
        if "ints" not in self._cache:
            M, L = self._score_matrix(), self._cache["L"]
            self._cache["ints"] = (list(map(tuple, M[:, :-1].tolist())), M[:, -1].tolist(), L)
        return self._cache["ints"]

    def _score_matrix(self) -> np.ndarray:
        """The integer scores ``[A_j | B_j]`` of :meth:`_int_scores` as one (N, d + 1) array.

        int64 when a float bound on ``L max(|a|, d |a|^2, |w|)`` proves every value and every
        intermediate product below ``2^62``; else numpy arrays of Python integers (the same formulas).
        """
        if "scores" not in self._cache:
            n, d = self.N, self.dim
            num = [v.numerator for a in self.sites for v in a] + [w.numerator for w in self.weights]
            den = [v.denominator for a in self.sites for v in a] + [w.denominator for w in self.weights]
            la, lw = math.lcm(*set(den[:n * d])), math.lcm(*set(den[n * d:]))
            L = 2 * math.lcm(la * la, lw)
            num, den = _int_arrays(num, den, L, d)
            scaled = num * (L // den)                                     # L a_j (site-major), then L w_j
            a_num, a_den = num[:n * d].reshape(n, d), den[:n * d].reshape(n, d)
            B = (scaled[n * d:] - (a_num * a_num * (L // (a_den * a_den))).sum(axis=1)) // 2
            M = np.concatenate([scaled[:n * d].reshape(n, d), B[:, None]], axis=1)
            self._cache["L"], self._cache["scores"] = L, M
        return self._cache["scores"]

    def power(self, x, j: int) -> Fraction:
        """Power distance ``||x - a_j||^2 - w_j``, exact.

        Parameters
        ----------
        x : (d,) rationals
        j : int
            A site index.

        Returns
        -------
        Fraction

        Examples
        --------
        >>> PowerDiagram([[0, 0]], [1]).power([1, 1], 0)
        Fraction(1, 1)
        """
        x = to_rational_vector(x, "x", self.dim)
        return sum((xi - ai) ** 2 for xi, ai in zip(x, self.sites[j])) - self.weights[j]

    # ---------------------------------------------------------------- point location
    def locate_all(self, x) -> tuple:
        """Every site of minimal power distance at ``x`` (= maximal score), increasing.

        Parameters
        ----------
        x : (d,) rationals

        Returns
        -------
        tuple of int
            Every site index of smallest power distance, increasing (more than one on a wall).

        Examples
        --------
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

        Parameters
        ----------
        x : (d,) rationals

        Returns
        -------
        int
            The winning site.


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
            raise TieError(f"x = {format_point(xr)} is on the wall between sites {tuple(distinct)}: they tie "
                           f"(power distance {pw}); move x off the wall or use locate_all(x)", distinct)
        return distinct[0]

    # ---------------------------------------------------------------- cells
    def cells(self) -> tuple:
        """The certified cells, indexed by site: a :class:`PowerCell`, or None if hidden.

        Returns
        -------
        tuple of PowerCell or None
            One entry per site; None for a hidden site (a cell with empty interior).

        Examples
        --------
        >>> [c is None for c in PowerDiagram([[0], [1], [2]], [0, -5, 0]).cells()]
        [False, True, False]
        """
        return self._table().cells()

    def _table(self):
        """The certified cells as integer arrays (:func:`~tropattn.geometry._power_cells.power_table`)."""
        if "table" not in self._cache:
            self._cache["table"] = power_table(self)
        return self._cache["table"]

    @property
    def hidden(self) -> tuple:
        """Sites whose cell has empty interior (increasing)."""
        live = np.zeros(self.N, dtype=bool)
        live[self._table().sites] = True
        return tuple(np.flatnonzero(~live).tolist())

    @property
    def nonempty(self) -> tuple:
        """Sites with a full-dimensional cell (increasing)."""
        return tuple(self._table().sites.tolist())

    @property
    def edges(self) -> np.ndarray:
        """The adjacent sites: one row ``(j, k)``, ``j < k``, per shared facet, sorted (int64).

        Read from the certified hull's integer arrays without building any cell, like
        :attr:`hidden` and :attr:`nonempty`; :meth:`adjacency_graph` is the same as a graph.

        >>> PowerDiagram.voronoi([[0, 0], [1, 0], [0, 1], [1, 1]]).edges.tolist()
        [[0, 1], [0, 2], [1, 3], [2, 3]]
        """
        if "edges" not in self._cache:
            e = self._table().edges()
            e.flags.writeable = False
            self._cache["edges"] = e
        return self._cache["edges"]

    def adjacency_graph(self, points: bool = False):
        """networkx Graph on the nonempty sites; an edge per shared facet.

        Parameters
        ----------
        points : bool, optional
            Also give every edge the attribute ``point``: an exact rational point in the
            relative interior of the facet (the same tuple as the cells' ``facet_points``).
            Off by default: the graph then is read from :attr:`edges` and costs no cell
            objects and no Fractions, which matters for large diagrams; the points stay
            available, cell by cell, as ``cell.facet_points``.

        Returns
        -------
        networkx.Graph

        Examples
        --------
        >>> g = PowerDiagram.voronoi([[0], [1], [2]]).adjacency_graph(points=True)
        >>> sorted(g.edges), g.edges[0, 1]["point"]
        ([(0, 1), (1, 2)], (Fraction(1, 2),))
        """
        g = nx.Graph()
        g.add_nodes_from(self._table().sites.tolist())
        if not points:
            g.add_edges_from(self.edges.tolist())
            return g
        for c in self.cells():
            if c is not None:
                g.add_edges_from((c.site, k, {"point": p}) for k, p in zip(c.neighbors, c.facet_points) if c.site < k)
        return g

    def clip_to_box(self, lo, hi) -> dict:
        """The cells cut to the box ``[lo, hi]``: ``{site: shapely Polygon}`` in 2-D.

        The clipping is exact (rational); the polygons are float copies for pictures.
        Cells that miss the box (or touch it only on its boundary) are left out, so
        the areas sum to the box area.  In 1-D the values are exact intervals
        ``(left, right)`` of Fractions.

        Parameters
        ----------
        lo, hi : (d,) rationals
            Opposite corners of the box, ``lo < hi`` in every coordinate.

        Returns
        -------
        dict
            ``{site: shapely Polygon}`` in 2-D, ``{site: (left, right)}`` in 1-D.

        Raises
        ------
        InvalidInputError
            An empty box, or a diagram in ``R^d`` with ``d > 2``.

        Examples
        --------
        >>> polys = PowerDiagram.voronoi([[0, 0], [2, 0]]).clip_to_box([-1, -1], [3, 1])
        >>> sorted((k, p.area) for k, p in polys.items())
        [(0, 4.0), (1, 4.0)]
        """
        lo = to_rational_vector(lo, "lo", self.dim)
        hi = to_rational_vector(hi, "hi", self.dim)
        if any(l >= h for l, h in zip(lo, hi)):
            raise InvalidInputError(f"the box needs lo < hi in every coordinate; got lo = {format_point(lo)}, "
                                    f"hi = {format_point(hi)}")
        if self.dim == 1:
            return _clip_intervals(self.cells(), lo[0], hi[0])
        if self.dim != 2:
            raise InvalidInputError(f"clip_to_box draws cells in the plane; this diagram lives in R^{self.dim}. "
                                    "Project the sites to 2 coordinates first, or use cells() for exact "
                                    "inequalities in any dimension")
        return {j: shapely_geometry.Polygon([(float(x), float(y)) for x, y in poly])
                for j, poly in self._clip_exact(lo, hi).items()}

    def _clip_exact(self, lo, hi) -> dict:
        """``{site: exact corners}`` of the 2-D cells with area inside the box ``[lo, hi]``."""
        box = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
        out = {}
        for c in self.cells():
            if c is None:
                continue
            poly = box
            for a, b in zip(c.A, c.b):
                poly = clip_polygon(poly, a, b)
                if len(poly) < 3:
                    break
            if len(poly) >= 3 and _area2(poly) > 0:
                out[c.site] = poly
        return out

    def showing_box(self) -> tuple:
        """A box (exact corners) that meets every nonempty cell: the sites' box, doubled until it does.

        Returns
        -------
        lo, hi : tuple of Fraction
            Opposite corners.

        Raises
        ------
        InvalidInputError
            For a diagram in ``R^d`` with ``d > 2`` (as :meth:`clip_to_box`).

        Examples
        --------
        >>> pd = PowerDiagram.from_max_affine([[0], [1]], [0, -10])     # the wall is at x = 10
        >>> pd.showing_box()
        ((Fraction(-23, 2),), (Fraction(25, 2),))
        """
        lo = [min(s[i] for s in self.sites) - 1 for i in range(self.dim)]
        hi = [max(s[i] for s in self.sites) + 1 for i in range(self.dim)]
        want = len(self.nonempty)
        return grow_box(lo, hi, lambda lo, hi: len(self.clip_to_box(lo, hi)) == want)

    def svg(self, title=None, sites: bool = True) -> str:
        """The cells in a box that shows all of them (:meth:`showing_box`), as an SVG picture (d = 2).

        One filled polygon per nonempty cell (its tooltip names the site), the sites as dots.
        The clipping is exact; the corners are drawn in floats.

        Parameters
        ----------
        title : str, optional
            The caption (default: the numbers of cells and hidden sites).
        sites : bool, optional
            Mark the sites (default True).

        Returns
        -------
        str
            A standalone ``<svg>`` element.

        Raises
        ------
        InvalidInputError
            For a diagram that does not live in the plane.

        Examples
        --------
        >>> svg = PowerDiagram.voronoi([[0, 0], [2, 0], [0, 2]]).svg()
        >>> svg.count('class="cell"'), svg.count('class="site"')
        (3, 3)
        """
        if self.dim != 2:
            raise InvalidInputError(f"an SVG picture shows a diagram in the plane; this one lives in R^{self.dim}. "
                                    "Use tropattn.plot.plot_3d for d = 3, or slice it first")
        lo, hi = self.showing_box()
        cells = self._clip_exact(lo, hi)
        title = title or f"power diagram: {len(cells)} cells, {len(self.hidden)} hidden sites"
        return svg_picture([(f"cell of site {j}", poly) for j, poly in cells.items()], (lo, hi),
                           points=self.sites if sites else (), title=title)

    def _repr_svg_(self):
        """Jupyter's picture: :meth:`svg` in the plane, None (no picture) otherwise."""
        return self.svg() if self.dim == 2 else None


def _int_arrays(num: list, den: list, L: int, d: int) -> tuple:
    """Numerators and denominators as int64 arrays when the scores of :meth:`PowerDiagram._score_matrix`
    provably fit (``L max(|a|, d |a|^2, |w|)`` below ``2^60`` in floats, a bound off by far less than
    the factor 4 it keeps), else as object arrays of Python integers.

    >>> [a.dtype for a in _int_arrays([1, 3], [2, 1], 4, 1)], _int_arrays([2 ** 40, 1], [1, 1], 2, 1)[0].dtype
    ([dtype('int64'), dtype('int64')], dtype('O'))
    """
    if L < 1 << 60:
        try:
            N, D = np.array(num, dtype=np.int64), np.array(den, dtype=np.int64)
        except OverflowError:                            # beyond int64 already
            pass
        else:
            q = np.abs(N / D).max()
            if float(L) * max(q, d * q * q) < 2.0 ** 60:
                return N, D
    return np.array(num, dtype=object), np.array(den, dtype=object)


def _duplicates(M: np.ndarray) -> dict:
    """``{hidden: hider}`` for equal sites (equal rows ``M[:, :-1]``): the largest score ``M[:, -1]``
    wins, then the first index.  One lexicographic sort (int64 rows), or a dict of tuples.

    >>> _duplicates(np.array([[1, 0], [1, 2], [1, 2], [0, 5]]))
    {0: 1, 2: 1}
    """
    if M.dtype == object:
        best = {}
        for j, row in enumerate(M.tolist()):
            k = best.get(tuple(row[:-1]))
            if k is None or row[-1] > M[k, -1]:
                best[tuple(row[:-1])] = j
        return {j: best[tuple(row[:-1])] for j, row in enumerate(M.tolist()) if best[tuple(row[:-1])] != j}
    n = len(M)
    order = np.lexsort((np.arange(n), -M[:, -1]) + tuple(M[:, c] for c in range(M.shape[1] - 2, -1, -1)))
    X = M[order, :-1]
    new = np.r_[True, np.any(X[1:] != X[:-1], axis=1)]
    hider = order[np.flatnonzero(new)[np.cumsum(new) - 1]]
    hidden = np.flatnonzero(~new)
    first = np.argsort(order[hidden])
    return dict(zip(order[hidden][first].tolist(), hider[hidden][first].tolist()))


def clip_polygon(poly, a, b):
    """Sutherland-Hodgman: the part of a convex polygon with ``a . p <= b``, exact.

    Parameters
    ----------
    poly : list of (x, y) pairs of rationals
        The corners of a convex polygon, in order.
    a : pair of rationals
    b : rational

    Returns
    -------
    list of (x, y) pairs
        The corners of the clipped polygon (empty, or fewer than 3, if nothing of area is left).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> clip_polygon([(F(0), F(0)), (F(2), F(0)), (F(2), F(2)), (F(0), F(2))], (F(1), F(0)), F(1))   # x <= 1
    [(Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(2, 1)), (Fraction(0, 1), Fraction(2, 1))]
    """
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
