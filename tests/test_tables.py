"""Re-derive a sample of the committed tables' rows from scratch (data/README.md says how they were made).

``data/region_counts.csv``: a few cheap shapes are recomputed with :func:`tropattn.table.region_rows`
(constructions and the seeded random models) and every column but ``seconds`` must match; the
counts are also checked against the independent brute force of tests/oracles.
``data/markov_stage_times.csv``: two runs of ``scripts/markov_stage_table.py`` are repeated (floats,
a simulation: stage times within one output step, levels within 1e-3).
"""

import csv
import importlib.util
from pathlib import Path

import pytest

from oracles import brute_force, load_model
from tropattn.attention import grid_model, random_model, sawtooth_model
from tropattn.io import model_to_json
from tropattn.table import COLUMNS, region_rows

ROOT = Path(__file__).resolve().parents[1]
REGIONS = ROOT / "data" / "region_counts.csv"
MARKOV = ROOT / "data" / "markov_stage_times.csv"

SHAPES = [(1, 2, 3, 2), (2, 2, 3, 1), (2, 3, 2, 1), (3, 2, 2, 1)]


def _committed(shape):
    with REGIONS.open(encoding="utf-8") as fh:
        rows = [r for r in csv.DictReader(fh)
                if tuple(int(r[k]) for k in ("dim", "heads", "keys", "layers")) == shape]
    assert rows, f"shape {shape} is not in {REGIONS.name}"
    return rows


@pytest.mark.parametrize("shape", SHAPES)
def test_region_counts_rows(shape):
    committed = _committed(shape)
    seeds = sum(r["model"].startswith("random seed") for r in committed)
    fresh = region_rows(shapes=[shape], seeds=seeds, progress=False)
    assert [r["model"] for r in fresh] == [r["model"] for r in committed]
    for new, old in zip(fresh, committed):
        for col in COLUMNS:
            if col != "seconds":
                assert str(new[col]) == old[col], (shape, old["model"], col)


@pytest.mark.parametrize("shape", SHAPES)
def test_region_counts_against_the_reference(shape):
    d, H, N, L = shape
    models = {"sawtooth": sawtooth_model(d, N, L, heads=H)}
    if L == 1 and H <= d:
        models["grid"] = grid_model(d, H, N)
    for row in _committed(shape):
        name = row["model"]
        if name.startswith("random seed"):
            model = random_model(d, H, N, L, seed=int(name.split()[-1]))
        elif name in models:
            model = models[name]
        else:
            continue
        assert len(brute_force(load_model(model_to_json(model)))) == int(row["activation_regions"]), (shape, name)


def _markov_script():
    spec = importlib.util.spec_from_file_location("markov_stage_table", ROOT / "scripts" / "markov_stage_table.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.mark.parametrize("m,seed", [("2", 0), ("1.4", 1)])
@pytest.mark.slow
def test_markov_rows(tmp_path, m, seed):
    with MARKOV.open(encoding="utf-8") as fh:
        old = next(r for r in csv.DictReader(fh) if r["m"] == m and r["seed"] == str(seed))
    out = tmp_path / "markov.csv"
    _markov_script().main(["--out", str(out), "--ms", m, "--seeds", str(seed), "--noise", old["noise"]])
    with out.open(encoding="utf-8") as fh:
        (new,) = list(csv.DictReader(fh))
    for col in ("m", "seed", "noise", "in_importance_order", "plateaus_found"):
        assert new[col] == old[col], col
    for col in ("t_0", "t_1", "t_2"):
        assert (new[col] == "") == (old[col] == "")
        if old[col]:
            assert abs(float(new[col]) - float(old[col])) <= 0.5, col
    if old["stage_spread"]:
        assert abs(float(new["stage_spread"]) - float(old["stage_spread"])) <= 0.02
    for col in ("plateau_levels", "predicted_levels"):
        a, b = [list(map(float, v.split(";"))) for v in (new[col], old[col])]
        assert len(a) == len(b) and all(abs(x - y) <= 1e-3 for x, y in zip(a, b)), col
