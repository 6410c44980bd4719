"""Attention heads, layers and transformers with a fixed context, exact.

The context tokens ``y_1, ..., y_N`` are fixed and only the query ``x in Q^d`` varies
(THEORY §2).  A head then scores context token ``j`` by an *affine* function

    s_j(x) = a_j . x + b_j            (the **score form**: keys a_j, offsets b_j)

and, at zero temperature, returns the value ``v_j`` of the best-scoring token:

* ``argmax_j s_j(x)`` is the power diagram with sites ``a_j`` and weights
  ``||a_j||^2 + 2 b_j`` (:meth:`Head.power_diagram`), i.e. the linear regions of the
  tropical polynomial ``G(x) = max_j (a_j . x + b_j)`` (:meth:`Head.tropical_polynomial`);
* between labels ``j`` and ``k`` the wall is the hyperplane ``(a_k - a_j) . x = b_j - b_k``;
  label ``j`` beats ``k`` on the side ``(a_k - a_j) . x <= b_j - b_k`` (:meth:`Head.wall`);
* at temperature ``tau > 0``, ``softmax(score_scale * s(x) / tau)`` weighs the values
  (:meth:`Head.soft`), computed with a stable log-sum-exp in floats.

**Weight form.**  ``q = W_Q x + b_Q``, ``k_j = W_K y_j + b_K``, ``v_j = W_O (W_V y_j + b_V)``;
the score ``q . k_j / sqrt(d_k)`` is ``(a_j . x + b_j) / sqrt(d_k)`` with
``a_j = W_Q^T k_j`` and ``b_j = b_Q . k_j`` (:meth:`Head.from_weights`).  The positive factor
``1 / sqrt(d_k)`` changes no argmax, so the exact keys and offsets leave it out and the
head remembers it as the float ``score_scale``: ``soft(X, tau=1)`` is standard scaled
dot-product attention.  (A head built directly in score form has ``score_scale = 1``; to
reproduce standard attention from raw ``q . k`` scores use ``tau = sqrt(d_k)``.)

If the query also attends to *itself*, its score ``x^T W_Q^T W_K x + ...`` is quadratic
in ``x`` and the walls are quadrics: tropattn refuses that case with
:class:`~tropattn.errors.QuadraticWallError` (``include_query=True``) rather than
silently dropping the term.

**Layers.**  ``Layer(heads, residual, projection, ffn)`` maps
``x -> (x if residual else 0) + P sum_h v^h_{j_h(x)}``, then the ReLU FFN
``x -> x + W2 relu(W1 x + b1) + b2``.  A :class:`Transformer` stacks layers; its
activation pattern (every head's label and every ReLU bit) cuts ``Q^d`` into convex
pieces on which it is affine (THEORY §4).  One layer of ``H`` heads has as many regions
as the Minkowski sum of the lifted polytopes ``conv{(a_j, b_j)}`` has upper vertices
(:func:`count_dual`, THEORY §3).

>>> head = Head([[0], [1], [2]], [0, 0, -1])          # scores 0, x, 2x - 1
>>> head.label([-1]), head.label(["1/2"]), head.label([3])
(0, 1, 2)
>>> head.wall(0, 1)                                    # 0 beats 1 where x <= 0
((Fraction(1, 1),), Fraction(0, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .errors import InvalidInputError, QuadraticWallError, TieError
from .exact import format_point, homogeneous_point, to_rational, to_rational_matrix, to_rational_vector

__all__ = [
    "Head",
    "FFN",
    "Layer",
    "Transformer",
    "MultiHeadAttention",
    "count_dual",
]

_EMPTY_CONTEXT = "the context is empty; attention needs at least one key"


def _matrix(M, name, rows=None, cols=None, what="rows"):
    out = to_rational_matrix(M, name, rows, cols)
    if not out:
        raise InvalidInputError(f"{name} is empty; give at least one row")
    return out


def _matvec(M, x):
    return tuple(sum((m * xi for m, xi in zip(row, x)), Fraction(0)) for row in M)


def _fmt(x) -> str:
    return format_point(x)


# ------------------------------------------------------------------------------ Head
@dataclass(frozen=True)
class Head:
    """One attention head in score form, exact.

    Parameters
    ----------
    keys : (N, d) rationals
        ``a_j``: the score of context token ``j`` at the query ``x`` is ``a_j . x + b_j``.
    offsets : (N,) rationals, optional
        ``b_j`` (default 0: the diagram is then a fan of cones from the origin).
    values : (N, d_out) rationals, optional
        ``v_j`` returned by hard attention (default: the keys).
    score_scale : float, optional
        Positive factor applied to the scores by :meth:`soft` only (``1 / sqrt(d_k)``
        for heads built by :meth:`from_weights`); exact results never use it.

    >>> h = Head([[1, 0], [0, 1]], values=[[10], [20]])
    >>> h.N, h.dim, h.dim_out, h.hard([2, 1])
    (2, 2, 1, (Fraction(10, 1),))
    """

    keys: tuple
    offsets: tuple = None
    values: tuple = None
    score_scale: float = 1.0
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False, hash=False)

    def __post_init__(self):
        if self.keys is None or (hasattr(self.keys, "__len__") and len(self.keys) == 0):
            raise InvalidInputError(_EMPTY_CONTEXT)
        keys = to_rational_matrix(self.keys, "keys")
        if not keys[0]:
            raise InvalidInputError("keys have 0 coordinates; the query needs dimension d >= 1")
        n = len(keys)
        offsets = ((Fraction(0),) * n if self.offsets is None
                   else to_rational_vector(self.offsets, "offsets", n))
        values = keys if self.values is None else to_rational_matrix(self.values, "values", rows=n)
        if values and not values[0]:
            raise InvalidInputError("values have 0 coordinates; give values of shape (N, d_out), d_out >= 1")
        scale = float(self.score_scale)
        if not (math.isfinite(scale) and scale > 0):
            raise InvalidInputError(f"score_scale = {self.score_scale!r}; it must be a positive finite number")
        object.__setattr__(self, "keys", keys)
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "score_scale", scale)

    # ------------------------------------------------------------- weight form
    @classmethod
    def from_weights(cls, W_Q, W_K, W_V, W_O, context, b_Q=None, b_K=None, b_V=None, d_k=None,
                     include_query=False) -> "Head":
        """Exact score form of ``softmax((W_Q x + b_Q) . (W_K y_j + b_K) / sqrt(d_k))``.

        Shapes: ``W_Q (d_k, d)``, ``W_K (d_k, d_y)``, ``W_V (d_v, d_y)``, ``W_O (d_out, d_v)``
        (``None`` = identity), ``context (N, d_y)``.  Keys ``a_j = W_Q^T k_j``, offsets
        ``b_j = b_Q . k_j``, values ``v_j = W_O (W_V y_j + b_V)``; ``score_scale = 1/sqrt(d_k)``
        (``d_k`` defaults to the number of rows of ``W_Q``).

        Raises
        ------
        QuadraticWallError
            With ``include_query=True``: the query's score against itself is quadratic.

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
            raise InvalidInputError(_EMPTY_CONTEXT)
        W_Q = _matrix(W_Q, "W_Q")
        dk_rows = len(W_Q)
        W_K = _matrix(W_K, "W_K", rows=dk_rows)
        Y = to_rational_matrix(context, "context", cols=len(W_K[0]))
        W_V = _matrix(W_V, "W_V", cols=len(W_K[0]))
        W_O = None if W_O is None else _matrix(W_O, "W_O", cols=len(W_V))
        b_Q = (Fraction(0),) * dk_rows if b_Q is None else to_rational_vector(b_Q, "b_Q", dk_rows)
        b_K = (Fraction(0),) * dk_rows if b_K is None else to_rational_vector(b_K, "b_K", dk_rows)
        b_V = (Fraction(0),) * len(W_V) if b_V is None else to_rational_vector(b_V, "b_V", len(W_V))
        d_k = dk_rows if d_k is None else to_rational(d_k, "d_k")
        if d_k <= 0:
            raise InvalidInputError(f"d_k = {d_k}; it must be positive (the softmax scale is 1/sqrt(d_k))")
        keys, offsets, values = [], [], []
        WQt = tuple(zip(*W_Q))
        for y in Y:
            k = tuple(s + c for s, c in zip(_matvec(W_K, y), b_K))
            keys.append(_matvec(WQt, k))
            offsets.append(sum((q * c for q, c in zip(b_Q, k)), Fraction(0)))
            v = tuple(s + c for s, c in zip(_matvec(W_V, y), b_V))
            values.append(v if W_O is None else _matvec(W_O, v))
        return cls(tuple(keys), tuple(offsets), tuple(values), score_scale=1.0 / math.sqrt(float(d_k)))

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

    def integer_form(self) -> tuple:
        """Keys and offsets scaled by one positive integer: ``(keys, offsets)`` as ints.

        The scores keep their order (and ties), so walls and labels can be computed in
        integer arithmetic.

        >>> Head([["1/2"], [1]], ["1/3", 0]).integer_form()
        ([(3,), (6,)], [2, 0])
        """
        return self._ints()

    def _ints(self):
        """Keys and offsets as integers over one common denominator (scores compare alike)."""
        if "ints" not in self._cache:
            d = self.dim
            flat, _ = homogeneous_point([v for k in self.keys for v in k] + list(self.offsets))
            A = [tuple(flat[j * d:(j + 1) * d]) for j in range(self.N)]
            self._cache["ints"] = (A, list(flat[self.N * d:]))
        return self._cache["ints"]

    def scores(self, x) -> tuple:
        """Exact scores ``a_j . x + b_j``.

        >>> Head([[1], [2]], [0, -1]).scores([3])
        (Fraction(3, 1), Fraction(5, 1))
        """
        x = to_rational_vector(x, "x", self.dim)
        return tuple(sum((a * xi for a, xi in zip(k, x)), b) for k, b in zip(self.keys, self.offsets))

    def argmax_all(self, x) -> tuple:
        """Every label of maximal score at ``x`` (increasing)."""
        x = to_rational_vector(x, "x", self.dim)
        return self.argmax_homogeneous(*homogeneous_point(x))

    def argmax_homogeneous(self, X, D) -> tuple:
        """Every label of maximal score at the point ``X / D`` (integers, ``D > 0``).

        The fast path for callers that evaluate many heads at one point: the point is
        converted once, the scores are compared as integers.

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
        """
        first = winners[0]
        key = (self.keys[first], self.offsets[first])
        if all((self.keys[j], self.offsets[j]) == key for j in winners[1:]):
            return first
        return None

    def label(self, x) -> int:
        """The argmax label at ``x`` (hard attention), exactly.

        Keys equal in both ``a_j`` and ``b_j`` are one key for the diagram: the earlier
        index wins (as :class:`~tropattn.power.PowerDiagram` hides the later one).

        Raises
        ------
        TieError
            If two distinct keys tie for the best score; ``labels`` holds them.

        >>> Head([[1], [-1]]).label([0])
        Traceback (most recent call last):
        ...
        tropattn.errors.TieError: x = (0,) is on a wall: labels (0, 1) tie with score 0; hard attention is undefined there (move x off the wall)
        """
        winners = self.argmax_all(x)
        if self.distinct_winner(winners) is None:
            seen, distinct = set(), []
            for j in winners:
                key = (self.keys[j], self.offsets[j])
                if key not in seen:
                    seen.add(key)
                    distinct.append(j)
            xr = to_rational_vector(x, "x", self.dim)
            s = self.scores(xr)[distinct[0]]
            raise TieError(f"x = {_fmt(xr)} is on a wall: labels {tuple(distinct)} tie with score {s}; "
                           "hard attention is undefined there (move x off the wall)", distinct)
        return winners[0]

    def hard(self, x) -> tuple:
        """Zero-temperature output ``v_{label(x)}`` (exact)."""
        return self.values[self.label(x)]

    # ------------------------------------------------------------- soft attention
    def _float_data(self):
        if "float" not in self._cache:
            self._cache["float"] = (np.array(self.keys, dtype=float), np.array(self.offsets, dtype=float),
                                    np.array(self.values, dtype=float))
        return self._cache["float"]

    def _queries(self, X):
        X = np.asarray(X, dtype=float)
        single = X.ndim == 1
        X2 = X[None, :] if single else X
        if X2.ndim != 2 or X2.shape[1] != self.dim:
            raise InvalidInputError(f"X has shape {X.shape}; expected (n, {self.dim}) or ({self.dim},)")
        if not np.all(np.isfinite(X2)):
            raise InvalidInputError("X contains NaN or infinity; every query coordinate must be finite")
        return X2, single

    def log_weights(self, X, tau):
        """``log softmax(score_scale * s(X) / tau)``, shape ``(n, N)`` (or ``(N,)``), stable.

        >>> np.round(np.exp(Head([[0], [1]]).log_weights([0], 1.0)), 3).tolist()
        [0.5, 0.5]
        """
        tau = float(tau)
        if not (math.isfinite(tau) and tau > 0):
            raise InvalidInputError(f"tau = {tau}; the temperature must be a positive finite number "
                                    "(use label() or hard() for tau = 0)")
        X2, single = self._queries(X)
        K, b, _ = self._float_data()
        Z = (X2 @ K.T + b[None, :]) * (self.score_scale / tau)
        Z = Z - Z.max(axis=1, keepdims=True)
        out = Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))
        return out[0] if single else out

    def weights(self, X, tau):
        """Softmax attention weights, shape ``(n, N)`` (or ``(N,)`` for one query)."""
        return np.exp(self.log_weights(X, tau))

    def soft(self, X, tau):
        """Soft attention output ``sum_j p_j(x) v_j`` in floats, shape ``(n, d_out)`` or ``(d_out,)``.

        >>> Head([[0], [1]], values=[[0], [1]]).soft([0], 1.0).tolist()
        [0.5]
        """
        V = self._float_data()[2]
        return self.weights(X, tau) @ V

    # ------------------------------------------------------------- geometry
    def wall(self, j: int, k: int) -> tuple:
        """``(normal, offset)``: label ``j`` beats ``k`` where ``normal . x <= offset``.

        ``normal = a_k - a_j`` and ``offset = b_j - b_k``.
        """
        normal = tuple(u - v for u, v in zip(self.keys[k], self.keys[j]))
        return normal, self.offsets[j] - self.offsets[k]

    def power_diagram(self):
        """The power diagram of the argmax: sites ``a_j``, weights ``||a_j||^2 + 2 b_j`` (cached).

        >>> Head([[0], [1], [2]], [0, -1, 0]).power_diagram().hidden     # x - 1 never wins
        (1,)
        """
        if "pd" not in self._cache:
            from .power import PowerDiagram, scores_to_weights

            self._cache["pd"] = PowerDiagram(self.keys, scores_to_weights(self.keys, self.offsets))
        return self._cache["pd"]

    def tropical_polynomial(self):
        """``G(x) = max_j (a_j . x + b_j)``: its linear regions are the head's cells.

        >>> Head([[0], [1]], [0, -1]).tropical_polynomial()
        TropicalPolynomial('max(0, x - 1)', variables=('x',))
        """
        from .tropical import TropicalPolynomial

        return TropicalPolynomial(self.keys, self.offsets)

    def tropical_rational_map(self, log_values):
        """The zero-temperature limit of ``tau log`` of attention with values ``e^{u_jc / tau}``.

        Component ``c`` is ``max_j (s_j(x) + u_jc) ⊘ G(x)`` (THEORY §2); ``log_values`` is the
        ``(N, m)`` matrix ``u`` (``-inf`` allowed: a value 0 that never contributes).  This
        is the paper's object, not attention with fixed signed values.

        >>> F = Head([[0], [1]]).tropical_rational_map([[0], [-1]])
        >>> F.components[0]([5])                        # max(0, x - 1) - max(0, x) at x = 5
        Fraction(-1, 1)
        """
        from .tropical import TropicalPolynomial, TropicalRationalFunction, TropicalRationalMap

        U = _log_value_matrix(log_values, self.N)
        G = self.tropical_polynomial()
        comps = []
        for c in range(len(U[0])):
            coeffs = [b + u[c] if u[c] != float("-inf") else u[c] for b, u in zip(self.offsets, U)]
            comps.append(TropicalRationalFunction(TropicalPolynomial(self.keys, coeffs), G))
        return TropicalRationalMap(comps)


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


