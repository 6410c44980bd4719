"""Linear regions of a tropical polynomial and its redundant terms, certified.

Term ``j`` has a region iff its lifted point ``(α_j, c_j)`` is a vertex of the upper
hull of the lifted points; the regions are read off the certified upper hull (region
``j`` is cut out by the terms sharing an upper cell with ``j``), and
``method="search"`` finds them independently by a certified LP per region against
every term.

>>> from tropattn.tropical._parsing import parse_polynomial
>>> [r.term for r in linear_regions(parse_polynomial("max(0, x, 2*x - 1)"))]
[0, 1, 2]
"""

from __future__ import annotations

from collections import deque
from dataclasses import FrozenInstanceError
from fractions import Fraction
from typing import TYPE_CHECKING

from .. import exact
from .._validate import choice
from ..errors import InternalError
from ..geometry import PowerDiagram, upper_hull

if TYPE_CHECKING:
    from ._polynomial import TropicalPolynomial


__all__ = ["LinearRegion", "linear_regions", "redundant_terms", "METHODS"]


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

    Immutable.  Regions read off a power diagram (``method="hull"``) take ``A``, ``b``,
    ``facet_points`` and ``interior_point`` from its cell when first read (the cell builds
    its Fractions then); equality, hashing, pickling and ``repr`` use the exact values.
    """

    __slots__ = ("term", "terms", "neighbors", "_exact")

    def __init__(self, term, terms, A, b, neighbors, facet_points, interior_point):
        _set = object.__setattr__
        _set(self, "term", term)
        _set(self, "terms", terms)
        _set(self, "neighbors", neighbors)
        _set(self, "_exact", {"A": A, "b": b, "facet_points": facet_points, "interior_point": interior_point})

    @classmethod
    def _of_cell(cls, term, terms, cell) -> "LinearRegion":
        """The region of a power cell, its exact fields read from the cell when first asked for."""
        region = object.__new__(cls)
        object.__setattr__(region, "term", term)
        object.__setattr__(region, "terms", terms)
        object.__setattr__(region, "neighbors", cell.neighbors)
        object.__setattr__(region, "_exact", cell)
        return region

    def _get(self, name):
        ex = self._exact
        return ex[name] if type(ex) is dict else getattr(ex, name)

    A = property(lambda self: self._get("A"), doc="Facet rows (tuple of tuples of Fraction).")
    b = property(lambda self: self._get("b"), doc="Right-hand sides (tuple of Fraction).")
    facet_points = property(lambda self: self._get("facet_points"), doc="A relative-interior point per facet.")
    interior_point = property(lambda self: self._get("interior_point"), doc="Certified strict interior point.")

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"LinearRegion is immutable: cannot assign to field {name!r}")

    def _key(self):
        return (self.term, self.terms, self.A, self.b, self.neighbors, self.facet_points, self.interior_point)

    def __eq__(self, other):
        return self._key() == other._key() if isinstance(other, LinearRegion) else NotImplemented

    def __hash__(self):
        return hash(self._key())

    def __reduce__(self):                     # pickles and copies hold the exact values
        return LinearRegion, self._key()

    def __repr__(self):
        return (f"LinearRegion(term={self.term!r}, terms={self.terms!r}, A={self.A!r}, b={self.b!r}, "
                f"neighbors={self.neighbors!r}, facet_points={self.facet_points!r}, "
                f"interior_point={self.interior_point!r})")

    def contains(self, x) -> bool:
        """Exact test ``A x <= b`` (closed region).

        Parameters
        ----------
        x : sequence of numbers, length d
            The point (ints, Fractions, ``"p/q"`` strings or floats, converted exactly).

        Returns
        -------
        bool
            True iff ``term`` attains the max at ``x`` (on a wall, neighbouring regions
            contain ``x`` too).

        Raises
        ------
        InvalidInputError
            ``x`` has the wrong length or a NaN or infinite entry.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> zero, x = linear_regions(parse_polynomial("max(0, x)"))
        >>> zero.contains([-1]), zero.contains([0]), x.contains([0]), x.contains(["1/2"])
        (True, True, True, True)
        >>> zero.contains(["1/2"])
        False
        """
        x = exact.to_rational_vector(x, "x", len(self.interior_point))
        return all(sum(a * v for a, v in zip(row, x)) <= bi for row, bi in zip(self.A, self.b))

#: The methods of :func:`linear_regions` ("auto" is "hull").
METHODS = ("auto", "hull", "search")


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
    walls = []
    for r in fs.rows:
        # rows giving the same half-space come from terms collinear with j in the lift; the
        # farthest one (largest multiple of the row) is the term that wins across the wall
        same = [r] + [s for s, t in fs.same_as.items() if t == r]
        best = max(same, key=lambda s: max(abs(v) for v in A[s]))
        walls.append((nb[best], best, fs.points[r]))
    walls.sort()                                   # by neighbour, as power cells are
    neighbors, rows, fpts = ([w[i] for w in walls] for i in range(3))
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
        raise InternalError("no linear region found; please report this polynomial")
    return tuple(found[j] for j in sorted(found))


def _upper_hull(f):
    """The certified upper hull of the lifted points (cached on ``f``)."""
    cache = f._cache
    if "upper_hull" not in cache:
        cache["upper_hull"] = upper_hull(f.lifted_points())
    return cache["upper_hull"]


def _hull_regions(f) -> tuple:
    """The regions as the cells of the power diagram of the same max-affine function.

    ``max_j (α_j·x + c_j)`` picks the site of smallest power distance among sites ``α_j``
    with weights ``||α_j||^2 + 2 c_j``, so its linear regions *are* the cells of that power
    diagram, and both are read off the one certified upper hull of the lifted points
    ``(α_j, c_j)`` (:func:`tropattn.geometry.power_cells`).  Region ``j`` is cut out
    by the walls to the terms joined to it by an upper edge.
    """
    _, groups = _distinct_terms(f)
    diagram = PowerDiagram.from_max_affine(f.exponents, f.coefficients)
    return tuple(LinearRegion._of_cell(c.site, groups[c.site], c) for c in diagram.cells() if c is not None)


def linear_regions(f: TropicalPolynomial, method: str = "auto") -> tuple:
    """The linear regions of ``f``: one :class:`LinearRegion` per distinct non-redundant term.

    Each region is certified: its interior point makes its term the unique max
    (exactly), and its rows are exactly the facets (:func:`tropattn.exact.facets`).
    If ``Newt(f)`` is lower-dimensional the regions are unbounded slabs or prisms,
    still full-dimensional in ``R^d``.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial ``max_j (α_j·x + c_j)``; the result is cached on it.
    method : {"auto", "hull", "search"}
        ``"hull"`` (and ``"auto"``, the default): the regions are the cells of the power
        diagram of the same function, read off the certified upper hull of the lifted
        points ``(α_j, c_j)`` (output sensitive: each region costs its few walls).
        ``"search"``: a search across facets, one certified LP and facet computation
        against every term per region (independent of the hull code; slow for many
        terms).  Both give identical regions; the tests compare them
        (docs/ALGORITHMS.md §5).

    Returns
    -------
    tuple of LinearRegion, sorted by term index.

    Raises
    ------
    InvalidInputError
        Unknown ``method``.
    InternalError
        ``method="search"`` found no region at all (cannot happen for a correct
        certificate chain; please report the polynomial).

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
    choice(method, "method", METHODS, "'auto' and 'hull' read the regions off the certified upper hull, "
           "'search' finds them by one certified LP per region")
    cache, key = f._cache, ("regions", method)
    if key in cache:
        return cache[key]
    if method == "search":
        regions = _search_regions(f)
    else:
        regions = cache.get(("regions", "hull")) or _hull_regions(f)
        cache["regions", "hull"] = regions
    cache[key] = regions
    return regions


def redundant_terms(f: TropicalPolynomial) -> tuple:
    """Indices of the terms that are the max on no open set, sorted.

    A term has a region iff its lifted point ``(α_j, c_j)`` is a vertex of the upper
    hull (:func:`tropattn.geometry.upper_hull`, certified exactly), so no region is
    computed.  Convention: a term identical to a term that has a region (same
    exponent and coefficient) is *not* redundant: it attains the max on that whole
    region.  A term with the same exponent but a smaller coefficient is redundant.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial; its certified upper hull is cached on it.

    Returns
    -------
    tuple of int
        Indices into ``f.terms``, increasing; the complement of the terms of
        :func:`linear_regions` (with their duplicates).

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> redundant_terms(parse_polynomial("max(0, x, 2*x, x/2 - 5)"))   # 0 and 2x suffice
    (1, 3)
    >>> f = parse_polynomial("max(0, x, 2*x)")                      # x is the max only at 0
    >>> redundant_terms(f), [r.term for r in linear_regions(f)]
    ((1,), [0, 2])
    """
    top = {f.terms[j] for j in _upper_hull(f).vertices}
    return tuple(i for i, t in enumerate(f.terms) if t not in top)
