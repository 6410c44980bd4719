"""Symbolic heads: a head over ``EX`` (sympy symbols in the weights) and exact questions about it.

:class:`SymbolicHead` is a thin wrapper around :class:`~tropattn.attention.Head` over the
domain ``EX`` (rational functions of the parameters, :mod:`~tropattn.attention._domain`):
the same validation, the same :meth:`~tropattn.attention.Head.from_weights` (and ``d_k``).
It adds what only expressions can do: the scores, the power-diagram weights and the
tropical polynomial ``G(x) = max_j (a_j . x + b_j)`` as sympy expressions, and the exact
semialgebraic conditions of :mod:`tropattn.tropical` on its lifted points (redundancy,
adjacency, combinatorial type, the pieces of a parameter line).  At rational parameter
values (:meth:`SymbolicHead.evaluate_at`) it becomes a numeric head
(:meth:`SymbolicHead.numeric_head`).  Several heads multiply tropically
(:func:`symbolic_product`, :func:`product_polynomial`).

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

from .._display import latex_math
from .._doc import fill_doc
from .._lazy import lazy_import
from ..errors import InvalidInputError
from ..exact import to_rational_vector
from ..geometry import PowerDiagram
from ..tropical import (TropicalPolynomial, adjacency_condition, parameter_regions, redundancy_condition,
                        to_expression, type_condition)
from ._domain import EX, QQ
from ._head import Head

__all__ = ["SymbolicHead", "symbolic_product", "product_polynomial"]

sp = lazy_import("sympy")

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "example": """>>> import sympy
>>> t = sympy.Symbol("t", real=True)
>>> head = SymbolicHead([[0], [1], [2]], [0, t, 0])          # scores 0, x + t, 2x""",
    "numbers_only": """Raises
------
InvalidInputError
    When the head still has parameters (call :meth:`evaluate_at` first).""",
    "symbol": """>>> import sympy
>>> t = sympy.Symbol("t", real=True)""",
}


