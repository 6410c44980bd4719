"""Exact convex polytopes: hulls, Minkowski sums, upper hulls and normal fans.

A polytope is the convex hull of finitely many points (its *V-representation*)
and, equivalently, the bounded solution set of finitely many inequalities (its
*H-representation*).  Here both are exact: vertices are tuples of Fractions,
facets are rows ``normal . x <= offset`` with primitive integer normals, and the
affine hull is a list of equations ``normal . x == offset``.

How a hull is computed (docs/ALGORITHMS.md §2).  Every point ``x = num / den``
is stored as the primitive integer row ``(num, den)``.  The affine hull is found
exactly; coordinates are projected to an independent subset so that the set is
full-dimensional there.  Qhull triangulates the boundary in floats (joggled input
first, then the default merged run); for each simplex the hyperplane through its
points is rebuilt exactly (signed minors in int64, or modulo primes, in blocks), and
the certificate of Mehlhorn et al. proves that these hyperplanes are exactly the
facets: a closed, consistently oriented surface, locally convex at every ridge, met
once by a ray from an interior point, with every other point inside (O(facets +
points) exact signs, no facet x point matrix; docs/THEORY.md §12).  Otherwise an
exact double-description algorithm over Python integers computes the facets, and
:data:`tropattn.exact.COUNTERS` records the fallback.  A point is a vertex iff the
facets through it meet in that point alone.  Numbers beyond the float range (or
tiny ones) take the same certified path: floats only propose.

Minkowski sums ``P + Q`` are certified without testing the ``|P| |Q|`` sums: a
hyperplane supports ``P + Q`` iff it supports ``P`` and ``Q`` separately, so each
candidate facet is checked against the vertices of ``P`` and of ``Q`` only (see
:func:`minkowski_sum`).  Upper hulls use one projective transformation that turns
the downward ray into a single apex point (see :func:`upper_hull`).

>>> from tropattn.geometry import minkowski_sum
>>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1], ["1/2", "1/2"]])
>>> square.vertex_count, square.facet_count        # the centre is not a vertex
(4, 4)
>>> triangle = convex_hull([[0, 0], [1, 0], [0, 1]])
>>> minkowski_sum(square, triangle).vertex_count   # edges of both, sorted by angle
5
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .. import exact
from .._display import convex_order, svg_picture
from ..errors import InvalidInputError
from ..exact import Hull, certified_hull, homogeneous_row, homogeneous_rows, lex_order, rows_to_fractions


__all__ = ["Polytope", "convex_hull", "rational_sphere_points"]


def _to_points(points, name: str) -> tuple:
    """Points as a tuple of Fraction tuples; refuse empty input."""
    pts = exact.to_rational_matrix(points, name)
    if not pts:
        raise InvalidInputError(f"{name} is empty; a polytope needs at least one point, e.g. [[0, 0]]")
    if not pts[0]:
        raise InvalidInputError(f"{name} has points with no coordinates; give at least one coordinate per point")
    return pts


@dataclass(frozen=True, eq=False)
class Polytope:
    """A bounded convex polytope in exact rational arithmetic (immutable, canonical).

    Attributes
    ----------
    vertices : tuple of tuple of Fraction
        The vertices, sorted lexicographically.
    equations : tuple of (normal, offset)
        The affine hull ``normal . x == offset`` (empty when full-dimensional),
        canonical: the reduced-echelon nullspace basis, scaled to primitive integer
        normals (tuples of int); offsets are Fractions.
    facets : tuple of (normal, offset)
        Irredundant inequalities ``normal . x <= offset``, one per facet, sorted:
        ``normal`` is a primitive tuple of ints orthogonal to the equations'
        normals, ``offset`` a Fraction.
    ambient_dim, dim : int
        Dimension of the space and of the polytope.

    ``==`` and ``hash`` compare the vertices (exactly, by their reduced integer rows).

    Polytopes made by this module keep their vertices and facets as integer rows
    (``(numerators, denominator)`` per vertex, ``(a, b)`` with ``a . x + b <= 0`` per
    facet) and build the Fraction tuples ``vertices`` and ``facets`` on first
    access, once: counts, ``==``, ``hash`` and :func:`minkowski_sum` use the integer
    rows only.  The fields read the same either way.

    Examples
    --------
    >>> P = Polytope.from_points([[0, 0, 0], [1, 1, 1], [2, 2, 2]])   # a segment in R^3
    >>> P.dim, P.vertices[-1], len(P.equations), P.facet_count
    (1, (Fraction(2, 1), Fraction(2, 1), Fraction(2, 1)), 2, 2)
    """

    vertices: tuple
    equations: tuple
    facets: tuple
    ambient_dim: int
    dim: int

    def __getattr__(self, name):
        """Build a lazy field (``vertices`` / ``facets``) from its integer rows, once.

        Only called when ordinary lookup fails, i.e. the field is not built yet.
        """
        state = self.__dict__
        if name == "vertices" and "_vertex_rows" in state:
            value = rows_to_fractions(state["_vertex_rows"])
        elif name == "facets" and ("_facet_rows" in state or "_hull" in state):
            value = _full_dimensional_facets(self._facet_rows)
        elif name == "_facet_rows" and "_hull" in state:  # the hull's exact rows, built when first read
            value = state.pop("_hull").facets
        else:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        state[name] = value
        return value

    def __eq__(self, other):
        if not isinstance(other, Polytope):
            return NotImplemented
        return self.ambient_dim == other.ambient_dim and self._vertex_rows == other._vertex_rows

    def __hash__(self):
        return hash((self.ambient_dim, self._vertex_rows))

    def __repr__(self):
        return (f"Polytope(dim={self.dim}, ambient_dim={self.ambient_dim}, "
                f"vertices={self.vertex_count}, facets={self.facet_count})")

    def _repr_svg_(self):
        """Jupyter's picture of a polytope in the plane (a polygon, a segment or a point); None otherwise.

        >>> svg = Polytope.from_points([[0, 0], [2, 0], [0, 2], [1, 1]])._repr_svg_()   # (1, 1) is on an edge
        >>> svg.count('class="cell"'), svg.count('class="site"')
        (1, 3)
        """
        if self.ambient_dim != 2:
            return None
        lo = [min(v[i] for v in self.vertices) for i in range(2)]
        hi = [max(v[i] for v in self.vertices) for i in range(2)]
        pad = max(max(h - l for l, h in zip(lo, hi)) / 10, Fraction(1, 2))
        box = ([l - pad for l in lo], [h + pad for h in hi])
        return svg_picture([("polytope", convex_order(self.vertices))], box, points=self.vertices,
                           title=f"{self.dim}-dimensional polytope, {self.vertex_count} vertices")

    @property
    def vertex_count(self) -> int:
        """Number of vertices."""
        return len(self._vertex_rows)

    @property
    def facet_count(self) -> int:
        """Number of facets (within the affine hull)."""
        state = self.__dict__
        if "_hull" in state:
            return state["_hull"].facet_count
        rows = state.get("_facet_rows")
        return len(self.facets if rows is None else rows)

    @functools.cached_property
    def _vertex_rows(self) -> tuple:
        """The vertices as primitive homogeneous integer rows, in the order of ``vertices``
        (the canonical exact form of each vertex; cached, or set by the hull code)."""
        return tuple(homogeneous_row(v) for v in self.vertices)

    @classmethod
    def from_points(cls, points, method: str = "auto") -> "Polytope":
        """The convex hull of points (V-representation in, both out); see :func:`convex_hull`.

        Parameters
        ----------
        points : array-like of numbers, shape (n_points, n)
            Anything :func:`tropattn.exact.to_rational` accepts; duplicates are fine.
        method : {"auto", "exact"}, optional
            ``"auto"``: certified Qhull with exact fallback; ``"exact"``: double
            description only.

        Returns
        -------
        Polytope
            The hull, with its vertices, facets and affine-hull equations.

        Raises
        ------
        InvalidInputError
            Empty, ragged or non-numeric input, NaN or infinities, or an unknown
            ``method``.

        Examples
        --------
        >>> Polytope.from_points([[0], [3], [1]]).vertices
        ((Fraction(0, 1),), (Fraction(3, 1),))
        """
        return convex_hull(points, method=method)

    @classmethod
    def from_inequalities(cls, A, b, A_eq=(), b_eq=()) -> "Polytope":
        """The polytope ``{x : A x <= b, A_eq x == b_eq}`` (H-representation in).

        A certified relative-interior point ``c`` is found (rows forced to equality
        are detected from a Farkas certificate and moved to the equations).  In
        coordinates ``x = c + N z`` on the affine hull the system reads
        ``g_i . z <= 1``, and its vertices are the facets of the polar
        ``conv{g_i}``: ``z = w / gamma`` for each facet ``w . y <= gamma``.

        Parameters
        ----------
        A : array-like of numbers, shape (m, n)
            Inequality rows.
        b : array-like of numbers, shape (m,)
            Their right-hand sides.
        A_eq : array-like of numbers, shape (k, n), optional
            Equation rows (none by default).
        b_eq : array-like of numbers, shape (k,), optional
            Their right-hand sides.

        Returns
        -------
        Polytope
            The (possibly lower-dimensional) polytope, exactly.

        Raises
        ------
        InvalidInputError
            If the system is empty (certified by a Farkas vector), the equations are
            inconsistent, the polyhedron is unbounded, ``A`` and ``A_eq`` have different
            (or no) columns, or an entry is not a finite number.

        Examples
        --------
        >>> square = Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1])
        >>> square.vertex_count, square == Polytope.from_points(square.vertices)
        (4, True)
        >>> Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1],
        ...                            [[1, 1]], [0]).vertices          # the diagonal x + y = 0
        ((Fraction(-1, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(-1, 1)))
        """
        return _from_inequalities(A, b, A_eq, b_eq)

    def contains(self, x) -> bool:
        """Exact membership test: every equation holds and no facet inequality is violated.

        Parameters
        ----------
        x : sequence of numbers, shape (ambient_dim,)
            The point (anything :func:`tropattn.exact.to_rational` accepts).

        Returns
        -------
        bool
            True when ``x`` lies in the polytope (boundary included).

        Raises
        ------
        InvalidInputError
            When ``x`` has the wrong length or an entry is not a finite number.

        Examples
        --------
        >>> T = Polytope.from_points([[0, 0], [2, 0], [0, 2]])
        >>> T.contains(["1/2", "3/2"]), T.contains([1, 1]), T.contains([1, "1.0001"])
        (True, True, False)
        """
        x = exact.to_rational_vector(x, "x", self.ambient_dim)
        on = all(sum(a * v for a, v in zip(e, x)) == f for e, f in self.equations)
        return on and all(sum(a * v for a, v in zip(h, x)) <= c for h, c in self.facets)


def _polytope_from_hull(hull: Hull, fracs=None) -> Polytope:
    """Assemble the canonical Polytope; ``fracs[i]`` (optional) is point ``i`` as Fractions.

    The integer rows are stored; ``vertices`` (unless ``fracs`` gives them for free)
    and full-dimensional ``facets`` are left to :meth:`Polytope.__getattr__`.
    """
    n = len(hull.G[0]) - 1
    rows = [hull.G[i] for i in hull.vertices]
    if all(r[-1] == 1 for r in rows):  # integer points: the tuples themselves sort lexicographically
        order = sorted(range(len(rows)), key=rows.__getitem__)
    else:
        order = lex_order(rows)
    P = object.__new__(Polytope)  # the fields are set below (or built lazily), as __init__ would
    state = P.__dict__
    state["_vertex_rows"] = tuple(rows[j] for j in order)
    if fracs is not None:
        state["vertices"] = tuple(fracs[hull.vertices[j]] for j in order)
    state["equations"] = hull.equations
    if hull.equations or not hull.facet_count:
        point = (lambda i: fracs[i]) if fracs is not None else (lambda i: rows_to_fractions([hull.G[i]])[0])
        state["facets"] = tuple(sorted(_lift_facet(h, on[0], hull, point, n)
                                       for h, on in zip(hull.facets, hull.facet_points)))
    else:
        state["_hull"] = hull  # its rows are read (and, when certified lazily, built) on first use
    state["ambient_dim"] = n
    state["dim"] = hull.dim
    return P


def _full_dimensional_facets(rows) -> tuple:
    """Sorted canonical ``(normal, offset)`` of homogeneous facet rows ``(a, b)``: ``a.x <= -b``."""
    out = []
    for *a, b in rows:
        g = math.gcd(*a)
        out.append((tuple(v // g for v in a) if g != 1 else tuple(a), Fraction(-b, g)))
    return tuple(sorted(out))


def _lift_facet(h, on, hull: Hull, point, n):
    """A projected facet row as a canonical ambient ``(normal, offset)`` (``on``: a point on it)."""
    a = [0] * n
    for c, v in zip(hull.coords, h[:-1]):
        a[c] = v
    if not hull.equations:
        g = math.gcd(*a)
        return tuple(v // g for v in a), Fraction(-h[-1], g)
    E = [e for e, _ in hull.equations]
    gram = [[sum(x * y for x, y in zip(ei, ej)) for ej in E] for ei in E]
    w = exact.solve(gram, [sum(x * y for x, y in zip(ei, a)) for ei in E])
    aL = [Fraction(a[j]) - sum(wi * ei[j] for wi, ei in zip(w, E)) for j in range(n)]
    ints = exact.integer_row(aL)
    j = next(j for j, v in enumerate(ints) if v)
    scale = ints[j] / aL[j]
    offset = sum(v * x for v, x in zip(aL, point(on))) * scale
    return ints, offset


def convex_hull(points, method: str = "auto") -> Polytope:
    """The exact convex hull of rational points.

    Parameters
    ----------
    points : (n_points, n) array-like of numbers
        Anything :func:`tropattn.exact.to_rational` accepts; duplicates are fine.
        Lower-dimensional sets (collinear points in R^3, one point) are handled in
        their affine hull.
    method : {"auto", "exact"}
        ``"auto"``: Qhull in floats, certified exactly, exact fallback if a check
        fails.  ``"exact"``: double description over integers only.

    Returns
    -------
    Polytope

    Raises
    ------
    InvalidInputError
        Empty, ragged or non-numeric input, NaN or infinities.

    Examples
    --------
    >>> P = convex_hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]])
    >>> P.vertex_count, P.facet_count      # a triangular bipyramid
    (5, 6)
    """
    ints = _integer_array(points)
    if ints is not None:  # integer input: rows (x, 1) built in numpy, Fractions only for the vertices
        if _may_repeat(ints):  # duplicates: keep the first of each
            _, first = np.unique(ints, axis=0, return_index=True)
            ints = ints[np.sort(first)]
        G = np.hstack([ints, np.ones((len(ints), 1), dtype=np.int64)])
        return _polytope_from_hull(certified_hull(G, method))
    pts = _to_points(points, "points")
    G = homogeneous_rows(pts)
    if G is not None:  # rows built in numpy (no Fraction arithmetic); equal points, equal rows
        if _may_repeat(G):
            _, first = np.unique(G, axis=0, return_index=True)
            first = np.sort(first)
            G, pts = G[first], [pts[i] for i in first.tolist()]
        return _polytope_from_hull(certified_hull(G, method), pts)
    rows = {}
    for p in pts:
        rows.setdefault(homogeneous_row(p), p)
    return _polytope_from_hull(certified_hull(list(rows), method), list(rows.values()))


def _may_repeat(A: np.ndarray) -> bool:
    """False only when the rows of the int64 array ``A`` are proved distinct: their
    hashes (one wrapping int64 dot product with fixed odd weights; equal rows, equal
    hashes) are distinct, else the row tuples are."""
    weights = np.array([0x9E3779B97F4A7C15 - (1 << 64), 0x632BE59BD9B4E019, 0x5851F42D4C957F2D,
                        0x2545F4914F6CDD1D] * (A.shape[1] // 4 + 1), dtype=np.int64)[:A.shape[1]]
    with np.errstate(over="ignore"):
        keys = A @ weights
    keys.sort()
    if not np.any(keys[1:] == keys[:-1]):
        return False
    return len(set(map(tuple, A.tolist()))) < len(A)


def _integer_array(points):
    """``points`` as an (n, d) int64 array with entries below 2^40 when it is one (an
    integer numpy array or nested lists of Python ints), else None (the general path)."""
    if isinstance(points, np.ndarray):
        A = points
    elif isinstance(points, (list, tuple)) and points and isinstance(points[0], (list, tuple)) \
            and points[0] and type(points[0][0]) is int:
        d = len(points[0])
        if set(map(len, points)) != {d} or set(map(type, itertools.chain.from_iterable(points))) != {int}:
            return None  # ragged; numpy ints, booleans, floats: the general path converts (or refuses) each
        try:
            A = np.fromiter(itertools.chain.from_iterable(points), dtype=np.int64, count=len(points) * d)
        except OverflowError:
            return None
        A = A.reshape(len(points), d)
    else:
        return None
    if A.dtype.kind not in "iu" or A.ndim != 2 or A.size == 0 or np.abs(A).max() >= 1 << 40:
        return None
    return A.astype(np.int64)


def _from_inequalities(A, b, A_eq, b_eq) -> Polytope:
    A = [tuple(r) for r in exact.to_rational_matrix(A, "A")]
    b = list(exact.to_rational_vector(b, "b", len(A)))
    E = [tuple(r) for r in exact.to_rational_matrix(A_eq, "A_eq")]
    f = list(exact.to_rational_vector(b_eq, "b_eq", len(E)))
    dims = {len(r) for r in A + E}
    if len(dims) != 1:
        raise InvalidInputError("A and A_eq must have the same, nonzero number of columns (the dimension)")
    (n,) = dims
    A, b, E, f, c = _interior(A, b, E, f, n)
    N = exact.nullspace([list(e) for e in E], n) if E else exact.nullspace([], n)
    if not N:
        return convex_hull([c])
    polar = []
    for a, bi in zip(A, b):
        slack = bi - sum(x * y for x, y in zip(a, c))
        g = tuple(sum(x * y for x, y in zip(a, v)) / slack for v in N)
        if any(g):
            polar.append(g)
    Q = convex_hull(polar) if polar else None
    if Q is None or Q.dim < len(N) or any(off <= 0 for _, off in Q.facets):
        raise InvalidInputError(
            "the inequalities define an unbounded polyhedron; a polytope needs bounds in every "
            "direction (add rows such as x_i <= M and -x_i <= M)")
    verts = [tuple(c[j] + sum(w[i] / off * N[i][j] for i in range(len(N))) for j in range(n))
             for w, off in Q.facets]
    return convex_hull(verts)


def _interior(A, b, E, f, n):
    """Move implied equalities of ``A x <= b`` into ``E x == f``; return a relative-interior point."""
    while True:
        if not A:
            x0 = exact.solve([list(e) for e in E], f) if E else (Fraction(0),) * n
            if x0 is None:
                raise InvalidInputError("the equations A_eq x == b_eq are inconsistent: the polytope is empty")
            return A, b, E, f, x0
        cert = exact.relative_interior_point(A, b, E, f)
        if cert.point is not None:
            return A, b, E, f, cert.point
        y = cert.farkas
        x0 = exact.solve([list(e) for e in E], f) if E else (Fraction(0),) * n
        if x0 is None or not y or sum(yi * (bi - sum(p * q for p, q in zip(a, x0)))
                                      for yi, a, bi in zip(y, A, b)) < 0:
            raise InvalidInputError(
                "the inequalities have no solution (certified by a Farkas combination): the polytope is "
                "empty; check the signs of A and b")
        tight = [i for i, yi in enumerate(y) if yi > 0]
        E = E + [A[i] for i in tight]
        f = f + [b[i] for i in tight]
        A = [a for i, a in enumerate(A) if i not in tight]
        b = [v for i, v in enumerate(b) if i not in tight]


def rational_sphere_points(a: int = 7, b: int = 11, scale=1, shift=(0, 0, 0)) -> list:
    """200 rational points exactly on a sphere: inverse stereographic projection.

    ``(u, v) -> (2u, 2v, u^2 + v^2 - 1) / (u^2 + v^2 + 1)`` maps the grid ``u = i/a``
    (``i = -10..9``), ``v = j/b`` (``j = -5..4``) onto the unit sphere, exactly; then
    the points are scaled and shifted.  Every point is a vertex of their hull, which
    float hull codes get wrong.

    Parameters
    ----------
    a, b : int, optional
        Denominators of the grid in ``u`` and ``v`` (nonzero).
    scale : number, optional
        Radius of the sphere (anything :class:`~fractions.Fraction` accepts).
    shift : sequence of 3 numbers, optional
        Centre of the sphere.

    Returns
    -------
    list of tuple of Fraction
        200 distinct points ``scale * p + shift`` with ``p`` on the unit sphere.

    Examples
    --------
    >>> pts = rational_sphere_points()
    >>> len(pts), all(x * x + y * y + z * z == 1 for x, y, z in pts)
    (200, True)
    """
    scale = Fraction(scale)
    out = []
    for i in range(-10, 10):
        for j in range(-5, 5):
            u, v = Fraction(i, a), Fraction(j, b)
            s = u * u + v * v + 1
            p = (2 * u / s, 2 * v / s, (u * u + v * v - 1) / s)
            out.append(tuple(scale * x + c for x, c in zip(p, shift)))
    return out
