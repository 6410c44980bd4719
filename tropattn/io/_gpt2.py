"""GPT-2-style checkpoints (a state dict of numpy arrays, e.g. a ``.safetensors`` file) to exact skeletons.

Names (an optional ``transformer.`` prefix is removed; ``lm_head.weight`` and the causal-mask
buffers ``h.{i}.attn.bias`` / ``h.{i}.attn.masked_bias`` are ignored: the layout that
``transformers``' ``save_pretrained`` writes, with ``lm_head`` tied or not)::

    wte.weight (V, d)   wpe.weight (P, d)   ln_f.weight, ln_f.bias (d,)
    h.{i}.ln_1.weight/bias (d,)        h.{i}.attn.c_attn.weight (d, 3d), .bias (3d,)
    h.{i}.attn.c_proj.weight (d, d)    h.{i}.ln_2.weight/bias (d,)
    h.{i}.mlp.c_fc.weight (d, m)       h.{i}.mlp.c_proj.weight (m, d)   (and their biases)

GPT-2's ``Conv1D`` computes ``x @ W + b``: its weight is the *transpose* of an
``nn.Linear`` weight.  ``c_attn`` splits into ``q, k, v`` along its output columns, and head
``h`` takes columns ``h d/H .. (h+1) d/H`` of each.  Blocks are pre-norm; the activation,
the LayerNorm epsilon and the score scale come from the ``config.json`` beside the weights
(read field by field: :mod:`tropattn.io._gpt2_config`; without one, GPT-2's defaults: GELU
in its tanh form, epsilon ``1e-5``, scores over ``sqrt(head dim)``).  The number of heads is
not in the state dict (pass ``n_head`` or keep a ``config.json``).  A checkpoint is a
``.safetensors`` file, a shard index or a model directory (:mod:`tropattn.io._safetensors`:
F64/F32/F16/BF16 read exactly).  No torch is needed: the context's soft forward runs in numpy.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np

from ..errors import InvalidInputError, ModelFileError
from ._gpt2_config import GPT2Settings, check_shapes, gpt2_settings
from ._safetensors import checkpoint_files, read_checkpoint
from ._skeleton import Attention, Block, Norm, context_forward, make_skeleton

__all__ = ["read_state_dict", "gpt2_blocks", "gpt2_heads", "load_gpt2", "gpt2_context", "read_gpt2"]

_BLOCK_NAMES = ("ln_1.weight", "ln_1.bias", "attn.c_attn.weight", "attn.c_attn.bias", "attn.c_proj.weight",
                "attn.c_proj.bias", "ln_2.weight", "ln_2.bias", "mlp.c_fc.weight", "mlp.c_fc.bias",
                "mlp.c_proj.weight", "mlp.c_proj.bias")
_IGNORED = re.compile(r"^(lm_head\.weight|h\.\d+\.attn\.(masked_)?bias)$")


def read_state_dict(path) -> dict:
    """The arrays of a checkpoint (numpy, float64), with a ModelFileError if unreadable.

    Parameters
    ----------
    path : str or Path
        A ``.safetensors`` file, a ``model.safetensors.index.json`` (sharded) or a model directory.

    Returns
    -------
    dict
        Tensor name -> float64 ndarray (F16 and BF16 widened exactly).

    Raises
    ------
    ModelFileError
        If the file does not exist or is not a ``.safetensors`` file.

    Examples
    --------
    >>> import os, tempfile, pytest
    >>> st = pytest.importorskip("safetensors.numpy")
    >>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> st.save_file({"wte.weight": np.eye(2, dtype=np.float32)}, path)
    >>> {k: (v.dtype.name, v.shape) for k, v in read_state_dict(path).items()}    # widened to float64
    {'wte.weight': ('float64', (2, 2))}
    """
    return read_checkpoint(path)[0]


def read_gpt2(checkpoint, config=None) -> tuple:
    """``(state, config, where)``: a checkpoint's arrays and the ``config.json`` that goes with them.

    Parameters
    ----------
    checkpoint : str, Path or dict
        A ``.safetensors`` file, a shard index, a model directory, or a state dict of arrays.
    config : dict, optional
        A config to use instead of the ``config.json`` beside the file.

    Returns
    -------
    tuple
        The state dict (float64 arrays), the config dict (or None) and the config's name for messages.

    Examples
    --------
    >>> state, config, where = read_gpt2({"wte.weight": [[1.0]]}, {"n_head": 1})
    >>> state["wte.weight"].dtype.name, config, where
    ('float64', {'n_head': 1}, 'config')
    """
    if isinstance(checkpoint, dict):
        return {k: np.asarray(v, dtype=np.float64) for k, v in checkpoint.items()}, config, "config"
    state, found = read_checkpoint(checkpoint)
    cfg = checkpoint_files(checkpoint)[1]
    if config is not None:
        return state, config, "config"
    return state, found, str(cfg) if cfg is not None else "config.json"


def gpt2_heads(path, n_head=None) -> int:
    """``n_head`` if given, else ``n_head`` from ``config.json`` beside ``path``; else an error.

    Parameters
    ----------
    path : str, Path or None
        The checkpoint file (its directory may hold ``config.json``).
    n_head : int, optional
        The number of heads, if known.

    Returns
    -------
    int
        Heads per block.

    Raises
    ------
    InvalidInputError
        If ``n_head`` is None and no readable ``config.json`` gives it.

    Examples
    --------
    >>> import json, os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "config.json"), "w") as fh:
    ...     json.dump({"n_head": 12}, fh)
    >>> gpt2_heads(os.path.join(folder, "model.safetensors")), gpt2_heads(None, n_head=2)
    (12, 2)
    """
    if n_head is not None:
        return int(n_head)
    if path is not None:
        cfg = Path(path) / "config.json" if Path(path).is_dir() else Path(path).with_name("config.json")
        if cfg.is_file():
            try:
                return int(json.loads(cfg.read_text())["n_head"])
            except (KeyError, ValueError, TypeError):
                pass
    raise InvalidInputError("the number of heads is not stored in a GPT-2 state dict; pass n_head (CLI: --heads N) "
                            "or put a config.json with \"n_head\" next to the checkpoint")


def _check_names(state):
    state = {k[len("transformer."):] if k.startswith("transformer.") else k: v for k, v in state.items()}
    layers = sorted({int(m.group(1)) for k in state if (m := re.match(r"^h\.(\d+)\.", k))})
    if not layers:
        raise ModelFileError("no block found (names h.0.ln_1.weight, ...); is this a GPT-2-style state dict?")
    n_layer = layers[-1] + 1
    expected = {"wte.weight", "wpe.weight", "ln_f.weight", "ln_f.bias"}
    expected |= {f"h.{i}.{n}" for i in range(n_layer) for n in _BLOCK_NAMES}
    missing = sorted(expected - set(state))
    extra = sorted(k for k in set(state) - expected if not _IGNORED.match(k))
    if missing:
        raise ModelFileError(f"missing tensor(s) {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}; a "
                             "GPT-2 state dict needs wte, wpe, ln_f and h.{i}.ln_1, attn.c_attn, attn.c_proj, ln_2, "
                             "mlp.c_fc, mlp.c_proj for every block")
    if extra:
        raise ModelFileError(f"unexpected tensor(s) {', '.join(extra[:6])}{' ...' if len(extra) > 6 else ''}; this "
                             "is not a GPT-2-style state dict (or remove those entries)")
    return state, n_layer


def _shape(state, name, shape):
    a = state[name]
    if a.shape != shape:
        raise ModelFileError(f"tensor {name} has shape {tuple(a.shape)}; expected {shape} (GPT-2 Conv1D weights are "
                             "(in, out), the transpose of nn.Linear)")
    return a


def gpt2_blocks(state, n_head: int, eps: float = 1e-5, settings: GPT2Settings = None, where="config.json") -> tuple:
    """``(blocks, wte, wpe)`` of a GPT-2 state dict (names and shapes checked).

    Parameters
    ----------
    state : dict
        Tensor name -> ndarray (GPT-2 names, optional ``transformer.`` prefix).
    n_head : int
        Heads per block; must divide ``d_model``.
    eps : float, optional
        LayerNorm epsilon (default 1e-5).
    settings : GPT2Settings, optional
        A config's settings (:func:`~tropattn.io._gpt2_config.gpt2_settings`); they override
        ``n_head`` and ``eps``, give the activation and score scale, and are checked against
        the tensors' sizes.
    where : str, optional
        The config's name in messages.

    Returns
    -------
    blocks : tuple of Block
        Pre-norm blocks in ``nn.Linear`` orientation (GELU-tanh unless ``settings`` say otherwise).
    wte : numpy.ndarray
        Token embeddings, shape ``(V, d)``.
    wpe : numpy.ndarray
        Position embeddings, shape ``(P, d)``.

    Raises
    ------
    ModelFileError
        If tensors are missing, unexpected or of the wrong shape, or disagree with ``settings``.
    InvalidInputError
        If ``n_head`` does not divide ``d_model``.

    Examples
    --------
    >>> rng, d = np.random.default_rng(0), 4
    >>> shapes = {"ln_1.weight": (d,), "ln_1.bias": (d,), "attn.c_attn.weight": (d, 3 * d), "attn.c_attn.bias": (3 * d,),
    ...           "attn.c_proj.weight": (d, d), "attn.c_proj.bias": (d,), "ln_2.weight": (d,), "ln_2.bias": (d,),
    ...           "mlp.c_fc.weight": (d, 6), "mlp.c_fc.bias": (6,), "mlp.c_proj.weight": (6, d), "mlp.c_proj.bias": (d,)}
    >>> state = {f"h.0.{k}": rng.normal(size=s) for k, s in shapes.items()}
    >>> state.update({"wte.weight": rng.normal(size=(5, d)), "wpe.weight": rng.normal(size=(8, d)),
    ...               "ln_f.weight": np.ones(d), "ln_f.bias": np.zeros(d)})
    >>> blocks, wte, wpe = gpt2_blocks(state, n_head=2)
    >>> len(blocks), blocks[0].attn.W_Q.shape                  # (heads, head dim, d): Conv1D transposed
    (1, (2, 2, 4))
    """
    settings = settings or GPT2Settings(int(n_head), eps)
    n_head = settings.n_head
    state, n_layer = _check_names(state)
    wte = state["wte.weight"]
    if wte.ndim != 2:
        raise ModelFileError(f"tensor wte.weight has shape {tuple(wte.shape)}; expected (vocabulary, d)")
    d = wte.shape[1]
    wpe = _shape(state, "wpe.weight", (state["wpe.weight"].shape[0], d))
    if n_head < 1 or d % n_head:
        raise InvalidInputError(f"n_head = {n_head} does not divide d_model = {d}; pass the model's number of heads")
    hd = d // n_head
    widths = {state[f"h.{i}.mlp.c_fc.weight"].shape[-1] for i in range(n_layer)}
    check_shapes(settings, d=d, n_layer=n_layer, inner=max(widths), positions=len(wpe), vocab=len(wte), where=where)
    blocks = []
    for i in range(n_layer):
        def get(name, shape):
            return _shape(state, f"h.{i}.{name}", shape)
        m = state[f"h.{i}.mlp.c_fc.weight"].shape[-1]
        W = get("attn.c_attn.weight", (d, 3 * d)).T          # nn.Linear orientation (3d, d)
        b = get("attn.c_attn.bias", (3 * d,))
        heads = [(W[s * d:(s + 1) * d].reshape(n_head, hd, d), b[s * d:(s + 1) * d].reshape(n_head, hd))
                 for s in range(3)]
        attn = Attention(heads[0][0], heads[0][1], heads[1][0], heads[1][1], heads[2][0], heads[2][1],
                         get("attn.c_proj.weight", (d, d)).T, get("attn.c_proj.bias", (d,)), settings.score_dk(hd, i))
        ffn = (get("mlp.c_fc.weight", (d, m)).T, get("mlp.c_fc.bias", (m,)), get("mlp.c_proj.weight", (m, d)).T,
               get("mlp.c_proj.bias", (d,)))
        norms = [Norm(get(f"ln_{k}.weight", (d,)), get(f"ln_{k}.bias", (d,)), settings.eps) for k in (1, 2)]
        blocks.append(Block(attn, norms[0], norms[1], ffn, settings.activation, True))
    return tuple(blocks), wte, wpe


def gpt2_context(wte, wpe, ids) -> np.ndarray:
    """Input states ``wte[id_i] + wpe[i]`` of the context tokens (floats).

    Parameters
    ----------
    wte : (V, d) ndarray
        Token embeddings.
    wpe : (P, d) ndarray
        Position embeddings.
    ids : sequence of int
        The context token ids (non-empty, fewer than ``P``: the query takes the next position).

    Returns
    -------
    numpy.ndarray
        Shape ``(len(ids), d)``.

    Raises
    ------
    InvalidInputError
        If the context is empty, an id is outside the vocabulary, or it is too long for ``wpe``.

    Examples
    --------
    >>> gpt2_context(np.eye(3), 10 * np.eye(3), [2, 0]).tolist()     # wte[2] + wpe[0], wte[0] + wpe[1]
    [[10.0, 0.0, 1.0], [1.0, 10.0, 0.0]]
    """
    ids = [int(i) for i in ids]
    if not ids:
        raise InvalidInputError("the context is empty; give at least one token id")
    bad = [i for i in ids if not 0 <= i < len(wte)]
    if bad:
        raise InvalidInputError(f"token id(s) {bad} outside the vocabulary 0..{len(wte) - 1}")
    if len(ids) >= len(wpe):
        raise InvalidInputError(f"a context of {len(ids)} tokens plus the query exceeds the {len(wpe)} positions "
                                "of wpe; use a shorter context")
    return wte[ids] + wpe[np.arange(len(ids))]


def load_gpt2(checkpoint, context_ids, *, n_head=None, layernorm=None, self_key=None, activation=None,
              reference=None, eps=None, config=None):
    """The exact skeleton of a GPT-2-style checkpoint with a fixed context of token ids.

    Parameters
    ----------
    checkpoint : str, Path or dict
        A ``.safetensors`` file, a ``model.safetensors.index.json`` of shards, a model
        directory (``config.json`` with ``model.safetensors`` or the shards: what
        ``save_pretrained`` writes), or a state dict of arrays.
    context_ids : sequence of int
        The context; the query is a token appended at the next position ``len(context_ids)``.
    n_head : int, optional
        Heads per block (else read from ``config.json``).
    layernorm, self_key, activation, reference
        As in :func:`tropattn.io._torch_modules.from_torch`; GPT-2 needs ``self_key="exclude"``,
        a ``layernorm`` option and, unless its config says ``"relu"``, ``activation="relu"``.
    eps : float, optional
        LayerNorm epsilon, overriding the config's ``layer_norm_epsilon``.
    config : dict, optional
        A ``config.json`` as a dict, instead of the file beside the checkpoint (for a state dict:
        without it GPT-2's defaults hold).

    Returns
    -------
    Skeleton
        On the query's ``d``-dimensional residual state (before ``ln_f``), with ``wte``,
        ``wpe`` and ``ids`` for token slices (:func:`tropattn.attention._slicing.token_points`).

    Raises
    ------
    ModelFileError
        If the checkpoint cannot be read, is not GPT-2-shaped, or its config asks for what the
        skeleton cannot follow (the message names the field).
    InvalidInputError
        If ``n_head`` is unknown or wrong, the context is bad, or an option is missing or invalid.

    Examples
    --------
    >>> rng, d = np.random.default_rng(0), 4
    >>> shapes = {"ln_1.weight": (d,), "ln_1.bias": (d,), "attn.c_attn.weight": (d, 3 * d), "attn.c_attn.bias": (3 * d,),
    ...           "attn.c_proj.weight": (d, d), "attn.c_proj.bias": (d,), "ln_2.weight": (d,), "ln_2.bias": (d,),
    ...           "mlp.c_fc.weight": (d, 6), "mlp.c_fc.bias": (6,), "mlp.c_proj.weight": (6, d), "mlp.c_proj.bias": (d,)}
    >>> state = {f"h.0.{k}": rng.normal(size=s) for k, s in shapes.items()}
    >>> state.update({"wte.weight": rng.normal(size=(5, d)), "wpe.weight": rng.normal(size=(8, d)),
    ...               "ln_f.weight": np.ones(d), "ln_f.bias": np.zeros(d)})
    >>> sk = load_gpt2(state, [1, 2, 3], n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    >>> sk.dim, len(sk.layers), sk.ids                  # exact on the 4-dimensional residual of the query
    (4, 1, (1, 2, 3))
    """
    state, config, where = read_gpt2(checkpoint, config)
    settings = gpt2_settings(config, n_head, where)
    if eps is not None:
        settings = dataclasses.replace(settings, eps=float(eps))
    blocks, wte, wpe = gpt2_blocks(state, settings.n_head, settings=settings, where=where)
    ids = tuple(int(i) for i in context_ids)
    E = gpt2_context(wte, wpe, ids)
    Ys = context_forward(blocks, E)
    return make_skeleton(blocks, Ys, layernorm=layernorm, self_key=self_key, activation=activation,
                         reference=reference, wte=wte, wpe=wpe, ids=ids)
