"""Tropical (max-plus) polynomials, their linear regions and their dual subdivisions.

The max-plus semiring is ``T = Q ∪ {-inf}`` with ``a ⊕ b = max(a, b)`` and
``a ⊙ b = a + b``; ``-inf`` is the tropical zero and ``0`` the tropical one.  A
tropical monomial ``c ⊙ x^α`` is the affine function ``c + α·x`` (rational
exponents are allowed: "tropical signomials"), and a tropical polynomial is a max
of them::

    f(x) = max_j (α_j · x + c_j),

a convex, piecewise-linear function.  Its geometry lives in two dual pictures:

* **primal**: the *linear regions* are the open sets where one term is the unique
  max.  Term ``j`` has one iff ``{x : α_j·x + c_j > α_k·x + c_k for every other
  term k}`` is non-empty, a question one certified linear program answers
  (:func:`tropattn.exact.interior_point`).  Where two or more terms tie lies the
  *tropical hypersurface*, the corner locus of ``f``;
* **dual**: lift each exponent to height ``c_j``.  Term ``j`` has a region iff
  ``(α_j, c_j)`` is a vertex of the *upper* hull of the lifted points, and the
  upper faces project to the *regular subdivision* of the Newton polytope
  ``Newt(f) = conv{α_j}``: a maximal cell is a set of terms that tie at one vertex
  of the hypersurface, an edge is a wall between two regions, and in general a
  face of dimension ``k`` is dual to a cell of the hypersurface of dimension ``d - k``.

Both pictures are computed exactly and cross-check each other: by default
:func:`linear_regions` reads the regions off the certified upper hull (region ``j``
is cut out by the terms sharing an upper cell with ``j``, so each region costs a
few rows however many terms there are), and ``method="search"`` finds them
independently by one certified LP per region against every term.

Tropical multiplication adds functions (``f ⊙ g = f + g``), so
``Newt(f ⊙ g) = Newt(f) + Newt(g)`` (a Minkowski sum) and the linear regions of
``f ⊙ g`` are the non-empty intersections of a region of ``f`` with a region of
``g``: the *common refinement*.  This is how several attention heads combine.

Conventions
-----------
* ``f + g`` is the tropical sum (max) and ``f * g`` the tropical product (the
  classical sum of the functions); ``f ** n`` the tropical power ``n·f``.
* A :class:`TropicalPolynomial` is a *formal* sum: redundant terms (never the
  unique max) and duplicate terms are kept, so term indices stay meaningful;
  evaluation and the geometry treat it as the function.  Terms with coefficient
  ``-inf`` (the tropical zero) are dropped when the polynomial is built.
* Everything exact is done in :class:`~fractions.Fraction`; floats appear only in
  :meth:`TropicalPolynomial.evaluate_float` and inside the certified LPs of
  :mod:`tropattn.exact`.

>>> from tropattn.tropical import parse_polynomial
>>> f = parse_polynomial("max(0, x)")            # the ReLU
>>> f(3), f(-2), len(f.linear_regions())
(Fraction(3, 1), Fraction(0, 1), 2)
>>> g = parse_polynomial("max(0, x + 1, 2*x - 1/2)")
>>> (f * g)(1) == f(1) + g(1)                    # tropical product = classical sum
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

import numpy as np

from .. import exact
from .._display import latex_math
from .._lazy import lazy_import
from ..errors import InvalidInputError
from ..geometry import PowerDiagram
from ._cells import _upper_hull, linear_regions, redundant_terms
from ._export import affine_latex, affine_text, polynomial_to_json
from ._subdivision import dual_subdivision, hypersurface_cells, lifted_polytope, newton_polytope
from ._semiring import NEG_INF, _scalar

sympy = lazy_import("sympy")

__all__ = ["TropicalPolynomial"]


_IDENT = re.compile(r"[A-Za-z_][A-Za-z_0-9]*\Z")


def _default_variables(d):
    return ("x", "y", "z")[:d] if d <= 3 else tuple(f"x{i + 1}" for i in range(d))


def _check_variables(variables, d):
    if variables is None:
        return _default_variables(d)
    if isinstance(variables, str):
        variables = (variables,)
    variables = tuple(variables)
    if len(variables) != d:
        raise InvalidInputError(
            f"variables has {len(variables)} names but the exponents have {d} entries; "
            f"give one name per exponent coordinate, e.g. {_default_variables(d)}")
    for i, v in enumerate(variables):
        if not isinstance(v, str) or not _IDENT.match(v):
            raise InvalidInputError(
                f"variables[{i}] = {v!r} is not a valid name; use letters, digits and '_' "
                "starting with a letter, e.g. 'x' or 'x1'")
    if len(set(variables)) != d:
        raise InvalidInputError(f"variables {variables} has repeated names; every variable needs its own name")
    return variables


def _as_exponent_rows(exponents):
    """Accept a flat list of scalars as univariate exponents."""
    if isinstance(exponents, np.ndarray):
        return exponents.reshape(-1, 1) if exponents.ndim == 1 else exponents
    if isinstance(exponents, (list, tuple)) and exponents and not any(
            isinstance(e, (list, tuple, np.ndarray)) for e in exponents):
        return [[e] for e in exponents]
    return exponents


@dataclass(frozen=True, init=False)
class TropicalPolynomial:
    """A tropical polynomial ``max_j (α_j·x + c_j)`` kept as a formal list of terms.

    Parameters
    ----------
    exponents : (n, d) rationals
        One exponent vector ``α_j`` per term (a flat list means ``d = 1``).
    coefficients : (n,) rationals or ``-inf``
        One coefficient ``c_j`` per term.  Terms with ``-inf`` (the tropical zero)
        are dropped, so later term indices shift down.
    variables : sequence of str, optional
        Names of the ``d`` variables (default ``x, y, z`` for ``d <= 3``, else
        ``x1 ... xd``); used for printing and parsing only.

    Attributes
    ----------
    exponents : tuple of tuples of Fraction
    coefficients : tuple of Fraction
    variables : tuple of str

    Notes
    -----
    Redundant and duplicate terms are kept: ``f.terms[j]`` is the ``j``-th term as
    given, and ``==`` compares the formal term lists, not the functions (use
    :meth:`simplify` to compare functions).  ``+`` is the tropical sum (max, the
    term lists are concatenated), ``*`` the tropical product (all pairwise sums of
    terms, ``i``-major: term ``i * len(g) + j`` of ``f * g`` is ``f_i ⊙ g_j``) and
    ``** n`` the ``n``-th tropical power.  Numbers act as constant polynomials.

    Raises
    ------
    InvalidInputError
        No terms, ragged exponents, NaN, non-numeric strings, bad names.

    Examples
    --------
    >>> f = TropicalPolynomial([[0], [1]], [0, 0])      # max(0, x)
    >>> f
    TropicalPolynomial('max(0, x)', variables=('x',))
    >>> f([-1]), f.argmax_terms([0])
    (Fraction(0, 1), (0, 1))
    """

    exponents: tuple
    coefficients: tuple
    variables: tuple

    def __init__(self, exponents, coefficients, variables=None):
        E = exact.to_rational_matrix(_as_exponent_rows(exponents), "exponents")
        if len(E) == 0:
            raise InvalidInputError(
                "a tropical polynomial needs at least one term; the empty max is the tropical zero "
                "-inf, which tropattn does not represent (use a constant term such as [[0]*d] with a "
                "very small coefficient if you need a placeholder)")
        if isinstance(coefficients, (list, tuple, np.ndarray)) and len(coefficients) != len(E):
            raise InvalidInputError(
                f"exponents has {len(E)} rows but coefficients has {len(coefficients)} entries; "
                "give exactly one coefficient per term")
        c = exact.to_rational_vector(coefficients, "coefficients", len(E), allow_neg_inf=True)
        keep = [i for i, ci in enumerate(c) if ci != NEG_INF]
        if not keep:
            raise InvalidInputError(
                "every coefficient is -inf (the tropical zero), so the polynomial has no terms; "
                "give at least one finite coefficient")
        object.__setattr__(self, "exponents", tuple(E[i] for i in keep))
        object.__setattr__(self, "coefficients", tuple(c[i] for i in keep))
        object.__setattr__(self, "variables", _check_variables(variables, len(E[0])))

    # ---------------------------------------------------------------- basics
    @property
    def dim(self) -> int:
        """Number of variables ``d``."""
        return len(self.variables)

    @property
    def terms(self) -> tuple:
        """The terms as ``(exponent, coefficient)`` pairs, in order (duplicates kept)."""
        return tuple(zip(self.exponents, self.coefficients))

    def __len__(self) -> int:
        return len(self.coefficients)

    def __str__(self) -> str:
        parts = [affine_text(a, c, self.variables) for a, c in self.terms]
        return parts[0] if len(parts) == 1 else "max(" + ", ".join(parts) + ")"

    def __repr__(self) -> str:
        try:
            return f"TropicalPolynomial({str(self)!r}, variables={self.variables!r})"
        except Exception:  # repr never raises
            return object.__repr__(self)

    def _point(self, x):
        if self.dim == 1 and not isinstance(x, (list, tuple, np.ndarray)):
            x = [x]
        return exact.to_rational_vector(x, "x", self.dim)

    def _values(self, x):
        return [sum((a * v for a, v in zip(alpha, x)), c) for alpha, c in self.terms]

    def evaluate(self, x) -> Fraction:
        """Exact value ``max_j (α_j·x + c_j)`` at one point (also ``f(x)``).

        Parameters
        ----------
        x : sequence of numbers, shape (d,)
            The point (a scalar is accepted when ``d == 1``).

        Returns
        -------
        Fraction
            The exact maximum over the terms.

        Raises
        ------
        InvalidInputError
            When ``x`` has the wrong length or an entry is not a finite number.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x + 1, 2*y - 1/2)").evaluate([0, 1])
        Fraction(3, 2)
        """
        return max(self._values(self._point(x)))

    __call__ = evaluate

    def argmax_terms(self, x) -> tuple:
        """Indices of all terms attaining the max at ``x`` (exact; ties included).

        More than one index means ``x`` lies on the tropical hypersurface.

        Parameters
        ----------
        x : sequence of numbers, shape (d,)
            The point (a scalar is accepted when ``d == 1``).

        Returns
        -------
        tuple of int
            Increasing term indices.

        Raises
        ------
        InvalidInputError
            When ``x`` has the wrong length or an entry is not a finite number.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x, 2*x)").argmax_terms([0])
        (0, 1, 2)
        """
        vals = self._values(self._point(x))
        top = max(vals)
        return tuple(i for i, v in enumerate(vals) if v == top)

    def evaluate_float(self, X) -> np.ndarray:
        """Vectorised float evaluation: ``X`` of shape ``(n, d)`` gives shape ``(n,)``.

        A single point of shape ``(d,)`` gives a 0-d array.  For pictures and quick
        scans only; use :meth:`evaluate` for exact answers.

        Parameters
        ----------
        X : array-like of float, shape (n, d) or (d,)
            The points.

        Returns
        -------
        numpy.ndarray of float64, shape (n,) or ()
            ``max_j (α_j·x + c_j)`` in floats (rounded).

        Raises
        ------
        InvalidInputError
            When ``X`` has another shape.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> f = parse_polynomial("max(0, x + 1, 2*y - 1/2)")
        >>> f.evaluate_float([[0, 0], [0, 1], [-3, 0]]).tolist()
        [1.0, 1.5, 0.0]
        """
        X = np.asarray(X, dtype=float)
        d = self.dim
        if X.ndim == 1 and X.shape[0] == d:
            return self.evaluate_float(X[None, :])[0]
        if X.ndim != 2 or X.shape[1] != d:
            raise InvalidInputError(
                f"X has shape {X.shape}; expected (n, {d}) points or one point of shape ({d},). "
                f"Use X.reshape(-1, {d}).")
        E = np.array(self.exponents, dtype=float).reshape(len(self), d)
        c = np.array(self.coefficients, dtype=float)
        return np.max(X @ E.T + c, axis=1)

    # -------------------------------------------------------------- algebra
    def _coerce(self, other):
        if isinstance(other, TropicalPolynomial):
            if other.variables != self.variables:
                raise InvalidInputError(
                    f"cannot combine polynomials in variables {self.variables} and {other.variables}; "
                    "build both with the same variables=...")
            return other
        try:
            c = _scalar(other, "constant")
        except InvalidInputError:
            return NotImplemented
        return TropicalPolynomial([[0] * self.dim], [c], self.variables)

    def __add__(self, other):
        other = self._coerce(other)
        if other is NotImplemented:
            return other
        return TropicalPolynomial(self.exponents + other.exponents,
                                  self.coefficients + other.coefficients, self.variables)

    def __radd__(self, other):
        other = self._coerce(other)
        return other if other is NotImplemented else other.__add__(self)

    def __mul__(self, other):
        other = self._coerce(other)
        if other is NotImplemented:
            return other
        E = [tuple(a + b for a, b in zip(ai, bj)) for ai in self.exponents for bj in other.exponents]
        c = [ci + dj for ci in self.coefficients for dj in other.coefficients]
        return TropicalPolynomial(E, c, self.variables)

    def __rmul__(self, other):
        other = self._coerce(other)
        return other if other is NotImplemented else other.__mul__(self)

    def __pow__(self, n):
        """Tropical power ``f^{⊙ n} = n·f`` for an integer ``n >= 0`` (formal: ``len(f)**n`` terms)."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise InvalidInputError(
                f"tropical power needs an integer n >= 0, got {n!r}; for a rational multiple of the "
                "exponents build the polynomial directly")
        result = TropicalPolynomial([[0] * self.dim], [0], self.variables)
        for _ in range(int(n)):
            result = result * self
        return result

    def simplify(self) -> "TropicalPolynomial":
        """The same function with only its non-redundant terms, each once, sorted.

        Two polynomials define the same function iff their simplifications are equal.

        Returns
        -------
        TropicalPolynomial
            The terms whose lifted points are vertices of the certified upper hull.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(x, 0, 2*x, x/2 - 5, 0)").simplify()
        TropicalPolynomial('max(0, 2*x)', variables=('x',))
        """
        keep = sorted({self.terms[j] for j in _upper_hull(self).vertices})
        return TropicalPolynomial([a for a, _ in keep], [c for _, c in keep], self.variables)

    # ---------------------------------------------------------- geometry
    def lifted_points(self) -> tuple:
        """The points ``(α_j, c_j)`` in ``Q^{d+1}``, one per term (duplicates kept).

        Returns
        -------
        tuple of tuple of Fraction, shape (n, d + 1)
            Exponent followed by coefficient, in term order.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x + 1)").lifted_points()
        ((Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(1, 1)))
        """
        return tuple(a + (c,) for a, c in self.terms)

    def newton_polytope(self):
        """``Newt(f) = conv{α_j}`` as a :class:`tropattn.geometry.Polytope`.

        Returns
        -------
        Polytope
            The Newton polytope (in ``Q^d``, exact).

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x, y, x/3 + y/3 + 5)").newton_polytope().vertex_count   # a triangle
        3
        """
        return newton_polytope(self)

    def lifted_polytope(self):
        """``conv{(α_j, c_j)}`` as a :class:`tropattn.geometry.Polytope`.

        Its upper faces project to the regular subdivision of ``Newt(f)``.

        Returns
        -------
        Polytope
            The lifted polytope (in ``Q^{d+1}``, exact).

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x, y, x/3 + y/3 + 5)").lifted_polytope().vertex_count   # a tetrahedron
        4
        """
        return lifted_polytope(self)

    def linear_regions(self, method: str = "auto") -> tuple:
        """The linear regions, one per distinct non-redundant term; see :func:`linear_regions`.

        Parameters
        ----------
        method : {"auto", "hull", "search"}, optional
            ``"hull"``/``"auto"``: read off the certified upper hull; ``"search"``: one
            certified LP per region (independent, slower).

        Returns
        -------
        tuple of LinearRegion
            Sorted by term index; each with its certified facet rows ``A x <= b``.

        Raises
        ------
        InvalidInputError
            Unknown ``method``.
        InternalError
            ``method="search"`` found no region (cannot happen; please report).

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> f = parse_polynomial("max(0, x, y, x + y - 1)")
        >>> [r.term for r in f.linear_regions()] == [r.term for r in f.linear_regions("search")]
        True
        >>> len(f.linear_regions())
        4
        """
        return linear_regions(self, method)

    def redundant_terms(self) -> tuple:
        """Indices of terms that are the max on no open set; see :func:`redundant_terms`.

        Returns
        -------
        tuple of int
            Increasing term indices (a duplicate of a term with a region is not redundant).

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x, 2*x, x/2 - 5)").redundant_terms()     # 0 and 2x suffice
        (1, 3)
        """
        return redundant_terms(self)

    def dual_subdivision(self) -> tuple:
        """Maximal cells of the regular subdivision; see :func:`dual_subdivision`.

        Each maximal cell is the set of terms that tie at one vertex of the tropical
        hypersurface.

        Returns
        -------
        tuple of frozenset of int
            The term sets of the maximal cells, sorted.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x, y)").dual_subdivision()      # one triangle
        (frozenset({0, 1, 2}),)
        """
        return dual_subdivision(self)

    def hypersurface_cells(self) -> tuple:
        """Walls and vertices of the tropical hypersurface; see :func:`hypersurface_cells`.

        Returns
        -------
        tuple of HypersurfaceCell
            Every relatively open cell where the max is attained at least twice, with
            its terms, dimension and exact equations and inequalities.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> cells = parse_polynomial("max(0, x, y)").hypersurface_cells()   # the tropical line
        >>> sorted(c.dim for c in cells)                                     # three rays and their apex
        [0, 1, 1, 1]
        """
        return hypersurface_cells(self)

    @cached_property
    def _cache(self) -> dict:
        """Computed geometry (regions per method, the upper hull); not part of the value."""
        return {}

    # ------------------------------------------------------------- export
    def to_sympy(self):
        """A sympy ``Max`` of affine expressions with exact ``Rational`` coefficients.

        The ``Max`` is built unevaluated (``evaluate=False``): every distinct term is
        kept as given and sympy does not try to prove terms dominated, so a polynomial
        with hundreds of terms exports in milliseconds.  ``sympy.simplify`` (or
        ``expr.doit()``) lets sympy merge dominated terms.  A one-term polynomial gives
        the affine expression.

        Returns
        -------
        sympy.Expr
            ``Max(...)`` over real symbols named after :attr:`variables`.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x + 1, 2*y - 1/2)").to_sympy()
        Max(0, x + 1, 2*y - 1/2)
        """
        syms = [sympy.Symbol(v, real=True) for v in self.variables]
        exprs = [sum((sympy.Rational(a.numerator, a.denominator) * s for a, s in zip(alpha, syms)),
                     sympy.Rational(c.numerator, c.denominator)) for alpha, c in self.terms]
        return exprs[0] if len(exprs) == 1 else sympy.Max(*exprs, evaluate=False)

    def to_latex(self) -> str:
        r"""LaTeX for the formal max, e.g. ``\max(0,\; x + 1,\; 2y - \tfrac{1}{2})``.

        Returns
        -------
        str
            The LaTeX source (a one-term polynomial gives its affine function).

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial
        >>> print(parse_polynomial("max(0, x + 1, 2*y - 1/2)").to_latex())
        \max(0,\; x + 1,\; 2y - \tfrac{1}{2})
        """
        parts = [affine_latex(a, c, self.variables) for a, c in self.terms]
        return parts[0] if len(parts) == 1 else r"\max(" + r",\; ".join(parts) + ")"

    def _repr_latex_(self) -> str:
        r"""Jupyter's typeset form: :meth:`to_latex` in ``$...$`` (``max`` and ``+``, not ``⊕`` and ``⊙``).

        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x)")._repr_latex_()
        '$\\max(0,\\; x)$'
        """
        return latex_math(self.to_latex())

    def _repr_svg_(self):
        """The tropical curve of a polynomial in two variables: its linear regions, one filled polygon each.

        The walls between the polygons are the curve; the box shows every region (exact
        clipping of the regions, drawn in floats).  None (no picture) in other dimensions.

        >>> from tropattn.tropical import parse_polynomial
        >>> parse_polynomial("max(0, x, y)")._repr_svg_().count('class="cell"')   # a tropical line
        3
        """
        if self.dim != 2:
            return None
        diagram = PowerDiagram.from_max_affine(self.exponents, self.coefficients)
        return diagram.svg(title=f"tropical curve: {len(diagram.nonempty)} linear regions", sites=False)

    def to_json(self) -> dict:
        """The JSON form read by :func:`polynomial_from_json`; see :func:`polynomial_to_json`.

        Returns
        -------
        dict
            ``{"variables": [...], "terms": [{"exponent": [...], "coefficient": ...}]}``,
            rationals as integers or ``"p/q"`` strings.

        Examples
        --------
        >>> from tropattn.tropical import parse_polynomial, polynomial_from_json
        >>> f = parse_polynomial("max(0, x/2 + 1)")
        >>> f.to_json()["terms"][1], polynomial_from_json(f.to_json()) == f
        ({'exponent': ['1/2'], 'coefficient': 1}, True)
        """
        return polynomial_to_json(self)
