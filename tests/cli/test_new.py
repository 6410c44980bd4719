"""``tropattn new``: the file it writes loads back as the same model, and the model-reading commands take it."""

import json

import pytest

from tropattn.attention import grid_model, random_model, sawtooth_model
from tropattn.cli import main
from tropattn.io import load


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("flags, model, regions", [
    (["--sawtooth", "1,2,3"], sawtooth_model(1, 2, 3), 8),          # N^(dL) = 2^3
    (["--grid", "2,2,3"], grid_model(2, 2, 3), 9),                  # N^H = 3^2
    (["--random", "2,2,3,1", "--seed", "7"], random_model(2, 2, 3, 1, seed=7), None),
])
@pytest.mark.parametrize("suffix", [".json", ".npz"])
def test_new_round_trips_and_counts(tmp_path, capsys, flags, model, regions, suffix):
    path = tmp_path / ("m" + suffix)
    code, out, err = run(capsys, "new", path, *flags)
    assert code == 0 and err == "" and out.startswith(f"wrote {path}")
    assert load(path) == model
    code, out, _ = run(capsys, "count", path, "--json", "--progress", "never")
    count = json.loads(out)["activation_regions"]
    assert code == 0 and (regions is None or count == regions)
    if regions is None:
        assert 1 <= count <= json.loads(run(capsys, "new", tmp_path / "again.json", *flags, "--json")[1])["upper_bound"]


def test_the_file_feeds_every_model_command(tmp_path, capsys):
    path = tmp_path / "m.json"
    assert run(capsys, "new", path, "--grid", "2,2,3")[0] == 0
    assert run(capsys, "diagram", path, "-o", tmp_path / "o.png")[0] == 0 and (tmp_path / "o.png").stat().st_size
    assert run(capsys, "stability", path, "--taus", "0.1,1", "--box", "-2", "2")[0] == 0
    assert run(capsys, "count", path, "--regions", tmp_path / "r.jsonl", "--progress", "never")[0] == 0


@pytest.mark.parametrize("argv, message", [
    (["--sawtooth", "2,3"], "--sawtooth needs 3 integers d,N,L"),
    (["--grid", "2,x,3"], "--grid: H = 'x' is not an integer"),
    (["--random", "2,2,0,1"], "--random N = 0"),
    ([], "give exactly one of"),
    (["--sawtooth", "1,2,1", "--grid", "1,1,2"], "give exactly one of"),
    (["--sawtooth", "1,2,1", "--seed", "3"], "--seed is for --random only"),
])
def test_bad_input_is_one_line(tmp_path, capsys, argv, message):
    code, out, err = run(capsys, "new", tmp_path / "m.json", *argv)
    assert code == 2 and out == "" and err.startswith("tropattn: error: ") and message in err
    assert err.count("\n") == 1 and not (tmp_path / "m.json").exists()


def test_npz_refuses_what_float64_would_round(tmp_path, capsys):
    code, _, err = run(capsys, "new", tmp_path / "m.npz", "--sawtooth", "1,3,2")   # values -1/3, -2/3
    assert code == 2 and "save the model as .json" in err and not (tmp_path / "m.npz").exists()


def test_refuses_to_overwrite_unless_forced(tmp_path, capsys):
    path = tmp_path / "m.json"
    path.write_text("keep me")
    code, _, err = run(capsys, "new", path, "--sawtooth", "1,2,1")
    assert code == 2 and "exists; pass --force" in err and path.read_text() == "keep me"
    assert run(capsys, "new", path, "--sawtooth", "1,2,1", "--force")[0] == 0
    assert load(path) == sawtooth_model(1, 2, 1)
