"""Tropical polynomials as text, LaTeX and sympy expressions.

>>> affine_text((Fraction(2), Fraction(-1)), Fraction(1, 2), ("x", "y"))
'2*x - y + 1/2'
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..exact import format_rational, json_number

if TYPE_CHECKING:
    from .polynomial import TropicalPolynomial


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
    import sympy

    return sympy.latex(sympy.Symbol(name))


def affine_latex(alpha, c, variables):
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

    Integers stay integers; other rationals become ``"p/q"`` strings (exact).

    >>> from tropattn.tropical import parse_polynomial
    >>> polynomial_to_json(parse_polynomial("max(0, x/2 + 1)"))["terms"][1]
    {'exponent': ['1/2'], 'coefficient': 1}
    """
    return {"variables": list(f.variables),
            "terms": [{"exponent": [json_number(a) for a in alpha], "coefficient": json_number(c)} for alpha, c in f.terms]}
