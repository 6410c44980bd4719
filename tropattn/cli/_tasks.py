"""``tropattn dyck`` and ``tropattn markov``: the structured tasks of docs/THEORY.md §9."""

from __future__ import annotations

import math

import numpy as np

from .._progress import Progress
from ..errors import InvalidInputError
from ..plot import (plot_dyck_accuracy, plot_dyck_interventions, plot_dyck_partition, plot_dyck_probes,
                    plot_dyck_training, plot_markov_run, plot_markov_student)
from ..tasks import (INTERVENTIONS, STUDENTS, DyckModel, closest_passes, markov_teacher, train_student, attention_entropy, closing_positions, construction_table,
                     detect_plateaus, generate, hard_accuracy, hardening_bound, hardening_gap, head_distances,
                     intervene, measure_trained, plateau_levels, probe, simulate, soft_sweep, stage_times, train_dyck)
from ._common import add_command, emit, output_path, registers

__all__ = ["register", "dyck_report", "markov_report"]

DEFAULT_BETAS = "0.01,0.03,0.1,0.3,1,3,10"
_START_NOTE = "the start L(0) = 1/2 sum_j m^(2(h-1-j)): the flow leaves it at once, so it is not a plateau"


def _floats(text, what):
    try:
        out = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise InvalidInputError(f"{what} must be comma-separated numbers (e.g. {DEFAULT_BETAS}); got {text!r}") \
            from None
    if not out:
        raise InvalidInputError(f"{what} is empty; give at least one number")
    return out


def dyck_report(k, m, length, n, seed, betas, progress=None) -> dict:
    """Everything ``tropattn dyck`` prints, as one dict.

    Parameters
    ----------
    k, m, length : int
        Bracket types, maximal depth, word length.
    n : int
        Number of random words.
    seed : int
        Seed of the words.
    betas : sequence of float
        Inverse temperatures of the soft sweep.
    progress : Progress, optional
        A progress line over the words, once per pass (the soft sweep and the three hard passes).

    Returns
    -------
    dict
        ``hard``, ``knockout`` and ``depth_ablated`` accuracies, ``soft`` rows, ``chance`` and
        ``monotone_in_beta``; keys starting with ``_`` hold the objects for the picture.

    Raises
    ------
    InvalidInputError
        If the shape or a ``beta`` is invalid.

    Examples
    --------
    >>> r = dyck_report(2, 2, 6, 3, 0, [1.0, 10.0])
    >>> r["hard"]["all"], r["chance"], len(r["soft"])          # the exact model never errs
    (1.0, 0.5, 2)
    """
    words = generate(n, length, k, m, seed)
    model = DyckModel(k, m, length)
    bar = progress or Progress(enabled=False)
    passes = ({}, {"knockout": True}, {"ablate_depth": True})
    bar.start_step(0, len(words) * (1 + len(passes)))
    try:
        rows = soft_sweep(model, _counted(words, bar), betas)
        hard, knockout, ablated = (hard_accuracy(model, _counted(words, bar), **kw) for kw in passes)
    finally:
        bar.close()
    return {"k": k, "m": m, "length": length, "sequences": n, "seed": seed,
            "hard": hard, "knockout": knockout, "depth_ablated": ablated,
            "chance": 1 / k,
            "soft": [dict(beta=r.beta, accuracy=r.accuracy, accuracy_long=r.accuracy_long, failures=r.failures,
                          failures_outside_band=r.outside_band,
                          max_failing_gap=None if r.failures == 0 else r.max_failing_gap, band=r.band)
                     for r in rows],
            "monotone_in_beta": all(a.accuracy <= b.accuracy for a, b in zip(rows, rows[1:])),
            "_model": model, "_words": words, "_rows": rows}


def _counted(words, bar):
    """The words, advancing ``bar`` by one as each is taken."""
    for w in words:
        yield w
        bar.advance(1)