@dataclass(frozen=True, init=False)
@fill_doc(**_DOC)
class SymbolicHead:
    """An attention head in score form whose keys and offsets are sympy expressions.

    A thin wrapper around a :class:`~tropattn.attention.Head` over the domain ``EX``
    (:attr:`head`); ``keys``, ``offsets``, ``values`` and ``d_k`` are the head's.

    Parameters
    ----------
    keys : (N, d) numbers or sympy expressions (rational in the symbols), or a Head
    offsets : (N,) numbers or expressions, optional (default 0)
    values : (N, d_out), optional (default: the keys)
    variables : sequence of str, optional
        Names of the query coordinates (default ``x, y, z`` or ``x1 ... xd``); they must
        differ from the parameters' names.
    d_k : positive rational, optional
        The key dimension of a head built from weights (kept, as by ``Head``).

    Raises
    ------
    InvalidInputError
        Empty or ragged keys, an entry that is not a rational function of its
        symbols with rational coefficients, values without one row per key, a wrong
        number of variable names, or a parameter named like a query variable.

    Examples
    --------
    %(symbol)s
    >>> h = SymbolicHead([[t, 0], [0, 1]], [0, -t])
    >>> h.weights
    (t**2, 1 - 2*t)
    >>> h.evaluate_at({t: 2}).numeric_polynomial()
    TropicalPolynomial('max(2*x, y - 2)', variables=('x', 'y'))
    """

    head: Head
    variables: tuple

    def __init__(self, keys, offsets=None, values=None, variables=None, d_k=None):
        head = keys if isinstance(keys, Head) else Head(keys, offsets, values, d_k=d_k, domain=EX)
        if head.domain is not EX:
            head = Head(head.keys, head.offsets, head.values, d_k=head.d_k, ties=head.ties, domain=EX)
        object.__setattr__(self, "head", head)
        d = head.dim
        names = (("x", "y", "z")[:d] if d <= 3 else tuple(f"x{i + 1}" for i in range(d))) if variables is None \
            else tuple(variables)
        if len(names) != d:
            raise InvalidInputError(f"variables has {len(names)} names; the keys have {d} coordinates")
        clash = sorted({s.name for s in self.symbols} & set(names))
        if clash:
            raise InvalidInputError(f"the parameter(s) {clash} have the name of a query variable; rename them "
                                    f"or pass variables=... other than {names}")
        object.__setattr__(self, "variables", names)

    @classmethod
    @fill_doc(**_DOC)
    def from_weights(cls, W_Q, W_K, context, b_Q=None, b_K=None, W_V=None, W_O=None, b_V=None,
                     variables=None, d_k=None) -> "SymbolicHead":
        """Keys ``a_j = W_Q^T k_j`` and offsets ``b_j = b_Q . k_j`` with ``k_j = W_K y_j + b_K``.

        :meth:`tropattn.attention.Head.from_weights` over ``EX``: the positive factor
        ``1 / sqrt(d_k)`` changes no argmax and is kept as ``d_k`` (default: the rows of
        ``W_Q``).  Values ``W_O (W_V y_j + b_V)`` when ``W_V`` is given, else the keys.

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
        d_k : positive rational, optional
            The key dimension (default: the number of rows of ``W_Q``).

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
        %(symbol)s
        >>> h = SymbolicHead.from_weights([[1, 0], [0, t]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], b_Q=[0, 1])
        >>> h.keys, h.offsets, h.d_k
        (((1, 0), (0, t)), (0, 1), Fraction(2, 1))
        """
        head = Head.from_weights(W_Q, W_K, W_V, W_O, context, b_Q=b_Q, b_K=b_K, b_V=b_V, d_k=d_k, domain=EX)
        return cls(head, variables=variables)

    # ------------------------------------------------------------------ data
    @property
    def keys(self) -> tuple:
        """The keys ``a_j`` (sympy expressions), shape ``(N, d)``."""
        return self.head.keys

    @property
    def offsets(self) -> tuple:
        """The offsets ``b_j``, shape ``(N,)``."""
        return self.head.offsets

    @property
    def values(self) -> tuple:
        """The values ``v_j``, shape ``(N, d_out)``."""
        return self.head.values

    @property
    def d_k(self):
        """The key dimension of a head built from weights (``None`` for a score-form head)."""
        return self.head.d_k

    @property
    def N(self) -> int:
        """Number of keys (the head's)."""
        return self.head.N

    @property
    def dim(self) -> int:
        """Query dimension ``d`` (the head's)."""
        return self.head.dim

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
        return tuple(sp.expand(sum((v * v for v in a), 2 * b)) for a, b in zip(self.keys, self.offsets))

    @fill_doc(**_DOC)
    def query_symbols(self) -> tuple:
        """The real sympy symbols of the query coordinates.

        Returns
        -------
        tuple of sympy.Symbol, shape (d,)
            One real symbol per name in :attr:`variables`.

        Examples
        --------
        %(example)s
        >>> head.query_symbols()
        (x,)
        """
        return tuple(sp.Symbol(v, real=True) for v in self.variables)

    @fill_doc(**_DOC)
    def scores(self) -> tuple:
        """The affine scores ``a_j . x + b_j`` as sympy expressions in the query symbols.

        Returns
        -------
        tuple of sympy.Expr, shape (N,)
            One score per key.

        Examples
        --------
        %(example)s
        >>> head.scores()
        (0, t + x, 2*x)
        """
        xs = self.query_symbols()
        return tuple(sum((a * x for a, x in zip(k, xs)), b) for k, b in zip(self.keys, self.offsets))

    @fill_doc(**_DOC)
    def lifted_points(self) -> tuple:
        """The points ``(a_j, b_j)``: their upper hull is dual to the head's cells.

        Returns
        -------
        tuple of tuple of sympy.Expr, shape (N, d + 1)
            Key followed by offset.

        Examples
        --------
        %(example)s
        >>> head.lifted_points()
        ((0, 0), (1, t), (2, 0))
        """
        return self.head.lifted_points()

    # -------------------------------------------------------------- tropical forms
    @fill_doc(**_DOC)
    def tropical_polynomial(self):
        """``G(x) = max_j (a_j . x + b_j)`` as an unevaluated sympy ``Max``.

        Returns
        -------
        sympy.Expr
            The ``Max`` of the scores (the score itself for one key).

        Examples
        --------
        %(example)s
        >>> head.tropical_polynomial()
        Max(0, 2*x, t + x)
        """
        s = self.scores()
        return s[0] if len(s) == 1 else sp.Max(*s, evaluate=False)

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
        U = EX.matrix(log_values, "log_values", rows=self.N)
        s, G = self.scores(), self.tropical_polynomial()
        comps = []
        for c in range(len(U[0])):
            terms = [sj + u[c] for sj, u in zip(s, U)]
            comps.append((terms[0] if len(terms) == 1 else sp.Max(*terms, evaluate=False)) - G)
        return sp.Matrix(comps)

    @fill_doc(**_DOC)
    def to_latex(self) -> str:
        r"""LaTeX of ``G(x)``, e.g. ``\max\left(0, 2 x, t + x\right)``.

        Returns
        -------
        str
            sympy's LaTeX of :meth:`tropical_polynomial`.

        Examples
        --------
        %(example)s
        >>> print(head.to_latex())
        \max\left(0, 2 x, t + x\right)
        """
        return sp.latex(self.tropical_polynomial())

    def _repr_latex_(self) -> str:
        """Jupyter's typeset form: ``G(x) = `` :meth:`to_latex`, in ``$...$``."""
        return latex_math("G(x) = " + self.to_latex())

    # -------------------------------------------------------------- numbers
    @fill_doc(**_DOC)
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
        %(example)s
        >>> head.evaluate_at({t: "1/2"}).scores()
        (0, x + 1/2, 2*x)
        """
        subs = {s: to_expression(v, f"values[{s}]") for s, v in dict(values).items()}
        missing = [s.name for s in self.symbols if s not in subs]
        if missing:
            raise InvalidInputError(f"no value for the parameter(s) {missing}; give every symbol a number")
        sub = lambda row: [sp.cancel(v.subs(subs)) for v in row]     # noqa: E731
        return SymbolicHead([sub(k) for k in self.keys], sub(self.offsets), [sub(v) for v in self.values],
                            self.variables, d_k=self.d_k)

    @fill_doc(**_DOC)
    def numeric_keys(self) -> tuple:
        """``(keys, offsets)`` as Fractions; only for a head without parameters.

        Returns
        -------
        keys : tuple of tuple of Fraction, shape (N, d)
        offsets : tuple of Fraction, shape (N,)

        %(numbers_only)s

        Examples
        --------
        %(example)s
        >>> head.evaluate_at({t: 1}).numeric_keys()[1]
        (Fraction(0, 1), Fraction(1, 1), Fraction(0, 1))
        """
        if self.symbols:
            raise InvalidInputError(f"the head still has parameters {[s.name for s in self.symbols]}; "
                                    "call evaluate_at({symbol: value, ...}) first")
        return (tuple(to_rational_vector(k, "keys") for k in self.keys), to_rational_vector(self.offsets, "offsets"))

    @fill_doc(**_DOC)
    def numeric_head(self) -> Head:
        """The same head over ``QQ`` (no parameters left): it labels points, keeps ``d_k``.

        Returns
        -------
        Head
            Keys, offsets and values as Fractions.

        %(numbers_only)s

        Examples
        --------
        %(example)s
        >>> head.evaluate_at({t: 1}).numeric_head().label(["1/2"])    # x + 1 wins at x = 1/2
        1
        """
        keys, offsets = self.numeric_keys()
        return Head(keys, offsets, self.values, d_k=self.d_k, ties=self.head.ties, domain=QQ)

    def _require_numbers(self, what: str = "this") -> None:
        self.head._require_numbers(what)

    @fill_doc(**_DOC)
    def numeric_polynomial(self) -> TropicalPolynomial:
        """The exact :class:`TropicalPolynomial` ``max_j (a_j . x + b_j)`` (no parameters left).

        Returns
        -------
        TropicalPolynomial
            One term per key, in key order.

        %(numbers_only)s

        Examples
        --------
        %(example)s
        >>> head.evaluate_at({t: 1}).numeric_polynomial()
        TropicalPolynomial('max(0, x + 1, 2*x)', variables=('x',))
        """
        keys, offsets = self.numeric_keys()
        return TropicalPolynomial(keys, offsets, self.variables)

    @fill_doc(**_DOC)
    def numeric_diagram(self) -> PowerDiagram:
        """The exact :class:`PowerDiagram` (no parameters left).

        Sites are the keys, weights ``|a_j|^2 + 2 b_j`` (see :attr:`weights`).

        Returns
        -------
        PowerDiagram
            The head's power diagram, exact.

        %(numbers_only)s

        Examples
        --------
        %(example)s
        >>> head.evaluate_at({t: 1}).numeric_diagram().weights        # |a_j|^2 + 2 b_j
        (Fraction(0, 1), Fraction(3, 1), Fraction(4, 1))
        """
        return PowerDiagram.from_max_affine(*self.numeric_keys())

    # -------------------------------------------------------------- questions
    @fill_doc(**_DOC)
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
        %(example)s
        >>> head.redundancy_condition(1)                  # x + t never wins iff t <= 0
        t <= 0
        """
        return redundancy_condition(self.lifted_points(), j)

    @fill_doc(**_DOC)
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
        %(example)s
        >>> head.adjacency_condition(0, 1)                # x + t has a cell next to 0 iff t > 0
        0 < t
        """
        return adjacency_condition(self.lifted_points(), j, k)

    @fill_doc(**_DOC)
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
        %(example)s
        >>> head.type_condition([], [(0, 1), (1, 2)])
        0 < t
        """
        return type_condition(self.lifted_points(), redundant, edges)

    @fill_doc(**_DOC)
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
        %(example)s
        >>> [(str(p.set), p.redundant) for p in head.parameter_regions()]
        [('Interval(-oo, 0)', (1,)), ('Interval.open(0, oo)', ())]
        """
        return parameter_regions(self.lifted_points())


@fill_doc(**_DOC)
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
    %(symbol)s
    >>> pts = symbolic_product([SymbolicHead([[0], [1]]), SymbolicHead([[0], [1]], [0, t])])
    >>> pts[(1, 1)]
    (2, t)
    """
    heads = list(heads)
    if not heads:
        raise InvalidInputError("symbolic_product needs at least one head")
    if len({h.dim for h in heads}) != 1:
        raise InvalidInputError("all heads must read the same query dimension")
    out = {(): (sp.Integer(0),) * (heads[0].dim + 1)}
    for h in heads:
        out = {t + (j,): tuple(sp.cancel(u + v) for u, v in zip(p, q))
               for t, p in out.items() for j, q in enumerate(h.lifted_points())}
    return out


@fill_doc(**_DOC)
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
    %(symbol)s
    >>> product_polynomial([SymbolicHead([[0], [1]]), SymbolicHead([[0], [1]], [0, t])])
    Max(0, x) + Max(0, t + x)
    """
    heads = list(heads)
    if not heads:
        raise InvalidInputError("product_polynomial needs at least one head")
    return sum((h.tropical_polynomial() for h in heads[1:]), heads[0].tropical_polynomial())
