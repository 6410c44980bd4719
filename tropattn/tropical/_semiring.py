"""The max-plus semiring ``T = Q ∪ {-inf}``: ``a ⊕ b = max(a, b)``, ``a ⊙ b = a + b``.

>>> tropical_add(1, "5/2"), tropical_mul(1, "1/2")
(Fraction(5, 2), Fraction(3, 2))
"""

from __future__ import annotations

from fractions import Fraction

from .. import exact

__all__ = ["NEG_INF", "tropical_add", "tropical_mul"]


NEG_INF = exact.NEG_INF


def _scalar(value, name):
    return exact.to_rational(value, name, allow_neg_inf=True)


def tropical_add(*values):
    """Tropical sum ``a ⊕ b ⊕ ... = max(a, b, ...)``; ``-inf`` is its neutral element.

    Parameters
    ----------
    *values : numbers (int, Fraction, ``"p/q"`` strings, floats, ``-inf``)

    Returns
    -------
    Fraction, or :data:`tropattn.exact.NEG_INF` for an empty sum or all ``-inf``.

    Raises
    ------
    InvalidInputError
        A value that is not a number, NaN, or ``+inf`` (``values[i]`` names it).

    Examples
    --------
    >>> tropical_add(1, "5/2", float("-inf"))
    Fraction(5, 2)
    >>> tropical_add()
    -inf
    """
    return max((_scalar(v, f"values[{i}]") for i, v in enumerate(values)), default=NEG_INF)


def tropical_mul(*values):
    """Tropical product ``a ⊙ b ⊙ ... = a + b + ...``; ``0`` is neutral, ``-inf`` absorbing.

    Parameters
    ----------
    *values : numbers (int, Fraction, ``"p/q"`` strings, floats, ``-inf``)

    Returns
    -------
    Fraction, or :data:`tropattn.exact.NEG_INF` if any factor is ``-inf``; ``0`` for
    an empty product.

    Raises
    ------
    InvalidInputError
        A value before the first ``-inf`` that is not a number, NaN, or ``+inf``
        (``values[i]`` names it); values after a ``-inf`` are not read.

    Examples
    --------
    >>> tropical_mul(1, "1/2"), tropical_mul(3, float("-inf")), tropical_mul()
    (Fraction(3, 2), -inf, Fraction(0, 1))

    ``⊙`` distributes over ``⊕``: ``a + max(b, c) = max(a + b, a + c)``.

    >>> tropical_mul(2, tropical_add(1, 5)) == tropical_add(tropical_mul(2, 1), tropical_mul(2, 5))
    True
    """
    total = Fraction(0)
    for i, v in enumerate(values):
        q = _scalar(v, f"values[{i}]")
        if q == NEG_INF:
            return NEG_INF
        total += q
    return total
