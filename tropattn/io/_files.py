"""Files in and out, one pair: :func:`load` reads every tropattn file by what it is, :func:`save` writes it.

* ``.json``: a ``tropattn.model/1`` model (score or weight form), weighted sites
  ``{"sites": [...], "weights": [...]}``, a tropical polynomial ``{"terms": [...]}`` or a
  slice ``{"x0": [...], "directions": [[...], ...]}``, told apart by their fields;
* ``.npz``: a model as arrays (score or weight form);
* ``.safetensors`` (or a shard index ``model.safetensors.index.json``, or a model directory
  with ``config.json``): a GPT-2-style checkpoint, read as the exact skeleton of its query
  path with a fixed context (``context=`` the token ids, see :func:`~tropattn.io.load_gpt2`).

``load(path)`` after ``save(obj, path)`` gives back an object equal to ``obj`` (a model keeps
every key, offset, value, ``d_k``, residual flag, projection, FFN and tie rule); ``.npz``
refuses a number that float64 cannot hold exactly.

>>> import os, tempfile
>>> from tropattn.attention import sawtooth_model
>>> folder = tempfile.mkdtemp()
>>> save(sawtooth_model(1, 3, 2), os.path.join(folder, "m.json"))
>>> load(os.path.join(folder, "m.json")) == sawtooth_model(1, 3, 2)
True
>>> from tropattn.tropical import parse_polynomial
>>> save(parse_polynomial("max(0, x)"), os.path.join(folder, "p.json"))
>>> load(os.path.join(folder, "p.json"))
TropicalPolynomial('max(0, x)', variables=('x',))
"""

from __future__ import annotations

import json
from pathlib import Path

from .._validate import choice
from ..errors import InvalidInputError, ModelFileError
from ..exact import json_number, load_json, unlimited_int_digits
from ..geometry import PowerDiagram
from ..tropical import TropicalPolynomial, polynomial_from_json, polynomial_to_json
from ._gpt2 import load_gpt2
from ._model_file import load_sites, load_slice, model_from_json, model_to_json
from ._npz import load_npz, save_npz

__all__ = ["load", "save", "KINDS", "is_checkpoint_path"]

#: What a file can hold (``kind=`` of :func:`load` and :func:`save`).
KINDS = ("model", "sites", "polynomial", "slice", "checkpoint")

#: The fields that tell a JSON file's kind (the first that is present).
_MARKS = (("format", "model"), ("layers", "model"), ("sites", "sites"), ("terms", "polynomial"),
          ("x0", "slice"), ("directions", "slice"))


def load(path, kind=None, *, context=None, n_head=None, layernorm=None, self_key=None, activation=None,
         reference=None, ties=None):
    """Read a tropattn file: a model, sites, a tropical polynomial, a slice or a checkpoint.

    Parameters
    ----------
    path : str or Path
        The file.  ``.npz`` is a model, ``.safetensors`` a checkpoint; a JSON file's kind
        is told by its fields (``format``/``layers``: a model, ``sites``, ``terms``: a
        polynomial, ``x0``/``directions``: a slice).
    kind : {"model", "sites", "polynomial", "slice", "checkpoint"}, optional
        Insist on one kind (the file is then read and checked as that kind).
    context : sequence of int, optional
        Checkpoints only (required there): the context token ids; the query is the next position.
    n_head, layernorm, self_key, activation, reference
        Checkpoints only: as in :func:`~tropattn.io.load_gpt2`.
    ties : {"refuse", "first"}, optional
        Model files only: the tie rule for every head, overriding the file's
        (:func:`~tropattn.io.model_from_json`).

    Returns
    -------
    Transformer
        For a model file (every number exact).
    tuple
        For sites: ``(sites, weights)`` as exact tuples; for a slice: ``(x0, directions)``.
    TropicalPolynomial
        For a polynomial file.
    Skeleton
        For a checkpoint.

    Raises
    ------
    ModelFileError
        A missing, unreadable or malformed file; the message names the JSON path (or array
        name) of the problem, or why the kind cannot be told.
    InvalidInputError
        An unknown ``kind``, checkpoint options for another file, or a checkpoint without
        ``context``.

    Examples
    --------
    >>> load("missing.json")
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: no such file: missing.json
    """
    choice(kind, "kind", (None,) + KINDS)
    options = dict(n_head=n_head, layernorm=layernorm, self_key=self_key, activation=activation, reference=reference)
    suffix = Path(str(path)).suffix.lower()
    if kind == "checkpoint" or (kind is None and is_checkpoint_path(path)):
        if context is None:
            raise InvalidInputError(f"{path} is a checkpoint: it becomes an exact model only with a fixed context; "
                                    "pass context=[token ids] (the query is the next position)")
        return load_gpt2(path, context, **options)
    given = sorted(k for k, v in dict(options, context=context).items() if v is not None)
    if given:
        raise InvalidInputError(f"{', '.join(given)} apply to .safetensors checkpoints only; {path} is not one")
    if suffix == ".npz":
        if kind not in (None, "model"):
            raise InvalidInputError(f"{path} is an .npz model file, not a {kind} file")
        return load_npz(path, ties=ties)
    obj = load_json(path)
    kind = kind or _kind_of(obj, path)
    if kind == "model":
        return model_from_json(obj, ties=ties)
    if kind == "sites":
        return load_sites(obj)
    if kind == "polynomial":
        return polynomial_from_json(obj)
    return load_slice(obj)


