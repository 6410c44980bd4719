"""Numbers in, exactly: rationals from every input type, integer rows, formatting.

Every number enters tropattn once, through :func:`to_rational` (ints, Fractions,
``"p/q"`` and decimal strings, Python/numpy floats converted exactly, sympy/gmpy/flint
rationals); NaN and infinities are refused.  Rows and points are then kept as
integers over one common denominator (:func:`common_denominator`,
:func:`homogeneous_point`, :func:`integer_row`): Python integers are exact and much
faster than Fractions in the hot loops.

>>> to_rational("3/4"), to_rational(0.5)
(Fraction(3, 4), Fraction(1, 2))
>>> homogeneous_point([Fraction(1, 2), Fraction(1, 3)])     # (3/6, 2/6)
((3, 2), 6)
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
import numbers
import operator
import re
import sys
from decimal import Decimal
from fractions import Fraction
from typing import Sequence

import numpy as np

from .._lazy import lazy_import
from .._validate import positive_float  # noqa: F401  (re-exported for callers not yet moved to tropattn._validate)
from ..errors import InvalidInputError, ModelFileError

sympy = lazy_import("sympy")

__all__ = ["json_number", "NEG_INF", "common_denominator", "to_rational", "to_rational_vector", "to_rational_matrix", "to_float_array", "integer_row", "homogeneous_point", "format_rational", "format_point", "scaled_ints", "exact_number", "float_rows", "float_point", "homogeneous_row", "homogeneous_rows", "primitive_row", "rows_to_fractions", "set_bits", "unlimited_int_digits", "load_json"]


@contextlib.contextmanager
def unlimited_int_digits():
    """Lift Python's int/str digit limit (4,300 digits) inside the block, then restore it.

    The one place tropattn handles the limit: parsing numbers (:func:`to_rational`),
    reading JSON files and printing exact results all go through it, so the Python API
    and the command line accept and print the same 5,000-digit numbers.

    Returns
    -------
    contextlib.AbstractContextManager
        A context manager; on exit the previous limit is restored (a no-op on Pythons
        without ``sys.get_int_max_str_digits``).

    Examples
    --------
    >>> with unlimited_int_digits():
    ...     len(str(10 ** 5000))
    5001
    """
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:
        yield
        return
    old = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(old)


#: The tropical zero.  :func:`to_rational` returns it for ``-inf`` when asked to.
NEG_INF = float("-inf")



def load_json(path):
    """Read a JSON file, turning I/O and syntax errors into :class:`ModelFileError`.

    Parameters
    ----------
    path : str or Path
        The file.  Integers of any length are read (Python's int-string digit limit is
        lifted for this one call, so the API and the CLI agree).

    Returns
    -------
    object
        The parsed JSON value.

    Raises
    ------
    ModelFileError
        A missing file, a directory, or text that is not JSON.

    Examples
    --------
    >>> load_json("no/such/file.json")
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: no such file: no/such/file.json
    """
    try:
        with open(path, encoding="utf-8") as fh, unlimited_int_digits():
            return json.load(fh)
    except FileNotFoundError:
        raise ModelFileError(f"no such file: {path}") from None
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, UnicodeDecodeError) as exc:  # e.g. an integer literal beyond Python's digit limit
        raise ModelFileError(f"{path} cannot be read as JSON: {exc}; write very long numbers as strings "
                             "such as \"123...\" or \"1e-5000\"") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path} is a directory; give the path of a JSON file") from None
    except RecursionError:
        raise ModelFileError(f"{path} nests arrays or objects too deeply to be read as JSON "
                             "(no tropattn file needs more than a few levels)") from None

def to_rational(value, name: str = "value", *, allow_neg_inf: bool = False):
    """Convert one number to a :class:`~fractions.Fraction`, exactly.

    Floats are converted to the rational they represent (``0.1`` becomes
    ``3602879701896397/36028797018963968``); write ``"0.1"`` or ``"1/10"`` for the
    decimal.  ``-inf`` is accepted only where ``allow_neg_inf`` (the tropical zero)
    and is returned as :data:`NEG_INF`.

    Parameters
    ----------
    value : int, float, str, Fraction, Decimal, numpy scalar, sympy/gmpy/flint rational
        The number.  Strings may be integers, ``"p/q"`` fractions or decimals such as
        ``"0.25"`` and ``"1e-3"``.
    name : str, optional
        How error messages call the value (e.g. ``"keys[0][1]"``).
    allow_neg_inf : bool, optional
        Accept ``-inf`` (the tropical zero) and return :data:`NEG_INF` for it.

    Returns
    -------
    Fraction or float
        The exact rational value, or :data:`NEG_INF` for ``-inf`` when allowed.

    Raises
    ------
    InvalidInputError
        For NaN, infinities (``-inf`` unless allowed), booleans, unparsable strings,
        zero denominators, exponents beyond 10^10000, and non-numeric types.

    Examples
    --------
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
        with unlimited_int_digits():
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

    Parameters
    ----------
    values : sequence or numpy.ndarray, shape (n,)
        The numbers (any type :func:`to_rational` accepts).
    name : str, optional
        How error messages call the vector; entries are named ``name[i]``.
    length : int or None, optional
        Required length ``n``; None accepts any length.
    allow_neg_inf : bool, optional
        Accept ``-inf`` entries (the tropical zero).

    Returns
    -------
    tuple of Fraction
        The exact entries, in order.

    Raises
    ------
    InvalidInputError
        When the input is not one-dimensional, has the wrong length, is ragged, or an
        entry is not a finite number (see :func:`to_rational`).

    Examples
    --------
    >>> to_rational_vector(["1/2", 3, 0.25])
    (Fraction(1, 2), Fraction(3, 1), Fraction(1, 4))
    >>> to_rational_vector([[1, 2]], "offsets")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: offsets has shape (1, 2); expected (n,). Pass a flat list of numbers.
    """
    if isinstance(values, (list, tuple)) and (length is None or len(values) == length) and all(
            type(v) is Fraction for v in values):       # already exact: no per-entry parsing
        return tuple(values)
    shape = _nested_shape(values, name)
    _check_shape(shape, (length,), name, "Pass a flat list of numbers.")
    return tuple(to_rational(v, f"{name}[{i}]", allow_neg_inf=allow_neg_inf) for i, v in enumerate(values))


def to_rational_matrix(values, name: str = "matrix", rows: int | None = None,
                       cols: int | None = None) -> tuple:
    """Convert a 2-D nested sequence or array to a tuple of tuples of Fractions.

    Parameters
    ----------
    values : nested sequence or numpy.ndarray, shape (rows, cols)
        The rows (any entry type :func:`to_rational` accepts).  An empty list gives
        ``()`` when ``rows`` is None or 0.
    name : str, optional
        How error messages call the matrix; entries are named ``name[i][j]``.
    rows, cols : int or None, optional
        Required number of rows and columns; None accepts any.

    Returns
    -------
    tuple of tuple of Fraction
        The exact rows.

    Raises
    ------
    InvalidInputError
        When the input is not two-dimensional, is ragged, has the wrong shape, or an
        entry is not a finite number.

    Examples
    --------
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
    seq = (list, tuple)
    if not all([type(row) in seq and len(row) == width for row in values]):
        if not all(isinstance(row, seq) and len(row) == width for row in values):
            return None
    if not all([type(v) is Fraction for row in values for v in row]):
        return None
    return tuple([tuple(row) for row in values])


