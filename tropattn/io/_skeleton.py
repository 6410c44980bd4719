"""The zero-temperature skeleton of a real (PyTorch / GPT-2-style) model, with a fixed causal context.

A real checkpoint is a stack of *blocks* (attention with an out-projection and its bias,
LayerNorms, an FFN).  With causal attention and the query at the last position, the
context tokens' states at every block do not depend on the query: they are computed once
with the model's own **soft** forward in floats (true LayerNorm, true activation) and then
converted exactly.  Only the query's path is the tropical skeleton (docs/THEORY.md §7):

* its scores against the fixed keys are affine in its state, its attention is the argmax;
* values, out-projection (the bias ``b_O`` is added to the values of head 0: exactly one
  value per head is picked, so this is exact), residuals and the FFN (ReLU) are affine;
* the query's score against itself is quadratic: only ``self_key="exclude"`` (the diagonal
  masked: a different model from the real one) is accepted, else
  :class:`~tropattn.errors.QuadraticWallError`;
* LayerNorm is not piecewise linear: ``layernorm="drop"`` removes it from the query path,
  ``layernorm="freeze"`` replaces ``LN(x) = gamma (x - mean x) / sigma(x) + beta`` by the
  exact affine map with ``sigma`` taken at a reference query (on the hard skeleton with
  the true LayerNorm), so the skeleton is exact at the reference point and faithful near
  it (:meth:`Skeleton.label_agreement` measures how far);
* GELU is refused unless ``activation="relu"``.

The final norm of the stack (``ln_f``, ``TransformerEncoder.norm``) is not part of the
skeleton: its output is the residual stream before that norm (the norm changes no region).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._lazy import lazy_import
from ..attention import FFN, Head, Layer, Transformer, precompose_layer
from ..errors import InvalidInputError, QuadraticWallError
from ..exact import to_rational, to_rational_vector
from ..soft import attend
from ._dyadic import Dyadic, float_fractions, integer_rows

__all__ = ["Norm", "Attention", "Block", "Skeleton", "check_options", "attention_forward", "context_forward",
           "build_skeleton", "layer_norm", "ACTIVATIONS", "query_path", "slice_grid", "make_skeleton"]

special = lazy_import("scipy.special")


@dataclass(frozen=True)
class Norm:
    """A LayerNorm ``gamma (x - mean x) / sqrt(var x + eps) + beta`` (floats)."""

    gamma: np.ndarray
    beta: np.ndarray
    eps: float = 1e-5


@dataclass(frozen=True)
class Attention:
    """Multi-head attention weights in nn.Linear orientation (floats).

    ``W_Q, W_K: (H, d_k, d)``, ``W_V: (H, d_v, d)``, biases ``(H, d_k)`` / ``(H, d_v)``,
    out-projection ``W_O: (d, H d_v)`` (head ``h`` reads columns ``h d_v .. (h+1) d_v``)
    and ``b_O: (d,)``; scores are ``q . k / sqrt(d_k)`` with ``d_k`` the head dimension, or
    the ``d_k`` given (GPT-2's ``scale_attn_weights=False`` is ``d_k = 1``, its
    ``scale_attn_by_inverse_layer_idx`` multiplies ``d_k`` by ``(layer + 1)^2``).
    """

    W_Q: np.ndarray
    b_Q: np.ndarray
    W_K: np.ndarray
    b_K: np.ndarray
    W_V: np.ndarray
    b_V: np.ndarray
    W_O: np.ndarray
    b_O: np.ndarray
    d_k: int = None

    @property
    def scale(self) -> float:
        """The score scale ``1 / sqrt(d_k)`` (floats)."""
        return 1 / math.sqrt(self.W_Q.shape[1] if self.d_k is None else self.d_k)

    @property
    def heads(self) -> int:
        return self.W_Q.shape[0]

    def keys_values(self, Y):
        """Per head: keys ``(N, d_k)`` and projected values ``(N, d)`` of the context inputs ``Y``.

        Parameters
        ----------
        Y : (N, d) ndarray
            The context's attention inputs.

        Returns
        -------
        list of tuple
            One ``(K, V)`` per head: ``K = Y W_K^T + b_K`` and ``V = (Y W_V^T + b_V) W_O[:, head]^T``.

        Examples
        --------
        >>> I, z = np.eye(2)[None], np.zeros((1, 2))
        >>> attn = Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2))      # one head, identity weights
        >>> [(K.tolist(), V.tolist()) for K, V in attn.keys_values(np.array([[1.0, 2.0]]))]
        [([[1.0, 2.0]], [[1.0, 2.0]])]
        """
        dv = self.W_V.shape[1]
        out = []
        for h in range(self.heads):
            K = Y @ self.W_K[h].T + self.b_K[h]
            V = (Y @ self.W_V[h].T + self.b_V[h]) @ self.W_O[:, h * dv:(h + 1) * dv].T
            out.append((K, V))
        return out


@dataclass(frozen=True)
class Block:
    """One block: ``attn`` (+ residual), then an optional FFN ``W2 act(W1 z + b1) + b2`` (+ residual).

    ``norm_first``: pre-norm (GPT-2, ``norm_first=True``) reads ``norm1(x)`` / ``norm2(x)``;
    post-norm (PyTorch's default) normalises after each residual sum.
    """

    attn: Attention
    norm1: Norm = None
    norm2: Norm = None
    ffn: tuple = None
    activation: str = "relu"
    norm_first: bool = True
    residual: bool = True


def _gelu_tanh(z):
    return 0.5 * z * (1 + np.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z ** 3)))


def _gelu(z):
    return 0.5 * z * (1 + special.erf(z / math.sqrt(2)))


def _gelu_fast(z):
    return 0.5 * z * (1 + np.tanh(z * 0.7978845608 * (1 + 0.044715 * z * z)))


def _sigmoid(z):
    return 0.5 * (1 + np.tanh(z / 2))


#: The FFN activations of the context's soft forward (floats); only ReLU is piecewise linear.
ACTIVATIONS = {"relu": lambda z: np.maximum(z, 0), "gelu": _gelu, "gelu_tanh": _gelu_tanh, "gelu_fast": _gelu_fast,
               "quick_gelu": lambda z: z * _sigmoid(1.702 * z), "silu": lambda z: z * _sigmoid(z)}


def layer_norm(X, norm: Norm, sigma=None):
    """LayerNorm of the rows of ``X``; with ``sigma`` given, the frozen (affine) map.

    Returns ``(out, sigma_used)``.

    Parameters
    ----------
    X : (n, d) array_like
        Rows to normalise.
    norm : Norm
        ``gamma``, ``beta`` and ``eps``.
    sigma : float or (n,) array_like, optional
        A frozen ``1/sigma`` scale: the map is then affine.

    Examples
    --------
    >>> out, s = layer_norm(np.array([[1.0, 3.0]]), Norm(np.ones(2), np.zeros(2), 0.0))
    >>> out.tolist(), s.tolist()
    ([[-1.0, 1.0]], [1.0])
    """
    X = np.asarray(X, dtype=float)
    centred = X - X.mean(axis=1, keepdims=True)
    if sigma is None:
        sigma = np.sqrt((centred ** 2).mean(axis=1) + norm.eps)
    sigma = np.broadcast_to(np.asarray(sigma, dtype=float), (X.shape[0],))
    return centred / sigma[:, None] * norm.gamma + norm.beta, sigma


def check_options(blocks, layernorm=None, self_key=None, activation=None, self_attention=True):
    """Refuse what the skeleton cannot represent exactly, with the options that make it exact.

    Parameters
    ----------
    blocks : sequence of Block
        The model.
    layernorm : {"drop", "freeze"}, optional
        Required when a block has a LayerNorm.
    self_key : {"exclude"}, optional
        Required when the query attends to itself (``self_attention=True``).
    activation : {"relu"}, optional
        Required when an FFN activation is not ReLU.
    self_attention : bool, optional
        Whether the model is causal self-attention (default True).

    Returns
    -------
    None
        The options are accepted.

    Raises
    ------
    QuadraticWallError
        If the query attends to itself and ``self_key`` is not ``"exclude"``.
    InvalidInputError
        If an option is unknown, or a LayerNorm or a non-ReLU activation is present without its option.

    Examples
    --------
    >>> I, z = np.eye(2)[None], np.zeros((1, 2))
    >>> blocks = [Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))]
    >>> check_options(blocks, self_key="exclude")                  # no LayerNorm, no FFN: accepted
    >>> check_options(blocks)                                      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tropattn.errors.QuadraticWallError: self_key = None: ...
    """
    if self_attention and self_key != "exclude":
        raise QuadraticWallError(
            f"self_key = {self_key!r}: in a causal model the query also attends to itself, and that score "
            "(W_Q x + b_Q) . (W_K x + b_K) is quadratic in x; pass self_key='exclude' for the fixed-context "
            "skeleton (the diagonal masked: a different model from the real one)")
    if layernorm not in (None, "drop", "freeze"):
        raise InvalidInputError(f"layernorm = {layernorm!r}; use 'drop' or 'freeze'")
    if activation not in (None, "relu"):
        raise InvalidInputError(f"activation = {activation!r}; the only piecewise-linear option is 'relu'")
    for l, blk in enumerate(blocks):
        if (blk.norm1 is not None or blk.norm2 is not None) and layernorm is None:
            raise InvalidInputError(
                f"block {l} has a LayerNorm, which is not piecewise linear; pass layernorm='drop' (the "
                "normalization-free skeleton) or layernorm='freeze' (1/sigma fixed at a reference point: exact "
                "and affine, faithful near it)")
        if blk.ffn is not None and blk.activation != "relu" and activation != "relu":
            raise InvalidInputError(
                f"block {l} uses the activation {blk.activation!r}, which is not piecewise linear; pass "
                "activation='relu' to analyse the model with ReLU in its place (the context keeps the real one)")
        if blk.ffn is not None and blk.activation not in ACTIVATIONS:
            raise InvalidInputError(f"block {l}: unknown activation {blk.activation!r}; known: "
                                    f"{', '.join(ACTIVATIONS)}")


def attention_forward(attn: Attention, Z, Y, *, mask=None, sharpness=1.0):
    """The float forward of one attention block: ``b_O + sum_h attend(Q_h, K_h, V_h)`` and the labels.

    Scores are ``q . k / sqrt(d_k)`` (:func:`tropattn.soft.attend`); ``sharpness=None`` is hard
    attention (the argmax key's value), a number ``c`` is ``softmax(c * score)``.

    Parameters
    ----------
    attn : Attention
        The weights.
    Z : (n, d) ndarray
        The queries' attention inputs.
    Y : (N, d) ndarray
        The keys' attention inputs (the context).
    mask : (n, N) bool array, optional
        True where a query may not read a key (causal attention).
    sharpness : float or None, optional
        Inverse temperature on the scaled scores (default 1: the model's own softmax); None: argmax.

    Returns
    -------
    out : numpy.ndarray
        Shape ``(n, d)``: the block's attention output (out-projection and its bias applied).
    labels : numpy.ndarray
        Shape ``(n, heads)``: each head's argmax key.

    Examples
    --------
    >>> I, z = np.eye(2)[None], np.zeros((1, 2))
    >>> attn = Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2))      # one head, identity weights
    >>> out, labels = attention_forward(attn, np.array([[2.0, 1.0]]), np.eye(2), sharpness=None)
    >>> out.tolist(), labels.tolist()                                  # key 0 wins: its value (1, 0)
    ([[1.0, 0.0]], [[0]])
    """
    out = np.zeros((len(Z), attn.W_O.shape[0])) + attn.b_O
    labels = []
    for h, (K, V) in enumerate(attn.keys_values(Y)):
        Q = Z @ attn.W_Q[h].T + attn.b_Q[h]
        o, S = attend(Q, K, V, attn.scale, mask=mask, beta=1.0 if sharpness is None else sharpness,
                      hard=sharpness is None, return_scores=True)
        out += o
        labels.append(S.argmax(axis=1))
    return out, np.stack(labels, axis=1)


def _causal_attention(attn: Attention, Z, Y):
    """Soft causal attention output for the rows of ``Z`` (queries) against ``Y`` (same length)."""
    n = len(Z)
    return attention_forward(attn, Z, Y, mask=np.triu(np.ones((n, n), dtype=bool), 1))[0]


def _norm(X, norm, mode, sigma=None):
    if norm is None or mode == "drop":
        return X, None
    out, s = layer_norm(X, norm, sigma if mode == "freeze" else None)
    return out, s


def context_forward(blocks, E):
    """The context's own soft causal forward (true LayerNorm and activation), in floats.

    Returns the list of attention inputs ``Y_l`` (``norm1`` applied for pre-norm blocks),
    one ``(N, d)`` array per block: the keys and values the query sees.

    Parameters
    ----------
    blocks : sequence of Block
        The model.
    E : (N, d) array_like
        The context's input states (embeddings).

    Returns
    -------
    list of numpy.ndarray
        ``Y_l`` per block, each ``(N, d)``.

    Examples
    --------
    >>> I, z = np.eye(2)[None], np.zeros((1, 2))
    >>> blk = Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))
    >>> [Y.tolist() for Y in context_forward([blk], [[1.0, 0.0], [0.0, 1.0]])]   # one block: its input
    [[[1.0, 0.0], [0.0, 1.0]]]
    """
    X = np.asarray(E, dtype=float)
    Ys = []
    for blk in blocks:
        Z = _norm(X, blk.norm1, "true")[0] if blk.norm_first else X
        Ys.append(Z)
        a = _causal_attention(blk.attn, Z, Z)
        X = X + a if blk.residual else a
        if not blk.norm_first:
            X = _norm(X, blk.norm1, "true")[0]
        if blk.ffn is not None:
            W1, b1, W2, b2 = blk.ffn
            Z = _norm(X, blk.norm2, "true")[0] if blk.norm_first else X
            X = X + ACTIVATIONS[blk.activation](Z @ W1.T + b1) @ W2.T + b2
            if not blk.norm_first:
                X = _norm(X, blk.norm2, "true")[0]
    return Ys


def query_path(blocks, Ys, X, layernorm="drop", sigmas=None, sharpness=None, activation="relu"):
    """The query's path in floats: ``(states, labels, sigmas)`` for the rows of ``X``.

    ``layernorm``: ``"true"`` (real LayerNorm), ``"drop"`` or ``"freeze"`` (``sigmas`` per
    LayerNorm site, in block order norm1, norm2); ``sharpness=None`` is hard (argmax)
    attention, a number ``c`` is ``softmax(c * score)``; ``activation`` of the FFN.
    ``labels`` has shape ``(n, blocks, heads)``; ``sigmas`` ``(n, sites)`` (true mode).

    Parameters
    ----------
    blocks : sequence of Block
        The model.
    Ys : sequence of (N, d) ndarray
        The context's attention inputs per block (:func:`context_forward`).
    X : (n, d) or (d,) array_like
        Query states.
    layernorm : {"drop", "freeze", "true"}, optional
        How LayerNorms act.
    sigmas : sequence, optional
        Frozen scales per LayerNorm site (``"freeze"``).
    sharpness : float, optional
        Soft attention ``softmax(c * score)``; None for hard.
    activation : str or None, optional
        The FFN activation (default ``"relu"``); None: each block's own (the real model).

    Returns
    -------
    states : numpy.ndarray
        Shape ``(n, d)``: the final query states.
    labels : numpy.ndarray
        Shape ``(n, blocks, heads)``: argmax labels.
    sigmas : numpy.ndarray
        Shape ``(n, sites)``: the scales used.

    Examples
    --------
    >>> I, z = np.eye(2)[None], np.zeros((1, 2))
    >>> blk = Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))
    >>> X, labels, _ = query_path([blk], [np.eye(2)], [[2.0, 1.0]])    # scores 2, 1 (over sqrt 2): key 0
    >>> X.tolist(), labels.tolist()                                   # x + v_0
    ([[3.0, 1.0]], [[[0]]])
    """
    X = np.array(X, dtype=float, ndmin=2)
    n = len(X)
    labels, used = [], []
    site = 0

    def norm(Z, nm):
        nonlocal site
        if nm is None:
            return Z
        s = None if sigmas is None else sigmas[site]
        out, s_used = _norm(Z, nm, layernorm, s)
        used.append(np.full(n, np.nan) if s_used is None else s_used)
        site += 1
        return out

    for blk, Y in zip(blocks, Ys):
        Z = norm(X, blk.norm1) if blk.norm_first else X
        out, lab = attention_forward(blk.attn, Z, Y, sharpness=sharpness)
        labels.append(lab)
        X = X + out if blk.residual else out
        if not blk.norm_first:
            X = norm(X, blk.norm1)
        if blk.ffn is not None:
            W1, b1, W2, b2 = blk.ffn
            Z = norm(X, blk.norm2) if blk.norm_first else X
            X = X + ACTIVATIONS[activation or blk.activation](Z @ W1.T + b1) @ W2.T + b2
            if not blk.norm_first:
                X = norm(X, blk.norm2)
    sig = np.stack(used, axis=1) if used else np.zeros((n, 0))
    return X, np.stack(labels, axis=1), sig


# ------------------------------------------------------------------ exact construction
def _frozen_affine(norm: Norm, sigma):
    """``(A, c)`` of the frozen LayerNorm ``x -> gamma (x - mean x) / sigma + beta``, exactly."""
    d = len(norm.gamma)
    g = to_rational_vector(norm.gamma, "LayerNorm weight", d)
    s = to_rational(float(sigma), "sigma")
    inv_d = to_rational(1) / d
    A = tuple(tuple(g[i] * ((1 if i == k else 0) - inv_d) / s for k in range(d)) for i in range(d))
    return A, to_rational_vector(norm.beta, "LayerNorm bias", d)


def _frozen_read(layer_norm_mode, norm, sigma):
    """The frozen LayerNorm as ``(A, c)``, or None where it is dropped or absent."""
    if norm is None or layer_norm_mode == "drop":
        return None
    return _frozen_affine(norm, sigma)


def _frozen_scale(layer_norm_mode, norm, sigma):
    """A frozen pre-norm LayerNorm as ``(w, beta)``: the map ``x -> w * (x - mean x) + beta``, ``w = gamma / sigma``.

    Its matrix is ``diag(w) (I - J/d)``; :func:`_times_frozen` applies it in ``O(d)`` per row
    instead of a ``d x d`` product.  None where the norm is dropped or absent.
    """
    if norm is None or layer_norm_mode == "drop":
        return None
    s = to_rational(float(sigma), "sigma")
    return tuple(g / s for g in float_fractions(norm.gamma, "LayerNorm weight")), \
        float_fractions(norm.beta, "LayerNorm bias")


def _times_frozen(row, w):
    """``row A`` (equally ``A^T row``) for ``A = diag(w) (I - J/d)``: ``row * w - mean(row * w)``, exactly."""
    rw = [r * wi for r, wi in zip(row, w)]
    mean = sum(rw, to_rational(0)) / len(rw)
    return tuple(v - mean for v in rw)


def _pull_head(head, w, c):
    """``head`` read through the frozen LayerNorm ``(w, c)``: keys ``A^T a_j``, offsets ``b_j + a_j . c``."""
    keys = tuple(_times_frozen(a, w) for a in head.keys)
    offsets = tuple(b + sum((ai * ci for ai, ci in zip(a, c)), to_rational(0)) for a, b in zip(head.keys, head.offsets))
    return Head(keys, offsets, head.values, score_scale=head.score_scale)


def _matvec(M, x):
    return tuple(sum((m * xi for m, xi in zip(row, x)), to_rational(0)) for row in M)


def _heads(attn: Attention, Y, with_bias: bool):
    """Exact heads of one attention block on the context inputs ``Y`` (values through ``W_O``).

    The same heads as :meth:`~tropattn.attention.Head.from_weights` (keys ``W_Q^T k_j``,
    offsets ``b_Q . k_j``, values ``W_O (W_V y_j + b_V)``), computed as integer matrix
    products over one power of two (:class:`~tropattn.io._dyadic.Dyadic`); with
    ``with_bias`` head 0's values also carry ``b_O`` (exactly one value per head is picked,
    so the block's output gains ``b_O`` once).
    """
    dv = attn.W_V.shape[1]
    d_k = to_rational(attn.W_Q.shape[1] if attn.d_k is None else attn.d_k, "d_k")
    Yd = Dyadic.of(Y, "the context's attention inputs")
    heads = []
    for h in range(attn.heads):
        K = Yd @ Dyadic.of(attn.W_K[h], "W_K").T + Dyadic.of(attn.b_K[h], "b_K")
        V = (Yd @ Dyadic.of(attn.W_V[h], "W_V").T + Dyadic.of(attn.b_V[h], "b_V")) \
            @ Dyadic.of(attn.W_O[:, h * dv:(h + 1) * dv], "W_O").T
        if with_bias and h == 0:
            V = V + Dyadic.of(attn.b_O, "b_O")
        heads.append(Head((K @ Dyadic.of(attn.W_Q[h], "W_Q")).fractions(),
                          (K @ Dyadic.of(attn.b_Q[h], "b_Q")).fractions(), V.fractions(), d_k=d_k, domain="QQ"))
    return heads


def _scaled_values(head, A, c=None):
    """Values ``A v_j (+ c)`` (a frozen post-norm applied to the attention output)."""
    vals = tuple(_matvec(A, v) for v in head.values)
    if c is not None:
        vals = tuple(tuple(a + b for a, b in zip(v, c)) for v in vals)
    return Head(head.keys, head.offsets, vals, score_scale=head.score_scale)


def build_skeleton(blocks, Ys, layernorm=None, sigmas=None) -> tuple:
    """The exact skeleton: a list of :class:`~tropattn.attention.Layer` on the query's state.

    Parameters
    ----------
    blocks : sequence of Block
        The model.
    Ys : sequence of (N, d) ndarray
        The context's attention inputs per block.
    layernorm : {"drop", "freeze"}, optional
        How LayerNorms enter (dropped or frozen at ``sigmas``).
    sigmas : sequence of float, optional
        Frozen scales per LayerNorm site.

    Returns
    -------
    list of Layer
        Exact layers (floats converted exactly), one per block (plus one for a final post-norm).

    Examples
    --------
    >>> I, z = np.eye(2)[None], np.zeros((1, 2))
    >>> blk = Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))
    >>> layers = build_skeleton([blk], [np.eye(2)])
    >>> len(layers), layers[0].heads[0].keys                         # keys W_Q^T k_j = e_j
    (1, ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1))))
    """
    layers, pending, site = [], None, 0
    for blk, Y in zip(blocks, Ys):
        residual = blk.residual
        if blk.norm_first:
            heads = _heads(blk.attn, Y, True)
            read = _frozen_scale(layernorm, blk.norm1, None if sigmas is None else sigmas[site])
            site += blk.norm1 is not None
            if read is not None:
                heads = [_pull_head(h, *read) for h in heads]
        else:
            post = _frozen_read(layernorm, blk.norm1, None if sigmas is None else sigmas[site])
            site += blk.norm1 is not None
            heads = _heads(blk.attn, Y, post is None)
            if post is not None:
                A, c = post
                bO = to_rational_vector(blk.attn.b_O, "b_O")
                shift = tuple(a + b for a, b in zip(_matvec(A, bO), c))
                heads = [_scaled_values(h, A, shift if i == 0 else None) for i, h in enumerate(heads)]
                residual = A if residual else False
        ffn = None
        if blk.ffn is not None:
            frozen = _frozen_scale if blk.norm_first else _frozen_read
            read = frozen(layernorm, blk.norm2, None if sigmas is None else sigmas[site])
            site += blk.norm2 is not None
            if blk.norm_first and read is not None:
                W1, b1, W2, b2 = (float_fractions(w, name) for w, name in zip(blk.ffn, ("W1", "b1", "W2", "b2")))
                w, c = read
                b1 = tuple(b + s for b, s in zip(b1, _matvec(W1, c)))
                W1 = tuple(_times_frozen(row, w) for row in W1)
                ffn = FFN(W1, b1, W2, b2)
            else:         # the float weights as integers over a power of two: no Fraction per weight
                W1, b1, W2, b2 = blk.ffn
                ffn = FFN.from_integers(*integer_rows(W1, b1, "W1 or b1"), *integer_rows(W2, b2, "W2 or b2"))
        layer = Layer(heads, residual=residual, ffn=ffn)
        if pending is not None:
            layer = precompose_layer(layer, *pending)
        layers.append(layer)
        pending = read if (not blk.norm_first and blk.ffn is not None and read is not None) else None
    if pending is not None:                  # the last post-norm: a one-key head adds c, the skip applies A
        A, c = pending
        d = len(c)
        layers.append(Layer([Head([[0] * d], [0], [c])], residual=A))
    return layers


@dataclass(frozen=True)
class Skeleton(Transformer):
    """The exact skeleton of a real model (a :class:`~tropattn.attention.Transformer` in the query's state).

    Besides ``layers`` it keeps the float ``blocks``, the context's attention inputs ``Ys``
    (from the model's soft forward), the ``layernorm`` option, the frozen ``sigmas``, and,
    for token models, the embeddings (``wte``, ``wpe``) and the context ``ids``.
    """

    blocks: tuple = ()
    Ys: tuple = ()
    layernorm: str = None
    sigmas: tuple = None
    wte: np.ndarray = field(default=None, repr=False, compare=False)
    wpe: np.ndarray = field(default=None, repr=False, compare=False)
    ids: tuple = ()

    def float_path(self, X, layernorm=None, sharpness=None):
        """The query's path in floats (see :func:`query_path`); ``layernorm="true"`` for the real norm.

        Parameters
        ----------
        X : (n, d) array_like
            Query states.
        layernorm : {"drop", "freeze", "true"}, optional
            Default: the skeleton's own option.
        sharpness : float, optional
            Soft attention sharpness; None for hard.

        Returns
        -------
        tuple
            ``(states, labels, sigmas)`` as :func:`query_path`.

        Examples
        --------
        >>> I, z = np.eye(2)[None], np.zeros((1, 2))
        >>> blk = Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))
        >>> sk = make_skeleton([blk], [np.eye(2)], self_key="exclude")
        >>> sk.float_path([[2.0, 1.0]])[0].tolist(), sk.evaluate([2, 1])[0]     # floats agree with the exact path
        ([[3.0, 1.0]], (Fraction(3, 1), Fraction(1, 1)))
        """
        mode = self.layernorm if layernorm is None else layernorm
        return query_path(self.blocks, self.Ys, X, mode or "drop", self.sigmas if mode == "freeze" else None,
                          sharpness)

    def label_agreement(self, x0, directions, box=1.0, resolution=41) -> dict:
        """How often the skeleton's argmax labels equal those with the true LayerNorm, on a slice grid.

        Floats (a measurement, not an exact answer): ``resolution^k`` points of
        ``x0 + U t``, ``t in [-box, box]^k``.  Returns ``{"points", "all_layers", "per_layer"}``
        (fractions of points whose labels agree at every head of all / each layer).

        Parameters
        ----------
        x0 : (d,) array_like
            Slice origin.
        directions : (k, d) array_like
            Slice directions.
        box : float, optional
            Half-width of the parameter box.
        resolution : int, optional
            Grid points per axis.

        Examples
        --------
        >>> I, z = np.eye(2)[None], np.zeros((1, 2))
        >>> sk = make_skeleton([Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))], [np.eye(2)],
        ...                    self_key="exclude")
        >>> sk.label_agreement([0.0, 0.0], [[1.0, 0.0]], resolution=5)   # no LayerNorm: always the same labels
        {'points': 5, 'all_layers': 1.0, 'per_layer': [1.0]}
        """
        X = slice_grid(x0, directions, box, resolution)[1]
        _, mine, _ = self.float_path(X)
        _, true, _ = self.float_path(X, layernorm="true")
        same = mine == true
        return {"points": len(X), "all_layers": float(same.all(axis=(1, 2)).mean()),
                "per_layer": [float(same[:, l].all(axis=1).mean()) for l in range(same.shape[1])]}


def slice_grid(x0, directions, box, resolution):
    """``(T, X)``: a grid ``T`` of ``[-box, box]^k`` and the points ``x0 + U t`` (floats).

    Parameters
    ----------
    x0 : (d,) array_like
        Slice origin.
    directions : (k, d) array_like
        The directions ``U``.
    box : float
        Half-width of the parameter box.
    resolution : int
        Points per axis.

    Returns
    -------
    T : numpy.ndarray
        Shape ``(resolution^k, k)``.
    X : numpy.ndarray
        Shape ``(resolution^k, d)``.

    Examples
    --------
    >>> T, X = slice_grid([0, 0], [[1, 1]], 1.0, 3)
    >>> T.ravel().tolist(), X.tolist()
    ([-1.0, 0.0, 1.0], [[-1.0, -1.0], [0.0, 0.0], [1.0, 1.0]])
    """
    U = np.array(directions, dtype=float, ndmin=2)
    k = len(U)
    axes = [np.linspace(-float(box), float(box), int(resolution))] * k
    T = np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")], axis=1)
    return T, np.asarray(x0, dtype=float) + T @ U


def make_skeleton(blocks, Ys, *, layernorm=None, self_key=None, activation=None, reference=None,
                  self_attention=True, **extra) -> Skeleton:
    """Check the options, freeze the LayerNorms at ``reference`` if asked, build the exact skeleton.

    Parameters
    ----------
    blocks : sequence of Block
        The model.
    Ys : sequence of (N, d) ndarray
        The context's attention inputs per block (:func:`context_forward`).
    layernorm, self_key, activation : str, optional
        See :func:`check_options`.
    reference : (d,) array_like, optional
        The query at which ``layernorm="freeze"`` fixes ``sigma``.
    self_attention : bool, optional
        Whether the query would attend to itself.
    **extra
        Stored on the :class:`Skeleton` (``wte``, ``wpe``, ``ids``).

    Returns
    -------
    Skeleton
        The exact model on the query's state.

    Raises
    ------
    QuadraticWallError
        See :func:`check_options`.
    InvalidInputError
        A bad option, or ``"freeze"`` without a ``reference`` of shape ``(d,)``.

    Examples
    --------
    >>> I, z = np.eye(2)[None], np.zeros((1, 2))
    >>> sk = make_skeleton([Block(Attention(I, z, I, z, I, z, np.eye(2), np.zeros(2)))], [np.eye(2)],
    ...                    self_key="exclude")
    >>> sk.evaluate([2, 1])                             # key 0 wins; x + v_0
    ((Fraction(3, 1), Fraction(1, 1)), (((0,), ()),))
    """
    check_options(blocks, layernorm, self_key, activation, self_attention)
    sigmas = None
    if layernorm == "freeze" and any(b.norm1 is not None or b.norm2 is not None for b in blocks):
        if reference is None:
            raise InvalidInputError("layernorm='freeze' needs a reference query (reference=x_ref, e.g. the slice "
                                    "origin x0): 1/sigma of every LayerNorm is taken there")
        ref = np.asarray(reference, dtype=float)
        if ref.shape != (blocks[0].attn.W_Q.shape[2],):
            raise InvalidInputError(f"reference has shape {ref.shape}; expected ({blocks[0].attn.W_Q.shape[2]},)")
        sigmas = tuple(float(s) for s in query_path(blocks, Ys, ref[None, :], "true")[2][0])
    layers = build_skeleton(blocks, Ys, "drop" if layernorm is None else layernorm, sigmas)
    return Skeleton(tuple(layers), tuple(blocks), tuple(Ys), layernorm, sigmas, **extra)
