"""Symbolic tropicalization: exact conditions on the parameters of lifted point sets.

A head with a fixed context scores token ``j`` by ``s_j(x) = a_j . x + b_j`` (docs/THEORY.md §2);
when the weights hold symbols ``t``, the keys ``a_j(t)`` and offsets ``b_j(t)`` are rational
functions of ``t`` (:class:`tropattn.attention.SymbolicHead` builds them), and so are the
lifted points ``p_j = (a_j, b_j)`` whose upper hull is dual to the head's cells.  Several
heads multiply tropically: ``G_1 ⊙ G_2 = G_1 + G_2``, whose lifted Newton polytope is the
Minkowski sum of the heads' lifted polytopes, i.e. the symbolic points
``(a_1i + a_2j, b_1i + b_2j)`` (:func:`tropattn.attention.symbolic_product`).

Questions whose answer depends on ``t`` are answered by exact semialgebraic conditions
(sympy Booleans of polynomial sign conditions), never by sampling:

* **term j is redundant** (its cell is empty) iff its lifted point ``p_j = (a_j, b_j)``
  lies in ``conv(q) + R_{<=0} e_last`` for the points ``q`` different from ``p_j``; by
  Carathéodory it suffices to look at affinely independent sets ``S`` of at most
  ``d + 1`` other terms: ``a_j = sum lambda_k a_k`` with ``lambda >= 0`` and
  ``sum lambda_k b_k >= b_j``.  With ``D = det`` of the homogenised ``a_S`` (on a choice of
  columns; sympy's own ``Matrix.det``) and Cramer's ``D_k``, that is ``D != 0``,
  ``D D_k >= 0`` and ``D (sum D_k b_k - D b_j) >= 0`` -- the sign of the orientation
  determinant of the lifted points -- plus the equations putting ``a_j`` in the affine
  hull of ``a_S``;
* **cells j and k are adjacent** (share a facet) iff both are cells and ``[p_j, p_k]`` is
  an upper edge, i.e. the image of ``p_j`` is an upper vertex after dividing out the
  direction ``p_k - p_j`` (a redundancy question one dimension lower).

:func:`type_condition` is the region of parameter space (any number of symbols) where a
given combinatorial type holds.  For one symbol, :func:`parameter_regions` cuts the
parameter line at the boundary points of these conditions (real algebraic numbers,
compared exactly: :mod:`~tropattn.tropical._semialgebraic`) and reports the combinatorial
type (redundant terms, adjacent pairs) on every open interval and at every boundary
point.  Floats never enter: numbers are converted exactly (:func:`to_expression`).
sympy is imported on first use, so ``import tropattn`` stays fast.

>>> import sympy
>>> t = sympy.Symbol("t", real=True)
>>> points = [(0, 0), (1, t), (2, 0)]                        # scores 0, x + t, 2x, lifted
>>> redundancy_condition(points, 1)                          # x + t never wins iff t <= 0
t <= 0
>>> [(str(p.set), p.redundant) for p in parameter_regions(points)]
[('Interval(-oo, 0)', (1,)), ('Interval.open(0, oo)', ())]
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from .._lazy import lazy_import
from ..errors import InvalidInputError
from ._semialgebraic import ParameterLine, sample_value
from .._doc import fill_doc

__all__ = ["to_expression", "ParameterPiece", "redundancy_condition", "adjacency_condition", "node_condition",
           "type_condition", "parameter_regions"]

sp = lazy_import("sympy")
polyerrors = lazy_import("sympy.polys.polyerrors")

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "points": """points : sequence of sequence of number or sympy expression, shape (N, d + 1)
    Lifted points ``(a_j..., b_j)``; the last coordinate is the offset ``b_j``.
    Entries must be rational functions of the symbols with rational coefficients.""",
    "raises": """Raises
------
InvalidInputError
    When the points are empty or ragged, an entry is not a rational expression,
    or an index is out of range; with one parameter, also when an entry has a
    pole on the parameter line.""",
    "symbol": """>>> import sympy