def to_float_array(values) -> np.ndarray:
    """Nested Fractions (or anything numeric) as a float64 array: for pictures and filters only.

    The conversion rounds; never decide an exact answer from its result alone.

    Parameters
    ----------
    values : nested sequence of numbers
        Any array-like numpy can convert.

    Returns
    -------
    numpy.ndarray of float64
        Same shape as ``values``.

    Examples
    --------
    >>> to_float_array([[Fraction(1, 2), 3]])
    array([[0.5, 3. ]])
    """
    return np.array(values, dtype=float)


def common_denominator(values) -> int:
    """The least positive common denominator of rationals (ints count as denominator 1).

    The one routine that clears denominators in tropattn: integer rows and integer
    score forms start here; :func:`homogeneous_point` takes the same lcm of the
    (numerator, denominator) pairs it reads once per coordinate.

    Parameters
    ----------
    values : iterable of Fraction or int
        The rationals; an empty iterable gives 1.

    Returns
    -------
    int
        ``lcm`` of the denominators, at least 1.

    Examples
    --------
    >>> common_denominator([Fraction(1, 2), Fraction(-3, 4), 5])
    4
    """
    return math.lcm(1, *[v.denominator for v in values])


def integer_row(values: Sequence[Fraction]) -> tuple[int, ...]:
    """Scale a rational vector by the positive lcm of its denominators, then divide by the gcd.

    The result is the primitive integer vector on the same ray: two rows define the
    same half-space ``a.x <= b`` iff their integer rows ``(a, b)`` are equal.

    Parameters
    ----------
    values : sequence of Fraction, shape (n,)
        The rational row.

    Returns
    -------
    tuple of int, shape (n,)
        The primitive integer row (positive multiple of ``values``; zero stays zero).

    Examples
    --------
    >>> integer_row([Fraction(1, 2), Fraction(-3, 4), Fraction(0)])
    (2, -3, 0)
    """
    ints = scaled_ints(values)
    g = math.gcd(*ints)
    return tuple(v // g for v in ints) if g > 1 else tuple(ints)


def homogeneous_point(point: Sequence[Fraction]) -> tuple[tuple[int, ...], int]:
    """A rational point as integer numerators over one positive common denominator.

    Parameters
    ----------
    point : sequence of Fraction, shape (n,)
        The rational point.

    Returns
    -------
    nums : tuple of int, shape (n,)
        Numerators with ``point[i] == nums[i] / den``.
    den : int
        The least positive common denominator.

    Numerators and denominators are made Python ints first (numpy integers, or Fractions
    built from them, would multiply in wrapping int64).

    Examples
    --------
    >>> homogeneous_point([Fraction(1, 2), Fraction(1, 3)])
    ((3, 2), 6)
    >>> nums, den = homogeneous_point([np.int64(5), Fraction(np.int64(1), np.int64(3)), Fraction(1, 3 ** 40)])
    >>> nums == (5 * 3 ** 40, 3 ** 39, 1) and den == 3 ** 40 and all(type(a) is int for a in nums)
    True
    """
    pairs = [v.as_integer_ratio() if type(v) in _RATIOS else (v.numerator, v.denominator) for v in point]
    pairs = [(a, q) if type(a) is int and type(q) is int else (int(a), int(q)) for a, q in pairs]
    den = math.lcm(1, *[q for _, q in pairs])  # common_denominator, from the pairs read once
    return tuple([a * (den // q) for a, q in pairs]), den


#: Types whose ``as_integer_ratio`` is their exact (numerator, denominator): one call, not two properties.
_RATIOS = frozenset({Fraction, int})


def format_rational(x) -> str:
    """``3``, ``-1/2``: the exact value as text (what JSON output and messages show).

    Parameters
    ----------
    x : Fraction, int or str
        Any value :class:`~fractions.Fraction` accepts exactly.

    Returns
    -------
    str
        ``"p"`` for integers, ``"p/q"`` otherwise (lowest terms, sign on ``p``).

    Examples
    --------
    >>> format_rational(Fraction(-1, 2)), format_rational(3)
    ('-1/2', '3')
    """
    x = Fraction(x)
    with unlimited_int_digits():
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def format_point(x) -> str:
    """A rational point as text, e.g. ``(1/2, -3)``; a 1-tuple keeps its comma.

    Parameters
    ----------
    x : sequence of Fraction or int
        The coordinates.

    Returns
    -------
    str
        The point in tuple notation, coordinates as :func:`format_rational` writes them.

    Examples
    --------
    >>> format_point((Fraction(1, 2), Fraction(-3))), format_point((Fraction(0),))
    ('(1/2, -3)', '(0,)')
    """
    return "(" + ", ".join(format_rational(v) for v in x) + ("," if len(x) == 1 else "") + ")"


def scaled_ints(values: Sequence[Fraction]) -> list[int]:
    """A rational vector times the lcm of its denominators (same ray, integer entries).

    Unlike :func:`integer_row` the common gcd is not divided out.

    Parameters
    ----------
    values : sequence of Fraction, shape (n,)
        The rational vector.

    Returns
    -------
    list of int, shape (n,)
        ``values[i] * common_denominator(values)``.

    Examples
    --------
    >>> scaled_ints([Fraction(1, 2), Fraction(1, 3)])
    [3, 2]
    """
    den = common_denominator(values)
    return [v.numerator * (den // v.denominator) for v in values]


def exact_number(v):
    """ints and Fractions pass through (both have numerator/denominator); others are converted.

    Parameters
    ----------
    v : number
        Any value :func:`to_rational` accepts.

    Returns
    -------
    int or Fraction
        ``v`` itself when it is an ``int`` or ``Fraction``, else ``to_rational(v)``.

    Raises
    ------
    InvalidInputError
        When ``v`` is converted and is not a finite number (see :func:`to_rational`).

    Examples
    --------
    >>> exact_number(3), exact_number("1/3"), exact_number(0.25)
    (3, Fraction(1, 3), Fraction(1, 4))
    """
    return v if type(v) is int or type(v) is Fraction else to_rational(v)


def float_rows(int_rows) -> np.ndarray:
    """Integer rows as floats, each scaled by a power of two so that nothing overflows.

    A positive factor does not change the half-space a row ``(a, b)`` describes, and
    every float answer is certified afterwards, so the scaling costs no exactness.

    Parameters
    ----------
    int_rows : sequence of sequence of int, shape (m, n)
        Integer rows (each nonempty).

    Returns
    -------
    numpy.ndarray of float64, shape (m, n)
        Row ``i`` is ``int_rows[i] / 2**s_i`` rounded, with ``s_i >= 0`` chosen so the
        largest entry has at most about 500 bits.

    Examples
    --------
    >>> float_rows([[1, -2, 3]])
    array([[ 1., -2.,  3.]])
    >>> float(float_rows([[2 ** 600, 1]])[0, 1])     # the row is scaled by 2^-100 as a whole
    0.0
    """
    out = []
    for r in int_rows:
        shift = max(0, max(abs(v).bit_length() for v in r) - 500)
        out.append([float(v >> shift) if v >= 0 else -float(-v >> shift) for v in r])
    return np.array(out, dtype=float)


def float_point(point):
    """A rational point as floats, or None when a coordinate is beyond the float range.

    Parameters
    ----------
    point : sequence of Fraction or int, shape (n,)
        The rational point.

    Returns
    -------
    numpy.ndarray of float64, shape (n,), or None
        The rounded coordinates (for float filters only), or None on overflow.

    Examples
    --------
    >>> float_point([Fraction(1, 4), 2])
    array([0.25, 2.  ])
    >>> float_point([10 ** 400]) is None
    True
    """
    try:
        return np.array([float(v) for v in point])
    except OverflowError:
        return None


def homogeneous_row(point: Sequence[Fraction]) -> tuple:
    """``(num_1, ..., num_n, den)``: the integer row of a rational point over its least denominator.

    Parameters
    ----------
    point : sequence of Fraction, shape (n,)
        The rational point.

    Returns
    -------
    tuple of int, shape (n + 1,)
        The numerators of :func:`homogeneous_point` followed by the denominator.

    Examples
    --------
    >>> homogeneous_row([Fraction(1, 2), Fraction(1, 3)])
    (3, 2, 6)
    """
    nums, den = homogeneous_point(point)
    return nums + (den,)


def homogeneous_rows(points: Sequence[Sequence[Fraction]]) -> np.ndarray | None:
    """:func:`homogeneous_row` of every point at once, as an int64 array, or None when out of range.

    The ``(numerator, denominator)`` pairs are read in one pass (no Fraction arithmetic),
    the least common denominator of each row is built column by column in int64
    (``l = l / gcd(l, q) * q``), and each numerator is scaled by ``l / q``.  Every step
    is guarded so that no int64 operation can wrap: a quotient is formed before its
    product, and a product is taken only where its float estimate (relative error
    below ``2^-50``) stays under ``2^61``.  When a guard fails (or a numerator or
    denominator does not fit int64) the answer is None and the caller takes the
    general path; the entries of the answer are below ``2^61``.

    Parameters
    ----------
    points : sequence of sequence of Fraction or int, shape (m, n)
        The rational points (Fractions in lowest terms, as Python makes them).

    Returns
    -------
    numpy.ndarray of int64, shape (m, n + 1), or None
        Row ``i`` equals ``homogeneous_row(points[i])``.

    Examples
    --------
    >>> homogeneous_rows([[Fraction(1, 2), Fraction(1, 3)], [Fraction(-2, 5), 4]]).tolist()
    [[3, 2, 6], [-2, 20, 5]]
    >>> homogeneous_rows([[Fraction(1, 2 ** 40), Fraction(1, 3 ** 30)]]) is None    # lcm beyond 2^61
    True
    """
    m = len(points)
    n = len(points[0]) if m else 0
    if not m or not n:
        return None
    flat = list(itertools.chain.from_iterable(points))
    try:
        try:  # Fractions only (what to_rational_matrix gives): their slots read in C, one array each
            num = np.fromiter(map(_NUMERATOR, flat), dtype=np.int64, count=m * n)
            den = np.fromiter(map(_DENOMINATOR, flat), dtype=np.int64, count=m * n)
        except (TypeError, AttributeError):  # an int (or another rational type) among them
            pairs = np.fromiter(itertools.chain.from_iterable(map(_ratio, flat)), dtype=np.int64, count=2 * m * n)
            num, den = pairs[0::2], pairs[1::2]
    except (OverflowError, TypeError, ValueError, AttributeError):
        return None
    num, den = num.reshape(m, n), den.reshape(m, n)
    if np.any(den <= 0):
        return None
    lcm = den[:, 0].copy()
    for j in range(1, n):
        step = den[:, j] // np.gcd(lcm, den[:, j])
        if np.any(lcm.astype(float) * step.astype(float) >= _ROW_LIMIT):
            return None
        lcm *= step
    scale = lcm[:, None] // den
    if np.any(np.abs(num).astype(float) * scale.astype(float) >= _ROW_LIMIT):
        return None
    out = np.empty((m, n + 1), dtype=np.int64)
    out[:, :n] = num * scale
    out[:, n] = lcm
    return out


#: :func:`homogeneous_rows` answers only with entries below this bound (float estimates of the
#: products are compared with it, so it stays a power of two well inside int64).
_ROW_LIMIT = 2.0 ** 61


#: The numerator and denominator slots of a Fraction, read without its properties' Python calls
#: (3x faster over a matrix; a type without them raises AttributeError and takes :func:`_ratio`).
_NUMERATOR, _DENOMINATOR = operator.attrgetter("_numerator"), operator.attrgetter("_denominator")


def _ratio(v) -> tuple:
    """``(numerator, denominator)`` of a Fraction or an int (one call for the types that have it)."""
    return v.as_integer_ratio() if type(v) in _RATIOS else (v.numerator, v.denominator)


def primitive_row(row) -> tuple:
    """Divide an integer row by the gcd of its entries (the zero row stays zero).

    Parameters
    ----------
    row : sequence of int
        The integer row.

    Returns
    -------
    tuple of int
        The primitive row on the same ray.

    Examples
    --------
    >>> primitive_row([4, -6, 0]), primitive_row([0, 0])
    ((2, -3, 0), (0, 0))
    """
    g = 0
    for v in row:
        g = math.gcd(g, v)
    return tuple(row) if g <= 1 else tuple(v // g for v in row)


def rows_to_fractions(rows) -> tuple:
    """The rational points of homogeneous integer rows ``(num_1, ..., num_n, den)``, ``den > 0``.

    The inverse of :func:`homogeneous_row`, for many rows at once.  Built with the public
    constructor only: ``Fraction(n)`` when the denominator is 1 (no gcd), ``Fraction(n, d)``
    otherwise (which reduces the pair itself).

    Parameters
    ----------
    rows : sequence of sequence of int, shape (m, n + 1)
        Numerators followed by a positive denominator, one row per point.

    Returns
    -------
    tuple of tuple of Fraction, shape (m, n)
        ``num_i / den`` for each row.

    Examples
    --------
    >>> rows_to_fractions([(3, 2, 6), (1, 4, 1)])
    ((Fraction(1, 2), Fraction(1, 3)), (Fraction(1, 1), Fraction(4, 1)))
    """
    out = []
    for row in rows:
        *num, d = row
        out.append(tuple(map(Fraction, num)) if d == 1 else tuple(Fraction(v, d) for v in num))
    return tuple(out)


def set_bits(mask: int):
    """Indices of the set bits of a Python int, in increasing order.

    Parameters
    ----------
    mask : int
        A non-negative bit mask (e.g. a set of facet or row indices).

    Yields
    ------
    int
        The index of each set bit, lowest first.

    Examples
    --------
    >>> list(set_bits(0b10110))
    [1, 2, 4]
    """
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def json_number(x):
    """An exact rational as JSON holds it: an integer, or the string ``"p/q"``.

    Parameters
    ----------
    x : Fraction, int or str
        Any value :class:`~fractions.Fraction` accepts exactly.

    Returns
    -------
    int or str
        The integer itself, or ``"p/q"`` (see :func:`format_rational`).

    Examples
    --------
    >>> json_number(Fraction(3)), json_number(Fraction(-1, 2))
    (3, '-1/2')
    """
    x = Fraction(x)
    return x.numerator if x.denominator == 1 else format_rational(x)
