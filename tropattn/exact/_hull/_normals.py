"""Exact hyperplanes of simplices and the integer rows of hull facets.

The hyperplane through each simplex of a claimed boundary triangulation is rebuilt
exactly: signed minors, vectorised in blocks of simplices, in int64 when a bound proves
it exact, else from float and wrapped int64 images or modulo primes (Chinese remainder
theorem).  Rows are made primitive and oriented away from an interior point, and equal
rows of different simplices are merged into one facet row.  The small row utilities the
certificates share (independent rows, the weighted centroid, bitmask incidences, distinct
rows) live here too.

>>> from tropattn.exact._predicates import PreparedPoints
>>> tri = PreparedPoints.of([(0, 0, 1), (1, 0, 1), (0, 1, 1)])
>>> simplex_normals(tri, np.array([[1, 2]])).tolist()        # the line x + y = 1
[[-1, -1, 1]]
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from .._linalg import maximal_minors, modular_minors, wrapped_dots, wrapped_minors
from .._numbers import primitive_row
from .._predicates import (INT64_SAFE, PreparedPoints, as_small_ints, determinant_signs, filtered_signs,
                           matrix_signs, scaled_floats, sign_array)

__all__ = ["independent_rows", "simplex_normals", "normalise_rows", "row_sum", "row_masks", "unique_rows"]


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


def _row_tuples(M: np.ndarray) -> list:
    """The rows of a 2-D int64 or object array as tuples of Python ints (the columns
    listed once and zipped: fewer Python objects than listing the rows)."""
    return list(zip(*M.T.tolist())) if M.shape[1] else [()] * len(M)


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
    top = 2 * pts.max_abs if integral else pts.max_abs  # the largest entry of a matrix
    # |minor| <= the product of its rows' L1 norms, and (Hadamard) of their L2 norms, each at most
    # (width top^2)^(1/2) for rows of width k (differences) or k + 1 (homogeneous rows)
    bits = min(rows_k * l1.bit_length() + 1, (rows_k * ((rows_k + 1) * top ** 2).bit_length() + 1) // 2 + 1)
    floats_exact = pts.P64 is not None and 2 * pts.max_abs < 1 << 53
    m = rows_k + 1
    if not small and bits <= 1000 and not (floats_exact and rows_k * top.bit_length() <= _WRAPPED_BITS):
        minors = modular_minors(stack(simplices), bits)  # typical minors beyond what float images prove
    else:
        blocks = []
        for lo in range(0, F, 2048):
            S = stack(simplices[lo:lo + 2048])
            if small:
                blocks.append(maximal_minors(S))
            elif bits <= 1000:  # float and wrapped int64 images, modular where unsure
                blocks.append(wrapped_minors(S, bits))
            else:
                blocks.append(maximal_minors(S.astype(object)))
        minors = np.concatenate(blocks, axis=0) if blocks else np.zeros((0, m), dtype=np.int64)
    if minors.dtype != object and minors.size and not small:
        minors = minors.astype(object) if int(np.abs(minors).max()) >= INT64_SAFE else minors
    a = minors[:, ::-1].copy()  # minors[:, i] omits column rows_k - i
    odd = [j for j in range(m) if (j + (k - 1 if integral else 0)) % 2]
    a[:, odd] = -a[:, odd]  # the cofactor signs (-1)^j (times (-1)^(k-1) for differences)
    return a, integral


#: :func:`_normal_parts` tries the float and wrapped images (:func:`~tropattn.exact._linalg.wrapped_minors`)
#: when ``top^rows`` (a typical minor) stays below ``2^_WRAPPED_BITS``: they prove minors up to about
#: ``2^105`` (an error bound below ``2^61`` at 53-bit precision), larger ones go to the primes anyway.
_WRAPPED_BITS = 110


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