def _strict(x):
    """``x`` with every NaN or infinity replaced by None (strict JSON)."""
    if isinstance(x, dict):
        return {k: _strict(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_strict(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _seeds(text, flag="--seeds"):
    try:
        seeds = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        seeds = None
    if not seeds or any(s != int(s) or s < 0 for s in seeds):
        raise InvalidInputError(f"{flag} must be non-negative integers, comma-separated (e.g. 0,1,2); got {text!r}")
    return [int(s) for s in seeds]


def dyck_trained_report(action, k, m, length, d_model, heads, steps, batch, lr, seeds, test_words,
                        progress=None) -> dict:
    """What ``tropattn dyck train|probe|intervene`` prints: per seed the training log, then probes, interventions.

    Parameters
    ----------
    action : {"train", "probe", "intervene"}
        How far to go (``intervene`` also probes: the probe subspace is ablated).
    k, m, length : int
        The Dyck shape.
    d_model, heads : int
        Width and heads of the 2-layer model.
    steps, batch : int
        Adam steps and words per step.
    lr : float
        Learning rate.
    seeds : sequence of int
        One model per seed.
    test_words : int
        Words of the interventions (and a third of the construction's, at most 60).
    progress : Progress, optional
        A progress line.

    Returns
    -------
    dict
        ``runs`` (per seed: ``seed``, ``steps``, ``log``, ``final``, and ``probe``/``intervene``), and for
        ``intervene`` the exact ``construction`` table; ``chance``.

    Raises
    ------
    InvalidInputError
        If a parameter is bad.  MissingDependencyError without torch.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> r = dyck_trained_report("train", 2, 2, 6, 8, 1, 2, 4, 3e-3, [0], 10)
    >>> r["runs"][0]["steps"], len(r["runs"][0]["log"])
    (2, 2)
    """
    bar = progress or Progress(enabled=False)
    bar.start_step(0, len(seeds))
    runs = []
    for seed in seeds:
        t = train_dyck(k, m, length, steps=steps, batch=batch, d_model=d_model, heads=heads, lr=lr, seed=seed)
        run = {"seed": seed, "steps": t.steps, "log": [list(row) for row in t.log],
               "final": {"loss": t.log[-1][1], "accuracy": t.log[-1][2]}}
        if action in ("probe", "intervene"):
            p = probe(t)
            run["probe"] = {key: p[key] for key in ("layers", "rows", "heldout_rows")}
            if action == "intervene":
                run["intervene"] = intervene(t, n_words=test_words, probes=p)
        runs.append(run)
        bar.advance(1)
    rep = {"k": k, "m": m, "length": length, "d_model": d_model, "heads": heads, "layers": 2, "steps": steps,
           "batch": batch, "lr": lr, "seeds": list(seeds), "chance": 1 / k, "runs": runs}
    if action == "intervene":
        rep["construction"] = construction_table(k, m, length, n_words=min(test_words, 60))
        rep["interventions"] = [{"key": key, "what": what, "control_of": ctl} for key, what, ctl in INTERVENTIONS]
    return _strict(rep)


def _fmt_acc(a):
    return "   --  " if a is None or a["long"] is None else f"{a['all']:.3f}/{a['long']:.3f}"


def _trained_lines(rep, action):
    lines = [f"Dyck-({rep['k']}, {rep['m']}), length {rep['length']}: 2-layer {rep['heads']}-head model, "
             f"d = {rep['d_model']}, {rep['steps']} Adam steps of {rep['batch']} words, seeds "
             + ",".join(map(str, rep["seeds"])) + f"   (chance {rep['chance']:.3f})"]
    for run in rep["runs"]:
        lines.append(f"  seed {run['seed']}: " + "  ".join(f"step {s} loss {lo:.3f} acc {a:.3f}"
                                                          for s, lo, a in run["log"][-3:]))
    if action in ("probe", "intervene"):
        lines.append("  probe R² (held-out / OOD length split / shuffled control), per layer 0=embeddings:")
        for run in rep["runs"]:
            for target in ("depth", "distance"):
                cells = ["{:.2f}/{:.2f}/{:.2f}".format(*(lay[target][s]["r2"] for s in ("heldout", "ood", "shuffled")))
                         for lay in run["probe"]["layers"]]
                lines.append(f"    seed {run['seed']} {target:<8s} " + "   ".join(cells))
    if action == "intervene":
        lines.append("  accuracy all/long-distance per seed (patches: fraction giving the clean answer) | exact "
                     "construction; the keys are listed in docs/tasks_experiments.md")
        for key, what, _ in INTERVENTIONS:
            cells = [_fmt_acc(run["intervene"]["accuracy"][key]) for run in rep["runs"]]
            lines.append(f"    {key:<18s} " + " ".join(cells) + " | " + _fmt_acc(rep["construction"]["accuracy"][key]))
    return lines


def cmd_dyck(args):
    if args.action != "exact":
        return cmd_dyck_trained(args)
    rep = dyck_report(args.k, args.m, args.length, args.n, args.seed, _floats(args.betas, "--betas"),
                      Progress(stage="dyck", unit="words", regions=False))
    if args.plot:
        plot_dyck_accuracy(rep["_rows"], rep["hard"], rep["knockout"], rep["depth_ablated"], args.k, args.plot)
    if args.partition:
        word = rep["_words"][0]
        t = (closing_positions(word, 3) or closing_positions(word))[-1]
        plot_dyck_partition(rep["_model"], word, t, args.partition)
    h, ko, ab = rep["hard"], rep["knockout"], rep["depth_ablated"]
    lines = [f"Dyck-({args.k}, {args.m}), length {args.length}, {args.n} words (seed {args.seed}): "
             f"{h['n_all']} closes, {h['n_long']} long-distance (distance >= 3)",
             f"  exact hard model        accuracy {h['all']:.3f}   long-distance {h['long']:.3f}",
             f"  top-of-stack knockout   accuracy {ko['all']:.3f}   long-distance {ko['long']:.3f}"
             f"   (chance 1/k = {1 / args.k:.3f})",
             f"  depth ablated           accuracy {ab['all']:.3f}   long-distance {ab['long']:.3f}",
             "  softmax layer 2:  beta   accuracy  long   failures  failures with gap >= tau log(2(n-1))"]
    for r in rep["soft"]:
        lines.append(f"                    {r['beta']:<6g} {r['accuracy']:.3f}     {r['accuracy_long']:.3f}  "
                     f"{r['failures']:<9d} {r['failures_outside_band']}")
    lines.append(f"  accuracy non-decreasing in beta: {rep['monotone_in_beta']}")
    if args.train:
        tr = measure_trained(train_dyck(args.k, args.m, args.length, steps=args.train, seed=args.seed))
        rep["trained"] = tr
        lines += [f"  trained 2-layer 1-head torch model ({tr['steps']} steps): accuracy {tr['accuracy']:.3f}"
                  f"   long-distance {tr['accuracy_long']:.3f}",
                  "    top-of-stack attention mass per layer: " + ", ".join(f"{v:.2f}" for v in tr["top_mass"])
                  + "   (long-distance: " + ", ".join(f"{v:.2f}" for v in tr["top_mass_long"]) + ")",
                  f"    knockout of that edge in layer {tr['knockout_layer']}: accuracy {tr['knockout_accuracy']:.3f}"
                  f"   long-distance {tr['knockout_accuracy_long']:.3f}   (chance {tr['chance']:.3f})"]
    emit({k: v for k, v in rep.items() if not k.startswith("_")}, args.json, lines)


def cmd_dyck_trained(args):
    if args.plot:
        output_path(args.plot, "--plot")                # refused before minutes of training, not after
    rep = dyck_trained_report(args.action, args.k, args.m, args.length, args.d, args.heads, args.steps, args.batch,
                              args.lr, _seeds(args.seeds), args.test_words,
                              Progress(stage="training", unit="seeds", regions=False))
    if args.plot and args.action == "train":
        plot_dyck_training(rep["runs"], args.plot)
    elif args.plot and args.action == "probe":
        plot_dyck_probes([{"seed": r["seed"], "layers": r["probe"]["layers"]} for r in rep["runs"]], args.plot)
    elif args.plot:
        plot_dyck_interventions(INTERVENTIONS, [r["intervene"] for r in rep["runs"]], rep["construction"],
                                rep["chance"], args.plot)
    emit(rep, args.json, _trained_lines(rep, args.action))


def markov_report(m, h, T, noise, seeds, t_end, method, dt, n_out, progress=None) -> dict:
    """Everything ``tropattn markov`` prints, as one dict (plus the first run's trajectory).

    Parameters
    ----------
    m : float
        Importance ratio.
    h, T : int
        Target rows and positions.
    noise : float
        Symmetry-breaking noise.
    seeds : sequence of int
        One run per seed.
    t_end : float
        Final time.
    method : {"ivp", "euler"}
        The integrator.
    dt : float
        Euler step.
    n_out : int
        Output samples per run.
    progress : Progress, optional
        A progress line (default: none).

    Returns
    -------
    dict
        The parameters, ``predicted_levels`` (the start first, then ``predicted_plateaus``) and per-seed
        ``runs`` (stage times, ``start`` -- the initial loss, which the flow leaves at once -- the learned plateaus, head
        distances, hardening gap and bound); ``_trajectory`` is the first run.

    Raises
    ------
    InvalidInputError
        As :func:`tropattn.tasks.simulate`.

    Examples
    --------
    >>> r = markov_report(1.7, 2, 4, 1e-6, [0], 20.0, "euler", 0.05, 21)
    >>> [round(v, 3) for v in r["predicted_levels"]], len(r["runs"])
    ([1.945, 0.5, 0.0], 1)
    """
    runs, first = [], None
    bar = progress or Progress(enabled=False)
    bar.start_step(0, len(seeds))
    for seed in seeds:
        tr = simulate(m, h, T, t_end=t_end, noise=noise, seed=seed, method=method, dt=dt, n_out=n_out)
        first = first or tr
        plats = detect_plateaus(tr)
        i0 = int(np.argmin(np.abs(tr.times - plats[1].time))) if len(plats) > 2 else 0
        runs.append({"seed": seed, "stage_times": [None if math.isnan(x) else x for x in stage_times(tr)],
                     "start": {"level": plats[0].level, "end": plats[0].end, "note": _START_NOTE},
                     "plateaus": [dict(start=p.start, end=p.end, time=p.time, level=p.level) for p in plats[1:]],
                     "competitive_max_head_distance": head_distances(tr.S[i0])[1] if i0 else None,
                     "final_min_head_distance": head_distances(tr.S[-1])[0],
                     "final_loss": float(tr.losses[-1]),
                     "final_entropy": [float(e) for e in attention_entropy(tr.S[-1])],
                     "hardening_gap": hardening_gap(tr.G, tr.V[-1], tr.S[-1]),
                     "hardening_bound": hardening_bound(tr.G, tr.V[-1], tr.S[-1])})
        bar.advance(1)
    levels = plateau_levels(h, m)
    return {"m": m, "h": h, "T": T, "noise": noise, "method": method, "t_end": t_end,
            "predicted_levels": levels, "predicted_start": levels[0], "predicted_plateaus": levels[1:],
            "runs": runs, "_trajectory": first}


def markov_train_report(m, h, student, vocab, scale, teacher_seed, samples, seeds, steps, lr, optimizer, context,
                        heads, t_end, progress=None) -> dict:
    """What ``tropattn markov train`` prints: students trained on the teacher chain beside the surrogate flow.

    Parameters
    ----------
    m : float
        Importance ratio.
    h : int
        Lag blocks of the teacher (= target rows of the surrogate).
    student : {"minimal", "attention"}
        The student model.
    vocab : int
        Teacher vocabulary.
    scale : float
        Teacher scale.
    teacher_seed : int
        Seed of the teacher's matrices.
    samples : sequence of int
        Training-set sizes (one run per size and seed).
    seeds : sequence of int
        Student seeds (chain sample and weights).
    steps : int
        Optimiser steps.
    lr : float
        Learning rate.
    optimizer : {"sgd", "adam"}
        The optimiser.
    context : int or None
        Student context length (default: teacher order + 2).
    heads : int or None
        Student heads (default ``h``).
    t_end : float
        Surrogate integration time.
    progress : Progress, optional
        A progress line.

    Returns
    -------
    dict
        ``levels`` (restricted teachers, uniform first), ``runs`` (per run: ``seed``, ``samples``,
        ``log``, ``stage_steps``, ``closest_passes``, ``final_attention``), ``surrogate`` (``start``, learned
        ``plateaus``, ``stage_times``); ``_runs`` and ``_trajectory`` for the picture.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> r = markov_train_report(1.7, 2, "minimal", 3, 2.0, 0, [100], [0], 3, 0.5, "sgd", None, None, 10.0)
    >>> len(r["levels"]), r["runs"][0]["steps"], r["surrogate"]["start"]["note"][:9]
    (3, 3, 'the start')
    """
    teacher = markov_teacher(h, m, vocab=vocab, scale=scale, seed=teacher_seed)
    bar = progress or Progress(enabled=False)
    bar.start_step(0, len(samples) * len(seeds))
    runs, raw = [], []
    for n in samples:
        for seed in seeds:
            r = train_student(teacher, student, samples=n, T=context, heads=heads, steps=steps, lr=lr,
                              optimizer=optimizer, seed=seed)
            raw.append({"student": r.student, "seed": r.seed, "samples": r.samples, "log": r.log,
                        "stage_steps": r.stage_steps, "attention": r.attention})
            runs.append({"seed": r.seed, "samples": r.samples, "steps": r.steps,
                         "stages_found": sum(s is not None for s in r.stage_steps), "stage_steps": list(r.stage_steps),
                         "closest_passes": [{"step": s, "gap": g} for s, g in closest_passes(r)],
                         "final_heldout_loss": r.log[-1][2], "final_train_loss": r.log[-1][1],
                         "final_attention": r.attention[-1].tolist(), "log": [list(row) for row in r.log]})
            bar.advance(1)
            levels = r.levels
    tr = simulate(m, h, max(context or teacher.order + 2, h), t_end=t_end)
    plats = detect_plateaus(tr)
    rep = {"m": m, "h": h, "student": student, "vocab": vocab, "scale": scale, "teacher_seed": teacher_seed,
           "steps": steps, "lr": lr, "optimizer": optimizer, "levels": list(levels),
           "level_names": ["no lag (marginal)"] + [f"blocks 0..{j - 1}" for j in range(1, h)] + ["teacher"],
           "runs": runs,
           "surrogate": {"start": {"level": plats[0].level, "end": plats[0].end,
                                             "note": _START_NOTE},
                         "plateaus": [dict(start=p.start, end=p.end, time=p.time, level=p.level) for p in plats[1:]],
                         "predicted_plateaus": plateau_levels(h, m)[1:],
                         "stage_times": [None if math.isnan(x) else x for x in stage_times(tr)]}}
    rep = _strict(rep)
    rep["_runs"], rep["_trajectory"] = raw, tr
    return rep


def _nats(x):
    return "nan" if x is None else f"{x:.4f}"


def cmd_markov_train(args):
    if args.plot:
        output_path(args.plot, "--plot")
    samples = _seeds(args.samples, "--samples")
    rep = markov_train_report(args.m, args.h, args.student, args.vocab, args.scale, args.teacher_seed, samples,
                              _seeds(args.seeds_students, "--student-seeds"), args.steps, args.lr, args.optimizer, args.context, args.heads,
                              args.t_end, Progress(stage="students", unit="runs", regions=False))
    if args.plot:
        plot_markov_student(rep["_runs"], rep["_trajectory"], rep["levels"], args.plot)
    names = rep["level_names"]
    lines = [f"{args.student} student on the Markov teacher (h = {args.h}, m = {args.m:g}, vocab {args.vocab}, "
             f"scale {args.scale:g}): {args.steps} {args.optimizer} steps, lr {args.lr:g}",
             "  restricted-teacher levels (cross-entropy of the best predictor reading those blocks, nats): "
             + ", ".join(f"{n} {v:.4f}" for n, v in zip(names, rep["levels"]))]
    for r in rep["runs"]:
        lines.append(f"  seed {r['seed']}, {r['samples']} samples: stages at steps "
                     + ", ".join("never" if s is None else str(s) for s in r["stage_steps"])
                     + f"; held-out loss {_nats(r['log'][0][2])} (start) -> {_nats(r['final_heldout_loss'])}"
                     + f" (train {_nats(r['final_train_loss'])})")
        if r["final_heldout_loss"] is None:
            lines.append("          the loss diverged (NaN): lower --lr")
        lines.append("          closest passes by the intermediate levels: "
                     + ", ".join(f"{n}: step {c['step']} (gap {c['gap']:.4f})"
                                 for n, c in zip(names[1:-1], r["closest_passes"])))
    sur = rep["surrogate"]
    lines.append(f"  surrogate: start {sur['start']['level']:.4f} (not a plateau), plateaus at "
                 + ", ".join(f"{p['level']:.4f}" for p in sur["plateaus"]) + " (predicted "
                 + ", ".join(f"{v:.4f}" for v in sur["predicted_plateaus"]) + "), stage times "
                 + ", ".join("never" if s is None else f"{s:g}" for s in sur["stage_times"]))
    emit({k: v for k, v in rep.items() if not k.startswith("_")}, args.json, lines)


def cmd_markov(args):
    if args.m is None:
        args.m = 1.5 if args.action == "train" else 1.7
    if args.action == "train":
        return cmd_markov_train(args)
    seeds = [int(s) for s in _floats(args.seeds, "--seeds")]
    rep = markov_report(args.m, args.h, args.T, args.noise, seeds, args.t_end, args.method, args.dt, args.n_out,
                        Progress(stage="markov", unit="seeds", regions=False))
    if args.plot:
        plot_markov_run(rep["_trajectory"], args.plot)
    lines = [f"surrogate flow: m = {args.m:g}, h = {args.h}, T = {args.T}, noise {args.noise:g}, {args.method}",
             f"  predicted: start {rep['predicted_start']:.4f} (the initial loss), plateaus "
             + ", ".join(f"{v:.4f}" for v in rep["predicted_plateaus"])]
    for r in rep["runs"]:
        lines.append(f"  seed {r['seed']}: start {r['start']['level']:.4f} (left at once, not a plateau), plateaus at "
                     + ", ".join(f"{p['level']:.4f}" for p in r["plateaus"])
                     + "   stage times " + ", ".join("never" if s is None else f"{s:g}" for s in r["stage_times"]))
        if len(r["plateaus"]) > 1:
            lines.append(f"          competitive phase (first learned plateau): heads within "
                         f"{r['competitive_max_head_distance']:.3f} (TV)")
        else:
            lines.append("          no intermediate plateau: no staging")
        lines.append(f"          at the end every two heads differ by >= {r['final_min_head_distance']:.3f} (TV)")
        lines.append(f"          final loss {r['final_loss']:.2e}, attention entropy "
                     + ", ".join(f"{e:.2f}" for e in r["final_entropy"])
                     + f" nats; hardening gap {r['hardening_gap']:.4f} (bound {r['hardening_bound']:.3g})")
    emit({k: v for k, v in rep.items() if not k.startswith("_")}, args.json, lines)


@registers("``dyck`` and ``markov``", "dyck", "markov")
def register(sub):
    s = add_command(sub, "dyck", cmd_dyck, "Dyck-(k, m) top-of-stack attention: exact model, softmax, knockouts; "
                    "trained models: train, probe, intervene",
                    examples=("tropattn dyck --k 3 --m 4 --plot dyck.png", "tropattn dyck --partition partition.png --json",
                              "tropattn dyck train --plot train.png            # needs torch (tropattn[torch])",
                              "tropattn dyck probe --seeds 0,1,2 --plot probes.png",
                              "tropattn dyck intervene --seeds 0,1,2 --plot interventions.png --json",
                              "tropattn dyck intervene --k 20 --m 10 --length 40 --d 64 --steps 4000   # paper shape"))
    s.add_argument("action", nargs="?", choices=("exact", "train", "probe", "intervene"), default="exact",
                   help="exact: the constructed model (default); train: train 2-layer models by steps, one per "
                        "seed; probe: also fit linear probes of depth and distance; intervene: also ablate, knock "
                        "out and patch, beside the exact construction (train/probe/intervene need torch)")
    s.add_argument("--k", type=int, default=3, help="bracket types (default %(default)s)")
    s.add_argument("--m", type=int, default=4, help="maximal depth (default %(default)s)")
    s.add_argument("--length", type=int, default=32, help="word length, even (default %(default)s)")
    s.add_argument("--plot", metavar="FILE.png", help="exact: accuracy against beta with the knockout bars; train: "
                   "loss and accuracy per step; probe: R² per layer; intervene: accuracy under each intervention "
                   "(default: no picture)")
    e = s.add_argument_group("exact model (tropattn dyck [exact])")
    e.add_argument("--n", type=int, default=60, help="number of words (default %(default)s)")
    e.add_argument("--seed", type=int, default=0, help="seed of the generated words (default %(default)s)")
    e.add_argument("--betas", default=DEFAULT_BETAS, help="inverse temperatures (default %(default)s)")
    e.add_argument("--partition", metavar="FILE.png", help="layer 2's exact query-space partition (first word) (default: not drawn)")
    e.add_argument("--train", type=int, metavar="STEPS", default=0,
                   help="also train one 2-layer 1-head torch model (seed --seed) for STEPS Adam steps and knock "
                        "out the top-of-stack edge in its layer of most top mass (default 0: no; 'tropattn dyck "
                        "intervene' does every layer, both, and the controls)")
    t = s.add_argument_group("trained models (tropattn dyck train|probe|intervene)")
    t.add_argument("--d", type=int, default=32, help="model width d_model (default %(default)s)")
    t.add_argument("--heads", type=int, default=1, help="attention heads per layer, dividing --d (default %(default)s)")
    t.add_argument("--steps", type=int, default=1000, help="Adam steps per seed (default %(default)s)")
    t.add_argument("--batch", type=int, default=64, help="words per step (default %(default)s)")
    t.add_argument("--lr", type=float, default=3e-3, help="Adam learning rate (default %(default)s)")
    t.add_argument("--seeds", default="0,1,2", help="one model per seed, comma-separated (default %(default)s)")
    t.add_argument("--test-words", dest="test_words", type=int, default=200,
                   help="test words of the interventions (the construction uses at most 60; default %(default)s)")
    s = add_command(sub, "markov", cmd_markov, "staged sparse attention: surrogate flow, plateaus, stage times; "
                    "students trained on the teacher chain",
                    examples=("tropattn markov --m 1.7 --h 3 --T 40 --plot markov.png", "tropattn markov --m 1 --json",
                              "tropattn markov train --plot student.png       # needs torch (tropattn[torch])",
                              "tropattn markov train --student attention --optimizer adam --lr 0.02 --steps 1000"))
    s.add_argument("action", nargs="?", choices=("surrogate", "train"), default="surrogate",
                   help="surrogate: the gradient flow of the surrogate (default); train: train students on samples "
                        "of the teacher chain, beside the surrogate (needs torch)")
    s.add_argument("--m", type=float, default=None,
                   help="importance ratio (default 1.7 for the surrogate, 1.5 for train: wider gaps between the "
                        "restricted-teacher levels)")
    s.add_argument("--h", type=int, default=3, help="target rows = heads (default 3)")
    s.add_argument("--T", type=int, default=40, help="positions (default 40)")
    s.add_argument("--noise", type=float, default=1e-6, help="symmetry-breaking noise (default 1e-6)")
    s.add_argument("--seeds", default="0", help="noise seeds, comma-separated (default 0)")
    s.add_argument("--t-end", dest="t_end", type=float, default=300.0, help="integration time (default 300)")
    s.add_argument("--method", choices=("ivp", "euler"), default="ivp",
                   help="integrator: adaptive solve_ivp (default) or explicit Euler with --dt")
    s.add_argument("--dt", type=float, default=0.01, help="Euler step (default 0.01)")
    s.add_argument("--n-out", dest="n_out", type=int, default=601, help="output times (default 601)")
    s.add_argument("--plot", metavar="FILE.png", help="surrogate: loss with plateaus and per-head attention heat maps; "
                   "train: the students' loss beside the surrogate's, and the first run's head attention (default: no picture)")
    t = s.add_argument_group("students (tropattn markov train)")
    t.add_argument("--student", choices=STUDENTS, default="minimal",
                   help="the paper's minimal model or a 1-layer multi-head attention (default %(default)s)")
    t.add_argument("--vocab", type=int, default=3, help="teacher vocabulary (default %(default)s)")
    t.add_argument("--scale", type=float, default=2.0, help="teacher scale of the A_k (default %(default)s)")
    t.add_argument("--teacher-seed", dest="teacher_seed", type=int, default=0,
                   help="seed of the teacher's matrices (default %(default)s)")
    t.add_argument("--samples", default="4000,300",
                   help="training windows, one run per size (comma-separated; default %(default)s)")
    t.add_argument("--student-seeds", dest="seeds_students", default="0,1",
                   help="student seeds: chain sample and weights (default %(default)s)")
    t.add_argument("--steps", type=int, default=3000, help="optimiser steps (default %(default)s)")
    t.add_argument("--lr", type=float, default=1.0, help="learning rate (default %(default)s)")
    t.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd",
                   help="full-batch gradient descent (the discretised flow) or Adam (default %(default)s)")
    t.add_argument("--context", type=int, default=None,
                   help="student context length (default: the teacher's order + 2)")
    t.add_argument("--heads", type=int, default=None, help="student heads (default: --h)")
