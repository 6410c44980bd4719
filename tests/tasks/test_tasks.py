"""Structured tasks (THEORY §9): the Dyck top-of-stack model and the staged-attention surrogate."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.cli import main
from tropattn.errors import InvalidInputError
from tropattn import tasks
from tropattn.tasks import _dyck as dyck, _markov as markov
from tropattn.tasks import (DyckModel, attention_entropy, closing_positions, depths, detect_plateaus, generate,
                            hard_accuracy, harden, hardening_bound, hardening_gap, head_distances, markov_teacher,
                            matches, plateau_levels, sharpen, simulate, soft_sweep, stage_times, target,
                            top_of_stack)


# ----------------------------------------------------------------------------- Dyck
def _top_by_definition(w, t):
    """The latest open j < t whose partner comes at t or later (brute force, no stack)."""
    mt = matches(w)
    cands = [j for j in range(t) if w[j] > 0 and mt[j] >= t]
    return max(cands) if cands else -1


@st.composite
def dyck_words(draw):
    k = draw(st.integers(1, 4))
    m = draw(st.integers(1, 4))
    length = 2 * draw(st.integers(1, 8))
    return generate(1, length, k, m, seed=draw(st.integers(0, 10 ** 6)))[0], k, m


@settings(max_examples=40, deadline=None)
@given(dyck_words())
def test_generated_words_are_dyck_k_m_and_oracles_agree_with_brute_force(case):
    w, k, m = case
    D = depths(w)
    assert min(D) >= 0 and D[-1] == 0 and max(D) <= m
    assert all(1 <= abs(x) <= k for x in w)
    assert D == tuple(sum(1 if x > 0 else -1 for x in w[:j + 1]) for j in range(len(w)))
    mt = matches(w)
    assert all(mt[mt[j]] == j and w[mt[j]] == -w[j] for j in range(len(w)))
    top = top_of_stack(w)
    assert top == tuple(_top_by_definition(w, t) for t in range(len(w) + 1))


@settings(max_examples=25, deadline=None)
@given(dyck_words())
def test_exact_model_reads_the_top_of_the_stack_on_any_word(case):
    w, k, m = case
    model = DyckModel(k, m, len(w))
    top = top_of_stack(w)
    for t in closing_positions(w):
        assert model.attend(w, t) == top[t] and model.predict(w, t) == -w[t] - 1


def test_generator_is_seeded():
    assert generate(4, 20, 3, 4, seed=5) == generate(4, 20, 3, 4, seed=5)
    assert generate(4, 20, 3, 4, seed=5) != generate(4, 20, 3, 4, seed=6)


@pytest.fixture(scope="module")
def dyck_case():
    k, m, length = 3, 4, 24
    words = generate(40, length, k, m, seed=0)
    return DyckModel(k, m, length), words


def test_hard_model_attends_to_the_top_and_is_exactly_right(dyck_case):
    model, words = dyck_case
    acc = hard_accuracy(model, words)
    assert acc["all"] == 1.0 and acc["long"] == 1.0 and acc["n_long"] > 50
    for w in words[:10]:
        top = top_of_stack(w)
        for t in closing_positions(w):
            assert model.attend(w, t) == top[t]
            assert model.layer2_query(w, t) == (depths(w)[t - 1], 1)      # layer 1 writes d_t


def test_layer2_attention_is_a_tropical_polynomial_and_a_power_diagram(dyck_case):
    model, words = dyck_case
    w = words[0]
    D = depths(w)
    for t in closing_positions(w):
        head, opens = model.layer2_head(w, t)
        x1 = model.layer2_query(w, t)
        label = head.label(x1)
        diagram, poly = head.power_diagram(), head.tropical_polynomial()
        assert diagram.locate(x1) == label and poly.argmax_terms(x1) == (label,)
        assert len(poly.linear_regions()) == len(diagram.nonempty)
        # on the line r = 1 the cell at depth d is the latest open at depth d (the stack entry)
        for d in sorted({D[j] for j in opens}):
            latest = max(j for j in opens if D[j] == d)
            assert opens[diagram.locate((d, 1))] == latest


def test_softmax_accuracy_rises_to_one_and_failures_stay_inside_the_band(dyck_case):
    model, words = dyck_case
    # all scores are integers and distinct, so every gap is >= mu = 1: beyond beta* = log(2 (n - 1)) / 1
    # the bound (n - 1) e^{-beta Delta} < 1/2 rules out every failure
    beta_star = math.log(2 * (model.length - 1))
    betas = [0.01, 0.03, 0.1, 0.3, 1.0, 1.01 * beta_star, 10.0]
    rows = soft_sweep(model, words[:20], betas)
    accs = [r.accuracy for r in rows]
    assert accs == sorted(accs) and accs[0] < 0.9
    assert rows[-2].accuracy == 1.0 and rows[-1].accuracy == 1.0
    assert all(r.outside_band == 0 for r in rows)
    assert all(r.max_failing_gap < r.band for r in rows if r.failures)


def test_knockout_and_depth_ablation_fall_to_chance(dyck_case):
    model, words = dyck_case
    ko = hard_accuracy(model, words, knockout=True)
    ab = hard_accuracy(model, words, ablate_depth=True)
    k = model.k
    for acc, n in ((ko["all"], ko["n_all"]), (ko["long"], ko["n_long"]), (ab["long"], ab["n_long"])):
        assert abs(acc - 1 / k) <= 4 * math.sqrt((1 / k) * (1 - 1 / k) / n)      # binomial, 4 sigma
    assert ab["all"] > ab["long"] + 0.2     # short closes (distance 1) survive: the latest open is the top


def test_dyck_bad_input_is_refused_clearly():
    for args, text in (((4, 0, 2), "bracket types"), ((4, 2, 0), "maximal depth"), ((7, 2, 2), "cannot close"),
                       ((0, 2, 2), "cannot close")):
        with pytest.raises(InvalidInputError, match=text):
            generate(1, *args)
    with pytest.raises(InvalidInputError, match="not balanced"):
        depths((1, -2))
    with pytest.raises(InvalidInputError, match="ends at depth"):
        depths((1, 1, -1))
    with pytest.raises(InvalidInputError, match="depth decides"):
        DyckModel(2, 2, 8, lam=3)
    with pytest.raises(InvalidInputError, match="query position"):
        DyckModel(2, 2, 4).predict((1, -1), 0)
    with pytest.raises(InvalidInputError, match="inverse temperature"):
        soft_sweep(DyckModel(2, 2, 4), [(1, -1, 2, -2)], [0.0])


# ----------------------------------------------------------------------------- staged attention
@pytest.fixture(scope="module")
def run17():
    return simulate(1.7, t_end=300.0, n_out=601)


def test_plateaus_sit_at_the_unlearned_sums(run17):
    levels = [p.level for p in detect_plateaus(run17)]
    exact = plateau_levels(3, 1.7)
    assert len(levels) == 4
    # start, third plateau, end: to 3 decimals
    for i in (0, 2, 3):
        assert abs(levels[i] - exact[i]) < 5e-4
    # first learned plateau: above 1/2 (m^2 + 1) by the attention mass still off p_0, which decays
    # while the flow waits at the saddle, so smaller noise (a longer wait) brings it closer
    excess = [detect_plateaus(simulate(1.7, t_end=300.0, n_out=601, noise=nz))[1].level - exact[1]
              for nz in (1e-4, 1e-8)]
    assert excess[0] > levels[1] - exact[1] > excess[1] > 0
    assert excess[1] < 2e-3


def test_with_smaller_symmetry_breaking_noise_every_plateau_is_exact_to_3_decimals():
    # the saddle is left later the smaller the noise, so the attention mass off the learned positions has
    # decayed further: at noise 1e-14 all four plateaus sit at the sums of the unlearned terms to 3 decimals
    run = simulate(1.7, t_end=800.0, n_out=1601, noise=1e-14)
    levels = [p.level for p in detect_plateaus(run)]
    exact = plateau_levels(3, 1.7)                  # 1/2 (m^4 + m^2 + 1), 1/2 (m^2 + 1), 1/2, 0
    assert len(levels) == 4
    assert all(abs(a - b) < 5e-4 for a, b in zip(levels, exact))
    assert [round(v, 3) for v in levels] == [round(v, 3) for v in exact]


def test_euler_converges_to_solve_ivp_at_first_order():
    ref = simulate(1.7, t_end=100.0, n_out=201)
    errs = [np.abs(simulate(1.7, t_end=100.0, n_out=201, method="euler", dt=dt).losses - ref.losses).max()
            for dt in (0.05, 0.025)]
    assert 1.8 < errs[0] / errs[1] < 2.2           # error = C dt + O(dt^2)
    euler = simulate(1.7, t_end=100.0, n_out=201, method="euler", dt=0.025)
    for a, b in zip(detect_plateaus(euler), detect_plateaus(ref)):
        assert abs(a.level - b.level) <= errs[1]


def test_stages_come_in_importance_order_and_depend_on_the_seed(run17):
    ts = stage_times(run17)
    plats = detect_plateaus(run17)
    assert ts[0] < ts[1] < ts[2]
    for i, t in enumerate(ts):                      # stage i happens between plateau i and plateau i + 1
        assert plats[i].end <= t <= plats[i + 1].start
    other = stage_times(simulate(1.7, t_end=300.0, n_out=601, seed=1))
    assert other[0] < other[1] < other[2] and other[2] != ts[2]


def test_equal_importance_shows_no_staging():
    tr = simulate(1.0, t_end=150.0, n_out=601)
    ts, plats = stage_times(tr), detect_plateaus(tr)
    # every row is learned in the same drop: no plateau between the first and the last stage time
    assert not any(ts.min() < p.time < ts.max() for p in plats)
    assert len(plats) < 4


def test_competitive_then_cooperative(run17):
    plats = detect_plateaus(run17)
    i = int(np.argmin(np.abs(run17.times - plats[1].time)))
    S = run17.S[i]
    assert head_distances(S)[1] < 0.05 and np.all(np.argmax(S, axis=1) == 0)   # all heads on p_0
    assert head_distances(run17.S[-1])[0] > 0.25                                 # every two heads differ


def test_hardening_gap_vanishes_with_the_entropy(run17):
    G, V, S = run17.G, run17.V[-1], run17.S[-1]
    assert np.array_equal(harden(S).sum(axis=1), np.ones(len(S)))
    for Vt, St in zip(run17.V[::50], run17.S[::50]):
        assert abs(hardening_gap(G, Vt, St)) <= hardening_bound(G, Vt, St)
    ent, gaps, bounds = [], [], []
    for beta in (1, 4, 16, 64, 256, 1024):
        Sb = sharpen(S, beta)
        assert np.array_equal(np.argmax(Sb, axis=1), np.argmax(S, axis=1))
        ent.append(attention_entropy(Sb).sum())
        gaps.append(abs(hardening_gap(G, V, Sb)))
        bounds.append(hardening_bound(G, V, Sb))
    assert ent == sorted(ent, reverse=True) and ent[-1] < 1e-6
    assert all(g <= b for g, b in zip(gaps, bounds)) and bounds[-1] < 1e-4


def test_teacher_samples_its_law_and_restrictions_are_misspecified():
    teacher = markov_teacher(3, 1.7, vocab=3, seed=0)
    x = teacher.sample(6000, seed=1)
    hist = (0, 1, 2)
    hits = [x[t] for t in range(3, len(x)) if tuple(x[t - 3:t]) == hist]
    p = teacher.probabilities(hist)
    freq = np.bincount(hits, minlength=3) / len(hits)
    assert np.all(np.abs(freq - p) <= 4 * np.sqrt(p * (1 - p) / len(hits)))
    assert np.allclose(teacher.restrict([0, 1, 2]).probabilities(hist), p)
    assert np.allclose(teacher.restrict([]).probabilities(hist), 1 / 3)
    kls = [teacher.kl_from(teacher.restrict(range(s))) for s in range(4)]
    assert kls == sorted(kls, reverse=True) and kls[-1] == 0.0
    assert teacher.kl_from(teacher.restrict([0])) < teacher.kl_from(teacher.restrict([2]))  # block 0 matters most


def test_markov_bad_input_is_refused_clearly():
    for kwargs, text in ((dict(m=0.0), "importance ratio"), (dict(m=-1.0), "importance ratio"),
                         (dict(m=1.7, T=2), "T >= h"), (dict(m=1.7, noise=-1.0), "noise"),
                         (dict(m=1.7, method="rk4"), "method"), (dict(m=1.7, method="euler", dt=0.3), "Euler step")):
        with pytest.raises(InvalidInputError, match=text):
            simulate(t_end=10.0, n_out=11, **kwargs)
    with pytest.raises(InvalidInputError, match="target rows"):
        target(0, 4, 1.5)


# ----------------------------------------------------------------------------- pictures and CLI
@pytest.mark.slow
def test_pictures_are_written(tmp_path, dyck_case):
    from tropattn.plot import plot_dyck_accuracy, plot_dyck_partition, plot_markov_run

    model, words = dyck_case
    acc = hard_accuracy(model, words[:3])
    assert plot_dyck_accuracy(soft_sweep(model, words[:3], [0.1, 1.0]), acc, acc, acc, 3,
                              tmp_path / "a.png").stat().st_size > 1000
    w = words[0]
    t = closing_positions(w)[-1]
    assert plot_dyck_partition(model, w, t, tmp_path / "p.png").stat().st_size > 1000
    assert plot_markov_run(simulate(1.7, t_end=20.0, n_out=41), tmp_path / "m.png").stat().st_size > 1000


@pytest.mark.slow
def test_cli_dyck_and_markov(capsys, tmp_path):
    assert main(["dyck", "--n", "4", "--length", "12", "--betas", "0.1,10", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["hard"]["all"] == 1.0 and out["soft"][-1]["failures_outside_band"] == 0
    assert main(["markov", "--t-end", "40", "--n-out", "81", "--json", "--plot", str(tmp_path / "m.png")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["predicted_levels"][0] == pytest.approx(0.5 * (1.7 ** 4 + 1.7 ** 2 + 1))
    assert (tmp_path / "m.png").stat().st_size > 1000
    assert main(["dyck", "--k", "0"]) == 2
    assert "bracket types" in capsys.readouterr().err
    assert main(["markov", "--T", "2"]) == 2
    assert "T >= h" in capsys.readouterr().err


def test_modules_declare_all():
    for mod in (tasks, dyck, markov):
        assert all(hasattr(mod, name) for name in mod.__all__)


@pytest.mark.torch
@pytest.mark.slow
def test_trained_torch_model_attends_to_the_top_and_the_knockout_masks_that_edge():
    pytest.importorskip("torch")
    from tropattn.tasks import measure_trained, train_dyck

    out = measure_trained(train_dyck(k=2, m=2, length=8, steps=200, seed=0), n_words=100)
    assert out["accuracy"] >= 0.95                       # learned (chance is 0.5)
    assert out["knockout_top_mass"] == 0.0               # the masked edge carries no attention
    assert max(out["top_mass"]) > 1 / 8                  # more than uniform over the 8 positions
    assert out["knockout_accuracy"] < out["accuracy"]
