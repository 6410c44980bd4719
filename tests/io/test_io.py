"""Model files: exact numbers, round trips, errors that name the JSON path."""

import copy
from fractions import Fraction

import numpy as np
import pytest

from tropattn.attention import random_model, sawtooth_model
from tropattn.errors import ModelFileError
from tropattn.io import load, model_from_json, model_to_json, save
from tropattn.soft import soft_output

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
    save(model, path)
    again = load(path)
    assert model_to_json(again) == model_to_json(model)
    x = (Fraction(1, 5), Fraction(-2, 7))
    assert again.evaluate(x) == model.evaluate(x)


def test_npz_round_trip_for_dyadic_weights(tmp_path):
    model = sawtooth_model(1, 2, 2)                 # all numbers dyadic: floats hold them exactly
    save(model, tmp_path / "m.npz")
    assert model_to_json(load(tmp_path / "m.npz")) == model_to_json(model)


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
        load(p)
    with pytest.raises(ModelFileError, match="no such file"):
        load(tmp_path / "missing.json")


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
        save(model, tmp_path / "m.npz")


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
    from_npz = load(tmp_path / "w.npz")
    obj = {"format": "tropattn.model/1", "form": "weights", "dim": d, "context": arrays["context"].tolist(),
           "layers": [{"d_k": 2, "residual": True,
                       "heads": [{k.split(".")[-1]: arrays[k].tolist() for k in arrays
                                  if k.startswith(f"layers.0.heads.{h}.")} for h in range(2)]}]}
    from_json = model_from_json(obj)
    assert model_to_json(from_npz) == model_to_json(from_json)
    assert len(from_npz.layers[0].heads) == 2 and from_npz.layers[0].heads[0].N == N


# ---------------------------------------------------------------- strict files (issue 9, point 1)

