"""Model files: ``tropattn.model/1`` JSON (score or weight form) and ``.npz`` weights.

Score form, exactly as stored::

    {"format": "tropattn.model/1", "dim": 2,
     "layers": [{"residual": true,
                 "heads": [{"keys": [[1, 0], [0, 1]], "offsets": [0, "-1/2"],
                            "values": [[1, 0], [0, 1]]}],
                 "projection": [[1, 0], [0, 1]],                      (optional)
                 "ffn": {"W1": [[...]], "b1": [...], "W2": [[...]], "b2": [...]}}]}   (optional)

A head's score for key ``j`` is ``keys[j] . x + offsets[j]``; the layer output is
``(x if residual else 0) + projection . sum_h values_h[j*_h]``, then the FFN
``x + W2 relu(W1 x + b1) + b2``.  Numbers are JSON integers, JSON floats (converted
exactly: 0.1 is 3602879701896397/36028797018963968) or strings ``"p/q"`` and decimals
(``"0.1"`` is 1/10).  Every error names the JSON path of the bad value, e.g.
``layers[0].heads[1].keys[2]``.

The weight form (``"form": "weights"``) stores ``context`` (N x d_model) and per layer
``d_k`` and heads with ``W_Q, W_K, W_V, W_O`` (and optional biases); it is converted
exactly to the score form with a fixed causal context.

>>> import json
>>> text = json.dumps({"format": "tropattn.model/1", "dim": 1, "layers": [
...     {"residual": True, "heads": [{"keys": [[0], [1]], "offsets": [0, "-1/2"], "values": [[0], [1]]}]}]})
>>> model = model_from_json(json.loads(text))
>>> model.layers[0].heads[0].offsets
(Fraction(0, 1), Fraction(-1, 2))
>>> model_from_json(json.loads(text.replace('"-1/2"', '"oops"')))
Traceback (most recent call last):
...
tropattn.errors.ModelFileError: layers[0].heads[0].offsets[1]: the value = 'oops' is not a number; write an integer, a fraction such as '3/4', or a decimal such as '0.25' or '1e-3'
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from ..attention import FFN, Head, Layer, Transformer
from ..errors import InvalidInputError, ModelFileError, TropattnError
from ..exact import to_rational

__all__ = ["FORMAT", "load_json", "model_from_json", "model_to_json", "load_sites"]


FORMAT = "tropattn.model/1"


def load_json(path):
    """Read a JSON file, turning I/O and syntax errors into :class:`ModelFileError`."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except FileNotFoundError:
        raise ModelFileError(f"no such file: {path}") from None
    except json.JSONDecodeError as exc:
        raise ModelFileError(f"{path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ValueError, UnicodeDecodeError) as exc:  # e.g. an integer literal beyond Python's digit limit
        raise ModelFileError(f"{path} cannot be read as JSON: {exc}; write very long numbers as strings "
                             "such as \"123...\" or \"1e-5000\"") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path} is a directory; give the path of a JSON file") from None


def _field(obj, key, path, kind=None, required=True, default=None):
    if not isinstance(obj, dict):
        raise ModelFileError(f"expected a JSON object, got {type(obj).__name__}", path)
    if key not in obj:
        if required:
            raise ModelFileError(f"missing field {key!r}", path or "(top level)")
        return default
    value = obj[key]
    where = f"{path}.{key}" if path else key
    if kind is not None and not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise ModelFileError(f"expected {names}, got {type(value).__name__} ({value!r:.40})", where)
    return value


def _number(value, path):
    if isinstance(value, (list, dict)) or value is None:
        raise ModelFileError(f"expected a number, got {type(value).__name__}", path)
    try:
        return to_rational(value, "the value")
    except InvalidInputError as exc:
        raise ModelFileError(str(exc), path) from None


def _vector(value, path, length=None):
    if not isinstance(value, list):
        raise ModelFileError(f"expected a list of numbers, got {type(value).__name__}", path)
    if length is not None and len(value) != length:
        raise ModelFileError(f"has {len(value)} entries; expected {length}", path)
    return tuple(_number(v, f"{path}[{i}]") for i, v in enumerate(value))


