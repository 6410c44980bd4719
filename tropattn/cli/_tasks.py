"""``tropattn dyck`` and ``tropattn markov``: the structured tasks of docs/THEORY.md §9."""

from __future__ import annotations

import math

import numpy as np

from .._progress import Progress
from ..errors import InvalidInputError
from ..plot import (plot_dyck_accuracy, plot_dyck_interventions, plot_dyck_partition, plot_dyck_probes,
                    plot_dyck_training, plot_markov_run)
from ..tasks import (INTERVENTIONS, DyckModel, attention_entropy, closing_positions, construction_table,
                     detect_plateaus, generate, hard_accuracy, hardening_bound, hardening_gap, head_distances,
                     intervene, measure_trained, plateau_levels, probe, simulate, soft_sweep, stage_times, train_dyck)
from ._common import add_command, emit, registers

__all__ = ["register", "dyck_report", "markov_report"]

DEFAULT_BETAS = "0.01,0.03,0.1,0.3,1,3,10"


def _floats(text, what):
    try:
        out = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise InvalidInputError(f"{what} must be comma-separated numbers (e.g. {DEFAULT_BETAS}); got {text!r}") \
            from None
    if not out:
        raise InvalidInputError(f"{what} is empty; give at least one number")
    return out


def dyck_report(k, m, length, n, seed, betas) -> dict:
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
    rows = soft_sweep(model, words, betas)
    return {"k": k, "m": m, "length": length, "sequences": n, "seed": seed,
            "hard": hard_accuracy(model, words),
            "knockout": hard_accuracy(model, words, knockout=True),
            "depth_ablated": hard_accuracy(model, words, ablate_depth=True),
            "chance": 1 / k,
            "soft": [dict(beta=r.beta, accuracy=r.accuracy, accuracy_long=r.accuracy_long, failures=r.failures,
                          failures_outside_band=r.outside_band,
                          max_failing_gap=None if r.failures == 0 else r.max_failing_gap, band=r.band)
                     for r in rows],
            "monotone_in_beta": all(a.accuracy <= b.accuracy for a, b in zip(rows, rows[1:])),
            "_model": model, "_words": words, "_rows": rows}


def _strict(x):
    """``x`` with every NaN or infinity replaced by None (strict JSON)."""
    if isinstance(x, dict):
        return {k: _strict(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_strict(v) for v in x]
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def _seeds(text):
    try:
        seeds = [float(t) for t in text.split(",") if t.strip()]
    except ValueError:
        seeds = None
    if not seeds or any(s != int(s) or s < 0 for s in seeds):
        raise InvalidInputError(f"--seeds must be non-negative integers, comma-separated (e.g. 0,1,2); got {text!r}")
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
    rep = dyck_report(args.k, args.m, args.length, args.n, args.seed, _floats(args.betas, "--betas"))
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
    rep = dyck_trained_report(args.action, args.k, args.m, args.length, args.d, args.heads, args.steps, args.batch,
                              args.lr, _seeds(args.seeds), args.test_words, Progress())
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
        The parameters, ``predicted_levels`` and per-seed ``runs`` (stage times, plateaus, head
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
                     "plateaus": [dict(start=p.start, end=p.end, time=p.time, level=p.level) for p in plats],
                     "competitive_max_head_distance": head_distances(tr.S[i0])[1] if i0 else None,
                     "final_min_head_distance": head_distances(tr.S[-1])[0],
                     "final_loss": float(tr.losses[-1]),
                     "final_entropy": [float(e) for e in attention_entropy(tr.S[-1])],
                     "hardening_gap": hardening_gap(tr.G, tr.V[-1], tr.S[-1]),
                     "hardening_bound": hardening_bound(tr.G, tr.V[-1], tr.S[-1])})
        bar.advance(1)
    return {"m": m, "h": h, "T": T, "noise": noise, "method": method, "t_end": t_end,
            "predicted_levels": plateau_levels(h, m), "runs": runs, "_trajectory": first}


def cmd_markov(args):
    seeds = [int(s) for s in _floats(args.seeds, "--seeds")]
    rep = markov_report(args.m, args.h, args.T, args.noise, seeds, args.t_end, args.method, args.dt, args.n_out,
                        Progress())
    if args.plot:
        plot_markov_run(rep["_trajectory"], args.plot)
    lines = [f"surrogate flow: m = {args.m:g}, h = {args.h}, T = {args.T}, noise {args.noise:g}, {args.method}",
             "  predicted plateau levels: " + ", ".join(f"{v:.4f}" for v in rep["predicted_levels"])]
    for r in rep["runs"]:
        lines.append(f"  seed {r['seed']}: plateaus at " + ", ".join(f"{p['level']:.4f}" for p in r["plateaus"])
                     + "   stage times " + ", ".join("never" if s is None else f"{s:g}" for s in r["stage_times"]))
        if len(r["plateaus"]) > 2:
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
                   "loss and accuracy per step; probe: R² per layer; intervene: accuracy under each intervention")
    e = s.add_argument_group("exact model (tropattn dyck [exact])")
    e.add_argument("--n", type=int, default=60, help="number of words (default %(default)s)")
    e.add_argument("--seed", type=int, default=0, help="seed of the generated words (default %(default)s)")
    e.add_argument("--betas", default=DEFAULT_BETAS, help="inverse temperatures (default %(default)s)")
    e.add_argument("--partition", metavar="FILE.png", help="layer 2's exact query-space partition (first word)")
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
    s = add_command(sub, "markov", cmd_markov, "staged sparse attention: surrogate flow, plateaus, stage times",
                    examples=("tropattn markov --m 1.7 --h 3 --T 40 --plot markov.png", "tropattn markov --m 1 --json"))
    s.add_argument("--m", type=float, default=1.7, help="importance ratio (default 1.7)")
    s.add_argument("--h", type=int, default=3, help="target rows = heads (default 3)")
    s.add_argument("--T", type=int, default=40, help="positions (default 40)")
    s.add_argument("--noise", type=float, default=1e-6, help="symmetry-breaking noise (default 1e-6)")
    s.add_argument("--seeds", default="0", help="noise seeds, comma-separated (default 0)")
    s.add_argument("--t-end", dest="t_end", type=float, default=300.0, help="integration time (default 300)")
    s.add_argument("--method", choices=("ivp", "euler"), default="ivp",
                   help="integrator: adaptive solve_ivp (default) or explicit Euler with --dt")
    s.add_argument("--dt", type=float, default=0.01, help="Euler step (default 0.01)")
    s.add_argument("--n-out", dest="n_out", type=int, default=601, help="output times (default 601)")
    s.add_argument("--plot", metavar="FILE.png", help="loss with plateaus and per-head attention heat maps")