WEIGHTS = {"format": "tropattn.model/1", "form": "weights", "dim": 1, "context": [[1], [2]],
           "layers": [{"d_k": 4, "heads": [{"W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}],
                       "ffn": {"W1": [[1]], "b1": [0], "W2": [[1]], "b2": [0]}}]}


@pytest.mark.parametrize("where,bad,good", [
    (lambda o: o, "layer", "layers"),                                        # top level
    (lambda o: o, "Dim", "dim"),
    (lambda o: o, "tie", "ties"),
    (lambda o: o["layers"][0], "resdiual", "residual"),                      # a layer
    (lambda o: o["layers"][0], "projections", "projection"),
    (lambda o: o["layers"][0], "FFN", "ffn"),
    (lambda o: o["layers"][0]["heads"][1], "offset", "offsets"),             # a head
    (lambda o: o["layers"][0]["heads"][1], "value", "values"),
    (lambda o: o["layers"][0]["heads"][1], "dk", "d_k"),
    (lambda o: o["layers"][0]["heads"][1], "score_scal", "score_scale"),
])
def test_misspelt_score_form_field_names_path_and_suggestion(where, bad, good):
    obj = copy.deepcopy(BASE)
    where(obj)[bad] = [[0]]
    path = {id(obj): "(top level)", id(obj["layers"][0]): "layers[0]",
            id(obj["layers"][0]["heads"][1]): "layers[0].heads[1]"}[id(where(obj))]
    with pytest.raises(ModelFileError) as info:
        model_from_json(obj)
    assert str(info.value) == f"{path}: unknown field {bad!r}; did you mean {good!r}?"


def test_misspelt_ffn_and_weight_form_fields():
    obj = copy.deepcopy(BASE)
    obj["layers"][0]["ffn"] = {"W1": [[1, 0]], "b1": [0], "W2": [[1], [0]], "b2": [0, 0], "b_2": [0]}
    with pytest.raises(ModelFileError, match=r"^layers\[0\]\.ffn: unknown field 'b_2'; did you mean 'b2'\?"):
        model_from_json(obj)
    for where, bad, good in [(lambda o: o, "contxt", "context"),
                             (lambda o: o["layers"][0], "dk", "d_k"),
                             (lambda o: o["layers"][0]["heads"][0], "W_Qs", "W_Q"),
                             (lambda o: o["layers"][0]["heads"][0], "bQ", "b_Q")]:
        obj = copy.deepcopy(WEIGHTS)
        where(obj)[bad] = 1
        with pytest.raises(ModelFileError, match=f"unknown field '{bad}'; did you mean '{good}'"):
            model_from_json(obj)


def test_unknown_field_without_a_close_name_lists_the_valid_ones():
    obj = copy.deepcopy(BASE)
    obj["layers"][0]["heads"][0]["b_O"] = [0, 0]
    with pytest.raises(ModelFileError, match=r"unknown field 'b_O'; the fields of a head are keys, offsets"):
        model_from_json(obj)


def test_include_query_is_refused_not_dropped():
    obj = copy.deepcopy(WEIGHTS)
    model_from_json(obj)
    obj["include_query"] = True
    with pytest.raises(ModelFileError, match="^include_query: the query attends to itself"):
        model_from_json(obj)


def test_misspelt_offsets_no_longer_changes_the_count():
    obj = {"format": "tropattn.model/1", "dim": 1,
           "layers": [{"heads": [{"keys": [[0], [1], [2], [3]], "offset": [0, -1, -3, -6]}]}]}
    with pytest.raises(ModelFileError, match="did you mean 'offsets'"):
        model_from_json(obj)


def test_equal_keys_with_different_values_are_refused_with_both_indices():
    obj = copy.deepcopy(BASE)
    head = obj["layers"][0]["heads"][0]
    head["keys"][2], head["offsets"][2] = [1, 0], 0            # key 2 repeats key 0, value differs
    with pytest.raises(ModelFileError, match=r"^layers\[0\]\.heads\[0\]: keys\[0\] and keys\[2\] are equal"):
        model_from_json(obj)
    obj["ties"] = "first"                                      # the lower index wins, as argmax does
    model = model_from_json(obj)
    assert model.layers[0].heads[0].label([5, 0]) == 0
    head["values"][2] = [1, 0]                                 # an exact duplicate is one key: accepted
    del obj["ties"]
    model_from_json(obj)


def test_npz_names_are_checked(tmp_path):
    model = sawtooth_model(1, 2, 1)
    save(model, tmp_path / "m.npz")
    data = dict(np.load(tmp_path / "m.npz"))
    data["layers.0.heads.0.offset"] = data.pop("layers.0.heads.0.offsets")
    np.savez(tmp_path / "bad.npz", **data)
    with pytest.raises(ModelFileError, match=r"layers\[0\]\.heads\[0\]: unknown field 'offset'; did you mean"):
        load(tmp_path / "bad.npz")
    data = dict(np.load(tmp_path / "m.npz"))
    data["dims"] = data["dim"]
    np.savez(tmp_path / "bad2.npz", **data)
    with pytest.raises(ModelFileError, match="unexpected array 'dims'; did you mean 'dim'"):
        load(tmp_path / "bad2.npz")


def test_garbage_npz_gets_a_clear_message(tmp_path):
    (tmp_path / "g.npz").write_bytes(b"not a zip file at all" * 10)
    with pytest.raises(ModelFileError, match="not a NumPy .npz archive") as info:
        load(tmp_path / "g.npz")
    assert "pickle" not in str(info.value)
    np.save(tmp_path / "one.npy", np.zeros(3))
    (tmp_path / "one.npz").write_bytes((tmp_path / "one.npy").read_bytes())
    with pytest.raises(ModelFileError, match="single array"):
        load(tmp_path / "one.npz")
    np.savez(tmp_path / "obj.npz", dim=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ModelFileError, match="plain numeric arrays"):
        load(tmp_path / "obj.npz")


def test_npz_refuses_big_integers_floats_cannot_hold(tmp_path):
    from tropattn.attention import Head, Layer, Transformer
    for bad in (2 ** 53 + 1, 10 ** 400):
        with pytest.raises(ModelFileError, match="no exact float64 value"):
            save(Transformer([Layer([Head([[0], [bad]])])]), tmp_path / "m.npz")


def test_five_thousand_digit_numbers_api_equals_file(tmp_path):
    big = "1" + "0" * 5000 + "/3"
    obj = {"format": "tropattn.model/1", "dim": 1, "layers": [{"heads": [{"keys": [[0], [1]], "offsets": [0, big]}]}]}
    model = model_from_json(obj)
    assert model.layers[0].heads[0].offsets[1] == Fraction(10 ** 5000, 3)
    save(model, tmp_path / "big.json")
    assert load(tmp_path / "big.json") == model
    text = (tmp_path / "big.json").read_text().replace(f'"{big}"', "1" + "0" * 5000)   # a bare JSON integer
    (tmp_path / "big2.json").write_text(text)
    assert load(tmp_path / "big2.json").layers[0].heads[0].offsets[1] == 10 ** 5000


# ---------------------------------------------------------------- lossless round trips (point 2)

from hypothesis import given, settings, strategies as st                      # noqa: E402

from tropattn.attention import FFN, Head, Layer, Transformer                  # noqa: E402

_num = st.one_of(st.integers(-5, 5), st.fractions(min_value=-8, max_value=8, max_denominator=7))


@st.composite
def models(draw):
    d = draw(st.integers(1, 2))
    ties = draw(st.sampled_from(["refuse", "first"]))
    layers = []
    for _ in range(draw(st.integers(1, 2))):
        m = draw(st.integers(1, 2))
        heads = []
        for _ in range(draw(st.integers(1, 2))):
            n = draw(st.integers(1, 3))
            keys = [[draw(_num) for _ in range(d)] for _ in range(n)]
            offsets = [Fraction(i, 2) + draw(_num) / 100 for i in range(n)]    # distinct offsets: no duplicates
            values = [[draw(_num) for _ in range(m)] for _ in range(n)]
            scale = draw(st.sampled_from([dict(), dict(d_k=draw(st.integers(1, 64))), dict(score_scale=0.3)]))
            heads.append(Head(keys, offsets, values, ties=draw(st.sampled_from([ties, "first", "refuse"])), **scale))
        residual = draw(st.booleans())
        projection = [[draw(_num) for _ in range(m)] for _ in range(d)] if (m != d or draw(st.booleans())) else None
        ffn = FFN([[draw(_num) for _ in range(d)]], [draw(_num)], [[draw(_num)] for _ in range(d)],
                  [draw(_num) for _ in range(d)]) if draw(st.booleans()) else None
        layers.append(Layer(heads, residual=residual, projection=projection, ffn=ffn))
    return Transformer(layers)


@settings(max_examples=40, deadline=None)
@given(models())
@pytest.mark.slow
def test_save_load_round_trip_is_lossless(tmp_path_factory, model):
    path = tmp_path_factory.mktemp("rt") / "m.json"
    save(model, path)
    assert load(path) == model                     # keys, offsets, values, d_k, scale, ties, residual, FFN
    assert model_from_json(model_to_json(model)) == model


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 9), st.booleans(), st.integers(0, 3))
def test_weight_form_round_trip_keeps_the_scale(tmp_path_factory, d_k, bias, seed):
    rng = np.random.default_rng(seed)
    obj = copy.deepcopy(WEIGHTS)
    obj["context"] = rng.integers(-3, 4, size=(3, 1)).tolist()
    obj["layers"][0]["d_k"] = d_k
    if bias:
        obj["layers"][0]["heads"][0].update(b_Q=[1], b_K=["1/2"], b_V=[-1])
    model = model_from_json(obj)
    assert model.layers[0].heads[0].score_scale == pytest.approx(d_k ** -0.5)
    for suffix in ("json", "npz"):
        path = tmp_path_factory.mktemp("w") / f"m.{suffix}"
        save(model, path)
        again = load(path)
        assert again == model
        X = np.linspace(-2, 2, 9)[:, None]
        assert np.array_equal(soft_output(again.layers[0].heads[0], X, 1.0), soft_output(model.layers[0].heads[0], X, 1.0))


