"""The command line: JSON outputs, exit codes, one-line errors."""

import json

import pytest

from tropattn.attention import sawtooth_model
from tropattn.cli import main
from tropattn.io import save


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_count_json(tmp_path, capsys):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 2), path)
    code, out, _ = run(capsys, "count", str(path), "--json")
    obj = json.loads(out)
    assert code == 0
    assert obj["activation_regions"] == 9 and obj["linear_regions"] == 9
    assert obj["dim"] == 1 and obj["layers"] == 2 and obj["heads"] == [1, 1] and obj["keys"] == [[3], [3]]
    assert obj["method"] == "primal" and obj["seconds"] >= 0


def test_count_dual_agrees_with_primal(tmp_path, capsys):
    path = tmp_path / "m.json"
    from tropattn.attention import random_model

    save(random_model(2, 3, 3, seed=5), path)
    primal = json.loads(run(capsys, "count", str(path), "--json")[1])
    dual = json.loads(run(capsys, "count", str(path), "--json", "--method", "dual")[1])
    assert primal["activation_regions"] == dual["activation_regions"]


def test_count_in_a_box(tmp_path, capsys):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 1), path)
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
    save(sawtooth_model(2, 2, 1), path)
    argv = [str(path) if a == "MODEL" else str(tmp_path / "out.txt") if a == "OUT.txt"
            else str(tmp_path) if a == "DIR" else a for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and needle in err and "Traceback" not in err


def test_stability_json(tmp_path, capsys):
    path = tmp_path / "m.json"
    from tropattn.attention import random_model

    save(random_model(2, 1, 3, seed=2), path)
    obj = json.loads(run(capsys, "stability", str(path), "--taus", "0.05,1", "--json")[1])
    assert [r["tau"] for r in obj["rows"]] == [0.05, 1.0]
    assert all(r["ratio"] <= 1 + 1e-9 and r["max_defect"] <= r["bound"] for r in obj["rows"])
    assert obj["rows"][0]["max_defect"] < obj["rows"][1]["max_defect"]   # colder is closer to hard


def test_diagram_writes_a_png(tmp_path, capsys):
    path, png = tmp_path / "m.json", tmp_path / "d.png"
    save(sawtooth_model(2, 2, 1), path)
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


# ---------------------------------------------------------------- issue 9: a CLI that behaves

import argparse                                                             # noqa: E402
import subprocess                                                           # noqa: E402
import sys                                                                  # noqa: E402

from hypothesis import given, settings, strategies as st                   # noqa: E402

from tropattn.attention import Head, Layer, Transformer, random_model      # noqa: E402
from tropattn.cli import build_parser                                       # noqa: E402
from tropattn.errors import Interrupted                                     # noqa: E402
from tropattn.io import load                                                # noqa: E402
from tropattn.regions import count_regions, enumerate_regions               # noqa: E402

FFN_MODEL = {"format": "tropattn.model/1", "dim": 1, "layers": [{
    "heads": [{"keys": [[0], [1]], "offsets": [0, 0]}], "ffn": {"W1": [[1]], "b1": [-5], "W2": [[1]], "b2": [0]}}]}


def _file(tmp_path, obj, name="m.json"):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return str(path)


@pytest.mark.parametrize("box", [["--box", "-1", "1"], ["--box", "-1,1"], ["--box=-1,1"], ["--box", "-1/1", "1.0"]])
def test_negative_numbers_in_box(tmp_path, capsys, box):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 1), path)
    code, out, err = run(capsys, "count", str(path), "--json", *box)
    assert code == 0, err
    assert json.loads(out)["box"] == ["-1", "1"]
    assert json.loads(out)["activation_regions"] == count_regions(load(path), box=(-1, 1)).n_activation


def test_every_argument_has_help_and_every_command_examples_and_exit_codes():
    parser = build_parser()
    assert "exit status" in parser.epilog and "130" in parser.epilog and "tropattn.model/1" in parser.epilog
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    mine = {"count", "diagram", "bounds", "table", "stability", "power", "regions", "demo", "conventions"}
    assert set(sub.choices) >= mine
    for name, p in sub.choices.items():
        assert "exit status:" in p.epilog and "130" in p.epilog, name

    def leaves(parser, path):                       # every command and sub-command (dynamics flow, ...)
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            yield " ".join(path), parser
        for a in subs:
            for name, p in a.choices.items():
                yield from leaves(p, path + [name])

    for name, p in leaves(parser, []):
        assert "examples:" in p.epilog and f"tropattn {name}" in p.epilog and "  0    success" in p.epilog, name
        for action in p._actions:
            assert action.help, f"{name} {action.dest} has no help"


