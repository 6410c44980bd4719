"""Exact convex polytopes: hulls, Minkowski sums, upper hulls and normal fans.

A polytope is the convex hull of finitely many points (its *V-representation*)
and, equivalently, the bounded solution set of finitely many inequalities (its
*H-representation*).  Here both are exact: vertices are tuples of Fractions,
facets are rows ``normal . x <= offset`` with primitive integer normals, and the
affine hull is a list of equations ``normal . x == offset``.

How a hull is computed (ALGORITHMS.md section 2).  Every point ``x = num / den``
is stored as the primitive integer row ``(num, den)``.  The affine hull is found
exactly; coordinates are projected to an independent subset so that the set is
full-dimensional there.  Qhull triangulates the boundary in floats (joggled input
first, then the default merged run); for each simplex the hyperplane through its
points is rebuilt exactly (the vector of signed maximal minors, by a Laplace
expansion vectorised over all simplices, in int64 when a bound proves it exact),
and the exact sign of every point against every hyperplane is computed (int64,
int64 limbs, or :func:`tropattn.exact.dot_signs`).  The hyperplanes are exactly
the facets (simplices with equal exact normals are merged) when the complete
certificate of Mehlhorn et al. holds: every point lies on one side of every
hyperplane (hence local convexity); the simplices, oriented outward, form a
consistently oriented closed surface (every ridge in exactly two simplices, with
opposite induced orientations); and the ray from an interior point through one
simplex meets no other simplex (degree one: a doubled or folded surface fails,
see :func:`_surface_certified`).  Otherwise an exact double-description algorithm over Python
integers computes the facets, and :data:`tropattn.exact.COUNTERS` records the
fallback.  A point is a vertex iff the facets through it meet in that point alone.

Minkowski sums ``P + Q`` are certified without testing the ``|P| |Q|`` sums: a
hyperplane supports ``P + Q`` iff it supports ``P`` and ``Q`` separately, so each
candidate facet is checked against the vertices of ``P`` and of ``Q`` only (see
:func:`minkowski_sum`).  Upper hulls use one projective transformation that turns
the downward ray into a single apex point (see :func:`upper_hull`).

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
from typing import Sequence

import numpy as np

from . import exact
from .errors import InvalidInputError

__all__ = [
    "rational_sphere_points",
    "Polytope",
    "UpperHull",
    "NormalCone",
    "convex_hull",
    "minkowski_sum",
    "upper_hull",
    "upper_vertex_count",
    "normal_fan",
]

_INT64_SAFE = 1 << 62
#: Qhull runs tried in turn: joggled input ("QJ") first, whose output is simplicial with
#: every ridge in exactly two simplices even when many points are coplanar (and which
#: is the fastest, as no facets are merged), then the default triangulated output
#: ("Qt").  The exact checks are always on the original points.
_QHULL_OPTIONS = ("QJ", None)


# --------------------------------------------------------------------------- points
def _to_points(points, name: str) -> tuple:
    """Points as a tuple of Fraction tuples; refuse empty input."""
    pts = exact.to_rational_matrix(points, name)
    if not pts:
        raise InvalidInputError(f"{name} is empty; a polytope needs at least one point, e.g. [[0, 0]]")
    if not pts[0]:
        raise InvalidInputError(f"{name} has points with no coordinates; give at least one coordinate per point")
    return pts


def _homogeneous(point: Sequence[Fraction]) -> tuple:
    """``(num_1, ..., num_n, den)``: the primitive integer row of a rational point."""
    den = 1
    for v in point:
        den = den * v.denominator // math.gcd(den, v.denominator)
    return tuple(v.numerator * (den // v.denominator) for v in point) + (den,)


def _primitive(row) -> tuple:
    """Divide an integer row by the gcd of its entries (the zero row stays zero)."""
    g = 0
    for v in row:
        g = math.gcd(g, v)
    return tuple(row) if g <= 1 else tuple(v // g for v in row)


def _fraction_array(num: np.ndarray, den: np.ndarray) -> list:
    """Lists of Fractions ``num[i, j] / den[i]`` (object or int arrays, ``den > 0``).

    Built with the public constructor only: ``Fraction(n)`` when the denominator is
    1 (no gcd), ``Fraction(n, d)`` otherwise (which reduces the pair itself).
    """
    out = []
    for row, d in zip(num.tolist(), den.tolist()):
        if d == 1:
            out.append(list(map(Fraction, row)))
        else:
            out.append([Fraction(n, d) for n in row])
    return out


def _to_fractions(row) -> tuple:
    return tuple(_fraction_array(np.array([row[:-1]], dtype=object), np.array([row[-1]], dtype=object))[0])


def _bits(mask: int):
    """Indices of the set bits of a Python int, in increasing order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


# ------------------------------------------------------------------- affine hull
def _independent_rows(G: Sequence[tuple]):
    """Greedy maximal linearly independent subset of homogeneous rows.

    Returns ``(indices, pivots)``: the rows kept and one pivot column per kept row
    (the first row's pivot is the denominator column).  The kept rows restricted to
    the pivot columns form an invertible matrix, so a point of the affine hull is
    determined by its coordinates at the pivot columns.
    """
    n1 = len(G[0])
    order = [n1 - 1] + list(range(n1 - 1))  # denominator column first
    basis, kept, pivots = [], [], []
    for i, g in enumerate(G):
        v = list(g)
        for b, c in basis:
            if v[c]:
                f, h = b[c], v[c]
                v = _primitive([f * x - h * y for x, y in zip(v, b)])
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
    for vec in exact.nullspace([list(r) for r in rows]):
        ints = exact.integer_row(vec)
        eqs.append((ints[:-1], Fraction(-ints[-1])))
    return tuple(sorted(eqs))


# ---------------------------------------------------------------- hull kernels
@dataclass(frozen=True)
class _Hull:
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
    def masks(self) -> tuple:
        if isinstance(self.incidence, np.ndarray):
            return tuple(_row_masks(self.incidence))
        return tuple(self.incidence)


def _hull(G: Sequence[tuple], method: str = "auto", qhull_options=_QHULL_OPTIONS) -> _Hull:
    """Exact facets and vertices of distinct homogeneous points (any dimension).

    ``qhull_options`` are the Qhull runs tried in turn before the exact fallback.
    """
    if method not in ("auto", "exact"):
        raise InvalidInputError(f"method = {method!r}; expected 'auto' (certified Qhull) or 'exact'")
    n = len(G[0]) - 1
    kept, pivots = _independent_rows(G)
    dim = len(kept) - 1
    coords = tuple(sorted(c for c in pivots if c != n))
    eqs = _equations([G[i] for i in kept]) if dim < n else ()
    if dim == 0:
        return _Hull(tuple(G), 0, coords, eqs, (), (), (0,))
    P = list(G) if dim == n else [_primitive([g[c] for c in coords] + [g[n]]) for g in G]
    facets = None
    if dim >= 2 and method == "auto":
        pts = _Prepared.of(P)
        inner = _row_sum([P[i] for i in kept])  # kept: d + 1 affinely independent points
        for options in qhull_options:
            facets, Z = _facets_qhull(pts, inner, options)
            if facets is not None:
                exact.COUNTERS.certified += 1
                verts = tuple(np.nonzero(_meets_alone(Z, Z, np.arange(len(P))))[0].tolist())
                return _Hull(tuple(G), dim, coords, eqs, tuple(facets), Z, verts)
        exact.COUNTERS.fallbacks += 1
    facets, masks = _facets_1d(P) if dim == 1 else _facets_dd(P, kept)
    verts = _vertices_from_masks(masks, len(P), dim)
    return _Hull(tuple(G), dim, coords, eqs, tuple(facets), tuple(masks), verts)


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
        for i in _bits(m):
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