>>> t = sympy.Symbol("t", real=True)""",
}


@fill_doc(**_DOC)
def to_expression(value, name: str = "value"):
    """One exact sympy entry: numbers become Rationals, expressions must be rational in their symbols.

    The symbolic twin of :func:`tropattn.exact.to_rational`: floats are converted to the
    rational they represent, strings are parsed exactly (``"1/3"``), and an expression
    is accepted if it is a finite real rational function of its symbols with rational
    coefficients (returned cancelled, ``p / q`` in lowest terms).

    Parameters
    ----------
    value : number, str or sympy expression
        The entry.
    name : str, optional
        How error messages call it (e.g. ``"keys[0][1]"``).

    Returns
    -------
    sympy.Expr
        A ``Rational`` or a cancelled rational function of the symbols.

    Raises
    ------
    InvalidInputError
        Not a number or expression, not a rational function (``sin(t)``), a coefficient
        that is not rational (``sqrt(2) t``), or not a finite real value.

    Examples
    --------
    %(symbol)s
    >>> to_expression(0.5), to_expression("1/3"), to_expression((t ** 2 - 1) / (t - 1))
    (1/2, 1/3, t + 1)
    >>> to_expression(sympy.sqrt(2) * t, "keys[0][0]")        # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: keys[0][0] = sqrt(2)*t has a coefficient that is not rational ...
    """
    if isinstance(value, float):
        value = Fraction(value)
    if isinstance(value, Fraction):
        return sp.Rational(value.numerator, value.denominator)
    try:
        expr = sp.sympify(value, rational=True) if isinstance(value, str) else sp.sympify(value)
    except (sp.SympifyError, TypeError):
        raise InvalidInputError(f"{name} = {value!r} is not a number or a sympy expression; "
                                "use e.g. 1, '1/2' or sympy.Symbol('t')") from None
    if not isinstance(expr, sp.Expr) or not expr.is_rational_function(*sorted(expr.free_symbols, key=str)):
        raise InvalidInputError(f"{name} = {value!r} is not a rational function of its symbols; "
                                "entries must be built from numbers and symbols with + - * /")
    if expr.has(sp.zoo, sp.oo, sp.nan) or expr.is_real is False:
        raise InvalidInputError(f"{name} = {value!r} is not a finite real number or expression")
    expr = sp.cancel(expr)
    gens = sorted(expr.free_symbols, key=str) or [sp.Dummy()]
    try:
        for part in sp.fraction(expr):
            sp.Poly(part, *gens, domain=sp.QQ)
    except (sp.PolynomialError, polyerrors.CoercionFailed, polyerrors.GeneratorsError):
        raise InvalidInputError(f"{name} = {value!r} has a coefficient that is not rational (such as sqrt(2) "
                                "or pi); exact answers need rational coefficients: use a symbol instead") from None
    return expr


# ----------------------------------------------------------------------------- conditions
def _points(points):
    P = [tuple(to_expression(v, f"points[{i}][{c}]") for c, v in enumerate(p)) for i, p in enumerate(points)]
    if not P or len(P[0]) < 1 or any(len(p) != len(P[0]) for p in P):
        raise InvalidInputError("points must be a non-empty list of lifted points (a_j..., b_j) of equal length")
    return P


def _differs(p, q):
    """The condition ``p != q`` (some coordinate differs)."""
    return sp.Or(*[sp.Ne(sp.cancel(u - v), 0) for u, v in zip(p, q)])


def _det(rows, cols):
    return sp.cancel(sp.Matrix([[r[c] for c in cols] for r in rows]).det(method="berkowitz"))


def _redundancy(P, j):
    d = len(P[0]) - 1
    hom = [tuple(p[:d]) + (sp.Integer(1),) for p in P]
    target, bj = hom[j], P[j][d]
    clauses = []
    others = [k for k in range(len(P)) if k != j]
    for m in range(1, d + 2):
        for S in combinations(others, m):
            distinct = sp.And(*[_differs(P[k], P[j]) for k in S])
            if distinct is sp.false:
                continue
            rows = [hom[k] for k in S]
            for C in combinations(range(d + 1), m):
                D = _det(rows, C)
                if D == 0:
                    continue
                Dk = [_det(rows[:i] + [target] + rows[i + 1:], C) for i in range(m)]
                in_hull = [sp.Eq(_det(rows + [target], C + (c,)), 0) for c in range(d + 1) if c not in C]
                height = sp.cancel(sum((Dk[i] * P[k][d] for i, k in enumerate(S)), -D * bj))
                clauses.append(sp.And(sp.Ne(D, 0), *in_hull, *[sp.cancel(D * x) >= 0 for x in Dk],
                                      sp.cancel(D * height) >= 0, distinct))
    return sp.Or(*clauses)


@fill_doc(**_DOC)
def redundancy_condition(points, j: int):
    """The exact condition on the symbols under which term ``j`` has no cell.

    Parameters
    ----------
    points : sequence of lifted points ``(a_j..., b_j)`` (numbers or sympy expressions)
        The last coordinate is the offset ``b_j`` (the height of the lift).
    j : int
        The term, ``0 <= j < N``.

    Returns
    -------
    sympy Boolean
        True exactly for the parameter values at which ``p_j`` is not an upper vertex of
        the lifted points (a point equal to an upper vertex is not redundant: the
        convention of :meth:`TropicalPolynomial.redundant_terms`).

    Raises
    ------
    InvalidInputError
        When the points are empty or ragged, an entry is not a rational expression,
        or ``j`` is out of range; with one parameter, also when an entry has a pole
        on the parameter line.

    Examples
    --------
    %(symbol)s
    >>> redundancy_condition([(0, 0), (1, t), (2, 0)], 1)
    t <= 0
    """
    P = _points(points)
    _index(j, len(P), "j")
    return _simplified(_redundancy(P, j))


@fill_doc(**_DOC)
def node_condition(points, j: int):
    """The condition under which ``j`` is a node of the adjacency graph.

    ``j`` has a cell and no earlier term has the same lifted point (the earlier copy
    carries the cell, as in :attr:`tropattn.geometry.PowerDiagram.duplicates`).

    Parameters
    ----------
    %(points)s
    j : int
        The term, ``0 <= j < N``.

    Returns
    -------
    sympy Boolean
        True exactly for the parameter values where ``j`` is a node (simplified to
        intervals and points for one parameter).

    %(raises)s

    Examples
    --------
    %(symbol)s
    >>> node_condition([(0, t), (0, 0)], 1)
    t < 0
    >>> node_condition([(0, 0), (1, t), (2, 0)], 1)        # at t = 0 the point is on the segment
    0 < t
    """
    P = _points(points)
    _index(j, len(P), "j")
    return _simplified(_node(P, j))


def _node(P, j):
    return sp.And(sp.Not(_redundancy(P, j)), *[_differs(P[l], P[j]) for l in range(j)])


@fill_doc(**_DOC)
def adjacency_condition(points, j: int, k: int):
    """The condition under which the cells of ``j`` and ``k`` share a facet (a wall).

    Both must be nodes (:func:`node_condition`) and ``[p_j, p_k]`` an upper edge: after
    dividing out the direction ``w = p_k - p_j`` (on a coordinate ``i`` with
    ``w_i != 0``; the quotient is scaled by ``w_i^2 > 0`` to stay polynomial), ``p_j``
    must be an upper vertex of the projected points.

    Parameters
    ----------
    %(points)s
    j, k : int
        Two different terms.

    Returns
    -------
    sympy Boolean
        True exactly where the two cells are adjacent.

    %(raises)s
        Also when ``j == k``.

    Examples
    --------
    %(symbol)s
    >>> adjacency_condition([(0, 0), (1, t), (2, 0)], 0, 2)     # the wall 0|2 exists iff x + t is hidden
    t <= 0
    """
    P = _points(points)
    _index(j, len(P), "j"), _index(k, len(P), "k")
    if j == k:
        raise InvalidInputError(f"j = k = {j}; adjacency is between two different terms")
    return _simplified(_adjacency(P, j, k))


def _adjacency(P, j, k):
    d = len(P[0]) - 1
    w = [sp.cancel(u - v) for u, v in zip(P[k], P[j])]
    pivots = []
    for i in range(d):
        if w[i] == 0:
            continue
        Q = [tuple(sp.cancel(w[i] * (w[i] * p[c] - p[i] * w[c])) for c in range(d + 1) if c != i) for p in P]
        pivots.append(sp.And(sp.Ne(w[i], 0), sp.Not(_redundancy(Q, j))))
    return sp.And(_node(P, j), _node(P, k), sp.Or(*pivots))


@fill_doc(**_DOC)
def type_condition(points, redundant, edges):
    """The exact region of parameter space where the combinatorial type is ``(redundant, edges)``.

    The conjunction over every term ``j`` of its redundancy condition (or its negation)
    and over every pair ``j < k`` of its adjacency condition (or its negation): a
    semialgebraic set in any number of parameters (for two parameters, a region of the
    plane).  With one parameter it is simplified to intervals and points (``False`` for a
    type that never occurs); with more it is returned as built, unsimplified (a type that
    never occurs gives a condition that is false at every point, not always the literal
    ``False``).

    Parameters
    ----------
    %(points)s
    redundant : iterable of int
        The terms without a cell.
    edges : iterable of pairs of int
        The adjacent pairs (order inside a pair does not matter).

    Returns
    -------
    sympy Boolean
        True exactly where the head has this type.

    %(raises)s

    Examples
    --------
    >>> import sympy
    >>> s, t = sympy.symbols("s t", real=True)
    >>> cond = type_condition([(0, 0), (1, s), (2, t)], redundant=[1], edges=[(0, 2)])
    >>> cond.subs({s: -1, t: 0}), cond.subs({s: 1, t: 0})      # hidden iff s <= t / 2
    (True, False)
    """
    P = _points(points)
    n = len(P)
    red = {int(j) for j in redundant}
    adj = {tuple(sorted(int(v) for v in e)) for e in edges}
    parts = [_redundancy(P, j) if j in red else sp.Not(_redundancy(P, j)) for j in range(n)]
    parts += [_adjacency(P, j, k) if (j, k) in adj else sp.Not(_adjacency(P, j, k))
              for j, k in combinations(range(n), 2)]
    return _simplified(sp.And(*parts))


def _simplified(cond):
    """For one parameter and polynomial data: the condition as a union of intervals and points."""
    syms = cond.free_symbols
    if len(syms) != 1:
        return cond
    (s,) = syms
    line = ParameterLine({0: cond}, s)
    if not line.polynomial:
        return cond
    pieces = [piece for piece, sample in line.pieces() if line.truth(0, sample)]
    return sp.Union(*pieces).as_relational(s) if pieces else sp.false


def _index(j, n, name):
    if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < n:
        raise InvalidInputError(f"{name} = {j!r}; expected a term index 0..{n - 1}")


# ----------------------------------------------------------------------------- one parameter
@dataclass(frozen=True)
class ParameterPiece:
    """A piece of the parameter line on which the combinatorial type is constant.

    Attributes
    ----------
    set : sympy Set
        An open interval, a point, or a union of such (adjacent pieces of one type merged).
    redundant : tuple of int
        The terms without a cell.
    edges : tuple of (int, int)
        The adjacent pairs ``j < k`` (the edges of the adjacency graph).
    sample : sympy number
        A point of ``set`` (rational on intervals; a boundary point itself otherwise).
    """

    set: object
    redundant: tuple
    edges: tuple
    sample: object


@fill_doc(**_DOC)
def parameter_regions(points) -> tuple:
    """Cut the line of one parameter into pieces of constant combinatorial type, exactly.

    The type is the set of redundant terms and the set of adjacent pairs.  Each of their
    conditions (:func:`redundancy_condition`, :func:`adjacency_condition`) is a
    semialgebraic subset of the line (a union of intervals and points); the type is
    constant between consecutive boundary points of all of them.  Each piece is decided
    exactly: on an open interval at a rational point inside it, at a boundary point
    (a real algebraic number) at that point itself, by sympy's exact set membership.

    Parameters
    ----------
    points : sequence of sequence of number or sympy expression, shape (N, d + 1)
        Lifted points ``(a_j..., b_j)`` with exactly one free symbol, polynomial in it.

    Returns
    -------
    tuple of ParameterPiece
        In increasing order along the line; adjacent pieces of one type are merged.

    Raises
    ------
    InvalidInputError
        When the points do not have exactly one parameter, are not polynomial in
        it, or an entry is not a rational expression.

    Examples
    --------
    %(symbol)s
    >>> for p in parameter_regions([(0, 0), (1, t), (2, 0)]):
    ...     print(p.set, p.redundant, p.edges)
    Interval(-oo, 0) (1,) ((0, 2),)
    Interval.open(0, oo) () ((0, 1), (1, 2))
    """
    P = _points(points)
    free = set().union(*(v.free_symbols for p in P for v in p))
    if len(free) != 1:
        raise InvalidInputError(f"parameter_regions needs exactly one parameter; the points have "
                                f"{sorted(s.name for s in free) or 'none'}. Substitute values for the others "
                                "(or use redundancy_condition / adjacency_condition, which take any number)")
    (s,) = free
    if not all(v.is_polynomial(s) for p in P for v in p):
        raise InvalidInputError("parameter_regions needs keys and offsets polynomial in the parameter; "
                                "multiply the scores by a positive common denominator first")
    n = len(P)
    conds = {("r", j): _redundancy(P, j) for j in range(n)}
    conds.update({("e", j, k): _adjacency(P, j, k) for j, k in combinations(range(n), 2)})
    line = ParameterLine(conds, s)
    out = []
    for piece, sample in line.pieces():
        red = tuple(j for j in range(n) if line.truth(("r", j), sample))
        edges = tuple((j, k) for j, k in combinations(range(n), 2) if line.truth(("e", j, k), sample))
        sample = sample_value(sample)
        if out and (out[-1].redundant, out[-1].edges) == (red, edges):
            prev = out.pop()
            piece, sample = sp.Union(prev.set, piece), prev.sample
        out.append(ParameterPiece(piece, red, edges, sample))
    return tuple(out)
