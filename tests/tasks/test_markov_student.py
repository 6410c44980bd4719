"""Students trained on the Markov teacher: determinism, restricted-teacher levels, stages, pictures, CLI."""

import json
import math
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

from tropattn.cli import main
from tropattn.tasks import markov_teacher, restricted_levels, simulate, stage_steps, teacher_windows, train_student

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def test_same_seed_and_steps_give_identical_runs():
    t = markov_teacher(2, 1.7, vocab=3, scale=2.0)
    a, b = (train_student(t, samples=300, steps=30, test_samples=200, seed=2) for _ in range(2))
    assert a.log == b.log and np.array_equal(a.attention, b.attention)
    c = train_student(t, samples=300, steps=30, test_samples=200, seed=3)
    assert c.log != a.log


def _empirical_ce(x, order, lags):
    """Independent oracle: cross-entropy of the count-based predictor reading ``lags`` on one long sample."""
    ctx = [tuple(x[t - i] for i in lags) for t in range(order, len(x))]
    ys = x[order:]
    joint, marg = Counter(zip(ctx, ys)), Counter(ctx)
    return -np.mean([math.log(joint[c, y] / marg[c]) for c, y in zip(ctx, ys)])


@pytest.mark.slow
def test_restricted_levels_agree_with_counting_on_a_long_sample():
    t = markov_teacher(2, 1.7, vocab=3, scale=2.0, seed=1)
    levels = restricted_levels(t)
    x = [int(v) for v in t.sample(20000, seed=5)]
    for j, lags in enumerate(((), (1,), (1, 2))):
        assert levels[j] == pytest.approx(_empirical_ce(x, t.order, lags), abs=0.015)
    assert levels[0] > levels[1] > levels[2] > 0


def test_stage_steps_find_each_midpoint_crossing():
    levels = [1.0, 0.6, 0.2]
    assert stage_steps([0, 1, 2, 3, 4], [1.0, 0.9, 0.7, 0.5, 0.3], levels) == (2, 4)      # midpoints 0.8, 0.4
    assert stage_steps([0, 1, 2, 3], [1.0, 0.9, 0.7, 0.5], levels) == (2, None)
    assert stage_steps([0, 1, 2], [1.0, 0.1, 0.1], levels) == (1, 1)


def test_a_trained_student_passes_the_levels_in_order():
    t = markov_teacher(2, 1.7, vocab=3, scale=2.0)
    r = train_student(t, samples=2000, steps=400, lr=1.0, test_samples=1000)
    assert r.log[0][0] == 0 and r.log[0][2] == pytest.approx(math.log(3), abs=0.01)   # the start: uniform
    assert all(s is not None for s in r.stage_steps) and list(r.stage_steps) == sorted(r.stage_steps)
    assert r.log[-1][2] < (r.levels[1] + r.levels[2]) / 2
    T = r.attention.shape[2]
    assert r.attention[-1][:, T - 2:].sum(1).min() > 0.8      # the heads read the two lags, not the older tokens


def test_windows_are_the_chain_read_in_order():
    t = markov_teacher(2, 1.7, vocab=3)
    X, y = teacher_windows(t, 6, 3, seed=4)
    x = t.sample(6 + 3 - t.order, seed=4)
    assert X[1].tolist() == x[1:4].tolist() and y[1] == x[4]


def test_student_picture_content():
    from tropattn.plot._tasks import draw_markov_student
    runs = [{"student": "minimal", "seed": s, "samples": 10, "log": [(0, 1.0, 1.1), (5, 0.5, 0.6), (9, 0.4, 0.5)],
             "stage_steps": (5, None), "attention": np.full((3, 2, 4), 0.25)} for s in (0, 1)]
    fig = draw_markov_student(runs, simulate(1.7, h=2, T=4, t_end=30.0, n_out=61), [1.1, 0.8, 0.5])
    ax, bx = fig.axes[0], fig.axes[1]
    curves = [ln for ln in ax.lines if len(ln.get_xdata()) == 3]
    assert len(curves) == 2                                            # one loss curve per run
    levels = sorted({ln.get_ydata()[0] for ln in ax.lines if list(ln.get_xdata()) == [0, 1]})   # axhline
    assert levels == [0.5, 0.8, 1.1]                                   # the restricted-teacher levels
    start = [ln for ln in bx.lines if ln.get_marker() == "s"]
    assert len(start) == 1 and "not a plateau" in start[0].get_label()
    maps = [a for a in fig.axes if a.collections and a.get_ylabel().startswith("head")]
    assert len(maps) == 2                                              # one heat map per head
    assert maps[0].collections[0].get_array().size == 3 * 4            # log rows x positions


def test_cli_train_is_strict_json_with_the_start_apart(capsys, tmp_path):
    assert main(["markov", "train", "--h", "2", "--samples", "200,50", "--student-seeds", "0", "--steps", "20",
                 "--t-end", "20", "--json", "--plot", str(tmp_path / "s.png")]) == 0

    def refuse(name):
        raise AssertionError(name)
    rep = json.loads(capsys.readouterr().out, parse_constant=refuse)
    assert [r["samples"] for r in rep["runs"]] == [200, 50] and len(rep["levels"]) == 3
    assert "not a plateau" in rep["surrogate"]["start"]["note"]
    assert all(p["level"] < rep["surrogate"]["start"]["level"] for p in rep["surrogate"]["plateaus"])
    assert (tmp_path / "s.png").stat().st_size > 1000


def test_surrogate_cli_reports_the_start_apart(capsys):
    assert main(["markov", "--h", "2", "--T", "4", "--t-end", "150", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["runs"][0]
    assert run["start"]["level"] == pytest.approx(0.5 * (1.7 ** 2 + 1))
    assert [round(p["level"], 2) for p in run["plateaus"]] == [0.5, 0.0]


@pytest.mark.parametrize("argv, words", [
    (["--steps", "0"], "steps = 0"), (["--samples", "x"], "--samples"), (["--vocab", "1"], "vocab = 1"),
    (["--context", "2"], "T = 2 is shorter")])
def test_cli_bad_input_exit_2(capsys, argv, words):
    code = main(["markov", "train", "--steps", "1", "--t-end", "5", *argv])
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1


def test_width_not_divisible_by_heads_is_refused():
    from tropattn.errors import InvalidInputError
    with pytest.raises(InvalidInputError, match="not divisible by heads = 3"):
        train_student(markov_teacher(2, 1.7), "attention", heads=3, d_model=8, steps=1)


def test_cli_without_torch_exit_2():
    code = ("import sys; sys.modules['torch'] = None\n"
            "from tropattn.cli import main\n"
            "sys.exit(main(['markov', 'train', '--steps', '1']))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