def _matrix(value, path, rows=None, cols=None, what="rows"):
    if not isinstance(value, list) or not value:
        raise ModelFileError(f"expected a non-empty list of {what}, got {value!r:.40}", path)
    if rows is not None and len(value) != rows:
        raise ModelFileError(f"has {len(value)} rows; expected {rows}", path)
    out = []
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise ModelFileError(f"expected a list of numbers (one row), got {type(row).__name__}", f"{path}[{i}]")
        want = cols if cols is not None else (len(out[0]) if out else None)
        if want is not None and len(row) != want:
            raise ModelFileError(f"has {len(row)} entries; expected {want} (rows must have equal length"
                                 f"{' = dim' if cols is not None else ''})", f"{path}[{i}]")
        out.append(_vector(row, f"{path}[{i}]"))
    return tuple(out)


def _head(obj, path, dim):

    keys = _matrix(_field(obj, "keys", path), f"{path}.keys", cols=dim, what="keys")
    n = len(keys)
    offsets = _field(obj, "offsets", path, required=False)
    offsets = _vector(offsets, f"{path}.offsets", n) if offsets is not None else (Fraction(0),) * n
    values = _field(obj, "values", path, required=False)
    values = _matrix(values, f"{path}.values", rows=n) if values is not None else None
    try:
        return Head(keys, offsets, values)
    except ModelFileError:
        raise
    except TropattnError as exc:
        raise ModelFileError(str(exc), path) from None


def _ffn(obj, path, dim):

    W1 = _matrix(_field(obj, "W1", path), f"{path}.W1", cols=dim)
    m = len(W1)
    b1 = _vector(_field(obj, "b1", path), f"{path}.b1", m)
    W2 = _matrix(_field(obj, "W2", path), f"{path}.W2", rows=dim, cols=m)
    b2 = _vector(_field(obj, "b2", path), f"{path}.b2", dim)
    return FFN(W1, b1, W2, b2)


def _layer(obj, path, dim):

    heads_json = _field(obj, "heads", path, list)
    if not heads_json:
        raise ModelFileError("a layer needs at least one head", f"{path}.heads")
    heads = [_head(h, f"{path}.heads[{i}]", dim) for i, h in enumerate(heads_json)]
    residual = _field(obj, "residual", path, bool, required=False, default=True)
    proj = _field(obj, "projection", path, required=False)
    d_v = len(heads[0].values[0])
    for i, h in enumerate(heads):
        if len(h.values[0]) != d_v:
            raise ModelFileError(f"values have length {len(h.values[0])}; head 0's have {d_v}; all heads of a "
                                 "layer must output the same dimension", f"{path}.heads[{i}].values")
    projection = _matrix(proj, f"{path}.projection", rows=dim, cols=d_v) if proj is not None else None
    if projection is None and d_v != dim:
        raise ModelFileError(f"values have length {d_v} but dim is {dim}; give values of length {dim} or a "
                             f"'projection' of shape ({dim}, {d_v})", f"{path}.heads[0].values")
    ffn = _field(obj, "ffn", path, dict, required=False)
    return Layer(heads, residual=residual, projection=projection,
                 ffn=_ffn(ffn, f"{path}.ffn", dim) if ffn is not None else None)


def model_from_json(obj):
    """Build a :class:`~tropattn.attention.Transformer` from a parsed ``tropattn.model/1`` object."""

    if not isinstance(obj, dict):
        raise ModelFileError(f"a model file holds one JSON object; got {type(obj).__name__}")
    fmt = _field(obj, "format", "", str)
    if fmt != FORMAT:
        raise ModelFileError(f"unknown format {fmt!r}; this version reads {FORMAT!r}", "format")
    dim = _field(obj, "dim", "", int)
    if dim < 1:
        raise ModelFileError(f"must be a positive integer, got {dim}", "dim")
    form = _field(obj, "form", "", str, required=False, default="scores")
    layers_json = _field(obj, "layers", "", list)
    if not layers_json:
        raise ModelFileError("a model needs at least one layer", "layers")
    if form == "weights":
        return _weights_model(obj, dim, layers_json)
    if form != "scores":
        raise ModelFileError(f"unknown form {form!r}; use 'scores' (default) or 'weights'", "form")
    return Transformer([_layer(l, f"layers[{i}]", dim) for i, l in enumerate(layers_json)])