# ------------------------------------------------------------------------------ FFN
@dataclass(frozen=True)
class FFN:
    """The residual ReLU block ``x -> x + W2 relu(W1 x + b1) + b2`` (exact).

    >>> FFN([[1]], [-1], [[1]], [0]).evaluate([3])     # 3 + relu(3 - 1)
    ((Fraction(5, 1),), (1,))
    """

    W1: tuple
    b1: tuple
    W2: tuple
    b2: tuple

    def __post_init__(self):
        W1 = _matrix(self.W1, "W1")
        h, d = len(W1), len(W1[0])
        object.__setattr__(self, "W1", W1)
        object.__setattr__(self, "b1", to_rational_vector(self.b1, "b1", h))
        object.__setattr__(self, "W2", to_rational_matrix(self.W2, "W2", rows=d, cols=h))
        object.__setattr__(self, "b2", to_rational_vector(self.b2, "b2", d))

    @property
    def dim(self) -> int:
        return len(self.W1[0])

    def evaluate(self, x) -> tuple:
        """``(output, bits)``; ``bits[i] = 1`` where ``W1 x + b1 > 0`` (0 at exactly 0)."""
        x = to_rational_vector(x, "x", self.dim)
        pre = [p + b for p, b in zip(_matvec(self.W1, x), self.b1)]
        bits = tuple(int(p > 0) for p in pre)
        act = [p if bit else Fraction(0) for p, bit in zip(pre, bits)]
        return tuple(xi + s + c for xi, s, c in zip(x, _matvec(self.W2, act), self.b2)), bits