def is_checkpoint_path(path) -> bool:
    """Whether ``path`` names a checkpoint: a ``.safetensors`` file, a shard index or a model directory.

    A model directory holds ``model.safetensors``, ``model.safetensors.index.json``,
    ``config.json`` or ``pytorch_model.bin`` (reading the last says to save safetensors); any
    other directory is not a checkpoint.

    >>> [is_checkpoint_path(p) for p in ("gpt2.safetensors", "model.safetensors.index.json", "m.json")]
    [True, True, False]
    """
    name = str(path).lower()
    folder = Path(str(path))
    return name.endswith((".safetensors", ".safetensors.index.json")) or (folder.is_dir() and any(
        (folder / f).is_file() for f in ("model.safetensors", "model.safetensors.index.json", "config.json",
                                          "pytorch_model.bin")))


def _kind_of(obj, path):
    if isinstance(obj, dict):
        for field, kind in _MARKS:
            if field in obj:
                return kind
    raise ModelFileError(f"cannot tell what {path} holds: a tropattn JSON file is a model (\"format\": "
                         "\"tropattn.model/1\"), sites ({\"sites\": ...}), a polynomial ({\"terms\": ...}) or a "
                         "slice ({\"x0\": ..., \"directions\": ...})")


def save(obj, path, kind=None) -> None:
    """Write ``obj`` to ``path``: a model (JSON, or ``.npz`` by the suffix), sites, a polynomial or a slice.

    Parameters
    ----------
    obj : Transformer, PowerDiagram, TropicalPolynomial or tuple
        A model; a power diagram or a ``(sites, weights)`` pair (``kind="sites"``); a
        polynomial; an ``(x0, directions)`` pair (``kind="slice"``).
    path : str or Path
        The file; for a model, the suffix ``.npz`` selects the array format, anything else JSON.
    kind : {"model", "sites", "polynomial", "slice"}, optional
        Needed for a pair (sites or a slice); otherwise told by the type of ``obj``.

    Returns
    -------
    None
        ``obj`` is written to ``path``.

    Raises
    ------
    InvalidInputError
        An object of no known kind, or a pair without ``kind``.
    ModelFileError
        For ``.npz``: a number float64 cannot hold exactly.
    OSError
        The file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "sites.json")
    >>> save(([[0, 0], [1, "1/2"]], [0, "1/3"]), path, kind="sites")
    >>> load(path)[1]
    (Fraction(0, 1), Fraction(1, 3))
    """
    choice(kind, "kind", (None,) + KINDS[:-1])
    if kind is None:
        kind = ("polynomial" if isinstance(obj, TropicalPolynomial) else "sites" if isinstance(obj, PowerDiagram)
                else "model" if hasattr(obj, "layers") else None)
        if kind is None:
            raise InvalidInputError(f"save writes a model, a PowerDiagram or a TropicalPolynomial; got "
                                    f"{type(obj).__name__} (for a (sites, weights) or (x0, directions) pair pass "
                                    "kind='sites' or kind='slice')")
    if kind == "model" and str(path).endswith(".npz"):
        return save_npz(obj, path)
    if kind == "model":
        data = model_to_json(obj)
    elif kind == "polynomial":
        data = polynomial_to_json(obj)
    elif kind == "sites":
        sites, weights = (obj.sites, obj.weights) if isinstance(obj, PowerDiagram) else _pair(obj, kind)
        sites, weights = load_sites({"sites": _plain(sites), "weights": _plain(weights)})   # checked, exact
        data = {"sites": _numbers(sites), "weights": _numbers(weights)}
    else:
        x0, directions = _pair(obj, kind)
        x0, directions = load_slice({"x0": _plain(x0), "directions": _plain(directions)})
        data = {"x0": _numbers(x0), "directions": _numbers(directions)}
    with unlimited_int_digits():
        text = json.dumps(data, indent=1)
    Path(path).write_text(text + "\n", encoding="utf-8")


def _pair(obj, kind):
    try:
        first, second = obj
    except (TypeError, ValueError):
        what = "(sites, weights)" if kind == "sites" else "(x0, directions)"
        raise InvalidInputError(f"kind={kind!r} saves a pair {what}; got {type(obj).__name__}") from None
    return first, second


def _plain(x):
    """Arrays and tuples as nested lists (what the file readers check)."""
    if hasattr(x, "tolist") and not isinstance(x, (str, bytes)):
        x = x.tolist()
    return [_plain(v) for v in x] if isinstance(x, (list, tuple)) else x


def _numbers(x):
    """Nested exact numbers as JSON numbers (integers, or fractions as ``"p/q"`` strings)."""
    if isinstance(x, (list, tuple)):
        return [_numbers(v) for v in x]
    return json_number(x)
