"""Model files as ``.npz`` arrays (score or weight form), converted exactly.

float64 holds only dyadic rationals exactly; saving a model with any other number is
refused rather than rounded (save it as JSON instead).
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from ..errors import ModelFileError
from .model_file import FORMAT, model_from_json, model_to_json

__all__ = ["save_npz", "load_npz"]


_NPZ_KEY = re.compile(r"^layers\.(\d+)\.(heads\.(\d+)\.)?(\w+)$")


def save_npz(model, path):
    """Float arrays named ``layers.<l>.heads.<h>.keys`` etc. (score form).

    float64 holds only dyadic rationals with 53-bit mantissas exactly; a model with any
    other number (1/3, 0.1) is refused rather than rounded: save it as JSON instead.
    """
    _check_float_exact(model)
    arrays = {"dim": np.array(model.dim)}
    for l, layer in enumerate(model.layers):
        arrays[f"layers.{l}.residual"] = np.array(bool(layer.residual))
        for h, head in enumerate(layer.heads):
            for name in ("keys", "offsets", "values"):
                arrays[f"layers.{l}.heads.{h}.{name}"] = np.array(getattr(head, name), dtype=float)
        if getattr(layer, "projection", None) is not None:
            arrays[f"layers.{l}.projection"] = np.array(layer.projection, dtype=float)
        if getattr(layer, "ffn", None) is not None:
            for name in ("W1", "b1", "W2", "b2"):
                arrays[f"layers.{l}.ffn_{name}"] = np.array(getattr(layer.ffn, name), dtype=float)
    np.savez(path, **arrays)


def _check_float_exact(model):
    obj = model_to_json(model)

    def walk(x, where):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, f"{where}.{k}" if where else k)
        elif isinstance(x, list):
            for i, v in enumerate(x):
                walk(v, f"{where}[{i}]")
        elif isinstance(x, str) and "/" in x and Fraction(float(Fraction(x))) != Fraction(x):
            raise ModelFileError(f"{x} has no exact float64 value, so .npz would round it; save the model as "
                                 ".json to keep it exact", where)

    walk(obj["layers"], "layers")


def load_npz(path):
    """Read ``.npz`` arrays: the score form, or a transformer's weights (floats converted exactly).

    Score form (what :func:`save_npz` writes): ``dim`` and ``layers.<l>.heads.<h>.keys``,
    ``.offsets``, ``.values``, optional ``layers.<l>.residual``, ``layers.<l>.projection``
    and ``layers.<l>.ffn_W1`` (``b1``, ``W2``, ``b2``).  Weight form, e.g. exported from
    PyTorch with ``numpy.savez``: ``dim``, ``context`` (N x d_model) and
    ``layers.<l>.heads.<h>.W_Q`` (``W_K``, ``W_V``, optional ``W_O``, ``b_Q``, ``b_K``,
    ``b_V``), optional ``layers.<l>.d_k`` and ``layers.<l>.residual``; it is converted
    exactly with the fixed causal context, as the JSON weight form.
    """
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise ModelFileError(f"cannot read {path} as .npz: {exc}") from None
    layers = {}
    for key in data.files:
        if key in ("dim", "context"):
            continue
        m = _NPZ_KEY.match(key)
        if not m:
            raise ModelFileError(f"unexpected array {key!r}; names look like 'layers.0.heads.1.keys'", key)
        l, h, name = int(m.group(1)), m.group(3), m.group(4)
        layer = layers.setdefault(l, {"heads": {}})
        if h is None:
            if name.startswith("ffn_"):
                layer.setdefault("ffn", {})[name[4:]] = data[key].tolist()
            else:
                layer[name] = data[key].tolist()
        else:
            layer["heads"].setdefault(int(h), {})[name] = data[key].tolist()
    if "dim" not in data.files:
        raise ModelFileError("missing array 'dim'", path)
    obj = {"format": FORMAT, "dim": int(data["dim"]), "layers": []}
    if "context" in data.files:
        obj.update(form="weights", context=data["context"].tolist())
    for l in sorted(layers):
        spec = layers[l]
        spec["heads"] = [spec["heads"][h] for h in sorted(spec["heads"])]
        obj["layers"].append(spec)
    return model_from_json(obj)
