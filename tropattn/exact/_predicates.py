"""Filtered exact signs: float arithmetic with a rigorous error bound, exact where unsure.

The CGAL recipe (docs/ALGORITHMS.md §1): evaluate in float64, decide the sign where
the value exceeds its error bound, and recompute only the undecided entries in
integers.  :func:`dot_signs` does this for many dot products at once,
:func:`matrix_signs` for a matrix of integer rows against prepared points (exact float
products, int64, int64 limbs), :func:`determinant_signs` for stacks of small
determinants.  Every entry the filter cannot decide is counted
(:func:`tropattn.exact._counters.record`).

>>> dot_signs([[1, -1], [2, 2]], [[3, 3], [1, -1]]).tolist()
[[0, 1], [1, 0]]
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import numpy as np

from .._config import config
from ..errors import InvalidInputError
from ._counters import record
from ._linalg import determinants

__all__ = ["dot_signs", "row_products", "dense_signs", "paired_signs", "prepared_paired_signs", "filtered_signs", "scaled_floats", "INT64_SAFE", "as_small_ints", "matrix_signs", "sign_array", "determinant_signs", "small_determinant_signs", "negative_columns", "PreparedPoints", "lex_order"]


_U = 2.0**-53  # unit roundoff of float64


def dot_signs(rows, cols) -> np.ndarray:
    """Exact signs of every dot product ``rows[i] . cols[k]`` of integer vectors.

    Three tiers, cheapest first, each exact where it answers:

    1. float64 with the bound ``|err| <= gamma_{n+3} * sum |a_i b_i|`` (which also
       covers rounding the integers to floats); when that sum is below ``2^53`` the
       float result is the exact integer, zeros included;
    2. int64 arithmetic on the undecided entries when ``sum |a_i b_i| < 2^62`` proves
       that nothing overflows;
    3. Python integers for whatever is left (counted in ``COUNTERS.filter_failures``).

    Parameters
    ----------
    rows : sequence of sequence of int, or numpy.ndarray of int, shape (r, n)
        Integer vectors (Python ints of any size).
    cols : sequence of sequence of int, or numpy.ndarray of int, shape (c, n)
        Integer vectors of the same length.

    Returns
    -------
    numpy.ndarray of int8, shape (r, c)
        ``sign(rows[i] . cols[k])`` in {-1, 0, 1}.

    Raises
    ------
    InvalidInputError
        When ``rows`` or ``cols`` is not a 2-D array of integers.

    Examples
    --------
    >>> dot_signs([[1, -1], [2, 2]], [[3, 3], [1, -1]]).tolist()
    [[0, 1], [1, 0]]
    >>> big = 3 ** 40                                  # beyond float64 and int64 precision
    >>> dot_signs([[big, -big + 1]], [[1, 1]]).tolist()
    [[1]]
    """
    nr, nc = len(rows), len(cols)
    if nr == 0 or nc == 0:
        return np.zeros((nr, nc), dtype=np.int8)
    R, C = _as_int_matrix(rows), _as_int_matrix(cols)
    return filtered_signs(R, C, scaled_floats(R), scaled_floats(C))


#: Largest binary exponent a scaled float row may reach: products stay below 2^1000.
_MAX_EXP = 500

def scaled_floats(M: np.ndarray) -> np.ndarray:
    """Each integer row of ``M`` times a power of two ``2^-s`` (``s >= 0``), rounded to float64.

    The factor brings every entry below ``2^500``.  A positive factor changes no sign
    of a dot product with the row, so these floats serve a sign filter at any
    magnitude (:func:`filtered_signs`): nothing overflows, and entries far below a
    row's largest one may underflow, which the filter's absolute error term covers.

    Parameters
    ----------
    M : numpy.ndarray of int64 or object, shape (r, n)
        Integer rows.

    Returns
    -------
    numpy.ndarray of float64, shape (r, n)
        The scaled rows (unscaled when every entry already fits).

    Examples
    --------
    >>> F = scaled_floats(np.array([[2 ** 600, 2 ** 599, 1]], dtype=object))
    >>> bool(F[0, 0] == 2.0 ** 499), bool(F[0, 1] == 2.0 ** 498)     # the row times 2^-101
    (True, True)
    """
    if M.dtype != object:
        return M.astype(float)
    try:
        F = M.astype(float)
        if np.all(np.abs(F) < 2.0**_MAX_EXP):
            return F
    except OverflowError:
        pass
    out = np.empty(M.shape, dtype=float)
    for i, row in enumerate(M.tolist()):
        shift = max(0, max(abs(v).bit_length() for v in row) - _MAX_EXP)
        out[i] = [_quotient(v, 1 << shift) for v in row]
    return out


def row_products(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """``A @ B.T`` for float rows of a few columns, by matrix products in tiles that BLAS runs on one thread.

    Any summation order is covered by the error bounds used here (with or without fused
    multiply-adds), so the products may come from BLAS; each tile of ``A`` rows times
    ``B`` rows times columns stays below ``_BLAS_SERIAL`` multiply-adds, under which
    OpenBLAS does not start threads (which cost far more than the work on such thin
    products, and spin on a loaded machine).  Rows wider than 16 use ``A @ B.T``.

    Parameters
    ----------
    A : numpy.ndarray of float, shape (r, n)
    B : numpy.ndarray of float, shape (c, n)

    Returns
    -------
    numpy.ndarray of float, shape (r, c)
        The float products (rounded: only for filters with an error bound).

    Examples
    --------
    >>> row_products(np.array([[1., 2.]]), np.array([[3., 4.], [1., -1.]])).tolist()
    [[11.0, -1.0]]
    """
    n = A.shape[1]
    if n > 16:
        return A @ B.T
    out = np.empty((len(A), len(B)))
    if not out.size:
        return out
    wide = min(len(B), _TILE_COLUMNS)
    tall = max(1, _BLAS_SERIAL // (wide * max(n, 1)))
    BT = B.T
    for lo in range(0, len(A), tall):
        for j in range(0, len(B), wide):
            np.matmul(A[lo:lo + tall], BT[:, j:j + wide], out=out[lo:lo + tall, j:j + wide])
    return out


#: :func:`row_products`: multiply-adds per BLAS call (OpenBLAS runs a product of at most
#: 2^16 * 4 of them on the calling thread), and the columns of one tile.
_BLAS_SERIAL = 1 << 18
_TILE_COLUMNS = 1024


def filtered_signs(R: np.ndarray, C: np.ndarray, Rf: np.ndarray, Cf: np.ndarray) -> np.ndarray:
    """Exact signs of ``R @ C.T`` for integer matrices, given their scaled floats.

    The float product is computed with the bound ``|err| <= gamma_{m+3} sum |r_i c_i|
    + eta`` (the ``m + 3`` covers rounding the integers to floats and the products;
    ``eta = (m + 1) 2^-570`` covers underflow of entries and products, all below
    ``2^500``); where ``|value|`` exceeds it the float sign is the exact one, and when
    nothing was scaled and the whole sum of magnitudes is below ``2^53`` the float
    value is the exact integer (zeros included).  The undecided entries are computed
    in int64 when ``sum |r_i c_i| < 2^62`` proves it exact, else with Python integers
    (counted as ``filter_failures``).  Blocks of rows bound the memory.

    Parameters
    ----------
    R : numpy.ndarray of int64 or object, shape (r, m)
    C : numpy.ndarray of int64 or object, shape (c, m)
        Integer matrices.
    Rf, Cf : numpy.ndarray of float64
        ``scaled_floats(R)`` and ``scaled_floats(C)``.

    Returns
    -------
    numpy.ndarray of int8, shape (r, c)
        The exact signs.

    Examples
    --------
    >>> R, C = np.array([[1, -1], [2, 2]]), np.array([[3, 3], [1, -1]])
    >>> filtered_signs(R, C, scaled_floats(R), scaled_floats(C)).tolist()
    [[0, 1], [1, 0]]
    """
    nr, nc = R.shape[0], C.shape[0]
    out = np.zeros((nr, nc), dtype=np.int8)
    if nr == 0 or nc == 0:
        return out
    m = R.shape[1]
    gamma = (m + 3) * _U / (1 - (m + 3) * _U)
    eta = (m + 1) * 2.0**-570
    plain = R.dtype != object and C.dtype != object  # int64: Rf, Cf are the rounded values themselves
    step = max(1, config.predicate_cache_entries // nc)  # small blocks stay in cache (and memory stays bounded)
    Ca = np.abs(Cf)
    failures = 0
    for lo in range(0, nr, step):
        hi = min(nr, lo + step)
        val = row_products(Rf[lo:hi], Cf)
        mag = row_products(np.abs(Rf[lo:hi]), Ca)
        mag *= 1 + 4 * _U
        if plain:
            exact_float = mag < _FLOAT_EXACT
        bound = np.multiply(mag, gamma)
        bound += eta
        sure = np.abs(val) > bound
        if plain:
            sure |= exact_float
        block = out[lo:hi]
        np.sign(val, out=val)
        block[...] = val
        block[~sure] = 0
        i, k = np.nonzero(~sure)
        if not len(i):
            continue
        if plain:
            small = mag[i, k] < 2.0**62
            if np.any(small):
                v = np.einsum("ij,ij->i", R[lo + i[small]], C[k[small]])
                out[lo + i[small], k[small]] = np.sign(v)
            i, k = i[~small], k[~small]
        if len(i):
            failures += len(i)
            v = (R[lo + i].astype(object) * C[k].astype(object)).sum(axis=1)
            out[lo + i, k] = sign_array(v)
    record("filter_failures", failures)
    return out


def dense_signs(R: np.ndarray, C: np.ndarray, Rf: np.ndarray, Cf: np.ndarray, known_zeros=None,
                row_norms=None) -> np.ndarray:
    """:func:`filtered_signs` for wide blocks: the float products by matrix multiplication.

    The float products ``fl(R C^T)`` may come from BLAS: the bound of :func:`filtered_signs`,
    ``gamma_{m+3} (1 + 4u) mu_ik + eta`` with ``mu_ik`` the computed ``sum_j |fl r_ij|
    |fl c_kj|``, holds for any order of summation, with or without fused multiply-adds.
    Instead of a second product for ``mu`` entry by entry, one bound per row covers
    every column: with ``M_j = max_k |fl c_kj|`` and ``s_i`` the computed
    ``sum_j |fl r_ij| M_j`` (any order), ``mu_ik <= (1 + gamma_m) / (1 - gamma_m) s_i``, so
    ``B_i = gamma_{m+3} (1 + 4 (m + 6) u) s_i + 2 eta`` -- the factor also covers the
    roundings in computing ``B_i`` -- bounds the error of every entry of row ``i``.
    Where ``|fl(R C^T)| > B_i`` the float sign is exact; the rest (exact zeros and
    near-zeros, few) go to the per-entry filter of :func:`paired_signs`, then int64 or
    Python integers (counted as ``filter_failures``).  Entries the caller knows to be
    exactly zero by construction (``known_zeros``) are set to zero without that work.
    Blocks of rows small enough to stay in cache bound the memory.

    With ``row_norms`` (per row the computed ``n_i = sum_{j < m-1} |fl r_ij|`` and
    ``|fl r_i,m-1|``, made once by a caller that tests the same rows many times,
    :class:`tropattn.exact.PreparedRows`), ``s_i`` is replaced by the computed
    ``n_i max_{j < m-1} M_j + |fl r_i,m-1| M_{m-1}``: at least
    ``(1 - gamma_{m+2}) sum_j |fl r_ij| M_j``, which the factor ``1 + 4 (m + 8) u`` covers.
    The last column has its own term because homogeneous points ``(X, D)`` often have a
    ``D`` of another size than ``X``.  The bound is looser, and the product ``|fl R| M``
    (a second pass over the rows) is gone; what it no longer decides goes to the
    per-entry filter.

    Parameters
    ----------
    R : numpy.ndarray of int64 or object, shape (r, m)
    C : numpy.ndarray of int64 or object, shape (c, m)
        Integer matrices.
    Rf, Cf : numpy.ndarray of float64
        ``scaled_floats(R)`` and ``scaled_floats(C)``.
    known_zeros : tuple of two numpy.ndarray of int, optional
        Row and column indices ``(i, k)`` with ``R[i] . C[k] = 0`` exactly, an identity the
        caller guarantees (e.g. a row built to vanish at that point); not checked.
    row_norms : numpy.ndarray of float64, shape (r, 2), optional
        ``_row_norms(Rf)``: the sums of ``|Rf|`` but the last column, and that column's ``|Rf|``.

    Returns
    -------
    numpy.ndarray of int8, shape (r, c)
        The exact signs of ``R @ C.T``.

    Examples
    --------
    >>> R = np.array([[1, -1], [2, 2], [3 ** 40, -(3 ** 40) + 1]], dtype=object)
    >>> C = np.array([[3, 3], [1, -1], [1, 1]])
    >>> dense_signs(R, C, scaled_floats(R), scaled_floats(C)).tolist()
    [[0, 1, 0], [1, 0, 1], [1, 1, 1]]
    >>> dense_signs(R, C, scaled_floats(R), scaled_floats(C), (np.array([0]), np.array([0])))[0].tolist()
    [0, 1, 0]
    """
    nr, nc = R.shape[0], C.shape[0]
    out = np.zeros((nr, nc), dtype=np.int8)
    if nr == 0 or nc == 0:
        return out
    m = R.shape[1]
    gamma = (m + 3) * _U / (1 - (m + 3) * _U)
    eta = (m + 1) * 2.0**-570
    if row_norms is None:
        bound = np.abs(Rf) @ np.abs(Cf).max(axis=0)
        bound *= gamma * (1 + 4 * (m + 6) * _U)
    else:
        M = np.abs(Cf).max(axis=0)
        bound = row_norms @ np.array([M[:-1].max(initial=0.0), M[-1]])
        bound *= gamma * (1 + 4 * (m + 8) * _U)
    bound += 2 * eta  # B_i: the error bound of row i
    bound, low = bound[:, None], -bound[:, None]
    step = max(1, 2 * config.predicate_cache_entries // nc)  # blocks that stay in cache: the passes are memory-bound
    chunk = step * max(1, config.predicate_block_entries // 8 // (step * nc))  # rows whose undecided entries go together
    CfT = np.ascontiguousarray(Cf.T)
    failures = 0
    for top in range(0, nr, chunk):
        for lo in range(top, min(nr, top + chunk), step):
            hi = min(nr, lo + step)
            val = Rf[lo:hi] @ CfT
            np.subtract(np.greater(val, bound[lo:hi]).view(np.int8), np.less(val, low[lo:hi]).view(np.int8),
                        out=out[lo:hi])
        block = out[top:top + chunk]
        if known_zeros is not None:
            zi, zk = known_zeros
            here = (zi >= top) & (zi < top + chunk)
            zi, zk = zi[here] - top, zk[here]
            block[zi, zk] = 2  # not undecided
        unsure = np.flatnonzero(block == 0)
        if known_zeros is not None:
            block[zi, zk] = 0
        if len(unsure):
            i, k = np.divmod(unsure, nc)
            block[i, k], missed = _pair_signs(R, Rf, C, Cf, top + i, k)
            failures += missed
    record("filter_failures", failures)
    return out


def paired_signs(H: np.ndarray, pts: "PreparedPoints", rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Exact signs of ``H[rows[t]] . P[cols[t]]`` for pairs ``t`` (integer rows ``H``).

    The filter of :func:`filtered_signs` on the pairs only (no matrix), in blocks.

    Parameters
    ----------
    H : numpy.ndarray of int64 or object, shape (F, n)
        Integer rows.
    pts : PreparedPoints
        Homogeneous points ``P``, shape (m, n).
    rows : numpy.ndarray of int, shape (t,)
        Row index of each pair.
    cols : numpy.ndarray of int, shape (t,)
        Point index of each pair.

    Returns
    -------
    numpy.ndarray of int8, shape (t,)
        The exact signs.

    Examples
    --------
    The row ``x - 2 <= 0`` at the points 1 and 3:

    >>> pts = PreparedPoints.of([(1, 1), (3, 1)])
    >>> paired_signs(np.array([[1, -2]]), pts, np.array([0, 0]), np.array([0, 1])).tolist()
    [-1, 1]
    """
    H = as_small_ints(H)
    return prepared_paired_signs(H, scaled_floats(H), pts, rows, cols)


