"""Certified convex hulls of homogeneous integer points (any dimension).

How a hull is computed (docs/ALGORITHMS.md §3, docs/THEORY.md §12).  Every point
``x = num / den`` is stored as the primitive integer row ``(num, den)``.  The affine hull
is found exactly; coordinates are projected to an independent subset so that the set is
full-dimensional there.  Qhull triangulates the boundary in floats (in dimension 4
and up unmerged first, then joggled input, then the default merged run); for each
simplex the hyperplane through its points is rebuilt exactly (signed minors, vectorised in blocks of simplices, in int64
when a bound proves it exact, else modulo primes and rebuilt by the Chinese remainder
theorem).  Simplices with equal exact normals are merged into one facet row.  The
rows are proved to be exactly the facets by the certificate of Mehlhorn et al.:
the simplices form a closed, consistently oriented surface, locally convex at every
ridge, met once by a ray from an interior point, and every other point lies inside
(:func:`_certify_local`, O(facets + points) exact signs); for flat simplices or small
inputs, every point is tested against every row instead, in bounded blocks
(:func:`surface_certified`).  Otherwise an exact double-description algorithm over
Python integers computes the facets, and the fallback is counted.  A point is a vertex
iff the facets through it meet in that point alone.

>>> H = certified_hull([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1), (1, 1, 2)])   # a square and its centre
>>> len(H.facets), H.vertices
(4, (0, 1, 2, 3))
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
from scipy.sparse import csr_matrix

from ..errors import InvalidInputError
from ._counters import record
from ._linalg import maximal_minors, modular_minors, nullspace, solve, wrapped_dots, wrapped_minors
from ._numbers import integer_row, primitive_row, set_bits
from ._predicates import (BLOCK_ENTRIES, CACHE_ENTRIES, INT64_SAFE, PreparedPoints, as_small_ints, determinant_signs,
                         filtered_signs, matrix_signs, negative_columns, prepared_paired_signs, row_products, scaled_floats,
                         sign_array, small_determinant_signs)

__all__ = ["QHULL_OPTIONS", "QHULL_FIRST_HIGH_DIM", "independent_rows", "Hull", "certified_hull", "simplex_normals", "normalise_rows", "row_sum", "surface_certified", "row_masks", "qhull_simplices", "unique_rows", "meets_alone", "meets_alone_any", "certify_boundary", "LOCAL_ENTRIES", "INSIDE_FILTER_ENTRIES", "DENSE_ENTRIES"]


#: Qhull runs tried in turn: joggled input ("QJ") first, whose output is simplicial with
#: every ridge in exactly two simplices even when many points are coplanar (and which
#: is the fastest, as no facets are merged), then the default triangulated output
#: ("Qt").  The exact checks are always on the original points.
QHULL_OPTIONS = ("QJ", None)

#: Tried first by :func:`certified_hull` (default options) in dimension 4 and up:
#: Qhull's triangulated output without merging ("Qt Q0") is cheaper there than the joggled
#: run on points in general position; on degenerate input the certificate refuses what
#: it gets wrong and :data:`QHULL_OPTIONS` run next.  (In 3-D the joggled run is faster.)
QHULL_FIRST_HIGH_DIM = "Qt Q0"


def independent_rows(G: Sequence[tuple]):
    """Greedy maximal linearly independent subset of homogeneous rows.

    The kept rows restricted to the pivot columns form an invertible matrix, so a
    point of the affine hull is determined by its coordinates at the pivot columns.
    ``len(indices) - 1`` is the dimension of the affine hull of the points.

    Parameters
    ----------
    G : sequence of tuple of int, shape (m, n + 1)
        Homogeneous rows ``(num_1, ..., num_n, den)``, ``den > 0``; at least one row.

    Returns
    -------
    indices : list of int
        The rows kept, in input order.
    pivots : list of int
        One pivot column per kept row (the first row's pivot is the denominator
        column ``n``).

    Examples
    --------
    Three of the points (0, 0), (1, 0), (1/2, 0), (0, 1) are affinely independent:

    >>> independent_rows([(0, 0, 1), (2, 0, 2), (1, 0, 2), (0, 1, 1)])
    ([0, 1, 3], [2, 0, 1])
    """
    n1 = len(G[0])
    order = [n1 - 1] + list(range(n1 - 1))  # denominator column first
    basis, kept, pivots = [], [], []
    for i, g in enumerate(G):
        v = list(g)
        for b, c in basis:
            if v[c]:
                f, h = b[c], v[c]
                v = primitive_row([f * x - h * y for x, y in zip(v, b)])
        c = next((c for c in order if v[c]), None)
        if c is not None:
            basis.append((v, c))
            kept.append(i)
            pivots.append(c)
            if len(kept) == n1:
                break
    return kept, pivots


def _equations(rows: Sequence[tuple]) -> tuple:
    """Canonical equations ``normal . x == offset`` of the affine hull of homogeneous rows.

    The nullspace basis comes from the reduced row echelon form, which depends only
    on the row space, so it is canonical; each vector is scaled to primitive integers.
    """
    eqs = []
    for vec in nullspace([list(r) for r in rows]):
        ints = integer_row(vec)
        eqs.append((ints[:-1], Fraction(-ints[-1])))
    return tuple(sorted(eqs))


@dataclass(frozen=True)
class Hull:
    """Facets of distinct homogeneous points ``G`` (ambient), computed in projected coordinates.

    ``coords`` are the ambient coordinates kept by the projection (sorted);
    ``facets[f]`` is a primitive integer row ``h`` over ``coords + (den,)`` with
    ``h . g <= 0`` for every projected point; ``incidence`` says which points lie on
    which facet, as int bitmasks or a boolean (facets, points) array, and ``masks[f]``
    (built on first use) has bit ``i`` set iff point ``i`` lies on facet ``f``;
    ``vertices`` are point indices.
    """

    G: tuple
    dim: int
    coords: tuple
    equations: tuple
    facets: tuple
    incidence: object
    vertices: tuple

    @functools.cached_property
    def facet_points(self) -> tuple:
        """For each facet, the sorted indices of the points on it (memory proportional to
        the incidences, unlike ``masks`` on large inputs)."""
        Z = self.incidence
        if isinstance(Z, np.ndarray):  # one nonzero pass, split by rows
            if not len(Z):
                return ()
            f, i = np.nonzero(Z)
            cuts = np.searchsorted(f, np.arange(1, Z.shape[0])).tolist()
            pts = i.tolist()
            return tuple(tuple(pts[a:b]) for a, b in zip([0] + cuts, cuts + [len(pts)]))
        if hasattr(Z, "tocsr"):
            Z = Z.tocsr()
            Z.sort_indices()
            return tuple(tuple(Z.indices[Z.indptr[r]:Z.indptr[r + 1]].tolist()) for r in range(Z.shape[0]))
        return tuple(tuple(set_bits(m)) for m in Z)

    @functools.cached_property
    def masks(self) -> tuple:
        if isinstance(self.incidence, np.ndarray) or hasattr(self.incidence, "tocsr"):
            return tuple(row_masks(self.incidence))
        return tuple(self.incidence)


def certified_hull(G: Sequence[tuple], method: str = "auto", qhull_options=QHULL_OPTIONS) -> Hull:
    """Exact facets and vertices of distinct homogeneous points (any dimension).

    The affine hull is found exactly and the points are projected onto independent
    coordinates; Qhull proposes a boundary triangulation that is certified exactly
    (:func:`certify_boundary`), else an exact double description decides (counted as
    a fallback).  See the module docstring and docs/ALGORITHMS.md §3.

    Parameters
    ----------
    G : sequence of tuple of int, or numpy.ndarray of int64, shape (m, n + 1)
        Distinct homogeneous points ``(num, den)`` with ``den > 0`` (see
        :func:`~tropattn.exact._numbers.homogeneous_row`); at least one.
    method : {"auto", "exact"}, optional
        ``"auto"``: certified Qhull first; ``"exact"``: double description only.
    qhull_options : sequence of str or None, optional
        The Qhull runs tried in turn before the exact fallback.

    Returns
    -------
    Hull
        ``dim`` (dimension of the hull), ``coords`` (projection), ``equations`` of the
        affine hull, primitive outward ``facets`` over ``coords + (den,)``, their
        ``incidence`` and the ``vertices`` (point indices).

    Raises
    ------
    InvalidInputError
        When ``method`` is not ``"auto"`` or ``"exact"``.

    Examples
    --------
    A unit square with its centre and the midpoint of an edge:

    >>> H = certified_hull([(0, 0, 1), (2, 0, 2), (0, 1, 1), (1, 1, 1), (1, 1, 2), (1, 0, 2)])
    >>> H.dim, len(H.facets), H.vertices
    (2, 4, (0, 1, 2, 3))
    >>> certified_hull([(0, 0, 1), (1, 1, 1), (2, 2, 1)]).equations    # a segment on x = y
    (((-1, 1), Fraction(0, 1)),)
    """
    if method not in ("auto", "exact"):
        raise InvalidInputError(f"method = {method!r}; expected 'auto' (certified Qhull) or 'exact'")
    G64 = G if isinstance(G, np.ndarray) and G.dtype == np.int64 else None
    if G64 is not None:
        G = _row_tuples(G64)
    n = len(G[0]) - 1
    kept, pivots = independent_rows(G)
    dim = len(kept) - 1
    coords = tuple(sorted(c for c in pivots if c != n))
    eqs = _equations([G[i] for i in kept]) if dim < n else ()
    if dim == 0:
        return Hull(tuple(G), 0, coords, eqs, (), (), (0,))
    P = list(G) if dim == n else [primitive_row([g[c] for c in coords] + [g[n]]) for g in G]
    facets = None
    if dim >= 2 and method == "auto":
        pts = _prepared(G, G64) if G64 is not None and dim == n else PreparedPoints.of(P)
        inner = row_sum([P[i] for i in kept])  # kept: d + 1 affinely independent points
        if qhull_options is QHULL_OPTIONS and dim >= 4:
            qhull_options = (QHULL_FIRST_HIGH_DIM,) + QHULL_OPTIONS
        for options in qhull_options:
            facets, Z, verts = _facets_qhull(pts, inner, options)
            if facets is not None:
                record("certified")
                return Hull(tuple(G), dim, coords, eqs, tuple(facets), Z, tuple(np.flatnonzero(verts).tolist()))
        record("fallbacks")
    facets, masks = _facets_1d(P) if dim == 1 else _facets_dd(P, kept)
    verts = _vertices_from_masks(masks, len(P), dim)
    return Hull(tuple(G), dim, coords, eqs, tuple(facets), tuple(masks), verts)


def _row_tuples(M: np.ndarray) -> list:
    """The rows of a 2-D int64 or object array as tuples of Python ints (the columns
    listed once and zipped: fewer Python objects than listing the rows)."""
    return list(zip(*M.T.tolist())) if M.shape[1] else [()] * len(M)


def _prepared(G: list, G64: np.ndarray) -> PreparedPoints:
    """``PreparedPoints.of(G64)`` reusing the tuples ``G`` already made from it."""
    A = np.abs(G64)
    top = int(A.max())
    if top * G64.shape[1] >= INT64_SAFE:
        return PreparedPoints.of(G64)
    return PreparedPoints(G, G64.astype(object), G64, top, int(A.sum(axis=1).max()))


def _facets_1d(P):
    """Facets of points on a line: the smallest and largest coordinate."""
    vals = [Fraction(p[0], p[1]) for p in P]
    lo, hi = min(vals), max(vals)
    mask = lambda t: sum(1 << i for i, v in enumerate(vals) if v == t)  # noqa: E731
    return [(-lo.denominator, lo.numerator), (hi.denominator, -hi.numerator)], [mask(lo), mask(hi)]


def _vertices_from_masks(masks, npoints: int, dim: int) -> tuple:
    """Point ``i`` is a vertex iff the facets through it meet in ``{i}`` alone."""
    through = [[] for _ in range(npoints)]
    for f, m in enumerate(masks):
        for i in set_bits(m):
            through[i].append(m)
    out = []
    for i, ms in enumerate(through):
        if len(ms) >= dim:
            acc = ms[0]
            for m in ms[1:]:
                acc &= m
            if acc == 1 << i:
                out.append(i)
    return tuple(out)


def simplex_normals(pts: "PreparedPoints", simplices: np.ndarray) -> np.ndarray:
    """Integer normal ``h`` of the hyperplane through each simplex (zero if degenerate).

    Row ``f`` satisfies ``h . P[s] == 0`` for every point ``P[s]`` of simplex ``f``:
    ``h_j = (-1)^j`` times the k x k minor of the simplex's k x (k+1)
    matrix without column ``j`` (the generalised cross product; a degenerate simplex
    gets the zero row).  For integer points (all denominators 1) the same vector is
    ``(a, -a . x_0)`` with ``a`` the cross product of the differences ``x_i - x_0``
    (``a_j = (-1)^(k-1+j)`` times a (k-1) x (k-1) minor: fewer and smaller minors).
    Minors are exact: int64 when the product of the rows' L1 norms proves it, else
    modular (:func:`tropattn.exact._linalg.modular_minors`) or Python integers,
    in blocks of simplices.

    Parameters
    ----------
    pts : PreparedPoints
        The homogeneous points, shape (m, k + 1) (a full-dimensional set in
        k affine dimensions).
    simplices : numpy.ndarray of int, shape (F, k)
        Point indices of each simplex (k points span a hyperplane).

    Returns
    -------
    numpy.ndarray of int64 or object, shape (F, k + 1)
        The (not yet primitive, not oriented) normals.

    Examples
    --------
    The edge from (0, 0) to (1, 0) of a triangle lies on the line ``y = 0``:

    >>> from tropattn.exact._predicates import PreparedPoints
    >>> tri = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1)])
    >>> simplex_normals(tri, np.array([[0, 1], [0, 2]])).tolist()
    [[0, 1, 0], [-1, 0, 0]]
    """
    a, integral = _normal_parts(pts, simplices)
    return _with_offsets(pts, simplices, a) if integral else a


def _primitive_normals(pts: "PreparedPoints", simplices: np.ndarray):
    """``(raw, floats)``: :func:`simplex_normals` divided by positive integers, and
    ``scaled_floats(raw)`` when known (else None).

    For integer points whose normals ``a`` fit int64, ``a`` is made primitive there
    (``np.gcd``) before the offsets ``b = -a . x_0`` are formed: ``gcd(a) = 1`` makes
    the row ``(a, b)`` primitive, and the floats of ``a`` come from int64.
    """
    a, integral = _normal_parts(pts, simplices)
    if not integral:
        return a, None
    if a.dtype == object:
        return _with_offsets(pts, simplices, a), None
    g = np.gcd.reduce(a, axis=1)
    g[g == 0] = 1
    a = a // g[:, None]
    raw = _with_offsets(pts, simplices, a)
    if raw.dtype != object:
        return raw, None
    bf = raw[:, -1].astype(float)
    if not np.all(np.abs(bf) < 2.0**500):
        return raw, None
    return raw, np.concatenate([a.astype(float), bf[:, None]], axis=1)


def _normal_parts(pts: "PreparedPoints", simplices: np.ndarray):
    """``(a, integral)``: for integer points (``integral``) the normals ``a`` of the
    coordinates (the offsets follow, :func:`_with_offsets`), else the full homogeneous
    normals (see :func:`simplex_normals`)."""
    F, k = simplices.shape
    integral = pts.P64 is not None and k >= 2 and bool(np.all(pts.P64[:, -1] == 1))
    if integral:
        X = pts.P64[:, :-1]
        stack = lambda sl: X[sl[:, 1:]] - X[sl[:, :1]]  # noqa: E731  (F, k-1, k)
        l1, rows_k = 2 * pts.l1, k - 1
    else:
        stack = lambda sl: (pts.P64 if pts.P64 is not None else pts.Pa)[sl]  # noqa: E731
        l1, rows_k = pts.l1, k
    small = pts.P64 is not None and l1 ** rows_k < INT64_SAFE
    bits = rows_k * l1.bit_length() + 1
    if integral:  # Hadamard: |minor| <= prod ||x_i - x_0||_2 <= (4 d max|x|^2)^((k-1)/2)
        bits = min(bits, (rows_k * (4 * k * pts.max_abs ** 2).bit_length() + 1) // 2 + 1)
    floats_exact = pts.P64 is not None and 2 * pts.max_abs < 1 << 53
    step = 2048
    blocks = []
    for lo in range(0, F, step):
        S = stack(simplices[lo:lo + step])
        if small:
            blocks.append(maximal_minors(S))
        elif floats_exact and bits <= 1000:  # float and wrapped int64 images, modular where unsure
            blocks.append(wrapped_minors(S, bits))
        elif bits <= 1000:  # |minor| <= product of the rows' L1 norms < 2^bits
            blocks.append(modular_minors(S, bits))
        else:
            blocks.append(maximal_minors(S.astype(object)))
    m = rows_k + 1
    minors = np.concatenate(blocks, axis=0) if blocks else np.zeros((0, m), dtype=np.int64)
    if minors.dtype != object and minors.size and not small:
        minors = minors.astype(object) if int(np.abs(minors).max()) >= INT64_SAFE else minors
    a = minors[:, ::-1].copy()  # minors[:, i] omits column rows_k - i
    odd = [j for j in range(m) if (j + (k - 1 if integral else 0)) % 2]
    a[:, odd] = -a[:, odd]  # the cofactor signs (-1)^j (times (-1)^(k-1) for differences)
    return a, integral


def _with_offsets(pts: "PreparedPoints", simplices: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The rows ``(a, -a . x_0)`` of integer points: ``a`` the normals of the
    coordinates, ``x_0`` each simplex's first point."""
    k = simplices.shape[1]
    x0 = pts.P64[simplices[:, 0], :-1]
    if a.dtype != object and int(np.abs(a).max(initial=0)) * pts.max_abs * k < INT64_SAFE:
        b = -np.einsum("ij,ij->i", a, x0)
    elif a.dtype != object:  # the float and wrapped int64 images of the products
        b = -wrapped_dots(a, x0)
        a = a.astype(object) if b.dtype == object else a
    else:
        a, x0 = a.astype(object), x0.astype(object)
        b = -a[:, 0] * x0[:, 0]
        for j in range(1, k):  # column by column: fewer object temporaries
            b -= a[:, j] * x0[:, j]
    return np.concatenate([a, b[:, None]], axis=1)


