"""Linear regions of a tropical polynomial and its redundant terms, certified.

Term ``j`` has a region iff its lifted point ``(α_j, c_j)`` is a vertex of the upper
hull of the lifted points; the regions are read off the certified upper hull (region
``j`` is cut out by the terms sharing an upper cell with ``j``), and
``method="search"`` finds them independently by a certified LP per region against
every term.

>>> from tropattn.tropical.parsing import parse_polynomial
>>> [r.term for r in linear_regions(parse_polynomial("max(0, x, 2*x - 1)"))]
[0, 1, 2]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from collections import deque
from typing import TYPE_CHECKING

from .. import exact
from ..errors import InvalidInputError, TropattnError
from ..exact.counters import record
from ..geometry.lifting import upper_hull
from ..geometry.polytope import convex_hull

if TYPE_CHECKING:
    from .polynomial import TropicalPolynomial


__all__ = ["LinearRegion", "linear_regions", "redundant_terms"]


@dataclass(frozen=True)
class LinearRegion:
    """One linear region of a tropical polynomial: where ``term`` is the unique max.

    Attributes
    ----------
    term : int
        Index of the term (the first of its duplicates).
    terms : tuple of int
        Every index of a term identical to ``term`` (same exponent and coefficient):
        they all attain the max on this region.
    A, b : tuple of tuples of Fraction, tuple of Fraction
        The closed region is ``{x : A x <= b}``; only facet rows are kept.  Row ``i``
        is ``(α_k - α_j)·x <= c_j - c_k`` for the neighbour ``k = neighbors[i]``.
    neighbors : tuple of int
        The term whose region lies across each facet.
    facet_points : tuple of tuples of Fraction
        A rational point in the relative interior of each facet, where ``term`` and
        ``neighbors[i]`` tie and every other term is strictly smaller, except terms whose
        lifted points lie on the segment between theirs (redundant terms on the wall).
        It certifies that the row is a facet.
    interior_point : tuple of Fraction
        A rational point where ``term`` is the unique max (certified).
    """

    term: int
    terms: tuple
    A: tuple
    b: tuple
    neighbors: tuple
    facet_points: tuple
    interior_point: tuple

    def contains(self, x) -> bool:
        """Exact test ``A x <= b`` (closed region)."""
        x = exact.to_rational_vector(x, "x", len(self.interior_point))
        return all(sum(a * v for a, v in zip(row, x)) <= bi for row, bi in zip(self.A, self.b))

_REGION_METHODS = ("auto", "hull", "search")


def _distinct_terms(f):
    """First index of each distinct term, and all indices of each."""
    groups = {}
    for i, t in enumerate(f.terms):
        groups.setdefault(t, []).append(i)
    reps = sorted(g[0] for g in groups.values())
    return reps, {g[0]: tuple(g) for g in groups.values()}


def _region_system(f, j, others):
    """Rows ``(α_k - α_j)·x <= c_j - c_k`` (term j beats term k) for every k in ``others`` but j."""
    aj, cj = f.terms[j]
    A, b, nb = [], [], []
    for k in others:
        if k != j:
            ak, ck = f.terms[k]
            A.append(tuple(p - q for p, q in zip(ak, aj)))
            b.append(cj - ck)
            nb.append(k)
    return A, b, nb


def _strict_point(A, b, d):
    """Certified point of ``A x < b`` or None (no rows: the origin)."""
    if not A:
        return (Fraction(0),) * d
    return exact.interior_point(A, b).point


def _finish_region(f, j, A, b, nb, point, groups, den=1):
    """The LinearRegion of term j from rows that cut out its region exactly and a strict point.

    ``A``, ``b`` may be the rows times a positive ``den`` (integer rows); the region keeps
    the rows ``(α_k - α_j)·x <= c_j - c_k`` themselves.
    """
    fs = exact.facets(A, b, point) if A else exact.FacetSet(rows=())
    rows, neighbors, fpts = [], [], []
    for r in fs.rows:
        # rows giving the same half-space come from terms collinear with j in the lift; the
        # farthest one (largest multiple of the row) is the term that wins across the wall
        same = [r] + [s for s, t in fs.same_as.items() if t == r]
        best = max(same, key=lambda s: max(abs(v) for v in A[s]))
        rows.append(best)
        neighbors.append(nb[best])
        fpts.append(fs.points[r])
    A = tuple(tuple(Fraction(v, den) for v in A[r]) for r in rows)
    return LinearRegion(term=j, terms=groups[j], A=A, b=tuple(Fraction(b[r], den) for r in rows),
                        neighbors=tuple(neighbors), facet_points=tuple(fpts), interior_point=tuple(point))


def _region_for(f, j, reps, groups):
    """The LinearRegion of distinct term j against every other term, or None if it has none."""
    A, b, nb = _region_system(f, j, reps)
    point = _strict_point(A, b, f.dim)
    if point is None:
        return None
    return _finish_region(f, j, A, b, nb, point, groups)


def _seed_point(d):
    return tuple(Fraction(1, p) for p in (7, 11, 13, 17, 19, 23, 29, 31, 37, 41)[:d]) + \
        tuple(Fraction(k + 3, 43 + k) for k in range(max(0, d - 10)))


def _search_regions(f):
    """Breadth-first search over adjacent regions, one certified LP + facets per region.

    Seeds are the terms attaining the max at one point (every point lies in the
    closure of some region, so a seed has a region).  Each found region reports the
    term across each of its facets, which has a region too; when no new neighbour
    appears, the closed regions found cover a closed set without boundary, that is
    all of ``R^d``.  So the terms never reached are redundant, without an LP each.
    Every region is tested against all distinct terms: cost ~ regions x terms.
    """
    reps, groups = _distinct_terms(f)
    rep_of = {i: g[0] for g in groups.values() for i in g}
    seeds = sorted({rep_of[i] for i in f.argmax_terms(_seed_point(f.dim))})
    todo, seen, found = deque(seeds), set(seeds), {}
    while todo:
        j = todo.popleft()
        region = _region_for(f, j, reps, groups)
        if region is None:
            continue
        found[j] = region
        for k in region.neighbors:
            if k not in seen:
                seen.add(k)
                todo.append(k)
    if not found:  # cannot happen for a valid certificate chain; refuse to guess
        raise TropattnError("internal error: no linear region found; please report this polynomial")
    return tuple(found[j] for j in sorted(found))


def _upper_hull(f):
    """The certified upper hull of the lifted points (cached on ``f``)."""
    cache = f._cache
    if "upper_hull" not in cache:
        cache["upper_hull"] = upper_hull(f.lifted_points())
    return cache["upper_hull"]


def _integer_lift(f):
    """``(D, rows)``: the lifted points ``(α_k, c_k)`` times one common denominator ``D``, as ints."""
    cache = f._cache
    if "integer_lift" not in cache:
        den = 1
        for p in f.lifted_points():
            for v in p:
                den = den * v.denominator // math.gcd(den, v.denominator)
        cache["integer_lift"] = (den, tuple(tuple(int(v * den) for v in p) for p in f.lifted_points()))
    return cache["integer_lift"]


def _integer_system(f, j, others):
    """:func:`_region_system` times ``D``: integer rows ``D (α_k - α_j)·x <= D (c_j - c_k)``."""
    _, L = _integer_lift(f)
    lj = L[j]
    A, b, nb = [], [], []
    for k in others:
        if k != j:
            lk = L[k]
            A.append(tuple(p - q for p, q in zip(lk[:-1], lj[:-1])))
            b.append(lj[-1] - lk[-1])
            nb.append(k)
    return A, b, nb


def _tie_point(f, cell):
    """A point where all terms of ``cell`` tie (and attain the max, as ``cell`` is an upper face).

    The tie equations of a maximal cell span the directions of ``Newt(f)``, and
    :func:`tropattn.exact.solve` sets the free coordinates to 0, so every maximal cell
    gets its point on the same section transverse to the lineality space.
    """
    A, b, _ = _integer_system(f, cell[0], cell[1:])
    return exact.solve(A, b) if A else (Fraction(0),) * f.dim


def _recession_directions(f, js):
    """For each term j of ``js``: the sum of the outer normals of the facets of ``Newt(f)`` through ``α_j``.

    It lies in the relative interior of the normal cone of ``Newt(f)`` at the
    smallest face containing ``α_j``, which is the recession cone of region j (mod
    the lineality space); 0 when ``α_j`` is interior.  Incidences are exact signs
    (:func:`tropattn.exact.dot_signs`).
    """
    zero = (0,) * f.dim
    if len(set(f.exponents)) == 1:
        return {j: zero for j in js}
    facets = convex_hull(f.exponents).facets
    rows = [tuple(n * off.denominator for n in normal) + (-off.numerator,) for normal, off in facets]
    cols = []
    for j in js:
        nums, den = exact.homogeneous_point(f.exponents[j])
        cols.append(nums + (den,))
    on = exact.dot_signs(rows, cols) == 0
    out = {}
    for c, j in enumerate(js):
        r = [0] * f.dim
        for i in np.flatnonzero(on[:, c]):
            r = [u + v for u, v in zip(r, facets[i][0])]
        out[j] = tuple(r)
    return out


def _strictly_inside(A, b, x) -> bool:
    """Exact ``A x < b`` for integer rows and a rational point."""
    nums, den = exact.homogeneous_point(x)
    return all(sum(a * v for a, v in zip(row, nums)) < bi * den for row, bi in zip(A, b))


def _stars(f, hull):
    """Distinct cells (as sorted representative indices) and, per upper vertex, the cells containing it."""
    reps, groups = _distinct_terms(f)
    rep_of = {i: g[0] for g in groups.values() for i in g}
    cells = [tuple(sorted({rep_of[i] for i in c})) for c in hull.cells]
    star = {j: [] for j in hull.vertices}
    for ci, cell in enumerate(cells):
        for k in cell:
            if k in star:
                star[k].append(ci)
    return cells, star, groups


def _hull_regions(f):
    """Regions from the certified upper hull of the lifted points; None if a check fails.

    The terms with a region are exactly the upper vertices (an exact decision, as
    :func:`tropattn.geometry.upper_hull` is certified).  A facet of region j is the
    wall to a term k such that ``[j, k]`` is an upper edge, and every upper edge lies
    in a maximal upper cell; so region j is cut out exactly by the rows of the terms
    sharing a maximal cell with j, and the other rows are implied.  Its closure is
    ``conv{tie points of those cells} + recession cone``, so the mean of the tie
    points plus a relative-interior recession direction is a strict interior point
    (checked exactly; a certified LP on the few candidate rows if the check fails).
    Facets are then certified with :func:`tropattn.exact.facets` on the candidate rows.
    """
    hull = _upper_hull(f)
    verts = hull.vertices
    cells, star, groups = _stars(f, hull)
    if not verts or any(not s for s in star.values()) or not set(verts) <= set(groups):
        return None
    d = f.dim
    den, _ = _integer_lift(f)
    rec = _recession_directions(f, verts)
    ties, out = {}, {}
    for j in verts:
        for ci in star[j]:
            if ci not in ties:
                ties[ci] = _tie_point(f, cells[ci])
        points = [ties[ci] for ci in star[j]]
        if any(p is None for p in points):
            return None
        A, b, nb = _integer_system(f, j, sorted({k for ci in star[j] for k in cells[ci]}))
        x = tuple(sum(p[i] for p in points) / len(points) + rec[j][i] for i in range(d))
        if not _strictly_inside(A, b, x):
            x = _strict_point(A, b, d)
            if x is None:
                return None
        out[j] = _finish_region(f, j, A, b, nb, x, groups, den)
    for j, region in out.items():  # every wall leads to a region that sees j back
        if any(k not in out or j not in out[k].neighbors for k in region.neighbors):
            return None
    return tuple(out[j] for j in verts)


def linear_regions(f: TropicalPolynomial, method: str = "auto") -> tuple:
    """The linear regions of ``f``: one :class:`LinearRegion` per distinct non-redundant term.

    Each region is certified: its interior point makes its term the unique max
    (exactly), and its rows are exactly the facets (:func:`tropattn.exact.facets`).
    If ``Newt(f)`` is lower-dimensional the regions are unbounded slabs or prisms,
    still full-dimensional in ``R^d``.

    Parameters
    ----------
    f : TropicalPolynomial
    method : {"auto", "hull", "search"}
        ``"hull"``: the regions are the upper vertices of the lifted points
        ``(α_j, c_j)`` (certified upper hull) and each region's facets are found among
        the terms sharing an upper cell with it: fast for many terms.  ``"search"``:
        a search across facets, one certified LP and facet computation against every
        term per region (independent of the polytope code; slow for many terms).
        ``"auto"`` (default) is ``"hull"``, falling back to ``"search"`` if one of
        its consistency checks fails.  Both give identical regions.

    Returns
    -------
    tuple of LinearRegion, sorted by term index.

    Raises
    ------
    InvalidInputError
        Unknown ``method``.
    TropattnError
        ``method="hull"`` and a consistency check failed (please report it).

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> regions = linear_regions(parse_polynomial("max(0, x)"))
    >>> [(r.term, r.A, r.b) for r in regions]                 # x <= 0 and -x <= 0
    [(0, ((Fraction(1, 1),),), (Fraction(0, 1),)), (1, ((Fraction(-1, 1),),), (Fraction(0, 1),))]
    >>> f = parse_polynomial("max(0, x, y, x + y - 1)")
    >>> walls = lambda regions: [(r.term, r.A, r.b, r.neighbors) for r in regions]
    >>> walls(linear_regions(f, "hull")) == walls(linear_regions(f, "search"))
    True
    """
    if method not in _REGION_METHODS:
        raise InvalidInputError(f"method = {method!r}; use one of {_REGION_METHODS}")
    cache, key = f._cache, ("regions", method)
    if key in cache:
        return cache[key]
    if method == "search":
        regions = _search_regions(f)
    else:
        regions = cache.get(("regions", "hull")) or _hull_regions(f)
        if regions is not None:
            cache["regions", "hull"] = regions
        elif method == "hull":
            raise TropattnError("internal error: the upper-hull regions failed a consistency check; "
                                "use method='search' and please report this polynomial")
        else:
            record("fallbacks")  # counted like every other exact fallback
            regions = linear_regions(f, "search")
    cache[key] = regions
    return regions


def redundant_terms(f: TropicalPolynomial) -> tuple:
    """Indices of the terms that are the max on no open set, sorted.

    A term has a region iff its lifted point ``(α_j, c_j)`` is a vertex of the upper
    hull (:func:`tropattn.geometry.upper_hull`, certified exactly), so no region is
    computed.  Convention: a term identical to a term that has a region (same
    exponent and coefficient) is *not* redundant: it attains the max on that whole
    region.  A term with the same exponent but a smaller coefficient is redundant.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> redundant_terms(parse_polynomial("max(0, x, 2*x, x/2 - 5)"))   # 0 and 2x suffice
    (1, 3)
    """
    top = {f.terms[j] for j in _upper_hull(f).vertices}
    return tuple(i for i, t in enumerate(f.terms) if t not in top)
