"""Model files: exact numbers, round trips, errors that name the JSON path."""

import copy
from fractions import Fraction

import numpy as np
import pytest

from tropattn.attention import random_model, sawtooth_model
from tropattn.errors import ModelFileError
from tropattn.io import load_model, model_from_json, model_to_json, save_model

BASE = {"format": "tropattn.model/1", "dim": 2, "layers": [
    {"residual": True, "heads": [
        {"keys": [[1, 0], [0, 1], [-1, -1]], "offsets": [0, "1/2", 0.25], "values": [[1, 0], [0, 1], [0, 0]]},
        {"keys": [[2, 1], [0, 0]], "offsets": ["-0.1", 0], "values": [[0, 1], [1, 0]]}]}]}


def test_numbers_are_exact():
    model = model_from_json(BASE)
    h0, h1 = model.layers[0].heads
    assert h0.offsets == (0, Fraction(1, 2), Fraction(1, 4))
    assert h1.offsets[0] == Fraction(-1, 10)                        # decimal string: exactly 1/10
    obj = copy.deepcopy(BASE)
    obj["layers"][0]["heads"][0]["offsets"][1] = 0.1
    assert model_from_json(obj).layers[0].heads[0].offsets[1] == Fraction(0.1)   # JSON float: its binary value


@pytest.mark.parametrize("model", [sawtooth_model(2, 3, 2), random_model(2, 2, 3, 2, seed=3, ffn_hidden=2)])
def test_json_round_trip(tmp_path, model):
    path = tmp_path / "m.json"
    save_model(model, path)
    again = load_model(path)
    assert model_to_json(again) == model_to_json(model)
    x = (Fraction(1, 5), Fraction(-2, 7))
    assert again.evaluate(x) == model.evaluate(x)


def test_npz_round_trip_for_dyadic_weights(tmp_path):
    model = sawtooth_model(1, 2, 2)                 # all numbers dyadic: floats hold them exactly
    save_model(model, tmp_path / "m.npz")
    assert model_to_json(load_model(tmp_path / "m.npz")) == model_to_json(model)


def _error(mutate):
    obj = copy.deepcopy(BASE)
    mutate(obj)
    with pytest.raises(ModelFileError) as info:
        model_from_json(obj)
    return str(info.value)


def test_errors_name_the_json_path():
    assert _error(lambda o: o["layers"][0]["heads"][1]["keys"].__setitem__(1, [0, "x"])).startswith(
        "layers[0].heads[1].keys[1][1]:")
    assert _error(lambda o: o["layers"][0]["heads"][0]["keys"].__setitem__(2, [1])).startswith(
        "layers[0].heads[0].keys[2]:")
    assert "NaN" in _error(lambda o: o["layers"][0]["heads"][0]["offsets"].__setitem__(0, float("nan")))
    assert _error(lambda o: o["layers"][0]["heads"][0].pop("keys")).startswith("layers[0].heads[0]: missing")
    assert _error(lambda o: o.__setitem__("format", "other/2")).startswith("format: unknown format")
    assert _error(lambda o: o["layers"][0]["heads"][0]["offsets"].pop()).startswith(
        "layers[0].heads[0].offsets: has 2 entries; expected 3")
    assert "dim" in _error(lambda o: o["layers"][0]["heads"][0].__setitem__("values", [[1], [2], [3]]))
    assert _error(lambda o: o.__setitem__("dim", "2")).startswith("dim: expected int")


def test_empty_context_is_refused():
    msg = _error(lambda o: o["layers"][0]["heads"][0].update(keys=[], offsets=[], values=[]))
    assert msg.startswith("layers[0].heads[0].keys")