def normalise_rows(H: np.ndarray) -> np.ndarray:
    """Primitive rows with the first nonzero entry positive (int64 when they fit, else object ints).

    Two rows get the same normal form iff they span the same line, so equal
    hyperplanes from different simplices can be merged by :func:`unique_rows`.

    Parameters
    ----------
    H : numpy.ndarray of int64 or object, shape (F, n)
        Integer rows; zero rows stay zero.

    Returns
    -------
    numpy.ndarray, shape (F, n)
        The normalised rows.

    Examples
    --------
    >>> normalise_rows(np.array([[-2, 4, 0], [0, 0, 0], [0, 3, -6]])).tolist()
    [[1, -2, 0], [0, 0, 0], [0, 1, -2]]
    """
    g = np.gcd.reduce(H, axis=1)
    g[g == 0] = 1
    H = H // g[:, None]
    first = np.argmax(H != 0, axis=1)
    flip = (H[np.arange(len(H)), first] < 0).astype(bool)
    H[flip] = -H[flip]
    return as_small_ints(H)


def row_sum(rows) -> tuple:
    """Sum of homogeneous rows (positive denominators), made primitive.

    The sum is the centroid of the points weighted by their denominators, a point of
    the relative interior of their hull: the ``inner`` point of the certificates.

    Parameters
    ----------
    rows : sequence of tuple of int, shape (m, n + 1)
        Homogeneous points ``(num, den)`` with ``den > 0``.

    Returns
    -------
    tuple of int, shape (n + 1,)
        The primitive homogeneous row of the weighted centroid.

    Examples
    --------
    The centroid (1/3, 1/3) of a triangle:

    >>> row_sum([(0, 0, 1), (1, 0, 1), (0, 1, 1)])
    (1, 1, 3)
    """
    return primitive_row([sum(col) for col in zip(*rows)])