def test_weight_form_equal_keys_with_different_values_follow_the_tie_rule():
    obj = copy.deepcopy(WEIGHTS)
    obj["layers"][0]["heads"][0].update(W_Q=[[0]], W_V=[[1]])       # every key is 0: all tokens tie
    obj["layers"][0].pop("ffn")
    with pytest.raises(ModelFileError, match=r"layers\[0\]\.heads\[0\] \(context tokens as keys\): keys\[0\] and "
                                             r"keys\[1\] are equal"):
        model_from_json(obj)
    obj["ties"] = "first"
    assert model_from_json(obj).layers[0].heads[0].label([5]) == 0


def test_a_sliced_model_is_refused_not_saved_wrong():
    import tropattn as ta

    from tropattn.errors import InvalidInputError

    sliced = ta.slice_model(ta.sawtooth_model(2, 2, 2), [0, 0], [[1, 0]])   # layer 0: R^1 -> R^2 (skip matrix)
    with pytest.raises(InvalidInputError, match="skip matrix"):
        model_to_json(sliced)


# ------------------------------------------------------------------ one load, one save: every kind of file

def test_load_tells_every_kind_of_file_and_save_writes_it_back(tmp_path):
    from tropattn.geometry import PowerDiagram
    from tropattn.tropical import parse_polynomial

    model, poly = sawtooth_model(1, 2, 2), parse_polynomial("max(0, x + 1/2, 2*y)")     # dyadic: .npz holds it
    save(model, tmp_path / "m.json")
    save(model, tmp_path / "m.npz")
    save(poly, tmp_path / "p.json")
    save(PowerDiagram([[0, 0], [1, 0]], [0, "1/2"]), tmp_path / "s.json")
    save(([0, "1/2"], [[1, 0], [0, 1]]), tmp_path / "x.json", kind="slice")
    assert load(tmp_path / "m.json") == model == load(tmp_path / "m.npz") == load(tmp_path / "m.json", kind="model")
    assert load(tmp_path / "p.json") == poly
    assert load(tmp_path / "s.json") == (((0, 0), (1, 0)), (0, Fraction(1, 2)))
    assert load(tmp_path / "x.json") == ((0, Fraction(1, 2)), ((1, 0), (0, 1)))