def test_version_and_python_m(capsys):
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("tropattn ")
    done = subprocess.run([sys.executable, "-m", "tropattn", "bounds", "--dim", "1", "--heads", "2", "--keys", "3",
                           "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and json.loads(done.stdout)["line"] == 5


def test_dual_refuses_an_ffn_instead_of_answering_wrongly(tmp_path, capsys):
    path = _file(tmp_path, FFN_MODEL)
    code, out, _ = run(capsys, "count", path, "--json")
    assert code == 0 and json.loads(out)["activation_regions"] == 3        # x < 0 | 0 < x < 4 | x > 4
    code, out, err = run(capsys, "count", path, "--method", "dual")
    assert code == 2 and out == "" and "FFN" in err and err.count("\n") == 1


@pytest.mark.parametrize("model,extra,needle", [
    (sawtooth_model(1, 3, 2), [], "2 layers"),
    (sawtooth_model(1, 3, 1), ["--box", "-1", "1"], "box"),
])
def test_dual_refuses_what_it_cannot_count(tmp_path, capsys, model, extra, needle):
    path = tmp_path / "m.json"
    save(model, path)
    code, out, err = run(capsys, "count", str(path), "--method", "dual", *extra)
    assert code == 2 and needle in err and "--method primal" in err


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.integers(1, 2), st.integers(1, 3), st.integers(2, 4), st.booleans(),
       st.booleans())
def test_primal_equals_dual_on_random_ffn_free_layers(seed, d, H, N, residual, project):
    import random as _random
    rng = _random.Random(seed)
    m = 3 if project else d
    heads = [Head([[rng.randint(-3, 3) for _ in range(d)] for _ in range(N)], [rng.randint(-4, 4) for _ in range(N)],
                  [[rng.randint(-2, 2) for _ in range(m)] for _ in range(N)]) for _ in range(H)]
    projection = [[rng.randint(-1, 1) for _ in range(m)] for _ in range(d)] if project else None
    model = Transformer([Layer(heads, residual=residual, projection=projection)])
    assert count_regions(model, "dual").n_activation == count_regions(model, "primal").n_activation


def _tie_model():
    l0 = Layer([Head([[1], [2]], [0, 0], [[0], [0]])], residual=False)     # outputs the constant 0
    l1 = Layer([Head([[1], [-1], [0]], [0, 0, 0], [[1], [2], [3]])])          # all three keys tie at 0
    return Transformer([l0, l1])


def test_ties_flag_and_file_field(tmp_path, capsys):
    path = tmp_path / "m.json"
    save(_tie_model(), path)
    code, out, err = run(capsys, "count", str(path))
    assert code == 2 and "ties='first'" in err
    code, out, err = run(capsys, "count", str(path), "--ties", "first", "--json")
    assert code == 0 and json.loads(out)["activation_regions"] == 2 and json.loads(out)["ties"] == "first"
    obj = json.loads(path.read_text())
    obj["ties"] = "first"
    code, out, _ = run(capsys, "count", _file(tmp_path, obj, "first.json"), "--json")
    assert code == 0 and json.loads(out)["activation_regions"] == 2


class _CtrlCAtBar:
    """A stderr on which the ``at``-th drawing of the progress bar is Ctrl-C (the bar is kept out of the capture).

    The bar is drawn when the search's chunked stage starts (before any region is complete), after its
    first chunk of parents, then at most every 0.2 s (see tropattn._progress): drawing 1 is Ctrl-C
    before any region, drawing 2 after the first parent's regions.
    """

    def __init__(self, real, at):
        self.real, self.at, self.draws, self.in_bar = real, at, 0, False

    def write(self, text):
        if text.startswith("\r") or (self.in_bar and text == "\n"):
            self.in_bar = True
            self.draws += text.startswith("\r")
            if self.draws == self.at and text.startswith("\r"):
                raise KeyboardInterrupt
            return len(text)
        self.in_bar = False
        return self.real.write(text)

    def flush(self):
        self.real.flush()


def _interrupt_at(monkeypatch, draw):
    """Ctrl-C at the ``draw``-th drawing of the progress bar (run the command with ``--progress always``)."""
    monkeypatch.setattr(sys, "stderr", _CtrlCAtBar(sys.stderr, draw))


def test_ctrl_c_before_any_region_gives_no_count(tmp_path, capsys, monkeypatch):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 2), path)
    _interrupt_at(monkeypatch, 1)
    code, out, err = run(capsys, "count", str(path), "--progress", "always")
    assert code == 130 and "no count yet" in out and "{" not in out
    assert "1 regions" not in out + err and err == "tropattn: interrupted\n"


def test_ctrl_c_prints_the_complete_regions_as_text_or_json(tmp_path, capsys, monkeypatch):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 2), path)         # 9 regions: 3 parents of 3 pieces each
    _interrupt_at(monkeypatch, 2)
    code, out, err = run(capsys, "count", str(path), "--progress", "always")
    found = int(out.split("interrupted: ")[1].split()[0])
    assert code == 130 and 1 <= found < 9 and "at least as many" in out
    _interrupt_at(monkeypatch, 2)
    code, out, err = run(capsys, "count", str(path), "--json", "--progress", "always")
    obj = json.loads(out)
    assert code == 130 and obj["interrupted"] and not obj["complete"]
    assert obj["activation_regions_found"] == found