def surface_certified(pts: "PreparedPoints", simplices: np.ndarray, U: np.ndarray, Z: np.ndarray,
                       facet_of: np.ndarray, inner: tuple, raw: np.ndarray | None = None) -> bool:
    """Do the simplices form the boundary of ``conv(points)`` exactly once?  (Exact.)

    The caller has certified that every row of ``U`` (outward facet rows, ``U . g <= 0``
    for every point ``g``, ``Z`` = the zeros) supports ``conv(points)``; ``facet_of[s]``
    is a row of ``U`` whose zero set holds simplex ``s`` (checked again here),
    ``inner`` a homogeneous point in the interior of ``conv(points)``, and ``raw``
    (optional) the simplices' own normals (:func:`simplex_normals`).  The rest of the
    certificate of Mehlhorn et al. ("Checking geometric programs or verification of
    geometric structures") is checked here:

    1. ``inner`` is strictly inside every facet row and every simplex lies in the zero
       set of a facet row, so the simplices lie on the boundary, away from ``inner``;
    2. the simplices, oriented outward (:func:`_outward`), form an oriented cycle:
       every ridge lies in exactly two simplices, which induce opposite orientations
       on it (:func:`_consistently_oriented`);
    3. the ray from ``inner`` through a relative-interior point ``c`` of one simplex
       meets exactly one simplex, in its relative interior (:func:`_ray_meets_once`).

    Why this suffices.  By 2 the central projection from ``inner`` of the surface to
    the unit sphere has a degree, and every non-degenerate simplex counts +1 where it
    is crossed (outward orientation; degenerate simplices project to a null set).  By
    3 the direction of ``c`` is a regular value crossed once, so the degree is 1 and
    every generic direction crosses some non-degenerate simplex.  For any facet ``F``
    of the hull take a generic ``x`` in its relative interior: the ray through ``x``
    meets a simplex at ``y``, which lies on the boundary (1), and a ray from an
    interior point meets the boundary only once, so ``y = x`` lies on a certified
    facet row, which is then the hyperplane of ``F``: no facet is missing.  (Local
    convexity at the ridges, the remaining part of the certificate, is implied by the
    global test that every point lies on one side of every row.)  A doubled or
    folded surface (a face triangulated twice, two copies of the boundary) fails 2
    or 3.

    Parameters
    ----------
    pts : PreparedPoints
        The points, shape (m, k + 1), full-dimensional.
    simplices : numpy.ndarray of int, shape (S, k)
        The claimed boundary triangulation.
    U : numpy.ndarray of int64 or object, shape (F, k + 1)
        Outward facet rows, each certified to support the points.
    Z : numpy.ndarray of bool, shape (F, m)
        ``Z[f, i]``: point ``i`` lies on row ``f``.
    facet_of : numpy.ndarray of int, shape (S,)
        The row of ``U`` holding each simplex.
    inner : tuple of int, shape (k + 1,)
        A homogeneous interior point.
    raw : numpy.ndarray or None, optional
        The simplices' normals, if already computed.

    Returns
    -------
    bool
        True when the surface is proved to be the boundary, exactly once.

    Examples
    --------
    The four edges of a square pass; the same edges listed twice (a doubled
    boundary) fail:

    >>> from tropattn.exact._predicates import PreparedPoints
    >>> square = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)])
    >>> edges = np.array([[0, 1], [1, 3], [3, 2], [2, 0]])
    >>> U = np.array([[0, -1, 0], [1, 0, -1], [0, 1, -1], [-1, 0, 0]])
    >>> Z = np.array([[1, 1, 0, 0], [0, 1, 0, 1], [0, 0, 1, 1], [1, 0, 1, 0]], dtype=bool)
    >>> surface_certified(square, edges, U, Z, np.arange(4), (1, 1, 2))
    True
    >>> surface_certified(square, np.vstack([edges, edges]), U, Z, np.r_[0:4, 0:4], (1, 1, 2))
    False
    """
    if not np.all(_entries(Z, facet_of[:, None], simplices)):
        return False
    if not np.all(matrix_signs(U, PreparedPoints.of([inner])) < 0):
        return False
    sigma = _outward(pts, simplices, U, facet_of, raw)
    degenerate = np.flatnonzero(sigma == 0)
    flat = _holds(Z, simplices[degenerate])  # (facets, degenerate simplices): s in f
    return (_consistently_oriented(simplices, sigma, len(pts.P))
            and _ray_meets_once(pts, simplices, facet_of, degenerate, flat, inner))


def _outward(pts: "PreparedPoints", simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
             raw: np.ndarray | None = None) -> np.ndarray:
    """Orientation of each simplex (in its given vertex order): +1 outward, -1 inward,
    0 degenerate.  Exact.

    For vertices ``v_0..v_{k-1}`` (homogeneous rows) with normal ``raw``
    (:func:`simplex_normals`), ``det[v_0; ...; v_{k-1}; x] = (-1)^k raw . x``
    (cofactor expansion along the last row).  The ordered simplex is *outward* when
    ``raw . inner < 0``, like ``U_f . inner`` for its facet row ``U_f``.  As the simplex
    lies in that hyperplane, ``raw = lambda U_f`` (``lambda = 0`` iff degenerate), so
    the orientation is the sign of ``lambda``: one entry ``raw_j`` at a column ``j``
    with ``U_f[j] != 0`` suffices, a single k x k minor (:func:`_pivot_minor_signs`).
    """
    Uf = U[facet_of]
    j = np.argmax(Uf != 0, axis=1)
    rows = np.arange(len(simplices))
    u = sign_array(Uf[rows, j])
    r = sign_array(raw[rows, j]) if raw is not None else _pivot_minor_signs(pts, simplices, j)
    return r * u