def test_load_refuses_what_it_cannot_tell_or_is_not_asked(tmp_path):
    from tropattn.errors import InvalidInputError

    (tmp_path / "odd.json").write_text('{"numbers": [1, 2]}')
    with pytest.raises(ModelFileError, match="cannot tell what"):
        load(tmp_path / "odd.json")
    save(sawtooth_model(1, 2, 1), tmp_path / "m.json")
    with pytest.raises(ModelFileError, match="unknown field 'format'"):      # read as sites: its fields are wrong
        load(tmp_path / "m.json", kind="sites")
    with pytest.raises(InvalidInputError, match="context apply to .safetensors checkpoints only"):
        load(tmp_path / "m.json", context=[1, 2])
    with pytest.raises(InvalidInputError, match="kind = 'modle'.*did you mean 'model'"):
        load(tmp_path / "m.json", kind="modle")
    with pytest.raises(InvalidInputError, match="pass context="):
        load(tmp_path / "gpt.safetensors")
    with pytest.raises(InvalidInputError, match="kind='sites'"):
        save(([[0]], [0]), tmp_path / "s.json")


def test_old_loaders_name_their_new_home():
    import tropattn.io as io
    from tropattn.errors import MovedError

    for old, new in (("load_model", "tropattn.io.load"), ("save_model", "tropattn.io.save"),
                     ("load_sites", "kind='sites'"), ("load_json", "tropattn.exact.load_json")):
        with pytest.raises(MovedError, match=new):
            getattr(io, old)
    assert set(io.__all__) <= set(dir(io)) and "load_model" not in dir(io)
