"""PyTorch modules to exact skeletons: ``nn.MultiheadAttention``, ``nn.TransformerEncoderLayer``, ``nn.TransformerEncoder``.

torch is imported on first use (an optional extra: ``pip install -e ".[torch]"``).

Weight layout (PyTorch): ``in_proj_weight`` is ``[W_q; W_k; W_v]`` stacked, shape
``(3E, E)`` (or ``q_proj_weight``, ``k_proj_weight``, ``v_proj_weight`` when ``kdim`` or
``vdim`` differ from ``E``), ``in_proj_bias`` ``(3E,)``, ``out_proj`` an ``nn.Linear(E, E)``;
head ``h`` uses rows ``h E/H .. (h+1) E/H`` of each projection and scores are divided by
``sqrt(E/H)``.  The module is read as **causal** with the query last: the context tokens
attend to themselves and earlier tokens (computed with torch's own layers, soft), the
query attends to every context token (not to itself: ``self_key="exclude"``).
"""

from __future__ import annotations

import copy

import numpy as np

from .._lazy import lazy_import
from ..errors import InvalidInputError
from ._skeleton import Attention, Block, Norm, check_options, make_skeleton

__all__ = ["from_torch", "torch_blocks"]

torch = lazy_import("torch", extra="torch")
nn = lazy_import("torch.nn", extra="torch")
F = lazy_import("torch.nn.functional", extra="torch")


def _np(t):
    return None if t is None else t.detach().cpu().double().numpy()


def _mha_attention(mha) -> Attention:
    if getattr(mha, "bias_k", None) is not None or getattr(mha, "bias_v", None) is not None:
        raise InvalidInputError("nn.MultiheadAttention with add_bias_kv=True adds a learned key; rebuild it with "
                                "add_bias_kv=False (not supported)")
    if getattr(mha, "add_zero_attn", False):
        raise InvalidInputError("nn.MultiheadAttention with add_zero_attn=True adds a zero key; not supported")
    E, H = mha.embed_dim, mha.num_heads
    hd = E // H
    if mha.in_proj_weight is not None:
        W = _np(mha.in_proj_weight)
        Wq, Wk, Wv = W[:E], W[E:2 * E], W[2 * E:]
    else:
        Wq, Wk, Wv = _np(mha.q_proj_weight), _np(mha.k_proj_weight), _np(mha.v_proj_weight)
    b = _np(mha.in_proj_bias)
    b = np.zeros(3 * E) if b is None else b
    WO = _np(mha.out_proj.weight)
    bO = _np(mha.out_proj.bias)
    bO = np.zeros(E) if bO is None else bO

    def split(M, v):
        return M.reshape(H, hd, M.shape[1]), v.reshape(H, hd)

    (WQ, bQ), (WK, bK), (WV, bV) = split(Wq, b[:E]), split(Wk, b[E:2 * E]), split(Wv, b[2 * E:])
    return Attention(WQ, bQ, WK, bK, WV, bV, WO, bO)


def _norm(ln):
    if ln is None or isinstance(ln, nn.Identity):
        return None
    if not isinstance(ln, nn.LayerNorm):
        raise InvalidInputError(f"a {type(ln).__name__} in place of a LayerNorm is not supported; use nn.LayerNorm "
                                "or nn.Identity")
    d = ln.normalized_shape[0]
    g = _np(ln.weight) if ln.weight is not None else np.ones(d)
    bt = _np(ln.bias) if getattr(ln, "bias", None) is not None else np.zeros(d)
    return Norm(g, bt, float(ln.eps))


def _activation(layer):
    act = layer.activation
    if act is F.relu or isinstance(act, nn.ReLU):
        return "relu"
    if act is F.gelu or isinstance(act, nn.GELU) and getattr(act, "approximate", "none") == "none":
        return "gelu"
    if isinstance(act, nn.GELU):
        return "gelu_tanh"
    raise InvalidInputError(f"the activation {act!r} is not supported; use ReLU (or GELU with activation='relu')")


def _bias(linear):
    """The bias of an ``nn.Linear``, zeros when it was built with ``bias=False``."""
    b = _np(linear.bias)
    return np.zeros(linear.out_features) if b is None else b


def _encoder_block(layer) -> Block:
    ffn = (_np(layer.linear1.weight), _bias(layer.linear1), _np(layer.linear2.weight), _bias(layer.linear2))
    return Block(_mha_attention(layer.self_attn), _norm(layer.norm1), _norm(layer.norm2), ffn,
                 _activation(layer), bool(layer.norm_first))