def _pivot_minor_signs(pts: "PreparedPoints", simplices: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``sign(raw_s[j_s])`` for each simplex ``s``: ``(-1)^j`` times the sign of the
    k x k minor of its k x (k+1) matrix without column ``j`` (see :func:`simplex_normals`)."""
    F, k = simplices.shape
    rows = pts.Pa if pts.P64 is None else pts.P64
    keep = np.arange(k + 1)[None, :].repeat(F, axis=0)
    keep = keep[keep != j[:, None]].reshape(F, k)
    M = np.take_along_axis(rows[simplices], keep[:, None, :], axis=2)  # (F, k, k)
    return determinant_signs(M, pts.P64 is not None and pts.l1 ** k < INT64_SAFE) * (1 - 2 * (j % 2))


def _ridge_pairs(simplices: np.ndarray, npoints: int):
    """The two sides of every ridge of sorted simplices, or None if some ridge does not
    lie in exactly two simplices.

    Row ``j * F + s`` of the ridge list is simplex ``s`` without its ``j``-th smallest
    vertex; returns ``(a, b)``, the two rows of each ridge.
    """
    S = np.sort(simplices, axis=1)
    k = S.shape[1]
    ridges = np.concatenate([np.delete(S, j, axis=1) for j in range(k)], axis=0)
    if npoints ** (k - 1) < INT64_SAFE:  # one int64 key per ridge, one sort
        keys = ridges.astype(np.int64) @ (npoints ** np.arange(k - 1, dtype=np.int64))
        if npoints ** (k - 1) * len(keys) < INT64_SAFE:  # (key, row) packed: one plain sort, same order
            order = np.sort(keys * len(keys) + np.arange(len(keys))) % len(keys)
        else:
            order = np.argsort(keys, kind="stable")
        ks = keys[order]
        if len(ks) % 2 or np.any(ks[0::2] != ks[1::2]) or np.any(ks[2::2] == ks[1:-1:2]):
            return None
        return order[0::2], order[1::2]
    _, inverse, counts = np.unique(ridges, axis=0, return_inverse=True, return_counts=True)
    if not np.all(counts == 2):
        return None
    order = np.argsort(inverse.reshape(-1), kind="stable")
    return order[0::2], order[1::2]


def _permutation_signs(simplices: np.ndarray) -> np.ndarray:
    """Sign of the permutation sorting each row (+1 even, -1 odd), by counting inversions."""
    k = simplices.shape[1]
    inversions = np.zeros(len(simplices), dtype=np.int64)
    for i, j in itertools.combinations(range(k), 2):
        inversions += simplices[:, i] > simplices[:, j]
    return 1 - 2 * (inversions % 2)


def _consistently_oriented(simplices: np.ndarray, sigma: np.ndarray, npoints: int, pairs=None) -> bool:
    """Every ridge lies in exactly two simplices, which induce opposite orientations on it.

    ``sigma[s]`` is +1 / -1 when simplex ``s`` in its given order is outward / inward,
    0 when it is degenerate (its orientation is then free).  The oriented simplex
    ``sigma [v_0, ..., v_{k-1}]`` (vertices sorted; the sort permutation's sign is
    folded into ``sigma``) has the boundary ``sum_j (-1)^j [v_0..^v_j..v_{k-1}]``, so
    it induces the sign ``sigma (-1)^j`` on its ``j``-th ridge; a consistently
    oriented closed surface is one whose ridge terms cancel in pairs.  (Equivalently,
    ``sign det[v_1 - v_0, ..., ridge..., opposite - v_0, normal]`` is opposite on the
    two sides, exactly.)  Degenerate simplices must admit an orientation too: their
    signs are propagated across ridges and checked for conflicts.
    """
    F, k = simplices.shape
    pairs = _ridge_pairs(simplices, npoints) if pairs is None else pairs
    if pairs is None:
        return False
    a, b = pairs
    sigma = sigma * _permutation_signs(simplices)
    owner = np.tile(np.arange(F), k)
    parity = np.repeat(1 - 2 * (np.arange(k) % 2), F)
    rel = -parity[a] * parity[b]  # opposite induced signs iff sigma[a] * sigma[b] == rel
    sa, sb = sigma[owner[a]], sigma[owner[b]]
    known = (sa != 0) & (sb != 0)
    if np.any(sa[known] * sb[known] != rel[known]):
        return False
    loose = ~known
    return _propagate_signs(sigma.tolist(), owner[a[loose]].tolist(), owner[b[loose]].tolist(),
                            rel[loose].tolist())


def _propagate_signs(sigma: list, us: list, vs: list, rels: list) -> bool:
    """Can the zero entries of ``sigma`` be set to +-1 with ``sigma[u] sigma[v] == rel``
    on every edge?  (Breadth-first over the few edges that touch a degenerate simplex.)"""
    adj = {}
    for u, v, r in zip(us, vs, rels):
        adj.setdefault(u, []).append((v, r))
        adj.setdefault(v, []).append((u, r))
    starts = [u for u in adj if sigma[u]] + [u for u in adj if not sigma[u]]
    for start in starts:
        if not sigma[start]:
            sigma[start] = 1  # a component of degenerate simplices only: either sign
        stack = [start]
        while stack:
            u = stack.pop()
            for v, r in adj.pop(u, ()):
                want = sigma[u] * r
                if not sigma[v]:
                    sigma[v] = want
                    stack.append(v)
                elif sigma[v] != want:
                    return False
    return True


def _ray_meets_once(pts: "PreparedPoints", simplices: np.ndarray, facet_of: np.ndarray, degenerate: np.ndarray,
                    flat: np.ndarray, inner: tuple) -> bool:
    """Does the ray from ``inner`` through a relative-interior point ``c`` of one
    non-degenerate simplex ``s0`` meet no other simplex?  (Exact.)

    Every simplex lies on the boundary of the hull (in a supporting facet row) and
    the ray from an interior point meets the boundary only at ``c``, so the ray meets
    simplex ``s`` iff ``c`` lies in ``s``; and only simplices in ``s0``'s facet row can
    contain ``c`` (a supporting row through the relative interior of ``s0`` contains
    ``s0``).  ``c`` is the sum of ``s0``'s homogeneous rows (a centroid weighted by the
    denominators).  ``s0`` is taken in a facet row with few simplices, preferably one
    without degenerate simplices (``flat``: facets x degenerate simplices).
    """
    nf = len(flat)
    nondeg = np.ones(len(simplices), dtype=bool)
    nondeg[degenerate] = False
    counts = np.bincount(facet_of[nondeg], minlength=nf).astype(float)
    counts[counts == 0] = np.inf
    counts += len(simplices) * flat.any(axis=1)
    f0 = int(np.argmin(counts))
    here = np.flatnonzero(nondeg & (facet_of == f0))
    s0, rest = here[0], here[1:]
    c = row_sum([pts.P[i] for i in simplices[s0]])
    if len(rest) and _contains_point(pts, simplices[rest], c, inner).any():
        return False
    return not any(_in_hull([pts.P[i] for i in simplices[s]], c) for s in degenerate[flat[f0]])


def _contains_point(pts: "PreparedPoints", simplices: np.ndarray, c: tuple, inner: tuple) -> np.ndarray:
    """For non-degenerate simplices in one hyperplane through ``c``: does ``c`` lie in each?

    With ``inner`` off the hyperplane, ``D(x_1..x_k) = det[x_1; ...; x_k; inner]`` is a
    volume form on it, so the barycentric coordinates of ``c`` in ``v_0..v_{k-1}`` have
    the signs of ``D(v with v_i := c) / D(v)``: ``c`` lies in the simplex iff none is
    negative.  Each ``D`` is ``(-1)^k`` times ``raw . inner`` of that simplex.
    """
    F, k = simplices.shape
    used, local = np.unique(simplices, return_inverse=True)
    aug = PreparedPoints.of([pts.P[u] for u in used] + [c])
    idx = np.repeat(local.reshape(F, 1, k), k + 1, axis=1)  # variant k: the simplex itself
    for i in range(k):
        idx[:, i, i] = len(used)
    o = PreparedPoints.of([inner])
    D = matrix_signs(simplex_normals(aug, idx.reshape(-1, k)), o)[:, 0].reshape(F, k + 1).astype(np.int64)
    return np.all(D[:, :k] * D[:, k:] >= 0, axis=1)


def _in_hull(rows: list, c: tuple) -> bool:
    """Is the homogeneous point ``c`` in the hull of ``rows`` (few, possibly dependent)?

    By Caratheodory, iff ``c`` is a nonnegative combination of some linearly
    independent subset of the rows, whose coefficients are then unique (exact solve).
    """
    for size in range(1, len(rows) + 1):
        for sub in itertools.combinations(rows, size):
            w = solve([list(col) for col in zip(*sub)], list(c))
            if w is not None and all(v >= 0 for v in w):
                return True
    return False


def row_masks(Z: np.ndarray) -> list:
    """Each boolean row (dense or ``scipy.sparse``) as a Python int bitmask (bit i = column i).

    Parameters
    ----------
    Z : numpy.ndarray of bool or scipy.sparse matrix, shape (F, m)
        An incidence (facets x points).

    Returns
    -------
    list of int, length F
        ``masks[f]`` has bit ``i`` set iff ``Z[f, i]``.

    Examples
    --------
    >>> row_masks(np.array([[True, False, True], [False, True, False]]))
    [5, 2]
    """
    if not isinstance(Z, np.ndarray):
        Z = Z.tocsr()
        return [sum(1 << int(i) for i in Z.indices[Z.indptr[r]:Z.indptr[r + 1]]) for r in range(Z.shape[0])]
    packed = np.packbits(Z, axis=1, bitorder="little")
    data, w = packed.tobytes(), packed.shape[1]
    if not w:
        return [0] * len(packed)
    return [int.from_bytes(data[i:i + w], "little") for i in range(0, len(data), w)]


def qhull_simplices(X: np.ndarray, options=None):
    """Qhull's triangulated boundary of float points and the float hyperplane of each simplex.

    Only the combinatorics (index sets) is used, and every check is exact on the
    true points, so Qhull may see any affine image of them: coordinates are centred
    and scaled per axis, which helps Qhull on lopsided inputs.  Floats decide
    nothing here: the result is a claim for :func:`certify_boundary`.

    Parameters
    ----------
    X : numpy.ndarray of float, shape (m, d)
        The points in floats (full-dimensional, ``d >= 2``).
    options : str or None, optional
        Qhull options (an entry of :data:`QHULL_OPTIONS`).

    Returns
    -------
    tuple (simplices, equations) or None
        ``simplices`` (F, d) point indices and ``equations`` (F, d + 1) float planes
        of the scaled points, or None when Qhull fails or ``X`` is not finite.

    Examples
    --------
    >>> simplices, planes = qhull_simplices(np.array([[0., 0.], [1., 0.], [0., 1.], [1., 1.]]), "QJ")
    >>> simplices.shape
    (4, 2)
    >>> qhull_simplices(np.array([[0., 0.], [1., 1.], [2., 2.]])) is None      # flat: Qhull refuses
    True
    """
    from scipy.spatial import ConvexHull, QhullError

    if not np.all(np.isfinite(X)):
        return None
    span = np.ptp(X, axis=0)
    span[span == 0] = 1.0
    Y = np.ascontiguousarray((X - X.mean(axis=0)) / span)
    try:
        return _qhull_run(Y, options)
    except (QhullError, ValueError):
        return None
    except (AttributeError, TypeError):  # scipy's private _Qhull changed: the public class
        try:
            qh = ConvexHull(Y, qhull_options=options)
        except (QhullError, ValueError):
            return None
        return qh.simplices, qh.equations


def _qhull_run(Y: np.ndarray, options) -> tuple:
    """``(simplices, equations)`` of ``ConvexHull(Y, qhull_options=options)`` without
    the volume, area and neighbour arrays that the class also computes: scipy's
    ``_Qhull`` driven as ``ConvexHull`` drives it (triangulated output, "Qt")."""
    from scipy.spatial import _qhull

    qh = _qhull._Qhull(b"i", Y, (options or "").encode(), required_options=b"Qt")
    try:
        qh.triangulate()
        simplices, _, equations, _, _ = qh.get_simplex_facet_array()
    finally:
        qh.close()
    return simplices, equations


def _facets_qhull(pts: PreparedPoints, inner: tuple, options=None):
    """Facets via Qhull, certified exactly; ``(None, None)`` when a check fails.

    Returns the facet rows and their incidence ``Z`` (``Z[f, i]``: point i on facet f).
    ``inner`` is a homogeneous point in the interior of the hull.
    """
    run = qhull_simplices(pts.X_scaled, options)
    if run is None:
        return None, None, None
    return _certify_with_flips(pts, run[0], inner)


def _certify_with_flips(pts: PreparedPoints, simplices: np.ndarray, inner: tuple):
    """:func:`certify_boundary`; in 3-D, when it fails only because some edges are not
    convex (a joggled run can pick the wrong diagonal of four nearly coplanar points),
    those edges are flipped and the new claim is certified from scratch."""
    report = {}
    out = _certify_boundary(pts, simplices, inner, report)
    if out[0] is None and "ridges" in report and simplices.shape[1] == 3:
        flipped = _flip_edges(simplices, *report["ridges"])
        if flipped is not None:
            out = _certify_boundary(pts, flipped, inner)
    return out


def _flip_edges(simplices: np.ndarray, s1: np.ndarray, s2: np.ndarray, r: np.ndarray, t: np.ndarray):
    """Triangles ``s1[i] = (p, q, r[i])`` and ``s2[i] = (p, q, t[i])`` replaced by
    ``(r, t, p)`` and ``(r, t, q)``; None when two edges share a triangle."""
    both = np.concatenate([s1, s2])
    if len(np.unique(both)) < len(both):
        return None
    A = simplices[s1]
    pq = A[A != r[:, None]].reshape(len(s1), 2)
    out = simplices.copy()
    out[s1] = np.stack([r, t, pq[:, 0]], axis=1)
    out[s2] = np.stack([r, t, pq[:, 1]], axis=1)
    return out


def _certify_triangulation(pts: PreparedPoints, simplices: np.ndarray, inner: tuple):
    """The facets of full-dimensional points and their incidence ``Z``, certified from a
    claimed boundary triangulation (any source); ``(None, None)`` if not proved
    (:func:`certify_boundary` without the vertex flags)."""
    return certify_boundary(pts, simplices, inner)[:2]


def certify_boundary(pts: PreparedPoints, simplices: np.ndarray, inner: tuple):
    """The facets of full-dimensional points, certified from a claimed boundary triangulation.

    The triangulation may come from any source.  The hyperplane of each simplex is
    rebuilt exactly and oriented away from ``inner``; then either the local
    certificate (:func:`_certify_local`: every simplex non-degenerate) or the global
    one (every point against every row, in blocks, then :func:`surface_certified`)
    proves that they are exactly the facets.

    Parameters
    ----------
    pts : PreparedPoints
        The points, shape (m, k + 1), full-dimensional.
    simplices : numpy.ndarray of int, shape (S, k)
        The claimed boundary triangulation.
    inner : tuple of int, shape (k + 1,)
        A homogeneous point in the interior of the hull (e.g. :func:`row_sum` of
        affinely independent points).

    Returns
    -------
    facets : list of tuple of int or None
        The outward primitive facet rows (``h . g <= 0`` for every point).
    Z : numpy.ndarray of bool or scipy.sparse matrix, shape (F, m), or None
        ``Z[f, i]``: point ``i`` lies on facet ``f`` (sparse when facets x points is
        large).
    vertex : numpy.ndarray of bool, shape (m,), or None
        Which points are vertices.

    All three are None when the claim is not proved.

    Examples
    --------
    >>> from tropattn.exact._predicates import PreparedPoints
    >>> square = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)])
    >>> facets, Z, vertex = certify_boundary(square, np.array([[0, 1], [1, 3], [3, 2], [2, 0]]), (1, 1, 2))
    >>> sorted(facets), vertex.tolist()
    ([(-1, 0, 0), (0, -1, 0), (0, 1, -1), (1, 0, -1)], [True, True, True, True])
    >>> certify_boundary(square, np.array([[0, 1], [1, 3], [3, 0]]), (1, 1, 2))[0] is None   # misses (0, 1)
    True
    """
    return _certify_boundary(pts, simplices, inner)


def _certify_boundary(pts: PreparedPoints, simplices: np.ndarray, inner: tuple, report: dict | None = None):
    """:func:`certify_boundary`; ``report`` (optional) receives the ridges found not
    convex by the local certificate (see :func:`_certify_local`)."""
    raw, floats = _primitive_normals(pts, simplices)
    rows = _outward_rows(raw, inner, floats)
    if rows is None:
        return None, None, None
    uniq, live, inverse, Uf = rows
    facet_of = np.zeros(len(simplices), dtype=np.intp)
    facet_of[live] = inverse
    if np.all(live) and len(uniq) * len(pts.P) > LOCAL_ENTRIES:
        return _certify_local(pts, simplices, uniq, facet_of, inner, raw, Uf, report)
    Z = _global_zeros(uniq, pts)
    if Z is None:
        return None, None, None
    if not np.all(live):  # a degenerate simplex: any certified facet row holding it
        flat = _holds(Z, simplices[~live])
        if not np.all(flat.any(axis=0)):
            return None, None, None
        facet_of[~live] = np.argmax(flat, axis=0)
    if not surface_certified(pts, simplices, uniq, Z, facet_of, inner, raw):
        return None, None, None
    return [tuple(map(int, h)) for h in uniq.tolist()], Z, meets_alone_any(Z, np.arange(len(pts.P)))


def _outward_rows(raw: np.ndarray, inner: tuple, floats: np.ndarray | None = None):
    """The distinct primitive outward rows of the simplices' normals ``raw``:
    ``(rows, live, inverse, floats)`` with ``rows[inverse]`` the rows of the
    non-degenerate simplices ``live`` and ``floats = scaled_floats(rows)``; None when
    there are none or one passes through ``inner``.

    Rows are made primitive, oriented by their exact sign at ``inner`` (outward:
    negative there), so equal hyperplanes give equal rows, merged by one float key per
    row (equal rows have equal float images, hence equal keys), rows with equal keys
    compared exactly.  ``floats`` (optional, object ``raw`` only): the caller's
    ``scaled_floats(raw)`` of rows already primitive (:func:`_primitive_normals`).
    """
    if raw.dtype != object:
        live = np.any(raw != 0, axis=1)
        if not np.any(live):
            return None
        H = normalise_rows(raw[live])
        depth = matrix_signs(H, PreparedPoints.of([inner]))[:, 0]
        if np.any(depth == 0):
            return None
        H[depth > 0] = -H[depth > 0]
        Hf = scaled_floats(H)
        first, inverse = _merge_equal_rows(H, Hf)
        return H[first], live, inverse, Hf[first]
    Hf = scaled_floats(raw) if floats is None else floats
    live = np.any(Hf != 0, axis=1)  # exact: a nonzero integer row keeps a nonzero float entry
    if not np.any(live):
        return None
    H, Hf = raw[live], Hf[live]
    if floats is None:
        g = _row_gcds(H)
        big = np.flatnonzero(g != 1)
        if len(big):
            H[big] = H[big] // g[big, None]
            Hf[big] = scaled_floats(H[big])
    if np.abs(Hf).max() < 2.0 ** 61:
        H = as_small_ints(H)
        if H.dtype != object:            # every row of H is live: keep the mask of the raw rows
            small = _outward_rows(H, inner)
            return None if small is None else (small[0], live, small[2], small[3])
    o = np.array([inner], dtype=object)
    depth = filtered_signs(H, o, Hf, scaled_floats(o))[:, 0]
    if np.any(depth == 0):
        return None
    flip = depth > 0
    H[flip] = -H[flip]
    Hf[flip] = -Hf[flip]
    first, inverse = _merge_equal_rows(H, Hf)
    return H[first], live, inverse, Hf[first]


def _merge_equal_rows(H: np.ndarray, Hf: np.ndarray):
    """``(first, inverse)`` with ``H[first]`` the distinct rows of ``H`` and
    ``H == H[first][inverse]``, exactly; ``Hf = scaled_floats(H)`` gives the float keys."""
    weights = np.random.default_rng(0).uniform(1.0, 2.0, H.shape[1])
    key = Hf[:, 0] * weights[0]
    for j in range(1, H.shape[1]):  # column by column: the same rounding for every row
        key = key + Hf[:, j] * weights[j]
    order = np.argsort(key, kind="stable")
    ks = key[order]
    start = np.r_[True, ks[1:] != ks[:-1]]
    group = np.cumsum(start) - 1  # by key, in key order
    lead = np.flatnonzero(start)[group]  # the first position of each key's run
    same = np.ones(len(H), dtype=bool)  # a key of its own: nothing to compare
    shared = np.flatnonzero(np.r_[~start[1:], False] | ~start)  # positions in runs of two or more keys
    if len(shared):  # equal keys, equal exact rows: the common case
        same[shared] = np.all(H[order[shared]] == H[order[lead[shared]]], axis=1)
    inverse = np.empty(len(H), dtype=np.intp)
    if np.all(same):  # a stable sort puts each run's smallest index first
        inverse[order] = group
        return order[start], inverse
    label, nxt = group.copy(), group[-1] + 1  # a float collision of different rows: split those runs exactly
    for grp in np.unique(group[~same]):
        seen = {}
        for m in np.flatnonzero(group == grp):
            r = tuple(H[order[m]].tolist())
            if r not in seen:
                seen[r] = grp if not seen else nxt
                nxt += len(seen) > 1
            label[m] = seen[r]
    inverse[order] = label
    first = np.full(label.max() + 1, len(H), dtype=np.intp)
    np.minimum.at(first, inverse, np.arange(len(H)))
    return first, inverse


def _row_gcds(H: np.ndarray) -> np.ndarray:
    """The gcd of each row of a nonzero-row object array of ints (object array).

    One ``math.gcd`` call (C, any number of arguments) per row."""
    return np.array(list(map(math.gcd, *H.T.tolist())), dtype=object)


#: Above this many facets x points the local certificate is used (:func:`_certify_local`);
#: below, every point is tested against every facet row.
LOCAL_ENTRIES = 1 << 15

#: Up to this many facets x (points off the surface), the local certificate first proves
#: points strictly inside every row in floats (:func:`~tropattn.exact._predicates.negative_columns`,
#: one matrix product); above, the cone test alone is cheaper (its float guess is float32).
INSIDE_FILTER_ENTRIES = 1 << 23

#: Above this many facets x points an incidence is kept as a sparse matrix.
DENSE_ENTRIES = 1 << 25


def _global_zeros(U: np.ndarray, pts: PreparedPoints, cols: np.ndarray | None = None):
    """The zeros of ``U @ P[cols].T`` if no entry is positive (None otherwise), by blocks of rows.

    Returns a boolean array (facets, points) when small, else a ``scipy.sparse``
    CSR matrix; with ``cols``, a CSR matrix over all points with only those columns.
    """
    sub = pts if cols is None else PreparedPoints.of(pts.Pa[cols] if pts.P64 is None else pts.P64[cols])
    n = len(sub.P)
    step = max(1, BLOCK_ENTRIES // max(n, 1))
    fi, pi, blocks = [], [], []
    dense = cols is None and len(U) * n <= DENSE_ENTRIES
    for lo in range(0, len(U), step):
        S = matrix_signs(U[lo:lo + step], sub)
        if np.any(S > 0):
            return None
        if dense:
            blocks.append(S == 0)
        else:
            i, k = np.nonzero(S == 0)
            fi.append(i + lo)
            pi.append(k if cols is None else cols[k])
    if dense:
        return np.concatenate(blocks, axis=0)
    fi, pi = (np.concatenate(x) if x else np.zeros(0, dtype=np.intp) for x in (fi, pi))
    return csr_matrix((np.ones(len(fi), dtype=bool), (fi, pi)), shape=(len(U), len(pts.P)))


def _holds(Z, degenerate: np.ndarray) -> np.ndarray:
    """(facets, degenerate simplices): does facet row f hold every vertex of simplex s?"""
    if isinstance(Z, np.ndarray):
        return Z[:, degenerate].all(axis=2)
    Zc = Z.tocsc()
    out = np.ones((Z.shape[0], len(degenerate)), dtype=bool)
    for j, simplex in enumerate(degenerate):
        for v in simplex:
            out[:, j] &= Zc[:, int(v)].toarray()[:, 0]
    return out


def _entries(Z, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``Z[rows, cols]`` elementwise (broadcast index arrays) for a dense or sparse ``Z``."""
    if isinstance(Z, np.ndarray):
        return Z[rows, cols]
    r, c = np.broadcast_arrays(rows, cols)
    return np.asarray(Z[r.ravel(), c.ravel()]).reshape(r.shape).astype(bool)


