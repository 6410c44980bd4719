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

>>> f = parse_polynomial("max(0, x)")            # the ReLU
>>> f(3), f(-2), len(f.linear_regions())
(Fraction(3, 1), Fraction(0, 1), 2)
>>> g = parse_polynomial("max(0, x + 1, 2*x - 1/2)")
>>> (f * g)(1) == f(1) + g(1)                    # tropical product = classical sum
True
"""

from __future__ import annotations

import json
import math
import re
from collections import deque
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Sequence

import numpy as np

from . import exact, polytope
from .errors import InvalidInputError, ModelFileError, TropattnError

__all__ = [
    "tropical_add",
    "tropical_mul",
    "TropicalPolynomial",
    "LinearRegion",
    "HypersurfaceCell",
    "RationalPiece",
    "TropicalRationalFunction",
    "TropicalRationalMap",
    "newton_polytope",
    "lifted_polytope",
    "redundant_terms",
    "linear_regions",
    "dual_subdivision",
    "hypersurface_cells",
    "common_refinement",
    "parse_polynomial",
    "polynomial_from_json",
    "polynomial_to_json",
]

NEG_INF = exact.NEG_INF


# ------------------------------------------------------------------------ scalars
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

    Examples
    --------
    >>> tropical_mul(1, "1/2"), tropical_mul(3, float("-inf")), tropical_mul()
    (Fraction(3, 2), -inf, Fraction(0, 1))
    """
    total = Fraction(0)
    for i, v in enumerate(values):
        q = _scalar(v, f"values[{i}]")
        if q == NEG_INF:
            return NEG_INF
        total += q
    return total


# ------------------------------------------------------------------ value objects
@dataclass(frozen=True)
class LinearRegion:
    """One linear region of a tropical polynomial: where ``term`` is the unique max.

    Attributes
    ----------
    term : int
        Index of the term (the first of its duplicates).
    terms : tuple of int
        Every index of a term identical to ``term`` (same exponent and coefficient):
        they all attain the max on this region.
    A, b : tuple of tuples of Fraction, tuple of Fraction
        The closed region is ``{x : A x <= b}``; only facet rows are kept.  Row ``i``
        is ``(α_k - α_j)·x <= c_j - c_k`` for the neighbour ``k = neighbors[i]``.
    neighbors : tuple of int
        The term whose region lies across each facet.
    facet_points : tuple of tuples of Fraction
        A rational point in the relative interior of each facet, where ``term`` and
        ``neighbors[i]`` tie and every other term is strictly smaller, except terms whose
        lifted points lie on the segment between theirs (redundant terms on the wall).
        It certifies that the row is a facet.
    interior_point : tuple of Fraction
        A rational point where ``term`` is the unique max (certified).
    """

    term: int
    terms: tuple
    A: tuple
    b: tuple
    neighbors: tuple
    facet_points: tuple
    interior_point: tuple

    def contains(self, x) -> bool:
        """Exact test ``A x <= b`` (closed region)."""
        x = exact.to_rational_vector(x, "x", len(self.interior_point))
        return all(sum(a * v for a, v in zip(row, x)) <= bi for row, bi in zip(self.A, self.b))


@dataclass(frozen=True)
class HypersurfaceCell:
    """A relatively open cell of the tropical hypersurface (where the max is attained twice).

    The cell is ``{x : E x = f, A x < b}``; its closure replaces ``<`` by ``<=``.

    Attributes
    ----------
    terms : frozenset of int
        The terms attaining the max on the cell: the dual cell of the subdivision.
    E, f : equations (one row per tie with the smallest index of ``terms``).
    A, b : strict inequalities (the other terms stay strictly below): for walls the other
        facet rows of the adjacent region, otherwise the rows of the terms sharing a
        maximal cell of the subdivision with ``terms`` (every other row is implied).
    point : tuple of Fraction
        A certified point of the relative interior.
    dim : int
        Dimension of the cell (``d - rank E``).
    """

    terms: frozenset
    E: tuple
    f: tuple
    A: tuple
    b: tuple
    point: tuple
    dim: int


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


# ------------------------------------------------------------------ polynomials
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
        parts = [_affine_str(a, c, self.variables) for a, c in self.terms]
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
        """Exact value ``max_j (α_j·x + c_j)`` at one point.

        Parameters
        ----------
        x : (d,) rationals (a scalar is accepted when ``d == 1``)

        Examples
        --------
        >>> parse_polynomial("max(0, x + 1, 2*y - 1/2)").evaluate([0, 1])
        Fraction(3, 2)
        """
        return max(self._values(self._point(x)))

    __call__ = evaluate

    def argmax_terms(self, x) -> tuple:
        """Indices of all terms attaining the max at ``x`` (exact; ties included).

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

        >>> parse_polynomial("max(x, 0, 2*x, x/2 - 5, 0)").simplify()
        TropicalPolynomial('max(0, 2*x)', variables=('x',))
        """
        keep = sorted({self.terms[j] for j in _upper_hull(self).vertices})
        return TropicalPolynomial([a for a, _ in keep], [c for _, c in keep], self.variables)

    # ---------------------------------------------------------- geometry
    def lifted_points(self) -> tuple:
        """The points ``(α_j, c_j)`` in ``Q^{d+1}``, one per term (duplicates kept).

        >>> parse_polynomial("max(0, x + 1)").lifted_points()
        ((Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(1, 1)))
        """
        return tuple(a + (c,) for a, c in self.terms)

    def newton_polytope(self):
        """``Newt(f) = conv{α_j}`` as a :class:`tropattn.polytope.Polytope`."""
        return newton_polytope(self)

    def lifted_polytope(self):
        """``conv{(α_j, c_j)}`` as a :class:`tropattn.polytope.Polytope`."""
        return lifted_polytope(self)

    def linear_regions(self, method: str = "auto") -> tuple:
        """The linear regions, one per distinct non-redundant term; see :func:`linear_regions`."""
        return linear_regions(self, method)

    def redundant_terms(self) -> tuple:
        """Indices of terms that are the max on no open set; see :func:`redundant_terms`."""
        return redundant_terms(self)

    def dual_subdivision(self) -> tuple:
        """Maximal cells of the regular subdivision; see :func:`dual_subdivision`."""
        return dual_subdivision(self)

    def hypersurface_cells(self) -> tuple:
        """Walls and vertices of the tropical hypersurface; see :func:`hypersurface_cells`."""
        return hypersurface_cells(self)

    @cached_property
    def _cache(self) -> dict:
        """Computed geometry (regions per method, the upper hull); not part of the value."""
        return {}

    # ------------------------------------------------------------- export
    def to_sympy(self):
        """A sympy ``Max`` of affine expressions with exact ``Rational`` coefficients.

        sympy may drop terms it can prove dominated (``Max(x, x + 1)`` is ``x + 1``);
        the function is the same.  A one-term polynomial gives the affine expression.

        >>> parse_polynomial("max(0, x + 1, 2*y - 1/2)").to_sympy()
        Max(0, x + 1, 2*y - 1/2)
        """
        import sympy

        syms = [sympy.Symbol(v, real=True) for v in self.variables]
        exprs = [sum((sympy.Rational(a.numerator, a.denominator) * s for a, s in zip(alpha, syms)),
                     sympy.Rational(c.numerator, c.denominator)) for alpha, c in self.terms]
        return sympy.Max(*exprs)

    def to_latex(self) -> str:
        r"""LaTeX for the formal max, e.g. ``\max(0,\; x + 1,\; 2y - \tfrac{1}{2})``.

        >>> print(parse_polynomial("max(0, x + 1, 2*y - 1/2)").to_latex())
        \max(0,\; x + 1,\; 2y - \tfrac{1}{2})
        """
        parts = [_affine_latex(a, c, self.variables) for a, c in self.terms]
        return parts[0] if len(parts) == 1 else r"\max(" + r",\; ".join(parts) + ")"

    def to_json(self) -> dict:
        """The JSON form read by :func:`polynomial_from_json`; see :func:`polynomial_to_json`."""
        return polynomial_to_json(self)


