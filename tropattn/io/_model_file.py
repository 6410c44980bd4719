"""Model files: ``tropattn.model/1`` JSON (score or weight form) and ``.npz`` weights.

Score form, exactly as stored::

    {"format": "tropattn.model/1", "dim": 2, "ties": "refuse",               (ties optional)
     "layers": [{"residual": true,
                 "heads": [{"keys": [[1, 0], [0, 1]], "offsets": [0, "-1/2"],
                            "values": [[1, 0], [0, 1]], "d_k": 4}],      (d_k optional)
                 "projection": [[1, 0], [0, 1]],                      (optional)
                 "ffn": {"W1": [[...]], "b1": [...], "W2": [[...]], "b2": [...]}}]}   (optional)

Every object has a closed set of fields (:data:`FIELDS`): an unknown or misspelt field
is an error naming its JSON path and the closest valid name, e.g.
``layers[0].heads[1]: unknown field 'offset'; did you mean 'offsets'?``.  A head may
carry ``d_k`` (its scores are scaled by ``1/sqrt(d_k)`` in soft attention) or a float
``score_scale``, and ``ties`` (``"refuse"`` or ``"first"``, overriding the model's
``ties``).  Under ``"refuse"``, two equal keys (same key and offset) with different
values are refused with both indices; under ``"first"`` the lower index wins.

A head's score for key ``j`` is ``keys[j] . x + offsets[j]``; the layer output is
``(x if residual else 0) + projection . sum_h values_h[j*_h]``, then the FFN
``x + W2 relu(W1 x + b1) + b2``.  Numbers are JSON integers, JSON floats (converted
exactly: 0.1 is 3602879701896397/36028797018963968) or strings ``"p/q"`` and decimals
(``"0.1"`` is 1/10).  Every error names the JSON path of the bad value, e.g.
``layers[0].heads[1].keys[2]``.

The weight form (``"form": "weights"``) stores ``context`` (N x d_model) and per layer
``d_k`` and heads with ``W_Q, W_K, W_V, W_O`` (and optional biases ``b_Q, b_K, b_V`` and
``d_k``); it is converted exactly to the score form with a fixed causal context.
``"include_query": true`` (the query attends to itself) is refused: its walls are
quadrics.  Two context tokens that give equal keys and offsets but different values are
refused under ``"refuse"`` as in the score form.  :func:`model_to_json` writes the score form, with each head's ``d_k``, so
``model_from_json(model_to_json(m)) == m`` for every model (the weight form included).

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

import difflib
from fractions import Fraction
from pathlib import Path

from .._validate import choice
from ..attention import FFN, Head, Layer, Transformer
from ..errors import InvalidInputError, ModelFileError, TropattnError
from ..exact import json_number, load_json, to_rational

__all__ = ["FORMAT", "FIELDS", "check_fields", "model_from_json", "model_to_json", "load_sites", "load_slice"]


FORMAT = "tropattn.model/1"

#: The closed set of fields of every object of the format (and of a sites file).
FIELDS = {
    "model": ("format", "dim", "form", "ties", "layers"),
    "weights model": ("format", "dim", "form", "ties", "context", "include_query", "layers"),
    "layer": ("heads", "residual", "projection", "ffn"),
    "weights layer": ("heads", "residual", "d_k", "ffn"),
    "head": ("keys", "offsets", "values", "d_k", "score_scale", "ties"),
    "weights head": ("W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "d_k"),
    "ffn": ("W1", "b1", "W2", "b2"),
    "sites": ("sites", "weights"),
    "slice": ("x0", "directions"),
}


def check_fields(obj, kind, path=""):
    """Refuse any field of ``obj`` outside ``FIELDS[kind]``, suggesting the closest valid name.

    Parameters
    ----------
    obj : dict
        A parsed JSON object.
    kind : str
        A key of :data:`FIELDS` (``"model"``, ``"layer"``, ``"head"``, ...).
    path : str, optional
        The JSON path of ``obj``, for the message.

    Returns
    -------
    None
        ``obj`` passes.

    Raises
    ------
    ModelFileError
        ``obj`` is not an object, or has a field its kind does not know.

    Examples
    --------
    >>> check_fields({"keys": [[0]], "offset": [0]}, "head", "layers[0].heads[1]")
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: layers[0].heads[1]: unknown field 'offset'; did you mean 'offsets'?
    """
    if not isinstance(obj, dict):
        raise ModelFileError(f"expected a JSON object, got {type(obj).__name__}", path)
    allowed = FIELDS[kind]
    for key in obj:
        if key not in allowed:
            lower = {a.lower(): a for a in allowed}
            close = difflib.get_close_matches(str(key).lower(), list(lower), n=1, cutoff=0.6)
            hint = (f"did you mean {lower[close[0]]!r}?" if close
                    else f"the fields of a {kind} are {', '.join(allowed)}")
            raise ModelFileError(f"unknown field {key!r}; {hint}", path or "(top level)")


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


def _head(obj, path, dim, ties):
    check_fields(obj, "head", path)
    keys = _matrix(_field(obj, "keys", path), f"{path}.keys", cols=dim, what="keys")
    n = len(keys)
    offsets = _field(obj, "offsets", path, required=False)
    offsets = _vector(offsets, f"{path}.offsets", n) if offsets is not None else (Fraction(0),) * n
    values = _field(obj, "values", path, required=False)
    values = _matrix(values, f"{path}.values", rows=n) if values is not None else None
    ties = _ties(obj, path, ties)
    d_k = _field(obj, "d_k", path, required=False)
    d_k = _number(d_k, f"{path}.d_k") if d_k is not None else None
    scale = _field(obj, "score_scale", path, (int, float), required=False, default=1.0)
    if d_k is not None and "score_scale" in obj:
        raise ModelFileError("give d_k (the scale is then 1/sqrt(d_k)) or score_scale, not both", path)
    if ties == "refuse" and values is not None:
        _check_duplicate_keys(keys, offsets, values, path)
    try:
        return Head(keys, offsets, values, score_scale=scale, d_k=d_k, ties=ties)
    except ModelFileError:
        raise
    except TropattnError as exc:
        raise ModelFileError(str(exc), path) from None


def _ties(obj, path, default):
    rule = _field(obj, "ties", path, str, required=False, default=default)
    try:
        return choice(rule, "ties", ("refuse", "first"),
                      meaning="the tie rule: 'refuse' raises on a tie, 'first' lets the lowest index win (as argmax)")
    except InvalidInputError as exc:
        raise ModelFileError(str(exc), f"{path}.ties" if path else "ties") from None


def _check_duplicate_keys(keys, offsets, values, path):
    """Equal keys (key and offset) with different values tie everywhere: refused under "refuse"."""
    first = {}
    for j, kb in enumerate(zip(keys, offsets)):
        i = first.setdefault(kb, j)
        if values[i] != values[j]:
            raise ModelFileError(f"keys[{i}] and keys[{j}] are equal (same key and offset) but have different "
                                 "values, so they tie everywhere; remove one, or write \"ties\": \"first\" "
                                 "to let the lower index win (as argmax does)", path)


def _ffn(obj, path, dim):
    check_fields(obj, "ffn", path)
    W1 = _matrix(_field(obj, "W1", path), f"{path}.W1", cols=dim)
    m = len(W1)
    b1 = _vector(_field(obj, "b1", path), f"{path}.b1", m)
    W2 = _matrix(_field(obj, "W2", path), f"{path}.W2", rows=dim, cols=m)
    b2 = _vector(_field(obj, "b2", path), f"{path}.b2", dim)
    return FFN(W1, b1, W2, b2)


def _layer(obj, path, dim, ties):
    check_fields(obj, "layer", path)
    heads_json = _field(obj, "heads", path, list)
    if not heads_json:
        raise ModelFileError("a layer needs at least one head", f"{path}.heads")
    heads = [_head(h, f"{path}.heads[{i}]", dim, ties) for i, h in enumerate(heads_json)]
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


def model_from_json(obj, *, ties=None):
    """Build a :class:`~tropattn.attention.Transformer` from a parsed ``tropattn.model/1`` object.

    Parameters
    ----------
    obj : dict
        The parsed JSON (score form, or ``"form": "weights"``).
    ties : {"refuse", "first"}, optional
        The tie rule for the model and every head, overriding the file's (``--ties``):
        under ``"first"`` duplicate keys with different values are read, the lower index
        winning, instead of refused.

    Returns
    -------
    Transformer
        The model, every number exact.

    Raises
    ------
    ModelFileError
        Anything malformed: the message starts with the JSON path of the bad value
        (unknown fields included, with the closest valid name).

    Examples
    --------
    >>> m = model_from_json({"format": "tropattn.model/1", "dim": 1, "ties": "first",
    ...                      "layers": [{"heads": [{"keys": [[0], [1]], "offsets": [0, "-1/2"]}]}]})
    >>> m.layers[0].heads[0].offsets, m.ties
    ((Fraction(0, 1), Fraction(-1, 2)), 'first')
    >>> model_from_json({"format": "tropattn.model/1", "dim": 1, "layers": [{"heads": [{"keys": [[0]]}],
    ...                  "resdiual": False}]})
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: layers[0]: unknown field 'resdiual'; did you mean 'residual'?
    """

    if not isinstance(obj, dict):
        raise ModelFileError(f"a model file holds one JSON object; got {type(obj).__name__}")
    form = _field(obj, "form", "", str, required=False, default="scores")
    if form not in ("scores", "weights"):
        raise ModelFileError(f"unknown form {form!r}; use 'scores' (default) or 'weights'", "form")
    check_fields(obj, "model" if form == "scores" else "weights model")
    fmt = _field(obj, "format", "", str)
    if fmt != FORMAT:
        raise ModelFileError(f"unknown format {fmt!r}; this version reads {FORMAT!r}", "format")
    dim = _field(obj, "dim", "", int)
    if dim < 1:
        raise ModelFileError(f"must be a positive integer, got {dim}", "dim")
    if ties is not None:
        obj = _override_ties(obj, choice(ties, "ties", ("refuse", "first")))
    ties = _ties(obj, "", "refuse")
    layers_json = _field(obj, "layers", "", list)
    if not layers_json:
        raise ModelFileError("a model needs at least one layer", "layers")
    if form == "weights":
        return _weights_model(obj, dim, layers_json, ties)
    return Transformer([_layer(l, f"layers[{i}]", dim, ties) for i, l in enumerate(layers_json)])


def _override_ties(obj, ties):
    """A copy of the model object with ``ties`` as the model's rule and no head's own rule."""
    out = dict(obj, ties=ties)
    layers = out.get("layers")
    if isinstance(layers, list):
        out["layers"] = [dict(l, heads=[{k: v for k, v in h.items() if k != "ties"} if isinstance(h, dict) else h
                                        for h in l["heads"]])
                         if isinstance(l, dict) and isinstance(l.get("heads"), list) else l for l in layers]
    return out


def _weights_model(obj, dim, layers_json, ties):

    if _field(obj, "include_query", "", bool, required=False, default=False):
        raise ModelFileError("the query attends to itself, so its score is quadratic in x and the walls are "
                             "quadrics; tropattn handles a fixed context only: set include_query to false",
                             "include_query")
    context = _matrix(_field(obj, "context", ""), "context", cols=dim, what="context tokens")
    layers = []
    for i, layer in enumerate(layers_json):
        path = f"layers[{i}]"
        check_fields(layer, "weights layer", path)
        heads = []
        heads_json = _field(layer, "heads", path, list)
        if not heads_json:
            raise ModelFileError("a layer needs at least one head", f"{path}.heads")
        for k, h in enumerate(heads_json):
            hp = f"{path}.heads[{k}]"
            check_fields(h, "weights head", hp)
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
            if h.get("d_k") is not None:
                spec["d_k"] = _positive_dk(h["d_k"], f"{hp}.d_k")
            heads.append(spec)
        ffn = _field(layer, "ffn", path, dict, required=False)
        d_k = _field(layer, "d_k", path, required=False)
        layers.append(dict(heads=heads, residual=_field(layer, "residual", path, bool, required=False, default=True),
                           d_k=_positive_dk(d_k, f"{path}.d_k") if d_k is not None else None,
                           ffn=_ffn(ffn, f"{path}.ffn", dim) if ffn is not None else None))
    try:
        model = Transformer.from_weights(context, layers)
    except ModelFileError:
        raise
    except TropattnError as exc:
        raise ModelFileError(str(exc), "layers") from None
    if ties != "refuse":
        return model.with_ties(ties)
    for i, layer in enumerate(model.layers):
        for k, h in enumerate(layer.heads):
            _check_duplicate_keys(h.keys, h.offsets, h.values, f"layers[{i}].heads[{k}] (context tokens as keys)")
    return model


def _positive_dk(value, path):
    d_k = _number(value, path)
    if d_k <= 0:
        raise ModelFileError(f"must be positive (it scales scores by 1/sqrt(d_k)); got {value!r}", path)
    return d_k


_num_out = json_number


def _rows_out(M):
    return [[_num_out(v) for v in row] for row in M]


def _head_out(h, model_ties):
    out = {"keys": _rows_out(h.keys), "offsets": [_num_out(v) for v in h.offsets], "values": _rows_out(h.values)}
    if h.d_k is not None:
        out["d_k"] = _num_out(h.d_k)
    elif h.score_scale != 1.0:
        out["score_scale"] = h.score_scale          # a float: JSON keeps its shortest exact repr
    if h.ties != model_ties:
        out["ties"] = h.ties
    return out


def model_to_json(model) -> dict:
    """The score form of ``model`` as a JSON-ready dict (numbers exact, fractions as strings).

    Every field the format holds is written (each head's ``d_k`` or ``score_scale``, the
    tie rule, residual flags, projections, FFNs), so ``model_from_json(model_to_json(m))
    == m``.

    Parameters
    ----------
    model : Transformer
        Any model (built in score or weight form).

    Returns
    -------
    dict
        The ``tropattn.model/1`` score form.

    Raises
    ------
    InvalidInputError
        If a layer has a skip matrix or changes the dimension (a sliced model): the format
        cannot hold it.

    Examples
    --------
    >>> from tropattn.attention import sawtooth_model
    >>> m = sawtooth_model(1, 2, 1)
    >>> model_from_json(model_to_json(m)) == m
    True
    """
    ties = model.ties or "refuse"
    layers = []
    for l, layer in enumerate(model.layers):
        if not isinstance(layer.residual, bool) or layer.dim != model.dim:
            raise InvalidInputError(
                f"layers[{l}] maps R^{layer.dim} to R^{layer.dim_out} through a skip matrix (a sliced model, see "
                f"tropattn.attention.slice_model); {FORMAT} holds models whose layers all act on R^dim with residual on or off. "
                "Save the full model and slice it again after loading")
        out = {"residual": layer.residual, "heads": [_head_out(h, ties) for h in layer.heads]}
        if getattr(layer, "projection", None) is not None:
            out["projection"] = _rows_out(layer.projection)
        if getattr(layer, "ffn", None) is not None:
            f = layer.ffn
            out["ffn"] = {"W1": _rows_out(f.W1), "b1": [_num_out(v) for v in f.b1],
                          "W2": _rows_out(f.W2), "b2": [_num_out(v) for v in f.b2]}
        layers.append(out)
    obj = {"format": FORMAT, "dim": model.dim}
    if ties != "refuse":
        obj["ties"] = ties
    obj["layers"] = layers
    return obj


def load_sites(obj_or_path):
    """``{"sites": [[...], ...], "weights": [...]}`` -> (sites, weights) as exact tuples.

    Parameters
    ----------
    obj_or_path : dict, str or Path
        A parsed sites object or the path of its JSON file.

    Returns
    -------
    tuple
        ``(sites, weights)``: a tuple of rational points and a tuple of rationals
        (weights default to 0).

    Raises
    ------
    ModelFileError
        A malformed file, an unknown field, or weights of the wrong length.

    Examples
    --------
    >>> load_sites({"sites": [[0, 0], ["1/2", 1]], "weights": [0, 0.25]})[1]
    (Fraction(0, 1), Fraction(1, 4))
    """
    obj = load_json(obj_or_path) if isinstance(obj_or_path, (str, Path)) else obj_or_path
    check_fields(obj, "sites")
    sites = _matrix(_field(obj, "sites", ""), "sites", what="sites")
    weights = _field(obj, "weights", "", required=False)
    weights = _vector(weights, "weights", len(sites)) if weights is not None else (Fraction(0),) * len(sites)
    return sites, weights


def load_slice(obj):
    """``{"x0": [...], "directions": [[...], ...]}`` -> ``(x0, directions)`` as exact tuples.

    The affine slice ``x = x0 + t_1 u_1 + ... + t_k u_k`` of a model's query space
    (:func:`~tropattn.attention.slice_model`).

    Parameters
    ----------
    obj : dict
        A parsed slice object.

    Returns
    -------
    tuple
        ``(x0, directions)``: a rational point and a tuple of rational directions of its length.

    Raises
    ------
    ModelFileError
        A malformed object, an unknown field, or directions of the wrong length.

    Examples
    --------
    >>> load_slice({"x0": [0, "1/2"], "directions": [[1, 0]]})
    ((Fraction(0, 1), Fraction(1, 2)), ((Fraction(1, 1), Fraction(0, 1)),))
    """
    check_fields(obj, "slice")
    x0 = _field(obj, "x0", "", list)
    x0 = _vector(x0, "x0")
    directions = _matrix(_field(obj, "directions", ""), "directions", cols=len(x0), what="directions")
    return x0, directions
