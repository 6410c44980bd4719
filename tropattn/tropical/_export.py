"""Tropical polynomials as text, LaTeX and sympy expressions.

>>> affine_text((Fraction(2), Fraction(-1)), Fraction(1, 2), ("x", "y"))
'2*x - y + 1/2'
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from .._lazy import lazy_import
from ..exact import format_rational, json_number

if TYPE_CHECKING:
    from ._polynomial import TropicalPolynomial


sympy = lazy_import("sympy")

__all__ = ["affine_text", "affine_latex", "polynomial_to_json"]


def _join_signed(pieces):
    """pieces: list of (sign>=0?, text without sign) -> 'a + b - c'."""
    out = ""
    for k, (neg, text) in enumerate(pieces):
        if k == 0:
            out = ("-" if neg else "") + text
        else:
            out += (" - " if neg else " + ") + text
    return out or "0"


def affine_text(alpha, c, variables):
    """An affine function ``alpha . x + c`` as plain text (the form :func:`parse_polynomial` reads).

    Zero coefficients are dropped, unit coefficients written without ``1*``; the
    zero function is ``"0"``.

    Parameters
    ----------
    alpha : sequence of Fraction, shape (n,)
        The linear coefficients (a term's exponent).
    c : Fraction
        The constant (a term's coefficient).
    variables : sequence of str, shape (n,)
        The variable names.

    Returns
    -------
    str
        E.g. ``"2*x - y + 1/2"``.

    Examples
    --------
    >>> affine_text((Fraction(2), Fraction(-1)), Fraction(1, 2), ("x", "y"))
    '2*x - y + 1/2'
    >>> affine_text((Fraction(0), Fraction(0)), Fraction(0), ("x", "y"))
    '0'
    """
    pieces = []
    for a, v in zip(alpha, variables):
        if a != 0:
            mag = abs(a)
            pieces.append((a < 0, v if mag == 1 else f"{format_rational(mag)}*{v}"))
    if c != 0 or not pieces:
        pieces.append((c < 0, format_rational(abs(c))))
    return _join_signed(pieces)


def _frac_latex(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else rf"\tfrac{{{q.numerator}}}{{{q.denominator}}}"


def _var_latex(name):
    return sympy.latex(sympy.Symbol(name))


def affine_latex(alpha, c, variables):
    r"""An affine function ``alpha . x + c`` as LaTeX (fractions as ``\tfrac``, names through sympy).

    Parameters
    ----------
    alpha : sequence of Fraction, shape (n,)
        The linear coefficients.
    c : Fraction
        The constant.
    variables : sequence of str, shape (n,)
        The variable names (``y_1`` becomes ``y_{1}``).

    Returns
    -------
    str
        The LaTeX source.

    Examples
    --------
    >>> print(affine_latex((Fraction(1, 2), Fraction(-1)), Fraction(-3), ("x", "y_1")))
    \tfrac{1}{2}x - y_{1} - 3
    """
    pieces = []
    for a, v in zip(alpha, variables):
        if a != 0:
            mag = abs(a)
            pieces.append((a < 0, ("" if mag == 1 else _frac_latex(mag)) + _var_latex(v)))
    if c != 0 or not pieces:
        pieces.append((c < 0, _frac_latex(abs(c))))
    return _join_signed(pieces)


def polynomial_to_json(f: TropicalPolynomial) -> dict:
    """``{"variables": [...], "terms": [{"exponent": [...], "coefficient": "p/q"}, ...]}``.

    Integers stay integers; other rationals become ``"p/q"`` strings (exact).  The
    inverse is :func:`tropattn.tropical._parsing.polynomial_from_json`.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial.

    Returns
    -------
    dict
        JSON-ready: the variable names and one entry per term, in term order.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> polynomial_to_json(parse_polynomial("max(0, x/2 + 1)"))["terms"][1]
    {'exponent': ['1/2'], 'coefficient': 1}
    """
    return {"variables": list(f.variables),
            "terms": [{"exponent": [json_number(a) for a in alpha], "coefficient": json_number(c)} for alpha, c in f.terms]}
