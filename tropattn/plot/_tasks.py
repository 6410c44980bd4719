"""Pictures of the structured tasks (docs/THEORY.md §9): Dyck accuracy and query space, Markov stages.

* :func:`plot_dyck_accuracy` -- closing-type accuracy of softmax attention against the
  inverse temperature ``beta`` (all closes and long-distance ones), beside bars for the exact
  hard model, the top-of-stack knockout and the depth ablation, with chance ``1/k`` marked;
* :func:`plot_dyck_partition` -- the exact query-space partition of layer 2 at one query:
  the power cells of the ``(d, r)`` plane, coloured by the bracket type each cell selects
  and labelled by the bracket and its position; the actual query ``(d_t, 1)`` is marked;
* :func:`plot_markov_run` -- the surrogate flow's loss with the detected plateaus and the
  predicted levels, and one heat map per head of its attention over time.

The cells are exact (clipped in rationals); the curves are float simulations.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..tasks import detect_plateaus, format_sequence, plateau_levels, stage_times
from ._common import colors, pyplot, save
from ._power import draw_cells

__all__ = ["plot_dyck_accuracy", "plot_dyck_partition", "plot_markov_run", "plot_dyck_training", "plot_dyck_probes",
           "plot_dyck_interventions", "plot_markov_student", "draw_dyck_probes", "draw_dyck_interventions",
           "draw_markov_student"]


def plot_dyck_accuracy(rows, hard, knockout, ablated, k, path, dpi=120):
    """Accuracy against ``beta`` (log axis) and the intervention bars, saved as a PNG.

    Parameters
    ----------
    rows : list of :class:`~tropattn.tasks._dyck.SoftRow`
    hard, knockout, ablated : dict
        :func:`~tropattn.tasks._dyck.hard_accuracy` results (keys ``all``, ``long``).
    k : int
        Bracket types (chance is ``1/k``).
    path : str or Path

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.tasks._dyck import DyckModel, generate, hard_accuracy, soft_sweep
    >>> model, ws = DyckModel(2, 2, 8), generate(3, 8, 2, 2)
    >>> acc = hard_accuracy(model, ws)
    >>> p = plot_dyck_accuracy(soft_sweep(model, ws, [0.1, 1.0]), acc, acc, acc, 2,
    ...                        os.path.join(tempfile.mkdtemp(), "a.png"))
    >>> p.stat().st_size > 0
    True
    """
    plt = pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 4), gridspec_kw={"width_ratios": [3, 2]})
    betas = [r.beta for r in rows]
    ax.semilogx(betas, [r.accuracy for r in rows], "o-", label="all closes")
    ax.semilogx(betas, [r.accuracy_long for r in rows], "s--", label="long-distance closes (distance >= 3)")
    ax.axhline(1.0 / k, color="grey", ls=":", label=f"chance 1/k = {1 / k:.2f}")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("inverse temperature beta of layer 2 (log scale)")
    ax.set_ylabel("closing-type accuracy")
    ax.set_title("softmax attention: same scores, beta -> inf is the exact model", fontsize=9)
    ax.legend(fontsize=8, loc="lower right")
    names = ["exact hard model", "top-of-stack\nknocked out", "depth ablated"]
    x = np.arange(3)
    for off, key, label in ((-0.2, "all", "all closes"), (0.2, "long", "long-distance")):
        vals = [d[key] for d in (hard, knockout, ablated)]
        bars = bx.bar(x + off, vals, width=0.4, label=label)
        for b, v in zip(bars, vals):
            bx.text(b.get_x() + b.get_width() / 2, v + 0.01, f"{v:.2f}", ha="center", fontsize=7)
    bx.axhline(1.0 / k, color="grey", ls=":", label=f"chance 1/k = {1 / k:.2f}")
    bx.set_xticks(x, names, fontsize=8)
    bx.set_ylim(0, 1.1)
    bx.set_ylabel("closing-type accuracy (exact, hard attention)")
    bx.set_xlabel("intervention on the constructed model")
    bx.set_title("interventions (zero temperature)", fontsize=9)
    bx.legend(fontsize=8, loc="upper right")
    n = hard.get("n_all", 0)
    fig.suptitle(f"Dyck words with k = {k} bracket types: top-of-stack attention on {n} closes", fontsize=11)
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_dyck_partition(model, w, t, path, dpi=120):
    """Layer 2's exact partition of the query plane ``(d, r)`` at the query position ``t``.

    Each cell is where one open bracket wins the argmax of ``lam (2 D_j d - D_j^2) + mu j r``;
    its colour is the bracket's type (what the model outputs there), its label the bracket
    and position.  The true query ``(d_t, 1)`` is the black star.

    Parameters
    ----------
    model : DyckModel
        The model.
    w : sequence of int
        A balanced word.
    t : int
        The query position.
    path : str or Path
        The picture file.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InvalidInputError
        If the word or ``t`` does not fit the model.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.tasks._dyck import DyckModel
    >>> p = plot_dyck_partition(DyckModel(2, 2, 6), (1, 2, -2, 1, -1, -1), 5,
    ...                         os.path.join(tempfile.mkdtemp(), "p.png"))
    >>> p.stat().st_size > 0
    True
    """
    head, opens = model.layer2_head(w, t)
    diagram = head.power_diagram()
    query = [float(v) for v in model.layer2_query(w, t)]
    type_colors = colors(max(model.k, 2))
    site_colors = np.array([type_colors[w[j] - 1] for j in opens])
    text = format_sequence(w, model.k)
    labels = [(f"'{text[j]}' at {j}" if model.k <= 4 else f"type {w[j] - 1} at {j}",) for j in opens]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.6))
    lo, hi = (-0.5, 0.0), (model.m + 0.5, 2.0)
    drawn = draw_cells(ax, diagram, lo, hi, site_colors, labels=labels, sites=False)
    hidden = len(diagram.hidden)
    for txt in ax.texts:                                   # cell labels: bracket and its position
        txt.set_bbox(dict(facecolor="white", alpha=0.8, lw=0, pad=1.5))
        txt.set_zorder(5)
    ax.set_aspect("auto")
    ax.axhline(1.0, color="k", lw=0.6, ls=":", zorder=2, label="the model's queries (r = 1)")
    ax.plot(*query, "k*", ms=14, label=f"query (d_t, 1) = ({query[0]:g}, 1)")
    top = opens[head.label(model.layer2_query(w, t))]
    for c in range(model.k):
        ax.fill([], [], color=type_colors[c], alpha=0.55, label=f"selects type {c}"
                + (f" '{'()[]{}<>'[2 * c]}'" if model.k <= 4 else ""))
    ax.set_xlabel("depth coordinate d of the query (layer 1 writes d_t)")
    ax.set_ylabel("recency coordinate r (the model uses r = 1)")
    ax.set_title(f"prefix {text[:t]!s} | close at t = {t}: attends to position {top}", fontsize=9)
    ax.legend(fontsize=7, loc="upper left", framealpha=0.9)
    fig.suptitle(f"layer 2 of the Dyck model: exact power cells of {len(opens)} open brackets (keys)\n"
                 f"{drawn} cells in this window, {hidden} never win, the rest only outside it", fontsize=9)
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_markov_run(traj, path, positions=None, dpi=120):
    """Loss with plateaus (detected spans, predicted levels, stage times) and attention heat maps.

    ``positions`` limits the heat maps to the first positions (default ``h + 3``).

    Parameters
    ----------
    traj : Trajectory
        A run of :func:`tropattn.tasks._markov.simulate`.
    path : str or Path
        The picture file.
    positions : int, optional
        Heat-map columns (default ``h + 3``).
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.tasks._markov import simulate
    >>> p = plot_markov_run(simulate(1.7, t_end=20.0, n_out=41), os.path.join(tempfile.mkdtemp(), "m.png"))
    >>> p.stat().st_size > 0
    True
    """
    plt = pyplot()
    H, T = traj.S.shape[1], traj.S.shape[2]
    npos = min(T, traj.h + 3 if positions is None else int(positions))
    fig = plt.figure(figsize=(11, 4.2 + 1.3 * H))
    gs = fig.add_gridspec(1 + H, 2, height_ratios=[3] + [1] * H, width_ratios=[60, 1], wspace=0.03)
    ax = fig.add_subplot(gs[0, 0])
    fig.add_subplot(gs[0, 1]).axis("off")
    t = traj.times
    ax.semilogy(t, np.maximum(traj.losses, 1e-12), "k-", lw=1.2, label="loss 1/2 ||G - P||^2")
    for i, lev in enumerate(plateau_levels(traj.h, traj.m)[1:-1]):
        ax.axhline(lev, color="C1", ls="--", lw=0.8, label="predicted plateau levels" if i == 0 else None)
    plats = detect_plateaus(traj)
    ax.plot(t[0], traj.losses[0], "s", color="C3", ms=6, label="start L(0) (left at once: not a plateau)")
    for i, p in enumerate(plats[1:]):
        ax.axvspan(p.start, p.end, color="C0", alpha=0.12, label="detected plateaus" if i == 0 else None)
        ax.plot(p.time, max(p.level, 1e-12), "o", color="C0", ms=4)
    for i, s in enumerate(stage_times(traj)):
        if np.isfinite(s):
            ax.axvline(s, color="C3", lw=0.8, ls=":", label="stage times t_i" if i == 0 else None)
            ax.text(s, 0.03, f" t_{i}", color="C3", fontsize=9, transform=ax.get_xaxis_transform())
    ax.set_xlim(t[0], t[-1])
    ax.set_xlabel("time of the gradient flow")
    ax.set_ylabel("loss (log scale)")
    ax.legend(fontsize=8, loc="center left")
    ax.set_title(f"m = {traj.m:g}, h = {traj.h}, T = {T}, {H} heads ({traj.method})", fontsize=9)
    for k in range(H):
        hx = fig.add_subplot(gs[1 + k, 0], sharex=ax)
        im = hx.imshow(traj.S[:, k, :npos].T, aspect="auto", origin="lower", vmin=0, vmax=1, cmap="viridis",
                       extent=(t[0], t[-1], -0.5, npos - 0.5), interpolation="nearest")
        hx.set_ylabel(f"head {k}\nposition", fontsize=8)
        hx.set_yticks(range(npos))
        hx.tick_params(labelsize=7)
        if k == H - 1:
            hx.set_xlabel("time of the gradient flow")
        fig.colorbar(im, cax=fig.add_subplot(gs[1 + k, 1]), label="s_k")
    fig.suptitle("staged sparse attention: loss plateaus and per-head attention over time "
                 f"(positions 0..{npos - 1}; p_i = i carries row i)", fontsize=10)
    fig.subplots_adjust(left=0.07, right=0.94, top=0.92, bottom=0.06, hspace=0.35)
    save(fig, path, dpi)
    return Path(path)


def plot_dyck_training(runs, path, dpi=120):
    """Training loss and held-out accuracy against the step, one curve per seed.

    Parameters
    ----------
    runs : list of dict
        ``{"seed": s, "log": [(step, loss, accuracy), ...]}`` per seed.
    path : str or Path
        The picture file.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = plot_dyck_training([{"seed": 0, "log": [(1, 1.0, 0.5), (2, 0.5, 0.9)]}],
    ...                        os.path.join(tempfile.mkdtemp(), "t.png"))
    >>> p.stat().st_size > 0
    True
    """
    plt = pyplot()
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(10, 3.8))
    for run in runs:
        steps, losses, accs = zip(*run["log"])
        ax.semilogy(steps, losses, "-", label=f"seed {run['seed']}")
        bx.plot(steps, accs, "-", label=f"seed {run['seed']}")
    ax.set_xlabel("Adam step")
    ax.set_ylabel("training loss (cross-entropy, log scale)")
    bx.set_xlabel("Adam step")
    bx.set_ylabel("held-out closing-type accuracy")
    bx.set_ylim(0, 1.02)
    for a in (ax, bx):
        a.legend(fontsize=8)
    fig.suptitle("Dyck: the trained 2-layer model, by steps (seeded, deterministic)", fontsize=10)
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def draw_dyck_probes(probes):
    """The figure of :func:`plot_dyck_probes` (not saved)."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    styles = (("heldout", "o", "C0", "held-out words"), ("ood", "^", "C2", "OOD: fit q < L/2, test q >= L/2"),
              ("shuffled", "x", "grey", "shuffled-label control"))
    n_layers = len(probes[0]["layers"])
    for ax, target in zip(axes, ("depth", "distance")):
        for i, (split, marker, color, label) in enumerate(styles):
            xs = np.arange(n_layers) + (i - 1) * 0.12
            vals = np.array([[lay[target][split]["r2"] for lay in p["layers"]] for p in probes], dtype=float)
            vals = np.maximum(vals, -1.0)                  # clipped, drawn on the bottom edge
            for j, row in enumerate(vals):
                ax.plot(xs, row, marker, color=color, ls="none", label=label if j == 0 else None)
            ax.plot(xs, np.nanmean(vals, 0), "-", color=color, lw=0.8)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xticks(range(n_layers), ["embeddings"] + [f"after layer {i}" for i in range(1, n_layers)])
        ax.set_title(f"probe of the {target}", fontsize=9)
        ax.set_ylim(-1.05, 1.02)
        ax.set_xlabel("residual stream read by the linear probe")
    axes[0].set_ylabel("R² on held-out positions (seeds as points)")
    axes[1].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"Dyck: linear probes of depth and distance, {len(probes)} seed(s); R² below -1 clipped", fontsize=10)
    fig.tight_layout()
    return fig


