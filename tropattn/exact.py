"""Exact numbers, filtered signs and certified linear programming.

This is the only module that compares a float with anything.  Everything else asks
it questions ("does this region have interior?", "which rows are facets?") and gets
answers that are *certified in rational arithmetic*:

* numbers come in once through :func:`to_rational` (ints, Fractions, ``"p/q"`` and
  decimal strings, Python/numpy floats converted exactly, sympy/gmpy/flint
  rationals); NaN and infinities are refused;
* signs of many dot products are computed in float64 with a rigorous error bound
  and recomputed in integers only where the bound does not decide (:func:`dot_signs`);
* a strictly feasible point of ``A x < b`` is found with HiGHS, rounded to a
  rational and checked exactly; emptiness is certified by a Farkas vector repaired
  to satisfy ``y^T A = 0`` exactly; when neither certificate holds, an exact
  rational simplex decides (:func:`interior_point`);
* the facets of a full-dimensional polyhedron come from Qhull and are certified
  one by one: a rational point in the relative interior of each facet, and a
  conic combination proving every other row redundant (:func:`facets`).

Every fallback to exact computation is counted in :data:`COUNTERS`.

The rational backend is :class:`fractions.Fraction` at the interfaces and plain
Python integers (rows scaled to primitive integer vectors, points as numerators over
one denominator) in the hot loops.  ``scripts/bench_backends.py`` measures the
choice: checking a rational point against 30 rows is 16x faster in integers than
in Fractions and 2.2x faster than in ``gmpy2.mpq``; for the small exact solves
(3x3 to 5x5) ``flint.fmpq_mat`` is 1.1-1.5x faster than the integer elimination once
conversion is paid, too little to make python-flint a dependency; sympy matrices
are 40-60x slower.

>>> A = [[1, 0], [0, 1], [-1, -1]]          # x <= 1, y <= 1, x + y >= -1
>>> cert = interior_point(A, [1, 1, 1])
>>> cert.feasible, all(sum(a * x for a, x in zip(row, cert.point)) < rhs
...                    for row, rhs in zip(A, [1, 1, 1]))
(True, True)
>>> interior_point([[1], [-1]], [0, 0]).feasible      # x <= 0 and x >= 0: no interior
False
"""

from __future__ import annotations

import math
import numbers
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Sequence

import numpy as np

from .errors import DegenerateInputError, InvalidInputError

__all__ = [
    "NEG_INF",
    "to_rational",
    "to_rational_vector",
    "to_rational_matrix",
    "to_float_array",
    "integer_row",
    "homogeneous_point",
    "format_rational",
    "format_point",
    "rank",
    "nullspace",
    "solve",
    "dot_signs",
    "Counters",
    "COUNTERS",
    "counting",
    "Certificate",
    "interior_point",
    "relative_interior_point",
    "exact_lp_max",
    "FacetSet",
    "facets",
    "integer_facets",
]

#: The tropical zero.  :func:`to_rational` returns it for ``-inf`` when asked to.
NEG_INF = float("-inf")

_U = 2.0**-53  # unit roundoff of float64


