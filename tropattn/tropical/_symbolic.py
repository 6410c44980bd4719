"""Symbolic tropicalization: attention heads whose weights hold sympy symbols.

A head with a fixed context scores token ``j`` by ``s_j(x) = a_j . x + b_j`` (docs/THEORY.md §2);
when ``W_Q``, ``W_K``, ``b_Q`` or the context hold symbols ``t``, the keys ``a_j(t)`` and
offsets ``b_j(t)`` are rational functions of ``t`` and so are the power-diagram sites
``a_j`` and weights ``w_j = |a_j|^2 + 2 b_j``, the tropical polynomial
``G(x) = max_j (a_j . x + b_j)`` and the log-lifted rational map
``max_j (s_j + u_jc) - G(x)``.  Several heads multiply tropically: ``G_1 ⊙ G_2 = G_1 + G_2``,
whose lifted Newton polytope is the Minkowski sum of the heads' lifted polytopes, i.e.
the symbolic points ``(a_1i + a_2j, b_1i + b_2j)``.

Questions whose answer depends on ``t`` are answered by exact semialgebraic conditions
(sympy Booleans of polynomial sign conditions), never by sampling:

* **term j is redundant** (its cell is empty) iff its lifted point ``p_j = (a_j, b_j)``
  lies in ``conv(q) + R_{<=0} e_last`` for the points ``q`` different from ``p_j``; by
  Carathéodory it suffices to look at affinely independent sets ``S`` of at most
  ``d + 1`` other terms: ``a_j = sum lambda_k a_k`` with ``lambda >= 0`` and
  ``sum lambda_k b_k >= b_j``.  With ``D = det`` of the homogenised ``a_S`` (on a choice of
  columns) and Cramer's ``D_k``, that is ``D != 0``, ``D D_k >= 0`` and
  ``D (sum D_k b_k - D b_j) >= 0`` -- the sign of the orientation determinant of the
  lifted points -- plus the equations putting ``a_j`` in the affine hull of ``a_S``;
* **cells j and k are adjacent** (share a facet) iff both are cells and ``[p_j, p_k]`` is
  an upper edge, i.e. the image of ``p_j`` is an upper vertex after dividing out the
  direction ``p_k - p_j`` (a redundancy question one dimension lower).

:func:`type_condition` is the region of parameter space (any number of symbols) where a
given combinatorial type holds.  For one symbol, :func:`parameter_regions` cuts the parameter line at the boundary points
of these conditions (real algebraic numbers, compared exactly by sympy) and reports the
combinatorial type (redundant terms, adjacent pairs) on every open interval and at
every boundary point.  Floats never enter: numbers are converted exactly to
``sympy.Rational``.  sympy is imported on first use, so ``import tropattn`` stays fast.

>>> import sympy
>>> t = sympy.Symbol("t", real=True)
>>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
>>> head.tropical_polynomial()
Max(0, 2*x, t + x)
>>> head.redundancy_condition(1)                             # x + t never wins iff t <= 0
t <= 0
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations

from ..errors import InternalError, InvalidInputError
from ..geometry._power import PowerDiagram
from ._polynomial import TropicalPolynomial, _default_variables

__all__ = ["SymbolicHead", "ParameterPiece", "redundancy_condition", "adjacency_condition", "node_condition",
           "type_condition", "symbolic_product", "product_polynomial", "parameter_regions"]


def _sp():
    import sympy

    return sympy


def _entry(value, name):
    """One exact sympy entry: numbers become Rationals, expressions must be rational in their symbols."""
    sp = _sp()
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
    except (sp.PolynomialError, sp.polys.polyerrors.CoercionFailed, sp.polys.polyerrors.GeneratorsError):
        raise InvalidInputError(f"{name} = {value!r} has a coefficient that is not rational (such as sqrt(2) "
                                "or pi); exact answers need rational coefficients: use a symbol instead") from None
    return expr


def _matrix(M, name):
    if M is None or not hasattr(M, "__len__") or len(M) == 0:
        raise InvalidInputError(f"{name} is empty; give a list of rows")
    rows = [list(r) if hasattr(r, "__len__") and not isinstance(r, str) else [r] for r in M]
    if any(len(r) != len(rows[0]) for r in rows) or not rows[0]:
        raise InvalidInputError(f"{name} is ragged or has empty rows; every row needs the same length >= 1")
    return tuple(tuple(_entry(v, f"{name}[{i}][{c}]") for c, v in enumerate(r)) for i, r in enumerate(rows))


def _vector(v, name, n):
    if v is None:
        return (_sp().Integer(0),) * n
    v = list(v)
    if len(v) != n:
        raise InvalidInputError(f"{name} has {len(v)} entries; expected {n}")
    return tuple(_entry(x, f"{name}[{i}]") for i, x in enumerate(v))


def _matvec(M, x):
    return tuple(_sp().cancel(sum((m * xi for m, xi in zip(row, x)), _sp().Integer(0))) for row in M)


# ----------------------------------------------------------------------------- conditions
def _points(points):
    P = [tuple(_entry(v, f"points[{i}][{c}]") for c, v in enumerate(p)) for i, p in enumerate(points)]
    if not P or len(P[0]) < 1 or any(len(p) != len(P[0]) for p in P):
        raise InvalidInputError("points must be a non-empty list of lifted points (a_j..., b_j) of equal length")
    return P


def _differs(p, q):
    """The condition ``p != q`` (some coordinate differs)."""
    sp = _sp()
    return sp.Or(*[sp.Ne(sp.cancel(u - v), 0) for u, v in zip(p, q)])


def _det(rows, cols):
    sp = _sp()
    return sp.cancel(sp.Matrix([[r[c] for c in cols] for r in rows]).det(method="berkowitz"))


def _redundancy(P, j):
    sp = _sp()
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
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> redundancy_condition([(0, 0), (1, t), (2, 0)], 1)
    t <= 0
    """
    P = _points(points)
    _index(j, len(P), "j")
    return _simplified(_redundancy(P, j))