# ----------------------------------------------------------- certified Qhull path
def _simplex_normals(pts: "_Prepared", simplices: np.ndarray) -> np.ndarray:
    """Integer normal ``h`` of the hyperplane through each simplex (zero if degenerate).

    Returns (F, k+1) rows with ``h . P[s] == 0`` for every point ``P[s]`` of the
    simplex: ``h_j = (-1)^j`` times the k x k minor of the simplex's k x (k+1)
    matrix without column ``j`` (the generalised cross product; a degenerate simplex
    gets the zero row).  See :func:`_maximal_minors` for the arithmetic.
    """
    rows = pts.P64 if pts.P64 is not None and pts.l1 ** simplices.shape[1] < _INT64_SAFE else pts.Pa
    minors = _maximal_minors(rows[simplices])
    k1 = minors.shape[1]
    signs = np.array([(-1) ** j for j in range(k1)], dtype=minors.dtype)
    return minors[:, ::-1] * signs  # minors[:, i] omits column k - i


def _maximal_minors(S: np.ndarray, absolute: bool = False) -> np.ndarray:
    """All k x k minors of a stack of k x (k+1) integer matrices, by Laplace expansion.

    The minors of the first r rows on every r-subset of columns are built from
    those of the first r-1 rows (expansion along row r), vectorised over the stack
    and over the subsets.  Every intermediate is a partial sum of such an expansion,
    bounded by the product of the rows' L1 norms, so int64 is exact when that
    product is below 2^62 (the caller decides; object arrays of Python ints
    otherwise).  Column ``i`` of the result is the minor omitting column ``k - i``
    (the subsets of size k in lexicographic order).  ``absolute=True`` adds every term
    (the permanents: on ``|S|`` they bound the minors' terms, for a float filter).
    """
    F, k, m = S.shape
    level = S[:, 0, :]  # 1-subsets {c}, in order
    for r in range(1, k):
        cols, rest = _expansion_tables(m, r)
        terms = S[:, r, :][:, cols] * level[:, rest]  # (F, subsets, r + 1)
        acc = terms[:, :, 0]
        for p in range(1, r + 1):  # alternating signs (-1)^(r + p), without multiplying by them
            acc = acc - terms[:, :, p] if p % 2 and not absolute else acc + terms[:, :, p]
        level = -acc if r % 2 and not absolute else acc
    return level


@functools.lru_cache(maxsize=None)
def _expansion_tables(m: int, r: int):
    """Index tables expanding (r+1)-subsets of ``range(m)`` along their last row.

    For the t-th (r+1)-subset ``s`` (lexicographic order) and position ``p``:
    ``cols[t, p] = s[p]`` and ``rest[t, p]`` = index of ``s`` minus ``s[p]`` among the
    r-subsets; the term's sign is ``(-1)^(r + p)``.
    """
    index = {s: i for i, s in enumerate(itertools.combinations(range(m), r))}
    subsets = list(itertools.combinations(range(m), r + 1))
    cols = np.array(subsets, dtype=np.intp)
    rest = np.array([[index[s[:p] + s[p + 1:]] for p in range(r + 1)] for s in subsets], dtype=np.intp)
    return cols, rest


def _normalise_rows(H: np.ndarray) -> np.ndarray:
    """Primitive rows with the first nonzero entry positive (int64 when they fit, else object ints)."""
    g = np.gcd.reduce(H, axis=1)
    g[g == 0] = 1
    H = H // g[:, None]
    first = np.argmax(H != 0, axis=1)
    flip = (H[np.arange(len(H)), first] < 0).astype(bool)
    H[flip] = -H[flip]
    return _small(H)


def _small(H: np.ndarray) -> np.ndarray:
    """An object array of ints as int64 when every entry is below 2^62 in absolute value."""
    if H.dtype == object and H.size and max(H.max(), -H.min()) < _INT64_SAFE:
        return H.astype(np.int64)
    return H


def _signs(H: np.ndarray, pts: "_Prepared") -> np.ndarray:
    """Exact sign matrix of ``H @ P.T``.

    With ``bound = max|P| * m`` (m columns), every partial sum of a row of ``H`` against
    a point is at most ``max|H| * bound`` in absolute value.  Below ``2^53`` a float
    matrix product is exact (every product and partial sum is an integer that floats
    represent, in any summation order); below ``2^62`` an int64 product is.  Otherwise
    ``H`` is split into digits small enough for exact float products
    (:func:`_limb_signs`) when the points are small, and the float filter of
    :func:`tropattn.exact.dot_signs` decides the rest.
    """
    H = _small(H)
    if H.size == 0:
        return np.zeros((H.shape[0], len(pts.P)), dtype=np.int8)
    if pts.P64 is None:
        return exact.dot_signs(H, pts.Pa)
    bound = pts.max_abs * H.shape[1]
    if H.dtype != object:
        top = max(int(H.max()), -int(H.min()), 0) * bound
        if top < _FLOAT_EXACT:
            return np.sign(H.astype(float) @ pts.F.T).astype(np.int8)
        if top < _INT64_SAFE:
            return np.sign(H @ pts.P64.T).astype(np.int8)
    bits = _FLOAT_BITS - bound.bit_length()
    if bits >= _MIN_LIMB:
        return _limb_signs(H, pts.F, bits)
    return exact.dot_signs(H, pts.P64)


_FLOAT_BITS = 53
_FLOAT_EXACT = 1 << _FLOAT_BITS
#: Digits narrower than this would need too many float products: use the float filter.
_MIN_LIMB = 20


def _limb_signs(H: np.ndarray, C: np.ndarray, bits: int) -> np.ndarray:
    """Exact ``sign(H @ C.T)`` for any integers ``H`` (int64 or object) and integer-valued
    floats ``C`` with ``2^bits * max|C| * m <= 2^53``.

    ``H = sum_l H_l 2^(bits l)`` with digits ``0 <= H_l < 2^bits`` and a signed top digit
    (``|top| < 2^bits``), so each ``S_l = H_l @ C.T`` is below ``2^53`` in absolute value
    with every partial sum an integer below ``2^53``: the float product is exact, and so
    is its conversion to int64.  Carries are then propagated in int64 from the lowest
    digit: ``t_l = S_l + carry``, ``carry = floor(t_l / 2^bits)``, remainder in
    ``[0, 2^bits)``.  The value is ``t_top 2^(bits L) + R`` with ``0 <= R < 2^(bits L)``,
    and ``R > 0`` iff some remainder is nonzero: its sign is that of ``t_top``, or of
    ``R`` when ``t_top == 0``.
    """
    base, mask = 1 << bits, (1 << bits) - 1
    rest, digits = H, []
    while max(int(rest.max()), -int(rest.min())) >= base:
        digits.append((rest & mask).astype(np.int64))
        rest = rest >> bits  # floor division: rest == (rest >> bits) * 2^bits + (rest & mask)
    nonzero = np.zeros((H.shape[0], C.shape[0]), dtype=bool)
    carry = 0
    for d in digits:
        t = (d.astype(float) @ C.T).astype(np.int64) + carry  # |t| < 2^53 + 2^(54 - bits)
        nonzero |= (t & mask) != 0
        carry = t >> bits
    top = (rest.astype(np.int64).astype(float) @ C.T).astype(np.int64) + carry
    return np.where(top != 0, np.sign(top), nonzero).astype(np.int8)


