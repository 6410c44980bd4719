"""Attention heads, layers and transformers with a fixed context, exact.

The context tokens ``y_1, ..., y_N`` are fixed and only the query ``x in Q^d`` varies
(docs/THEORY.md §2).  A head then scores context token ``j`` by an *affine* function

    s_j(x) = a_j . x + b_j            (the **score form**: keys a_j, offsets b_j)

and, at zero temperature, returns the value ``v_j`` of the best-scoring token:

* ``argmax_j s_j(x)`` is the power diagram with sites ``a_j`` and weights
  ``||a_j||^2 + 2 b_j`` (:meth:`Head.power_diagram`), i.e. the linear regions of the
  tropical polynomial ``G(x) = max_j (a_j . x + b_j)`` (:meth:`Head.tropical_polynomial`);
* between labels ``j`` and ``k`` the wall is the hyperplane ``(a_k - a_j) . x = b_j - b_k``;
  label ``j`` beats ``k`` on the side ``(a_k - a_j) . x <= b_j - b_k`` (:meth:`Head.wall`);
* at temperature ``tau > 0``, ``softmax(score_scale * s(x) / tau)`` weighs the values
  (:func:`tropattn.soft.soft_output`), computed with a stable log-sum-exp in floats.

**Weight form.**  ``q = W_Q x + b_Q``, ``k_j = W_K y_j + b_K``, ``v_j = W_O (W_V y_j + b_V)``;
the score ``q . k_j / sqrt(d_k)`` is ``(a_j . x + b_j) / sqrt(d_k)`` with
``a_j = W_Q^T k_j`` and ``b_j = b_Q . k_j`` (:meth:`Head.from_weights`).  The positive factor
``1 / sqrt(d_k)`` changes no argmax, so the exact keys and offsets leave it out and the
head remembers it as the float ``score_scale``: ``soft_output(head, X, tau=1)`` is standard
scaled dot-product attention.  (A head built directly in score form has ``score_scale = 1``; to
reproduce standard attention from raw ``q . k`` scores use ``tau = sqrt(d_k)``.)

**Domains.**  The same class holds exact rationals (``QQ``) or rational functions of
sympy parameters (``EX``): the entries decide (:mod:`~tropattn.attention._domain`), and
:meth:`Head.from_weights` is written once for both.

**Ties.**  Where two distinct keys share the best score, ``ties`` decides: ``"refuse"``
(the default) raises :class:`~tropattn.errors.TieError`; ``"first"`` picks the lowest
index among the best, as ``torch.argmax`` does.  A tie on a wall (a set of measure zero)
changes no region; a tie on a whole region (a layer that feeds a constant to the next
one) makes the lowest index win that region, which is again a polyhedral function of
the query, so the regions are counted exactly (:mod:`tropattn.regions._steps`).  Keys
equal in both ``a_j`` and ``b_j`` are one key under either rule: the earlier index wins.

If the query also attends to *itself*, its score ``x^T W_Q^T W_K x + ...`` is quadratic
in ``x`` and the walls are quadrics: tropattn refuses that case with
:class:`~tropattn.errors.QuadraticWallError` (``include_query=True``) rather than
silently dropping the term.

**Layers.**  ``Layer(heads, residual, projection, ffn)`` maps
``x -> (x if residual else 0) + P sum_h v^h_{j_h(x)}``, then the ReLU FFN
``x -> x + W2 relu(W1 x + b1) + b2``.  A :class:`Transformer` stacks layers; its
activation pattern (every head's label and every ReLU bit) cuts ``Q^d`` into convex
pieces on which it is affine (docs/THEORY.md §4).  One layer of ``H`` heads has as many regions
as the Minkowski sum of the lifted polytopes ``conv{(a_j, b_j)}`` has upper vertices
(:func:`count_dual`, docs/THEORY.md §3).

>>> head = Head([[0], [1], [2]], [0, 0, -1])          # scores 0, x, 2x - 1
>>> head.label([-1]), head.label(["1/2"]), head.label([3])
(0, 1, 2)
>>> head.wall(0, 1)                                    # 0 beats 1 where x <= 0
((Fraction(1, 1),), Fraction(0, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from .._validate import choice
from ..errors import InvalidInputError, MovedError, QuadraticWallError, TieError
from ..exact import format_point, homogeneous_point, to_rational, to_rational_vector
from ..geometry import PowerDiagram
from ..tropical import TropicalPolynomial, TropicalRationalFunction, TropicalRationalMap
from ._domain import construct_domain, domain_of
from ._score_form import EMPTY_CONTEXT, score_form
from .._doc import fill_doc

__all__ = ["Head", "check_tie_rule"]

#: The tie rules: ``"refuse"`` (raise :class:`~tropattn.errors.TieError`) or ``"first"`` (lowest index wins).
TIE_RULES = ("refuse", "first")
_TIE_MEANING = "the tie rule: 'refuse' raises on a tie, 'first' lets the lowest index win (as argmax)"

#: Methods of earlier releases that moved to :mod:`tropattn.soft` (soft numerics sit above attention).
_MOVED = {"weights": "tropattn.soft.soft_weights(head, X, tau)",
          "log_weights": "tropattn.soft.log_soft_weights(head, X, tau)",
          "soft": "tropattn.soft.soft_output(head, X, tau)"}

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "x": """x : (d,) rationals
    The query point.""",
}


def check_tie_rule(rule, where="ties") -> str:
    """``rule`` if it is a tie rule (``"refuse"`` or ``"first"``), else an InvalidInputError.

    Examples
    --------
    >>> check_tie_rule("first")
    'first'
    >>> check_tie_rule("last")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: ties = 'last'; use one of 'refuse', 'first'; the tie rule: 'refuse' raises on a tie, 'first' lets the lowest index win (as argmax)
    """
    return choice(rule, where, TIE_RULES, _TIE_MEANING)


@dataclass(frozen=True)
class Head:
    """One attention head in score form, exact, over a number domain.

    The entries decide the domain (:func:`~tropattn.attention._domain.construct_domain`):
    numbers give ``QQ`` (Fractions: the head labels points, has a power diagram and a
    tropical polynomial); sympy expressions with symbols give ``EX`` (rational functions
    of the parameters: :class:`~tropattn.attention.SymbolicHead` asks exact questions of
    such a head).  Its float view is :func:`~tropattn.attention.head_arrays`.

    Parameters
    ----------
    keys : (N, d) rationals
        ``a_j``: the score of context token ``j`` at the query ``x`` is ``a_j . x + b_j``.
    offsets : (N,) rationals, optional
        ``b_j`` (default 0: the diagram is then a fan of cones from the origin).
    values : (N, d_out) rationals, optional
        ``v_j`` returned by hard attention (default: the keys).
    score_scale : float, optional
        Positive factor applied to the scores by soft attention only (``1 / sqrt(d_k)``
        for heads built by :meth:`from_weights`); exact results never use it.
    d_k : rational, optional
        The key dimension of a head built from weights: sets ``score_scale = 1 / sqrt(d_k)``
        and is kept exactly (model files store it, so a save/load round trip keeps the scale).
    ties : {"refuse", "first"}, optional
        What :meth:`label` does where distinct keys tie: raise ``TieError`` (default) or
        pick the lowest index.
    domain : {"QQ", "EX"} or Domain, optional
        The number domain (default: constructed from the entries).

    Soft attention is in :mod:`tropattn.soft` (``soft_weights(head, X, tau)``,
    ``soft_output``, ``log_soft_weights``); the methods ``weights``, ``soft`` and
    ``log_weights`` of earlier releases raise :class:`~tropattn.errors.MovedError` naming them.

    >>> h = Head([[1, 0], [0, 1]], values=[[10], [20]])
    >>> h.N, h.dim, h.dim_out, h.hard([2, 1])
    (2, 2, 1, (Fraction(10, 1),))
    """

    keys: tuple
    offsets: tuple = None
    values: tuple = None
    score_scale: float = 1.0
    d_k: object = None
    ties: str = "refuse"
    domain: object = field(default=None, repr=False)
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        domain = (construct_domain(self.keys, self.offsets, self.values) if self.domain is None
                  else domain_of(self.domain))
        keys, offsets, values, scale = score_form(self.keys, self.offsets, self.values, self.score_scale, domain)
        scale, d_k = _scale(scale, self.d_k)
        check_tie_rule(self.ties)
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "d_k", d_k)
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "score_scale", scale)

    # ------------------------------------------------------------- weight form
    @classmethod
    def from_weights(cls, W_Q, W_K, W_V, W_O, context, b_Q=None, b_K=None, b_V=None, d_k=None,
                     include_query=False, domain=None) -> "Head":
        """Exact score form of ``softmax((W_Q x + b_Q) . (W_K y_j + b_K) / sqrt(d_k))``.

        Shapes: ``W_Q (d_k, d)``, ``W_K (d_k, d_y)``, ``W_V (d_v, d_y)``, ``W_O (d_out, d_v)``
        (``None`` = identity), ``context (N, d_y)``.  Keys ``a_j = W_Q^T k_j``, offsets
        ``b_j = b_Q . k_j``, values ``v_j = W_O (W_V y_j + b_V)``; ``score_scale = 1/sqrt(d_k)``
        (``d_k`` defaults to the number of rows of ``W_Q``).

        Parameters
        ----------
        W_Q : (d_k, d) rationals
            Query weights.
        W_K : (d_k, d_y) rationals
            Key weights.
        W_V : (d_v, d_y) rationals or None
            Value weights (``None``: the values are the keys, as in score form).
        W_O : (d_out, d_v) rationals or None
            Output projection (``None`` = identity).
        context : (N, d_y) rationals
            The fixed context tokens ``y_j``.
        b_Q, b_K : (d_k,) rationals, optional
            Query and key biases (default 0).
        b_V : (d_v,) rationals, optional
            Value bias (default 0).
        d_k : positive rational, optional
            The key dimension in ``1 / sqrt(d_k)`` (default: the number of rows of ``W_Q``).
        include_query : bool, optional
            Whether the query also attends to itself (refused: see Raises).
        domain : {"QQ", "EX"} or Domain, optional
            The number domain (default: constructed from the entries; weights holding
            sympy symbols give ``EX``).

        Returns
        -------
        Head
            The exact score form, with ``score_scale = 1 / sqrt(d_k)``; ``d_k`` is kept.

        Raises
        ------
        QuadraticWallError
            With ``include_query=True``: the query's score against itself is quadratic.

        Examples
        --------
        >>> h = Head.from_weights([[1]], [[2]], [[1]], None, [[1], [-1]])
        >>> h.keys, h.offsets, h.values                  # scores 2x and -2x
        (((Fraction(2, 1),), (Fraction(-2, 1),)), (Fraction(0, 1), Fraction(0, 1)), ((Fraction(1, 1),), (Fraction(-1, 1),)))
        """
        if include_query:
            raise QuadraticWallError(
                "the query attends to itself: its score (W_Q x + b_Q) . (W_K x + b_K) contains x^T W_Q^T W_K x, "
                "which is quadratic in x, so the walls are quadrics and the regions are not polyhedra. "
                "tropattn handles a fixed context only: pass include_query=False (the query token is then "
                "excluded from the keys) or drop the query token from the context")
        if context is None or (hasattr(context, "__len__") and len(context) == 0):
            raise InvalidInputError(EMPTY_CONTEXT)
        dom = (construct_domain(W_Q, W_K, W_V, W_O, context, b_Q, b_K, b_V) if domain is None
               else domain_of(domain))
        W_Q = dom.matrix(W_Q, "W_Q")
        dk_rows = len(W_Q)
        W_K = dom.matrix(W_K, "W_K", rows=dk_rows)
        Y = dom.matrix(context, "context", cols=len(W_K[0]))
        W_V = None if W_V is None else dom.matrix(W_V, "W_V", cols=len(W_K[0]))
        W_O = None if W_O is None or W_V is None else dom.matrix(W_O, "W_O", cols=len(W_V))
        zeros = (dom.zero(),) * dk_rows
        b_Q = zeros if b_Q is None else dom.vector(b_Q, "b_Q", dk_rows)
        b_K = zeros if b_K is None else dom.vector(b_K, "b_K", dk_rows)
        if W_V is not None:
            b_V = (dom.zero(),) * len(W_V) if b_V is None else dom.vector(b_V, "b_V", len(W_V))
        d_k = dk_rows if d_k is None else to_rational(d_k, "d_k")
        if d_k <= 0:
            raise InvalidInputError(f"d_k = {d_k}; it must be positive (the softmax scale is 1/sqrt(d_k))")
        keys, offsets, values = [], [], []
        WQt = tuple(zip(*W_Q))
        for y in Y:
            k = tuple(dom.simplify(s + c) for s, c in zip(dom.matvec(W_K, y), b_K))
            keys.append(dom.matvec(WQt, k))
            offsets.append(dom.dot(b_Q, k))
            if W_V is not None:
                v = tuple(dom.simplify(s + c) for s, c in zip(dom.matvec(W_V, y), b_V))
                values.append(v if W_O is None else dom.matvec(W_O, v))
        return cls(tuple(keys), tuple(offsets), tuple(values) if values else None, d_k=d_k, domain=dom)

    def with_ties(self, rule) -> "Head":
        """The same head with the tie rule ``rule`` (``"refuse"`` or ``"first"``).

        Parameters
        ----------
        rule : {"refuse", "first"}
            The new tie rule.

        Returns
        -------
        Head
            A copy of this head with ``ties = rule``.

        Raises
        ------
        InvalidInputError
            If ``rule`` is not a tie rule.

        Examples
        --------
        >>> Head([[1], [-1]]).with_ties("first").label([0])          # 0 and 1 tie at x = 0
        0
        """
        return replace(self, ties=check_tie_rule(rule))

    # ------------------------------------------------------------- basics
    @property
    def N(self) -> int:
        """Number of keys (context tokens)."""
        return len(self.keys)

    @property
    def dim(self) -> int:
        """Query dimension ``d``."""
        return len(self.keys[0])

    @property
    def dim_out(self) -> int:
        """Value dimension."""
        return len(self.values[0])

    def lifted_points(self) -> tuple:
        """The lifted points ``(a_j, b_j)``: their upper hull is dual to the head's cells.

        Returns
        -------
        tuple of tuple, shape (N, d + 1)
            Key followed by offset, in the head's domain.

        Examples
        --------
        >>> Head([[0], [1]], [0, -1]).lifted_points()
        ((Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(-1, 1)))
        """
        return tuple(tuple(k) + (b,) for k, b in zip(self.keys, self.offsets))

    def _require_numbers(self, what: str = "this") -> None:
        """Refuse a head over ``EX`` where numbers are needed (labels, diagrams, integer scores).

        Raises
        ------
        InvalidInputError
            The head's entries hold parameters.

        Examples
        --------
        >>> import sympy
        >>> Head([[sympy.Symbol("t")], [1]])._require_numbers("a power diagram")
        Traceback (most recent call last):
        ...
        tropattn.errors.InvalidInputError: a power diagram needs numbers, but this head's entries hold the parameters ['t'] (domain EX); substitute values first (SymbolicHead.evaluate_at)
        """
        if not self.domain.numeric:
            names = sorted({s.name for row in self.keys + self.values + (self.offsets,) for v in row
                            for s in getattr(v, "free_symbols", ())})
            raise InvalidInputError(f"{what} needs numbers, but this head's entries hold the parameters {names} "
                                    f"(domain {self.domain}); substitute values first (SymbolicHead.evaluate_at)")

    def __getattr__(self, name):
        if name in _MOVED:
            raise MovedError(f"Head.{name} was removed from the API; use {_MOVED[name]}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def integer_form(self) -> tuple:
        """Keys and offsets scaled by one positive integer: ``(keys, offsets)`` as ints.

        The scores keep their order (and ties), so walls and labels can be computed in
        integer arithmetic.

        Returns
        -------
        keys : list of tuple of int
            ``D a_j`` for one positive integer ``D``, shape ``(N, d)``.
        offsets : list of int
            ``D b_j``, shape ``(N,)``.

        Examples
        --------
        >>> Head([["1/2"], [1]], ["1/3", 0]).integer_form()
        ([(3,), (6,)], [2, 0])
        """
        return self._ints()

    def _ints(self):
        """Keys and offsets as integers over one common denominator (scores compare alike)."""
        if "ints" not in self._cache:
            self._require_numbers("integer scores")
            d = self.dim
            flat, _ = homogeneous_point([v for k in self.keys for v in k] + list(self.offsets))
            A = [tuple(flat[j * d:(j + 1) * d]) for j in range(self.N)]
            self._cache["ints"] = (A, list(flat[self.N * d:]))
        return self._cache["ints"]

    def scores(self, x) -> tuple:
        """Exact scores ``a_j . x + b_j``.

        Parameters
        ----------
        x : (d,) rationals
            The query point (floats are converted exactly).

        Returns
        -------
        tuple of Fraction
            ``(s_1(x), ..., s_N(x))``, one score per key.

        Raises
        ------
        InvalidInputError
            If ``x`` does not have ``d`` coordinates or is not a finite number vector.

        Examples
        --------
        >>> Head([[1], [2]], [0, -1]).scores([3])
        (Fraction(3, 1), Fraction(5, 1))
        """
        self._require_numbers("scores at a point")
        x = to_rational_vector(x, "x", self.dim)
        return tuple(sum((a * xi for a, xi in zip(k, x)), b) for k, b in zip(self.keys, self.offsets))

    @fill_doc(**_DOC)
    def argmax_all(self, x) -> tuple:
        """Every label of maximal score at ``x`` (increasing).

        Parameters
        ----------
        %(x)s

        Returns
        -------
        tuple of int
            The labels ``j`` with ``s_j(x) = max_k s_k(x)``, increasing (several on a wall).

        Raises
        ------
        InvalidInputError
            If ``x`` does not have ``d`` finite coordinates.

        Examples
        --------
        >>> Head([[1], [-1]]).argmax_all([0]), Head([[1], [-1]]).argmax_all([2])   # a wall at x = 0
        ((0, 1), (0,))
        """
        x = to_rational_vector(x, "x", self.dim)
        return self.argmax_homogeneous(*homogeneous_point(x))

    def argmax_homogeneous(self, X, D) -> tuple:
        """Every label of maximal score at the point ``X / D`` (integers, ``D > 0``).

        The fast path for callers that evaluate many heads at one point: the point is
        converted once, the scores are compared as integers.

        Parameters
        ----------
        X : (d,) ints
            Numerator of the point.
        D : int
            Positive common denominator.

        Returns
        -------
        tuple of int
            The labels of maximal score at ``X / D``, increasing.

        Examples
        --------
        >>> Head([[1], [2]], [0, -1]).argmax_homogeneous((1,), 1)       # scores 1 and 1
        (0, 1)
        """
        A, B = self._ints()
        vals = [sum(a * xi for a, xi in zip(row, X)) + b * D for row, b in zip(A, B)]
        best = max(vals)
        return tuple(j for j, v in enumerate(vals) if v == best)

    def distinct_winner(self, winners) -> int | None:
        """The label among tied ``winners``, or None if two distinct keys tie.

        Keys equal in both ``a_j`` and ``b_j`` are one key: the earlier index wins.

        Parameters
        ----------
        winners : sequence of int
            Labels tied for the best score (as from :meth:`argmax_all`), non-empty.

        Returns
        -------
        int or None
            ``winners[0]`` if all winners share the same key and offset, else None.

        Examples
        --------
        >>> h = Head([[1], [1], [-1]])                   # keys 0 and 1 are the same key
        >>> h.distinct_winner((0, 1)), h.distinct_winner((0, 2))
        (0, None)
        """
        first = winners[0]
        key = (self.keys[first], self.offsets[first])
        if all((self.keys[j], self.offsets[j]) == key for j in winners[1:]):
            return first
        return None

    @fill_doc(**_DOC)
    def label(self, x) -> int:
        """The argmax label at ``x`` (hard attention), exactly.

        Keys equal in both ``a_j`` and ``b_j`` are one key for the diagram: the earlier
        index wins (as :class:`~tropattn.power.PowerDiagram` hides the later one).  With
        ``ties="first"`` the lowest index of the best score wins every tie.

        Parameters
        ----------
        %(x)s

        Returns
        -------
        int
            The winning label ``argmax_j (a_j . x + b_j)``.

        Raises
        ------
        TieError
            If two distinct keys tie for the best score and ``ties="refuse"``; ``labels``
            holds them.

        Examples
        --------
        >>> Head([[1], [-1]]).label([0])
        Traceback (most recent call last):
        ...
        tropattn.errors.TieError: x = (0,) is on a wall: labels (0, 1) tie with score 0; hard attention is undefined there (move x off the wall)
        """
        winners = self.argmax_all(x)
        if self.ties == "refuse" and self.distinct_winner(winners) is None:
            seen, distinct = set(), []
            for j in winners:
                key = (self.keys[j], self.offsets[j])
                if key not in seen:
                    seen.add(key)
                    distinct.append(j)
            xr = to_rational_vector(x, "x", self.dim)
            s = self.scores(xr)[distinct[0]]
            raise TieError(f"x = {format_point(xr)} is on a wall: labels {tuple(distinct)} tie with score {s}; "
                           "hard attention is undefined there (move x off the wall)", distinct)
        return winners[0]

    @fill_doc(**_DOC)
    def hard(self, x) -> tuple:
        """Zero-temperature output ``v_{label(x)}`` (exact).

        Parameters
        ----------
        %(x)s

        Returns
        -------
        tuple of Fraction
            The value ``v_j`` of the winning label, shape ``(d_out,)``.

        Raises
        ------
        TieError
            If distinct keys tie at ``x`` and ``ties="refuse"``.

        Examples
        --------
        >>> Head([[1], [-1]], values=[[5], [7]]).hard([-2])      # score -2 < 2: label 1 wins
        (Fraction(7, 1),)
        """
        return self.values[self.label(x)]

    # ------------------------------------------------------------- geometry
    def wall(self, j: int, k: int) -> tuple:
        """``(normal, offset)``: label ``j`` beats ``k`` where ``normal . x <= offset``.

        ``normal = a_k - a_j`` and ``offset = b_j - b_k``.

        Parameters
        ----------
        j, k : int
            Two labels.

        Returns
        -------
        normal : tuple of Fraction
            ``a_k - a_j``, shape ``(d,)``.
        offset : Fraction
            ``b_j - b_k``.

        Examples
        --------
        >>> Head([[0], [2]], [0, -1]).wall(0, 1)          # 0 >= 2x - 1  iff  2x <= 1
        ((Fraction(2, 1),), Fraction(1, 1))
        """
        simplify = self.domain.simplify
        normal = tuple(simplify(u - v) for u, v in zip(self.keys[k], self.keys[j]))
        return normal, simplify(self.offsets[j] - self.offsets[k])

    def power_diagram(self):
        """The power diagram of the argmax: sites ``a_j``, weights ``||a_j||^2 + 2 b_j`` (cached).

        Returns
        -------
        PowerDiagram
            Its cell ``j`` is where label ``j`` wins; hidden sites never win.

        Examples
        --------
        >>> Head([[0], [1], [2]], [0, -1, 0]).power_diagram().hidden     # x - 1 never wins
        (1,)
        """
        if "pd" not in self._cache:
            self._require_numbers("a power diagram")
            self._cache["pd"] = PowerDiagram.from_max_affine(self.keys, self.offsets)
        return self._cache["pd"]

    def tropical_polynomial(self):
        """``G(x) = max_j (a_j . x + b_j)``: its linear regions are the head's cells.

        Returns
        -------
        TropicalPolynomial
            ``max_j (a_j . x + b_j)`` with one monomial per key.

        Examples
        --------
        >>> Head([[0], [1]], [0, -1]).tropical_polynomial()
        TropicalPolynomial('max(0, x - 1)', variables=('x',))
        """
        self._require_numbers("a tropical polynomial")
        return TropicalPolynomial(self.keys, self.offsets)

    def tropical_rational_map(self, log_values):
        """The zero-temperature limit of ``tau log`` of attention with values ``e^{u_jc / tau}``.

        Component ``c`` is ``max_j (s_j(x) + u_jc) ⊘ G(x)`` (docs/THEORY.md §2); ``log_values`` is the
        ``(N, m)`` matrix ``u`` (``-inf`` allowed: a value 0 that never contributes).  This
        is the paper's object, not attention with fixed signed values.

        Parameters
        ----------
        log_values : (N, m) rationals or -inf
            ``u_jc``, the log of value ``c`` of key ``j``.

        Returns
        -------
        TropicalRationalMap
            ``m`` components, each a difference of two tropical polynomials.

        Raises
        ------
        InvalidInputError
            If ``log_values`` is empty, has not ``N`` rows, or rows of unequal length.

        Examples
        --------
        >>> F = Head([[0], [1]]).tropical_rational_map([[0], [-1]])
        >>> F.components[0]([5])                        # max(0, x - 1) - max(0, x) at x = 5
        Fraction(-1, 1)
        """
        self._require_numbers("a tropical rational map")
        U = _log_value_matrix(log_values, self.N)
        G = self.tropical_polynomial()
        comps = []
        for c in range(len(U[0])):
            coeffs = [b + u[c] if u[c] != float("-inf") else u[c] for b, u in zip(self.offsets, U)]
            comps.append(TropicalRationalFunction(TropicalPolynomial(self.keys, coeffs), G))
        return TropicalRationalMap(comps)


def _scale(score_scale: float, d_k):
    """``(score_scale, d_k)``: a given ``d_k`` sets the scale ``1 / sqrt(d_k)`` (and must agree with it)."""
    if d_k is None:
        return score_scale, None
    d_k = to_rational(d_k, "d_k")
    try:
        root = math.sqrt(float(d_k)) if d_k > 0 else 0.0
    except OverflowError:
        root = math.inf
    if not (math.isfinite(root) and root > 0 and 1.0 / root > 0):
        raise InvalidInputError(f"d_k = {d_k}; it must be positive, and 1/sqrt(d_k) a positive float "
                                "(the softmax scale)")
    if score_scale != 1.0 and score_scale != 1.0 / root:
        raise InvalidInputError(f"score_scale = {score_scale!r} disagrees with d_k = {d_k} "
                                f"(1/sqrt(d_k) = {1.0 / root!r}); give one of them")
    return 1.0 / root, d_k


def _log_value_matrix(U, n):
    if U is None or (hasattr(U, "__len__") and len(U) == 0):
        raise InvalidInputError("log_values is empty; give an (N, m) matrix of log-values, one row per key")
    rows = list(U)
    if len(rows) != n:
        raise InvalidInputError(f"log_values has {len(rows)} rows; expected one per key ({n})")
    out = [to_rational_vector(r, f"log_values[{i}]", allow_neg_inf=True) for i, r in enumerate(rows)]
    m = len(out[0])
    if m == 0 or any(len(r) != m for r in out):
        raise InvalidInputError("log_values must be an (N, m) matrix with m >= 1 and equal row lengths")
    return out