def torch_blocks(module) -> tuple:
    """``(blocks, layers, self_attention)`` of a supported module (see :func:`from_torch`).

    Parameters
    ----------
    module : nn.MultiheadAttention, nn.TransformerEncoderLayer or nn.TransformerEncoder
        The PyTorch module.

    Returns
    -------
    blocks : tuple of Block
        Its weights as float blocks (nn.Linear orientation).
    layers : list or None
        The encoder layers (for the context's torch forward), None for a bare attention module.
    self_attention : bool
        Whether the query also attends to itself (encoder layers).

    Raises
    ------
    InvalidInputError
        If the module is of another type.

    Examples
    --------
    >>> import pytest; torch = pytest.importorskip("torch")
    >>> blocks, layers, self_attention = torch_blocks(torch.nn.MultiheadAttention(4, 2))
    >>> len(blocks), layers, self_attention, blocks[0].attn.W_Q.shape    # 2 heads of size 2 reading d = 4
    (1, None, False, (2, 2, 4))
    """
    if isinstance(module, nn.MultiheadAttention):
        return (Block(_mha_attention(module), residual=False),), None, False
    if isinstance(module, nn.TransformerEncoderLayer):
        return (_encoder_block(module),), [module], True
    if isinstance(module, nn.TransformerEncoder):
        layers = list(module.layers)
        return tuple(_encoder_block(layer) for layer in layers), layers, True
    raise InvalidInputError(f"from_torch does not know a {type(module).__name__}; give an nn.MultiheadAttention, "
                            "nn.TransformerEncoderLayer or nn.TransformerEncoder (for a GPT-2 checkpoint use "
                            "tropattn.io.load_gpt2)")


def _context_inputs(layers, C):
    """Attention inputs of every encoder layer for the context, by torch's own causal soft forward."""
    Ys = []
    X = torch.as_tensor(C, dtype=torch.float64)
    n = X.shape[0]
    mask = torch.triu(torch.full((n, n), float("-inf"), dtype=torch.float64), 1)
    for layer in layers:
        Z = layer.norm1(X) if layer.norm_first else X
        Ys.append(Z.detach().numpy().copy())
        batched = X[None] if layer.self_attn.batch_first else X[:, None]
        out = layer(batched, src_mask=mask)
        X = out[0] if layer.self_attn.batch_first else out[:, 0]
    return Ys


def from_torch(module, context, *, layernorm=None, self_key=None, activation=None, reference=None):
    """The exact zero-temperature skeleton of a PyTorch module with a fixed causal context.

    Parameters
    ----------
    module : nn.MultiheadAttention, nn.TransformerEncoderLayer or nn.TransformerEncoder
        ``batch_first`` either way, ``norm_first`` either way.  ``TransformerEncoder.norm``
        (a final norm) is not part of the skeleton.
    context : (N, d) array
        The context tokens' input states (for nn.MultiheadAttention: its keys and values).
    layernorm : {"drop", "freeze"}, optional
        Required if the module has a LayerNorm (see :mod:`tropattn.io._skeleton`).
    self_key : {"exclude"}, optional
        Required for self-attention modules (the query's own key is masked).
    activation : {"relu"}, optional
        Required for a GELU FFN (the query path then uses ReLU).
    reference : (d,) array, optional
        The reference query of ``layernorm="freeze"``.

    Returns
    -------
    Skeleton
        A :class:`~tropattn.attention.Transformer` on the query's ``d``-dimensional state;
        slice it with :func:`tropattn.attention._slicing.slice_model`.

    Raises
    ------
    InvalidInputError
        An unknown module, a LayerNorm or GELU without its option, a context of the wrong shape.
    QuadraticWallError
        A self-attention module without ``self_key="exclude"``.

    Examples
    --------
    >>> import pytest; torch = pytest.importorskip("torch")
    >>> _ = torch.manual_seed(0)
    >>> enc = torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=8, dropout=0.0)
    >>> sk = from_torch(enc, np.random.default_rng(0).normal(size=(3, 4)), layernorm="drop", self_key="exclude")
    >>> sk.dim, len(sk.layers[0].heads), sk.layers[0].heads[0].N     # 2 heads over the 3 context tokens
    (4, 2, 3)
    """
    blocks, layers, self_attention = torch_blocks(module)
    C = np.asarray(context, dtype=float)
    d_in = blocks[0].attn.W_K.shape[2]
    if C.ndim != 2 or C.shape[1] != d_in or len(C) == 0:
        raise InvalidInputError(f"context has shape {C.shape}; expected (N, {d_in}) with N >= 1 (one row per "
                                "context token)")
    check_options(blocks, layernorm, self_key, activation, self_attention)
    if layers is not None:
        layers = [copy.deepcopy(layer).double().eval() for layer in layers]   # float64, no dropout
        fast = torch.backends.mha.get_fastpath_enabled()
        torch.backends.mha.set_fastpath_enabled(False)   # the plain path (the fused one needs real LayerNorms)
        try:
            with torch.no_grad():
                Ys = _context_inputs(layers, C)
        finally:
            torch.backends.mha.set_fastpath_enabled(fast)
    else:
        Ys = [C]
    return make_skeleton(blocks, Ys, layernorm=layernorm, self_key=self_key, activation=activation,
                         reference=reference, self_attention=self_attention)