def prepared_paired_signs(H: np.ndarray, Hf: np.ndarray, pts: "PreparedPoints", rows: np.ndarray,
                          cols: np.ndarray) -> np.ndarray:
    """:func:`paired_signs` given the rows' scaled floats (for callers that test the same
    rows many times: no conversion per call).

    Parameters
    ----------
    H : numpy.ndarray of int64 or object, shape (F, n)
        Integer rows (int64 whenever they fit, as :func:`as_small_ints` makes them).
    Hf : numpy.ndarray of float64, shape (F, n)
        ``scaled_floats(H)``.
    pts : PreparedPoints
        Homogeneous points ``P``, shape (m, n).
    rows, cols : numpy.ndarray of int, shape (t,)
        Row and point index of each pair.

    Returns
    -------
    numpy.ndarray of int8, shape (t,)
        The exact signs of ``H[rows[t]] . P[cols[t]]``.

    Examples
    --------
    >>> pts = PreparedPoints.of([(1, 1), (3, 1)])
    >>> H = np.array([[1, -2]])
    >>> prepared_paired_signs(H, scaled_floats(H), pts, np.array([0, 0]), np.array([0, 1])).tolist()
    [-1, 1]
    """
    P = pts.Pa if pts.P64 is None else pts.P64
    out, failures = _pair_signs(H, Hf, P, pts.F, rows, cols)
    record("filter_failures", failures)
    return out


