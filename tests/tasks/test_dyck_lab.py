"""The Dyck paper's experiments: training by steps, probes, interventions, the construction's table, pictures, CLI."""

import json
import subprocess
import sys

import numpy as np
import pytest

from tropattn.cli import main
from tropattn.tasks import (INTERVENTIONS, Edit, construction_table, depths, generate, intervene, probe, run_model,
                            top_of_stack, train_dyck)

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


@pytest.fixture(scope="module")
def small():
    """A small model trained for a few seconds (k = 2, m = 2, length 8)."""
    return train_dyck(k=2, m=2, length=8, steps=150, batch=32, d_model=16, seed=0)


def test_same_seed_and_steps_give_identical_numbers_and_weights():
    a, b = (train_dyck(k=2, m=2, length=6, steps=12, batch=8, d_model=8, seed=3, log_every=4) for _ in range(2))
    assert a.log == b.log and [row[0] for row in a.log] == [4, 8, 12]
    for (na, pa), (_, pb) in zip(a.model.state_dict().items(), b.model.state_dict().items()):
        assert torch.equal(pa, pb), na
    c = train_dyck(k=2, m=2, length=6, steps=12, batch=8, d_model=8, seed=4, log_every=4)
    assert c.log != a.log


def test_training_learns_the_task(small):
    assert small.log[-1][2] >= 0.9 > small.log[0][2] - 0.5           # held-out accuracy, chance 0.5


def test_probes_beat_the_shuffled_label_control(small):
    p = probe(small, n_train=150, n_test=80)
    for layer in p["layers"][1:]:
        for target in ("depth", "distance"):
            assert layer[target]["heldout"]["r2"] > 0.3
            assert layer[target]["heldout"]["r2"] > layer[target]["shuffled"]["r2"] + 0.3
            assert abs(layer[target]["shuffled"]["r2"]) < 0.2
            assert layer[target]["heldout"]["r"] > 0.5


def test_the_probe_reads_the_positions_it_claims():
    """The probe's rows are the positions q < length - 1 with D_q > 0 of its training words."""
    t = train_dyck(k=2, m=2, length=8, steps=1, batch=4, d_model=8)
    words = generate(60, 8, 2, 2, seed=1)
    expected = sum(1 for w in words for j in range(len(w) - 1) if depths(w)[j] > 0)
    assert probe(t, n_train=60, n_test=10, seed=1)["rows"] == expected


def test_an_edit_that_changes_nothing_changes_nothing(small):
    words = generate(5, 8, 2, 2, seed=9)
    base, trace = run_model(small, words)
    same = {1: lambda x: x.clone()}
    rows = torch.zeros(5, dtype=torch.long) + 5
    cols = torch.zeros(5, dtype=torch.long) + 2
    ar = torch.arange(5)
    restore = {2: (rows, cols, trace["keys"][1][ar, :, cols], trace["values"][1][ar, :, cols])}
    for edit in (Edit(resid=same), Edit(restore=restore), Edit(mask={1: torch.zeros(5, 8, 8, dtype=torch.bool)})):
        assert torch.allclose(run_model(small, words, edit)[0], base, atol=1e-6)


def test_a_masked_edge_carries_no_weight_and_the_row_renormalises(small):
    words = generate(4, 8, 2, 2, seed=2)
    mask = torch.zeros(4, 8, 8, dtype=torch.bool)
    mask[:, 5, 1] = True
    _, trace = run_model(small, words, Edit(mask={2: mask}))
    A, A0 = trace["attn"][1], run_model(small, words)[1]["attn"][1]
    assert float(A[:, :, 5, 1].abs().max()) == 0.0
    assert torch.allclose(A[:, :, 5].sum(-1), torch.ones(4, 1))
    keep = A0[:, :, 5, :6].clone()
    keep[:, :, 1] = 0
    assert torch.allclose(A[:, :, 5, :6], keep / keep.sum(-1, keepdim=True), atol=1e-6)   # softmax without the edge


def test_mean_ablation_of_the_whole_space_makes_the_layer_constant(small):
    """The ablation replaces the span's component by the mean's: on the full space, every position reads the mean."""
    words = generate(6, 8, 2, 2, seed=4)
    mean = torch.full((16,), 0.25)
    U = torch.eye(16)
    _, trace = run_model(small, words, Edit(resid={1: lambda x: x - (x - mean) @ (U @ U.T)}))
    assert torch.allclose(trace["resid"][1], mean.expand(6, 8, 16))


def _latest_open_type(w, t, skip=()):
    """Independent oracle: the open j < t, j not in skip, of least |D_j - d_t|, latest among those."""
    D = depths(w)
    d = D[t - 1]
    cands = [j for j in range(t) if w[j] > 0 and j not in skip]
    best = max(cands, key=lambda j: (-(D[j] - d) ** 2, j))
    return w[best] - 1