def meets_alone_any(Z, cand: np.ndarray) -> np.ndarray:
    """Vertex flags from an incidence, dense (:func:`meets_alone`) or sparse.

    Point ``u`` (in ``cand``) is a vertex iff it lies on some facet and the facets
    through it meet in ``{u}`` alone.

    Parameters
    ----------
    Z : numpy.ndarray of bool or scipy.sparse matrix, shape (F, m)
        ``Z[f, i]``: point ``i`` lies on facet ``f``.
    cand : numpy.ndarray of int
        The candidate points.

    Returns
    -------
    numpy.ndarray of bool, shape (m,)
        True at the candidates that are vertices (False elsewhere).

    Examples
    --------
    Two edges of a path a-b-c: only b is cut out by the facets through it.

    >>> Z = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> meets_alone_any(Z, np.arange(3)).tolist()
    [False, True, False]
    >>> from scipy.sparse import csr_matrix
    >>> meets_alone_any(csr_matrix(Z), np.arange(3)).tolist()
    [False, True, False]
    """
    if isinstance(Z, np.ndarray):
        out = np.zeros(Z.shape[1], dtype=bool)
        out[cand] = meets_alone(Z[:, cand], Z, cand)
        return out
    Zc = Z.tocsc().astype(np.int32)
    deg = np.diff(Zc.indptr)[cand]
    C = (Zc[:, cand].T @ Zc).tocoo()  # shared facets of (u, point)
    full = C.data == deg[C.row]
    hits = np.bincount(C.row[full], minlength=len(cand))
    out = np.zeros(Z.shape[1], dtype=bool)
    out[cand] = (deg > 0) & (hits == 1)
    return out


