"""The one validator of a head in score form: keys ``a_j``, offsets ``b_j``, values ``v_j``, scale.

Both the exact :class:`~tropattn.attention.Head` and the float view
:class:`~tropattn.attention.HeadArrays` read their data through :func:`score_form`,
so a head is checked (and converted exactly) in one place.

>>> keys, offsets, values, scale = score_form([[1, 0], [0, 1]], None, [[10], [20]])
>>> offsets, values[1], scale
((Fraction(0, 1), Fraction(0, 1)), (Fraction(20, 1),), 1.0)
"""

from __future__ import annotations

from .._validate import positive_float
from ..errors import InvalidInputError
from ._domain import QQ

__all__ = ["EMPTY_CONTEXT", "score_form"]

EMPTY_CONTEXT = "the context is empty; attention needs at least one key"


def score_form(keys, offsets=None, values=None, score_scale=1.0, domain=QQ) -> tuple:
    """``(keys, offsets, values, score_scale)`` checked and converted exactly.

    Parameters
    ----------
    keys : (N, d) rationals (or expressions over ``EX``)
    offsets : (N,) rationals, optional (default 0)
    values : (N, d_out) rationals, optional (default: the keys)
    score_scale : positive finite float, optional (default 1)
    domain : Domain, optional
        The number domain of the entries (default ``QQ``; see :mod:`~tropattn.attention._domain`).

    Returns
    -------
    tuple
        Keys and values as tuples of row tuples, offsets a tuple of entries (Fractions
        over ``QQ``), the scale a float.

    Raises
    ------
    InvalidInputError
        Empty keys, keys or values with no coordinates, shapes that do not match,
        NaN or infinite entries, a scale that is not positive and finite.

    Examples
    --------
    Floats are converted exactly (``0.1`` is the dyadic rational nearest to 1/10):

    >>> from fractions import Fraction
    >>> K, B, V, s = score_form([[0.5], [2]], ["1/3", 0.1], score_scale=0.25)
    >>> K[0], B[0], V is K, s
    ((Fraction(1, 2),), Fraction(1, 3), True, 0.25)
    >>> B[1] == Fraction(1, 10), B[1] == Fraction(0.1)
    (False, True)
    >>> score_form([[1], [2]], [0])
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: offsets has shape (1,); expected (2,). Pass a flat list of numbers.
    """
    if keys is None or (hasattr(keys, "__len__") and len(keys) == 0):
        raise InvalidInputError(EMPTY_CONTEXT)
    K = domain.matrix(keys, "keys")
    if not K or not K[0]:
        raise InvalidInputError("keys have 0 coordinates; the query needs dimension d >= 1")
    n = len(K)
    B = (domain.zero(),) * n if offsets is None else domain.vector(offsets, "offsets", n)
    V = K if values is None else domain.matrix(values, "values", rows=n)
    if not V or not V[0]:
        raise InvalidInputError("values have 0 coordinates; give values of shape (N, d_out), d_out >= 1")
    scale = positive_float(score_scale, "score_scale", "it must be a positive finite number")
    return K, B, V, scale

