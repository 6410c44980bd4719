"""Fuzzing the command line: random valid and broken model files, never a traceback.

Every run of ``tropattn count`` exits 0 or 2 (an InternalError or any other exception
fails the test with its traceback), and wherever ``--method dual`` answers, it agrees
with the primal count.
"""

import json

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tropattn.cli import main

SMALL = st.one_of(st.integers(-3, 3), st.sampled_from(["1/2", "-1/3", "0.25", "-2"]))
#: Numbers at the edges: subnormal and huge floats, strings beyond the float range, long integers.
EDGE = st.sampled_from([2.2250738585072014e-308, 5e-324, 1.7976931348623157e308, -1e300, "1e309", "-1e400",
                        "1e-400", "3/" + "7" * 30, "1" + "0" * 400])
NUMBER = st.one_of(SMALL, SMALL, SMALL, EDGE)


@st.composite
def score_models(draw, number=NUMBER):
    d = draw(st.integers(1, 2))
    layers = []
    for _ in range(draw(st.integers(1, 2))):
        heads = []
        for _ in range(draw(st.integers(1, 2))):
            n = draw(st.integers(1, 3))
            head = {"keys": [[draw(number) for _ in range(d)] for _ in range(n)]}
            if draw(st.booleans()):
                head["offsets"] = [draw(number) for _ in range(n)]
            if draw(st.booleans()):
                head["values"] = [[draw(SMALL) for _ in range(d)] for _ in range(n)]
            heads.append(head)
        layer = {"heads": heads}
        if draw(st.booleans()):
            layer["residual"] = draw(st.booleans())
        if draw(st.integers(0, 3)) == 0:
            layer["ffn"] = {"W1": [[draw(SMALL) for _ in range(d)]], "b1": [draw(SMALL)],
                            "W2": [[draw(SMALL)] for _ in range(d)], "b2": [draw(SMALL) for _ in range(d)]}
        layers.append(layer)
    obj = {"format": "tropattn.model/1", "dim": d, "layers": layers}
    if draw(st.integers(0, 4)) == 0:
        obj["ties"] = draw(st.sampled_from(["first", "refuse", "firts"]))
    return obj


@st.composite
def weight_models(draw, number=SMALL):
    d, n, k = draw(st.integers(1, 2)), draw(st.integers(1, 3)), draw(st.integers(1, 2))

    def mat(rows, cols):
        return [[draw(number) for _ in range(cols)] for _ in range(rows)]

    head = {"W_Q": mat(k, d), "W_K": mat(k, d), "W_V": mat(d, d)}
    if draw(st.booleans()):
        head["b_Q"] = [draw(number) for _ in range(k)]
    layer = {"heads": [head], "d_k": draw(st.sampled_from([1, 4, "1/2"]))}
    return {"format": "tropattn.model/1", "form": "weights", "dim": d, "context": mat(n, d), "layers": [layer]}


def _objects(obj, path=()):
    """Every JSON object inside ``obj`` with its path of keys."""
    if isinstance(obj, dict):
        yield path, obj
        for k, v in obj.items():
            yield from _objects(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _objects(v, path + (i,))


MUTATIONS = ("misspell", "drop", "retype", "extra", "truncate", "none")


@st.composite
def broken(draw, obj):
    kind = draw(st.sampled_from(MUTATIONS))
    targets = list(_objects(obj))
    _, target = targets[draw(st.integers(0, len(targets) - 1))]
    keys = list(target)
    if kind == "none" or not keys:
        return obj
    key = keys[draw(st.integers(0, len(keys) - 1))]
    if kind == "misspell":
        target[key[:-1] if len(key) > 1 else key + "_"] = target.pop(key)
    elif kind == "drop":
        target.pop(key)
    elif kind == "retype":
        target[key] = draw(st.sampled_from([None, "x", True, {}, [], [[]], 0.5, -1, [1, "a"]]))
    elif kind == "extra":
        target[draw(st.sampled_from(["offset", "b_O", "include_query", "resdiual", "layer"]))] = 1
    elif kind == "truncate" and isinstance(target[key], list) and target[key]:
        target[key].pop()
    return obj


def _count(path, *extra):
    code = main(["count", str(path), "--json", "--progress", "never", *extra])
    assert code in (0, 2)
    return code


def _run(tmp_path, capsys, obj):
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps(obj))
    capsys.readouterr()
    code = _count(path)
    out, err = capsys.readouterr()
    assert "Traceback" not in err and (code == 0) == (out != "")
    primal = json.loads(out)["activation_regions"] if code == 0 else None
    code = _count(path, "--method", "dual")
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    if code == 0 and primal is not None:
        assert json.loads(out)["activation_regions"] == primal
    return primal


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_model_files_exit_0_or_2(tmp_path, capsys, data):
    obj = data.draw(st.one_of(score_models(number=SMALL), weight_models()))
    if data.draw(st.booleans()):
        obj = data.draw(broken(obj))
    _run(tmp_path, capsys, obj)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_fuzzed_files_with_float_edge_numbers_exit_0_or_2(tmp_path, capsys, data):
    obj = data.draw(score_models())
    if data.draw(st.booleans()):
        obj = data.draw(broken(obj))
    _run(tmp_path, capsys, obj)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(score_models(number=SMALL))
def test_valid_small_files_are_counted_or_refused_for_a_reason(tmp_path, capsys, obj):
    _run(tmp_path, capsys, obj)


@pytest.mark.parametrize("keys,regions", [
    ([[0, 1], [1, 2.2250738585072014e-308]], 2),       # the smallest normal double (the primal crash)
    ([[0], [1], ["1e309"]], 2),                         # beyond the float range; key 1 lies between: never wins
    ([[0, 0], ["1e-400", 1], [1, "-1e400"]], 3),
])
def test_known_float_edge_files_exit_0_or_2(tmp_path, capsys, keys, regions):
    """Zero offsets: the regions are the cones of the vertices of conv{a_j} (counted by hand)."""
    obj = {"format": "tropattn.model/1", "dim": len(keys[0]), "layers": [{"heads": [{"keys": keys}]}]}
    assert _run(tmp_path, capsys, obj) == regions


@pytest.mark.parametrize("command,wrap", [("count", "{}"), ("power", '{{"sites": {}}}')])
def test_deeply_nested_json_is_one_error_line(tmp_path, capsys, command, wrap):
    path = tmp_path / "deep.json"
    path.write_text(wrap.format("[" * 2000 + "]" * 2000))
    capsys.readouterr()
    assert main([command, str(path)]) == 2
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "nests arrays or objects too deeply" in err
    assert len(err.strip().splitlines()) == 1


def test_ties_first_overrides_a_files_duplicate_key_refusal(tmp_path, capsys):
    # --ties's help: "tie rule for every head, overriding the file's"; a duplicate key is refused only under refuse
    head = {"keys": [[0], [1], [1]], "values": [[0], [1], [2]], "ties": "refuse"}
    path = tmp_path / "dup.json"
    path.write_text(json.dumps({"format": "tropattn.model/1", "dim": 1, "layers": [{"heads": [head]}]}))
    capsys.readouterr()
    assert main(["count", str(path), "--json", "--progress", "never"]) == 2
    assert "are equal" in capsys.readouterr().err
    assert main(["count", str(path), "--json", "--progress", "never", "--ties", "first"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["activation_regions"] == 2 and out["ties"] == "first"
