"""Checkpoint files as numpy arrays: one ``.safetensors`` file, a sharded set with its index, or a model directory.

The ``.safetensors`` format is an 8-byte little-endian header length, a JSON header
(``{name: {"dtype", "shape", "data_offsets"}}``) and the raw little-endian data; it is read
here with numpy alone, so every float type that a checkpoint uses is read *exactly*:
``F64``, ``F32``, ``F16`` and ``BF16`` (a bfloat16 is the top half of a float32: its 16
bits shifted left by 16 are that float32) all widen to float64 without rounding.

A model directory (what ``from_pretrained`` takes) holds ``config.json`` and either
``model.safetensors`` or shards ``model-0000x-of-0000y.safetensors`` listed by
``model.safetensors.index.json`` (``{"weight_map": {name: file}}``).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from ..errors import ModelFileError

__all__ = ["read_safetensors", "read_checkpoint", "checkpoint_files", "INDEX"]

#: The index of a sharded checkpoint (what ``save_pretrained`` writes beside the shards).
INDEX = "model.safetensors.index.json"

_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
           "U8": "u1", "BOOL": "?"}


def _bf16(raw: bytes, shape) -> np.ndarray:
    """bfloat16 bits as the float64 values they represent (exact: a bfloat16 is a truncated float32)."""
    bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
    return bits.view(np.float32).astype(np.float64).reshape(shape)


def _header(path, fh):
    head = fh.read(8)
    if len(head) != 8:
        raise ModelFileError(f"cannot read {path} as .safetensors: the file is shorter than its 8-byte header size")
    (n,) = struct.unpack("<Q", head)
    if n > 100_000_000:
        raise ModelFileError(f"cannot read {path} as .safetensors: a header of {n} bytes (not a safetensors file?)")
    try:
        header = json.loads(fh.read(n))
    except (UnicodeDecodeError, ValueError):
        raise ModelFileError(f"cannot read {path} as .safetensors: its header is not JSON") from None
    if not isinstance(header, dict):
        raise ModelFileError(f"cannot read {path} as .safetensors: its header is not a JSON object")
    header.pop("__metadata__", None)
    return header, 8 + n


def read_safetensors(path, names=None) -> dict:
    """The tensors of one ``.safetensors`` file as float64 arrays (exact for F64/F32/F16/BF16).

    Parameters
    ----------
    path : str or Path
        The file.
    names : collection of str, optional
        Read only these tensors (default: all).

    Returns
    -------
    dict
        Tensor name -> float64 ndarray.

    Raises
    ------
    ModelFileError
        If the file is missing, truncated, not a safetensors file, or holds a data type
        that is not a number.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
    >>> header = json.dumps({"w": {"dtype": "BF16", "shape": [2], "data_offsets": [0, 4]}}).encode()
    >>> with open(path, "wb") as fh:                      # 1.0 and -0.5 in bfloat16: 0x3F80, 0xBF00
    ...     _ = fh.write(struct.pack("<Q", len(header)) + header + bytes([0x80, 0x3F, 0x00, 0xBF]))
    >>> read_safetensors(path)["w"].tolist()
    [1.0, -0.5]
    """
    if not Path(path).is_file():
        raise ModelFileError(f"no such file: {path}")
    with open(path, "rb") as fh:
        header, start = _header(path, fh)
        out = {}
        for name, info in header.items():
            if names is not None and name not in names:
                continue
            try:
                dtype, shape, (lo, hi) = info["dtype"], tuple(int(s) for s in info["shape"]), info["data_offsets"]
            except (KeyError, TypeError, ValueError):
                raise ModelFileError(f"cannot read {path} as .safetensors: tensor {name!r} has a malformed "
                                     "header entry") from None
            fh.seek(start + int(lo))
            raw = fh.read(int(hi) - int(lo))
            if len(raw) != int(hi) - int(lo):
                raise ModelFileError(f"cannot read {path} as .safetensors: tensor {name!r} is truncated")
            if dtype == "BF16":
                out[name] = _bf16(raw, shape)
            elif dtype in _DTYPES:
                out[name] = np.frombuffer(raw, dtype=_DTYPES[dtype]).astype(np.float64).reshape(shape)
            else:
                raise ModelFileError(f"tensor {name!r} of {path} has data type {dtype}; tropattn reads F64, F32, "
                                     "F16, BF16 and integer tensors")
    return out


def checkpoint_files(path) -> tuple:
    """``(weight files, config.json or None)`` of a checkpoint file, a shard index or a model directory.

    Parameters
    ----------
    path : str or Path
        A ``.safetensors`` file, a ``model.safetensors.index.json`` or a directory holding
        ``model.safetensors`` or an index.

    Returns
    -------
    files : list of Path
        The weight files (one, or every shard the index names).
    config : Path or None
        ``config.json`` beside them, if there is one.

    Raises
    ------
    ModelFileError
        If the path does not exist, a directory has no safetensors weights (a
        ``pytorch_model.bin`` only is named), or the index is malformed or names a missing shard.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> checkpoint_files(folder)                          # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: ... holds no model.safetensors and no model.safetensors.index.json...
    """
    path = Path(path)
    if path.is_dir():
        if (path / "model.safetensors").is_file():
            return [path / "model.safetensors"], _config(path)
        if (path / INDEX).is_file():
            return _shards(path / INDEX), _config(path)
        other = sorted(p.name for p in path.glob("*.bin")) + sorted(p.name for p in path.glob("*.safetensors"))
        hint = (f"; it has {', '.join(other[:3])}: save the model with save_pretrained(..., safe_serialization=True) "
                "to get safetensors" if other else "")
        raise ModelFileError(f"the directory {path} holds no model.safetensors and no {INDEX}{hint}")
    if not path.is_file():
        raise ModelFileError(f"no such file: {path}")
    if path.name.endswith(".index.json"):
        return _shards(path), _config(path.parent)
    return [path], _config(path.parent)


def _config(folder):
    cfg = Path(folder) / "config.json"
    return cfg if cfg.is_file() else None


def _shards(index):
    try:
        weight_map = json.loads(index.read_text())["weight_map"]
        files = sorted(set(weight_map.values()))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise ModelFileError(f"{index} is not a safetensors shard index (a JSON object with a \"weight_map\" of "
                             "tensor name -> shard file)") from None
    missing = [f for f in files if not (index.parent / f).is_file()]
    if missing:
        raise ModelFileError(f"the shard(s) {', '.join(missing[:3])} named by {index} are missing")
    return [index.parent / f for f in files]


def read_checkpoint(path) -> tuple:
    """``(state dict, config)``: every tensor of a checkpoint (file, index or directory) and its ``config.json``.

    Parameters
    ----------
    path : str or Path
        As in :func:`checkpoint_files`.

    Returns
    -------
    state : dict
        Tensor name -> float64 ndarray, over all shards.
    config : dict or None
        The parsed ``config.json`` beside the weights, if any.

    Raises
    ------
    ModelFileError
        As :func:`checkpoint_files` and :func:`read_safetensors`; a tensor in two shards; an
        unreadable ``config.json``.

    Examples
    --------
    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> header = json.dumps({"w": {"dtype": "F16", "shape": [1], "data_offsets": [0, 2]}}).encode()
    >>> with open(os.path.join(folder, "model.safetensors"), "wb") as fh:
    ...     _ = fh.write(struct.pack("<Q", len(header)) + header + np.float16(0.1).tobytes())
    >>> state, config = read_checkpoint(folder)
    >>> bool(state["w"][0] == float(np.float16(0.1))), config      # the float16 value itself, no config.json
    (True, None)
    """
    files, cfg = checkpoint_files(path)
    state = {}
    for f in files:
        part = read_safetensors(f)
        twice = sorted(set(part) & set(state))
        if twice:
            raise ModelFileError(f"tensor(s) {', '.join(twice[:3])} appear in more than one shard ({f})")
        state.update(part)
    config = None
    if cfg is not None:
        try:
            config = json.loads(cfg.read_text())
        except (UnicodeDecodeError, ValueError) as exc:
            raise ModelFileError(f"cannot read {cfg} as JSON: {exc}") from None
        if not isinstance(config, dict):
            raise ModelFileError(f"{cfg} is not a JSON object")
    return state, config