def node_condition(points, j: int):
    """The condition under which ``j`` is a node of the adjacency graph.

    ``j`` has a cell and no earlier term has the same lifted point (the earlier copy
    carries the cell, as in :attr:`tropattn.geometry.PowerDiagram.duplicates`).

    Parameters
    ----------
    points : sequence of sequence of number or sympy expression, shape (N, d + 1)
        Lifted points ``(a_j..., b_j)``; the last coordinate is the offset ``b_j``.
        Entries must be rational functions of the symbols with rational coefficients.
    j : int
        The term, ``0 <= j < N``.

    Returns
    -------
    sympy Boolean
        True exactly for the parameter values where ``j`` is a node (simplified to
        intervals and points for one parameter).

    Raises
    ------
    InvalidInputError
        When the points are empty or ragged, an entry is not a rational expression,
        or an index is out of range; with one parameter, also when an entry has a
        pole on the parameter line.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> node_condition([(0, t), (0, 0)], 1)
    t < 0
    >>> node_condition([(0, 0), (1, t), (2, 0)], 1)        # at t = 0 the point is on the segment
    0 < t
    """
    P = _points(points)
    _index(j, len(P), "j")
    return _simplified(_node(P, j))


def _node(P, j):
    sp = _sp()
    return sp.And(sp.Not(_redundancy(P, j)), *[_differs(P[l], P[j]) for l in range(j)])


def adjacency_condition(points, j: int, k: int):
    """The condition under which the cells of ``j`` and ``k`` share a facet (a wall).

    Both must be nodes (:func:`node_condition`) and ``[p_j, p_k]`` an upper edge: after
    dividing out the direction ``w = p_k - p_j`` (on a coordinate ``i`` with
    ``w_i != 0``; the quotient is scaled by ``w_i^2 > 0`` to stay polynomial), ``p_j``
    must be an upper vertex of the projected points.

    Parameters
    ----------
    points : sequence of sequence of number or sympy expression, shape (N, d + 1)
        Lifted points ``(a_j..., b_j)``; the last coordinate is the offset ``b_j``.
        Entries must be rational functions of the symbols with rational coefficients.
    j, k : int
        Two different terms.

    Returns
    -------
    sympy Boolean
        True exactly where the two cells are adjacent.

    Raises
    ------
    InvalidInputError
        When the points are empty or ragged, an entry is not a rational expression,
        or an index is out of range; with one parameter, also when an entry has a
        pole on the parameter line.
        Also when ``j == k``.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> adjacency_condition([(0, 0), (1, t), (2, 0)], 0, 2)     # the wall 0|2 exists iff x + t is hidden
    t <= 0
    """
    P = _points(points)
    _index(j, len(P), "j"), _index(k, len(P), "k")
    if j == k:
        raise InvalidInputError(f"j = k = {j}; adjacency is between two different terms")
    return _simplified(_adjacency(P, j, k))


