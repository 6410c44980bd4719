"""Model files as ``.npz`` arrays (score or weight form), converted exactly.

float64 holds only dyadic rationals exactly; saving a model with any other number is
refused rather than rounded (save it as JSON instead).
"""

from __future__ import annotations

import difflib
import re
from fractions import Fraction

import numpy as np

from ..errors import ModelFileError
from ._model_file import FORMAT, model_from_json, model_to_json

__all__ = ["save_npz", "load_npz"]


_NPZ_KEY = re.compile(r"^layers\.(\d+)\.(heads\.(\d+)\.)?(\w+)$")
_TOP = ("dim", "context", "ties", "include_query")


def save_npz(model, path):
    """Float arrays named ``layers.<l>.heads.<h>.keys`` etc. (score form).

    float64 holds only dyadic rationals with 53-bit mantissas exactly; a model with any
    other number (1/3, 0.1, 2^53 + 1, 10^400) is refused rather than rounded: save it as
    JSON instead.  Each head's ``d_k`` (or ``score_scale``) and the tie rule are saved too.

    Parameters
    ----------
    model : Transformer
        The model.
    path : str or Path
        The ``.npz`` file to write.

    Returns
    -------
    None
        The arrays are written to ``path``.

    Raises
    ------
    ModelFileError
        A number float64 cannot hold exactly (the message names its JSON path).

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> m = Transformer([Layer([Head([[0], ["1/3"]])])])
    >>> save_npz(m, os.path.join(tempfile.mkdtemp(), "m.npz"))
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: layers[0].heads[0].keys[1][0]: 1/3 has no exact float64 value, so .npz would round it; save the model as .json to keep it exact
    """
    obj = model_to_json(model)
    _check_float_exact(obj["layers"], "layers")
    arrays = {"dim": np.array(model.dim)}
    if "ties" in obj:
        arrays["ties"] = np.array(obj["ties"])
    for l, layer in enumerate(obj["layers"]):
        arrays[f"layers.{l}.residual"] = np.array(bool(layer["residual"]))
        for h, head in enumerate(layer["heads"]):
            for name, value in head.items():
                dtype = str if name == "ties" else float
                arrays[f"layers.{l}.heads.{h}.{name}"] = np.array(_floats(value) if dtype is float else value)
        if "projection" in layer:
            arrays[f"layers.{l}.projection"] = np.array(_floats(layer["projection"]))
        for name, value in layer.get("ffn", {}).items():
            arrays[f"layers.{l}.ffn_{name}"] = np.array(_floats(value))
    np.savez(path, **arrays)


def _floats(x):
    if isinstance(x, list):
        return [_floats(v) for v in x]
    return float(Fraction(x)) if isinstance(x, (int, str)) else x


def _check_float_exact(x, where):
    if isinstance(x, dict):
        for k, v in x.items():
            _check_float_exact(v, f"{where}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            _check_float_exact(v, f"{where}[{i}]")
    elif isinstance(x, (int, str)) and not isinstance(x, bool) and where.split(".")[-1] != "ties":
        value = Fraction(x)
        try:
            exact = Fraction(float(value)) == value
        except OverflowError:
            exact = False
        if not exact:
            raise ModelFileError(f"{x} has no exact float64 value, so .npz would round it; save the model as "
                                 ".json to keep it exact", where)


def load_npz(path, *, ties=None):
    """Read ``.npz`` arrays: the score form, or a transformer's weights (floats converted exactly).

    Score form (what :func:`save_npz` writes): ``dim`` and ``layers.<l>.heads.<h>.keys``,
    ``.offsets``, ``.values``, optional ``.d_k``, ``.score_scale``, ``.ties``, and
    optional ``ties``, ``layers.<l>.residual``, ``layers.<l>.projection`` and
    ``layers.<l>.ffn_W1`` (``b1``, ``W2``, ``b2``).  Weight form, e.g. exported from
    PyTorch with ``numpy.savez``: ``dim``, ``context`` (N x d_model) and
    ``layers.<l>.heads.<h>.W_Q`` (``W_K``, ``W_V``, optional ``W_O``, ``b_Q``, ``b_K``,
    ``b_V``), optional ``layers.<l>.d_k`` and ``layers.<l>.residual``; it is converted
    exactly with the fixed causal context, as the JSON weight form.  The names are the
    JSON fields (:data:`tropattn.io.FIELDS`): an unknown name is an error that suggests
    the closest valid one.

    Parameters
    ----------
    path : str or Path
        The ``.npz`` file.

    Returns
    -------
    Transformer
        The model, exact.

    Raises
    ------
    ModelFileError
        Not an ``.npz`` archive of plain numeric arrays, or a bad or unknown array name.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> m = Transformer([Layer([Head([[0], ["1/2"]], [0, "-1/4"])])])   # dyadic numbers: exact in float64
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> save_npz(m, path)
    >>> load_npz(path) == m
    True
    """
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise ModelFileError(f"no such file: {path}") from None
    except (OSError, ValueError, EOFError) as exc:
        raise ModelFileError(f"cannot read {path} as .npz: it is not a NumPy .npz archive of numeric arrays "
                             f"({type(exc).__name__}); write one with numpy.savez(path, dim=..., ...)") from None
    if not isinstance(data, np.lib.npyio.NpzFile):
        raise ModelFileError(f"{path} holds a single array, not an .npz archive of named arrays; write one with "
                             "numpy.savez(path, dim=..., **{'layers.0.heads.0.keys': ...})")
    with data:
        arrays = {key: _array(data, key, path) for key in data.files}
    obj = {"format": FORMAT, "dim": None, "layers": []}
    layers = {}
    for key, value in arrays.items():
        if key in _TOP:
            obj[key] = value
            continue
        m = _NPZ_KEY.match(key)
        if not m:
            close = difflib.get_close_matches(key, _TOP, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "names look like 'dim' or 'layers.0.heads.1.keys'"
            raise ModelFileError(f"unexpected array {key!r}; {hint}", str(path))
        l, h, name = int(m.group(1)), m.group(3), m.group(4)
        layer = layers.setdefault(l, {"heads": {}})
        if h is None:
            if name.startswith("ffn_"):
                layer.setdefault("ffn", {})[name[4:]] = value
            else:
                layer[name] = value
        else:
            layer["heads"].setdefault(int(h), {})[name] = value
    if obj["dim"] is None:
        raise ModelFileError("missing array 'dim'", str(path))
    if "context" in arrays:
        obj["form"] = "weights"
    for l in sorted(layers):
        spec = layers[l]
        spec["heads"] = [spec["heads"][h] for h in sorted(spec["heads"])]
        obj["layers"].append(spec)
    return model_from_json(obj, ties=ties)


def _array(data, key, path):
    try:
        value = data[key]
    except (OSError, ValueError, EOFError) as exc:
        raise ModelFileError(f"array {key!r} cannot be read ({type(exc).__name__}): .npz model files hold plain "
                             "numeric arrays (no Python objects)", str(path)) from None
    if value.dtype.kind not in "biuf" and not (value.dtype.kind == "U" and key.endswith("ties")):
        raise ModelFileError(f"array {key!r} has dtype {value.dtype}; expected numbers", str(path))
    return value.tolist()
