"""Checkpoint arguments shared by ``count`` and ``diagram``: a GPT-2-style ``.safetensors`` file, its
context and a slice (or a model file, optionally sliced).

    tropattn count model.safetensors --heads 2 --context "3,1,4" --slice tokens:0,1,2 \\
        --layernorm drop --self-key exclude --activation relu

The query is a token *appended* at position ``N = len(context)``; ``--slice tokens:A,B,C`` is
the plane through ``wte[A] + wpe[N]``, ``wte[B] + wpe[N]``, ``wte[C] + wpe[N]`` (``t = 0`` is
A, ``t = e_1`` is B, ...); ``--slice FILE.json`` reads ``{"x0": [...], "directions": [[...],
...]}`` in the same token-plus-position space.  The state counted is the residual stream before
``ln_f``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..attention import slice_model
from ..errors import InvalidInputError
from ..io import is_checkpoint_path, load, slice_checkpoint
from ..plot import plot_slice
from ._common import parse_pair

__all__ = ["add_checkpoint_arguments", "model_from_args", "is_checkpoint", "draw_slice", "slice_marks"]


def add_checkpoint_arguments(parser):
    """The options of a checkpoint + slice (ignored for a model file unless ``--slice`` is given).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A sub-command's parser (``count``, ``diagram``, ...).

    Returns
    -------
    None

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(); add_checkpoint_arguments(p)
    >>> a = p.parse_args(["--context", "3,1,4", "--slice", "tokens:0,1,2", "--layernorm", "freeze"])
    >>> a.context, a.slice, a.layernorm, a.self_key
    ('3,1,4', 'tokens:0,1,2', 'freeze', None)
    """
    g = parser.add_argument_group(
        "real checkpoints (GPT-2: a .safetensors file, its shard index or a model directory)",
        "What is computed: the context's states come from the model's own soft forward (config.json\n"
        "honoured: activation, epsilon, score scale); the query is a token APPENDED at position\n"
        "N = len(context) (not the last context token); its path is the exact skeleton, and the state\n"
        "counted is the residual stream before ln_f (ln_f lies outside the skeleton; it changes no\n"
        "region).  In the Python API an nn.TransformerEncoder is read the same way, as causal.")
    g.add_argument("--context", help="the context token ids, e.g. '3,1,4', or a file holding them; the query is "
                   "a token appended after them, at position N = their number (no default: required for a checkpoint)")
    g.add_argument("--slice", help="tokens:A,B,C: the plane through wte[A] + wpe[N], wte[B] + wpe[N], wte[C] + "
                   "wpe[N] (t = 0 is A, t = e1 is B, t = e2 is C); or a JSON file {\"x0\": [...], \"directions\": "
                   "[[...], ...]} in the same token-plus-position space (d = n_embd entries each) (no default: required for a "
                   "checkpoint)")
    g.add_argument("--heads", type=int, help="heads per block (default: n_head of config.json)")
    g.add_argument("--layernorm", choices=("drop", "freeze"), help="drop LayerNorm from the query's path, or "
                   "freeze 1/sigma at the slice origin (the context keeps the real LayerNorm) (no default: required for a "
                   "checkpoint with LayerNorm)")
    g.add_argument("--self-key", choices=("exclude",), help="mask the query's own key (its score is quadratic): "
                   "required for a checkpoint (no default)")
    g.add_argument("--activation", choices=("relu",), help="analyse a GELU model with ReLU on the query path "
                   "(default: the activation of config.json)")


def is_checkpoint(args) -> bool:
    """Whether ``args.model`` names a checkpoint (``.safetensors``, a shard index, a model directory), not a model file.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments with ``model``.

    Returns
    -------
    bool
        True for a ``.safetensors`` path.

    Examples
    --------
    >>> import argparse
    >>> is_checkpoint(argparse.Namespace(model="gpt2.safetensors")), is_checkpoint(argparse.Namespace(model="m.json"))
    (True, False)
    """
    return is_checkpoint_path(args.model)


def _context_ids(text):
    if text is None:
        raise InvalidInputError("a checkpoint needs --context: token ids such as '3,1,4' or a file holding them")
    if Path(text).is_file():
        text = Path(text).read_text()
    parts = text.replace(",", " ").split()
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise InvalidInputError(f"--context must be integer token ids such as '3,1,4' (or a file of them); got "
                                f"{text[:40]!r}") from None


def _slice_spec(text) -> dict:
    """``--slice``: ``tokens:A,B,C`` as ``{"tokens": [A, B, C]}``, a file as ``{"x0": ..., "directions": ...}``."""
    if text.startswith("tokens:"):
        try:
            return {"tokens": [int(v) for v in text[len("tokens:"):].split(",")]}
        except ValueError:
            raise InvalidInputError(f"--slice tokens: takes token ids such as tokens:0,1,2; got {text!r}") from None
    x0, directions = load(text, kind="slice")
    return {"x0": x0, "directions": directions}


def model_from_args(args):
    """The model a sub-command works on: a model file (optionally sliced) or a checkpoint on a slice.

    With ``--layernorm freeze`` the slice origin is the reference point, and the agreement of the
    frozen labels with the true-LayerNorm labels on the slice box is printed to stderr.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments: ``model`` and the options of :func:`add_checkpoint_arguments`.

    Returns
    -------
    Transformer
        The exact model (a slice of a :class:`~tropattn.io.Skeleton` for a checkpoint).

    Raises
    ------
    InvalidInputError
        A checkpoint without ``--slice`` or ``--context``, bad ids, or a bad slice file.
    ModelFileError
        An unreadable model file or checkpoint.

    Examples
    --------
    >>> import argparse, os, tempfile
    >>> from tropattn.attention import sawtooth_model
    >>> from tropattn.io import save
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> save(sawtooth_model(1, 3, 2), path)
    >>> model_from_args(argparse.Namespace(model=path, slice=None)) == sawtooth_model(1, 3, 2)
    True
    """
    if not is_checkpoint(args):
        model = load(args.model, kind="model", ties=getattr(args, "ties", None))
        if args.slice is None:
            return model
        spec = _slice_spec(args.slice)
        if "tokens" in spec:
            raise InvalidInputError("--slice tokens:... needs a checkpoint with token embeddings; give a JSON file "
                                    "with x0 and directions instead")
        return slice_model(model, spec["x0"], spec["directions"])
    if args.slice is None:
        raise InvalidInputError("a checkpoint has d = 64...768 query coordinates: give --slice tokens:A,B,C (the plane "
                                "through three tokens) or --slice FILE.json to count on a slice")
    ids = _context_ids(args.context)
    cut = slice_checkpoint(args.model, ids, n_head=args.heads, layernorm=args.layernorm, self_key=args.self_key,
                           activation=args.activation, **_slice_spec(args.slice))
    if args.layernorm == "freeze":
        box = parse_pair(args.box, "--box")[1] if getattr(args, "box", None) else 1
        agree = cut.skeleton.label_agreement([float(v) for v in cut.x0], [[float(v) for v in u] for u in cut.directions],
                                             box=box)
        print(f"layernorm=freeze: the frozen labels equal the true-LayerNorm labels at "
              f"{100 * agree['all_layers']:.1f}% of {agree['points']} grid points of the slice box "
              f"(per layer: {', '.join(f'{100 * a:.1f}%' for a in agree['per_layer'])})", file=sys.stderr)
    return cut.model


def draw_slice(model, args) -> str:
    """``tropattn diagram`` of a checkpoint slice: the exact regions, labelled by attended context tokens.

    Parameters
    ----------
    model : Transformer
        A 2-D model (a checkpoint sliced by :func:`model_from_args`).
    args : argparse.Namespace
        ``box`` (``"LO,HI"`` or None for ``[-1, 1]``), ``context`` (the token ids) and ``output``.

    Returns
    -------
    str
        ``"wrote PATH"``.

    Raises
    ------
    InvalidInputError
        A bad box or context, or an unwritable output.

    Examples
    --------
    >>> import argparse, os, tempfile
    >>> from tropattn.attention import grid_model
    >>> out = os.path.join(tempfile.mkdtemp(), "slice.png")
    >>> draw_slice(grid_model(2, 2, 2), argparse.Namespace(box=None, context="0,1", output=out)) == f"wrote {out}"
    True
    """
    box = parse_pair(args.box, "--box") if args.box else (-1, 1)
    ids = _context_ids(args.context)
    names = [f"{i}:{t}" for i, t in enumerate(ids)]
    marks, axes = slice_marks(getattr(args, "slice", None), len(ids))
    path = plot_slice(model, box, args.output, names=names, axis_names=axes, marks=marks)
    return f"wrote {path}"


def slice_marks(spec, position) -> tuple:
    """``(marks, axis names)`` of a ``--slice`` for the picture: its tokens at ``t = 0, e_1, e_2`` and its axes.

    Parameters
    ----------
    spec : str or None
        The ``--slice`` argument (``tokens:A,B,C`` or a file).
    position : int
        The query's position (the context length).

    Returns
    -------
    marks : list of (tuple, str)
        The three tokens of a ``tokens:`` slice (none for a file).
    axes : tuple of str
        The names of ``t1`` and ``t2``.

    Examples
    --------
    >>> marks, axes = slice_marks("tokens:5,0,2", 3)
    >>> marks[1], axes[0]
    (((1, 0), 'token 0'), 't1: token 5 -> token 0, at query position 3')
    >>> slice_marks("plane.json", 3)[1][1]
    't2: direction 2 of plane.json, token + position space'
    """
    if spec is None:
        return [], ("t1", "t2")
    if not spec.startswith("tokens:"):
        return [], tuple(f"t{i}: direction {i} of {Path(spec).name}, token + position space" for i in (1, 2))
    tokens = _slice_spec(spec)["tokens"]
    corners = [(0, 0), (1, 0), (0, 1)][:len(tokens)]
    marks = [(t, f"token {tok}") for t, tok in zip(corners, tokens)]
    axes = tuple(f"t{i}: token {tokens[0]} -> token {tok}, at query position {position}"
                 for i, tok in enumerate(tokens[1:3], start=1))
    return marks, axes + ("t2",) * (2 - len(axes))