def _certify_local(pts: PreparedPoints, simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
                   inner: tuple, raw: np.ndarray, Uf: np.ndarray | None = None, report: dict | None = None):
    """The local certificate for non-degenerate simplices with outward rows ``U``
    (``U . inner < 0``; ``facet_of[s]``: the row of simplex ``s``, built from its points,
    so those points are exact zeros of it).  Returns like :func:`_certify_triangulation`.

    Checked, with O(facets + points) exact signs instead of O(facets x points):

    1. the simplices form a closed, consistently oriented surface ``S`` (every ridge in
       exactly two simplices with opposite induced orientations, outward orientation
       from ``raw``: :func:`_consistently_oriented`);
    2. ``S`` is locally convex at every ridge: the vertex of each neighbour opposite the
       ridge lies on the inner side (``<= 0``) of the simplex's row;
    3. a ray meets ``S`` once: ``c``, the centroid of one simplex ``s0`` of row ``f0``,
       lies strictly inside every other row, every point lies on the inner side of
       ``f0``, and no other simplex of ``f0`` contains ``c``.  A simplex ``t`` of a row
       ``g != f0`` cannot meet the ray from ``inner`` through ``c``: before ``c`` the
       ray is strictly inside ``g`` (``g(inner) < 0``, ``g(c) < 0``), beyond ``c`` it is
       strictly outside ``f0``, where no point of ``t`` (a convex combination of input
       points) lies; simplices of ``f0`` meet the ray only at ``c``.

    By the theorem of Mehlhorn, Naeher, Schilz, Schirra, Seel, Seidel and Uhrig
    ("Checking geometric programs or verification of geometric structures", CGTA 12,
    1999): a closed, consistently oriented surface that is locally convex at every
    ridge, with a point (``inner``) on the inner side of every facet and a ray from it
    that meets the surface exactly once, in the relative interior of a facet, is the
    boundary of a convex polytope ``K``.  (Sketch: local convexity makes the region
    of winding number ``w(x) >= 1`` locally convex near the surface, hence convex, and
    the ray shows that the winding number is 1.)  The vertices of ``S`` are input
    points, so ``K`` is contained in their hull; it remains that

    4. every other point ``x`` lies in ``K``: strictly inside every row (a one-sided
       float filter with a rigorous bound, :func:`~tropattn.exact._predicates.negative_columns`;
       every facet hyperplane of ``K`` holds a simplex of ``S``, hence is a row, so the
       rows cut out ``K``), else in ``conv(inner, t)`` for a simplex ``t``
       (nonnegative barycentric coordinates, exact determinants; ``t`` is guessed in
       floats as the row maximising ``g(x) / |g(inner)|``, the one the ray from
       ``inner`` through ``x`` leaves by), else tested against every row.

    Then ``K = conv(points)``, and the rows (each spanned by a non-degenerate simplex)
    are exactly its facets.  Incidences: a point strictly inside ``conv(inner, t)``
    towards ``inner`` (``t``'s row ``< 0``) is interior.  A vertex ``v`` of ``S`` is a
    vertex of ``K`` when ``d`` of the rows of its simplices have independent normals;
    then every facet ``F`` through ``v`` holds a simplex through ``v`` (the simplices
    cover ``F`` by 3, and ``v``, being extreme, is a vertex of any simplex holding it),
    so the rows of ``v``'s simplices are all its facets.  The remaining points (other
    vertices of ``S``, points on the boundary) are tested against every row.
    """
    n, F, k = len(pts.P), len(simplices), simplices.shape[1]
    U = as_small_ints(U)
    Uf = scaled_floats(U) if Uf is None else Uf  # ``U``'s floats, converted once
    sigma = _outward(pts, simplices, U, facet_of, raw)
    pairs = _ridge_pairs(simplices, n)
    if pairs is None or np.any(sigma == 0) or not _consistently_oriented(simplices, sigma, n, pairs):
        return None, None, None
    a, b = pairs  # rows j * F + s of the ridge list: simplex s without its j-th smallest vertex
    S = np.sort(simplices, axis=1)
    sa, sb = a % F, b % F
    opp_a, opp_b = S[sa, a // F], S[sb, b // F]
    fa, fb = facet_of[sa], facet_of[sb]
    bent = fa != fb
    rows = np.concatenate([fa[bent], fb[bent]])
    convex = prepared_paired_signs(U, Uf, pts, rows, np.concatenate([opp_b[bent], opp_a[bent]])) <= 0
    if not np.all(convex):
        if report is not None:  # (simplex, simplex, opposite vertex, opposite vertex) of each bad ridge
            bad = ~(convex[:len(convex) // 2] & convex[len(convex) // 2:])
            report["ridges"] = (sa[bent][bad], sb[bent][bad], opp_a[bent][bad], opp_b[bent][bad])
        return None, None, None
    if not _ray_meets_once_local(pts, simplices, U, facet_of, inner, Uf):
        return None, None, None
    on_surface = np.zeros(n, dtype=bool)
    on_surface[simplices.ravel()] = True
    others = np.flatnonzero(~on_surface)
    if len(U) * len(others) <= INSIDE_FILTER_ENTRIES:  # 4, first: strictly inside every row (float filter)
        interior = negative_columns(Uf, pts.F[others])
    else:
        interior = np.zeros(len(others), dtype=bool)
    boundary = np.zeros(len(others), dtype=bool)
    rest = np.flatnonzero(~interior)
    interior[rest], boundary[rest] = _in_cones(pts, simplices, U, facet_of, inner, others[rest], Uf)
    star_f = np.repeat(facet_of, k)
    star_p = simplices.ravel()
    A = as_small_ints(U[:, :-1])
    proved = _star_vertices(A, star_f, star_p, n, k, Uf, _ridge_vertices(A, S, facet_of, pairs, n))
    suspicious = np.concatenate([np.flatnonzero(on_surface & ~proved), others[~interior | boundary]])
    dense = len(U) * n <= DENSE_ENTRIES
    if dense and not len(suspicious):  # the common case: the incidence is the stars, built dense
        Z = np.zeros((len(U), n), dtype=bool)
        Z[star_f, star_p] = True
        return _row_tuples(U), Z, proved
    Z = csr_matrix((np.ones(len(star_f), dtype=bool), (star_f, star_p)), shape=(len(U), n))
    if len(suspicious):
        extra = _global_zeros(U, pts, suspicious)
        if extra is None:
            return None, None, None
        Z = (Z + extra).astype(bool)
    Z.sum_duplicates()
    vertex = proved.copy()
    if len(suspicious):
        vertex |= meets_alone_any(Z, suspicious)
    if dense:
        Z = Z.toarray()
    return _row_tuples(U), Z, vertex


def _ray_meets_once_local(pts: PreparedPoints, simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
                          inner: tuple, Uf: np.ndarray) -> bool:
    """Check 3 of :func:`_certify_local` (exact): the ray from ``inner`` through the
    centroid ``c`` of one simplex meets no other simplex (``Uf``: ``U``'s scaled floats)."""
    counts = np.bincount(facet_of, minlength=len(U))
    f0 = int(np.argmin(counts))
    here = np.flatnonzero(facet_of == f0)
    c = row_sum([pts.P[i] for i in simplices[here[0]]])
    crow = np.array([c], dtype=object)
    at_c = filtered_signs(U, as_small_ints(crow), Uf, scaled_floats(crow))[:, 0]
    if at_c[f0] != 0 or np.any(np.delete(at_c, f0) >= 0):
        return False
    if np.any(matrix_signs(U[f0:f0 + 1], pts) > 0):
        return False
    return not (len(here) > 1 and _contains_point(pts, simplices[here[1:]], c, inner).any())


def _in_cones(pts: PreparedPoints, simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray, inner: tuple,
              idx: np.ndarray, Uf: np.ndarray):
    """For points ``idx`` off the surface: ``(inside, boundary)`` flags, exact.

    ``inside[i]``: the point lies in ``conv(inner, t)`` for the simplex ``t`` tried
    (nonnegative barycentric coordinates); ``boundary[i]``: its coordinate on
    ``inner`` is zero (the point lies in ``t``).  ``t`` is guessed in floats: the
    simplex of the row maximising ``g(x) / |g(inner)|`` (the first of that row's).
    """
    inside = np.zeros(len(idx), dtype=bool)
    boundary = np.zeros(len(idx), dtype=bool)
    if not len(idx):
        return inside, boundary
    o = PreparedPoints.of([inner])
    Hf = Uf
    Uf = Uf / np.abs(row_products(Uf, o.F))  # g / |g(inner)|, then one global scale: float32 for the guess
    Uf = (Uf / np.abs(Uf).max()).astype(np.float32)
    first = np.full(len(U), -1)
    first[facet_of[::-1]] = np.arange(len(facet_of))[::-1]
    Pf = pts.F[idx]
    Pf = (Pf / np.abs(Pf).max(axis=1)[:, None]).astype(np.float32)  # a positive factor per point
    step = BLOCK_ENTRIES // 4 // len(U) + 1
    row = np.concatenate([np.argmax(Pf[lo:lo + step] @ Uf.T, axis=1) for lo in range(0, len(idx), step)])
    t = first[row]
    lam_o = prepared_paired_signs(U, Hf, pts, row, idx)
    k = simplices.shape[1]
    # det[inner; p_1; ...; p_k] (homogeneous rows (m, w), w > 0) has the sign of (-1)^k det N,
    # N = the rows w_o m_j - w_j m_o: eliminating the last column against inner's row.  Only
    # products of two such determinants are tested, so the factor (-1)^k cancels.
    used, local = np.unique(np.concatenate([simplices[t].ravel(), idx]), return_inverse=True)
    Q = _eliminated_rows(pts, used, inner)
    S_loc, X_loc = local[:t.size * k].reshape(len(t), k), local[t.size * k:]
    D = np.zeros((len(t), k + 1), dtype=np.int64)
    step = max(1, 4 * CACHE_ENTRIES // (k + 1) ** 3)
    for lo in range(0, len(t), step):  # blocks bound the memory of the determinant stacks
        base = Q[S_loc[lo:lo + step]]  # (block, k, k)
        stack = np.repeat(base[:, None], k + 1, axis=1)  # variant k: the simplex itself
        for i in range(k):
            stack[:, i, i] = Q[X_loc[lo:lo + step]]
        D[lo:lo + step] = small_determinant_signs(stack.reshape(-1, k, k)).reshape(len(base), k + 1)
    inside = (lam_o <= 0) & np.all(D[:, :k] * D[:, k:] >= 0, axis=1) & (D[:, k] != 0)
    boundary = lam_o == 0
    return inside, boundary


def _eliminated_rows(pts: PreparedPoints, used: np.ndarray, inner: tuple) -> np.ndarray:
    """The rows ``w_o m_j - w_j m_o`` (all columns but the last) of points ``used``
    against the homogeneous point ``inner = (m_o, w_o)``: int64 when a bound allows."""
    o = list(inner)
    wo, mo = o[-1], o[:-1]
    bound = (abs(wo) + max(map(abs, mo), default=0)) * pts.max_abs
    if pts.P64 is not None and bound < INT64_SAFE:
        P = pts.P64[used]
        return wo * P[:, :-1] - P[:, -1:] * np.array(mo, dtype=np.int64)
    P = pts.Pa[used]
    return as_small_ints(wo * P[:, :-1] - P[:, -1:] * np.array(mo, dtype=object))


def _star_vertices(A: np.ndarray, star_f: np.ndarray, star_p: np.ndarray, n: int, k: int,
                   Uf: np.ndarray, proved: np.ndarray | None = None) -> np.ndarray:
    """Points proved to be vertices (``A``: the normals of the rows, all columns but the
    last, int64 when they fit): ``k`` rows through the point (from the simplices
    holding it) whose normals (all columns but the last) are independent (a nonzero
    ``k x k`` determinant, exact).  ``proved`` (optional): points the caller has
    already proved so (:func:`_ridge_vertices`); only the others are tried.  The ``k``
    rows are first taken spread over the point's rows; where they are dependent,
    chosen greedily in floats (the row farthest from the span of those already
    chosen).  The choice only guides the exact test.
    """
    out = np.zeros(n, dtype=bool) if proved is None else proved.copy()
    if proved is not None and proved[star_p].all():
        return out
    key = np.sort(star_p.astype(np.int64) * len(A) + star_f)
    key = key[np.r_[True, key[1:] != key[:-1]]]  # distinct (point, row) pairs
    p, f = key // len(A), key % len(A)
    counts = np.bincount(p, minlength=n)
    ok = np.flatnonzero((counts >= k) & ~out)
    if not len(ok):
        return out
    starts = np.searchsorted(p, ok)
    pick = f[starts[:, None] + (np.arange(k)[None, :] * counts[ok][:, None]) // k]  # distinct rows
    proved = _independent_normals(A, pick)
    out[ok] = proved
    miss = np.flatnonzero(~proved)
    if not len(miss):
        return out
    ok, starts = ok[miss], starts[miss]
    width = min(int(counts[ok].max()), 4 * k)  # a few rows suffice; a miss is only tested in full
    slot = starts[:, None] + np.arange(width)
    valid = np.arange(width)[None, :] < np.minimum(counts[ok], width)[:, None]
    rows = np.where(valid, f[np.minimum(slot, len(f) - 1)], 0)  # (vertices, width)
    W = Uf[rows, :-1]  # only the rows of the misses, normalised
    R = np.where(valid[:, :, None], W / np.linalg.norm(W, axis=2)[:, :, None], 0.0)
    pick = np.zeros((len(ok), k), dtype=np.intp)
    at = np.arange(len(ok))
    for i in range(k):
        j = np.argmax(np.einsum("vwd,vwd->vw", R, R), axis=1)
        pick[:, i] = rows[at, j]
        q = R[at, j] / np.maximum(np.linalg.norm(R[at, j], axis=1), 1e-300)[:, None]
        R = R - np.einsum("vwd,vd->vw", R, q)[:, :, None] * q[:, None, :]
    out[ok] = _independent_normals(A, pick)
    return out


def _ridge_vertices(A: np.ndarray, S: np.ndarray, facet_of: np.ndarray, pairs: tuple, n: int) -> np.ndarray:
    """Points proved to be vertices by the rows around one simplex holding them (exact).

    ``S``: the simplices, each sorted; ``pairs``: the two sides of every ridge
    (:func:`_ridge_pairs`).  For a point ``v`` of simplex ``s`` the ``k - 1`` ridges of
    ``s`` through ``v`` each lie in one other simplex; the rows of ``s`` and of those
    neighbours all hold ``v``, and when their normals (``A``) are independent (a nonzero
    ``k x k`` determinant, :func:`_independent_normals`) they meet in ``v`` alone.  (When
    every ridge through ``v`` is bent they are: the faces of ``s`` through ``v`` meet in
    ``v`` within ``s``'s row.)
    """
    F, k = S.shape
    a, b = pairs
    partner = np.empty(k * F, dtype=np.intp)
    partner[a], partner[b] = b, a  # ridge row j * F + s: simplex s without its j-th smallest vertex
    own = np.full(n, -1, dtype=np.intp)
    own[S.ravel()[::-1]] = np.arange(k * F)[::-1] // k  # one simplex holding each point
    v = np.flatnonzero(own >= 0)
    s = own[v]
    jv = np.argmax(S[s] == v[:, None], axis=1)  # v's place in s
    J = np.arange(k - 1)[None, :]
    J = J + (J >= jv[:, None])  # the k - 1 ridges of s through v
    pick = np.concatenate([facet_of[s][:, None], facet_of[partner[J * F + s[:, None]] % F]], axis=1)
    out = np.zeros(n, dtype=bool)
    out[v] = _independent_normals(A, pick)
    return out


def _independent_normals(A: np.ndarray, pick: np.ndarray) -> np.ndarray:
    """For each row of ``pick`` (k row indices): are those normals (rows of ``A``)
    linearly independent?  Exact (a k x k determinant)."""
    M = A[pick]
    k = M.shape[1]
    exact64 = M.dtype != object and (int(np.abs(M).max(initial=0)) * k) ** k < INT64_SAFE
    return (determinant_signs(M, True) if exact64 else small_determinant_signs(M)) != 0


def unique_rows(H: np.ndarray):
    """Distinct rows of an int64 or object array.

    Parameters
    ----------
    H : numpy.ndarray of int64 or object, shape (F, n)
        The rows.

    Returns
    -------
    rows : numpy.ndarray, shape (U, n)
        The distinct rows (sorted for int64, in first-seen order for object arrays).
    first : numpy.ndarray of int, shape (U,)
        ``rows = H[first]``.
    inverse : numpy.ndarray of int, shape (F,)
        ``H == rows[inverse]``.

    Examples
    --------
    >>> rows, first, inverse = unique_rows(np.array([[1, 2], [0, 1], [1, 2]]))
    >>> rows.tolist(), first.tolist(), inverse.tolist()
    ([[0, 1], [1, 2]], [1, 0], [1, 0, 1])
    """
    if H.dtype != object:
        uniq, first, inverse = np.unique(H, axis=0, return_index=True, return_inverse=True)
        return uniq, first, inverse.reshape(-1)
    seen = {}
    inverse = np.array([seen.setdefault(r, len(seen)) for r in map(tuple, H.tolist())], dtype=np.intp)
    first = np.zeros(len(seen), dtype=np.intp)
    first[inverse[::-1]] = np.arange(len(H) - 1, -1, -1)
    return H[first], first, inverse


def _facets_dd(P, init):
    """Exact facets of full-dimensional homogeneous points by double description.

    The facets are the extreme rays of the cone ``{h : h . g <= 0 for every point g}``.
    Start from the simplex ``init`` (whose cone has one ray per omitted point) and
    add the other points one at a time: rays on the wrong side are replaced by
    combinations of adjacent pairs across the new hyperplane (combinatorial
    adjacency test).  Pure Python integers.
    """
    k1 = len(P[0])
    rays, zs = [], []
    for j in range(k1):
        others = [P[init[i]] for i in range(k1) if i != j]
        (vec,) = nullspace([list(o) for o in others])
        r = integer_row(vec)
        if sum(a * b for a, b in zip(r, P[init[j]])) > 0:
            r = tuple(-v for v in r)
        rays.append(r)
        zs.append(sum(1 << init[i] for i in range(k1) if i != j))
    rest = [i for i in range(len(P)) if i not in set(init)]
    for i in rest:
        rays, zs = _dd_step(rays, zs, P[i], 1 << i, k1 - 2)
    return rays, zs


def _dd_step(rays, zs, g, bit, need):
    """Intersect the cone's ray list with the half-space ``h . g <= 0``."""
    s = [sum(a * b for a, b in zip(r, g)) for r in rays]
    pos = [j for j, v in enumerate(s) if v > 0]
    if not pos:
        return rays, [z | bit if s[j] == 0 else z for j, z in enumerate(zs)]
    neg = [j for j, v in enumerate(s) if v < 0]
    new_rays, new_zs = [], []
    for p in pos:
        for q in neg:
            Z = zs[p] & zs[q]
            if Z.bit_count() < need or _shared_by_other(Z, zs, p, q):
                continue
            new_rays.append(primitive_row([s[p] * b - s[q] * a for a, b in zip(rays[p], rays[q])]))
            new_zs.append(Z | bit)
    keep = [j for j, v in enumerate(s) if v <= 0]
    return ([rays[j] for j in keep] + new_rays,
            [zs[j] | bit if s[j] == 0 else zs[j] for j in keep] + new_zs)


def _shared_by_other(Z, zs, p, q) -> bool:
    for o, z in enumerate(zs):
        if z & Z == Z and o != p and o != q:
            return True
    return False


def meets_alone(on: np.ndarray, Z: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """For each column ``u`` of ``on``: do the rows of ``Z`` over the facets holding ``u`` meet exactly in ``idx[u]``?

    The rows ``Z[f]`` over the facets ``f`` with ``on[f, u]`` are AND-ed (bitwise:
    ``Z``'s rows are packed into bytes and reduced per column of ``on``); the
    answer is False when no facet holds ``u``.

    Parameters
    ----------
    on : numpy.ndarray of bool, shape (F, c)
        Which facets hold each candidate.
    Z : numpy.ndarray of bool, shape (F, m)
        The incidence over all points.
    idx : numpy.ndarray of int, shape (c,) or (c, t)
        The expected meet of each candidate (a point, or a set of t points).

    Returns
    -------
    numpy.ndarray of bool, shape (c,)
        True where the meet is exactly ``idx[u]``.

    Examples
    --------
    >>> Z = np.array([[1, 1, 0], [0, 1, 1]], dtype=bool)
    >>> meets_alone(Z, Z, np.arange(3)).tolist()
    [False, True, False]
    """
    idx = idx.reshape(len(idx), -1)
    u, f = np.nonzero(on.T)  # sorted by u
    out = np.zeros(on.shape[1], dtype=bool)
    if not len(u):
        return out
    starts = np.flatnonzero(np.r_[True, u[1:] != u[:-1]])
    meet = np.bitwise_and.reduceat(np.packbits(Z, axis=1, bitorder="little")[f], starts, axis=0)
    who = u[starts]
    want = np.zeros((len(who), Z.shape[1]), dtype=bool)
    want[np.arange(len(who))[:, None], idx[who]] = True
    out[who] = np.all(meet == np.packbits(want, axis=1, bitorder="little"), axis=1)
    return out