def test_invalid_json_file(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{not json")
    with pytest.raises(ModelFileError, match="not valid JSON"):
        load_model(p)
    with pytest.raises(ModelFileError, match="no such file"):
        load_model(tmp_path / "missing.json")


def test_weight_form_file_matches_direct_hard_attention():
    # one layer, two heads, d_model = 2, a context of three tokens; compare with attention computed by hand
    ctx = [[1, 0], [0, 1], ["1/2", "-1"]]
    heads = [{"W_Q": [[1, 2], [0, 1]], "W_K": [[1, 0], [1, 1]], "W_V": [[1, 0], [0, 1]], "W_O": [[2, 0], [0, 1]],
              "b_Q": ["1/3", 0]},
             {"W_Q": [[0, 1]], "W_K": [[1, -1]], "W_V": [[1, 1]], "W_O": [[1], [-1]]}]
    obj = {"format": "tropattn.model/1", "form": "weights", "dim": 2, "context": ctx,
           "layers": [{"residual": True, "d_k": 4, "heads": heads}]}
    model = model_from_json(obj)
    F = lambda M: [[Fraction(v) for v in row] for row in M]          # noqa: E731
    Y = F(ctx)

    def mat(M, v):
        return [sum(a * b for a, b in zip(row, v)) for row in M]

    def hand(x):
        out = list(x)
        for h in heads:
            q = mat(F(h["W_Q"]), x)
            q = [a + Fraction(b) for a, b in zip(q, h.get("b_Q", [0] * len(q)))]
            scores = [sum(a * b for a, b in zip(q, mat(F(h["W_K"]), y))) for y in Y]
            j = max(range(len(Y)), key=lambda i: scores[i])
            assert scores.count(scores[j]) == 1
            out = [o + v for o, v in zip(out, mat(F(h["W_O"]), mat(F(h["W_V"]), Y[j])))]
        return tuple(out)

    for x in [(Fraction(1, 3), Fraction(2, 7)), (Fraction(-2), Fraction(5, 3)), (Fraction(3), Fraction(-1, 9))]:
        assert model.evaluate(x)[0] == hand(x)


def test_weight_form_errors_name_the_path():
    obj = {"format": "tropattn.model/1", "form": "weights", "dim": 2, "context": [[1, 0]],
           "layers": [{"heads": [{"W_Q": [[1, 0]], "W_K": [[1, 0, 0]], "W_V": [[1, 0]], "W_O": [[1], [0]]}]}]}
    with pytest.raises(ModelFileError) as info:
        model_from_json(obj)
    assert str(info.value).startswith("layers[0].heads[0].W_K[0]")


def test_npz_refuses_to_round(tmp_path):
    model = model_from_json(BASE)                      # holds 1/10, which float64 cannot
    with pytest.raises(ModelFileError, match="save the model as .json"):
        save_model(model, tmp_path / "m.npz")


@pytest.mark.parametrize("mutate,path", [
    (lambda l: l.__setitem__("d_k", "abc"), "layers[0].d_k"),
    (lambda l: l.__setitem__("d_k", 0), "layers[0].d_k"),
    (lambda l: l.__setitem__("heads", []), "layers[0].heads"),
])
def test_weight_form_layer_errors_name_the_field(mutate, path):
    obj = {"format": "tropattn.model/1", "form": "weights", "dim": 1, "context": [[1], [2]],
           "layers": [{"d_k": 1, "heads": [{"W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}]}]}
    model_from_json(obj)                                # valid as given (W_O defaults to the identity)
    mutate(obj["layers"][0])
    with pytest.raises(ModelFileError) as info:
        model_from_json(obj)
    assert str(info.value).startswith(path)


def test_npz_weight_form_matches_the_json_weight_form(tmp_path):
    rng = np.random.default_rng(3)
    d, N = 2, 4
    arrays = {"dim": np.array(d), "context": rng.integers(-3, 4, size=(N, d)).astype(float) / 2,
              "layers.0.d_k": np.array(2.0), "layers.0.residual": np.array(True)}
    for h in range(2):
        for name, shape in (("W_Q", (2, d)), ("W_K", (2, d)), ("W_V", (d, d))):
            arrays[f"layers.0.heads.{h}.{name}"] = rng.integers(-2, 3, size=shape).astype(float)
        arrays[f"layers.0.heads.{h}.b_Q"] = rng.integers(-2, 3, size=2) / 4
    np.savez(tmp_path / "w.npz", **arrays)
    from_npz = load_model(tmp_path / "w.npz")
    obj = {"format": "tropattn.model/1", "form": "weights", "dim": d, "context": arrays["context"].tolist(),
           "layers": [{"d_k": 2, "residual": True,
                       "heads": [{k.split(".")[-1]: arrays[k].tolist() for k in arrays
                                  if k.startswith(f"layers.0.heads.{h}.")} for h in range(2)]}]}
    from_json = model_from_json(obj)
    assert model_to_json(from_npz) == model_to_json(from_json)
    assert len(from_npz.layers[0].heads) == 2 and from_npz.layers[0].heads[0].N == N
