"""The one validation module: scalar parameters, choices and float arrays, checked with one voice.

Every public function of tropattn checks its parameters here (numbers that become exact
rationals are converted by :mod:`tropattn.exact`, which also refuses NaN and infinity).
A failed check raises :class:`~tropattn.errors.InvalidInputError` whose message names the
parameter, shows the value given and says what it must be, so the command line can print it
as its one line::

    tropattn: error: T = -1; the time horizon must be a finite number > 0

>>> positive_int(3, "keys")
3
>>> positive_float("0.5", "tau")
0.5
>>> choice("fist", "ties", ("refuse", "first"))
Traceback (most recent call last):
...
tropattn.errors.InvalidInputError: ties = 'fist'; use one of 'refuse', 'first' (did you mean 'first'?)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .errors import InvalidInputError
from ._lazy import lazy_import

difflib = lazy_import("difflib")  # read on first use: only a misspelt name's suggestion needs it

__all__ = ["positive_int", "nonnegative_int", "positive_float", "finite_float", "bounded_float", "choice",
           "float_array", "at_most"]


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def positive_int(value, name: str, minimum: int = 1, meaning: str | None = None) -> int:
    """``value`` as an ``int >= minimum``, else an InvalidInputError naming ``name``.

    Parameters
    ----------
    value : object
        The value given (booleans and floats are refused: ``3.0`` keys is a typo, not three keys).
    name : str
        Its name in the message (``"keys"``, ``"--steps"``).
    minimum : int, optional
        The smallest value allowed (default 1).
    meaning : str, optional
        What the value is, for the message (``"the number of bracket types"``).

    Returns
    -------
    int

    Raises
    ------
    InvalidInputError
        ``value`` is not an integer or is below ``minimum``.

    Examples
    --------
    >>> positive_int(0, "steps", meaning="the number of training steps")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: steps = 0; the number of training steps must be an integer >= 1
    """
    if not _is_int(value) or value < minimum:
        what = meaning or "it"
        raise InvalidInputError(f"{name} = {value!r}; {what} must be an integer >= {minimum}")
    return int(value)


def nonnegative_int(value, name: str, meaning: str | None = None) -> int:
    """``value`` as an ``int >= 0`` (see :func:`positive_int`).

    >>> nonnegative_int(0, "seed")
    0
    """
    return positive_int(value, name, 0, meaning)


def _float(value) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, str, np.floating, np.integer)):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return math.nan


def finite_float(value, name: str, meaning: str | None = None) -> float:
    """``value`` as a finite float, else an InvalidInputError (NaN, infinity, 1e400 and non-numbers are refused).

    >>> finite_float("-2.5", "offset")
    -2.5
    >>> finite_float("1e400", "box")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: box = '1e400'; it must be a finite number (1e400 overflows a float)
    """
    v = _float(value)
    if not math.isfinite(v):
        what = meaning or "it"
        hint = f" ({value} overflows a float)" if isinstance(value, str) and _overflows(value) else ""
        raise InvalidInputError(f"{name} = {value!r}; {what} must be a finite number{hint}")
    return v


def _overflows(text: str) -> bool:
    try:
        return math.isinf(float(text)) and not text.strip().lstrip("+-").lower().startswith("inf")
    except ValueError:
        return False


def positive_float(value, name: str, rule: str | None = None, meaning: str | None = None) -> float:
    """``value`` as a finite float ``> 0``, else an InvalidInputError naming ``name``.

    Parameters
    ----------
    value : object
        A number (anything ``float()`` accepts, but not a boolean).
    name : str
        Its name in the message, e.g. ``"tau"`` or ``"--dt"``.
    rule : str, optional
        The whole of what the message says after the value (default: ``"<meaning> must be a
        finite number > 0"``).
    meaning : str, optional
        What the value is (``"the time step"``).

    Returns
    -------
    float

    Raises
    ------
    InvalidInputError
        ``value`` is not a number, is NaN or infinite, or is ``<= 0``.

    Examples
    --------
    >>> positive_float(0, "dt", meaning="the time step")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: dt = 0; the time step must be a finite number > 0
    """
    v = _float(value)
    if not (math.isfinite(v) and v > 0):
        raise InvalidInputError(f"{name} = {value!r}; {rule or (meaning or 'it') + ' must be a finite number > 0'}")
    return v


def bounded_float(value, name: str, lo: float, hi: float, meaning: str | None = None, open_lo: bool = False,
                  open_hi: bool = False) -> float:
    """``value`` as a float in ``[lo, hi]`` (ends open on request), else an InvalidInputError.

    >>> bounded_float(0.5, "eps", 0, 1, open_lo=True, open_hi=True)
    0.5
    >>> bounded_float(1, "eps", 0, 1, meaning="the error level", open_lo=True, open_hi=True)
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: eps = 1; the error level must lie in (0, 1)
    """
    v = _float(value)
    ok = math.isfinite(v) and (v > lo if open_lo else v >= lo) and (v < hi if open_hi else v <= hi)
    if not ok:
        interval = f"{'(' if open_lo else '['}{lo:g}, {hi:g}{')' if open_hi else ']'}"
        raise InvalidInputError(f"{name} = {value!r}; {meaning or 'it'} must lie in {interval}")
    return v


def choice(value, name: str, choices, meaning: str | None = None):
    """``value`` if it is one of ``choices``, else an InvalidInputError listing them (and the closest).

    Parameters
    ----------
    value : object
    name : str
        Its name in the message (``"method"``).
    choices : sequence
        The allowed values.
    meaning : str, optional
        A sentence on what the choices mean, appended to the message.

    Returns
    -------
    object
        ``value``.

    Raises
    ------
    InvalidInputError
        ``value`` is not among ``choices``.

    Examples
    --------
    >>> choice("dual", "method", ("auto", "primal", "dual"))
    'dual'
    """
    try:
        ok = value in choices
    except TypeError:  # an unhashable value against a set
        ok = False
    if not ok:
        listed = ", ".join(repr(c) for c in choices)
        close = difflib.get_close_matches(value, [str(c) for c in choices], n=1) if isinstance(value, str) else []
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        tail = f"; {meaning}" if meaning else ""
        raise InvalidInputError(f"{name} = {value!r}; use one of {listed}{hint}{tail}")
    return value


def float_array(x, name: str, ndim: int | None = None, shape: tuple | None = None, allow_empty: bool = False):
    """``x`` as a finite float64 array of the given rank or shape, else an InvalidInputError.

    Parameters
    ----------
    x : array_like
        Numbers.
    name : str
        Its name in the message.
    ndim : int, optional
        The required number of axes.
    shape : tuple, optional
        The required shape; ``None`` entries match any length.
    allow_empty : bool, optional
        Accept an array with no entries (default False).

    Returns
    -------
    numpy.ndarray
        A float64 array (a copy when ``x`` was not one already).

    Raises
    ------
    InvalidInputError
        Not numbers, NaN or infinite entries (also from overflow, such as ``"1e400"``), the wrong
        rank or shape, or empty.

    Examples
    --------
    >>> float_array([[0, 1], [2, 3]], "X", shape=(None, 2)).shape
    (2, 2)
    >>> float_array([[0, 1]], "X", shape=(None, 3))
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: X has shape (1, 2); expected (n, 3)
    """
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            a = np.asarray(x, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise InvalidInputError(f"{name} must be an array of numbers; got {type(x).__name__}") from None
    if ndim is not None and a.ndim != ndim:
        raise InvalidInputError(f"{name} must have {ndim} axes; got shape {a.shape}")
    if shape is not None and (a.ndim != len(shape) or any(s is not None and s != n for s, n in zip(shape, a.shape))):
        want = "(" + ", ".join("n" if s is None else str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"
        raise InvalidInputError(f"{name} has shape {a.shape}; expected {want}")
    if a.size == 0 and not allow_empty:
        raise InvalidInputError(f"{name} is empty; give at least one entry")
    if not np.all(np.isfinite(a)):
        raise InvalidInputError(f"{name} contains NaN or infinite entries (or numbers beyond the float range); "
                                "every entry must be a finite number")
    return a


def at_most(value: int, name: str, limit: int, why: str) -> int:
    """``value`` if it is at most ``limit``, else an InvalidInputError that says why the limit is there.

    For requests past what the machine can do (workers beyond the cores, sizes whose cost is known).

    >>> at_most(2, "--workers", 4, "this machine has 4 cores")
    2
    >>> at_most(100000, "--workers", 4, "this machine has 4 cores")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: --workers = 100000 is more than 4: this machine has 4 cores
    """
    if value > limit:
        raise InvalidInputError(f"{name} = {value!r} is more than {limit}: {why}")
    return value
