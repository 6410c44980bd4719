"""Exact linear algebra over Q: elimination, rank, nullspace, solve, minors and determinants.

One elimination (:func:`solve`, fraction-free on integer rows; :func:`nullspace` and
:func:`rank` through the reduced row echelon form) and one vectorised expansion of
minors (:func:`maximal_minors`, :func:`determinants`) serve every caller.

>>> solve([[2, 0], [0, 4]], [1, 1])
(Fraction(1, 2), Fraction(1, 4))
>>> int(determinants(np.array([[[1, 2], [3, 4]]], dtype=object))[0])
-2
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction
from typing import Sequence

import numpy as np

from ..errors import InternalError, InvalidInputError
from ._numbers import scaled_ints, to_rational


__all__ = ["rank", "nullspace", "solve", "maximal_minors", "modular_minors", "wrapped_minors", "wrapped_dots", "determinants",
           "integer_determinant"]


def _rref(rows: Sequence[Sequence[Fraction]]):
    """Reduced row echelon form over Q; returns (rows, pivot columns)."""
    m = [list(map(Fraction, r)) for r in rows]
    pivots = []
    if not m:
        return m, pivots
    ncols = len(m[0])
    r = 0
    for c in range(ncols):
        piv = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[r], m[piv] = m[piv], m[r]
        inv = 1 / m[r][c]
        m[r] = [v * inv for v in m[r]]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[r])]
        pivots.append(c)
        r += 1
        if r == len(m):
            break
    return m[:r], pivots


def rank(rows: Sequence[Sequence]) -> int:
    """Exact rank of a rational matrix.

    Parameters
    ----------
    rows : sequence of sequence of number, shape (m, n)
        The matrix, row by row (entries as :func:`~tropattn.exact.to_rational` accepts).

    Returns
    -------
    int
        The rank over Q (0 for an empty matrix).

    Raises
    ------
    InvalidInputError
        When an entry is not a finite number.

    Examples
    --------
    >>> rank([[1, 2, 3], [2, 4, 6], [0, 1, 1]])
    2
    """
    return len(_rref([[to_rational(v) for v in r] for r in rows])[1]) if rows else 0


def nullspace(rows: Sequence[Sequence], ncols: int | None = None) -> list[tuple[Fraction, ...]]:
    """A basis of ``{x : M x = 0}`` over Q (one tuple per basis vector).

    The basis is read off the reduced row echelon form: one vector per free column,
    with a 1 in that column.

    Parameters
    ----------
    rows : sequence of sequence of Fraction or int, shape (m, n)
        The matrix ``M``.
    ncols : int or None, optional
        The number of columns ``n``; needed only when ``rows`` is empty (then the
        basis is the standard basis of Q^n).

    Returns
    -------
    list of tuple of Fraction
        ``n - rank(M)`` vectors of length ``n`` spanning the kernel.

    Examples
    --------
    >>> nullspace([[1, 1, 0]])
    [(Fraction(-1, 1), Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(0, 1), Fraction(1, 1))]
    >>> nullspace([], ncols=2)
    [(Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1))]
    """
    if not rows:
        return [tuple(Fraction(int(i == j)) for j in range(ncols)) for i in range(ncols)]
    red, piv = _rref([[to_rational(v) for v in r] for r in rows])
    n = len(rows[0])
    free = [c for c in range(n) if c not in piv]
    basis = []
    for f in free:
        v = [Fraction(0)] * n
        v[f] = Fraction(1)
        for r, p in enumerate(piv):
            v[p] = -red[r][f]
        basis.append(tuple(v))
    return basis


def solve(rows: Sequence[Sequence], rhs: Sequence) -> tuple[Fraction, ...] | None:
    """One exact solution of ``M x = rhs`` (free variables set to 0), or None if inconsistent.

    Fraction-free Gaussian elimination on integer rows (each equation scaled by the
    lcm of its denominators), so the inner loop is plain integer arithmetic.

    Parameters
    ----------
    rows : sequence of sequence of number, shape (m, n)
        The matrix ``M``.
    rhs : sequence of number, shape (m,)
        The right-hand side.

    Returns
    -------
    tuple of Fraction, shape (n,), or None
        A solution, or None when the system has none (or ``rows`` is empty).

    Raises
    ------
    InvalidInputError
        When an entry that is not an ``int`` is not a finite number.

    Examples
    --------
    >>> solve([[2, 0], [0, 4]], [1, 1])
    (Fraction(1, 2), Fraction(1, 4))
    >>> solve([[1, 1], [2, 2]], [1, 3]) is None
    True
    """
    if not rows:
        return None
    if len(rhs) != len(rows):
        raise InvalidInputError(f"solve has {len(rows)} equations but {len(rhs)} right-hand sides; give one per row")
    n = len(rows[0])
    m = [list(r) + [c] if all(type(v) is int for v in r) and type(c) is int
         else scaled_ints([to_rational(v) for v in r] + [to_rational(c)]) for r, c in zip(rows, rhs)]
    pivots, r = [], 0
    for c in range(n):
        piv = next((i for i in range(r, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[r], m[piv] = m[piv], m[r]
        p = m[r][c]
        for i in range(len(m)):
            if i != r and m[i][c] != 0:
                f = m[i][c]
                row = [p * a - f * b for a, b in zip(m[i], m[r])]
                g = 0
                for v in row:
                    g = math.gcd(g, v)
                m[i] = [v // g for v in row] if g > 1 else row
        pivots.append(c)
        r += 1
        if r == len(m):
            break
    if any(all(v == 0 for v in row[:n]) and row[n] != 0 for row in m[r:]):
        return None
    x = [Fraction(0)] * n
    for i, c in enumerate(pivots):
        x[c] = Fraction(m[i][n], m[i][c])
    return tuple(x)


def maximal_minors(S: np.ndarray, absolute: bool = False) -> np.ndarray:
    """All k x k minors of a stack of k x (k+1) integer matrices, by Laplace expansion.

    The minors of the first r rows on every r-subset of columns are built from
    those of the first r-1 rows (expansion along row r), vectorised over the stack
    and over the subsets.  Every intermediate is a partial sum of such an expansion,
    bounded by the product of the rows' L1 norms, so int64 is exact when that
    product is below 2^62 (the caller decides; object arrays of Python ints
    otherwise).  Column ``i`` of the result is the minor omitting column ``k - i``
    (the subsets of size k in lexicographic order).  ``absolute=True`` adds every term
    (the permanents: on ``|S|`` they bound the minors' terms, for a float filter).

    Parameters
    ----------
    S : numpy.ndarray of int64 or object, shape (F, k, m)
        A stack of ``F`` integer matrices; usually ``m = k + 1``.
    absolute : bool, optional
        Add every term instead of alternating signs (permanents).

    Returns
    -------
    numpy.ndarray, shape (F, C(m, k))
        The minors on the k-subsets of columns in lexicographic order (for
        ``m = k + 1``: column ``i`` omits column ``k - i``), same dtype as ``S``.

    Examples
    --------
    The 2 x 2 minors of ``[[1, 2, 3], [4, 5, 6]]`` on columns {0,1}, {0,2}, {1,2}:

    >>> maximal_minors(np.array([[[1, 2, 3], [4, 5, 6]]])).tolist()
    [[-3, -6, -3]]
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


def modular_minors(S: np.ndarray, bits: int) -> np.ndarray:
    """:func:`maximal_minors` by multi-modular arithmetic, for big entries.

    The minors of an integer stack whose minors are below ``2^bits`` in absolute
    value are computed modulo primes below ``2^29`` in int64 and reconstructed by
    the Chinese remainder theorem (exact; object ints, or int64 when they fit).
    Modulo each prime, a ``k x (k+1)`` matrix is reduced to ``k - 1`` rows by
    eliminating its last column against its first row (:func:`_eliminated_minors_mod`;
    the pivots, e.g. the denominators of homogeneous points, are few and inverted once
    per prime), in blocks of matrices that keep the temporaries in cache.

    Every residue product is below ``2^58`` and a row's expansion adds at most ``k``
    of them, so nothing overflows for ``k < 16``; enough primes are taken for their
    product to exceed ``2^(bits + 1)``, which determines a signed value below ``2^bits``.

    Parameters
    ----------
    S : numpy.ndarray of int or object, shape (F, k, m)
        A stack of integer matrices with ``k < 16``.
    bits : int
        A bound: every minor is below ``2^bits`` in absolute value (the caller's
        Hadamard-type bound; a wrong bound gives wrong minors).

    Returns
    -------
    numpy.ndarray of object or int64, shape (F, C(m, k))
        The same minors as ``maximal_minors(S)``.

    Raises
    ------
    ValueError
        When ``bits`` needs more than the 40 stored primes (about 1,150 bits); use
        :func:`maximal_minors` on object arrays instead.

    Examples
    --------
    >>> S = np.array([[[10**12, 3, 1], [7, 10**15, 1]]], dtype=object)
    >>> bool((modular_minors(S, 100) == maximal_minors(S)).all())
    True
    """
    primes = []
    total = 1
    for p in _primes():
        if total.bit_length() > bits + 1:
            break
        primes.append(p)
        total *= p
    pivots, where = np.unique(S[:, 0, -1], return_inverse=True)  # a few distinct values (denominators)
    moduli = np.array(primes, dtype=np.int64)[:, None]
    inverses = _inverse_mod(_mod(pivots[None, :], moduli).astype(np.int64), moduli)  # (primes, pivots)
    blocks = []
    for lo in range(0, len(S), _MODULAR_BLOCK):  # blocks in cache; each pivot inverted once per prime
        block, at = S[lo:lo + _MODULAR_BLOCK], where[lo:lo + _MODULAR_BLOCK]
        residues = [_eliminated_minors_mod(_mod(block, p).astype(np.int64), p, inv[at])
                    for p, inv in zip(primes, inverses)]
        blocks.append(_crt(residues, primes))
    if not blocks:
        return np.zeros((0, math.comb(S.shape[2], S.shape[1])), dtype=np.int64)
    return np.concatenate(blocks) if len(blocks) > 1 else blocks[0]


#: Matrices per block of :func:`modular_minors` (its int64 temporaries stay in cache).
_MODULAR_BLOCK = 2048


def wrapped_minors(S: np.ndarray, bits: int) -> np.ndarray:
    """:func:`maximal_minors` of an int64 stack with float-exact entries, from two cheap images.

    Each minor ``v`` is computed twice in one pass each: in float64 (value ``f`` and the
    permanent-type bound ``perm`` of its expansion, or when that is small enough the
    product of the matrix's row L1 norms, which bounds every permanent; so
    ``|f - v| <= E = 2 gamma_n perm``
    with ``n = k^2 + 2k`` roundings, as in
    :func:`~tropattn.exact._predicates.determinant_signs`), and in int64 with wrap-around,
    which is exact modulo ``2^64``.  Where ``E < 2^61``, ``v = round(f) + delta`` with
    ``delta`` the (centred) difference of the two images modulo ``2^64``: exact.  The
    minors of matrices where the bound fails come from :func:`modular_minors`.

    Parameters
    ----------
    S : numpy.ndarray of int64, shape (F, k, m)
        A stack of integer matrices, entries below ``2^53`` in absolute value, ``k < 16``.
    bits : int
        A bound: every minor is below ``2^bits`` in absolute value (for the fallback).

    Returns
    -------
    numpy.ndarray of int64 or object, shape (F, C(m, k))
        The same minors as ``maximal_minors(S.astype(object))`` (int64, every entry
        below ``2^62``, when the float values prove it; object otherwise).

    Examples
    --------
    >>> S = np.array([[[10**15, 3, 1], [7, 10**15, 1]]], dtype=np.int64)
    >>> bool((wrapped_minors(S, 110) == maximal_minors(S.astype(object))).all())
    True
    """
    F, k, _ = S.shape
    T = np.ascontiguousarray(S.transpose(1, 2, 0))  # (k, m, F): contiguous gathers
    Tf = T.astype(float)
    f = _expand_last(Tf)
    n = k * k + 2 * k
    gamma = n * 2.0 ** -53 / (1 - n * 2.0 ** -53)
    At = np.abs(Tf)
    perm = At.sum(axis=1).prod(axis=0)[:, None]  # >= every minor's permanent: one choice per row
    if not np.all(2 * gamma * perm < 2.0 ** 61):  # too coarse somewhere: the permanents themselves
        perm = _expand_last(At, absolute=True)
    with np.errstate(over="ignore"):
        w = _expand_last(T).view(np.uint64)  # exact modulo 2^64 (int64 arithmetic wraps)
    ok = np.all(2 * gamma * perm < 2.0 ** 61, axis=1)
    out = _from_images(f, 2 * gamma * perm, w, ok[:, None])
    if not np.all(ok):
        bad = np.flatnonzero(~ok)
        rest = modular_minors(S[bad], bits)
        if out.dtype != object and rest.dtype == object:
            out = out.astype(object)
        out[bad] = rest
        if out.dtype == object and max(out.max(), -out.min()) < 1 << 62:
            out = out.astype(np.int64)
    return out


def _from_images(f: np.ndarray, err: np.ndarray, w: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Exact integers ``v`` from a float image ``f`` (``|f - v| <= err``) and the image
    ``w = v mod 2^64`` (uint64), where ``ok`` (broadcast) says ``err < 2^61``.

    ``v = round(f) + delta`` with ``delta`` the centred difference of the images modulo
    ``2^64`` (``|delta| <= err + 1/2 < 2^62``).  Entries with ``|f| + err < 2^62`` are
    int64; when some ``ok`` entry is bigger the result is an object array (big entries
    rebuilt from ``f = m 2^sh``, exact).  Entries not ``ok`` are garbage for the caller
    to replace.
    """
    small = np.abs(f) + err < 2.0 ** 62 * (1 - 2.0 ** -50)  # then |v| < 2^62: int64
    mant, ex = np.frexp(f)
    m = np.where(small, 0, mant * 2.0 ** 53).astype(np.int64)  # f = m 2^sh exactly when big
    sh = np.where(small, 0, ex - 53).astype(np.int64)
    near = np.where(small, np.rint(f), 0).astype(np.int64)
    high = np.where(sh < 64, m.view(np.uint64) << np.minimum(sh, 63).astype(np.uint64), np.uint64(0))
    delta = (w - near.view(np.uint64) - high).view(np.int64)  # v - round(f), centred: |.| < 2^61 + 1
    if np.all(small | ~ok):
        return near + delta
    out = (near + delta).astype(object)
    big = ~small & ok
    out[big] = (m[big].astype(object) << sh[big].astype(object)) + delta[big].astype(object)
    return out


def wrapped_dots(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    """Exact row-wise dot products ``sum_j A[i, j] B[i, j]`` of int64 arrays, from two cheap images.

    The float image (at most ``m + 2`` roundings per term: both entries, the product and
    ``m - 1`` additions; so ``|f - v| <= gamma_n sum |a_j b_j|`` with ``n = m + 3``, bounded
    by twice its float value) and the int64
    image with wrap-around (exact modulo ``2^64``) give ``v`` exactly where that bound is
    below ``2^61`` (:func:`wrapped_minors` does the same for minors); other rows are
    summed in Python integers.

    Parameters
    ----------
    A, B : numpy.ndarray of int64, shape (F, m)
        Integer rows.

    Returns
    -------
    numpy.ndarray of int64 or object, shape (F,)
        The dot products (int64 when every one is below ``2^62``).

    Examples
    --------
    >>> A = np.array([[2**61, 3], [1, -1]], dtype=np.int64)
    >>> wrapped_dots(A, np.array([[1000, 7], [5, 5]], dtype=np.int64)).tolist() == [2**61 * 1000 + 21, 0]
    True
    """
    Af, Bf = A.astype(float), B.astype(float)
    f = np.einsum("ij,ij->i", Af, Bf)
    n = A.shape[1] + 3
    gamma = n * 2.0 ** -53 / (1 - n * 2.0 ** -53)
    err = 2 * gamma * np.einsum("ij,ij->i", np.abs(Af), np.abs(Bf))
    with np.errstate(over="ignore"):
        w = np.einsum("ij,ij->i", A, B).view(np.uint64)  # exact modulo 2^64 (int64 arithmetic wraps)
    ok = err < 2.0 ** 61
    out = _from_images(f, err, w, ok)
    if not np.all(ok):
        bad = np.flatnonzero(~ok)
        exact = (A[bad].astype(object) * B[bad].astype(object)).sum(axis=1)
        out = out.astype(object)
        out[bad] = exact
    return out


def _expand_last(T: np.ndarray, absolute: bool = False, modulus: int | None = None) -> np.ndarray:
    """:func:`maximal_minors` of a stack stored as ``(k, m, F)`` (stack index last, so the
    gathers copy whole rows), as (F, subsets); ``absolute``: the permanents of ``|T|``
    instead; ``modulus``: every level reduced modulo it (entries of ``T`` in ``[0, p)``)."""
    k, m, _ = T.shape
    level = T[0]
    for r in range(1, k):
        cols, rest = _expansion_tables(m, r)
        row = T[r]
        acc = row[cols[:, 0]] * level[rest[:, 0]]  # (subsets, F): one term at a time, in cache
        for q in range(1, r + 1):
            term = row[cols[:, q]]
            term *= level[rest[:, q]]
            if q % 2 and not absolute:
                acc -= term
            else:
                acc += term
        if r % 2 and not absolute:
            np.negative(acc, out=acc)
        if modulus is not None:
            acc -= acc // modulus * modulus  # acc % modulus, see _mod
        level = acc
    return np.ascontiguousarray(level.T)


def _minors_mod(S: np.ndarray, p: int) -> np.ndarray:
    """:func:`maximal_minors` of a stack ``(F, k, m)`` modulo ``p`` (entries in ``[0, p)``), int64."""
    return _expand_last(np.ascontiguousarray(S.transpose(1, 2, 0)), modulus=p)


def _eliminated_minors_mod(R: np.ndarray, p: int, inv: np.ndarray | None = None) -> np.ndarray:
    """:func:`maximal_minors` modulo ``p`` of a stack ``(F, k, k + 1)`` (entries in ``[0, p)``),
    from the ``k - 1`` rows left after eliminating the last column against the first row.

    With rows ``g_i = (n_i, w_i)`` and ``E_i = w_0 n_i - w_i n_0`` (``i >= 1``), row
    operations give ``det(S without column j) = (-1)^(k-1) det(E without column j) / w_0^(k-2)``
    for ``j < k``, and the minor without the last column follows from ``h . g_0 = 0``
    (``h_j = (-1)^j`` times the minor without column ``j``): ``h_k = -(h_a . n_0) / w_0``.
    The (k-1) x (k-1) minors of ``E`` cost less than half the k x k expansion; rows with
    ``w_0 = 0 (mod p)`` take the full expansion (:func:`_minors_mod`).  ``inv`` (optional):
    the caller's ``_inverse_mod(w_0, p)``.

    >>> R = np.array([[[1, 2, 3], [4, 5, 6]]])
    >>> _eliminated_minors_mod(R, 101).tolist() == (maximal_minors(R) % 101).tolist()
    True
    """
    F, k, m = R.shape
    if k < 2 or m != k + 1:
        return _minors_mod(R, p)
    T = np.ascontiguousarray(R.transpose(1, 2, 0))  # (k, m, F)
    w0, n0 = T[0, -1], T[0, :-1]
    E = _mod(T[1:, :-1] * w0 - T[1:, -1:] * n0, p)  # (k - 1, k, F); products below 2^58
    inv = _inverse_mod(w0, p) if inv is None else inv
    scale = np.ones_like(inv) if k % 2 else np.full_like(inv, p - 1)  # (-1)^(k-1) / w_0^(k-2)
    for _ in range(k - 2):
        scale = _mod(scale * inv, p)
    out = np.empty((F, m), dtype=np.int64)
    out[:, 1:] = _mod(_expand_last(E, modulus=p) * scale[:, None], p)  # column i omits column k - i
    h = out[:, :0:-1].copy()  # minors without columns 0..k-1, then the cofactor signs
    h[:, 1::2] = _mod(p - h[:, 1::2], p)
    dot = _mod(np.einsum("fj,jf->f", h, n0), p)  # below k 2^58: no overflow for k < 16
    sign = 1 if k % 2 else p - 1  # the minor without column k is (-1)^k h_k = (-1)^(k+1) h_a . n_0 / w_0
    out[:, 0] = _mod(_mod(dot * inv, p) * sign, p)
    bad = np.flatnonzero(w0 == 0)
    if len(bad):
        out[bad] = _minors_mod(R[bad], p)
    return out


def _mod(x: np.ndarray, p: int) -> np.ndarray:
    """``x % p`` (``p > 0``) as ``x - (x // p) p``: numpy divides int64 arrays by a scalar with
    libdivide, several times faster than its ``%``; object arrays and arrays of moduli take ``%``.

    >>> _mod(np.array([-7, 7, 2 ** 61 + 3]), 5).tolist()
    [3, 2, 0]
    """
    return x % p if x.dtype == object or isinstance(p, np.ndarray) else x - x // p * p


def _inverse_mod(x: np.ndarray, p) -> np.ndarray:
    """``x^(p-2) mod p`` elementwise (int64 entries in ``[0, p)``, ``p < 2^31`` prime, or an int64
    array of primes broadcast against ``x``): the inverse where ``x != 0`` (Fermat), 0 where
    ``x == 0``.

    >>> _inverse_mod(np.array([1, 2, 3, 0]), 7).tolist()
    [1, 4, 5, 0]
    >>> _inverse_mod(np.array([[3, 4], [3, 4]]), np.array([[5], [7]])).tolist()
    [[2, 4], [5, 2]]
    """
    out, base, e = np.ones_like(x), x.copy(), np.asarray(p) - 2
    while np.any(e):
        out = np.where(e & 1, _mod(out * base, p), out)
        base = _mod(base * base, p)
        e = e >> 1
    return out


def _crt(residues: list, primes: list) -> np.ndarray:
    """The integers of least absolute value with the given residues: balanced mixed-radix
    digits (:func:`_balanced_digits`), summed in int64 when the product of the primes is
    below ``2^62``, else as Python ints (:func:`_from_digits`, object array).

    >>> _crt([np.array([3, 6]), np.array([1, 4])], [7, 5]).tolist()   # 3 (mod 7), 1 (mod 5); -1
    [-4, -1]
    """
    shape = residues[0].shape
    D = _balanced_digits(np.stack([r.ravel() for r in residues]), primes)
    if math.prod(primes).bit_length() < 62:  # |value| <= M / 2 at every step of the Horner sum
        value = D[-1].copy()
        for j in range(len(primes) - 2, -1, -1):
            value = value * primes[j] + D[j]
        return value.reshape(shape)
    return _from_digits(D, primes).reshape(shape)


def _balanced_digits(R: np.ndarray, primes: list) -> np.ndarray:
    """Garner's mixed-radix digits of residues ``R[j]`` modulo ``primes[j]`` (below ``2^29``,
    at most 40 of them), each centred in ``(-p_j / 2, p_j / 2]`` (int64, same shape):
    ``v = sum_j d_j p_0 ... p_(j-1)`` is the value of least absolute value (``|v| <= M / 2``,
    ``M`` the product of the primes).  Digit ``i`` needs the value of the digits before it
    modulo ``p_i``: one int64 product with the radices modulo ``p_i`` (terms below ``2^57``).

    >>> _balanced_digits(np.array([[6], [4]]), [7, 5]).tolist()   # -1 = -1 + 7 * 0
    [[-1], [0]]
    """
    D = np.empty_like(R)
    for i, p in enumerate(primes):
        radices = np.array([math.prod(primes[:j]) % p for j in range(i)], dtype=np.int64)
        acc = _mod(radices @ D[:i], p)
        inv = pow(math.prod(primes[:i]) % p, -1, p)
        d = _mod(_mod(R[i] - acc, p) * inv, p)
        D[i] = np.where(2 * d > p, d - p, d)
    return D


def _from_digits(D: np.ndarray, primes: list) -> np.ndarray:
    """The object array of ``sum_j D[j] p_0 ... p_(j-1)`` (balanced digits, :func:`_balanced_digits`).

    The 16-bit limbs of the radices weight the digits in int64 (terms below ``2^44``),
    carries propagate to the limbs of ``v + 2^(16 L - 1)`` (nonnegative), and
    ``int.from_bytes`` (C, on the rows of a bytes array: NUL bytes stripped at the end of a
    little-endian string leave its value) makes each value, instead of a Horner sum over
    object arrays; one object subtraction removes the offset.
    """
    L = math.prod(primes).bit_length() // 16 + 1  # |value| <= M / 2 < 2^(16 L - 1)
    A = np.zeros((L, D.shape[1]), dtype=np.int64)
    for j, d in enumerate(D):
        r = math.prod(primes[:j])
        limbs = np.array([(r >> (16 * l)) & 0xFFFF for l in range(r.bit_length() // 16 + 1)], dtype=np.int64)
        A[:len(limbs)] += limbs[:, None] * d
    for l in range(L - 1):
        carry = A[l] >> 16  # floor: the limb becomes its nonnegative remainder
        A[l] -= carry << 16
        A[l + 1] += carry
    A[L - 1] += 1 << 15  # the top limb, in [-2^15, 2^15), offset to [0, 2^16)
    chunks = np.ascontiguousarray(A.T, dtype="<u2").view(f"S{2 * L}")[:, 0].tolist()
    out = np.empty(D.shape[1], dtype=object)
    out[:] = list(map(int.from_bytes, chunks, itertools.repeat("little")))
    return out - (1 << (16 * L - 1))


@functools.lru_cache(maxsize=1)
def _prime_list() -> tuple:
    """The 40 largest primes below ``2^29`` (deterministic Miller-Rabin, bases 2, 7, 61)."""
    out, n = [], (1 << 29) - 1
    while len(out) < 40:
        if _is_prime(n):
            out.append(n)
        n -= 2
    return tuple(out)


def _primes():
    yield from _prime_list()
    raise InternalError("modular_minors needs more than its 40 primes; its callers stay below 1000 bits, "
                        "so this cannot happen: please report it")


def _is_prime(n: int) -> bool:
    if n < 2 or n % 2 == 0:
        return n == 2
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in (2, 7, 61):
        x = pow(a, d, n)
        if x in (1, n - 1) or a % n == 0:
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


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


def determinants(M: np.ndarray, absolute: bool = False) -> np.ndarray:
    """Determinants (or, with ``absolute``, permanents) of a stack of k x k matrices, k >= 2.

    Expansion along the last row of the minors of the first k-1 rows
    (:func:`maximal_minors`; the same int64 bound: the product of the rows' L1 norms).

    Parameters
    ----------
    M : numpy.ndarray of int64 or object, shape (F, k, k)
        A stack of ``F`` square integer matrices, ``k >= 2``.
    absolute : bool, optional
        Return permanents (all terms added) instead of determinants.

    Returns
    -------
    numpy.ndarray, shape (F,)
        ``det(M[f])`` for each ``f``, same dtype as ``M``.

    Examples
    --------
    >>> determinants(np.array([[[1, 2], [3, 4]], [[2, 0], [0, 3]]])).tolist()
    [-2, 6]
    >>> determinants(np.array([[[1, 2], [3, 4]]]), absolute=True).tolist()
    [10]
    """
    k = M.shape[1]
    minors = maximal_minors(M[:, :-1, :], absolute)  # column i omits column k - 1 - i
    det = 0
    for c in range(k):
        term = M[:, -1, c] * minors[:, k - 1 - c]
        det = det - term if (k - 1 + c) % 2 and not absolute else det + term
    return det


def integer_determinant(M) -> int:
    """The exact determinant of one small square matrix of Python ints (fraction-free Bareiss).

    The one routine for single integer determinants (Cramer certificates, facet checks);
    stacks of matrices go to :func:`determinants`.  Every division of Bareiss' elimination
    is exact, so the intermediate entries stay integers bounded by minors of ``M``.

    Parameters
    ----------
    M : sequence of sequence of int, shape (k, k)
        The matrix (``k >= 0``; the empty matrix has determinant 1).

    Returns
    -------
    int

    Examples
    --------
    >>> integer_determinant([[2, 1], [1, 3]]), integer_determinant([[0, 1], [1, 0]])
    (5, -1)
    >>> integer_determinant([[1, 2, 3], [4, 5, 6], [7, 8, 10]])
    -3
    """
    m = [list(r) for r in M]
    n, sign, prev = len(m), 1, 1
    if not n:
        return 1
    for c in range(n - 1):
        if m[c][c] == 0:
            piv = next((i for i in range(c + 1, n) if m[i][c] != 0), None)
            if piv is None:
                return 0
            m[c], m[piv] = m[piv], m[c]
            sign = -sign
        for i in range(c + 1, n):
            for j in range(c + 1, n):
                m[i][j] = (m[i][j] * m[c][c] - m[i][c] * m[c][j]) // prev
        prev = m[c][c]
    return sign * m[n - 1][n - 1]
