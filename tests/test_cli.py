"""The command line: JSON outputs, exit codes, one-line errors."""

import json

import pytest

from tropattn.attention import sawtooth_model
from tropattn.cli import main
from tropattn.io import save_model


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_count_json(tmp_path, capsys):
    path = tmp_path / "m.json"
    save_model(sawtooth_model(1, 3, 2), path)
    code, out, _ = run(capsys, "count", str(path), "--json")
    obj = json.loads(out)
    assert code == 0
    assert obj["activation_regions"] == 9 and obj["linear_regions"] == 9
    assert obj["dim"] == 1 and obj["layers"] == 2 and obj["heads"] == [1, 1] and obj["keys"] == [[3], [3]]
    assert obj["method"] == "primal" and obj["seconds"] >= 0


def test_count_dual_agrees_with_primal(tmp_path, capsys):
    path = tmp_path / "m.json"
    from tropattn.attention import random_model

    save_model(random_model(2, 3, 3, seed=5), path)
    primal = json.loads(run(capsys, "count", str(path), "--json")[1])
    dual = json.loads(run(capsys, "count", str(path), "--json", "--method", "dual")[1])
    assert primal["activation_regions"] == dual["activation_regions"]


def test_count_in_a_box(tmp_path, capsys):
    path = tmp_path / "m.json"
    save_model(sawtooth_model(1, 3, 1), path)
    obj = json.loads(run(capsys, "count", str(path), "--json", "--box", "0,1/2")[1])
    assert obj["activation_regions"] == 2                      # walls at 1/3 and 2/3


@pytest.mark.parametrize("content,needle", [
    ('{"format": "tropattn.model/1", "dim": 1, "layers": [{"heads": [{"keys": [[0], ["a"]]}]}]}',
     "layers[0].heads[0].keys[1][0]"),
    ('{"format": "nope", "dim": 1, "layers": []}', "format"),
    ('{"format": "tropattn.model/1", "dim": 1, "layers": [{"heads": [{"keys": [[0], [1, 2]]}]}]}',
     "layers[0].heads[0].keys[1]"),
    ('[1, 2]', "one JSON object"),
])
def test_bad_model_gives_one_line_and_status_2(tmp_path, capsys, content, needle):
    path = tmp_path / "bad.json"
    path.write_text(content)
    code, out, err = run(capsys, "count", str(path))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_bounds_json(capsys):
    code, out, _ = run(capsys, "bounds", "--dim", "1", "--heads", "3", "--keys", "3", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["product"] == 27 and obj["line"] == 7 and obj["product_attainable"] is False


def test_regions_json(capsys):
    code, out, _ = run(capsys, "regions", "max(0, x + 1, 2*y - 1/2)", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["linear_regions"] == 3 and obj["redundant_terms"] == [] and len(obj["terms"]) == 3


def test_regions_reports_redundant_terms(capsys):
    obj = json.loads(run(capsys, "regions", "max(0, x, 2*x, 1/2*x - 5)", "--json")[1])
    assert obj["redundant_terms"] == [1, 3] and obj["linear_regions"] == 2


def test_power_json(tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"sites": [[0, 0], [2, 0], [1, 0], [0, 2]], "weights": [0, 0, -5, 0]}))
    obj = json.loads(run(capsys, "power", str(path), "--json")[1])
    assert obj["hidden"] == [2]
    assert sorted(obj["nonempty"]) == [0, 1, 3]
    assert [0, 1] in obj["adjacency"] and [0, 3] in obj["adjacency"]


def test_demo_runs(capsys):
    code, out, _ = run(capsys, "demo")
    assert code == 0 and "linear regions: 6" in out and "exact activation regions: 81" in out


def test_table_quick(tmp_path, capsys):
    path = tmp_path / "t.csv"
    code, out, _ = run(capsys, "table", "--quick", "--seeds", "1", "-o", str(path))
    lines = path.read_text().splitlines()
    assert code == 0 and lines[0].startswith("dim,heads,keys,layers,model")
    assert any(",grid," in l for l in lines[1:])


def test_conventions_prints_both_defects(capsys):
    code, out, _ = run(capsys, "conventions", "--json")
    obj = json.loads(out)
    assert code == 0 and obj["paper"]["exponent"] == -16.0 and obj["standard"]["exponent"] == -0.25
    assert obj["paper"]["weight_defect"] < 1e-6 < 0.4 < obj["standard"]["weight_defect"]


@pytest.mark.parametrize("argv,needle", [
    (["diagram", "MODEL", "-o", "/nonexistent-dir/x.png"], "cannot write"),
    (["diagram", "MODEL", "-o", "OUT.txt"], "unknown picture type"),
    (["count", "MODEL", "--box", "1,0"], "LO < HI"),
    (["count", "MODEL", "--box", "a,b"], "--box"),
    (["stability", "MODEL", "--taus", "0.1,zero"], "--taus"),
    (["regions", "max(0, NaN*x)"], "NaN"),
    (["count", "DIR"], "is a directory"),
])
def test_bad_arguments_give_one_line_and_status_2(tmp_path, capsys, argv, needle):
    path = tmp_path / "m.json"
    save_model(sawtooth_model(2, 2, 1), path)
    argv = [str(path) if a == "MODEL" else str(tmp_path / "out.txt") if a == "OUT.txt"
            else str(tmp_path) if a == "DIR" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_stability_json(tmp_path, capsys):
    path = tmp_path / "m.json"
    from tropattn.attention import random_model

    save_model(random_model(2, 1, 3, seed=2), path)
    obj = json.loads(run(capsys, "stability", str(path), "--taus", "0.05,1", "--json")[1])
    assert [r["tau"] for r in obj["rows"]] == [0.05, 1.0]
    assert all(r["ratio"] <= 1 + 1e-9 and r["max_defect"] <= r["bound"] for r in obj["rows"])
    assert obj["rows"][0]["max_defect"] < obj["rows"][1]["max_defect"]   # colder is closer to hard


def test_diagram_writes_a_png(tmp_path, capsys):
    path, png = tmp_path / "m.json", tmp_path / "d.png"
    save_model(sawtooth_model(2, 2, 1), path)
    code, out, _ = run(capsys, "diagram", str(path), "-o", str(png))
    assert code == 0 and png.read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("argv,needle", [
    (["conventions", "--margin", "nan"], "--margin"),
    (["bounds", "--dim", "100000", "--heads", "100000", "--keys", "100000", "--layers", "100000"], "digits"),
])
def test_absurd_numbers_are_refused_quickly(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err


def test_numbers_with_thousands_of_digits_are_printed(capsys):
    code, out, _ = run(capsys, "bounds", "--dim", "1", "--heads", "1", "--keys", "2", "--layers", "20000", "--json")
    assert code == 0 and json.loads(out)["deep_product"] == 2 ** 20000
