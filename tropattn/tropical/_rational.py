"""Tropical rational functions ``f ⊘ g`` and vector-valued tropical rational maps.

>>> from tropattn.tropical._parsing import parse_polynomial
>>> clamp = TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)"))
>>> clamp(3), len(clamp.pieces())
(Fraction(1, 1), 3)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from .._display import latex_math
from .._lazy import lazy_import
from ..errors import InvalidInputError
from ._polynomial import TropicalPolynomial
from ._semiring import _scalar


sympy = lazy_import("sympy")

__all__ = ["RationalPiece", "common_refinement", "TropicalRationalFunction", "TropicalRationalMap"]


@dataclass(frozen=True)
class RationalPiece:
    """A cell of a common refinement: one term of each factor is the unique max.

    ``terms[i]`` is the winning term of factor ``i``; the cell is ``{x : A x <= b}``
    (facet rows only) with a certified ``interior_point``.
    """

    terms: tuple
    A: tuple
    b: tuple
    interior_point: tuple


def common_refinement(polys: Sequence[TropicalPolynomial]) -> tuple:
    """Cells where each polynomial of ``polys`` has a unique max: the regions of their product.

    A region of ``f_1 ⊙ ... ⊙ f_m`` determines its winning term in every factor
    (at a point where each factor has a unique max, the product's max is the sum of
    those maxima and no other combination ties), so the product's regions are in
    bijection with the realisable tuples of terms.

    Parameters
    ----------
    polys : sequence of TropicalPolynomial
        One or more polynomials in the same variables.

    Returns
    -------
    tuple of RationalPiece
        Sorted by ``terms``.

    Raises
    ------
    InvalidInputError
        When ``polys`` is empty or the variables differ.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> f, g = parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)")
    >>> [p.terms for p in common_refinement([f, g])]     # x < 0, 0 < x < 1, x > 1
    [(0, 0), (1, 0), (1, 1)]
    """
    polys = list(polys)
    if not polys:
        raise InvalidInputError("common_refinement needs at least one polynomial")
    prod = polys[0]
    for g in polys[1:]:
        prod = prod * g
    pieces = []
    for reg in prod.linear_regions():
        winners = []
        for g in polys:
            top = g.argmax_terms(reg.interior_point)
            winners.append(top[0])
        pieces.append(RationalPiece(terms=tuple(winners), A=reg.A, b=reg.b,
                                    interior_point=reg.interior_point))
    return tuple(sorted(pieces, key=lambda p: p.terms))


def _as_polynomial(value, variables, name):
    if isinstance(value, TropicalPolynomial):
        return value
    if isinstance(value, TropicalRationalFunction):
        raise InvalidInputError(f"{name} is already a rational function; pass its numerator and denominator")
    if variables is None:
        raise InvalidInputError(f"{name} = {value!r} is a number; give at least one TropicalPolynomial "
                                "so the variables are known")
    return TropicalPolynomial([[0] * len(variables)], [_scalar(value, name)], variables)


@dataclass(frozen=True, init=False)
class TropicalRationalFunction:
    """A tropical quotient ``f ⊘ g = f - g`` (a difference of two convex PL functions).

    Parameters
    ----------
    numerator, denominator : TropicalPolynomial or number
        Same variables; a number is a constant polynomial (default denominator 0).

    Raises
    ------
    InvalidInputError
        When the variables differ, both parts are numbers, or a part is already a
        rational function.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> clamp = TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)"))
    >>> clamp(-3), clamp("1/2"), clamp(3), len(clamp.pieces())    # clip(x, 0, 1): three pieces
    (Fraction(0, 1), Fraction(1, 2), Fraction(1, 1), 3)
    """

    numerator: TropicalPolynomial
    denominator: TropicalPolynomial

    def __init__(self, numerator, denominator=0):
        variables = next((p.variables for p in (numerator, denominator)
                          if isinstance(p, TropicalPolynomial)), None)
        num = _as_polynomial(numerator, variables, "numerator")
        den = _as_polynomial(denominator, variables, "denominator")
        if num.variables != den.variables:
            raise InvalidInputError(f"numerator variables {num.variables} differ from denominator variables "
                                    f"{den.variables}; build both with the same variables=...")
        object.__setattr__(self, "numerator", num)
        object.__setattr__(self, "denominator", den)

    @property
    def variables(self) -> tuple:
        return self.numerator.variables

    @property
    def dim(self) -> int:
        return self.numerator.dim

    def evaluate(self, x) -> Fraction:
        """Exact ``f(x) - g(x)`` (also ``h(x)``).

        Parameters
        ----------
        x : sequence of numbers, shape (d,)
            The point (a scalar is accepted when ``d == 1``).

        Returns
        -------
        Fraction
            The exact value.

        Raises
        ------
        InvalidInputError
            When ``x`` has the wrong length or an entry is not a finite number.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> clamp = TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)"))
        >>> clamp.evaluate([-2]), clamp.evaluate("1/3"), clamp.evaluate(5)       # clip(x, 0, 1)
        (Fraction(0, 1), Fraction(1, 3), Fraction(1, 1))
        """
        return self.numerator.evaluate(x) - self.denominator.evaluate(x)

    __call__ = evaluate

    def evaluate_float(self, X) -> np.ndarray:
        """Vectorised float ``f - g`` over ``(n, d)`` points (pictures and scans only).

        Parameters
        ----------
        X : array-like of float, shape (n, d) or (d,)
            The points.

        Returns
        -------
        numpy.ndarray of float64, shape (n,) or ()
            The rounded values.

        Raises
        ------
        InvalidInputError
            When ``X`` has another shape.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> clamp = TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)"))
        >>> clamp.evaluate_float([[-1.0], [0.25], [4.0]]).tolist()
        [0.0, 0.25, 1.0]
        """
        return self.numerator.evaluate_float(X) - self.denominator.evaluate_float(X)

    def pieces(self) -> tuple:
        """The common refinement of the numerator's and denominator's regions.

        On each piece the function is affine; adjacent pieces may share the same
        affine map (a rational function's linear regions are unions of pieces).

        Returns
        -------
        tuple of RationalPiece
            ``terms = (numerator term, denominator term)``, sorted.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> clamp = TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)"))
        >>> [p.terms for p in clamp.pieces()]            # x < 0, 0 < x < 1, x > 1
        [(0, 0), (1, 0), (1, 1)]
        """
        return common_refinement([self.numerator, self.denominator])

    def __str__(self) -> str:
        return f"{self.numerator} - {self.denominator}"

    def __repr__(self) -> str:
        try:
            return f"TropicalRationalFunction({str(self)!r}, variables={self.variables!r})"
        except Exception:
            return object.__repr__(self)

    def to_sympy(self):
        """``numerator.to_sympy() - denominator.to_sympy()`` (unevaluated ``Max`` terms).

        Returns
        -------
        sympy.Expr
            The difference of the two ``Max`` expressions.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)")).to_sympy()
        Max(0, x) - Max(0, x - 1)
        """
        return self.numerator.to_sympy() - self.denominator.to_sympy()

    def to_latex(self) -> str:
        r"""``\max(...) - \max(...)``; a denominator ``0`` is left out.

        Returns
        -------
        str
            The LaTeX source (an affine denominator is parenthesised).

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> print(TropicalRationalFunction(parse_polynomial("max(0, x)"), parse_polynomial("max(0, x - 1)")).to_latex())
        \max(0,\; x) - \max(0,\; x - 1)
        """
        den = self.denominator
        if len(den) == 1 and all(v == 0 for v in den.exponents[0]) and den.coefficients[0] == 0:
            return self.numerator.to_latex()
        right = den.to_latex()
        if len(den) == 1 and any(op in right[1:] for op in "+-"):
            right = f"({right})"                  # an affine denominator such as (x - 1)
        return f"{self.numerator.to_latex()} - {right}"

    def _repr_latex_(self) -> str:
        """Jupyter's typeset form: :meth:`to_latex` in ``$...$``."""
        return latex_math(self.to_latex())


