"""Layers (heads, residual, projection, ReLU FFN) and transformers with a fixed context.

>>> from tropattn.attention import Head
>>> grid = Layer([Head([[0, 0], [1, 0]], [0, "-1/2"]), Head([[0, 0], [0, 1]], [0, "-1/2"])])
>>> grid.evaluate([1, 0])                          # head 0 picks key 1, head 1 key 0
((Fraction(2, 1), Fraction(0, 1)), (1, 0), ())
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np


from ..errors import InvalidInputError, TieError
from ..exact import integer_matrix, to_rational_matrix, to_rational_vector
from ._dual import count_dual
from ._domain import QQ
from ._head import Head
from ._score_form import EMPTY_CONTEXT
from .._doc import fill_doc


__all__ = ["FFN", "Layer", "Transformer", "MultiHeadAttention"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "x": """x : (d,) rationals
    The input point.""",
    "ties": """Raises
------
InvalidInputError
    If ``rule`` is not a tie rule.""",
}


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
        W1 = QQ.matrix(self.W1, "W1")
        h, d = len(W1), len(W1[0])
        object.__setattr__(self, "W1", W1)
        object.__setattr__(self, "b1", to_rational_vector(self.b1, "b1", h))
        object.__setattr__(self, "W2", to_rational_matrix(self.W2, "W2", rows=d, cols=h))
        object.__setattr__(self, "b2", to_rational_vector(self.b2, "b2", d))

    @classmethod
    def from_integers(cls, N1, t1, N2, t2) -> "FFN":
        """The FFN with ``[W1 | b1] = N1 / t1`` and ``[W2 | b2] = N2 / t2`` (integer arrays, ``t > 0``).

        Only the integers are held (a checkpoint's float weights are integers over a power of
        two: :class:`tropattn.io` builds its FFNs this way); the Fraction fields ``W1, b1, W2,
        b2`` are built when first read.  :meth:`integer_form` returns the integers.

        Parameters
        ----------
        N1 : 2-D array of int, shape (hidden, d + 1)
        t1 : int
        N2 : 2-D array of int, shape (d, hidden + 1)
        t2 : int

        Returns
        -------
        FFN

        Raises
        ------
        InvalidInputError
            If the shapes do not fit or a denominator is not positive.

        Examples
        --------
        >>> f = FFN.from_integers([[2, -2]], 2, [[1, 0]], 1)               # relu(x - 1)
        >>> f.evaluate([3]), f == FFN([[1]], [-1], [[1]], [0])
        (((Fraction(5, 1),), (1,)), True)
        """
        N1, N2 = _integer_array(N1), _integer_array(N2)
        if N1.ndim != 2 or N2.ndim != 2 or N1.shape[1] < 2 or N2.shape != (N1.shape[1] - 1, N1.shape[0] + 1):
            raise InvalidInputError(f"FFN.from_integers: [W1 | b1] has shape {N1.shape} and [W2 | b2] "
                                    f"{N2.shape}; expected (hidden, d + 1) and (d, hidden + 1)")
        t1, t2 = int(t1), int(t2)
        if t1 <= 0 or t2 <= 0:
            raise InvalidInputError(f"FFN.from_integers: denominators {t1}, {t2}; both must be positive")
        g1, g2 = _content(t1, N1), _content(t2, N2)     # the least denominators: a canonical form
        ffn = object.__new__(cls)
        ffn.__dict__["_integer_form"] = (_divided(N1, g1), t1 // g1, _divided(N2, g2), t2 // g2)
        return ffn

    def __getattr__(self, name):
        state = self.__dict__
        if name not in ("W1", "b1", "W2", "b2") or "_integer_form" not in state:
            raise AttributeError(name)
        N1, t1, N2, t2 = state["_integer_form"]
        N, t = (N1, t1) if name[1] == "1" else (N2, t2)
        if name[0] == "W":
            state[name] = tuple(tuple(Fraction(int(v), t) for v in row[:-1]) for row in N)
        else:
            state[name] = tuple(Fraction(int(v), t) for v in N[:, -1])
        return state[name]

    def integer_form(self):
        """``(N1, t1, N2, t2)``: ``[W1 | b1] = N1 / t1`` and ``[W2 | b2] = N2 / t2``, least ``t > 0``.

        ``N1``, ``N2`` are numpy object arrays of Python ints (computed once, then kept).

        Examples
        --------
        >>> N1, t1, N2, t2 = FFN([[0.5]], [-1], [[3]], [0.25]).integer_form()
        >>> N1.tolist(), t1, N2.tolist(), t2
        ([[1, -2]], 2, [[12, 1]], 4)
        """
        form = self.__dict__.get("_integer_form")
        if form is None:
            N1, t1 = integer_matrix([list(row) + [b] for row, b in zip(self.W1, self.b1)])
            N2, t2 = integer_matrix([list(row) + [b] for row, b in zip(self.W2, self.b2)])
            form = self.__dict__["_integer_form"] = (N1, t1, N2, t2)
        return form

    def __eq__(self, other):
        if not isinstance(other, FFN):
            return NotImplemented
        a, b = self.integer_form(), other.integer_form()
        return self is other or (a[1] == b[1] and a[3] == b[3] and a[0].shape == b[0].shape and
                                 a[2].shape == b[2].shape and bool((a[0] == b[0]).all() and (a[2] == b[2]).all()))

    def __hash__(self):
        N1, t1, N2, t2 = self.integer_form()
        return hash((t1, t2, N1.shape, tuple(N1[:, -1].tolist()), tuple(N2[:, -1].tolist())))

    def __getstate__(self):
        return dict(self.__dict__)

    def __setstate__(self, state):
        self.__dict__.update(state)

    @property
    def dim(self) -> int:
        form = self.__dict__.get("_integer_form")
        return form[0].shape[1] - 1 if form is not None else len(self.W1[0])

    @fill_doc(**_DOC)
    def evaluate(self, x) -> tuple:
        """``(output, bits)``; ``bits[i] = 1`` where ``W1 x + b1 > 0`` (0 at exactly 0).

        Parameters
        ----------
        %(x)s

        Returns
        -------
        output : tuple of Fraction
            ``x + W2 relu(W1 x + b1) + b2``, shape ``(d,)``.
        bits : tuple of int
            The ReLU activation pattern, shape ``(hidden,)``.

        Raises
        ------
        InvalidInputError
            If ``x`` does not have ``d`` finite coordinates.

        Examples
        --------
        >>> FFN([[1], [-1]], [0, 0], [[1, 1]], [0]).evaluate([-2])   # relu(-2) + relu(2): |x| added
        ((Fraction(0, 1),), (0, 1))
        """
        x = to_rational_vector(x, "x", self.dim)
        pre = [p + b for p, b in zip(QQ.matvec(self.W1, x), self.b1)]
        bits = tuple(int(p > 0) for p in pre)
        act = [p if bit else Fraction(0) for p, bit in zip(pre, bits)]
        return tuple(xi + s + c for xi, s, c in zip(x, QQ.matvec(self.W2, act), self.b2)), bits


@dataclass(frozen=True)
class Layer:
    """``x -> (x if residual else 0) + P sum_h v^h_{label_h(x)}``, then the FFN if any.

    ``residual`` may also be a matrix ``R`` of shape ``(d_out, d)``: the skip term is then
    ``R x`` (a slice ``x = x0 + U t`` enters the first layer as ``R = U``, see
    :func:`tropattn.attention.slice_model`; a frozen post-norm LayerNorm as
    ``R = diag(gamma) (I - 11^T/d) / sigma``).  An output bias (the out-projection bias
    ``b_O``) is folded exactly into the values of head 0: each head picks exactly one value.

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
        residual = self.residual
        if isinstance(residual, (bool, int)) or residual is None:
            residual = bool(residual)
        else:
            residual = to_rational_matrix(residual, "residual", rows=out, cols=d)
        if residual is True and out != d:
            raise InvalidInputError(
                f"the residual adds the input (dimension {d}) to the attention output (dimension {out}); "
                f"give values of length {d} or a projection of shape ({d}, {m})")
        ffn = self.ffn
        if isinstance(ffn, dict):
            ffn = FFN(**ffn)
        if ffn is not None and ffn.dim != out:
            raise InvalidInputError(f"the FFN reads dimension {ffn.dim} but the layer outputs {out}")
        object.__setattr__(self, "heads", heads)
        object.__setattr__(self, "residual", residual)
        object.__setattr__(self, "projection", P)
        object.__setattr__(self, "ffn", ffn)

    @property
    def dim(self) -> int:
        return self.heads[0].dim

    @property
    def dim_out(self) -> int:
        return len(self.projection) if self.projection is not None else self.heads[0].dim_out

    def apply(self, x, labels) -> tuple:
        """``(output, relu bits)`` of the layer with the heads' labels fixed to ``labels``.

        Parameters
        ----------
        x : (d,) rationals
            The input point (already exact; not checked).
        labels : sequence of int
            One label per head: the key each head picks.

        Returns
        -------
        output : tuple of Fraction
            The layer's output, shape ``(dim_out,)``: affine in ``x`` for fixed labels.
        bits : tuple of int
            The FFN's ReLU bits (empty without an FFN).

        Examples
        --------
        >>> L = Layer([Head([[0], [1]], values=[[10], [20]])])
        >>> L.apply((1,), [0]), L.apply((1,), [1])           # x + v_j for the chosen j
        (((Fraction(11, 1),), ()), ((Fraction(21, 1),), ()))
        """
        total = [Fraction(0)] * self.heads[0].dim_out
        for h, j in zip(self.heads, labels):
            total = [t + v for t, v in zip(total, h.values[j])]
        if self.projection is not None:
            total = list(QQ.matvec(self.projection, total))
        if self.residual is True:
            y = tuple(xi + t for xi, t in zip(x, total))
        elif self.residual is False:
            y = tuple(total)
        else:
            y = tuple(s + t for s, t in zip(QQ.matvec(self.residual, x), total))
        if self.ffn is None:
            return y, ()
        return self.ffn.evaluate(y)

    @fill_doc(**_DOC)
    def evaluate(self, x) -> tuple:
        """``(output, head labels, relu bits)``, exact; TieError names the head on a wall.

        Parameters
        ----------
        %(x)s

        Returns
        -------
        output : tuple of Fraction
            The layer's output, shape ``(dim_out,)``.
        labels : tuple of int
            Each head's argmax label.
        bits : tuple of int
            The FFN's ReLU bits (empty without an FFN).

        Raises
        ------
        TieError
            If a head with ``ties="refuse"`` has distinct keys tied at ``x`` (the message names the head).
        InvalidInputError
            If ``x`` does not have ``d`` finite coordinates.

        Examples
        --------
        >>> L = Layer([Head([[0], [1]], [0, -1], [[10], [20]])])      # scores 0 and x - 1
        >>> L.evaluate([3]), L.evaluate([0])[1]
        (((Fraction(23, 1),), (1,), ()), (0,))
        """
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
        """Regions of this layer (its head overlay, see :func:`count_dual`); refuses an FFN.

        The dual counts the overlay of the heads' power diagrams, which are the layer's
        activation regions whatever the residual and projection; a ReLU FFN cuts them
        further, which the dual does not model, so it is refused rather than ignored.

        Returns
        -------
        int
            The number of full-dimensional regions of the heads' overlay.

        Raises
        ------
        InvalidInputError
            If the layer has an FFN (the dual does not model it).

        Examples
        --------
        >>> Layer([Head([[0], [1]], [0, -1]), Head([[0], [1]], [0, -2])]).count_dual()   # walls x = 1, 2
        3
        """
        if self.ffn is not None:
            raise InvalidInputError("the dual count does not model the layer's ReLU FFN (it would count the "
                                    "head overlay only, too few regions); use the primal search "
                                    "(enumerate_regions, or --method primal)")
        return count_dual(self.heads)

    @fill_doc(**_DOC)
    def with_ties(self, rule) -> "Layer":
        """The same layer with every head's tie rule set to ``rule`` (see :class:`Head`).

        Parameters
        ----------
        rule : {"refuse", "first"}
            The new tie rule of every head.

        Returns
        -------
        Layer
            A copy with the heads replaced.

        %(ties)s

        Examples
        --------
        >>> Layer([Head([[1], [-1]])]).with_ties("first").evaluate([0])[1]   # a tie at x = 0: 0 wins
        (0,)
        """
        return replace(self, heads=tuple(h.with_ties(rule) for h in self.heads))


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
        """``(output, pattern)`` with ``pattern[l] = (head labels, relu bits)`` of layer ``l``.

        Parameters
        ----------
        x : (d,) rationals
            The query point.

        Returns
        -------
        output : tuple of Fraction
            The last layer's output, shape ``(dim_out,)``.
        pattern : tuple
            ``pattern[l] = (head labels, relu bits)``: the activation pattern, constant on each region.

        Raises
        ------
        TieError
            If a head with ``ties="refuse"`` is on a wall at its input (the message names layer and head).
        InvalidInputError
            If ``x`` does not have ``d`` finite coordinates.

        Examples
        --------
        >>> T = Transformer([Layer([Head([[0], [1]], [0, -1])], residual=False), Layer([Head([[1], [-1]])])])
        >>> T.evaluate([3])                    # layer 0 outputs key 1 = (1,); layer 1 then picks key 0
        ((Fraction(2, 1),), (((1,), ()), ((0,), ())))
        """
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
        """Dual region count of a one-layer model (see :func:`count_dual`).

        Returns
        -------
        int
            The number of regions of the single layer.

        Raises
        ------
        InvalidInputError
            If the model has more than one layer, or its layer has an FFN.

        Examples
        --------
        >>> Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])])]).count_dual()   # walls x = 0, 1
        3
        """
        if len(self.layers) != 1:
            raise InvalidInputError(f"count_dual counts one layer; this model has {len(self.layers)}. "
                                    "Use tropattn.regions.enumerate_regions for deeper models")
        return self.layers[0].count_dual()

    @property
    def ties(self) -> str | None:
        """The tie rule shared by every head (``"refuse"`` or ``"first"``), None if they differ."""
        rules = {h.ties for layer in self.layers for h in layer.heads}
        return rules.pop() if len(rules) == 1 else None

    @fill_doc(**_DOC)
    def with_ties(self, rule) -> "Transformer":
        """The same model with every head's tie rule set to ``rule``.

        Parameters
        ----------
        rule : {"refuse", "first"}
            The new tie rule of every head.

        Returns
        -------
        Transformer
            A copy with every layer's heads replaced.

        %(ties)s

        Examples
        --------
        >>> T = Transformer([Layer([Head([[1], [-1]])])]).with_ties("first")
        >>> T.ties, T.evaluate([0])[1]                      # keys 0 and 1 tie at x = 0: 0 wins
        ('first', (((0,), ()),))
        """
        return Transformer(tuple(layer.with_ties(rule) for layer in self.layers))

    @classmethod
    def from_weights(cls, context, layers, include_query=False) -> "Transformer":
        """A transformer in weight form with a fixed causal context.

        ``layers`` is a sequence of dicts ``{"heads": [{W_Q, W_K, W_V, W_O, b_Q?, b_K?, b_V?,
        d_k?}, ...], "residual": True, "projection": None, "ffn": FFN or dict or None,
        "d_k": None}``.  Convention (docs/THEORY.md §4):

        * layer ``l``'s keys and values come from the context states ``Y^l`` alone
          (``Y^0 = context``), so each layer is a :class:`Layer` in score form;
        * the context states propagate through the same layer with **causal hard**
          attention: token ``i`` attends to tokens ``0..i`` (itself included; its state is
          a constant, so nothing is quadratic), picks the best score with ties broken
          toward the **earlier** index, and goes through the same residual, projection and
          FFN;
        * the query attends to every context token but not to itself (``include_query=True``
          raises :class:`~tropattn.errors.QuadraticWallError`).

        Parameters
        ----------
        context : (N, d) rationals
            The fixed context tokens (non-empty).
        layers : sequence of dict
            One dict per layer, as above.
        include_query : bool, optional
            Whether the query attends to itself (refused).

        Returns
        -------
        Transformer
            The exact score form of every layer.

        Raises
        ------
        InvalidInputError
            If the context is empty, a layer spec is not a dict with ``"heads"``, a head has an
            unknown weight name, or shapes disagree.
        QuadraticWallError
            With ``include_query=True``.

        Examples
        --------
        >>> T = Transformer.from_weights([[1], [-1]], [{"heads": [dict(W_Q=[[1]], W_K=[[1]], W_V=[[1]],
        ...                                                           W_O=[[1]])]}])
        >>> T.evaluate([2])[0]                             # 2 + value of key y = 1
        (Fraction(3, 1),)
        """
        Y = to_rational_matrix(context, "context") if context is not None else ()
        if not Y:
            raise InvalidInputError(EMPTY_CONTEXT)
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


def _integer_array(N) -> np.ndarray:
    """``N`` as an int64 array when it is one (a checkpoint's weights), else as Python ints."""
    if isinstance(N, np.ndarray) and N.dtype == np.int64:
        return N
    return np.asarray(N, dtype=object)


def _content(t: int, N: np.ndarray) -> int:
    """``gcd(t, entries of N)`` (numpy's gcd on int64 arrays, Python's on Python ints).

    >>> _content(8, np.array([[4, -12]])), _content(8, np.array([[2 ** 70, 6]], dtype=object))
    (4, 2)
    """
    if N.dtype == np.int64:
        return math.gcd(t, int(np.gcd.reduce(N.ravel()))) if N.size else t
    return math.gcd(t, *N.ravel().tolist())


def _divided(N: np.ndarray, g: int) -> np.ndarray:
    """``N / g`` (exact: ``g`` divides every entry) as an object array of Python ints."""
    return (N // g if g > 1 else N).astype(object, copy=False)