# ------------------------------------------------------------------------------ Layer
@dataclass(frozen=True)
class Layer:
    """``x -> (x if residual else 0) + P sum_h v^h_{label_h(x)}``, then the FFN if any.

    >>> grid = Layer([Head([[0, 0], [1, 0]], [0, "-1/2"]), Head([[0, 0], [0, 1]], [0, "-1/2"])])
    >>> grid.evaluate([1, 0])                          # head 0 picks key 1, head 1 key 0
    ((Fraction(2, 1), Fraction(0, 1)), (1, 0), ())
    """

    heads: tuple
    residual: bool = True
    projection: tuple = None
    ffn: FFN = None

    def __post_init__(self):
        heads = tuple(self.heads)
        if not heads:
            raise InvalidInputError("a layer needs at least one head")
        for i, h in enumerate(heads):
            if not isinstance(h, Head):
                raise InvalidInputError(f"heads[{i}] is a {type(h).__name__}; expected a Head")
        d, m = heads[0].dim, heads[0].dim_out
        for i, h in enumerate(heads):
            if h.dim != d:
                raise InvalidInputError(f"heads[{i}] reads dimension {h.dim}; heads[0] reads {d}")
            if h.dim_out != m:
                raise InvalidInputError(f"heads[{i}] has values of length {h.dim_out}; heads[0] has {m}; "
                                        "all heads of a layer must output the same dimension")
        P = None
        if self.projection is not None:
            P = to_rational_matrix(self.projection, "projection", cols=m)
        out = len(P) if P is not None else m
        if self.residual and out != d:
            raise InvalidInputError(
                f"the residual adds the input (dimension {d}) to the attention output (dimension {out}); "
                f"give values of length {d} or a projection of shape ({d}, {m})")
        ffn = self.ffn
        if isinstance(ffn, dict):
            ffn = FFN(**ffn)
        if ffn is not None and ffn.dim != out:
            raise InvalidInputError(f"the FFN reads dimension {ffn.dim} but the layer outputs {out}")
        object.__setattr__(self, "heads", heads)
        object.__setattr__(self, "residual", bool(self.residual))
        object.__setattr__(self, "projection", P)
        object.__setattr__(self, "ffn", ffn)

    @property
    def dim(self) -> int:
        return self.heads[0].dim

    @property
    def dim_out(self) -> int:
        return len(self.projection) if self.projection is not None else self.heads[0].dim_out

    def apply(self, x, labels) -> tuple:
        """``(output, relu bits)`` of the layer with the heads' labels fixed to ``labels``."""
        total = [Fraction(0)] * self.heads[0].dim_out
        for h, j in zip(self.heads, labels):
            total = [t + v for t, v in zip(total, h.values[j])]
        if self.projection is not None:
            total = list(_matvec(self.projection, total))
        y = tuple(xi + t for xi, t in zip(x, total)) if self.residual else tuple(total)
        if self.ffn is None:
            return y, ()
        return self.ffn.evaluate(y)

    def evaluate(self, x) -> tuple:
        """``(output, head labels, relu bits)``, exact; TieError names the head on a wall."""
        x = to_rational_vector(x, "x", self.dim)
        labels = []
        for i, h in enumerate(self.heads):
            try:
                labels.append(h.label(x))
            except TieError as exc:
                raise TieError(f"head {i}: {exc}", exc.labels) from None
        y, bits = self.apply(x, labels)
        return y, tuple(labels), bits

    def count_dual(self) -> int:
        """Regions of this layer's head overlay (see :func:`count_dual`)."""
        return count_dual(self.heads)