def test_the_construction_table_against_independent_answers():
    k, m, length = 3, 3, 12
    table = construction_table(k, m, length, n_words=25, seed=5)["accuracy"]
    words = generate(25, length, k, m, seed=5)
    closes = [(w, t) for w in words for t, x in enumerate(w) if x < 0]
    long = [(w, t) for w, t in closes if t - top_of_stack(w)[t] >= 3]
    assert table["none"] == {"all": 1.0, "long": 1.0}
    # depth ablation: layer 2 sees recency only, it picks the latest open before t
    latest = [(w[max(j for j in range(t) if w[j] > 0)] - 1) == -w[t] - 1 for w, t in long]
    assert table["probe_mean"]["long"] == pytest.approx(np.mean(latest))
    # layer-2 knockout of the top: the best other open by (depth mismatch, recency)
    ko = [_latest_open_type(w, t, skip=(top_of_stack(w)[t],)) == -w[t] - 1 for w, t in long]
    assert table["knockout_L2"]["long"] == pytest.approx(np.mean(ko))
    assert table["knockout_L1"]["long"] == 1.0               # layer 1 reads t - 1, never the top at distance >= 3
    assert table["corrupted"] == {"all": 0.0, "long": 0.0}   # the corrupted top's type is the answer
    assert table["restore_edge_L2"]["long"] == 1.0 and table["restore_edge_L1"]["long"] == 0.0
    assert table["random_mean"] is None


def test_intervene_on_a_small_trained_model(small):
    r = intervene(small, n_words=40, random_draws=2)
    acc = r["accuracy"]
    assert list(acc) == [key for key, _, _ in INTERVENTIONS] and r["rank"] == 2
    assert acc["patch_top_L0"] == acc["none"]     # the corrupted word differs only at the top: restoring it is clean
    assert acc["corrupted"]["long"] < acc["none"]["long"]
    assert all(0.0 <= v[part] <= 1.0 for v in acc.values() for part in ("all", "long"))
    # identities of the dataflow at distance >= 2 (the corrupted word differs from the clean one only at the top
    # token, which is not the query): layer 1's query row differs only on its top edge, so restoring that edge
    # restores the query after layer 1; the top's residual after layer 1 reaches the query only through layer 2's
    # top edge.
    for a, b in (("restore_edge_L1", "patch_query_L1"), ("restore_edge_L2", "patch_top_L1")):
        assert acc[a]["long"] == pytest.approx(acc[b]["long"], abs=0.01), (a, b)
    assert acc["restore_edge_L1"] != acc["restore_edge_L2"]


def _run_cli(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr()


def test_cli_json_is_strict_and_the_pictures_draw_the_seeds(capsys, tmp_path):
    code, out = _run_cli(capsys, "dyck", "intervene", "--k", "2", "--m", "2", "--length", "6", "--d", "8",
                         "--steps", "5", "--seeds", "0,1", "--test-words", "10", "--json",
                         "--plot", str(tmp_path / "i.png"))
    assert code == 0

    def refuse(name):
        raise AssertionError(f"not strict JSON: {name}")
    rep = json.loads(out.out, parse_constant=refuse)
    assert [r["seed"] for r in rep["runs"]] == [0, 1] and rep["runs"][0]["steps"] == 5
    assert len(rep["construction"]["accuracy"]) == len(INTERVENTIONS)
    assert (tmp_path / "i.png").stat().st_size > 1000


def test_intervention_picture_content():
    from tropattn.plot._tasks import draw_dyck_interventions, draw_dyck_probes
    rows = INTERVENTIONS[:3]
    acc = {key: {"all": 0.9, "long": 0.8} for key, _, _ in rows}
    con = {"accuracy": dict(acc, random_mean=None)}
    ax = draw_dyck_interventions(rows, [{"accuracy": acc}] * 3, con, 0.5).axes[0]
    seeds = [ln for ln in ax.lines if ln.get_marker() == "o" and len(ln.get_xdata()) == 3]
    stars = [ln for ln in ax.lines if ln.get_marker() == "*" and len(ln.get_xdata()) == 1]
    assert len(seeds) == 3 and len(stars) == 2                  # 3 rows of 3 seeds; no star where None
    assert any(list(ln.get_xdata()) == [0.5, 0.5] for ln in ax.lines)   # chance
    sc = {"r2": 0.6, "r": 0.8}
    layer = {t: {"heldout": sc, "ood": sc, "shuffled": {"r2": -5.0, "r": 0.0}} for t in ("depth", "distance")}
    ax = draw_dyck_probes([{"seed": s, "layers": [layer] * 3} for s in range(2)]).axes[0]
    pts = [ln for ln in ax.lines if ln.get_linestyle() == "None"]
    assert len(pts) == 3 * 2                                   # 3 splits x 2 seeds
    assert min(min(ln.get_ydata()) for ln in pts) == -1.0      # the R² of -5 is clipped onto the edge


@pytest.mark.parametrize("argv, words", [
    (["--k", "0"], "bracket types"), (["--d", "10", "--heads", "3"], "not divisible by heads"),
    (["--steps", "0"], "steps = 0"), (["--seeds", "a"], "--seeds"),
    (["--plot", "/no/such/dir/x.png"], "--plot")])
def test_cli_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    code, out = _run_cli(capsys, "dyck", "train", *argv)
    assert code == 2 and words in out.err and len(out.err.strip().splitlines()) == 1


def test_cli_without_torch_is_one_line_and_exit_2():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from tropattn.cli import main\n"
            "sys.exit(main(['dyck', 'train', '--steps', '1']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and "pip install 'tropattn[torch]'" in proc.stderr