# --------------------------------------------------------------------------- numbers
def to_rational(value, name: str = "value", *, allow_neg_inf: bool = False):
    """Convert one number to a :class:`~fractions.Fraction`, exactly.

    Floats are converted to the rational they represent (``0.1`` becomes
    ``3602879701896397/36028797018963968``); write ``"0.1"`` or ``"1/10"`` for the
    decimal.  ``-inf`` is accepted only where ``allow_neg_inf`` (the tropical zero)
    and is returned as :data:`NEG_INF`.

    >>> to_rational("3/4"), to_rational(0.5), to_rational("1e-2"), to_rational(2)
    (Fraction(3, 4), Fraction(1, 2), Fraction(1, 100), Fraction(2, 1))
    >>> to_rational(float("nan"), "keys[0][1]")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: keys[0][1] is NaN; every weight must be a finite number (check for a division by zero upstream)
    """
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(
            f"{name} is a boolean ({value!r}); expected a number such as 1, 0.5 or '1/3'"
        )
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        return _float_to_rational(float(value) if not isinstance(value, np.longdouble) else value,
                                  name, allow_neg_inf)
    if isinstance(value, str):
        return _string_to_rational(value, name, allow_neg_inf)
    if isinstance(value, Decimal):
        if not value.is_finite():
            return _float_to_rational(float(value), name, allow_neg_inf)
        return Fraction(value)
    p, q = getattr(value, "p", None), getattr(value, "q", None)  # sympy Rational, flint fmpq
    if isinstance(p, numbers.Integral) or _is_flint_int(p):
        return Fraction(int(p), int(q))
    if isinstance(value, numbers.Rational):  # gmpy2.mpq, mpz, ...
        return Fraction(int(value.numerator), int(value.denominator))
    if getattr(value, "is_Float", False):  # sympy.Float: exact binary value
        import sympy

        r = sympy.Rational(value)
        return Fraction(int(r.p), int(r.q))
    if getattr(value, "is_number", False) and getattr(value, "is_infinite", False):
        return _float_to_rational(float(value), name, allow_neg_inf)
    if isinstance(value, numbers.Real):
        return _float_to_rational(float(value), name, allow_neg_inf)
    raise InvalidInputError(
        f"{name} has type {type(value).__name__} ({value!r:.60}); expected a number: "
        "an int, a float, a Fraction, or a string such as '3/4' or '0.25'"
    )


def _is_flint_int(x) -> bool:
    return type(x).__name__ == "fmpz"


def _float_to_rational(x, name, allow_neg_inf):
    if math.isnan(x):
        raise InvalidInputError(
            f"{name} is NaN; every weight must be a finite number (check for a division by zero upstream)"
        )
    if math.isinf(x):
        if x < 0 and allow_neg_inf:
            return NEG_INF
        hint = " (-inf is allowed only as the tropical zero coefficient)" if x < 0 else ""
        raise InvalidInputError(f"{name} is {x}; expected a finite number{hint}")
    return Fraction(*x.as_integer_ratio())


def _string_to_rational(text, name, allow_neg_inf):
    s = text.strip().replace(" ", "")
    low = s.lower()
    exponent = re.search(r"e([+-]?\d+)$", low)
    if exponent and abs(int(exponent.group(1))) > 10_000:
        raise InvalidInputError(f"{name} = {text!r} has an exponent beyond 10^10000; such a number is not "
                                "meant as a weight (write it as an integer or fraction if it really is)")
    if low in ("-inf", "-infinity", "inf", "+inf", "infinity", "nan", "+nan", "-nan"):
        return _float_to_rational(float(low), name, allow_neg_inf)
    try:
        return Fraction(s)
    except (ValueError, ZeroDivisionError) as exc:
        reason = "has a zero denominator" if isinstance(exc, ZeroDivisionError) else "is not a number"
        raise InvalidInputError(
            f"{name} = {text!r} {reason}; write an integer, a fraction such as '3/4', "
            "or a decimal such as '0.25' or '1e-3'"
        ) from None


def _nested_shape(value, name):
    """Shape of a nested list/tuple/array, refusing ragged input."""
    if isinstance(value, np.ndarray):
        return value.shape
    if isinstance(value, (list, tuple)):
        if len(value) == 0:
            return (0,)
        shapes = [_nested_shape(v, f"{name}[{i}]") for i, v in enumerate(value)]
        first = shapes[0]
        for i, s in enumerate(shapes):
            if s != first:
                raise InvalidInputError(
                    f"{name} is ragged: {name}[0] has shape {first} but {name}[{i}] has shape {s}; "
                    "every row must have the same length"
                )
        return (len(value),) + first
    return ()


def _check_shape(shape, expected, name, hint=""):
    if len(shape) != len(expected) or any(e is not None and e != s for s, e in zip(shape, expected)):
        want = "(" + ", ".join("n" if e is None else str(e) for e in expected) + ("," if len(expected) == 1 else "") + ")"
        raise InvalidInputError(f"{name} has shape {tuple(shape)}; expected {want}.{(' ' + hint) if hint else ''}")