# ------------------------------------------------------------------------------ Transformer
@dataclass(frozen=True)
class Transformer:
    """A stack of :class:`Layer` s acting on the query, with a fixed context.

    >>> one = Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])], residual=False)])
    >>> one.evaluate([3])                               # head picks 2x - 1; output = key 2
    ((Fraction(2, 1),), (((2,), ()),))
    """

    layers: tuple

    def __post_init__(self):
        layers = tuple(self.layers)
        if not layers:
            raise InvalidInputError("a transformer needs at least one layer")
        for i, (a, b) in enumerate(zip(layers, layers[1:])):
            if b.dim != a.dim_out:
                raise InvalidInputError(f"layer {i + 1} reads dimension {b.dim} but layer {i} outputs {a.dim_out}")
        object.__setattr__(self, "layers", layers)

    @property
    def dim(self) -> int:
        return self.layers[0].dim

    @property
    def dim_out(self) -> int:
        return self.layers[-1].dim_out

    def evaluate(self, x) -> tuple:
        """``(output, pattern)`` with ``pattern[l] = (head labels, relu bits)`` of layer ``l``."""
        y = to_rational_vector(x, "x", self.dim)
        pattern = []
        for l, layer in enumerate(self.layers):
            try:
                y, labels, bits = layer.evaluate(y)
            except TieError as exc:
                raise TieError(f"layer {l}, {exc}", exc.labels) from None
            pattern.append((labels, bits))
        return y, tuple(pattern)

    def count_dual(self) -> int:
        """Dual region count of a one-layer model (see :func:`count_dual`)."""
        if len(self.layers) != 1:
            raise InvalidInputError(f"count_dual counts one layer; this model has {len(self.layers)}. "
                                    "Use tropattn.regions.enumerate_regions for deeper models")
        return self.layers[0].count_dual()

    @classmethod
    def from_weights(cls, context, layers, include_query=False) -> "Transformer":
        """A transformer in weight form with a fixed causal context.

        ``layers`` is a sequence of dicts ``{"heads": [{W_Q, W_K, W_V, W_O, b_Q?, b_K?, b_V?,
        d_k?}, ...], "residual": True, "projection": None, "ffn": FFN or dict or None,
        "d_k": None}``.  Convention (THEORY §4):

        * layer ``l``'s keys and values come from the context states ``Y^l`` alone
          (``Y^0 = context``), so each layer is a :class:`Layer` in score form;
        * the context states propagate through the same layer with **causal hard**
          attention: token ``i`` attends to tokens ``0..i`` (itself included; its state is
          a constant, so nothing is quadratic), picks the best score with ties broken
          toward the **earlier** index, and goes through the same residual, projection and
          FFN;
        * the query attends to every context token but not to itself (``include_query=True``
          raises :class:`~tropattn.errors.QuadraticWallError`).

        >>> T = Transformer.from_weights([[1], [-1]], [{"heads": [dict(W_Q=[[1]], W_K=[[1]], W_V=[[1]],
        ...                                                           W_O=[[1]])]}])
        >>> T.evaluate([2])[0]                             # 2 + value of key y = 1
        (Fraction(3, 1),)
        """
        Y = to_rational_matrix(context, "context") if context is not None else ()
        if not Y:
            raise InvalidInputError(_EMPTY_CONTEXT)
        built = []
        for l, spec in enumerate(layers):
            if not isinstance(spec, dict) or "heads" not in spec:
                raise InvalidInputError(f"layers[{l}] must be a dict with a 'heads' list")
            layer_dk = spec.get("d_k")
            heads = []
            for i, h in enumerate(spec["heads"]):
                kw = dict(h)
                if kw.get("d_k") is None and layer_dk is not None:
                    kw["d_k"] = layer_dk
                kw.setdefault("W_O", None)
                try:
                    heads.append(Head.from_weights(context=Y, include_query=include_query, **kw))
                except TypeError as exc:
                    raise InvalidInputError(f"layers[{l}].heads[{i}]: {exc}") from None
            layer = Layer(heads, residual=spec.get("residual", True), projection=spec.get("projection"),
                          ffn=spec.get("ffn"))
            built.append(layer)
            Y = _propagate_context(layer, Y)
        return cls(tuple(built))