def _pair_signs(H: np.ndarray, Hf: np.ndarray, P: np.ndarray, Pf: np.ndarray, rows: np.ndarray, cols: np.ndarray):
    """Exact signs of ``H[rows[t]] . P[cols[t]]`` and how many needed Python integers.

    The per-pair filter of :func:`prepared_paired_signs` (``Hf``, ``Pf``: the scaled floats
    of the integer rows ``H`` and ``P``), in blocks; the caller records the count.
    """
    out = np.zeros(len(rows), dtype=np.int8)
    if not len(rows):
        return out, 0
    m = H.shape[1]
    gamma = (m + 3) * _U / (1 - (m + 3) * _U)
    eta = (m + 1) * 2.0**-570
    plain = H.dtype != object and P.dtype != object
    failures = 0
    step = max(1, config.predicate_cache_entries // m)  # a knob below the row width still makes progress
    for lo in range(0, len(rows), step):
        r, c = rows[lo:lo + step], cols[lo:lo + step]
        a, b = Hf[r], Pf[c]
        val = np.einsum("ij,ij->i", a, b)
        mag = np.einsum("ij,ij->i", np.abs(a), np.abs(b))
        sure = np.abs(val) > gamma * mag * (1 + 4 * _U) + eta
        if plain:
            sure |= mag * (1 + 4 * _U) < _FLOAT_EXACT
        block = np.where(sure, np.sign(val), 0).astype(np.int8)
        t = np.flatnonzero(~sure)
        if plain and len(t):
            small = mag[t] * (1 + 4 * _U) < 2.0**62
            ts = t[small]
            block[ts] = np.sign(np.einsum("ij,ij->i", H[r[ts]], P[c[ts]]))
            t = t[~small]
        if len(t):
            failures += len(t)
            block[t] = sign_array((H[r[t]].astype(object) * P[c[t]].astype(object)).sum(axis=1))
        out[lo:lo + len(r)] = block
    return out, failures


def _as_int_matrix(rows) -> np.ndarray:
    """An integer matrix as int64 when every entry fits, else as an object array of ints."""
    if isinstance(rows, np.ndarray) and rows.dtype.kind in "iu":
        return rows.astype(np.int64, copy=False)
    A = np.array(rows, dtype=object)
    if A.ndim != 2:
        raise InvalidInputError(f"dot_signs needs a 2-D integer array; got shape {A.shape}")
    try:
        return A.astype(np.int64)
    except OverflowError:
        return A

INT64_SAFE = 1 << 62


def as_small_ints(H: np.ndarray) -> np.ndarray:
    """An object array of ints as int64 when every entry is below 2^62 in absolute value.

    Parameters
    ----------
    H : numpy.ndarray
        Any array; only nonempty object arrays are converted.

    Returns
    -------
    numpy.ndarray
        ``H`` as int64, or ``H`` itself.

    Examples
    --------
    >>> as_small_ints(np.array([1, -2], dtype=object)).dtype, as_small_ints(np.array([2 ** 63], dtype=object)).dtype
    (dtype('int64'), dtype('O'))
    """
    if H.dtype != object or not H.size:
        return H
    try:  # one C pass, which stops at the first entry beyond int64
        A = H.astype(np.int64)
    except OverflowError:
        return H
    return A if max(int(A.max()), -int(A.min())) < INT64_SAFE else H


def matrix_signs(H: np.ndarray, pts: "PreparedPoints") -> np.ndarray:
    """Exact sign matrix of ``H @ P.T``.

    With ``bound = max|P| * m`` (m columns), every partial sum of a row of ``H`` against
    a point is at most ``max|H| * bound`` in absolute value.  Below ``2^53`` a float
    matrix product is exact (every product and partial sum is an integer that floats
    represent, in any summation order); below ``2^62`` an int64 product is.  Otherwise
    the float filter of :func:`filtered_signs` decides (rows of any size, scaled by
    powers of two), and only its undecided entries are computed in integers.

    Parameters
    ----------
    H : numpy.ndarray of int64 or object, shape (F, n)
        Integer rows (e.g. facet rows ``(a, -b)`` of ``a.x <= b``).
    pts : PreparedPoints
        Homogeneous points ``P``, shape (m, n).

    Returns
    -------
    numpy.ndarray of int8, shape (F, m)
        ``sign(H[f] . P[i])``.

    Examples
    --------
    >>> pts = PreparedPoints.of([(1, 1), (3, 1), (10**400, 1)])
    >>> matrix_signs(np.array([[1, -2], [-1, 10**401]], dtype=object), pts).tolist()
    [[-1, 1, 1], [1, 1, 1]]
    """
    H = as_small_ints(H)
    if H.size == 0:
        return np.zeros((H.shape[0], len(pts.P)), dtype=np.int8)
    if pts.P64 is None:
        return filtered_signs(H, pts.Pa, scaled_floats(H), pts.F)
    bound = pts.max_abs * H.shape[1]
    if H.dtype != object:
        top = max(int(H.max()), -int(H.min()), 0) * bound
        if top < _FLOAT_EXACT:
            return np.sign(row_products(H.astype(float), pts.F)).astype(np.int8)
        if top < INT64_SAFE:
            return np.sign(H @ pts.P64.T).astype(np.int8)
    return filtered_signs(H, pts.P64, scaled_floats(H), pts.F)

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


def sign_array(x: np.ndarray) -> np.ndarray:
    """Signs of an int64 or object array, as int64.

    Parameters
    ----------
    x : numpy.ndarray of int64 or object
        Integers of any size.

    Returns
    -------
    numpy.ndarray of int64, same shape
        -1, 0 or 1 per entry.

    Examples
    --------
    >>> sign_array(np.array([-3, 0, 2 ** 70], dtype=object)).tolist()
    [-1, 0, 1]
    """
    return (x > 0).astype(np.int64) - (x < 0).astype(np.int64)


def negative_columns(Hf: np.ndarray, Pf: np.ndarray, norms: np.ndarray | None = None, slack: float = 0.0,
                     single: bool = False) -> np.ndarray:
    """Which columns are proved strictly negative against every row: ``H[i] . P[j] < 0`` for all ``i``.

    A one-sided float filter (True is a proof, False only "not proved").  ``Hf`` and
    ``Pf`` are rounded positive multiples of the integer rows (``scaled_floats``).  Each
    row is divided by its float L1 norm and each point by its largest float entry (positive
    factors: no sign changes), and ``v_j = max_i fl(a_i . b_j)`` comes from one matrix
    product per block of points.  With ``alpha``, ``beta`` the exact positive multiples of
    the rows that ``a``, ``b`` approximate (``|alpha|_1`` and ``|beta|_inf`` within
    ``1 + 2^-40`` of 1), every entry of ``a`` and ``b`` is within a relative ``2u`` of
    theirs (``u = 2^-53``: the rounding to float and the division) and the product adds
    at most ``gamma_m`` (any summation order, fused or not), so
    ``|fl(a . b) - alpha . beta| <= (m + 4) u (1 + 2^-40)`` plus ``2^-1000`` for
    underflow; columns with ``v_j < -2 (m + 4) u - 2^-1000`` are proved.

    Rows known only approximately (``Hf`` within ``slack`` times ``norms`` of positive
    multiples of the true rows, in the sense ``|Hf_i . x - h_i . x| <= slack norms_i |x|_inf``
    for every ``x``, with ``norms_i >= |Hf_i|_1``) are divided by ``norms`` instead, and the
    threshold is raised by ``slack``: :class:`~tropattn.exact._hull._planes.SimplexPlanes`.
    ``single``: the normalised rows and points are rounded once more, to float32, and
    multiplied there (:func:`_largest_products32`); the same analysis holds with
    ``u = 2^-24`` (each factor within ``2u`` of its exact multiple, ``gamma_m`` for the
    product) and ``2^-120`` for underflow.

    Parameters
    ----------
    Hf : numpy.ndarray of float64, shape (F, m)
        ``scaled_floats(H)`` of integer rows ``H``.
    Pf : numpy.ndarray of float64, shape (n, m)
        ``scaled_floats(P)`` of integer points ``P`` (e.g. ``PreparedPoints.F``).
    norms : numpy.ndarray of float64, shape (F,), optional
        The rows' scales (default: their float L1 norms).
    slack : float, optional
        The rows' own relative error (default 0: ``Hf`` is exact up to its rounding).
    single : bool, optional
        Multiply in float32 (default: float64).

    Returns
    -------
    numpy.ndarray of bool, shape (n,)
        True where every product is proved negative.

    Examples
    --------
    The square ``0 <= x, y <= 1`` (rows over ``(x, y, 1)``): its centre is proved inside,
    a corner (a zero) and an outside point are not:

    >>> H = np.array([[-1., 0., 0.], [0., -1., 0.], [1., 0., -1.], [0., 1., -1.]])
    >>> negative_columns(H, np.array([[1., 1., 2.], [0., 0., 1.], [3., 0., 1.]])).tolist()
    [True, False, False]
    """
    out = np.zeros(len(Pf), dtype=bool)
    L = np.abs(Hf).sum(axis=1) if norms is None else norms
    s = np.abs(Pf).max(axis=1, initial=0.0)
    if not len(Hf) or not len(Pf) or not np.all((L > 0) & np.isfinite(L)):
        return out
    m = Hf.shape[1]
    A = np.ascontiguousarray(Hf / L[:, None])
    live = np.flatnonzero(s > 0)
    B = Pf[live] / s[live, None]
    if single:
        bound = 2 * (m + 4) * 2.0**-24 + slack + 2.0**-120
        out[live] = _largest_products32(B.astype(np.float32), A.astype(np.float32)) < -bound
        return out
    bound = 2 * (m + 4) * _U + slack + 2.0**-1000
    step = max(32, 2 * config.predicate_cache_entries // len(Hf))  # in cache, but never a thin product
    for lo in range(0, len(B), step):         # row_products: no BLAS threads on these thin products
        out[live[lo:lo + step]] = row_products(B[lo:lo + step], A).max(axis=1) < -bound
    return out


def _largest_products32(B: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``max(B @ A.T, axis=1)`` in float32, by BLAS products of at most ``_BLAS_SERIAL``
    multiply-adds (one thread), blocks of rows of ``A`` folded into a running maximum.

    >>> _largest_products32(np.array([[1., 0.]], dtype=np.float32), np.array([[2., 1.], [3., 0.]], dtype=np.float32)).tolist()
    [3.0]
    """
    out = np.full(len(B), -np.inf, dtype=np.float32)
    if not len(A):
        return out
    m = A.shape[1]
    rows = max(1, min(len(A), _BLAS_SERIAL // (32 * max(m, 1))))
    step = max(1, _BLAS_SERIAL // (rows * max(m, 1)))
    for a in range(0, len(A), rows):
        AT = np.ascontiguousarray(A[a:a + rows].T)
        for lo in range(0, len(B), step):
            np.maximum(out[lo:lo + step], (B[lo:lo + step] @ AT).max(axis=1), out=out[lo:lo + step])
    return out


def determinant_signs(M: np.ndarray, int64_exact: bool) -> np.ndarray:
    """Exact signs of the determinants of a stack of k x k integer matrices.

    When ``int64_exact`` (the caller's bound proves int64 arithmetic exact) the
    determinants are computed in int64.  Otherwise a float filter comes first: the
    Laplace expansion in floats makes at most ``n = k^2 + 2k`` roundings along each of
    its monomials (rounding the entries included), so
    ``|fl(det) - det| <= gamma_n perm|M|``, and the same expansion of ``|M|``
    (:func:`maximal_minors` with ``absolute=True``) computes the permanent to within
    the factor ``1 + gamma_n``.  Entries with ``|fl(det)| > 2 gamma_n fl(perm)`` take
    the float sign; the rest (zeros among them) are computed with Python integers.

    Parameters
    ----------
    M : numpy.ndarray of int64 or object, shape (F, k, k)
        The matrices, ``k >= 2``.
    int64_exact : bool
        True only when int64 determinants are proved not to overflow.

    Returns
    -------
    numpy.ndarray of int64, shape (F,)
        ``sign(det(M[f]))``.

    Examples
    --------
    >>> M = np.array([[[1, 2], [3, 4]], [[1, 2], [2, 4]]], dtype=object) * 10 ** 20
    >>> determinant_signs(M, False).tolist()          # -2e40 and an exact zero
    [-1, 0]
    """
    if int64_exact:
        return sign_array(determinants(M))
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
            det, perm = determinants(Mf), determinants(np.abs(Mf), absolute=True)
            sure = np.isfinite(perm) & (np.abs(det) > 2 * gamma * perm)
        out[sure] = np.sign(det[sure]).astype(np.int64)
        unsure = ~sure
    if np.any(unsure):
        out[unsure] = sign_array(determinants(M[unsure].astype(object)))
    return out


def small_determinant_signs(M: np.ndarray) -> np.ndarray:
    """Exact signs of the determinants of a stack of 2 x 2, 3 x 3 or 4 x 4 integer matrices, fast.

    A float filter like that of :func:`determinant_signs`, with the expansion written out on
    whole columns of the stack (for 4 x 4: the 2 x 2 minors of rows 0, 1 against those of rows
    2, 3).  Each monomial of the determinant passes through at most ``n = k^2 + 2k`` roundings
    (its ``k`` entries, the products, the subtraction in a minor and the final sum), so
    ``|fl(det) - det| <= gamma_n perm|M|``, and ``perm|M| <= prod_i sum_j |m_ij|`` (the
    product of the row sums contains every monomial of the permanent); that product, computed
    in floats, is within a factor 2 of its value.  Entries with
    ``|fl(det)| > 2 gamma_n fl(prod)`` take the float sign; the rest (exact zeros among them)
    are computed with Python integers (counted as ``filter_failures``).  Other sizes, and entries
    beyond the float range, go to :func:`determinant_signs`.

    Parameters
    ----------
    M : numpy.ndarray of int64 or object, shape (F, k, k)
        The integer matrices.

    Returns
    -------
    numpy.ndarray of int64, shape (F,)
        ``sign(det(M[f]))``.

    Examples
    --------
    >>> M = np.array([[[1, 2], [3, 4]], [[1, 2], [2, 4]]], dtype=object) * 10 ** 20
    >>> small_determinant_signs(M).tolist()          # -2e40 and an exact zero
    [-1, 0]
    >>> small_determinant_signs(np.array([np.eye(4, dtype=np.int64)[[1, 0, 2, 3]]])).tolist()   # a swap
    [-1]
    """
    k = M.shape[1] if M.ndim == 3 else 0
    if not 2 <= k <= 4 or not len(M):
        return determinant_signs(M, False)
    try:
        T = np.ascontiguousarray(M.astype(float).transpose(1, 2, 0))   # whole columns of the stack
    except OverflowError:
        return determinant_signs(M, False)
    n = k * k + 2 * k
    gamma = n * _U / (1 - n * _U)
    with np.errstate(over="ignore", invalid="ignore"):
        det = _expansion([[T[i, j] for j in range(k)] for i in range(k)])
        bound = np.abs(T).sum(axis=1).prod(axis=0)
        sure = np.isfinite(bound) & (np.abs(det) > 2 * gamma * bound)
    out = np.zeros(len(M), dtype=np.int64)
    out[sure] = np.sign(det[sure]).astype(np.int64)
    unsure = np.flatnonzero(~sure)
    if len(unsure):
        record("filter_failures", len(unsure), where="small_determinant_signs")
        out[unsure] = sign_array(determinants(M[unsure].astype(object)))
    return out


def _expansion(e) -> np.ndarray:
    """The determinant of 2 x 2 to 4 x 4 float matrices given as ``e[i][j]`` (arrays over the stack)."""
    k = len(e)

    def minor(r, s, i, j):
        return e[r][i] * e[s][j] - e[r][j] * e[s][i]

    if k == 2:
        return minor(0, 1, 0, 1)
    if k == 3:
        return e[0][0] * minor(1, 2, 1, 2) - e[0][1] * minor(1, 2, 0, 2) + e[0][2] * minor(1, 2, 0, 1)
    m = {p: minor(0, 1, *p) for p in ((0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3))}
    q = {p: minor(2, 3, *p) for p in m}
    pos = m[0, 1] * q[2, 3] + m[0, 3] * q[1, 2] + m[1, 2] * q[0, 3] + m[2, 3] * q[0, 1]
    return pos - m[0, 2] * q[1, 3] - m[1, 3] * q[0, 2]


@dataclass(frozen=True)
class PreparedPoints:
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
        """From a list of integer rows, or an int64 array of them.

        Parameters
        ----------
        P : sequence of tuple of int, or numpy.ndarray of int64, shape (m, n + 1)
            Homogeneous points ``(num, den)``, ``den > 0``; at least one.

        Returns
        -------
        PreparedPoints
            The points with their int64 copy ``P64`` (None when an entry reaches 2^62 in
            absolute value), ``max_abs`` and the largest row L1 norm ``l1``.

        Examples
        --------
        >>> p = PreparedPoints.of([(1, 2, 2), (3, 0, 1)])          # the points (1/2, 1) and (3, 0)
        >>> p.max_abs, p.l1, p.X.tolist()
        (3, 5, [[0.5, 1.0], [3.0, 0.0]])
        >>> PreparedPoints.of([(10 ** 30, 1)]).P64 is None
        True
        """
        if isinstance(P, np.ndarray) and P.dtype == np.int64:
            A = np.abs(P)
            if len(P) and int(A.max()) * P.shape[1] < INT64_SAFE:
                return cls(list(map(tuple, P.tolist())), P.astype(object), P, int(A.max()), int(A.sum(axis=1).max()))
            P = list(map(tuple, P.tolist()))
        Pa = np.array(P, dtype=object)
        try:
            P64 = Pa.astype(np.int64)
        except OverflowError:
            P64 = None
        if P64 is not None and int(P64.max()) < INT64_SAFE and int(P64.min()) > -INT64_SAFE:
            A = np.abs(P64)
            max_abs = int(A.max())
            if max_abs * P64.shape[1] < INT64_SAFE:
                return cls(P, Pa, P64, max_abs, int(A.sum(axis=1).max()))
            return cls(P, Pa, P64, max_abs, max(sum(map(abs, r)) for r in P))
        max_abs = max(map(abs, itertools.chain.from_iterable(P)))  # one C-level pass over the entries
        return cls(P, Pa, None, max_abs, max(sum(map(abs, r)) for r in P))

    @functools.cached_property
    def F(self) -> np.ndarray:
        """The rows as floats (exact when ``max_abs < 2^53``; callers check bounds); rows
        beyond the float range are scaled by powers of two (:func:`scaled_floats`)."""
        return scaled_floats(self.Pa if self.P64 is None else self.P64)

    @functools.cached_property
    def X(self) -> np.ndarray:
        """The points as float coordinates (correctly rounded quotients)."""
        if self.P64 is not None and self.max_abs < 1 << 53:
            return self.P64[:, :-1] / self.P64[:, -1:]
        try:
            return (self.Pa[:, :-1] / self.Pa[:, -1:]).astype(float)
        except OverflowError:  # a quotient beyond the float range: +-inf, still monotone
            return np.array([[_quotient(v, r[-1]) for v in r[:-1]] for r in self.P], dtype=float)

    @functools.cached_property
    def X_scaled(self) -> np.ndarray:
        """The points times one common power of two ``2^-e`` that brings the largest
        coordinate near 1: finite floats for Qhull even beyond the float range (a
        similarity, so only the rounding of tiny coordinates changes the picture;
        every answer is certified on the exact points)."""
        X = self.X
        if np.all(np.isfinite(X)) and np.abs(X).max(initial=0.0) < 2.0**900:
            return X
        e = max(_log2_ceil(abs(v), r[-1]) for r in self.P for v in r[:-1] if v)
        return np.array([[_quotient(v, r[-1] << e) if e >= 0 else _quotient(v << -e, r[-1]) for v in r[:-1]]
                         for r in self.P], dtype=float)


def _quotient(n: int, d: int) -> float:
    """``n / d`` correctly rounded, overflowing to a signed infinity (``d > 0``)."""
    try:
        return n / d
    except OverflowError:
        return float("inf") if n > 0 else float("-inf")


def _log2_ceil(n: int, d: int) -> int:
    """An integer ``e`` with ``n / d <= 2^e`` and ``n / d > 2^(e - 2)`` (``n, d > 0``)."""
    return n.bit_length() - d.bit_length() + 1


def lex_order(rows) -> list:
    """Indices sorting homogeneous points lexicographically (float sort, checked exactly).

    Rounding to float is monotone, so a strict float inequality in the first
    coordinate certifies the exact order of two neighbours; only neighbours whose
    first coordinates round equal are compared exactly.

    Parameters
    ----------
    rows : sequence of tuple of int, shape (m, n + 1)
        Homogeneous points with positive denominators.

    Returns
    -------
    list of int
        A permutation sorting the points by their coordinates, lexicographically.

    Examples
    --------
    The points (1, 0), (0, 5) and (1/2, 0):

    >>> lex_order([(1, 0, 1), (0, 5, 1), (1, 0, 2)])
    [1, 2, 0]
    """
    if len(rows) < 2:
        return list(range(len(rows)))
    X = PreparedPoints.of(rows).X
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
