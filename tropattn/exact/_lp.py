"""Certified strict feasibility: is there a rational x with ``A x < b``?

HiGHS maximises the slack; the float optimum is rounded to a rational point checked
exactly, or the float dual is repaired into an exact Farkas vector; when neither
certificate holds an exact rational simplex decides (docs/ALGORITHMS.md §3).

>>> A = [[1, 0], [0, 1], [-1, -1]]          # x <= 1, y <= 1, x + y >= -1
>>> cert = interior_point(A, [1, 1, 1])
>>> cert.feasible, all(sum(a * x for a, x in zip(row, cert.point)) < rhs
...                    for row, rhs in zip(A, [1, 1, 1]))
(True, True)
>>> interior_point([[1], [-1]], [0, 0]).feasible      # x <= 0 and x >= 0: no interior
False
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._lazy import lazy_import
from ..errors import DegenerateInputError, InvalidInputError
from ._counters import record
from ._linalg import nullspace, solve
from ._numbers import float_rows, homogeneous_point, integer_row, to_rational

optimize = lazy_import("scipy.optimize")


__all__ = ["Certificate", "interior_point", "exact_lp_max", "relative_interior_point"]


@dataclass(frozen=True)
class Certificate:
    """Answer to "does ``{x : A x < b}`` have a point?" with its proof.

    Exactly one of ``point`` (a rational x with ``A x < b`` strictly, checked exactly)
    and ``farkas`` (a rational ``y >= 0``, ``y != 0`` with ``y^T A = 0`` and
    ``y^T b <= 0``, checked exactly) is set.  ``exact`` is True when the answer came
    from the exact simplex fallback instead of a certified float solution.
    """

    point: tuple | None = None
    farkas: tuple | None = None
    exact: bool = False

    @property
    def feasible(self) -> bool:
        return self.point is not None


def _int_system(A, b):
    """Rows ``(a_i, b_i)`` as primitive integer tuples; zero-normal rows split off."""
    rows, zero_rows = [], []
    for i, (a, bi) in enumerate(zip(A, b)):
        r = integer_row(list(a) + [bi])
        if all(v == 0 for v in r[:-1]):
            zero_rows.append((i, r[-1]))
        else:
            rows.append((i, r))
    return rows, zero_rows


def _strictly_inside(int_rows, point) -> bool:
    num, den = homogeneous_point(point)
    for _, r in int_rows:
        if sum(a * x for a, x in zip(r, num)) >= r[-1] * den:
            return False
    return True


def _rationalize(x: float, max_den: int) -> Fraction:
    return Fraction(x).limit_denominator(max_den)


def _candidate_points(xf: np.ndarray, margin: float):
    """Rational roundings of a float point, simplest first."""
    scale = max(1.0, float(np.max(np.abs(xf)))) if xf.size else 1.0
    seen = set()
    for den in (max(2, int(8 / max(margin, 1e-300))), 1 << 20, 1 << 40):
        den = min(den, 1 << 60)
        p = tuple(_rationalize(v, den) for v in xf)
        if p not in seen:
            seen.add(p)
            yield p
    if scale < 1e300:
        yield tuple(Fraction(float(v)) for v in xf)


def interior_point(A, b) -> Certificate:
    """Certified answer to: is there a rational x with ``A x < b`` (strictly)?

    For a system without zero rows this asks whether the polyhedron ``A x <= b``
    is full-dimensional.  HiGHS maximises the slack ``t`` in ``A x + t |A_i| <= b``;
    the float optimum is rounded to a rational point that is checked exactly, or the
    float dual is repaired into an exact Farkas vector.  If both checks fail an exact
    rational simplex decides, and :data:`COUNTERS` records the fallback.

    Parameters
    ----------
    A : sequence of sequence of number, shape (m, d)
        The rows (anything :func:`~tropattn.exact.to_rational` accepts).
    b : sequence of number, shape (m,)
        The right-hand sides.

    Returns
    -------
    Certificate
        ``point`` (exact, ``A x < b``) or ``farkas`` (exact ``y >= 0``, ``y != 0``,
        ``y^T A = 0``, ``y^T b <= 0``); ``exact`` says whether the simplex decided.

    Raises
    ------
    InvalidInputError
        When ``A`` and ``b`` have different lengths or an entry is not a finite
        number.

    Examples
    --------
    >>> interior_point([[1, 0], [-1, 0]], [1, 1]).point       # -1 < x < 1: the strip
    (Fraction(0, 1), Fraction(0, 1))
    >>> interior_point([[1, 0], [-1, 0]], [0, 0]).farkas      # x < 0 and x > 0
    (Fraction(1, 2), Fraction(1, 2))
    """
    A = [tuple(to_rational(v) for v in row) for row in A]
    b = [to_rational(v) for v in b]
    if len(A) != len(b):
        raise InvalidInputError(f"A has {len(A)} rows but b has {len(b)} entries; they must match")
    d = len(A[0]) if A else 0
    rows, zero_rows = _int_system(A, b)
    m = len(A)
    for i, rhs in zero_rows:  # 0 < rhs must hold
        if rhs <= 0:
            y = [Fraction(0)] * m
            y[i] = Fraction(1)
            record("certified")
            return Certificate(farkas=tuple(y))
    if not rows:
        record("certified")
        return Certificate(point=(Fraction(0),) * d)
    cert = _float_strict(rows, d, m)
    if cert is not None:
        record("certified")
    else:
        record("fallbacks")
        cert = _exact_strict(rows, d, m)
    if cert.farkas is not None:  # multipliers found for the primitive integer rows: rescale to the caller's
        cert = Certificate(farkas=_caller_units(cert.farkas, A, b, rows), exact=cert.exact)
    return cert


def _caller_units(y, A, b, rows):
    """Farkas multipliers for the primitive rows ``r_i = s_i (A_i, b_i)`` as multipliers for ``(A_i, b_i)``."""
    y = list(y)
    for i, r in rows:
        original = list(A[i]) + [b[i]]
        k = next(j for j, v in enumerate(original) if v != 0)
        y[i] = y[i] * Fraction(r[k]) / original[k]
    return tuple(y)


def _float_strict(rows, d, m):
    R = float_rows([r for _, r in rows])
    Ai, bi = R[:, :-1], R[:, -1]
    norms = np.linalg.norm(Ai, axis=1)
    if not np.all(norms > 0):
        return None
    An, bn = Ai / norms[:, None], bi / norms
    # x = sigma * z brings the offsets to size 1, so HiGHS's absolute tolerances fit the
    # problem whether its cells are 1e-30 or 1e30 across; signs and certificates are unchanged
    sigma = float(np.max(np.abs(bn))) or 1.0
    c = np.zeros(d + 1)
    c[-1] = -1.0
    res = optimize.linprog(c, A_ub=np.hstack([An, np.ones((len(rows), 1))]), b_ub=bn / sigma,
                  bounds=[(None, None)] * d + [(None, 1.0)], method="highs")
    if res.status != 0:
        return None
    t = res.x[-1] * sigma
    if t > 0:
        for p in _candidate_points(res.x[:d] * sigma, t):
            if _strictly_inside(rows, p):
                return Certificate(point=p)
        return None
    y = -np.asarray(res.ineqlin.marginals) / norms  # multipliers for the integer rows
    return _repair_farkas(rows, y, d, m)


def _repair_farkas(rows, y_float, d, m):
    """Turn a float dual into an exact Farkas vector, or return None."""
    if not np.all(np.isfinite(y_float)) or y_float.max(initial=0) <= 0:
        return None
    # a power of two brings the largest multiplier into [1/2, 1): the rounding below keeps 40 bits of it
    # whatever the rows' scale (multipliers of rows at 1e40 are ~1e-40 and would round to 0)
    y_float = np.ldexp(y_float, -int(np.frexp(y_float.max())[1]))
    support = [k for k in range(len(rows)) if y_float[k] > 1e-9 * y_float.max()]
    At = [[Fraction(rows[k][1][j]) for k in support] for j in range(d)]  # A_S^T
    basis = nullspace(At, len(support)) if d else [
        tuple(Fraction(int(i == j)) for j in range(len(support))) for i in range(len(support))]
    if not basis:
        return None
    yr = [Fraction(float(y_float[k])).limit_denominator(1 << 40) for k in support]
    # project yr onto span(basis) exactly: solve (K^T K) c = K^T yr
    gram = [[sum(u * v for u, v in zip(bi, bj)) for bj in basis] for bi in basis]
    rhs = [sum(u * v for u, v in zip(bi, yr)) for bi in basis]
    coef = solve(gram, rhs)
    if coef is None:
        return None
    ys = [sum(c * bv[k] for c, bv in zip(coef, basis)) for k in range(len(support))]
    if any(v < 0 for v in ys) or all(v == 0 for v in ys):
        return None
    if sum(v * rows[k][1][-1] for v, k in zip(ys, support)) > 0:
        return None
    y = [Fraction(0)] * m
    for v, k in zip(ys, support):
        y[rows[k][0]] = v
    return Certificate(farkas=tuple(y))


def _exact_strict(rows, d, m):
    """Exact simplex on ``max t : A x + t <= b, t <= 1`` (x free)."""
    t0 = min(min(Fraction(r[-1]) for _, r in rows), Fraction(1))
    # variables: x+ (d), x- (d), t' >= 0 with t = t0 + t'
    M, rhs = [], []
    for _, r in rows:
        a = [Fraction(v) for v in r[:-1]]
        M.append(a + [-v for v in a] + [Fraction(1)])
        rhs.append(Fraction(r[-1]) - t0)
    M.append([Fraction(0)] * (2 * d) + [Fraction(1)])
    rhs.append(1 - t0)
    c = [Fraction(0)] * (2 * d) + [Fraction(1)]
    z, value, duals = exact_lp_max(c, M, rhs)
    t = t0 + value
    if t > 0:
        return Certificate(point=tuple(z[j] - z[d + j] for j in range(d)), exact=True)
    y = [Fraction(0)] * m
    for k, (i, r) in enumerate(rows):
        y[i] = duals[k]
    # dual: y^T A = 0, sum y + z = 1, y.b + z = t <= 0  =>  y != 0 and y.b <= 0
    return Certificate(farkas=tuple(y), exact=True)


def exact_lp_max(c, M, rhs):
    """Maximise ``c.z`` subject to ``M z <= rhs``, ``z >= 0``, for ``rhs >= 0``, exactly.

    A dense rational simplex with Bland's rule (it cannot cycle), started from the
    feasible basis ``z = 0`` of slack variables.

    Parameters
    ----------
    c : sequence of Fraction or int, shape (n,)
        The objective.
    M : sequence of sequence of Fraction or int, shape (m, n)
        The constraint matrix.
    rhs : sequence of Fraction or int, shape (m,)
        The right-hand side, every entry ``>= 0`` (so ``z = 0`` is feasible).

    Returns
    -------
    z : tuple of Fraction, shape (n,)
        An optimal vertex.
    value : Fraction
        The optimum ``c.z``.
    y : tuple of Fraction, shape (m,)
        An optimal dual: ``y >= 0``, ``y^T M >= c`` and ``y.rhs == value`` (the
        certificate of optimality).

    Raises
    ------
    InvalidInputError
        When an entry of ``rhs`` is negative.
    DegenerateInputError
        When the program is unbounded.

    Examples
    --------
    >>> z, value, y = exact_lp_max([1, 1], [[1, 2], [3, 1]], [4, 6])
    >>> z, value, y
    ((Fraction(8, 5), Fraction(6, 5)), Fraction(14, 5), (Fraction(2, 5), Fraction(1, 5)))
    >>> exact_lp_max([1], [[-1]], [0])
    Traceback (most recent call last):
    ...
    tropattn.errors.DegenerateInputError: the linear program is unbounded
    """
    record("exact_lps")
    m, n = len(M), len(c)
    if any(r < 0 for r in rhs):
        raise InvalidInputError("exact_lp_max needs rhs >= 0 (the zero vector must be feasible)")
    T = [[Fraction(v) for v in M[i]] + [Fraction(int(i == k)) for k in range(m)] + [Fraction(rhs[i])]
         for i in range(m)]
    obj = [-Fraction(v) for v in c] + [Fraction(0)] * m + [Fraction(0)]
    basis = [n + i for i in range(m)]
    width = n + m
    while True:
        enter = next((j for j in range(width) if obj[j] < 0), None)
        if enter is None:
            break
        best, leave = None, None
        for i in range(m):
            if T[i][enter] > 0:
                ratio = T[i][-1] / T[i][enter]
                if best is None or ratio < best or (ratio == best and basis[i] < basis[leave]):
                    best, leave = ratio, i
        if leave is None:
            raise DegenerateInputError("the linear program is unbounded")
        piv = T[leave][enter]
        T[leave] = [v / piv for v in T[leave]]
        for i in range(m):
            if i != leave and T[i][enter] != 0:
                f = T[i][enter]
                T[i] = [a - f * b for a, b in zip(T[i], T[leave])]
        f = obj[enter]
        obj = [a - f * b for a, b in zip(obj, T[leave])]
        basis[leave] = enter
    z = [Fraction(0)] * width
    for i, bv in enumerate(basis):
        z[bv] = T[i][-1]
    return tuple(z[:n]), obj[-1], tuple(obj[n:n + m])


def relative_interior_point(A, b, E, f) -> Certificate:
    """Certified strict point of ``{x : A x < b, E x = f}``.

    The equations are solved exactly first (``x = x0 + N z``), so the float LP runs
    in the parameters ``z`` and the returned point satisfies ``E x = f`` exactly.  A
    Farkas vector, when returned, refers to the reduced system: ``y >= 0``, ``y != 0``,
    ``y^T A`` in the row space of ``E`` and ``y^T (b - A x0) <= 0``.  If ``E x = f``
    itself has no solution, ``farkas`` is the empty tuple.

    Parameters
    ----------
    A : sequence of sequence of number, shape (m, d)
        Strict inequality rows.
    b : sequence of number, shape (m,)
        Their right-hand sides.
    E : sequence of sequence of number, shape (k, d)
        Equation rows; empty means :func:`interior_point` ``(A, b)``.
    f : sequence of number, shape (k,)
        Their right-hand sides.

    Returns
    -------
    Certificate
        ``point`` (exact, with ``A x < b`` and ``E x = f``) or ``farkas`` as above.

    Raises
    ------
    InvalidInputError
        When an entry is not a finite number, or ``A`` and ``b`` have different
        lengths.

    Examples
    --------
    >>> relative_interior_point([[1, 0], [0, 1]], [1, 1], [[1, -1]], [0]).point   # x = y < 1
    (Fraction(0, 1), Fraction(0, 1))
    >>> relative_interior_point([[1, 0]], [1], [[1, 0]], [2]).feasible            # x = 2 and x < 1
    False
    """
    A = [tuple(to_rational(v) for v in row) for row in A]
    b = [to_rational(v) for v in b]
    E = [tuple(to_rational(v) for v in row) for row in E]
    f = [to_rational(v) for v in f]
    if not E:
        return interior_point(A, b)
    d = len(E[0])
    x0 = solve(E, f)
    if x0 is None:
        record("certified")
        return Certificate(farkas=())
    N = nullspace(E)
    if not N:  # a single point
        ok = all(sum(a * x for a, x in zip(row, x0)) < bi for row, bi in zip(A, b))
        record("certified")
        if ok:
            return Certificate(point=x0)
        bad = next(i for i, (row, bi) in enumerate(zip(A, b)) if sum(a * x for a, x in zip(row, x0)) >= bi)
        y = [Fraction(0)] * len(A)
        y[bad] = Fraction(1)
        return Certificate(farkas=tuple(y))
    if not A:
        record("certified")
        return Certificate(point=x0)
    AN = [tuple(sum(row[k] * v[k] for k in range(d)) for v in N) for row in A]
    bN = [bi - sum(a * x for a, x in zip(row, x0)) for row, bi in zip(A, b)]
    cert = interior_point(AN, bN)
    if cert.point is None:
        return cert
    z = cert.point
    x = tuple(x0[k] + sum(z[j] * N[j][k] for j in range(len(N))) for k in range(d))
    return Certificate(point=x, exact=cert.exact)