def _propagate_context(layer: Layer, Y) -> tuple:
    """Context states after ``layer`` with causal hard attention (ties -> earlier index)."""
    out = []
    for i, y in enumerate(Y):
        labels = []
        for h in layer.heads:
            s = h.scores(y)[: i + 1]
            best = max(s)
            labels.append(s.index(best))
        out.append(layer.apply(y, labels)[0])
    return tuple(out)


@dataclass(frozen=True, init=False)
class MultiHeadAttention(Transformer):
    """One layer of heads as a :class:`Transformer` (``residual=True`` by default).

    >>> mha = MultiHeadAttention([Head([[0], [1]], [0, "-1/2"]), Head([[0], [1]], [0, "-3/2"])])
    >>> mha.count_dual(), len(mha.heads)              # walls x = 1/2 and x = 3/2
    (3, 2)
    """

    def __init__(self, heads, residual=True, projection=None, ffn=None):
        Transformer.__init__(self, (Layer(tuple(heads), residual, projection, ffn),))

    @property
    def heads(self) -> tuple:
        return self.layers[0].heads


# ------------------------------------------------------------------------------ dual count
def count_dual(heads) -> int:
    """Regions of the overlay of the heads' power diagrams, counted in the dual.

    The overlay's regions are the linear regions of ``G_1 ⊙ ... ⊙ G_H`` and correspond
    to the upper vertices of the Minkowski sum of the lifted polytopes
    ``conv{(a_j, b_j)}`` (THEORY §3).  The sum is built one summand at a time, pruned to
    its upper vertices after each step (an upper vertex of ``P + Q`` is a sum of upper
    vertices of ``P`` and ``Q``), with :func:`tropattn.polytope.upper_hull`.

    >>> grid = [Head([[0, 0], [1, 0], [2, 0]], [0, "-1/2", -2]), Head([[0, 0], [0, 1], [0, 2]], [0, "-1/2", -2])]
    >>> count_dual(grid)                               # a 3 x 3 grid
    9
    """
    from .polytope import upper_hull

    heads = list(heads)
    if not heads:
        raise InvalidInputError("count_dual needs at least one head")
    d = heads[0].dim
    for i, h in enumerate(heads):
        if h.dim != d:
            raise InvalidInputError(f"heads[{i}] reads dimension {h.dim}; heads[0] reads {d}")
    current = None
    for h in heads:
        pts = [tuple(k) + (b,) for k, b in zip(h.keys, h.offsets)]
        verts = [pts[i] for i in upper_hull(pts).vertices]
        if current is None:
            current = verts
            continue
        sums = list(dict.fromkeys(tuple(u + v for u, v in zip(p, q)) for p in current for q in verts))
        current = [sums[i] for i in upper_hull(sums).vertices]
    return len(current)