# ---------------------------------------------------------------- printing
def _frac_str(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _join_signed(pieces):
    """pieces: list of (sign>=0?, text without sign) -> 'a + b - c'."""
    out = ""
    for k, (neg, text) in enumerate(pieces):
        if k == 0:
            out = ("-" if neg else "") + text
        else:
            out += (" - " if neg else " + ") + text
    return out or "0"


def _affine_str(alpha, c, variables):
    pieces = []
    for a, v in zip(alpha, variables):
        if a != 0:
            mag = abs(a)
            pieces.append((a < 0, v if mag == 1 else f"{_frac_str(mag)}*{v}"))
    if c != 0 or not pieces:
        pieces.append((c < 0, _frac_str(abs(c))))
    return _join_signed(pieces)


def _frac_latex(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else rf"\tfrac{{{q.numerator}}}{{{q.denominator}}}"


def _var_latex(name):
    import sympy

    return sympy.latex(sympy.Symbol(name))


def _affine_latex(alpha, c, variables):
    pieces = []
    for a, v in zip(alpha, variables):
        if a != 0:
            mag = abs(a)
            pieces.append((a < 0, ("" if mag == 1 else _frac_latex(mag)) + _var_latex(v)))
    if c != 0 or not pieces:
        pieces.append((c < 0, _frac_latex(abs(c))))
    return _join_signed(pieces)


# ------------------------------------------------------------ linear regions
_REGION_METHODS = ("auto", "hull", "search")


def _distinct_terms(f):
    """First index of each distinct term, and all indices of each."""
    groups = {}
    for i, t in enumerate(f.terms):
        groups.setdefault(t, []).append(i)
    reps = sorted(g[0] for g in groups.values())
    return reps, {g[0]: tuple(g) for g in groups.values()}


def _region_system(f, j, others):
    """Rows ``(α_k - α_j)·x <= c_j - c_k`` (term j beats term k) for every k in ``others`` but j."""
    aj, cj = f.terms[j]
    A, b, nb = [], [], []
    for k in others:
        if k != j:
            ak, ck = f.terms[k]
            A.append(tuple(p - q for p, q in zip(ak, aj)))
            b.append(cj - ck)
            nb.append(k)
    return A, b, nb


def _strict_point(A, b, d):
    """Certified point of ``A x < b`` or None (no rows: the origin)."""
    if not A:
        return (Fraction(0),) * d
    return exact.interior_point(A, b).point


def _finish_region(f, j, A, b, nb, point, groups, den=1):
    """The LinearRegion of term j from rows that cut out its region exactly and a strict point.

    ``A``, ``b`` may be the rows times a positive ``den`` (integer rows); the region keeps
    the rows ``(α_k - α_j)·x <= c_j - c_k`` themselves.
    """
    fs = exact.facets(A, b, point) if A else exact.FacetSet(rows=())
    rows, neighbors, fpts = [], [], []
    for r in fs.rows:
        # rows giving the same half-space come from terms collinear with j in the lift; the
        # farthest one (largest multiple of the row) is the term that wins across the wall
        same = [r] + [s for s, t in fs.same_as.items() if t == r]
        best = max(same, key=lambda s: max(abs(v) for v in A[s]))
        rows.append(best)
        neighbors.append(nb[best])
        fpts.append(fs.points[r])
    A = tuple(tuple(Fraction(v, den) for v in A[r]) for r in rows)
    return LinearRegion(term=j, terms=groups[j], A=A, b=tuple(Fraction(b[r], den) for r in rows),
                        neighbors=tuple(neighbors), facet_points=tuple(fpts), interior_point=tuple(point))


def _region_for(f, j, reps, groups):
    """The LinearRegion of distinct term j against every other term, or None if it has none."""
    A, b, nb = _region_system(f, j, reps)
    point = _strict_point(A, b, f.dim)
    if point is None:
        return None
    return _finish_region(f, j, A, b, nb, point, groups)


def _seed_point(d):
    return tuple(Fraction(1, p) for p in (7, 11, 13, 17, 19, 23, 29, 31, 37, 41)[:d]) + \
        tuple(Fraction(k + 3, 43 + k) for k in range(max(0, d - 10)))


def _search_regions(f):
    """Breadth-first search over adjacent regions, one certified LP + facets per region.

    Seeds are the terms attaining the max at one point (every point lies in the
    closure of some region, so a seed has a region).  Each found region reports the
    term across each of its facets, which has a region too; when no new neighbour
    appears, the closed regions found cover a closed set without boundary, that is
    all of ``R^d``.  So the terms never reached are redundant, without an LP each.
    Every region is tested against all distinct terms: cost ~ regions x terms.
    """
    reps, groups = _distinct_terms(f)
    rep_of = {i: g[0] for g in groups.values() for i in g}
    seeds = sorted({rep_of[i] for i in f.argmax_terms(_seed_point(f.dim))})
    todo, seen, found = deque(seeds), set(seeds), {}
    while todo:
        j = todo.popleft()
        region = _region_for(f, j, reps, groups)
        if region is None:
            continue
        found[j] = region
        for k in region.neighbors:
            if k not in seen:
                seen.add(k)
                todo.append(k)
    if not found:  # cannot happen for a valid certificate chain; refuse to guess
        raise TropattnError("internal error: no linear region found; please report this polynomial")
    return tuple(found[j] for j in sorted(found))


def _upper_hull(f):
    """The certified upper hull of the lifted points (cached on ``f``)."""
    cache = f._cache
    if "upper_hull" not in cache:
        cache["upper_hull"] = polytope.upper_hull(f.lifted_points())
    return cache["upper_hull"]


def _integer_lift(f):
    """``(D, rows)``: the lifted points ``(α_k, c_k)`` times one common denominator ``D``, as ints."""
    cache = f._cache
    if "integer_lift" not in cache:
        den = 1
        for p in f.lifted_points():
            for v in p:
                den = den * v.denominator // math.gcd(den, v.denominator)
        cache["integer_lift"] = (den, tuple(tuple(int(v * den) for v in p) for p in f.lifted_points()))
    return cache["integer_lift"]


def _integer_system(f, j, others):
    """:func:`_region_system` times ``D``: integer rows ``D (α_k - α_j)·x <= D (c_j - c_k)``."""
    _, L = _integer_lift(f)
    lj = L[j]
    A, b, nb = [], [], []
    for k in others:
        if k != j:
            lk = L[k]
            A.append(tuple(p - q for p, q in zip(lk[:-1], lj[:-1])))
            b.append(lj[-1] - lk[-1])
            nb.append(k)
    return A, b, nb


def _tie_point(f, cell):
    """A point where all terms of ``cell`` tie (and attain the max, as ``cell`` is an upper face).

    The tie equations of a maximal cell span the directions of ``Newt(f)``, and
    :func:`tropattn.exact.solve` sets the free coordinates to 0, so every maximal cell
    gets its point on the same section transverse to the lineality space.
    """
    A, b, _ = _integer_system(f, cell[0], cell[1:])
    return exact.solve(A, b) if A else (Fraction(0),) * f.dim


def _recession_directions(f, js):
    """For each term j of ``js``: the sum of the outer normals of the facets of ``Newt(f)`` through ``α_j``.

    It lies in the relative interior of the normal cone of ``Newt(f)`` at the
    smallest face containing ``α_j``, which is the recession cone of region j (mod
    the lineality space); 0 when ``α_j`` is interior.  Incidences are exact signs
    (:func:`tropattn.exact.dot_signs`).
    """
    zero = (0,) * f.dim
    if len(set(f.exponents)) == 1:
        return {j: zero for j in js}
    facets = polytope.convex_hull(f.exponents).facets
    rows = [tuple(n * off.denominator for n in normal) + (-off.numerator,) for normal, off in facets]
    cols = []
    for j in js:
        nums, den = exact.homogeneous_point(f.exponents[j])
        cols.append(nums + (den,))
    on = exact.dot_signs(rows, cols) == 0
    out = {}
    for c, j in enumerate(js):
        r = [0] * f.dim
        for i in np.flatnonzero(on[:, c]):
            r = [u + v for u, v in zip(r, facets[i][0])]
        out[j] = tuple(r)
    return out


def _strictly_inside(A, b, x) -> bool:
    """Exact ``A x < b`` for integer rows and a rational point."""
    nums, den = exact.homogeneous_point(x)
    return all(sum(a * v for a, v in zip(row, nums)) < bi * den for row, bi in zip(A, b))


def _stars(f, hull):
    """Distinct cells (as sorted representative indices) and, per upper vertex, the cells containing it."""
    reps, groups = _distinct_terms(f)
    rep_of = {i: g[0] for g in groups.values() for i in g}
    cells = [tuple(sorted({rep_of[i] for i in c})) for c in hull.cells]
    star = {j: [] for j in hull.vertices}
    for ci, cell in enumerate(cells):
        for k in cell:
            if k in star:
                star[k].append(ci)
    return cells, star, groups


def _hull_regions(f):
    """Regions from the certified upper hull of the lifted points; None if a check fails.

    The terms with a region are exactly the upper vertices (an exact decision, as
    :func:`tropattn.polytope.upper_hull` is certified).  A facet of region j is the
    wall to a term k such that ``[j, k]`` is an upper edge, and every upper edge lies
    in a maximal upper cell; so region j is cut out exactly by the rows of the terms
    sharing a maximal cell with j, and the other rows are implied.  Its closure is
    ``conv{tie points of those cells} + recession cone``, so the mean of the tie
    points plus a relative-interior recession direction is a strict interior point
    (checked exactly; a certified LP on the few candidate rows if the check fails).
    Facets are then certified with :func:`tropattn.exact.facets` on the candidate rows.
    """
    hull = _upper_hull(f)
    verts = hull.vertices
    cells, star, groups = _stars(f, hull)
    if not verts or any(not s for s in star.values()) or not set(verts) <= set(groups):
        return None
    d = f.dim
    den, _ = _integer_lift(f)
    rec = _recession_directions(f, verts)
    ties, out = {}, {}
    for j in verts:
        for ci in star[j]:
            if ci not in ties:
                ties[ci] = _tie_point(f, cells[ci])
        points = [ties[ci] for ci in star[j]]
        if any(p is None for p in points):
            return None
        A, b, nb = _integer_system(f, j, sorted({k for ci in star[j] for k in cells[ci]}))
        x = tuple(sum(p[i] for p in points) / len(points) + rec[j][i] for i in range(d))
        if not _strictly_inside(A, b, x):
            x = _strict_point(A, b, d)
            if x is None:
                return None
        out[j] = _finish_region(f, j, A, b, nb, x, groups, den)
    for j, region in out.items():  # every wall leads to a region that sees j back
        if any(k not in out or j not in out[k].neighbors for k in region.neighbors):
            return None
    return tuple(out[j] for j in verts)


def linear_regions(f: TropicalPolynomial, method: str = "auto") -> tuple:
    """The linear regions of ``f``: one :class:`LinearRegion` per distinct non-redundant term.

    Each region is certified: its interior point makes its term the unique max
    (exactly), and its rows are exactly the facets (:func:`tropattn.exact.facets`).
    If ``Newt(f)`` is lower-dimensional the regions are unbounded slabs or prisms,
    still full-dimensional in ``R^d``.

    Parameters
    ----------
    f : TropicalPolynomial
    method : {"auto", "hull", "search"}
        ``"hull"``: the regions are the upper vertices of the lifted points
        ``(α_j, c_j)`` (certified upper hull) and each region's facets are found among
        the terms sharing an upper cell with it: fast for many terms.  ``"search"``:
        a search across facets, one certified LP and facet computation against every
        term per region (independent of the polytope code; slow for many terms).
        ``"auto"`` (default) is ``"hull"``, falling back to ``"search"`` if one of
        its consistency checks fails.  Both give identical regions.

    Returns
    -------
    tuple of LinearRegion, sorted by term index.

    Raises
    ------
    InvalidInputError
        Unknown ``method``.
    TropattnError
        ``method="hull"`` and a consistency check failed (please report it).

    Examples
    --------
    >>> regions = linear_regions(parse_polynomial("max(0, x)"))
    >>> [(r.term, r.A, r.b) for r in regions]                 # x <= 0 and -x <= 0
    [(0, ((Fraction(1, 1),),), (Fraction(0, 1),)), (1, ((Fraction(-1, 1),),), (Fraction(0, 1),))]
    >>> f = parse_polynomial("max(0, x, y, x + y - 1)")
    >>> walls = lambda regions: [(r.term, r.A, r.b, r.neighbors) for r in regions]
    >>> walls(linear_regions(f, "hull")) == walls(linear_regions(f, "search"))
    True
    """
    if method not in _REGION_METHODS:
        raise InvalidInputError(f"method = {method!r}; use one of {_REGION_METHODS}")
    cache, key = f._cache, ("regions", method)
    if key in cache:
        return cache[key]
    if method == "search":
        regions = _search_regions(f)
    else:
        regions = cache.get(("regions", "hull")) or _hull_regions(f)
        if regions is not None:
            cache["regions", "hull"] = regions
        elif method == "hull":
            raise TropattnError("internal error: the upper-hull regions failed a consistency check; "
                                "use method='search' and please report this polynomial")
        else:
            exact.COUNTERS.fallbacks += 1  # counted like every other exact fallback
            regions = linear_regions(f, "search")
    cache[key] = regions
    return regions


def redundant_terms(f: TropicalPolynomial) -> tuple:
    """Indices of the terms that are the max on no open set, sorted.

    A term has a region iff its lifted point ``(α_j, c_j)`` is a vertex of the upper
    hull (:func:`tropattn.polytope.upper_hull`, certified exactly), so no region is
    computed.  Convention: a term identical to a term that has a region (same
    exponent and coefficient) is *not* redundant: it attains the max on that whole
    region.  A term with the same exponent but a smaller coefficient is redundant.

    Examples
    --------
    >>> redundant_terms(parse_polynomial("max(0, x, 2*x, x/2 - 5)"))   # 0 and 2x suffice
    (1, 3)
    """
    top = {f.terms[j] for j in _upper_hull(f).vertices}
    return tuple(i for i, t in enumerate(f.terms) if t not in top)


# --------------------------------------------------------------- dual side
def newton_polytope(f: TropicalPolynomial):
    """``Newt(f) = conv{α_j}`` as a :class:`tropattn.polytope.Polytope`.

    The Newton polytope of a product is the Minkowski sum of the factors' ones:

    >>> from tropattn.polytope import minkowski_sum
    >>> f, g = parse_polynomial("max(0, x, y)"), parse_polynomial("max(0, x + y)")
    >>> newton_polytope(f * g) == minkowski_sum(newton_polytope(f), newton_polytope(g))
    True
    """
    return polytope.convex_hull(f.exponents)


def lifted_polytope(f: TropicalPolynomial):
    """The lifted Newton polytope ``conv{(α_j, c_j)}`` in ``Q^{d+1}``.

    Its upper vertices are the terms with a linear region:

    >>> f = parse_polynomial("max(0, x, 2*x - 1)")
    >>> lifted_polytope(f).vertex_count, len(f.linear_regions())
    (3, 3)
    """
    return polytope.convex_hull(f.lifted_points())


def dual_subdivision(f: TropicalPolynomial) -> tuple:
    """The maximal cells of the regular subdivision of ``Newt(f)`` induced by the coefficients.

    Each cell is the frozenset of term indices whose lifted points lie on one upper
    facet of the lifted polytope (all of them, not only its vertices); within the
    affine hull when ``Newt(f)`` is lower-dimensional.  Sorted by sorted indices.

    Examples
    --------
    >>> dual_subdivision(parse_polynomial("max(0, x, 2*x - 1)"))   # two segments
    (frozenset({0, 1}), frozenset({1, 2}))
    """
    cells = _upper_hull(f).cells
    return tuple(sorted((frozenset(c) for c in cells), key=lambda s: sorted(s)))


def _tie_system(f, S, others=None):
    """Equations tying every term of S to min(S); strict rows for every other term (of ``others``)."""
    s0 = min(S)
    a0, c0 = f.terms[s0]
    E, rhs_e, A, b = [], [], [], []
    for k in sorted(others) if others is not None else range(len(f)):
        ak, ck = f.terms[k]
        row = tuple(p - q for p, q in zip(ak, a0))
        if k in S:
            if k != s0:
                E.append(row)
                rhs_e.append(c0 - ck)
        elif not (all(v == 0 for v in row) and ck < c0):
            A.append(row)
            b.append(c0 - ck)
    return E, rhs_e, A, b


def _subdivision_faces(f):
    """Every face of the regular subdivision: ``{terms: dim}`` plus the maximal cells.

    A face is named by all terms whose lifted points lie on it (so a face shared by
    several maximal cells is found once) and ``dim`` is the dimension of its
    projection.  Faces of a cell are found by walking down facets
    (:func:`tropattn.polytope.convex_hull`, exact, within the affine hull); a face of a
    face is a face.  Single points (dimension 0) are included with ``dim = 0``.
    """
    poly = polytope
    cells = [frozenset(c) for c in _upper_hull(f).cells]
    faces, todo = {}, [(S, None) for S in cells]
    while todo:
        S, dim = todo.pop()
        if S in faces:
            continue
        if dim is not None and dim <= 1:  # a segment's faces are its end points, which we do not need
            faces[S] = dim
            continue
        P = poly.convex_hull([f.exponents[k] for k in S])
        faces[S] = P.dim
        for normal, offset in P.facets if P.dim >= 2 else ():
            todo.append((frozenset(k for k in S if sum(a * v for a, v in zip(normal, f.exponents[k])) == offset),
                         P.dim - 1))
    return faces, cells


def hypersurface_cells(f: TropicalPolynomial) -> tuple:
    """Every cell of the tropical hypersurface: one per face of the dual subdivision.

    A face ``F`` of the regular subdivision with ``dim F >= 1`` (at least two
    distinct exponents) is dual to the relatively open polyhedron where exactly the
    terms on ``F`` attain the max; its dimension is ``d - dim F``.  Together with the
    linear regions (dual to the vertices) these cells partition ``R^d``.

    * *walls* (``dim F = 1``, cell dimension ``d - 1``): one per pair of adjacent
      regions ``j, k``, with the equation ``(α_k - α_j)·x = c_j - c_k`` and region
      ``j``'s other facet rows;
    * every other face (down to the maximal cells, dual to the vertices of the
      hypersurface when ``Newt(f)`` is full-dimensional): ties with the smallest
      term of ``F`` as equations, strict rows for the terms sharing a maximal cell with
      ``F`` (all other rows are implied), and a point certified by
      :func:`tropattn.exact.relative_interior_point`.

    Cells are identified by the set of terms attaining the max on them, so a wall that
    is also a maximal cell (``Newt`` of dimension 1) appears once.  Needs
    :mod:`tropattn.polytope`.

    Returns
    -------
    tuple of HypersurfaceCell, sorted by decreasing dimension, then by sorted terms.

    Examples
    --------
    >>> cells = hypersurface_cells(parse_polynomial("max(0, x, y)"))   # tropical line
    >>> sorted((c.dim, sorted(c.terms)) for c in cells)
    [(0, [0, 1, 2]), (1, [0, 1]), (1, [0, 2]), (1, [1, 2])]
    >>> plane = hypersurface_cells(parse_polynomial("max(0, x, y, z)"))  # 6 walls, 4 rays, 1 vertex
    >>> [sum(c.dim == k for c in plane) for k in (2, 1, 0)]
    [6, 4, 1]
    """
    out = {}
    for reg in f.linear_regions():
        for i, k in enumerate(reg.neighbors):
            if k < reg.term:
                continue
            p = reg.facet_points[i]
            terms = frozenset(f.argmax_terms(p))
            out.setdefault(terms, HypersurfaceCell(
                terms=terms, E=(reg.A[i],), f=(reg.b[i],),
                A=tuple(r for m, r in enumerate(reg.A) if m != i),
                b=tuple(r for m, r in enumerate(reg.b) if m != i),
                point=p, dim=f.dim - 1))
    faces, cells = _subdivision_faces(f)
    for S, k in faces.items():
        if k == 0 or S in out:
            continue
        E, fe, A, b = _tie_system(f, S, set().union(*(C for C in cells if S <= C)))
        cert = exact.relative_interior_point(A, b, E, fe) if A else None
        point = cert.point if cert is not None else exact.solve(E, fe)
        if point is None:
            raise TropattnError(
                f"internal error: the face {sorted(S)} of the dual subdivision has no dual cell; "
                "please report this polynomial")
        out[S] = HypersurfaceCell(terms=S, E=tuple(E), f=tuple(fe), A=tuple(A), b=tuple(b),
                                  point=tuple(point), dim=f.dim - k)
    return tuple(sorted(out.values(), key=lambda c: (-c.dim, sorted(c.terms))))


def common_refinement(polys: Sequence[TropicalPolynomial]) -> tuple:
    """Cells where each polynomial of ``polys`` has a unique max: the regions of their product.

    A region of ``f_1 ⊙ ... ⊙ f_m`` determines its winning term in every factor
    (at a point where each factor has a unique max, the product's max is the sum of
    those maxima and no other combination ties), so the product's regions are in
    bijection with the realisable tuples of terms.

    Returns
    -------
    tuple of RationalPiece, sorted by ``terms``.

    Examples
    --------
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


# ---------------------------------------------------------- rational functions
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

    Examples
    --------
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
        """Exact ``f(x) - g(x)``."""
        return self.numerator.evaluate(x) - self.denominator.evaluate(x)

    __call__ = evaluate

    def evaluate_float(self, X) -> np.ndarray:
        """Vectorised float ``f - g`` over ``(n, d)`` points."""
        return self.numerator.evaluate_float(X) - self.denominator.evaluate_float(X)

    def pieces(self) -> tuple:
        """The common refinement of the numerator's and denominator's regions.

        On each piece the function is affine; adjacent pieces may share the same
        affine map (a rational function's linear regions are unions of pieces).
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
        """``numerator.to_sympy() - denominator.to_sympy()``."""
        return self.numerator.to_sympy() - self.denominator.to_sympy()

    def to_latex(self) -> str:
        r"""``\max(...) - \max(...)``."""
        return f"{self.numerator.to_latex()} - {self.denominator.to_latex()}"


@dataclass(frozen=True, init=False)
class TropicalRationalMap:
    """A vector-valued tropical rational map ``F = (f_1 ⊘ g_1, ..., f_m ⊘ g_m)``.

    Parameters
    ----------
    components : sequence of TropicalRationalFunction or TropicalPolynomial
        Polynomials are read as ``f ⊘ 0``.  All share the same variables.

    Examples
    --------
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
        """Exact values of every component at ``x``."""
        return tuple(c.evaluate(x) for c in self.components)

    __call__ = evaluate

    def evaluate_float(self, X) -> np.ndarray:
        """Float values: shape ``(n, m)`` for ``(n, d)`` points, ``(m,)`` for one point."""
        return np.stack([np.asarray(c.evaluate_float(X)) for c in self.components], axis=-1)

    def pieces(self) -> tuple:
        """Common refinement of every numerator and denominator (the map is affine on each)."""
        return common_refinement([p for c in self.components for p in (c.numerator, c.denominator)])


# ---------------------------------------------------------------- JSON
def polynomial_to_json(f: TropicalPolynomial) -> dict:
    """``{"variables": [...], "terms": [{"exponent": [...], "coefficient": "p/q"}, ...]}``.

    Integers stay integers; other rationals become ``"p/q"`` strings (exact).

    >>> polynomial_to_json(parse_polynomial("max(0, x/2 + 1)"))["terms"][1]
    {'exponent': ['1/2'], 'coefficient': 1}
    """
    def enc(q):
        return q.numerator if q.denominator == 1 else _frac_str(q)

    return {"variables": list(f.variables),
            "terms": [{"exponent": [enc(a) for a in alpha], "coefficient": enc(c)} for alpha, c in f.terms]}


def _json_number(value, path, allow_neg_inf=False):
    if isinstance(value, (list, dict)) or value is None:
        raise ModelFileError(f"expected a number such as 1, 0.5 or \"1/2\", got {json.dumps(value)[:60]}", path)
    try:
        return exact.to_rational(value, "the value", allow_neg_inf=allow_neg_inf)
    except InvalidInputError as exc:
        raise ModelFileError(str(exc), path) from None


def polynomial_from_json(obj) -> TropicalPolynomial:
    """Read a polynomial from its JSON form (a dict, or a JSON string).

    Parameters
    ----------
    obj : dict or str
        ``{"variables": ["x", "y"], "terms": [{"exponent": [1, 0], "coefficient": "1/2"}, ...]}``;
        ``variables`` is optional; ``"-inf"`` coefficients are dropped.

    Raises
    ------
    ModelFileError
        With ``path`` naming the offending entry, such as ``terms[2].exponent``.

    Examples
    --------
    >>> polynomial_from_json({"terms": [{"exponent": [0], "coefficient": 0},
    ...                                 {"exponent": [1], "coefficient": "1/2"}]})
    TropicalPolynomial('max(0, x + 1/2)', variables=('x',))
    >>> polynomial_from_json({"terms": [{"exponent": [0], "coefficient": "one"}]})
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: terms[0].coefficient: the value = 'one' is not a number; ...
    """
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise ModelFileError(f"not valid JSON: {exc}", "") from None
    if not isinstance(obj, dict):
        raise ModelFileError(f"expected an object with a \"terms\" list, got {type(obj).__name__}", "$")
    terms = obj.get("terms")
    if not isinstance(terms, list) or not terms:
        raise ModelFileError("expected a non-empty list of {\"exponent\": [...], \"coefficient\": ...} objects",
                             "terms")
    exps, coefs, d = [], [], None
    for i, t in enumerate(terms):
        p = f"terms[{i}]"
        if not isinstance(t, dict):
            raise ModelFileError("expected an object {\"exponent\": [...], \"coefficient\": ...}", p)
        for key in ("exponent", "coefficient"):
            if key not in t:
                raise ModelFileError(f"missing \"{key}\"", p)
        extra = sorted(set(t) - {"exponent", "coefficient"})
        if extra:
            raise ModelFileError(f"unknown keys {extra}; a term has only \"exponent\" and \"coefficient\"", p)
        e = t["exponent"]
        if not isinstance(e, list):
            raise ModelFileError("expected a list of numbers, one per variable, e.g. [1, 0]", p + ".exponent")
        if d is None:
            d = len(e)
        elif len(e) != d:
            raise ModelFileError(f"has {len(e)} entries but terms[0].exponent has {d}; "
                                 "every exponent needs one entry per variable", p + ".exponent")
        exps.append([_json_number(v, f"{p}.exponent[{k}]") for k, v in enumerate(e)])
        coefs.append(_json_number(t["coefficient"], p + ".coefficient", allow_neg_inf=True))
    variables = obj.get("variables")
    if variables is not None:
        if not isinstance(variables, list) or len(variables) != d:
            raise ModelFileError(f"expected a list of {d} variable names (one per exponent entry)", "variables")
        for k, v in enumerate(variables):
            if not isinstance(v, str) or not _IDENT.match(v):
                raise ModelFileError(f"{v!r} is not a valid name; use e.g. \"x\" or \"x1\"", f"variables[{k}]")
    try:
        return TropicalPolynomial(exps, coefs, variables)
    except InvalidInputError as exc:
        raise ModelFileError(str(exc), "terms") from None


# ---------------------------------------------------------------- parsing
_TOKEN = re.compile(r"""\s*(?:
    (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
   |(?P<name>[A-Za-z_][A-Za-z_0-9]*)
   |(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)
   |(?P<op>\*\*|[-+*/^(),⊕⊙·−])
)""", re.X)
_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _tokenize(text):
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            bad = text[pos:].lstrip()[:10]
            raise InvalidInputError(
                f"cannot read {bad!r} at position {pos} of {text!r}; write terms like 'max(0, x + 1, 2*y - 1/2)' "
                "or '3 ⊕ 2x ⊕ x²'")
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "op":
            val = {"−": "-", "·": "*", "**": "^"}.get(val, val)
        elif kind == "sup":
            val = val.translate(_SUP)
        if val.lower() in ("nan", "inf", "infinity"):
            raise InvalidInputError(
                f"{val!r} at position {m.start(kind)} of {text!r} is not a number a tropical polynomial can hold: "
                "coefficients must be finite (leave a term out instead of giving it -inf)")
        toks.append((kind, val, m.start(kind), m.end()))
        pos = m.end()
    toks.append(("end", "", len(text), len(text)))
    return toks


class _Affine:
    """lin: dict name -> Fraction, const: Fraction (classical parser values)."""

    __slots__ = ("lin", "const")

    def __init__(self, lin=None, const=Fraction(0)):
        self.lin = {k: v for k, v in (lin or {}).items() if v != 0}
        self.const = const

    def is_const(self):
        return not self.lin

    def __add__(self, o):
        lin = dict(self.lin)
        for k, v in o.lin.items():
            lin[k] = lin.get(k, 0) + v
        return _Affine(lin, self.const + o.const)

    def scale(self, s):
        return _Affine({k: v * s for k, v in self.lin.items()}, self.const * s)


class _Parser:
    """Recursive descent over tokens; values are lists of terms (a max)."""

    def __init__(self, text, tropical):
        self.text, self.toks, self.i, self.tropical = text, _tokenize(text), 0, tropical

    def peek(self):
        return self.toks[self.i]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, val):
        t = self.take()
        if t[1] != val:
            self.fail(f"expected {val!r} but found {t[1] or 'the end'!r}", t)
        return t

    def fail(self, msg, tok=None):
        tok = tok or self.peek()
        raise InvalidInputError(f"{msg} at position {tok[2]} of {self.text!r}")

    # ---- classical: max(affine, ...) with + - * / and numbers
    def expr(self):
        val = self.product()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            rhs = self.product()
            val = _cadd(val, rhs if op == "+" else self._neg(rhs))
        return val

    def _neg(self, val):
        if len(val) > 1:
            self.fail("-max(...) is a min, not a tropical polynomial; move it to the other side "
                      "or use TropicalRationalFunction(numerator, denominator)")
        return [val[0].scale(-1)]

    def product(self):
        val = self.unary()
        while True:
            t = self.peek()
            if t[1] in ("*", "/"):
                self.take()
                val = self._cmul(val, self.unary(), divide=t[1] == "/", tok=t)
            elif t[0] in ("name", "num") or t[1] == "(":  # implicit product such as 2x or 2(x + 1)
                prev = self.toks[self.i - 1]
                if not (len(val) == 1 and val[0].is_const() and prev[0] == "num" and prev[3] == t[2]):
                    self.fail(f"missing ',' or operator before {t[1]!r}; separate the arguments of max "
                              "with ',' and write '*' between factors", t)
                val = self._cmul(val, self.power(), divide=False, tok=t)
            else:
                return val

    def unary(self):
        if self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            val = self.unary()
            return self._neg(val) if op == "-" else val
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek()[1] == "^" or self.peek()[0] == "sup":
            t = self.take()
            exp = self.unary() if t[1] == "^" else [_Affine(const=Fraction(int(t[1])))]
            if not (len(exp) == 1 and exp[0].is_const() and len(base) == 1 and base[0].is_const()):
                self.fail("powers of variables are not affine; in max(...) notation write 2*x for the "
                          "tropical square x⊙x (or use tropical notation such as 'x²' with ⊕)", t)
            e = exp[0].const
            if e.denominator != 1:
                self.fail("only integer powers of numbers are allowed", t)
            b = base[0].const
            if b == 0 and e < 0:
                self.fail("0 to a negative power", t)
            return [_Affine(const=b ** int(e))]
        return base

    def atom(self):
        t = self.take()
        kind, val = t[0], t[1]
        if kind == "num":
            return [_Affine(const=Fraction(val))]
        if kind == "name":
            if self.peek()[1] == "(":
                return self.call(t)
            if val.lower() in ("inf", "oo"):
                self.fail("infinite constants are not terms; drop -inf terms (the tropical zero)", t)
            return [_Affine({val: Fraction(1)})]
        if val == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        self.fail(f"unexpected {val or 'end of input'!r}", t)

    def call(self, name_tok):
        name = name_tok[1]
        if name not in ("max", "Max"):
            hint = (" (a min of affine functions is concave; tropattn uses the max convention: "
                    "negate, or write max(...))") if name.lower() == "min" else ""
            self.fail(f"unknown function {name!r}; only max(...) is allowed{hint}", name_tok)
        self.expect("(")
        args = self.expr()
        while self.peek()[1] == ",":
            self.take()
            args = args + self.expr()
        self.expect(")")
        return args

    def _cmul(self, a, b, divide, tok):
        if len(b) == 1 and b[0].is_const():
            k = b[0].const
            if divide:
                if k == 0:
                    self.fail("division by zero", tok)
                k = 1 / k
            if k < 0 and len(a) > 1:
                self.fail("a negative multiple of max(...) is a min, not a tropical polynomial", tok)
            return [t.scale(k) for t in a]
        if not divide and len(a) == 1 and a[0].is_const():
            k = a[0].const
            if k < 0 and len(b) > 1:
                self.fail("a negative multiple of max(...) is a min, not a tropical polynomial", tok)
            return [t.scale(k) for t in b]
        what = "dividing by a variable" if divide else "a product of variables such as x*y"
        self.fail(f"{what} is not affine; each argument of max(...) must be affine, e.g. "
                  "'x + y' for the tropical monomial x⊙y or '2*x' for x⊙x", tok)

    # ---- tropical notation: ⊕ between monomials, ⊙ or juxtaposition inside
    def tsum(self):
        val = self.tprod()
        while self.peek()[1] in ("⊕", "+"):
            self.take()
            val = val + self.tprod()
        return val

    def tprod(self):
        val = self.tfactor()
        while True:
            t = self.peek()
            if t[1] in ("⊙", "*"):
                self.take()
                val = _cadd(val, self.tfactor())
            elif t[0] in ("name", "num") or t[1] in ("(", "-"):
                val = _cadd(val, self.tfactor())
            else:
                return val

    def tfactor(self):
        base = self.tatom()
        t = self.peek()
        if t[1] == "^" or t[0] == "sup":
            self.take()
            if t[0] == "sup":
                e = Fraction(int(t[1]))
            else:
                neg = self.peek()[1] == "-" and self.take()
                e = self._tnumber() if self.peek()[1] != "(" else self._paren_rational()
                e = -e if neg else e
            if len(base) > 1:
                if e.denominator != 1 or e < 0:
                    self.fail("a sum can only be raised to an integer power >= 0", t)
                out = [_Affine()]
                for _ in range(int(e)):
                    out = _cadd(out, base)
                return out
            return [base[0].scale(e)]
        return base

    def _tnumber(self):
        t = self.take()
        if t[0] != "num":
            self.fail(f"expected a number but found {t[1]!r}", t)
        q = Fraction(t[1])
        if self.peek()[1] == "/" and self.toks[self.i + 1][0] == "num":
            self.take()
            q /= Fraction(self.take()[1])
        return q

    def _paren_rational(self):
        self.expect("(")
        val = self.expr()
        self.expect(")")
        if len(val) != 1 or not val[0].is_const():
            self.fail("an exponent must be a number such as 2 or (1/2)")
        return val[0].const

    def tatom(self):
        t = self.peek()
        if t[1] == "-":
            self.take()
            return [_Affine(const=-self._tnumber())]
        if t[0] == "num":
            return [_Affine(const=self._tnumber())]
        if t[0] == "name":
            self.take()
            return [self._split_name(t)]
        if t[1] == "(":
            self.take()
            inner = self.tsum()
            self.expect(")")
            return inner
        self.fail(f"unexpected {t[1] or 'end of input'!r}", t)

    def _split_name(self, tok):
        """'xy' -> x ⊙ y: variables are a letter plus optional digits, or known names."""
        name, known = tok[1], getattr(self, "known", None)
        lin = {}
        pos = 0
        while pos < len(name):
            match = None
            if known:
                match = max((v for v in known if name.startswith(v, pos)), key=len, default=None)
            if match is None:
                m = re.compile(r"[A-Za-z](?:_?\d+)?").match(name, pos)
                if not m:
                    self.fail(f"cannot split {name!r} into variables", tok)
                match = m.group(0)
            lin[match] = lin.get(match, 0) + Fraction(1)
            pos += len(match)
        return _Affine(lin)


def _cadd(a, b):
    """Sum of two maxes = max of pairwise sums (the tropical product)."""
    return [s + t for s in a for t in b]


def _natural_key(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def parse_polynomial(text: str, variables=None, *, notation=None) -> TropicalPolynomial:
    """Read a tropical polynomial from text.

    Two notations are understood:

    * **max form** (default): ``"max(0, x + 1, 2*y - 1/2)"``; each argument affine
      in the variables (``2x`` means ``2*x``); ``max`` may be ``Max`` (sympy's
      printing round-trips) and may nest; a sum of maxes is their tropical product
      and a bare affine expression is a one-term polynomial;
    * **tropical form** (chosen when the text contains ``⊕`` or ``⊙``, or with
      ``notation="tropical"``): ``"3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y²"``, where
      juxtaposition, ``⊙`` and ``*`` are the tropical product, ``x²``, ``x^2``,
      ``x^(1/2)`` are powers and ``2x`` is ``2 ⊙ x = x + 2``.  A name such as ``xy``
      splits into the one-letter variables ``x``, ``y`` (a letter may carry digits:
      ``x1x2``), or into the given ``variables``.

    Parameters
    ----------
    text : str
    variables : sequence of str, optional
        Variable order; by default the names found, sorted (``x2`` before ``x10``).
    notation : {"max", "tropical"}, optional

    Raises
    ------
    InvalidInputError
        Non-affine arguments such as ``x*y`` (the message says to write ``x + y``),
        unknown functions or names, syntax errors (with the position).

    Examples
    --------
    >>> parse_polynomial("max(0, x + 1, 2*y - 1/2)")
    TropicalPolynomial('max(0, x + 1, 2*y - 1/2)', variables=('x', 'y'))
    >>> parse_polynomial("3 ⊕ 2x ⊕ x²")
    TropicalPolynomial('max(3, x + 2, 2*x)', variables=('x',))
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"parse_polynomial needs a string, got {type(text).__name__}")
    if notation is None:
        notation = "tropical" if ("⊕" in text or "⊙" in text) else "max"
    if notation not in ("max", "tropical"):
        raise InvalidInputError(f"notation = {notation!r}; use 'max' or 'tropical'")
    parser = _Parser(text, notation == "tropical")
    if variables is not None:
        variables = tuple(variables) if not isinstance(variables, str) else (variables,)
        parser.known = variables
    if parser.peek()[0] == "end":
        raise InvalidInputError("the text is empty; write a polynomial such as 'max(0, x + 1)'")
    terms = parser.tsum() if parser.tropical else parser.expr()
    if parser.peek()[0] != "end":
        tok = parser.peek()
        hint = " (use ',' between the arguments of max)" if not parser.tropical else ""
        parser.fail(f"unexpected {tok[1]!r}{hint}", tok)
    names = sorted({v for t in terms for v in t.lin}, key=_natural_key)
    if variables is None:
        variables = tuple(names) or ("x",)
    else:
        unknown = [v for v in names if v not in variables]
        if unknown:
            raise InvalidInputError(f"the text uses {unknown} which are not among variables={variables}; "
                                    "add them or fix the spelling")
    exps = [[t.lin.get(v, Fraction(0)) for v in variables] for t in terms]
    return TropicalPolynomial(exps, [t.const for t in terms], variables)