def to_rational_vector(values, name: str = "vector", length: int | None = None, *,
                       allow_neg_inf: bool = False) -> tuple:
    """Convert a 1-D sequence or array to a tuple of Fractions, checking its length.

    >>> to_rational_vector(["1/2", 3, 0.25])
    (Fraction(1, 2), Fraction(3, 1), Fraction(1, 4))
    >>> to_rational_vector([[1, 2]], "offsets")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: offsets has shape (1, 2); expected (n,). Pass a flat list of numbers.
    """
    shape = _nested_shape(values, name)
    _check_shape(shape, (length,), name, "Pass a flat list of numbers.")
    return tuple(to_rational(v, f"{name}[{i}]", allow_neg_inf=allow_neg_inf) for i, v in enumerate(values))


def to_rational_matrix(values, name: str = "matrix", rows: int | None = None,
                       cols: int | None = None) -> tuple:
    """Convert a 2-D nested sequence or array to a tuple of tuples of Fractions.

    >>> to_rational_matrix([[1, "1/2"], [0, 2.5]])
    ((Fraction(1, 1), Fraction(1, 2)), (Fraction(0, 1), Fraction(5, 2)))
    >>> to_rational_matrix([1, 2, 3], "sites")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: sites has shape (3,); expected (n, m). Use a list of rows, e.g. [[1], [2], [3]] for points in one dimension.
    """
    fast = _fraction_rows(values, rows, cols)
    if fast is not None:
        return fast
    shape = _nested_shape(values, name)
    if len(shape) == 1 and shape[0] == 0 and rows in (None, 0):
        return ()
    expected = (rows, cols)
    hint = "Use a list of rows, e.g. [[1], [2], [3]] for points in one dimension."
    if len(shape) != 2:
        want = "(" + ("n" if rows is None else str(rows)) + ", " + ("m" if cols is None else str(cols)) + ")"
        raise InvalidInputError(f"{name} has shape {tuple(shape)}; expected {want}. {hint}")
    _check_shape(shape, expected, name)
    return tuple(
        tuple(to_rational(v, f"{name}[{i}][{j}]") for j, v in enumerate(row)) for i, row in enumerate(values)
    )


def _fraction_rows(values, rows, cols):
    """The input itself as tuples when it already is equal-length rows of Fractions, else None."""
    if not isinstance(values, (list, tuple)) or not values or (rows is not None and len(values) != rows):
        return None
    width = len(values[0]) if isinstance(values[0], (list, tuple)) else -1
    if width <= 0 or (cols is not None and width != cols):
        return None
    out = []
    for row in values:
        if not isinstance(row, (list, tuple)) or len(row) != width or not all(type(v) is Fraction for v in row):
            return None
        out.append(tuple(row))
    return tuple(out)


def to_float_array(values) -> np.ndarray:
    """Nested Fractions (or anything numeric) as a float64 array: for pictures and filters only."""
    return np.array(values, dtype=float)