def test_interrupted_api_keeps_complete_regions_only():
    def ctrl_c_after_one_parent(done, total, found):
        if done == 1:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as info:
        enumerate_regions(sawtooth_model(1, 3, 2), progress=ctrl_c_after_one_parent)
    partial = info.value.partial
    assert not partial.complete and 1 <= len(partial.activation_regions) < 9
    full = {r.pattern for r in enumerate_regions(sawtooth_model(1, 3, 2)).activation_regions}
    assert {r.pattern for r in partial.activation_regions} <= full      # whole patterns of the model, exact


def test_broken_pipe_exits_quietly(tmp_path, capsys, monkeypatch):
    import io

    class Closed(io.StringIO):                     # the reader of the output went away (e.g. | head)
        def write(self, text):
            raise BrokenPipeError

    monkeypatch.setattr(sys, "stdout", Closed())
    code, out, err = run(capsys, "bounds", "--dim", "1", "--heads", "1", "--keys", "2")
    assert code == 141 and err == ""


@pytest.mark.parametrize("argv", [
    ["diagram", "MODEL", "-o", "MISSING/x.png"],
    ["table", "--quick", "--seeds", "0", "-o", "MISSING/t.csv"],
    ["stability", "MODEL", "--plot", "MISSING/s.png"],
])
def test_every_command_refuses_a_missing_output_directory(tmp_path, capsys, argv):
    path = tmp_path / "m.json"
    save(random_model(2, 1, 3, seed=2), path)
    argv = [str(path) if a == "MODEL" else a.replace("MISSING", str(tmp_path / "missing")) for a in argv]
    code, out, err = run(capsys, *argv)
    assert code == 2 and "does not exist" in err and not (tmp_path / "missing").exists()


def test_progress_flag_and_one_bar_for_table(tmp_path, capsys):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 2), path)
    assert run(capsys, "count", str(path), "--progress", "never")[2] == ""
    err = run(capsys, "count", str(path), "--progress", "always")[2]
    assert "sub-layer 2/2" in err
    code, out, err = run(capsys, "table", "--quick", "--seeds", "0", "-o", str(tmp_path / "t.csv"),
                         "--progress", "always")
    assert code == 0 and "table [" in err and "sub-layer" not in err
    assert err.rstrip().endswith("models, " + err.rstrip().split("models, ")[-1])


def test_five_thousand_digits_cli_equals_api(tmp_path, capsys):
    big = "1" + "0" * 5000
    obj = {"format": "tropattn.model/1", "dim": 1,
           "layers": [{"heads": [{"keys": [[0], [1], [2]], "offsets": [0, big, "-" + big + "/7"]}]}]}
    path = _file(tmp_path, obj)
    code, out, err = run(capsys, "count", path, "--json")
    assert code == 0, err
    assert json.loads(out)["activation_regions"] == count_regions(load(path), "primal").n_activation


def test_commands_table_names_the_module_of_every_command():
    # the lazy CLI imports only COMMANDS[command]: a command missing from the table, or listed
    # under the wrong module, would not parse
    from tropattn.cli import COMMANDS
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert list(sub.choices) == list(COMMANDS)
    for name in COMMANDS:
        only = next(a for a in build_parser(name)._actions if isinstance(a, argparse._SubParsersAction))
        assert name in only.choices
        assert set(only.choices) == {c for c, m in COMMANDS.items() if m == COMMANDS[name]}


def test_import_is_lazy_and_regions_loads_no_model_machinery():
    # `import tropattn` loads no subpackage; `tropattn regions` loads neither the attention / io /
    # regions layers nor networkx (its cost is the tropical and geometry layers only)
    code = ("import sys, tropattn\n"
            "before = {m for m in sys.modules if m.startswith(('tropattn.', 'scipy', 'networkx'))}\n"
            "from tropattn.cli import main\n"
            "assert main(['regions', 'max(0, x, 2*y - 1)', '--json']) == 0\n"
            "after = {m.split('.')[0] if not m.startswith('tropattn') else '.'.join(m.split('.')[:2])\n"
            "         for m in sys.modules}\n"
            "print(sorted(before)); print(sorted(after))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    before, after = (eval(line) for line in out.strip().splitlines()[-2:])
    assert before == ["tropattn._version"]
    assert {"tropattn.tropical", "tropattn.geometry", "tropattn.exact"} <= set(after)
    assert not {"tropattn.attention", "tropattn.io", "tropattn.regions", "networkx", "sympy"} & set(after)
    import tropattn
    assert tropattn.geometry.PowerDiagram is tropattn.PowerDiagram
    with pytest.raises(tropattn.errors.MovedError, match='slice_model'):   # no alias shadows the builtin
        tropattn.slice
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        tropattn.nope


def test_ctrl_c_while_a_command_module_loads_is_an_interruption():
    # in a fresh process, Ctrl-C arrives while the module of `count` (COMMANDS names it) is imported
    code = ("import sys\n"
            "from tropattn.cli import COMMANDS, main\n"
            "class CtrlC:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'tropattn.cli._' + COMMANDS['count']:\n"
            "            raise KeyboardInterrupt\n"
            "sys.meta_path.insert(0, CtrlC())\n"
            "sys.exit(main(['count', 'model.json']))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130
    assert done.stderr == "tropattn: interrupted before any result was complete\n"