def plot_dyck_probes(probes, path, dpi=120):
    """Probe R² per layer (held-out, OOD length split, shuffled-label control), seeds as points.

    Parameters
    ----------
    probes : list of dict
        ``{"seed": s, "layers": [...]}`` per seed, ``layers`` as :func:`tropattn.tasks.probe` returns.
    path : str or Path
        The picture file.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> sc = {"r2": 0.5, "r": 0.7}
    >>> layer = {t: {"heldout": sc, "ood": sc, "shuffled": {"r2": 0.0, "r": 0.0}} for t in ("depth", "distance")}
    >>> p = plot_dyck_probes([{"seed": 0, "layers": [layer, layer]}], os.path.join(tempfile.mkdtemp(), "p.png"))
    >>> p.stat().st_size > 0
    True
    """
    save(draw_dyck_probes(probes), path, dpi)
    return Path(path)


def draw_dyck_interventions(rows, trained, construction, chance, part="long"):
    """The figure of :func:`plot_dyck_interventions` (not saved)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(10, 0.38 * len(rows) + 1.6))
    y = np.arange(len(rows))[::-1]
    for yi, (key, label, control) in zip(y, rows):
        vals = [r["accuracy"][key][part] for r in trained]
        color = "grey" if control else "C0"
        ax.barh(yi, np.mean(vals), color=color, alpha=0.35, height=0.7)
        ax.plot(vals, [yi] * len(vals), "o", color=color, ms=4, label=None)
        c = construction["accuracy"][key]
        if c is not None:
            ax.plot(c[part], yi, "*", color="C3", ms=10)
    ax.plot([], [], "o", color="C0", label="trained model, one point per seed (bar: mean)")
    ax.plot([], [], "o", color="grey", label="control (random subspace / random edge)")
    ax.plot([], [], "*", color="C3", ms=10, label="exact construction")
    ax.axvline(chance, color="k", ls=":", label=f"chance 1/k = {chance:.2f}")
    ax.set_yticks(y, [label for _, label, _ in rows], fontsize=7)
    ax.set_xlim(-0.03, 1.05)
    what = "long-distance closes (distance >= 3)" if part == "long" else "all closes"
    ax.set_xlabel(f"accuracy on {what}\n(corrupted rows: fraction giving the clean answer)", fontsize=9)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, framealpha=0.9)
    fig.suptitle(f"Dyck: interventions on {len(trained)} trained model(s) beside the exact construction",
                 fontsize=10)
    fig.tight_layout()
    return fig


def plot_dyck_interventions(rows, trained, construction, chance, path, part="long", dpi=120):
    """Accuracy under each intervention: the trained seeds as points (bar = mean), the construction as a star.

    Parameters
    ----------
    rows : sequence of (key, label, control_of)
        The interventions in order (:data:`tropattn.tasks.INTERVENTIONS`).
    trained : list of dict
        Per seed, ``accuracy[key] = {"all", "long"}``.
    construction : dict
        The same for the exact model (a value may be ``None``: no counterpart).
    chance : float
        ``1/k``, drawn as a line.
    path : str or Path
        The picture file.
    part : {"long", "all"}, optional
        Long-distance closes (default) or all closes.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> rows = (("none", "no intervention", None), ("ctl", "a control", "none"))
    >>> acc = {"none": {"all": 1.0, "long": 1.0}, "ctl": {"all": 0.9, "long": 0.8}}
    >>> p = plot_dyck_interventions(rows, [{"accuracy": acc}], {"accuracy": acc}, 0.5,
    ...                             os.path.join(tempfile.mkdtemp(), "i.png"))
    >>> p.stat().st_size > 0
    True
    """
    save(draw_dyck_interventions(rows, trained, construction, chance, part), path, dpi)
    return Path(path)


def draw_markov_student(runs, traj, levels):
    """The figure of :func:`plot_markov_student` (not saved)."""
    plt = pyplot()
    first = runs[0]
    H = first["attention"].shape[1]
    fig = plt.figure(figsize=(12, 4.4 + 1.1 * H))
    gs = fig.add_gridspec(1 + H, 3, height_ratios=[3] + [1] * H, width_ratios=[30, 30, 1], wspace=0.25)
    ax, bx = fig.add_subplot(gs[0, 0]), fig.add_subplot(gs[0, 1])
    for i, run in enumerate(runs):
        steps, _, held = zip(*run["log"])
        ax.semilogx(np.add(steps, 1), held, "-", color=f"C{i}", lw=1.1,
                    label=f"seed {run['seed']}, {run['samples']} samples")
        for s in run["stage_steps"]:
            if s is not None:
                ax.plot(s + 1, np.interp(s, steps, held), "v", color=f"C{i}", ms=6)
    for j, lev in enumerate(levels):
        name = "no lag read (marginal)" if j == 0 else ("the teacher" if j == len(levels) - 1 else
                                                     f"teacher with blocks 0..{j - 1} only")
        ax.axhline(lev, color="grey", ls="--", lw=0.7)
        ax.text(0.01, lev, name, transform=ax.get_yaxis_transform(), ha="left",
                va="top" if j == len(levels) - 1 else "bottom", fontsize=7, color="dimgrey")
    ax.plot([], [], "v", color="k", label="detected stage (loss below a level midpoint)")
    top = max(run["log"][0][2] for run in runs)
    if max(max(row[2] for row in run["log"]) for run in runs) > 1.3 * top:     # early spikes: keep the levels readable
        ax.set_ylim(min(levels) - 0.05 * top, 1.3 * top)
    ax.set_xlabel("optimiser step + 1 (log scale; step 0 is the start)")
    ax.set_ylabel("held-out cross-entropy (nats)")
    clipped = ax.get_ylim()[1] < max(max(row[2] for row in run["log"]) for run in runs)
    ax.set_title(f"trained {first['student']} student: loss against restricted-teacher levels"
                 + ("\n(early spikes clipped above 1.3 x the start)" if clipped else ""), fontsize=9)
    ax.legend(fontsize=7, loc="upper right")
    t, L = traj.times, traj.losses
    bx.semilogy(t, np.maximum(L, 1e-12), "k-", lw=1.1, label="surrogate loss")
    plats = detect_plateaus(traj)
    bx.plot(t[0], L[0], "s", color="C3", ms=6, label=f"start L(0) = {L[0]:.3g} (left at once: not a plateau)")
    for i, p in enumerate(plats[1:]):
        bx.axvspan(p.start, p.end, color="C0", alpha=0.15, label="detected plateaus" if i == 0 else None)
    for i, s in enumerate(stage_times(traj)):
        if np.isfinite(s):
            bx.axvline(s, color="C3", lw=0.8, ls=":", label="stage times t_i" if i == 0 else None)
    bx.set_xlabel("time of the surrogate gradient flow")
    bx.set_ylabel("surrogate loss 1/2 ||G - P||^2 (log scale)")
    bx.set_title(f"surrogate flow, m = {traj.m:g}, h = {traj.h}", fontsize=9)
    bx.legend(fontsize=7, loc="lower left")
    fig.add_subplot(gs[0, 2]).axis("off")
    steps = np.array([row[0] for row in first["log"]], dtype=float)
    A = np.asarray(first["attention"])
    mid = (steps[1:] + steps[:-1]) / 2 if len(steps) > 1 else steps
    edges = np.concatenate([[steps[0] - 0.5], mid, [steps[-1] + 0.5]])          # log steps are not evenly spaced
    for k in range(H):
        hx = fig.add_subplot(gs[1 + k, :2])
        im = hx.pcolormesh(edges, np.arange(A.shape[2] + 1) - 0.5, A[:, k, :].T, vmin=0, vmax=1, cmap="viridis",
                           shading="flat")
        hx.set_ylabel(f"head {k}\nposition", fontsize=8)
        hx.tick_params(labelsize=7)
        if k == H - 1:
            hx.set_xlabel(f"optimiser step (seed {first['seed']}, {first['samples']} samples); "
                          f"position {A.shape[2] - 1} is lag 1")
        fig.colorbar(im, cax=fig.add_subplot(gs[1 + k, 2]), label="attention")
    fig.suptitle("Markov teacher: a trained student beside the surrogate flow; per-head attention over training",
                 fontsize=10)
    fig.subplots_adjust(left=0.07, right=0.95, top=0.92, bottom=0.06, hspace=0.45)
    return fig


def plot_markov_student(runs, traj, levels, path, dpi=120):
    """Trained student loss (with the restricted-teacher levels and stages) beside the surrogate's loss.

    Parameters
    ----------
    runs : list of dict
        Per run: ``student``, ``seed``, ``samples``, ``log`` rows ``(step, train, held-out)``,
        ``stage_steps`` and ``attention`` (``steps x H x T``); the first run's heat maps are drawn.
    traj : Trajectory
        The surrogate flow (:func:`tropattn.tasks.simulate`).
    levels : sequence of float
        The restricted-teacher levels ``l_0 .. l_h``.
    path : str or Path
        The picture file.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.tasks._markov import simulate
    >>> run = {"student": "minimal", "seed": 0, "samples": 10, "log": [(0, 1.0, 1.0), (5, 0.5, 0.6)],
    ...        "stage_steps": (5, None), "attention": np.full((2, 2, 3), 1 / 3)}
    >>> p = plot_markov_student([run], simulate(1.7, h=2, t_end=20.0, n_out=41), [1.1, 0.8, 0.5],
    ...                         os.path.join(tempfile.mkdtemp(), "s.png"))
    >>> p.stat().st_size > 0
    True
    """
    save(draw_markov_student(runs, traj, levels), path, dpi)
    return Path(path)