def _weights_model(obj, dim, layers_json):

    context = _matrix(_field(obj, "context", ""), "context", cols=dim, what="context tokens")
    layers = []
    for i, layer in enumerate(layers_json):
        path = f"layers[{i}]"
        heads = []
        heads_json = _field(layer, "heads", path, list)
        if not heads_json:
            raise ModelFileError("a layer needs at least one head", f"{path}.heads")
        for k, h in enumerate(heads_json):
            hp = f"{path}.heads[{k}]"
            W_Q = _matrix(_field(h, "W_Q", hp), f"{hp}.W_Q", cols=dim)
            W_K = _matrix(_field(h, "W_K", hp), f"{hp}.W_K", rows=len(W_Q), cols=dim)
            W_V = _matrix(_field(h, "W_V", hp), f"{hp}.W_V", cols=dim)
            W_O = _field(h, "W_O", hp, required=False)
            if W_O is None and len(W_V) != dim:
                raise ModelFileError(f"W_V has {len(W_V)} rows, so W_O (shape ({dim}, {len(W_V)})) is needed to "
                                     f"map values back to dimension {dim}", f"{hp}.W_O")
            W_O = _matrix(W_O, f"{hp}.W_O", rows=dim, cols=len(W_V)) if W_O is not None else None
            spec = dict(W_Q=W_Q, W_K=W_K, W_V=W_V, W_O=W_O)
            for name, n in (("b_Q", len(W_Q)), ("b_K", len(W_K)), ("b_V", len(W_V))):
                v = _field(h, name, hp, required=False)
                if v is not None:
                    spec[name] = _vector(v, f"{hp}.{name}", n)
            heads.append(spec)
        ffn = _field(layer, "ffn", path, dict, required=False)
        d_k = _field(layer, "d_k", path, required=False)
        if d_k is not None and _number(d_k, f"{path}.d_k") <= 0:
            raise ModelFileError(f"must be positive (it scales scores by 1/sqrt(d_k)); got {d_k!r}", f"{path}.d_k")
        layers.append(dict(heads=heads, residual=_field(layer, "residual", path, bool, required=False, default=True),
                           d_k=d_k,
                           ffn=_ffn(ffn, f"{path}.ffn", dim) if ffn is not None else None))
    try:
        return Transformer.from_weights(context, layers)
    except ModelFileError:
        raise
    except TropattnError as exc:
        raise ModelFileError(str(exc), "layers") from None


def _num_out(x: Fraction):
    return int(x) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _rows_out(M):
    return [[_num_out(v) for v in row] for row in M]


def model_to_json(model) -> dict:
    """The score form of ``model`` as a JSON-ready dict (numbers exact, fractions as strings).

    >>> from tropattn.attention import sawtooth_model
    >>> model_to_json(model_from_json(model_to_json(sawtooth_model(1, 2, 1)))) == model_to_json(sawtooth_model(1, 2, 1))
    True
    """
    layers = []
    for layer in model.layers:
        out = {"residual": bool(layer.residual),
               "heads": [{"keys": _rows_out(h.keys), "offsets": [_num_out(v) for v in h.offsets],
                          "values": _rows_out(h.values)} for h in layer.heads]}
        if getattr(layer, "projection", None) is not None:
            out["projection"] = _rows_out(layer.projection)
        if getattr(layer, "ffn", None) is not None:
            f = layer.ffn
            out["ffn"] = {"W1": _rows_out(f.W1), "b1": [_num_out(v) for v in f.b1],
                          "W2": _rows_out(f.W2), "b2": [_num_out(v) for v in f.b2]}
        layers.append(out)
    return {"format": FORMAT, "dim": model.dim, "layers": layers}


def load_sites(obj_or_path):
    """``{"sites": [[...], ...], "weights": [...]}`` -> (sites, weights) as exact tuples.

    >>> load_sites({"sites": [[0, 0], ["1/2", 1]], "weights": [0, 0.25]})[1]
    (Fraction(0, 1), Fraction(1, 4))
    """
    obj = load_json(obj_or_path) if isinstance(obj_or_path, (str, Path)) else obj_or_path
    sites = _matrix(_field(obj, "sites", ""), "sites", what="sites")
    weights = _field(obj, "weights", "", required=False)
    weights = _vector(weights, "weights", len(sites)) if weights is not None else (Fraction(0),) * len(sites)
    return sites, weights