def _adjacency(P, j, k):
    sp = _sp()
    d = len(P[0]) - 1
    w = [sp.cancel(u - v) for u, v in zip(P[k], P[j])]
    pivots = []
    for i in range(d):
        if w[i] == 0:
            continue
        Q = [tuple(sp.cancel(w[i] * (w[i] * p[c] - p[i] * w[c])) for c in range(d + 1) if c != i) for p in P]
        pivots.append(sp.And(sp.Ne(w[i], 0), sp.Not(_redundancy(Q, j))))
    return sp.And(_node(P, j), _node(P, k), sp.Or(*pivots))


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
    points : sequence of sequence of number or sympy expression, shape (N, d + 1)
        Lifted points ``(a_j..., b_j)``; the last coordinate is the offset ``b_j``.
        Entries must be rational functions of the symbols with rational coefficients.
    redundant : iterable of int
        The terms without a cell.
    edges : iterable of pairs of int
        The adjacent pairs (order inside a pair does not matter).

    Returns
    -------
    sympy Boolean
        True exactly where the head has this type.

    Raises
    ------
    InvalidInputError
        When the points are empty or ragged, an entry is not a rational expression,
        or an index is out of range; with one parameter, also when an entry has a
        pole on the parameter line.

    Examples
    --------
    >>> import sympy
    >>> s, t = sympy.symbols("s t", real=True)
    >>> cond = type_condition([(0, 0), (1, s), (2, t)], redundant=[1], edges=[(0, 2)])
    >>> cond.subs({s: -1, t: 0}), cond.subs({s: 1, t: 0})      # hidden iff s <= t / 2
    (True, False)
    """
    sp = _sp()
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
    sp = _sp()
    syms = cond.free_symbols
    if len(syms) != 1:
        return cond
    (s,) = syms
    line = _Line({0: cond}, s)
    if not line.polynomial:
        return cond
    pieces = [piece for piece, sample in line.pieces() if line.truth(0, sample)]
    return sp.Union(*pieces).as_relational(s) if pieces else sp.false


class _Root:
    """A real root of an irreducible rational polynomial ``q``, isolated in ``[a, b]`` (exact)."""

    def __init__(self, q, index, a, b):
        self.q, self.index, self.a, self.b = q, index, a, b

    @property
    def rational(self) -> bool:
        return self.q.degree() == 1

    @property
    def value(self):
        """The root as a sympy number (a Rational or a ``CRootOf``)."""
        sp = _sp()
        if self.rational:
            c1, c0 = self.q.all_coeffs()
            return sp.Rational(-c0, c1)
        return sp.CRootOf(self.q.as_expr(), self.index, radicals=self.q.degree() <= 2)

    def refine(self):
        if not self.rational:
            self.a, self.b = self.q.refine_root(self.a, self.b, eps=(self.b - self.a) / 4)

    def sign(self, p) -> int:
        """The exact sign of the polynomial ``p`` at this root."""
        sp = _sp()
        if self.rational:
            return int(sp.sign(p.eval(self.value)))
        if p.rem(self.q).is_zero:
            return 0
        while p.count_roots(self.a, self.b):
            self.refine()
        return int(sp.sign(p.eval((self.a + self.b) / 2)))


def _less(r, u) -> bool:
    """Exact ``r < u`` for two different roots: refine until their intervals are disjoint."""
    while not (r.b < u.a or u.b < r.a):
        r.refine(), u.refine()
    return r.b < u.a


class _Line:
    """The cylindrical decomposition of a line by the polynomials of some conditions in one symbol.

    Every relational atom ``lhs rel rhs`` of the conditions has a sign that is constant
    between consecutive real roots of the irreducible factors of ``lhs - rhs`` (numerator
    and denominator), so each condition is constant on the open intervals between the
    sorted roots and is decided there at one rational point, and at each root by exact
    signs of polynomials at a real algebraic number.
    """

    def __init__(self, conds, s):
        sp = _sp()
        self.conds, self.s = conds, s
        self.atoms = set().union(*(c.atoms(sp.core.relational.Relational) for c in conds.values()))
        self.forms, factors, self.polynomial = {}, {}, True
        for atom in self.atoms:
            num, den = sp.fraction(sp.cancel(atom.lhs - atom.rhs))
            num, den = sp.Poly(num, s), sp.Poly(den, s)
            self.polynomial &= den.degree() == 0
            self.forms[atom] = (num, den)
            for poly in (num, den):
                for q, _ in poly.factor_list()[1]:
                    q = q.monic()
                    factors[q.as_expr()] = q
        roots = []
        for q in factors.values():
            if q.degree() == 1:
                roots.append(_Root(q, 0, None, None))
            else:
                roots += [_Root(q, i, a, b) for i, ((a, b), _) in enumerate(q.intervals())]
        for r in roots:
            if r.rational:
                r.a = r.b = r.value
        self.roots = _sorted_roots(roots)

    def pieces(self):
        """``(sympy set, sample)`` for every open interval and root, left to right."""
        sp = _sp()
        out, rs = [], self.roots
        for i in range(len(rs) + 1):
            lo = rs[i - 1].value if i else -sp.oo
            hi = rs[i].value if i < len(rs) else sp.oo
            if i == 0:
                sample = sp.Integer(0) if not rs else sp.floor(rs[0].a) - 1
            elif i == len(rs):
                sample = sp.floor(rs[-1].b) + 1
            else:
                while not rs[i - 1].b < rs[i].a:
                    rs[i - 1].refine(), rs[i].refine()
                sample = (rs[i - 1].b + rs[i].a) / 2
            out.append((sp.Interval.open(lo, hi), sample))
            if i < len(rs):
                out.append((sp.FiniteSet(rs[i].value), rs[i]))
        return out

    def _atom_values(self, sample) -> dict:
        """``{atom: true/false}`` at a sample, computed once per sample (signs once per polynomial)."""
        sp = _sp()
        cache = self.__dict__.setdefault("_values", {})
        if id(sample) in cache:
            return cache[id(sample)][1]
        signs, values = {}, {}

        def sign(poly):
            key = poly.as_expr()
            if key not in signs:
                signs[key] = sample.sign(poly) if isinstance(sample, _Root) else int(sp.sign(poly.eval(sample)))
            return signs[key]

        for atom in self.atoms:
            num, den = self.forms[atom]
            sd = sign(den)
            if sd == 0:
                raise InvalidInputError(f"an entry has a pole at {self.s} = {_value(sample)}; "
                                        "the head is undefined there")
            values[atom] = sp.true if _holds(atom, sign(num) * sd) else sp.false
        cache[id(sample)] = (sample, values)      # the sample is kept alive, so its id stays unique
        return values

    def truth(self, key, sample) -> bool:
        """The exact value of condition ``key`` at a rational sample or at a root."""
        sp = _sp()
        out = self.conds[key].xreplace(self._atom_values(sample))
        if out not in (sp.true, sp.false):
            raise InternalError(f"condition {key} is undecided at {_value(sample)}; please report these points")
        return out is sp.true


def _value(sample):
    return sample.value if isinstance(sample, _Root) else sample


def _holds(atom, sgn) -> bool:
    op = atom.rel_op
    return {"==": sgn == 0, "!=": sgn != 0, ">=": sgn >= 0, ">": sgn > 0, "<=": sgn <= 0, "<": sgn < 0}[op]


def _sorted_roots(roots):
    """Insertion sort with exact comparisons (few roots)."""
    out = []
    for r in roots:
        i = len(out)
        while i and _less(r, out[i - 1]):
            i -= 1
        out.insert(i, r)
    return out


def _index(j, n, name):
    if isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < n:
        raise InvalidInputError(f"{name} = {j!r}; expected a term index 0..{n - 1}")


# ----------------------------------------------------------------------------- heads
@dataclass(frozen=True, init=False)
class SymbolicHead:
    """An attention head in score form whose keys and offsets are sympy expressions.

    Parameters
    ----------
    keys : (N, d) numbers or sympy expressions (rational in the symbols)
    offsets : (N,) numbers or expressions, optional (default 0)
    values : (N, d_out), optional (default: the keys)
    variables : sequence of str, optional
        Names of the query coordinates (default ``x, y, z`` or ``x1 ... xd``); they must
        differ from the parameters' names.

    Raises
    ------
    InvalidInputError
        Empty or ragged keys, an entry that is not a rational function of its
        symbols with rational coefficients, values without one row per key, a wrong
        number of variable names, or a parameter named like a query variable.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> h = SymbolicHead([[t, 0], [0, 1]], [0, -t])
    >>> h.weights
    (t**2, 1 - 2*t)
    >>> h.evaluate_at({t: 2}).numeric_polynomial()
    TropicalPolynomial('max(2*x, y - 2)', variables=('x', 'y'))
    """

    keys: tuple
    offsets: tuple
    values: tuple
    variables: tuple

    def __init__(self, keys, offsets=None, values=None, variables=None):
        K = _matrix(keys, "keys")
        object.__setattr__(self, "keys", K)
        object.__setattr__(self, "offsets", _vector(offsets, "offsets", len(K)))
        object.__setattr__(self, "values", K if values is None else _matrix(values, "values"))
        if len(self.values) != len(K):
            raise InvalidInputError(f"values has {len(self.values)} rows; expected one per key ({len(K)})")
        names = _default_variables(len(K[0])) if variables is None else tuple(variables)
        if len(names) != len(K[0]):
            raise InvalidInputError(f"variables has {len(names)} names; the keys have {len(K[0])} coordinates")
        clash = sorted({s.name for s in self.symbols} & set(names))
        if clash:
            raise InvalidInputError(f"the parameter(s) {clash} have the name of a query variable; rename them "
                                    f"or pass variables=... other than {names}")
        object.__setattr__(self, "variables", names)

    @classmethod
    def from_weights(cls, W_Q, W_K, context, b_Q=None, b_K=None, W_V=None, W_O=None, b_V=None,
                     variables=None) -> "SymbolicHead":
        """Keys ``a_j = W_Q^T k_j`` and offsets ``b_j = b_Q . k_j`` with ``k_j = W_K y_j + b_K``.

        The positive factor ``1 / sqrt(d_k)`` changes no argmax and is left out (as in
        :meth:`tropattn.attention.Head.from_weights`).  Values ``W_O (W_V y_j + b_V)``
        when ``W_V`` is given, else the keys.

        Parameters
        ----------
        W_Q : matrix, shape (d_k, d)
            Query projection (numbers or sympy expressions).
        W_K : matrix, shape (d_k, d_y)
            Key projection.
        context : matrix, shape (N, d_y)
            The context tokens ``y_j``.
        b_Q, b_K : vector, shape (d_k,), optional
            Query and key biases (default 0).
        W_V : matrix, shape (d_v, d_y), optional
            Value projection; None: the values are the keys.
        W_O : matrix, shape (d_out, d_v), optional
            Output projection applied to the values.
        b_V : vector, shape (d_v,), optional
            Value bias.
        variables : sequence of str, optional
            Names of the query coordinates.

        Returns
        -------
        SymbolicHead
            The head in score form ``s_j(x) = a_j . x + b_j``.

        Raises
        ------
        InvalidInputError
            When the shapes do not fit together, an entry is not a rational expression,
            or a parameter has the name of a query variable.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> h = SymbolicHead.from_weights([[1, 0], [0, t]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], b_Q=[0, 1])
        >>> h.keys, h.offsets
        (((1, 0), (0, t)), (0, 1))
        """
        WQ, WK = _matrix(W_Q, "W_Q"), _matrix(W_K, "W_K")
        Y = _matrix(context, "context")
        if len(WK) != len(WQ) or len(Y[0]) != len(WK[0]):
            raise InvalidInputError(f"W_Q is {len(WQ)}x{len(WQ[0])}, W_K {len(WK)}x{len(WK[0])} and the context "
                                    f"has {len(Y[0])} columns; need W_Q (d_k, d), W_K (d_k, d_y), context (N, d_y)")
        bQ, bK = _vector(b_Q, "b_Q", len(WQ)), _vector(b_K, "b_K", len(WQ))
        WV = None if W_V is None else _matrix(W_V, "W_V")
        WO = None if W_O is None else _matrix(W_O, "W_O")
        bV = None if WV is None else _vector(b_V, "b_V", len(WV))
        WQt = tuple(zip(*WQ))
        keys, offsets, values = [], [], []
        for y in Y:
            k = tuple(u + c for u, c in zip(_matvec(WK, y), bK))
            keys.append(_matvec(WQt, k))
            offsets.append(_sp().cancel(sum((q * c for q, c in zip(bQ, k)), _sp().Integer(0))))
            if WV is not None:
                v = tuple(u + c for u, c in zip(_matvec(WV, y), bV))
                values.append(v if WO is None else _matvec(WO, v))
        return cls(keys, offsets, values or None, variables)

    # ------------------------------------------------------------------ data
    @property
    def N(self) -> int:
        """Number of keys."""
        return len(self.keys)

    @property
    def dim(self) -> int:
        """Query dimension ``d``."""
        return len(self.keys[0])

    @property
    def symbols(self) -> tuple:
        """The parameters (free symbols of keys, offsets and values), sorted by name."""
        free = set()
        for row in self.keys + self.values + (self.offsets,):
            for v in row:
                free |= v.free_symbols
        return tuple(sorted(free, key=lambda s: s.name))

    @property
    def sites(self) -> tuple:
        """Power-diagram sites ``a_j`` (the keys)."""
        return self.keys

    @property
    def weights(self) -> tuple:
        """Power-diagram weights ``w_j = |a_j|^2 + 2 b_j``."""
        sp = _sp()
        return tuple(sp.expand(sum((v * v for v in a), 2 * b)) for a, b in zip(self.keys, self.offsets))

    def query_symbols(self) -> tuple:
        """The real sympy symbols of the query coordinates.

        Returns
        -------
        tuple of sympy.Symbol, shape (d,)
            One real symbol per name in :attr:`variables`.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.query_symbols()
        (x,)
        """
        return tuple(_sp().Symbol(v, real=True) for v in self.variables)

    def scores(self) -> tuple:
        """The affine scores ``a_j . x + b_j`` as sympy expressions in the query symbols.

        Returns
        -------
        tuple of sympy.Expr, shape (N,)
            One score per key.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.scores()
        (0, t + x, 2*x)
        """
        xs = self.query_symbols()
        return tuple(sum((a * x for a, x in zip(k, xs)), b) for k, b in zip(self.keys, self.offsets))

    def lifted_points(self) -> tuple:
        """The points ``(a_j, b_j)``: their upper hull is dual to the head's cells.

        Returns
        -------
        tuple of tuple of sympy.Expr, shape (N, d + 1)
            Key followed by offset.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.lifted_points()
        ((0, 0), (1, t), (2, 0))
        """
        return tuple(tuple(k) + (b,) for k, b in zip(self.keys, self.offsets))

    # -------------------------------------------------------------- tropical forms
    def tropical_polynomial(self):
        """``G(x) = max_j (a_j . x + b_j)`` as an unevaluated sympy ``Max``.

        Returns
        -------
        sympy.Expr
            The ``Max`` of the scores (the score itself for one key).

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.tropical_polynomial()
        Max(0, 2*x, t + x)
        """
        s = self.scores()
        return s[0] if len(s) == 1 else _sp().Max(*s, evaluate=False)

    def rational_map(self, log_values):
        """The log-lifted map ``(max_j (s_j + u_jc) - G(x))_c`` as a sympy column ``Matrix``.

        ``log_values`` is the ``(N, m)`` matrix ``u`` (numbers or expressions): the
        zero-temperature limit of ``tau log`` of attention with values ``e^{u_jc / tau}``
        (docs/THEORY.md §2).

        Parameters
        ----------
        log_values : matrix, shape (N, m)
            Log-values ``u_jc`` of each key and output coordinate.

        Returns
        -------
        sympy.Matrix, shape (m, 1)
            One tropical rational function per output coordinate.

        Raises
        ------
        InvalidInputError
            When ``log_values`` does not have one row per key, or an entry is not a
            rational expression.

        Examples
        --------
        >>> SymbolicHead([[0], [1]]).rational_map([[0], [-1]])
        Matrix([[-Max(0, x) + Max(0, x - 1)]])
        """
        sp = _sp()
        U = _matrix(log_values, "log_values")
        if len(U) != self.N:
            raise InvalidInputError(f"log_values has {len(U)} rows; expected one per key ({self.N})")
        s, G = self.scores(), self.tropical_polynomial()
        comps = []
        for c in range(len(U[0])):
            terms = [sj + u[c] for sj, u in zip(s, U)]
            comps.append((terms[0] if len(terms) == 1 else sp.Max(*terms, evaluate=False)) - G)
        return sp.Matrix(comps)

    def to_latex(self) -> str:
        r"""LaTeX of ``G(x)``, e.g. ``\max\left(0, 2 x, t + x\right)``.

        Returns
        -------
        str
            sympy's LaTeX of :meth:`tropical_polynomial`.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> print(head.to_latex())
        \max\left(0, 2 x, t + x\right)
        """
        return _sp().latex(self.tropical_polynomial())

    # -------------------------------------------------------------- numbers
    def evaluate_at(self, values) -> "SymbolicHead":
        """The head at rational parameter values ``{symbol: number}`` (every parameter needed).

        The result has numbers only; :meth:`tropical_polynomial` and the numeric
        forms below then hold exact rationals.

        Parameters
        ----------
        values : mapping of sympy.Symbol to number
            A value for every parameter (numbers, ``"p/q"`` strings or expressions).

        Returns
        -------
        SymbolicHead
            The same head with the values substituted.

        Raises
        ------
        InvalidInputError
            When a parameter has no value or a value is not a rational number or
            expression.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.evaluate_at({t: "1/2"}).scores()
        (0, x + 1/2, 2*x)
        """
        sp = _sp()
        subs = {s: _entry(v, f"values[{s}]") for s, v in dict(values).items()}
        missing = [s.name for s in self.symbols if s not in subs]
        if missing:
            raise InvalidInputError(f"no value for the parameter(s) {missing}; give every symbol a number")
        sub = lambda row: [sp.cancel(v.subs(subs)) for v in row]
        return SymbolicHead([sub(k) for k in self.keys], sub(self.offsets), [sub(v) for v in self.values],
                            self.variables)

    def numeric_keys(self) -> tuple:
        """``(keys, offsets)`` as Fractions; only for a head without parameters.

        Returns
        -------
        keys : tuple of tuple of Fraction, shape (N, d)
        offsets : tuple of Fraction, shape (N,)

        Raises
        ------
        InvalidInputError
            When the head still has parameters (call :meth:`evaluate_at` first).

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.evaluate_at({t: 1}).numeric_keys()[1]
        (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1))
        """
        if self.symbols:
            raise InvalidInputError(f"the head still has parameters {[s.name for s in self.symbols]}; "
                                    "call evaluate_at({symbol: value, ...}) first")
        frac = lambda v: Fraction(int(v.p), int(v.q))
        return (tuple(tuple(frac(v) for v in k) for k in self.keys), tuple(frac(b) for b in self.offsets))

    def numeric_polynomial(self) -> TropicalPolynomial:
        """The exact :class:`TropicalPolynomial` ``max_j (a_j . x + b_j)`` (no parameters left).

        Returns
        -------
        TropicalPolynomial
            One term per key, in key order.

        Raises
        ------
        InvalidInputError
            When the head still has parameters.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.evaluate_at({t: 1}).numeric_polynomial()
        TropicalPolynomial('max(0, x + 1, 2*x)', variables=('x',))
        """
        keys, offsets = self.numeric_keys()
        return TropicalPolynomial(keys, offsets, self.variables)

    def numeric_diagram(self) -> PowerDiagram:
        """The exact :class:`PowerDiagram` (no parameters left).

        Sites are the keys, weights ``|a_j|^2 + 2 b_j`` (see :attr:`weights`).

        Returns
        -------
        PowerDiagram
            The head's power diagram, exact.

        Raises
        ------
        InvalidInputError
            When the head still has parameters.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.evaluate_at({t: 1}).numeric_diagram().weights        # |a_j|^2 + 2 b_j
        (Fraction(0, 1), Fraction(3, 1), Fraction(4, 1))
        """
        return PowerDiagram.from_max_affine(*self.numeric_keys())

    # -------------------------------------------------------------- questions
    def redundancy_condition(self, j: int):
        """When key ``j`` has no cell; see :func:`redundancy_condition`.

        Parameters
        ----------
        j : int
            The key, ``0 <= j < N``.

        Returns
        -------
        sympy Boolean
            True exactly where key ``j`` has no cell.

        Raises
        ------
        InvalidInputError
            When ``j`` is out of range.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.redundancy_condition(1)                  # x + t never wins iff t <= 0
        t <= 0
        """
        return redundancy_condition(self.lifted_points(), j)

    def adjacency_condition(self, j: int, k: int):
        """When the cells of ``j`` and ``k`` share a wall; see :func:`adjacency_condition`.

        Parameters
        ----------
        j, k : int
            Two different keys.

        Returns
        -------
        sympy Boolean
            True exactly where the cells are adjacent.

        Raises
        ------
        InvalidInputError
            When an index is out of range or ``j == k``.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.adjacency_condition(0, 1)                # x + t has a cell next to 0 iff t > 0
        0 < t
        """
        return adjacency_condition(self.lifted_points(), j, k)

    def type_condition(self, redundant, edges):
        """Where the head has this combinatorial type; see :func:`type_condition`.

        Parameters
        ----------
        redundant : iterable of int
            The keys without a cell.
        edges : iterable of pairs of int
            The adjacent pairs.

        Returns
        -------
        sympy Boolean
            True exactly where the type holds.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> head.type_condition([], [(0, 1), (1, 2)])
        0 < t
        """
        return type_condition(self.lifted_points(), redundant, edges)

    def parameter_regions(self) -> tuple:
        """The combinatorial types along the parameter line; see :func:`parameter_regions`.

        Returns
        -------
        tuple of ParameterPiece
            In increasing order along the line.

        Raises
        ------
        InvalidInputError
            When the head does not have exactly one parameter, or is not polynomial in it.

        Examples
        --------
        >>> import sympy
        >>> t = sympy.Symbol("t", real=True)
        >>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x
        >>> [(str(p.set), p.redundant) for p in head.parameter_regions()]
        [('Interval(-oo, 0)', (1,)), ('Interval.open(0, oo)', ())]
        """
        return parameter_regions(self.lifted_points())


# ----------------------------------------------------------------------------- several heads
def symbolic_product(heads) -> dict:
    """The lifted points of ``G_1 ⊙ ... ⊙ G_H``: ``{(j_1, ..., j_H): sum_h (a_hj, b_hj)}``.

    Their convex hull is the Minkowski sum of the heads' lifted polytopes; its upper
    vertices are the regions of the layer (docs/THEORY.md §3).  Pass the values to
    :func:`redundancy_condition` to ask which tuples of keys win together.

    Parameters
    ----------
    heads : iterable of SymbolicHead
        One or more heads of the same query dimension.

    Returns
    -------
    dict
        Tuple of key indices (one per head) -> lifted point (tuple of sympy.Expr).

    Raises
    ------
    InvalidInputError
        When no head is given or the query dimensions differ.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> pts = symbolic_product([SymbolicHead([[0], [1]]), SymbolicHead([[0], [1]], [0, t])])
    >>> pts[(1, 1)]
    (2, t)
    """
    heads = list(heads)
    if not heads:
        raise InvalidInputError("symbolic_product needs at least one head")
    if len({h.dim for h in heads}) != 1:
        raise InvalidInputError("all heads must read the same query dimension")
    sp = _sp()
    out = {(): (sp.Integer(0),) * (heads[0].dim + 1)}
    for h in heads:
        out = {t + (j,): tuple(sp.cancel(u + v) for u, v in zip(p, q))
               for t, p in out.items() for j, q in enumerate(h.lifted_points())}
    return out


def product_polynomial(heads):
    """``G_1(x) + ... + G_H(x)``, the tropical product of the heads' polynomials (sympy).

    Parameters
    ----------
    heads : iterable of SymbolicHead
        One or more heads.

    Returns
    -------
    sympy.Expr
        The sum of the heads' ``Max`` expressions.

    Raises
    ------
    InvalidInputError
        When no head is given.

    Examples
    --------
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> product_polynomial([SymbolicHead([[0], [1]]), SymbolicHead([[0], [1]], [0, t])])
    Max(0, x) + Max(0, t + x)
    """
    heads = list(heads)
    if not heads:
        raise InvalidInputError("product_polynomial needs at least one head")
    return sum((h.tropical_polynomial() for h in heads[1:]), heads[0].tropical_polynomial())


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
    >>> import sympy
    >>> t = sympy.Symbol("t", real=True)
    >>> for p in parameter_regions([(0, 0), (1, t), (2, 0)]):
    ...     print(p.set, p.redundant, p.edges)
    Interval(-oo, 0) (1,) ((0, 2),)
    Interval.open(0, oo) () ((0, 1), (1, 2))
    """
    sp = _sp()
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
    line = _Line(conds, s)
    out = []
    for piece, sample in line.pieces():
        red = tuple(j for j in range(n) if line.truth(("r", j), sample))
        edges = tuple((j, k) for j, k in combinations(range(n), 2) if line.truth(("e", j, k), sample))
        sample = _value(sample)
        if out and (out[-1].redundant, out[-1].edges) == (red, edges):
            prev = out.pop()
            piece, sample = sp.Union(prev.set, piece), prev.sample
        out.append(ParameterPiece(piece, red, edges, sample))
    return tuple(out)
