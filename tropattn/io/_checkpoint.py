"""A GPT-2-style checkpoint on a slice of its query space: the exact low-dimensional model to count and draw.

A checkpoint's query lives in ``R^768`` (``R^64`` for small models): its regions are
counted on an affine slice ``x = x0 + t_1 u_1 + ... + t_k u_k``, most naturally the plane
through the embeddings of three tokens put at the query's position (``t = 0`` is the first,
``t = e_1`` the second, ...).  :func:`slice_checkpoint` reads the checkpoint once, builds
the slice, freezes LayerNorms at its origin when asked (``layernorm="freeze"``) and returns
the sliced exact model with the skeleton it came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..attention import Transformer, slice_model, slice_through, token_points
from ..errors import InvalidInputError
from ._gpt2 import load_gpt2, read_gpt2
from ._skeleton import Skeleton

__all__ = ["CheckpointSlice", "slice_checkpoint"]


@dataclass(frozen=True)
class CheckpointSlice:
    """A checkpoint on a slice: ``model`` (exact, in the slice coordinates ``t``), the full ``skeleton``,
    and the slice ``x0`` (a point) and ``directions`` (rows) in the query's residual space."""

    model: Transformer
    skeleton: Skeleton
    x0: tuple
    directions: tuple


def slice_checkpoint(checkpoint, context, *, tokens=None, x0=None, directions=None, n_head=None, layernorm=None,
                     self_key=None, activation=None, config=None) -> CheckpointSlice:
    """The exact model of a GPT-2-style checkpoint with a fixed context, on a slice of the query's state.

    Parameters
    ----------
    checkpoint : str, Path or dict
        A ``.safetensors`` file, a shard index, a model directory or a state dict of arrays
        (GPT-2 names).
    context : sequence of int
        The context token ids; the query is a token appended at the next position ``len(context)``.
    tokens : sequence of int, optional
        The slice through these tokens' embeddings at the query's position (``k + 1`` tokens
        give a ``k``-dimensional slice; three give a plane).
    x0, directions : array_like, optional
        Or the slice itself: its origin ``(d,)`` and its directions ``(k, d)``.
    n_head, layernorm, self_key, activation, config
        As in :func:`~tropattn.io.load_gpt2` (``layernorm="freeze"`` freezes at ``x0``).  ``x0`` and
        ``directions`` live in the query's residual space: token embedding plus position embedding.

    Returns
    -------
    CheckpointSlice
        ``model`` (a ``k``-dimensional :class:`~tropattn.attention.Transformer`), ``skeleton``,
        ``x0`` and ``directions`` (exact).

    Raises
    ------
    InvalidInputError
        Neither ``tokens`` nor ``x0`` and ``directions`` (or both), a state dict without token
        embeddings for ``tokens``, a bad context or option.
    ModelFileError
        An unreadable or malformed checkpoint.

    Examples
    --------
    >>> import numpy as np
    >>> rng, d, m = np.random.default_rng(0), 4, 6                  # a one-block GPT-2 with d_model = 4
    >>> linear = {"attn.c_attn": (d, 3 * d), "attn.c_proj": (d, d), "mlp.c_fc": (d, m), "mlp.c_proj": (m, d)}
    >>> state = {f"h.0.{name}.{part}": rng.normal(size=shape if part == "weight" else shape[1:])
    ...          for name, shape in linear.items() for part in ("weight", "bias")}
    >>> state |= {f"{norm}.{part}": np.ones(d) for norm in ("h.0.ln_1", "h.0.ln_2", "ln_f") for part in ("weight", "bias")}
    >>> state |= {"wte.weight": rng.normal(size=(5, d)), "wpe.weight": rng.normal(size=(8, d))}
    >>> cut = slice_checkpoint(state, [1, 2, 3], tokens=[0, 1, 4], n_head=2, layernorm="drop", self_key="exclude",
    ...                        activation="relu")
    >>> cut.model.dim, cut.skeleton.dim                # the plane through three tokens, in R^4
    (2, 4)
    """
    if (tokens is None) == (x0 is None and directions is None):
        raise InvalidInputError("give the slice as tokens=[ids] (the plane through their embeddings) or as x0 and "
                                "directions, one of the two")
    state, config, _ = read_gpt2(checkpoint, config)
    ids = [int(i) for i in context]
    if tokens is not None:
        plain = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in state.items()}
        wte, wpe = plain.get("wte.weight"), plain.get("wpe.weight")
        if wte is None or wpe is None:
            raise InvalidInputError("a slice through tokens needs the token and position embeddings (wte.weight, "
                                    "wpe.weight); give x0 and directions instead")
        x0, directions = slice_through(token_points(wte, wpe, [int(t) for t in tokens], len(ids)))
    elif x0 is None or directions is None:
        raise InvalidInputError("a slice needs both x0 (its origin) and directions (its rows)")
    skeleton = load_gpt2(state, ids, n_head=n_head, layernorm=layernorm, self_key=self_key, activation=activation,
                         reference=[float(v) for v in x0], config=config)
    model = slice_model(skeleton, x0, directions)
    return CheckpointSlice(model, skeleton, tuple(x0), tuple(tuple(u) for u in directions))