# ----------------------------------------------------------------- integer representation
def integer_row(values: Sequence[Fraction]) -> tuple[int, ...]:
    """Scale a rational vector by the positive lcm of its denominators, then divide by the gcd.

    The result is the primitive integer vector on the same ray: two rows define the
    same half-space ``a.x <= b`` iff their integer rows ``(a, b)`` are equal.

    >>> integer_row([Fraction(1, 2), Fraction(-3, 4), Fraction(0)])
    (2, -3, 0)
    """
    den = math.lcm(*[v.denominator for v in values])
    ints = [v.numerator * (den // v.denominator) for v in values]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints) if g > 1 else tuple(ints)


def homogeneous_point(point: Sequence[Fraction]) -> tuple[tuple[int, ...], int]:
    """A rational point as integer numerators over one positive common denominator.

    >>> homogeneous_point([Fraction(1, 2), Fraction(1, 3)])
    ((3, 2), 6)
    """
    den = math.lcm(*[v.denominator for v in point]) if point else 1
    return tuple(v.numerator * (den // v.denominator) for v in point), den


def format_rational(x) -> str:
    """``3``, ``-1/2``: the exact value as text (what JSON output and messages show).

    >>> format_rational(Fraction(-1, 2)), format_rational(3)
    ('-1/2', '3')
    """
    x = Fraction(x)
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def format_point(x) -> str:
    """A rational point as text, e.g. ``(1/2, -3)``; a 1-tuple keeps its comma.

    >>> format_point((Fraction(1, 2), Fraction(-3))), format_point((Fraction(0),))
    ('(1/2, -3)', '(0,)')
    """
    return "(" + ", ".join(format_rational(v) for v in x) + ("," if len(x) == 1 else "") + ")"


# ------------------------------------------------------------------------ linear algebra
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

    >>> rank([[1, 2, 3], [2, 4, 6], [0, 1, 1]])
    2
    """
    return len(_rref([[to_rational(v) for v in r] for r in rows])[1]) if rows else 0


def nullspace(rows: Sequence[Sequence], ncols: int | None = None) -> list[tuple[Fraction, ...]]:
    """A basis of ``{x : M x = 0}`` over Q (one tuple per basis vector).

    >>> nullspace([[1, 1, 0]])
    [(Fraction(-1, 1), Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(0, 1), Fraction(1, 1))]
    """
    if not rows:
        return [tuple(Fraction(int(i == j)) for j in range(ncols)) for i in range(ncols)]
    red, piv = _rref(rows)
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

    >>> solve([[2, 0], [0, 4]], [1, 1])
    (Fraction(1, 2), Fraction(1, 4))
    >>> solve([[1, 1], [2, 2]], [1, 3]) is None
    True
    """
    if not rows:
        return None
    n = len(rows[0])
    m = [list(r) + [c] if all(type(v) is int for v in r) and type(c) is int
         else _scaled_ints([to_rational(v) for v in r] + [to_rational(c)]) for r, c in zip(rows, rhs)]
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


def _scaled_ints(values: Sequence[Fraction]) -> list[int]:
    """A rational vector times the lcm of its denominators (same ray, integer entries)."""
    den = math.lcm(*[v.denominator for v in values])
    return [v.numerator * (den // v.denominator) for v in values]


# ------------------------------------------------------------------------ filtered signs
def dot_signs(rows, cols) -> np.ndarray:
    """Exact signs of every dot product ``rows[i] . cols[k]`` of integer vectors.

    Three tiers, cheapest first, each exact where it answers:

    1. float64 with the bound ``|err| <= gamma_{n+3} * sum |a_i b_i|`` (which also
       covers rounding the integers to floats); when that sum is below ``2^53`` the
       float result is the exact integer, zeros included;
    2. int64 arithmetic on the undecided entries when ``sum |a_i b_i| < 2^62`` proves
       that nothing overflows;
    3. Python integers for whatever is left (counted in ``COUNTERS.filter_failures``).

    ``rows`` and ``cols`` may be sequences of int tuples or integer numpy arrays.
    Returns an int8 array of -1/0/1 of shape ``(len(rows), len(cols))``.

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
    out = np.zeros((nr, nc), dtype=np.int8)
    try:
        Rf, Cf = R.astype(float), C.astype(float)
    except OverflowError:
        Rf = None
    if Rf is not None and np.all(np.isfinite(Rf)) and np.all(np.isfinite(Cf)):
        n = R.shape[1]
        gamma = (n + 3) * _U / (1 - (n + 3) * _U)
        with np.errstate(over="ignore", invalid="ignore"):  # inf/nan entries are simply not "sure"
            val = Rf @ Cf.T
            mag = np.abs(Rf) @ np.abs(Cf).T
            exact_float = mag * (1 + 4 * _U) < 2.0**53       # every partial sum is an exact integer
            sure = exact_float | (np.abs(val) > gamma * mag * (1 + 4 * _U))
        out[sure] = np.sign(val[sure]).astype(np.int8)
        unsure = np.argwhere(~sure)
        if len(unsure) and R.dtype != object and C.dtype != object:
            small = mag[unsure[:, 0], unsure[:, 1]] * (1 + 4 * _U) < 2.0**62
            idx = unsure[small]
            if len(idx):
                v = np.einsum("ij,ij->i", R[idx[:, 0]].astype(np.int64), C[idx[:, 1]].astype(np.int64))
                out[idx[:, 0], idx[:, 1]] = np.sign(v).astype(np.int8)
            unsure = unsure[~small]
    else:
        unsure = np.argwhere(np.ones(out.shape, dtype=bool))
    COUNTERS.filter_failures += len(unsure)
    for i, k in unsure:
        s = sum(int(a) * int(b) for a, b in zip(R[i], C[k]))
        out[i, k] = (s > 0) - (s < 0)
    return out


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


# ------------------------------------------------------------------------------ counters
@dataclass
class Counters:
    """How often each exact path was taken.

    ``certified`` counts answers a float computation gave and an exact check
    confirmed; ``fallbacks`` counts answers that needed an exact computation because
    the certificate failed; ``exact_lps`` counts exact simplex runs and
    ``filter_failures`` dot products the float filter could not decide.
    """

    certified: int = 0
    fallbacks: int = 0
    exact_lps: int = 0
    filter_failures: int = 0

    def reset(self):
        self.certified = self.fallbacks = self.exact_lps = self.filter_failures = 0

    def snapshot(self) -> dict:
        return dict(certified=self.certified, fallbacks=self.fallbacks,
                    exact_lps=self.exact_lps, filter_failures=self.filter_failures)


#: The process-wide counters; see :func:`counting` for a scoped view.
COUNTERS = Counters()


@contextmanager
def counting():
    """Count the certified answers and exact fallbacks of a block.

    >>> with counting() as c:
    ...     _ = interior_point([[1]], [1])
    >>> c.certified + c.fallbacks
    1
    """
    before = COUNTERS.snapshot()
    delta = Counters()
    try:
        yield delta
    finally:
        after = COUNTERS.snapshot()
        for k in before:
            setattr(delta, k, after[k] - before[k])


# --------------------------------------------------------------------- certified strict LP
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


def _exact_number(v):
    """ints and Fractions pass through (both have numerator/denominator); others are converted."""
    return v if type(v) is int or type(v) is Fraction else to_rational(v)


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
    A : (m, d) rationals
    b : (m,) rationals

    Returns
    -------
    Certificate

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
            COUNTERS.certified += 1
            return Certificate(farkas=tuple(y))
    if not rows:
        COUNTERS.certified += 1
        return Certificate(point=(Fraction(0),) * d)
    cert = _float_strict(rows, d, m)
    if cert is not None:
        COUNTERS.certified += 1
    else:
        COUNTERS.fallbacks += 1
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


def _float_rows(int_rows) -> np.ndarray:
    """Integer rows as floats, each scaled by a power of two so that nothing overflows.

    A positive factor does not change the half-space a row ``(a, b)`` describes, and
    every float answer is certified afterwards, so the scaling costs no exactness.
    """
    out = []
    for r in int_rows:
        shift = max(0, max(abs(v).bit_length() for v in r) - 500)
        out.append([float(v >> shift) if v >= 0 else -float(-v >> shift) for v in r])
    return np.array(out, dtype=float)


def _float_point(point):
    """A rational point as floats, or None when a coordinate is beyond the float range."""
    try:
        return np.array([float(v) for v in point])
    except OverflowError:
        return None


def _float_strict(rows, d, m):
    from scipy.optimize import linprog

    R = _float_rows([r for _, r in rows])
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
    res = linprog(c, A_ub=np.hstack([An, np.ones((len(rows), 1))]), b_ub=bn / sigma,
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

    A dense rational simplex with Bland's rule (it cannot cycle).  Returns
    ``(z, value, y)`` with ``y >= 0`` the optimal dual (``y^T M >= c``, ``y.rhs == value``).

    >>> z, value, y = exact_lp_max([1, 1], [[1, 2], [3, 1]], [4, 6])
    >>> z, value, y
    ((Fraction(8, 5), Fraction(6, 5)), Fraction(14, 5), (Fraction(2, 5), Fraction(1, 5)))
    """
    COUNTERS.exact_lps += 1
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

    >>> relative_interior_point([[1, 0], [0, 1]], [1, 1], [[1, -1]], [0]).point   # x = y < 1
    (Fraction(0, 1), Fraction(0, 1))
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
        COUNTERS.certified += 1
        return Certificate(farkas=())
    N = nullspace(E)
    if not N:  # a single point
        ok = all(sum(a * x for a, x in zip(row, x0)) < bi for row, bi in zip(A, b))
        COUNTERS.certified += 1
        if ok:
            return Certificate(point=x0)
        bad = next(i for i, (row, bi) in enumerate(zip(A, b)) if sum(a * x for a, x in zip(row, x0)) >= bi)
        y = [Fraction(0)] * len(A)
        y[bad] = Fraction(1)
        return Certificate(farkas=tuple(y))
    if not A:
        COUNTERS.certified += 1
        return Certificate(point=x0)
    AN = [tuple(sum(row[k] * v[k] for k in range(d)) for v in N) for row in A]
    bN = [bi - sum(a * x for a, x in zip(row, x0)) for row, bi in zip(A, b)]
    cert = interior_point(AN, bN)
    if cert.point is None:
        return cert
    z = cert.point
    x = tuple(x0[k] + sum(z[j] * N[j][k] for j in range(len(N))) for k in range(d))
    return Certificate(point=x, exact=cert.exact)


# ---------------------------------------------------------------------------- facets
@dataclass(frozen=True)
class FacetSet:
    """The facets of a full-dimensional polyhedron ``{x : A x <= b}``, certified.

    Attributes
    ----------
    rows : tuple of int
        Indices of the rows that define facets (one per distinct half-space; a row
        equal to an earlier one up to a positive factor is reported in ``same_as``).
    points : dict int -> tuple of Fraction
        For each facet row, a rational point on its hyperplane that satisfies every
        other distinct row strictly: the proof that the row is a facet, and the place
        where a search crosses it.
    same_as : dict int -> int
        Rows that repeat an earlier row (same half-space): row -> first such row.
    """

    rows: tuple
    points: dict = field(default_factory=dict)
    same_as: dict = field(default_factory=dict)


def _dedupe_rows(int_rows):
    first, same_as, distinct = {}, {}, []
    for i, r in int_rows:
        if r in first:
            same_as[i] = first[r]
        else:
            first[r] = i
            distinct.append((i, r))
    return distinct, same_as


def _facet_point_ok(distinct, k, num, den) -> bool:
    """``num / den`` lies on row k's hyperplane and strictly inside every other distinct row."""
    for j, (_, r) in enumerate(distinct):
        s = sum(a * x for a, x in zip(r, num)) - r[-1] * den
        if (j == k and s != 0) or (j != k and s >= 0):
            return False
    return True


def _project_to_hyperplane(point, row, sigma=1.0):
    """The orthogonal projection of a float point onto ``a.x = beta``, as integers over a denominator.

    The float point is first rounded to a multiple of ``2^-40 sigma`` (the polyhedron's
    scale, see :func:`_scale`); the projection itself is exact.
    """
    a, beta = row[:-1], row[-1]
    scale = 1 << max(40, 40 - math.frexp(sigma)[1])
    num = [round(v * scale) for v in point]
    norm2 = sum(ai * ai for ai in a)
    slack = beta * scale - sum(ai * xi for ai, xi in zip(a, num))  # (beta - a.x) * scale
    return tuple(xi * norm2 + slack * ai for xi, ai in zip(num, a)), scale * norm2


def facets(A, b, point) -> FacetSet:
    """The facet rows of the full-dimensional polyhedron ``{x : A x <= b}``, certified.

    ``point`` must satisfy ``A x < b`` strictly (for example ``interior_point(A, b).point``).
    Qhull intersects the half-spaces (in homogeneous coordinates, so unbounded
    polyhedra need no bounding box); each reported facet gets a rational point in its
    relative interior checked exactly, and each discarded row gets an exact conic
    combination of facet rows that implies it.  Rows where a check fails are decided
    by an exact LP, counted in :data:`COUNTERS`.

    >>> fs = facets([[1, 0], [0, 1], [-1, 0], [1, 1]], [1, 1, 0, 5], [Fraction(1, 2), 0])
    >>> fs.rows                                # x + y <= 5 is implied by x <= 1, y <= 1
    (0, 1, 2)
    """
    A = [tuple(_exact_number(v) for v in row) for row in A]
    b = [_exact_number(v) for v in b]
    return integer_facets([integer_row(list(a) + [bi]) for a, bi in zip(A, b)], point)


def integer_facets(rows, point) -> FacetSet:
    """:func:`facets` for rows already given as integer tuples ``(a_1, ..., a_d, b)``.

    The rows may be any positive multiples (:func:`integer_row` makes them primitive,
    which identifies repeated half-spaces); callers that keep integer rows across many
    polyhedra (the region search) skip every rational conversion this way.

    >>> integer_facets([(1, 0, 1), (0, 1, 1), (-1, 0, 0), (1, 1, 5)], [Fraction(1, 2), 0]).rows
    (0, 1, 2)
    """
    point = tuple(to_rational(v) for v in point)
    primitive = [integer_row(r) for r in rows]
    zero_rows = [(i, r[-1]) for i, r in enumerate(primitive) if not any(r[:-1])]
    rows = [(i, r) for i, r in enumerate(primitive) if any(r[:-1])]
    if any(rhs <= 0 for _, rhs in zero_rows) or not _strictly_inside(rows, point):
        raise InvalidInputError("facets() needs a point strictly inside every row; got one that is not")
    distinct, same_as = _dedupe_rows(rows)
    if not distinct:
        return FacetSet(rows=(), points={}, same_as=same_as)
    d = len(point)
    sigma = _scale([r for _, r in distinct], point)
    claim = _qhull_facets(distinct, d, point, sigma)
    facet_idx, pts = [], {}
    undecided = []
    if claim is None:
        undecided = list(range(len(distinct)))
    else:
        is_facet, fpoints = claim
        for k in range(len(distinct)):
            if is_facet[k]:
                p = fpoints.get(k)
                if p is not None:
                    num, den = _project_to_hyperplane(p, distinct[k][1], sigma)
                    if _facet_point_ok(distinct, k, num, den):
                        facet_idx.append(k)
                        pts[k] = tuple(Fraction(v, den) for v in num)
                        continue
                undecided.append(k)
        facet_rows = [distinct[k][1] for k in facet_idx]
        cone = _facet_cone(facet_rows, d, sigma) if facet_rows else None
        for k in range(len(distinct)):
            if not is_facet[k] and not _implied(distinct[k][1], facet_rows, d, cone, sigma):
                undecided.append(k)
        if undecided:
            COUNTERS.fallbacks += 1
        else:
            COUNTERS.certified += 1
    for k in undecided:
        others = [r for j, (_, r) in enumerate(distinct) if j != k]
        r = distinct[k][1]
        cert = relative_interior_point([o[:-1] for o in others], [o[-1] for o in others], [r[:-1]], [r[-1]])
        if cert.point is not None:
            facet_idx.append(k)
            pts[k] = cert.point
    facet_idx.sort()
    return FacetSet(rows=tuple(distinct[k][0] for k in facet_idx),
                    points={distinct[k][0]: pts[k] for k in facet_idx}, same_as=same_as)


def _scale(int_rows, point) -> float:
    """A length ``sigma`` at which the polyhedron has size ~1: its rows' distances from 0 and the point.

    Substituting ``x = sigma x'`` multiplies the normals by ``sigma`` and keeps every
    conic relation between homogenised rows, so float steps can work at unit scale
    while the exact checks see the original rows.
    """
    G = _float_rows([list(r[:-1]) + [r[-1]] for r in int_rows])
    with np.errstate(all="ignore"):
        reach = np.abs(G[:, -1]) / np.linalg.norm(G[:, :-1], axis=1)
    z = _float_point(point)
    size = float(np.max(np.abs(z), initial=0.0)) if z is not None else 0.0
    return float(max(np.max(reach[np.isfinite(reach)], initial=0.0), size)) or 1.0


def _qhull_facets(distinct, d, point, sigma=1.0):
    """Float claim: which rows are facets, and a float point inside each facet."""
    from scipy.spatial import HalfspaceIntersection
    from scipy.spatial import QhullError

    G = _float_rows([list(r[:-1]) + [-r[-1]] for _, r in distinct])
    z0 = _float_point(list(point) + [1])
    if d == 0 or z0 is None:
        return None
    G[:, :-1] *= sigma  # x = sigma x': size ~1 in the primed coordinates
    if not np.all(np.isfinite(G)):
        return None
    z0[:-1] /= sigma
    norms = np.linalg.norm(G, axis=1)
    if not np.all(norms > 0):  # a row underflowed at this scale: no float claim
        return None
    G /= norms[:, None]
    D = d + 1
    box = np.hstack([np.vstack([np.eye(D), -np.eye(D)]), -np.ones((2 * D, 1))])
    trow = np.zeros((1, D + 1))
    trow[0, D - 1] = -1.0
    H = np.vstack([np.hstack([G, np.zeros((len(G), 1))]), trow, box])
    z0 /= 2 * np.max(np.abs(z0))
    try:
        with np.errstate(all="ignore"):
            hs = HalfspaceIntersection(H, z0)
    except (QhullError, ValueError):
        return None
    verts = hs.intersections
    if not np.all(np.isfinite(verts)):
        return None
    nrows = len(distinct)
    on_facet = [[] for _ in range(nrows)]  # primal vertices on each row's hyperplane
    for v, active in enumerate(hs.dual_facets):
        for k in active:
            if k < nrows:
                on_facet[k].append(v)
    is_facet = [bool(on) for on in on_facet]
    fpoints = {}
    for k in range(nrows):
        if on_facet[k]:
            zbar = verts[on_facet[k]].mean(axis=0)
            if zbar[-1] > 1e-12:
                fpoints[k] = sigma * zbar[:-1] / zbar[-1]
    return is_facet, fpoints


def _implied(row, facet_rows, d, cone=None, sigma=1.0) -> bool:
    """Exact proof that ``a.x <= beta`` follows from the facet rows (and t >= 0).

    NNLS proposes the support of a conic combination of the homogenised facet rows
    ``(a_f, -b_f)`` (and ``(0, -1)``); an exact solve on that support must then give
    nonnegative multipliers.  ``cone`` is the normalised float matrix of those rows,
    built once per polyhedron by :func:`_facet_cone`.
    """
    if not facet_rows:
        return False
    from scipy.optimize import nnls

    G = _facet_cone(facet_rows, d, sigma) if cone is None else cone
    g = _float_rows([list(row[:-1]) + [-row[-1]]])[0]
    g[:-1] *= sigma
    try:
        y, resid = nnls(G, g)
    except (RuntimeError, ValueError):
        return False
    support = [k for k in range(G.shape[1]) if y[k] > 1e-12 * max(1.0, y.max())]
    if not support:
        return False
    cols = [list(facet_rows[k][:-1]) + [-facet_rows[k][-1]] if k < len(facet_rows) else [0] * d + [-1]
            for k in support]
    target = list(row[:-1]) + [-row[-1]]
    # the exact combination on the support: sum_k y_k cols[k] = target, y >= 0
    ys = solve([[c[j] for c in cols] for j in range(d + 1)], target)
    return ys is not None and all(v >= 0 for v in ys)


def _facet_cone(facet_rows, d, sigma=1.0) -> np.ndarray:
    """Columns: the homogenised facet rows and ``t >= 0`` (normals times ``sigma``), unit length (floats)."""
    G = _float_rows([list(r[:-1]) + [-r[-1]] for r in facet_rows] + [[0] * d + [-1]]).T
    G[:-1] *= sigma
    norms = np.linalg.norm(G, axis=0)
    return G / np.where(norms > 0, norms, 1.0)