def _row_sum(rows) -> tuple:
    """Sum of homogeneous rows (positive denominators): the centroid of the points
    weighted by their denominators, a point of the relative interior of their hull."""
    return _primitive([sum(col) for col in zip(*rows)])


def _surface_certified(pts: "_Prepared", simplices: np.ndarray, U: np.ndarray, Z: np.ndarray,
                       facet_of: np.ndarray, inner: tuple, raw: np.ndarray | None = None) -> bool:
    """Do the simplices form the boundary of ``conv(points)`` exactly once?  (Exact.)

    The caller has certified that every row of ``U`` (outward facet rows, ``U . g <= 0``
    for every point ``g``, ``Z`` = the zeros) supports ``conv(points)``; ``facet_of[s]``
    is a row of ``U`` whose zero set holds simplex ``s`` (checked again here),
    ``inner`` a homogeneous point in the interior of ``conv(points)``, and ``raw``
    (optional) the simplices' own normals (:func:`_simplex_normals`).  The rest of the certificate of Mehlhorn et al. ("Checking
    geometric programs or verification of geometric structures") is checked here:

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
    """
    if not np.all(Z[facet_of[:, None], simplices]):
        return False
    if not np.all(_signs(U, _Prepared.of([inner])) < 0):
        return False
    sigma = _outward(pts, simplices, U, facet_of, raw)
    degenerate = np.flatnonzero(sigma == 0)
    flat = Z[:, simplices[degenerate]].all(axis=2)  # (facets, degenerate simplices): s in f
    return (_consistently_oriented(simplices, sigma, len(pts.P))
            and _ray_meets_once(pts, simplices, facet_of, degenerate, flat, inner))


def _outward(pts: "_Prepared", simplices: np.ndarray, U: np.ndarray, facet_of: np.ndarray,
             raw: np.ndarray | None = None) -> np.ndarray:
    """Orientation of each simplex (in its given vertex order): +1 outward, -1 inward,
    0 degenerate.  Exact.

    For vertices ``v_0..v_{k-1}`` (homogeneous rows) with normal ``raw``
    (:func:`_simplex_normals`), ``det[v_0; ...; v_{k-1}; x] = (-1)^k raw . x``
    (cofactor expansion along the last row).  The ordered simplex is *outward* when
    ``raw . inner < 0``, like ``U_f . inner`` for its facet row ``U_f``.  As the simplex
    lies in that hyperplane, ``raw = lambda U_f`` (``lambda = 0`` iff degenerate), so
    the orientation is the sign of ``lambda``: one entry ``raw_j`` at a column ``j``
    with ``U_f[j] != 0`` suffices, a single k x k minor (:func:`_pivot_minor_signs`).
    """
    Uf = U[facet_of]
    j = np.argmax(Uf != 0, axis=1)
    rows = np.arange(len(simplices))
    u = _sign_array(Uf[rows, j])
    r = _sign_array(raw[rows, j]) if raw is not None else _pivot_minor_signs(pts, simplices, j)
    return r * u


def _sign_array(x: np.ndarray) -> np.ndarray:
    """Signs of an int64 or object array, as int64."""
    return (x > 0).astype(np.int64) - (x < 0).astype(np.int64)