@dataclass(frozen=True, init=False)
class TropicalRationalMap:
    """A vector-valued tropical rational map ``F = (f_1 ⊘ g_1, ..., f_m ⊘ g_m)``.

    Parameters
    ----------
    components : sequence of TropicalRationalFunction or TropicalPolynomial
        Polynomials are read as ``f ⊘ 0``.  All share the same variables.

    Raises
    ------
    InvalidInputError
        When there is no component, a component has another type, or the
        variables differ.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> F = TropicalRationalMap([parse_polynomial("max(0, x)"), parse_polynomial("max(x, 1)")])
    >>> F([2]), F.dim_out
    ((Fraction(2, 1), Fraction(2, 1)), 2)
    """

    components: tuple

    def __init__(self, components):
        comps = []
        for i, c in enumerate(components):
            if isinstance(c, TropicalPolynomial):
                c = TropicalRationalFunction(c, 0)
            if not isinstance(c, TropicalRationalFunction):
                raise InvalidInputError(f"components[{i}] has type {type(c).__name__}; expected a "
                                        "TropicalPolynomial or TropicalRationalFunction")
            comps.append(c)
        if not comps:
            raise InvalidInputError("a tropical rational map needs at least one component")
        for i, c in enumerate(comps):
            if c.variables != comps[0].variables:
                raise InvalidInputError(f"components[{i}] has variables {c.variables} but components[0] has "
                                        f"{comps[0].variables}; use the same variables everywhere")
        object.__setattr__(self, "components", tuple(comps))

    @property
    def dim(self) -> int:
        return self.components[0].dim

    @property
    def dim_out(self) -> int:
        return len(self.components)

    @property
    def variables(self) -> tuple:
        return self.components[0].variables

    def evaluate(self, x) -> tuple:
        """Exact values of every component at ``x`` (also ``F(x)``).

        Parameters
        ----------
        x : sequence of numbers, shape (d,)
            The point (a scalar is accepted when ``d == 1``).

        Returns
        -------
        tuple of Fraction, shape (m,)
            ``(f_1(x) - g_1(x), ..., f_m(x) - g_m(x))``.

        Raises
        ------
        InvalidInputError
            When ``x`` has the wrong length or an entry is not a finite number.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> F = TropicalRationalMap([parse_polynomial("max(0, x)"), parse_polynomial("max(x, 1)")])
        >>> F.evaluate([-3])
        (Fraction(0, 1), Fraction(1, 1))
        """
        return tuple(c.evaluate(x) for c in self.components)

    __call__ = evaluate

    def evaluate_float(self, X) -> np.ndarray:
        """Float values: shape ``(n, m)`` for ``(n, d)`` points, ``(m,)`` for one point.

        Parameters
        ----------
        X : array-like of float, shape (n, d) or (d,)
            The points.

        Returns
        -------
        numpy.ndarray of float64, shape (n, m) or (m,)
            The rounded component values (pictures and scans only).

        Raises
        ------
        InvalidInputError
            When ``X`` has another shape.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> F = TropicalRationalMap([parse_polynomial("max(0, x)"), parse_polynomial("max(x, 1)")])
        >>> F.evaluate_float([[-3.0], [2.0]]).tolist()
        [[0.0, 1.0], [2.0, 2.0]]
        """
        return np.stack([np.asarray(c.evaluate_float(X)) for c in self.components], axis=-1)

    def pieces(self) -> tuple:
        """Common refinement of every numerator and denominator (the map is affine on each).

        Returns
        -------
        tuple of RationalPiece
            ``terms`` lists the winning term of ``f_1, g_1, ..., f_m, g_m`` in turn.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> F = TropicalRationalMap([parse_polynomial("max(0, x)"), parse_polynomial("max(x, 1)")])
        >>> [p.terms for p in F.pieces()]        # x < 0, x > 1, 0 < x < 1 (sorted by terms)
        [(0, 0, 1, 0), (1, 0, 0, 0), (1, 0, 1, 0)]
        """
        return common_refinement([p for c in self.components for p in (c.numerator, c.denominator)])

    def to_sympy(self):
        """The column vector of the components as a sympy ``Matrix`` (``m x 1``).

        Returns
        -------
        sympy.Matrix
            One row per component.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> F = TropicalRationalMap([parse_polynomial("max(0, x)"), parse_polynomial("max(x, 1)")])
        >>> F.to_sympy()
        Matrix([
        [Max(0, x)],
        [Max(1, x)]])
        """
        return sympy.Matrix([c.to_sympy() for c in self.components])

    def to_latex(self) -> str:
        r"""LaTeX for the column vector of the components (a ``pmatrix``).

        Returns
        -------
        str
            The LaTeX source.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> print(TropicalRationalMap([parse_polynomial("max(0, x)"), parse_polynomial("x - 1")]).to_latex())
        \begin{pmatrix} \max(0,\; x) \\ x - 1 \end{pmatrix}
        """
        return r"\begin{pmatrix} " + r" \\ ".join(c.to_latex() for c in self.components) + r" \end{pmatrix}"

    def _repr_latex_(self) -> str:
        """Jupyter's typeset form: :meth:`to_latex` in ``$...$``."""
        return latex_math(self.to_latex())