def _pivot_minor_signs(pts: "_Prepared", simplices: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``sign(raw_s[j_s])`` for each simplex ``s``: ``(-1)^j`` times the sign of the
    k x k minor of its k x (k+1) matrix without column ``j`` (see :func:`_simplex_normals`)."""
    F, k = simplices.shape
    rows = pts.Pa if pts.P64 is None else pts.P64
    keep = np.arange(k + 1)[None, :].repeat(F, axis=0)
    keep = keep[keep != j[:, None]].reshape(F, k)
    M = np.take_along_axis(rows[simplices], keep[:, None, :], axis=2)  # (F, k, k)
    return _determinant_signs(M, pts.P64 is not None and pts.l1 ** k < _INT64_SAFE) * (1 - 2 * (j % 2))


def _determinant_signs(M: np.ndarray, int64_exact: bool) -> np.ndarray:
    """Exact signs of the determinants of a stack of k x k integer matrices (int64 or
    object); ``int64_exact``: the caller's bound proves int64 arithmetic exact.

    Otherwise a float filter comes first: the Laplace expansion in floats
    makes at most ``n = k^2 + 2k`` roundings along each of its monomials (rounding the
    entries included), so ``|fl(det) - det| <= gamma_n perm|M|``, and the same
    expansion of ``|M|`` (:func:`_maximal_minors` with ``absolute=True``) computes the
    permanent to within the factor ``1 + gamma_n``.  Entries with
    ``|fl(det)| > 2 gamma_n fl(perm)`` take the float sign; the rest (zeros among
    them) are computed with Python integers.
    """
    if int64_exact:
        return _sign_array(_determinants(M))
    out = np.zeros(len(M), dtype=np.int64)
    unsure = np.ones(len(M), dtype=bool)
    try:
        Mf = M.astype(float)
    except OverflowError:
        Mf = None
    if Mf is not None:
        k = M.shape[1]
        u = 2.0 ** -53
        gamma = (k * k + 2 * k) * u / (1 - (k * k + 2 * k) * u)
        with np.errstate(over="ignore", invalid="ignore"):
            det, perm = _determinants(Mf), _determinants(np.abs(Mf), absolute=True)
            sure = np.isfinite(perm) & (np.abs(det) > 2 * gamma * perm)
        out[sure] = np.sign(det[sure]).astype(np.int64)
        unsure = ~sure
    if np.any(unsure):
        out[unsure] = _sign_array(_determinants(M[unsure].astype(object)))
    return out


def _determinants(M: np.ndarray, absolute: bool = False) -> np.ndarray:
    """Determinants (or, with ``absolute``, permanents) of a stack of k x k matrices, k >= 2.

    Expansion along the last row of the minors of the first k-1 rows
    (:func:`_maximal_minors`; the same int64 bound: the product of the rows' L1 norms).
    """
    k = M.shape[1]
    minors = _maximal_minors(M[:, :-1, :], absolute)  # column i omits column k - 1 - i
    det = 0
    for c in range(k):
        term = M[:, -1, c] * minors[:, k - 1 - c]
        det = det - term if (k - 1 + c) % 2 and not absolute else det + term
    return det


def _ridge_pairs(simplices: np.ndarray, npoints: int):
    """The two sides of every ridge of sorted simplices, or None if some ridge does not
    lie in exactly two simplices.

    Row ``j * F + s`` of the ridge list is simplex ``s`` without its ``j``-th smallest
    vertex; returns ``(a, b)``, the two rows of each ridge.
    """
    S = np.sort(simplices, axis=1)
    k = S.shape[1]
    ridges = np.concatenate([np.delete(S, j, axis=1) for j in range(k)], axis=0)
    if npoints ** (k - 1) < _INT64_SAFE:  # one int64 key per ridge, one sort
        keys = ridges.astype(np.int64) @ (npoints ** np.arange(k - 1, dtype=np.int64))
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


def _consistently_oriented(simplices: np.ndarray, sigma: np.ndarray, npoints: int) -> bool:
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
    pairs = _ridge_pairs(simplices, npoints)
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


def _ray_meets_once(pts: "_Prepared", simplices: np.ndarray, facet_of: np.ndarray, degenerate: np.ndarray,
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
    c = _row_sum([pts.P[i] for i in simplices[s0]])
    if len(rest) and _contains_point(pts, simplices[rest], c, inner).any():
        return False
    return not any(_in_hull([pts.P[i] for i in simplices[s]], c) for s in degenerate[flat[f0]])


def _contains_point(pts: "_Prepared", simplices: np.ndarray, c: tuple, inner: tuple) -> np.ndarray:
    """For non-degenerate simplices in one hyperplane through ``c``: does ``c`` lie in each?

    With ``inner`` off the hyperplane, ``D(x_1..x_k) = det[x_1; ...; x_k; inner]`` is a
    volume form on it, so the barycentric coordinates of ``c`` in ``v_0..v_{k-1}`` have
    the signs of ``D(v with v_i := c) / D(v)``: ``c`` lies in the simplex iff none is
    negative.  Each ``D`` is ``(-1)^k`` times ``raw . inner`` of that simplex.
    """
    F, k = simplices.shape
    used, local = np.unique(simplices, return_inverse=True)
    aug = _Prepared.of([pts.P[u] for u in used] + [c])
    idx = np.repeat(local.reshape(F, 1, k), k + 1, axis=1)  # variant k: the simplex itself
    for i in range(k):
        idx[:, i, i] = len(used)
    o = _Prepared.of([inner])
    D = _signs(_simplex_normals(aug, idx.reshape(-1, k)), o)[:, 0].reshape(F, k + 1).astype(np.int64)
    return np.all(D[:, :k] * D[:, k:] >= 0, axis=1)


def _in_hull(rows: list, c: tuple) -> bool:
    """Is the homogeneous point ``c`` in the hull of ``rows`` (few, possibly dependent)?

    By Caratheodory, iff ``c`` is a nonnegative combination of some linearly
    independent subset of the rows, whose coefficients are then unique (exact solve).
    """
    for size in range(1, len(rows) + 1):
        for sub in itertools.combinations(rows, size):
            w = exact.solve([list(col) for col in zip(*sub)], list(c))
            if w is not None and all(v >= 0 for v in w):
                return True
    return False


def _row_masks(Z: np.ndarray) -> list:
    """Each boolean row as a Python int bitmask (bit i = column i)."""
    packed = np.packbits(Z, axis=1, bitorder="little")
    data, w = packed.tobytes(), packed.shape[1]
    if not w:
        return [0] * len(packed)
    return [int.from_bytes(data[i:i + w], "little") for i in range(0, len(data), w)]


@dataclass(frozen=True)
class _Prepared:
    """Homogeneous points as a list, an object array, int64 (if small) and floats (on demand).

    ``max_abs`` is the largest absolute entry, ``l1`` the largest row L1 norm.
    """

    P: list
    Pa: np.ndarray
    P64: np.ndarray | None
    max_abs: int
    l1: int

    @classmethod
    def of(cls, P):
        """From a list of integer rows, or an int64 array of them."""
        if isinstance(P, np.ndarray) and P.dtype == np.int64:
            A = np.abs(P)
            if len(P) and int(A.max()) * P.shape[1] < _INT64_SAFE:
                return cls(list(map(tuple, P.tolist())), P.astype(object), P, int(A.max()), int(A.sum(axis=1).max()))
            P = list(map(tuple, P.tolist()))
        Pa = np.array(P, dtype=object)
        try:
            P64 = Pa.astype(np.int64)
        except OverflowError:
            P64 = None
        if P64 is not None and int(P64.max()) < _INT64_SAFE and int(P64.min()) > -_INT64_SAFE:
            A = np.abs(P64)
            max_abs = int(A.max())
            if max_abs * P64.shape[1] < _INT64_SAFE:
                return cls(P, Pa, P64, max_abs, int(A.sum(axis=1).max()))
            return cls(P, Pa, P64, max_abs, max(sum(map(abs, r)) for r in P))
        max_abs = max(max(abs(v) for v in r) for r in P)
        return cls(P, Pa, None, max_abs, max(sum(map(abs, r)) for r in P))

    @functools.cached_property
    def F(self) -> np.ndarray:
        """The int64 rows as floats (exact when ``max_abs < 2^53``; callers check bounds)."""
        return self.P64.astype(float)

    @functools.cached_property
    def X(self) -> np.ndarray:
        """The points as float coordinates (correctly rounded quotients)."""
        if self.P64 is not None and self.max_abs < 1 << 53:
            return self.P64[:, :-1] / self.P64[:, -1:]
        return (self.Pa[:, :-1] / self.Pa[:, -1:]).astype(float)


def _qhull_simplices(X: np.ndarray, options=None):
    """Qhull's triangulated boundary of float points and the float hyperplane of each
    simplex, or None if Qhull fails.

    Only the combinatorics (index sets) is used, and every check is exact on the
    true points, so Qhull may see any affine image of them: coordinates are centred
    and scaled per axis, which helps Qhull on lopsided inputs.
    """
    from scipy.spatial import ConvexHull, QhullError

    if not np.all(np.isfinite(X)):
        return None
    span = np.ptp(X, axis=0)
    span[span == 0] = 1.0
    try:
        qh = ConvexHull((X - X.mean(axis=0)) / span, qhull_options=options)
    except (QhullError, ValueError):
        return None
    return qh.simplices, qh.equations


def _facets_qhull(pts: _Prepared, inner: tuple, options=None):
    """Facets via Qhull, certified exactly; ``(None, None)`` when a check fails.

    Returns the facet rows and their incidence ``Z`` (``Z[f, i]``: point i on facet f).
    ``inner`` is a homogeneous point in the interior of the hull.
    """
    run = _qhull_simplices(pts.X, options)
    if run is None:
        return None, None
    return _certify_triangulation(pts, run[0], inner)


def _certify_triangulation(pts: _Prepared, simplices: np.ndarray, inner: tuple):
    """The facets of full-dimensional points, certified from a claimed boundary
    triangulation (any source); ``(None, None)`` if the claim is not proved.

    The hyperplane of each simplex is rebuilt exactly; every distinct one must have
    all points on one side (so it supports the hull, and being spanned by points it is
    a facet); then :func:`_surface_certified` proves that no facet is missing.
    """
    raw = _simplex_normals(pts, simplices)
    H = _normalise_rows(raw)
    live = np.any(H != 0, axis=1)
    uniq, _, inverse = _unique_rows(H[live])
    if len(uniq) == 0:
        return None, None
    signs = _signs(uniq, pts)
    pos, neg = np.any(signs > 0, axis=1), np.any(signs < 0, axis=1)
    if np.any(pos == neg):  # both signs (not supporting), or none (not full-dimensional)
        return None, None
    uniq[pos] = -uniq[pos]
    Z = signs == 0
    facet_of = np.zeros(len(simplices), dtype=np.intp)
    facet_of[live] = inverse
    if not np.all(live):  # a degenerate simplex: any certified facet row holding it
        flat = Z[:, simplices[~live]].all(axis=2)
        if not np.all(flat.any(axis=0)):
            return None, None
        facet_of[~live] = np.argmax(flat, axis=0)
    if not _surface_certified(pts, simplices, uniq, Z, facet_of, inner, raw):
        return None, None
    return [tuple(map(int, h)) for h in uniq.tolist()], Z


def _unique_rows(H: np.ndarray):
    """Distinct rows of an int64 or object array: ``(rows, first, inverse)`` with
    ``rows = H[first]`` and ``H == rows[inverse]``."""
    if H.dtype != object:
        uniq, first, inverse = np.unique(H, axis=0, return_index=True, return_inverse=True)
        return uniq, first, inverse.reshape(-1)
    seen = {}
    inverse = np.array([seen.setdefault(r, len(seen)) for r in map(tuple, H.tolist())], dtype=np.intp)
    first = np.zeros(len(seen), dtype=np.intp)
    first[inverse[::-1]] = np.arange(len(H) - 1, -1, -1)
    return H[first], first, inverse


# ------------------------------------------------------- exact double description
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
        (vec,) = exact.nullspace([list(o) for o in others])
        r = exact.integer_row(vec)
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
            new_rays.append(_primitive([s[p] * b - s[q] * a for a, b in zip(rays[p], rays[q])]))
            new_zs.append(Z | bit)
    keep = [j for j, v in enumerate(s) if v <= 0]
    return ([rays[j] for j in keep] + new_rays,
            [zs[j] | bit if s[j] == 0 else zs[j] for j in keep] + new_zs)


def _shared_by_other(Z, zs, p, q) -> bool:
    for o, z in enumerate(zs):
        if z & Z == Z and o != p and o != q:
            return True
    return False


# ---------------------------------------------------------------------- Polytope
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
            value = _fraction_rows(state["_vertex_rows"])
        elif name == "facets" and "_facet_rows" in state:
            value = _full_dimensional_facets(state["_facet_rows"])
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

    @property
    def vertex_count(self) -> int:
        """Number of vertices."""
        return len(self._vertex_rows)

    @property
    def facet_count(self) -> int:
        """Number of facets (within the affine hull)."""
        rows = self.__dict__.get("_facet_rows")
        return len(self.facets if rows is None else rows)

    @functools.cached_property
    def _vertex_rows(self) -> tuple:
        """The vertices as primitive homogeneous integer rows, in the order of ``vertices``
        (the canonical exact form of each vertex; cached, or set by the hull code)."""
        return tuple(_homogeneous(v) for v in self.vertices)

    @classmethod
    def from_points(cls, points, method: str = "auto") -> "Polytope":
        """The convex hull of points (V-representation in, both out); see :func:`convex_hull`.

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

        Raises
        ------
        InvalidInputError
            If the system is empty (certified by a Farkas vector) or unbounded.

        Examples
        --------
        >>> square = Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1])
        >>> square.vertex_count, square == Polytope.from_points(square.vertices)
        (4, True)
        """
        return _from_inequalities(A, b, A_eq, b_eq)

    def contains(self, x) -> bool:
        """Exact membership test.

        >>> Polytope.from_points([[0, 0], [2, 0], [0, 2]]).contains(["1/2", "3/2"])
        True
        """
        x = exact.to_rational_vector(x, "x", self.ambient_dim)
        on = all(sum(a * v for a, v in zip(e, x)) == f for e, f in self.equations)
        return on and all(sum(a * v for a, v in zip(h, x)) <= c for h, c in self.facets)


def _polytope_from_hull(hull: _Hull, fracs=None) -> Polytope:
    """Assemble the canonical Polytope; ``fracs[i]`` (optional) is point ``i`` as Fractions.

    The integer rows are stored; ``vertices`` (unless ``fracs`` gives them for free)
    and full-dimensional ``facets`` are left to :meth:`Polytope.__getattr__`.
    """
    n = len(hull.G[0]) - 1
    rows = [hull.G[i] for i in hull.vertices]
    order = _lex_order(rows)
    P = object.__new__(Polytope)  # the fields are set below (or built lazily), as __init__ would
    state = P.__dict__
    state["_vertex_rows"] = tuple(rows[j] for j in order)
    if fracs is not None:
        state["vertices"] = tuple(fracs[hull.vertices[j]] for j in order)
    state["equations"] = hull.equations
    if hull.equations or not hull.facets:
        point = (lambda i: fracs[i]) if fracs is not None else (lambda i: _to_fractions(hull.G[i]))
        state["facets"] = tuple(sorted(_lift_facet(h, m, hull, point, n) for h, m in zip(hull.facets, hull.masks)))
    else:
        state["_facet_rows"] = hull.facets
    state["ambient_dim"] = n
    state["dim"] = hull.dim
    return P


def _fraction_rows(rows) -> tuple:
    """Homogeneous integer rows ``(num_1, ..., num_n, den)`` as tuples of Fractions."""
    V = np.array(rows, dtype=object).reshape(len(rows), -1)
    return tuple(map(tuple, _fraction_array(V[:, :-1], V[:, -1])))


def _full_dimensional_facets(rows) -> tuple:
    """Sorted canonical ``(normal, offset)`` of homogeneous facet rows ``(a, b)``: ``a.x <= -b``."""
    H = _small(np.array(rows, dtype=object))
    g = np.abs(np.gcd.reduce(H[:, :-1], axis=1))  # abs: a one-column reduce returns the entry itself
    normals = (H[:, :-1] // g[:, None]).tolist()
    offsets = _fraction_array(-H[:, -1:], g)
    return tuple(sorted((tuple(a), o[0]) for a, o in zip(normals, offsets)))


def _lex_order(rows) -> list:
    """Indices sorting homogeneous points lexicographically (float sort, checked exactly).

    Rounding to float is monotone, so a strict float inequality in the first
    coordinate certifies the exact order of two neighbours; only neighbours whose
    first coordinates round equal are compared exactly.
    """
    if len(rows) < 2:
        return list(range(len(rows)))
    X = _Prepared.of(rows).X
    order = np.lexsort(X.T[::-1])
    sure = X[order[1:], 0] > X[order[:-1], 0]
    order = order.tolist()
    if all(sure[k] or _lex_cmp(rows[order[k]], rows[order[k + 1]]) <= 0 for k in range(len(sure))):
        return order
    return sorted(range(len(rows)), key=functools.cmp_to_key(lambda i, j: _lex_cmp(rows[i], rows[j])))


def _lex_cmp(p, q) -> int:
    """Exact lexicographic comparison of two homogeneous points (positive denominators)."""
    dp, dq = p[-1], q[-1]
    for a, b in zip(p[:-1], q[:-1]):
        x, y = a * dq, b * dp
        if x != y:
            return -1 if x < y else 1
    return 0


def _lift_facet(h, mask, hull: _Hull, point, n):
    """A projected facet row as a canonical ambient ``(normal, offset)``."""
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
    offset = sum(v * x for v, x in zip(aL, point(next(_bits(mask))))) * scale
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
    pts = _to_points(points, "points")
    rows = {}
    for p in pts:
        rows.setdefault(_homogeneous(p), p)
    return _polytope_from_hull(_hull(list(rows), method), list(rows.values()))


# ----------------------------------------------------------------- H -> V
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


# ------------------------------------------------------------------ Minkowski sum
def minkowski_sum(*polytopes: Polytope) -> Polytope:
    """The Minkowski sum ``P + Q + ...`` of polytopes, exactly.

    A vertex of ``P + Q`` is a sum of a vertex of ``P`` and a vertex of ``Q``, so
    the summands are added one at a time and each partial sum is pruned to its
    vertices (ALGORITHMS.md section 5).  When a partial sum is full-dimensional and
    not tiny, its facets are certified against the two summands' vertices separately
    (:func:`_sum_hull`); otherwise the hull of all pairwise sums is taken.

    Examples
    --------
    >>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
    >>> segment = convex_hull([[0, 0], [1, 1]])
    >>> minkowski_sum(square, segment).vertex_count     # a hexagon
    6
    """
    if not polytopes:
        raise InvalidInputError("minkowski_sum needs at least one polytope")
    for i, P in enumerate(polytopes):
        if not isinstance(P, Polytope):
            raise InvalidInputError(f"summand {i} is a {type(P).__name__}; pass Polytope objects "
                                    "(build them with convex_hull(points))")
    if len({P.ambient_dim for P in polytopes}) != 1:
        raise InvalidInputError("all summands must live in the same dimension")
    P0 = polytopes[0]
    G, eqs, partial = P0._vertex_rows, P0.equations, P0  # partial: the sum so far
    hull = None
    for Q in polytopes[1:]:
        H = Q._vertex_rows
        hull = None
        if len(G) * len(H) > _SMALL_SUM and _full_dimensional_sum(eqs, Q.equations, Q.ambient_dim):
            floats = (_facet_floats(partial), _facet_floats(Q)) if len(G) * len(H) > _PREFILTER_PAIRS else ()
            hull = _sum_hull(_Prepared.of(G), _Prepared.of(H), *floats)
        if hull is None:
            hull = _hull(_pairwise_sums(G, H))
        G = [hull.G[i] for i in hull.vertices]
        eqs, partial = hull.equations, hull
    return P0 if hull is None else _polytope_from_hull(hull)


def _facet_floats(P):
    """Float facet normals and offsets ``(N, c)`` (``N x <= c``) of a full-dimensional
    Polytope or _Hull, for the float pre-filter of :func:`_sum_hull`; else None.

    Integer facet rows ``(a, b)`` (``a . x <= -b``) are used when present, so no
    Fractions are built; rows too large for floats give None (no pre-filter).
    """
    if P.equations:
        return None
    if isinstance(P, Polytope):
        rows = P.__dict__.get("_facet_rows")
        if rows is None:
            if not P.facets:
                return None
            return (np.array([a for a, _ in P.facets], dtype=float),
                    np.array([float(c) for _, c in P.facets]))
    else:
        rows = P.facets
    if not rows:
        return None
    try:
        H = np.array(rows, dtype=float)
    except OverflowError:
        return None
    return H[:, :-1], -H[:, -1]


#: Below this many vertex pairs the plain route (hull of all sums) is faster than
#: :func:`_sum_hull`; above ``_PREFILTER_PAIRS`` pairs the normal-cone filter pays off.
_SMALL_SUM = 100
_PREFILTER_PAIRS = 400


def _full_dimensional_sum(eqs_p, eqs_q, n: int) -> bool:
    """Whether ``P + Q`` is full-dimensional (n >= 2), from the equations of P and Q.

    The normal space of ``P + Q`` is the intersection of those of P and Q; it is zero
    iff the two bases of equation normals are together independent.
    """
    if n < 2:
        return False
    if not eqs_p or not eqs_q:
        return True
    E = [list(e) for e, _ in eqs_p] + [list(e) for e, _ in eqs_q]
    return exact.rank(E) == len(E)


def _sum_hull(A: _Prepared, B: _Prepared, facets_a=None, facets_b=None):
    """Certified facets and vertices of a full-dimensional ``conv(A) + conv(B)``, or None.

    Qhull triangulates float sums ``a + b``; the hyperplane of each simplex is
    rebuilt exactly from the exact sums at its corners only.  It supports ``A + B``
    iff it supports ``A`` and ``B`` separately at the two halves ``a0, b0`` of one
    corner ``a0 + b0``: the maximum of ``h`` over the sums is ``max_A h + max_B h``.
    So the exact sign test runs over ``|A| + |B|`` points rather than ``|A| |B|``,
    and it certifies the hull of *all* sums.  The sums on the facet are exactly
    ``Z_A x Z_B`` (the zeros on each side), so a sum ``a + b`` is a vertex iff the
    facets through it meet in ``{a} x {b}`` alone (this also rejects sums that
    coincide with another pair's sum).  Ridge closure and coverage of degenerate
    simplices are checked as in :func:`_facets_qhull`.

    Because the certificate covers every pair, Qhull may be given fewer sums: when
    the float facets of both summands are known, only pairs whose normal cones may
    meet (:func:`_cone_pairs`, a float filter) are passed first; if that run is not
    certified, all pairs are.
    """
    nA, nB = len(A.P), len(B.P)
    everything = np.arange(nA * nB)
    tries = [everything]
    if facets_a is not None and facets_b is not None and nA * nB > _PREFILTER_PAIRS:
        pairs = _cone_pairs(A.X, facets_a, B.X, facets_b)
        if len(pairs) < len(everything):
            tries.insert(0, pairs)
    inner = _interior_sum(A, B)
    for pairs in tries:
        X = A.X[pairs // nB] + B.X[pairs % nB]
        for options in _QHULL_OPTIONS:
            run = _qhull_simplices(X, options)
            if run is None:
                continue
            simplices, planes = run
            out = _certify_sum(A, B, pairs[simplices], inner, _coplanar_groups(planes))
            if out is None:
                out = _certify_sum(A, B, pairs[simplices], inner)
            if out is not None:
                exact.COUNTERS.certified += 1
                return out
    return None


def _interior_sum(A: _Prepared, B: _Prepared) -> tuple:
    """A homogeneous point in the interior of a full-dimensional ``conv(A) + conv(B)``.

    The weighted centroid of an affinely independent spanning subset of each summand
    lies in its relative interior, and the relative interior of a Minkowski sum is the
    sum of the relative interiors.
    """
    a, b = (_row_sum([X.P[i] for i in _independent_rows(X.P)[0]]) for X in (A, B))
    return _primitive([x * b[-1] + y * a[-1] for x, y in zip(a[:-1], b[:-1])] + [a[-1] * b[-1]])


def _cone_pairs(XA, facets_a, XB, facets_b) -> np.ndarray:
    """Indices ``i * |B| + j`` of the vertex pairs whose normal cones may intersect (floats).

    ``a_i + b_j`` is a vertex of ``A + B`` only if the normal cones of ``a_i`` and
    ``b_j`` share an interior direction.  Each cone is enclosed in a spherical cap
    (centre: the mean of its unit facet normals; radius: the largest angle to one of
    them), and pairs whose caps are disjoint are left out.  Only a filter: the hull
    is certified on all pairs either way.
    """
    ca, ra = _normal_caps(XA, *facets_a)
    cb, rb = _normal_caps(XB, *facets_b)
    angle = np.arccos(np.clip(ca @ cb.T, -1.0, 1.0))
    return np.flatnonzero(angle <= ra[:, None] + rb[None, :] + 1e-6)


def _normal_caps(X, N, c):
    """Centre and angular radius of a cap around each vertex's normal cone (radius pi: no cap)."""
    norm = np.linalg.norm(N, axis=1)
    U, off = N / norm[:, None], c / norm
    tol = 1e-9 * (1.0 + np.abs(X).max() + np.abs(off).max())
    inc = np.abs(X @ U.T - off) <= tol  # (vertices, facets)
    centre = inc.astype(float) @ U
    length = np.linalg.norm(centre, axis=1)
    centre = centre / np.where(length > 0, length, 1.0)[:, None]
    cos = np.where(inc, centre @ U.T, 1.0).min(axis=1)
    radius = np.arccos(np.clip(cos, -1.0, 1.0))
    bad = (inc.sum(axis=1) < X.shape[1]) | (length < 1e-9) | (radius > np.pi / 2 - 1e-3)
    radius[bad] = np.pi
    return centre, radius


def _coplanar_groups(planes: np.ndarray) -> np.ndarray:
    """Labels grouping simplices whose float hyperplanes (Qhull's) look equal: only a
    hint for which exact normals to compute (see :func:`_certify_sum`)."""
    U = planes[:, :-1] / np.linalg.norm(planes[:, :-1], axis=1)[:, None]
    key = np.round(U, 6) @ np.sqrt(np.arange(2, U.shape[1] + 2))  # one float per direction
    return np.unique(key, return_inverse=True)[1].reshape(-1)


def _certify_sum(A: _Prepared, B: _Prepared, simplices: np.ndarray, inner: tuple, groups=None):
    """The exact check of :func:`_sum_hull` for one triangulation (None if it fails).

    Exact normals are computed for one simplex per group (default: every simplex);
    then every simplex must lie in the zero set of a certified supporting hyperplane
    (its group's, or failing that any): a non-degenerate simplex there spans that
    facet's hyperplane, a degenerate one is covered by it.  Finally the simplices
    must pass :func:`_surface_certified` (``inner``: a point inside ``A + B``), which
    proves that no facet is missing.
    """
    nB = len(B.P)
    used, local = np.unique(simplices, return_inverse=True)
    local = local.reshape(simplices.shape)
    ia, ib = used // nB, used % nB
    sums = _Prepared.of(_sum_rows(A, B, ia, ib))
    every = groups is None
    if every:
        groups = np.arange(len(simplices))
    _, reps, group_of = np.unique(groups, return_index=True, return_inverse=True)
    raw = _simplex_normals(sums, local[reps])
    H = _normalise_rows(raw)
    live = np.any(H != 0, axis=1)
    uniq, first, inverse = _unique_rows(H[live])
    if len(uniq) == 0:
        return None
    corner = local[reps[live][first], 0]
    SA = _support_signs(uniq, A, ia[corner])
    SB = _support_signs(uniq, B, ib[corner])
    pos = np.any(SA > 0, axis=1) | np.any(SB > 0, axis=1)
    neg = np.any(SA < 0, axis=1) | np.any(SB < 0, axis=1)
    if np.any(pos == neg):  # both signs (not supporting) or none (cannot happen full-dim)
        return None
    uniq[pos] = -uniq[pos]
    ZA, ZB = SA == 0, SB == 0
    on = ZA[:, ia] & ZB[:, ib]  # (facets, used sums)
    facet = np.full(len(reps), -1)
    facet[live] = inverse
    facet = facet[group_of.reshape(-1)]
    inside = facet >= 0
    inside[inside] = on[facet[inside][:, None], local[inside]].all(axis=1)
    for s in np.flatnonzero(~inside):
        holds = np.flatnonzero(on[:, local[s]].all(axis=1))
        if not len(holds):
            return None
        facet[s] = holds[0]
    if not _surface_certified(sums, local, uniq, on, facet, inner, raw if every else None):
        return None
    nA = ZA.shape[1]
    verts = np.nonzero(_meets_alone(on, np.hstack([ZA, ZB]), np.stack([ia, nA + ib], axis=1)))[0]
    n = A.Pa.shape[1] - 1
    return _Hull(tuple(sums.P[u] for u in verts), n, tuple(range(n)), (),
                 tuple(map(tuple, uniq.tolist())), on[:, verts],
                 tuple(range(len(verts))))


def _meets_alone(on: np.ndarray, Z: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """For each column ``u`` of ``on``: do the rows ``Z[f]`` over the facets ``f`` with
    ``on[f, u]`` meet exactly in the columns ``idx[u]``?  (False when no facet holds u.)

    ``idx`` is (columns of on,) or (columns of on, t) for sets of t columns.  Bitwise:
    ``Z``'s rows are packed into bytes and AND-reduced per column of ``on``.
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


def _sum_rows(A: _Prepared, B: _Prepared, ia: np.ndarray, ib: np.ndarray):
    """Primitive homogeneous rows of ``A[ia[i]] + B[ib[i]]``: an int64 array when the
    bound ``2 max|A| max|B| < 2^62`` proves int64 exact, else a list of int tuples."""
    if A.P64 is not None and B.P64 is not None and 2 * A.max_abs * B.max_abs < _INT64_SAFE:
        a, b = A.P64[ia], B.P64[ib]
    else:
        a, b = A.Pa[ia], B.Pa[ib]
    da, db = a[:, -1], b[:, -1]
    g = np.gcd(da, db)
    fa, fb = db // g, da // g
    rows = np.concatenate([a[:, :-1] * fa[:, None] + b[:, :-1] * fb[:, None], (da * fa)[:, None]], axis=1)
    rows = rows // np.gcd.reduce(rows, axis=1)[:, None]
    return rows if rows.dtype == np.int64 else list(map(tuple, rows.tolist()))


def _support_signs(normals: np.ndarray, pts: _Prepared, corner: np.ndarray) -> np.ndarray:
    """Exact ``sign(h_f . (x - x_f))`` for every normal ``h_f = (a, b)`` and point ``x``.

    ``x_f = pts[corner[f]]``.  With homogeneous points ``x = (m, d)`` the sign is that
    of ``(d_f a) . m - (a . m_f) d``, a dot product of integer rows.
    """
    a = normals[:, :-1]
    base = pts.Pa[corner] if pts.P64 is None else pts.P64[corner]
    if a.dtype == object or base.dtype == object or (
            max(int(a.max()), -int(a.min())) * pts.max_abs * a.shape[1] >= _INT64_SAFE):
        a, base = a.astype(object), base.astype(object)
    rows = np.concatenate([a * base[:, -1:], -(a * base[:, :-1]).sum(axis=1)[:, None]], axis=1)
    return _signs(rows, pts)


def _pairwise_sums(G, H) -> list:
    """Distinct homogeneous rows of all sums ``p + q`` (vectorised over object ints)."""
    A = np.array(G, dtype=object)
    B = np.array(H, dtype=object)
    da, db = A[:, -1], B[:, -1]
    g = np.gcd(da[:, None], db[None, :])
    fa, fb = db[None, :] // g, da[:, None] // g
    nums = A[:, None, :-1] * fa[:, :, None] + B[None, :, :-1] * fb[:, :, None]
    den = da[:, None] * fa
    rows = np.concatenate([nums, den[:, :, None]], axis=2).reshape(-1, A.shape[1])
    g = np.gcd.reduce(rows, axis=1)
    rows = rows // g[:, None]
    return list(dict.fromkeys(map(tuple, rows.tolist())))


# -------------------------------------------------------------------- upper hull
@dataclass(frozen=True)
class UpperHull:
    """The upper hull of points whose last coordinate is a height.

    Attributes
    ----------
    vertices : tuple of int
        Sorted indices of the points that are vertices of the upper hull (the first
        index among equal points).
    cells : tuple of frozenset of int
        One set per maximal upper face: every point index lying on it.  Projected
        down, these are the maximal cells of the regular subdivision induced by the
        heights (maximal within the affine hull of the projected points).
    """

    vertices: tuple
    cells: tuple


def upper_hull(points, method: str = "auto") -> UpperHull:
    """Upper vertices and maximal upper faces of points ``(x, height)``.

    The upper faces are the faces of ``conv(points) + R_{<=0} e_last``: the facets
    whose normal has a positive last coordinate.  A projective transformation maps
    this polyhedron to the polytope spanned by the (transformed) points and one apex
    point, the image of the ray; the faces not through the apex are the upper faces
    (:func:`_with_apex`).  This needs one extra point instead of a lowered copy of
    every point.
    ``method`` is as in :func:`convex_hull`.

    Examples
    --------
    Lift ``x = -2..2`` to the parabola ``-x^2``: every point is an upper vertex,
    and consecutive pairs are the cells.

    >>> H = upper_hull([[x, -x * x] for x in range(-2, 3)])
    >>> H.vertices, sorted(sorted(c) for c in H.cells)
    ((0, 1, 2, 3, 4), [[0, 1], [1, 2], [2, 3], [3, 4]])
    """
    pts = _to_points(points, "points")
    rows = [_homogeneous(p) for p in pts]
    ids = {}
    for r in rows:
        ids.setdefault(r, len(ids))
    top = list(ids)
    apex = len(top)
    hull = _hull(_with_apex(top), method)
    owners = {}
    for i, r in enumerate(rows):
        owners.setdefault(ids[r], []).append(i)
    cells = []
    for m in hull.masks:
        if not m >> apex & 1:
            cells.append(frozenset(i for p in _bits(m) for i in owners[p]))
    verts = tuple(sorted(owners[p][0] for p in hull.vertices if p != apex))
    return UpperHull(vertices=verts, cells=tuple(sorted(cells, key=sorted)))


def _with_apex(top: list) -> list:
    """Distinct lifted points (homogeneous rows) mapped projectively, plus the image of ``-e_last``.

    The upper faces of ``conv(points)`` are the faces of the polyhedron
    ``conv(points) + R_{<=0} e_last`` whose normal has a positive last coordinate.
    The invertible linear map ``(x, y, den) -> (x, y, c den - y)`` on homogeneous
    rows, with an integer ``c`` above every height, sends the points to finite points
    (new denominator ``den (c - y) > 0``) and the ray to the finite apex ``(0, -1)``:
    the polyhedron becomes the polytope ``conv(points' + [apex])``, with the same
    faces and incidences (a projective transformation whose hyperplane at infinity
    misses the polyhedron).  The faces not through the apex are the upper faces; the
    faces through it are the vertical ones.  ``c`` is chosen so that the new
    denominators vary by at most a factor of two (well-conditioned floats for Qhull).
    """
    heights = [Fraction(r[-2], r[-1]) for r in top]
    hi, lo = math.floor(max(heights)) + 1, math.floor(min(heights))
    c = hi + (hi - lo)  # c - y lies in [hi - lo, 2 (hi - lo)], and c > every height
    c = c if c else c + 1
    lifted = [_primitive(r[:-1] + (c * r[-1] - r[-2],)) for r in top]
    return lifted + [(0,) * (len(top[0]) - 2) + (-1, 1)]


def upper_vertex_count(points) -> int:
    """Number of upper vertices: the non-redundant terms of a max-plus polynomial.

    >>> upper_vertex_count([[0, 0], [1, 0], [2, 0]])   # max(0, x, 2x): the middle term is hidden
    2
    """
    return len(upper_hull(points).vertices)


# -------------------------------------------------------------------- normal fan
@dataclass(frozen=True)
class NormalCone:
    """The cone of directions ``c`` maximised at ``vertex``: ``{c : rows @ c <= 0}``.

    ``rows`` are the edge directions ``w - vertex`` to the adjacent vertices ``w``
    (so the system is irredundant); for a lower-dimensional polytope the cone
    contains the normals of its equations.
    """

    vertex: tuple
    rows: tuple

    def contains(self, c) -> bool:
        """Exact test ``rows @ c <= 0``."""
        c = exact.to_rational_vector(c, "c", len(self.vertex))
        return all(sum(a * x for a, x in zip(r, c)) <= 0 for r in self.rows)


def normal_fan(P: Polytope) -> tuple:
    """The normal cone of every vertex of ``P`` (in the order of ``P.vertices``).

    Examples
    --------
    >>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
    >>> fan = normal_fan(square)
    >>> [cone.contains([1, 1]) for cone in fan]    # x + y is maximised at (1, 1) only
    [False, False, False, True]
    """
    V = P.vertices
    if P.dim == 0:
        return (NormalCone(vertex=V[0], rows=()),)
    inc = [sum(1 << i for i, v in enumerate(V) if sum(a * x for a, x in zip(h, v)) == c)
           for h, c in P.facets]
    cones = []
    for i, v in enumerate(V):
        rows = [tuple(x - y for x, y in zip(w, v)) for j, w in enumerate(V)
                if j != i and _adjacent(i, j, inc, P.dim)]
        cones.append(NormalCone(vertex=v, rows=tuple(rows)))
    return tuple(cones)


def _adjacent(i: int, j: int, inc, dim: int) -> bool:
    """Vertices i, j span an edge iff the facets through both meet in {i, j} only."""
    if dim == 1:
        return True
    both = (1 << i) | (1 << j)
    acc = -1
    for m in inc:
        if m & both == both:
            acc &= m
    return acc == both


def rational_sphere_points(a: int = 7, b: int = 11, scale=1, shift=(0, 0, 0)) -> list:
    """200 rational points exactly on a sphere: inverse stereographic projection.

    ``(u, v) -> (2u, 2v, u^2 + v^2 - 1) / (u^2 + v^2 + 1)`` maps the grid ``u = i/a``
    (``i = -10..9``), ``v = j/b`` (``j = -5..4``) onto the unit sphere, exactly; then
    the points are scaled and shifted.  Every point is a vertex of their hull, which
    float hull codes get wrong.

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
