"""Pictures of attention dynamics (floats for drawing; the hardmax walls are exact).

* :func:`plot_trajectories` -- token paths on ``S^1`` (angle against time, and the circle) or on
  ``S^2`` (a 3-D view), coloured by the cluster each token ends in;
* :func:`plot_hardmax` -- the exact dominance cells of the hardmax step (a power diagram, drawn by
  :func:`tropattn.plot.plot_power_diagram`) with the tokens and their straight Frank-Wolfe paths;
* :func:`plot_energy` -- ``E(t)`` and ``G^2(t)`` of a Wasserstein run;
* :func:`plot_wasserstein` -- ``E(t)``, ``G^2(t)`` for every ``H`` and the log-log ``<G^2>``-``H`` fit per regime;
* :func:`plot_order_parameter` -- the condensation order parameter against ``beta``, threshold marked;
* :func:`plot_threshold` -- phase diagrams of the noiseless finite-time criterion over ``(beta, T)`` and ``(beta, d)``;
* :func:`plot_mean_field` -- the noisy USA phase diagram over ``(beta, K)``: ``K#``, ``beta*``, branches, particles;
* :func:`plot_fixed_points` -- slow Jacobian rates of a clustered state against ``beta``, inter-cluster mass against ``d``.

>>> import tempfile, os
>>> from tropattn.dynamics import simulate
>>> tr = simulate(np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8]]), np.eye(2), 2.0, 2.0, 0.05)
>>> path = os.path.join(tempfile.mkdtemp(), "flow.png")
>>> str(plot_trajectories(tr, path)) == path and os.path.getsize(path) > 0
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..dynamics import detect_clusters, dominance_diagram
from ..errors import InvalidInputError
from ._common import colors, pyplot, save
from ._power import plot_power_diagram

__all__ = ["plot_trajectories", "plot_hardmax", "plot_energy", "plot_order_parameter", "plot_threshold",
           "plot_mean_field", "plot_fixed_points", "plot_wasserstein"]


def plot_trajectories(trajectory, path, threshold=0.999, title=None, dpi=120):
    """Token paths on ``S^1`` or ``S^2`` coloured by final cluster, saved to ``path``.

    Parameters
    ----------
    trajectory : :class:`tropattn.dynamics.Trajectory`
    path : str or Path
    threshold : overlap at which final tokens count as one cluster (:func:`detect_clusters`)
    title : str, optional
        Figure title (default: a summary of the run).
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InvalidInputError
        Tokens in ``R^d`` with ``d`` other than 2 or 3.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.dynamics import simulate
    >>> tr = simulate(np.array([[1.0, 0.0], [0.0, 1.0], [-0.6, 0.8]]), np.eye(2), beta=1.0, T=2.0, dt=0.05)
    >>> p = os.path.join(tempfile.mkdtemp(), "paths.png")
    >>> os.path.getsize(plot_trajectories(tr, p)) > 0
    True
    """
    S, t = trajectory.states, trajectory.times
    d = S.shape[2]
    if d not in (2, 3):
        raise InvalidInputError(f"tokens live on S^{d - 1}; trajectory pictures exist for d = 2 (S^1) or d = 3 (S^2)")
    lab = detect_clusters(S[-1], threshold)
    k = int(lab.max()) + 1
    col = colors(k)
    plt = pyplot()
    if d == 2:
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4.5))
        theta = np.unwrap(np.arctan2(S[:, :, 1], S[:, :, 0]), axis=0)
        for i in range(S.shape[1]):
            a1.plot(t, theta[:, i], color=col[lab[i]], lw=1)
        a1.set_xlabel("time t")
        a1.set_ylabel("angle of x_i(t) (rad, unwrapped)")
        a1.set_title("token angles")
        u = np.linspace(0, 2 * np.pi, 200)
        a2.plot(np.cos(u), np.sin(u), color="0.8", lw=1)
        for i in range(S.shape[1]):
            a2.plot(S[:, i, 0], S[:, i, 1], color=col[lab[i]], lw=2, alpha=0.7)
        a2.scatter(S[0, :, 0], S[0, :, 1], c=col[lab], marker="o", s=25, label="start", zorder=3)
        a2.scatter(S[-1, :, 0], S[-1, :, 1], c="k", marker="x", s=40, label="end", zorder=4)
        a2.set_aspect("equal")
        a2.set_xlim(-1.2, 1.2)
        a2.set_ylim(-1.2, 1.2)
        a2.set_xlabel("x_1")
        a2.set_ylabel("x_2")
        a2.set_title("paths on the circle S^1")
        a2.legend(loc="upper right", fontsize=8)
    else:
        fig = plt.figure(figsize=(6, 6))
        ax = fig.add_subplot(projection="3d")
        u, v = np.mgrid[0:2 * np.pi:24j, 0:np.pi:12j]
        ax.plot_wireframe(np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v), color="0.85", lw=0.5)
        for i in range(S.shape[1]):
            ax.plot(S[:, i, 0], S[:, i, 1], S[:, i, 2], color=col[lab[i]], lw=1.5)
        ax.scatter(S[0, :, 0], S[0, :, 1], S[0, :, 2], c=col[lab], s=15, label="start")
        ax.scatter(S[-1, :, 0], S[-1, :, 1], S[-1, :, 2], c="k", marker="x", s=40, label="end")
        ax.set_xlabel("x_1")
        ax.set_ylabel("x_2")
        ax.set_zlabel("x_3")
        ax.legend(loc="upper left", fontsize=8)
    fig.suptitle(title or f"{S.shape[1]} tokens on S^{d - 1}, t in [0, {t[-1]:g}]: {k} final cluster(s) "
                 "(colour = final cluster)")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_hardmax(states, B, path, targets=None, title=None, dpi=120):
    """The exact dominance cells of ``states[0]`` with the tokens and their Frank-Wolfe paths.

    Parameters
    ----------
    states : (K, n, 2) array, a hardmax (or soft) trajectory in the plane
    B : (2, 2) score matrix
    path : str or Path
    targets : (n,) sequence of int, optional
        The tokens' vertices (default: located exactly in the diagram of ``states[0]``).
    title : str, optional
        Figure title.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    InvalidInputError
        If the states are not of shape ``(K, n, 2)``.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.dynamics import hardmax_flow
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [0.3, 0.1]])
    >>> states, _ = hardmax_flow(X, np.eye(2), 0.3, 5)
    >>> p = os.path.join(tempfile.mkdtemp(), "hardmax.png")
    >>> os.path.getsize(plot_hardmax(states, np.eye(2), p)) > 0
    True
    """
    states = np.asarray(states, dtype=float)
    if states.ndim != 3 or states.shape[2] != 2:
        raise InvalidInputError("hardmax pictures need tokens in the plane: states of shape (K, n, 2)")
    diagram = dominance_diagram(states[0], B)
    R = 1.25 * float(np.abs(states).max())
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 6))
    plot_power_diagram(diagram, R, ax=ax)
    for coll in ax.collections:
        if coll.get_label() == "sites a_j":
            coll.set_label("keys B^T x_j (cell sites)")
    col = colors(diagram.N)
    lab = np.array([diagram.locate(x.tolist()) for x in states[0]]) if targets is None else np.asarray(targets)
    for i in range(states.shape[1]):
        ax.plot(states[:, i, 0], states[:, i, 1], color=col[lab[i]], lw=1.5, zorder=4)
    ax.scatter(states[0, :, 0], states[0, :, 1], c=col[lab], edgecolors="k", s=40, zorder=5, label="tokens at k = 0")
    V = np.array(diagram.nonempty)
    ax.scatter(states[0, V, 0], states[0, V, 1], marker="*", c="k", s=120, zorder=6, label="vertices of conv X")
    ax.set_xlabel("z_1")
    ax.set_ylabel("z_2")
    ax.legend(loc="lower right", fontsize=8)
    ax.set_title(title or f"hardmax dominance cells (exact): {len(V)} nonempty cells = {len(V)} vertices;\n"
                 f"cell j = {{z : <Bz, x_j> is the largest}}, paths of {states.shape[0] - 1} Frank-Wolfe steps",
                 fontsize=9)
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_energy(run, path, title=None, dpi=120):
    """``E(t)`` and the metric slope ``G^2(t)`` of a :class:`tropattn.dynamics.WassersteinRun`.

    Parameters
    ----------
    run : WassersteinRun
        A recorded flow.
    path : str or Path
        The picture file.
    title : str, optional
        Figure title (default: heads and the identity's residual).
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.dynamics import wasserstein_flow
    >>> run = wasserstein_flow(np.eye(3), np.eye(3)[None], T=0.5, dt=0.05)
    >>> p = os.path.join(tempfile.mkdtemp(), "energy.png")
    >>> os.path.getsize(plot_energy(run, p)) > 0
    True
    """
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 4))
    a1.plot(run.times, run.energy, color="C0")
    a1.set_xlabel("time t")
    a1.set_ylabel("E(x(t); D(t))")
    a1.set_title("interaction energy")
    a2.semilogy(run.times[:-1], np.maximum(run.G2, 1e-300), color="C1")
    a2.set_xlabel("time t")
    a2.set_ylabel("G^2(t) (log scale)")
    a2.set_title("metric slope G^2 = sum_i (Zbar_i/n^2) |v_i|^2")
    fig.suptitle(title or f"Wasserstein flow: H = {run.weights.shape[0]} heads, residual of the "
                 f"energy-dissipation identity {run.residual:.2e}")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_order_parameter(betas, phi, q, beta_c, path, title=None, dpi=120):
    """The clustered fraction ``phi`` and mean overlap ``q`` against ``beta``, ``beta_c`` marked.

    Parameters
    ----------
    betas : (k,) array_like
        Sharpness values.
    phi : (k,) array_like
        Clustered fraction per ``beta``.
    q : (k,) array_like
        Mean overlap per ``beta``.
    beta_c : float or None
        The crossing to mark.
    path : str or Path
        The picture file.
    title : str, optional
        Figure title.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "op.png")
    >>> os.path.getsize(plot_order_parameter([0.1, 1, 2], [0, 0.6, 1], [0, 0.5, 0.9], 0.8, p)) > 0
    True
    """
    b = np.asarray(betas, dtype=float)
    order = np.argsort(b)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ax.plot(b[order], np.asarray(phi)[order], "o-", label="phi: clustered fraction")
    ax.plot(b[order], np.asarray(q)[order], "s--", label="q: mean pairwise overlap")
    ax.axhline(0.5, color="0.6", lw=0.8, ls=":")
    if beta_c is not None:
        ax.axvline(beta_c, color="r", lw=1.2, label=f"beta_c = {beta_c:.3g} (phi = 1/2)")
    ax.set_xlabel("sharpness beta (head D = beta I)")
    ax.set_ylabel("order parameter at time T")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=8)
    ax.set_title(title or "attention condensation from a Gaussian start")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_threshold(betas, Ts, phi, curve, c0, path, dims=None, phi_by_d=None, title=None, dpi=120):
    """Phase diagrams of the noiseless finite-time criterion: ``phi`` over ``(beta, T)`` with the measured
    ``beta_c(T)`` and the ``c0 / T`` law, and (optionally) ``phi`` over ``(beta, d)`` at the first ``T``.

    Parameters
    ----------
    betas : (b,) array_like
        Sharpness grid (log axis).
    Ts : (t,) array_like
        Reading times.
    phi : (t, b) array_like
        Clustered fraction on the grid.
    curve : list of dict
        ``{"T", "beta_c"}`` rows (:func:`tropattn.dynamics.threshold_curve`), drawn as points.
    c0 : float or None
        The constant of ``beta_c ~ c0 / T``, drawn as a line.
    path : str or Path
        The picture file.
    dims : sequence of int, optional
        Dimensions of the second panel (with ``phi_by_d`` of shape ``(len(dims), b)``).
    phi_by_d : array_like, optional
        Clustered fraction over ``(d, beta)``.
    title : str, optional
        Figure title.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "th.png")
    >>> rows = [{"T": 1.0, "beta_c": 1.0}, {"T": 2.0, "beta_c": 0.5}]
    >>> os.path.getsize(plot_threshold([0.5, 1, 2], [1, 2], [[0, 0.5, 1], [0.5, 1, 1]], rows, 1.0, p)) > 0
    True
    """
    betas, Ts, phi = np.asarray(betas, float), np.asarray(Ts, float), np.asarray(phi, float)
    plt = pyplot()
    two = dims is not None and phi_by_d is not None
    fig, axes = plt.subplots(1, 2 if two else 1, figsize=(11 if two else 6, 4.2), squeeze=False)
    ax = axes[0, 0]
    mesh = ax.pcolormesh(betas, Ts, phi, shading="nearest", vmin=0, vmax=1, cmap="viridis")
    ax.plot([r["beta_c"] for r in curve], [r["T"] for r in curve], "o", color="r", label="beta_c(T): phi = 1/2")
    if c0 is not None:
        tt = np.geomspace(Ts.min(), Ts.max(), 50)
        ax.plot(c0 / tt, tt, "-", color="w", lw=1.2, label=f"c0 / T, c0 = {c0:.3g} (beta -> 0 field)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("sharpness beta (head D = beta I)")
    ax.set_ylabel("reading time T")
    ax.set_title("clustered fraction phi(beta, T)")
    ax.legend(fontsize=7, loc="lower left")
    fig.colorbar(mesh, ax=ax, label="phi")
    if two:
        ax2 = axes[0, 1]
        mesh2 = ax2.pcolormesh(betas, np.arange(len(dims)), np.asarray(phi_by_d, float), shading="nearest",
                               vmin=0, vmax=1, cmap="viridis")
        ax2.set_yticks(np.arange(len(dims)), [str(d) for d in dims])
        ax2.set_xscale("log")
        ax2.set_xlabel("sharpness beta")
        ax2.set_ylabel("dimension d")
        ax2.set_title(f"phi(beta, d) at T = {Ts[0]:g}")
        fig.colorbar(mesh2, ax=ax2, label="phi")
    fig.suptitle(title or "noiseless finite-time clustering criterion (beta_c -> 0 as T -> infinity)")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_mean_field(betas, factors, r, info, path, title=None, dpi=120):
    """The noisy USA phase diagram: ``K#(beta)`` (solid where the branch is continuous, dashed where it is
    discontinuous, ``beta*`` marked) with the particle runs, and the mean-field ``r`` over ``(beta, K/K#)``.

    Parameters
    ----------
    betas : (b,) array_like
        Inverse temperatures of the grid.
    factors : (k,) array_like
        ``K / K#`` of the grid.
    r : (k, b) array_like
        Mean-field order parameter of the stable state on the grid.
    info : dict
        One ``dims`` entry of ``tropattn dynamics mean-field --json`` (``beta_star`` and ``rows`` with
        ``beta``, ``K_sharp`` and ``points``), optionally with ``curve``: ``[beta, K#]`` pairs to draw.
    path : str or Path
        The picture file.
    title : str, optional
        Figure title.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "mf.png")
    >>> info = {"beta_star": 2.4, "rows": [{"beta": 1.0, "K_sharp": 1.77, "points": []}]}
    >>> os.path.getsize(plot_mean_field([1, 2, 3], [0.5, 1.5], [[0, 0, 0.3], [0.8, 0.7, 0.6]], info, p)) > 0
    True
    """
    betas, factors, r = np.asarray(betas, float), np.asarray(factors, float), np.asarray(r, float)
    bstar = info["beta_star"]
    rows = info["rows"]
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    curve = info.get("curve") or [[row["beta"], row["K_sharp"]] for row in rows]
    bb, ks = np.array(sorted(curve)).T
    lo = bb <= bstar
    a1.plot(bb[lo], ks[lo], "-", color="k", label="K#(beta): continuous branch")
    a1.plot(bb[~lo], ks[~lo], "--", color="k", label="K#(beta): discontinuous branch")
    a1.axvline(bstar, color="r", lw=1, label=f"beta* = {bstar:.4g}")
    pts = [(row["beta"], p["K"], p["r_particles"]) for row in rows for p in row["points"]
           if p.get("r_particles") is not None]
    if pts:
        x, y, c = np.array(pts).T
        sc = a1.scatter(x, y, c=c, vmin=0, vmax=1, cmap="viridis", edgecolors="k", zorder=3,
                        label="particle runs (colour: r)")
        fig.colorbar(sc, ax=a1, label="r particles")
    a1.set_xlabel("beta")
    a1.set_ylabel("noise coupling K")
    a1.set_title("linear-stability coupling K#(beta)")
    a1.legend(fontsize=7)
    mesh = a2.pcolormesh(betas, factors, r, shading="nearest", vmin=0, vmax=1, cmap="viridis")
    a2.axhline(1.0, color="w", lw=1, label="K = K#")
    a2.axvline(bstar, color="r", lw=1, label="beta*")
    a2.set_xlabel("beta")
    a2.set_ylabel("K / K#(beta)")
    a2.set_title("mean-field r (ordered start): r > 0 below K# = discontinuous")
    a2.legend(fontsize=7)
    fig.colorbar(mesh, ax=a2, label="r")
    fig.suptitle(title or "noisy USA McKean-Vlasov phase diagram")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_fixed_points(betas, rates, gap, dims, mass, bound, path, title=None, dpi=120):
    """Stability and suppression of clustered states: the slow Jacobian rate against ``beta`` beside
    ``e^{-beta Delta}``, and the inter-cluster attention mass against ``d`` beside its bound.

    Parameters
    ----------
    betas, rates : (m,) array_like
        Inverse temperatures and the slow rates :func:`tropattn.dynamics.slow_rate` at them.
    gap : float
        The overlap gap ``Delta`` of the state.
    dims, mass, bound : (p,) array_like
        Dimensions and the mean inter-cluster mass and bound (:func:`tropattn.dynamics.suppression_in_d`).
    path : str or Path
        The picture file.
    title : str, optional
        Figure title.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "fp.png")
    >>> os.path.getsize(plot_fixed_points([2, 4], [1e-1, 1e-2], 1.0, [2, 8], [0.1, 0.01], [0.2, 0.02], p)) > 0
    True
    """
    betas, rates = np.asarray(betas, float), np.asarray(rates, float)
    plt = pyplot()
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    a1.semilogy(betas, rates, "o-", label="largest slow |eigenvalue| (tangent Jacobian)")
    ref = rates[0] * np.exp(-gap * (betas - betas[0]))
    a1.semilogy(betas, ref, "--", color="0.4", label=f"e^(-beta Delta), Delta = {gap:.3g}")
    a1.set_xlabel("beta")
    a1.set_ylabel("rate")
    a1.set_title("inter-cluster modes of a clustered stationary state")
    a1.legend(fontsize=7)
    a2.semilogy(dims, mass, "o-", label="max inter-cluster attention mass")
    a2.semilogy(dims, bound, "s--", label="bound (n - n_a)/n_a e^(-beta Delta)")
    a2.set_xscale("log", base=2)
    a2.set_xlabel("dimension d (random centres)")
    a2.set_ylabel("attention mass")
    a2.set_title("suppression of inter-cluster attention in d")
    a2.legend(fontsize=7)
    fig.suptitle(title or "clustered fixed points: stability and suppression")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)


def plot_wasserstein(Hs, runs, fits, path, title=None, dpi=120):
    """Wasserstein flows for every number of heads: ``E(t)`` and ``G^2(t)`` of one path per ``H`` (first regime),
    and ``<G^2>`` against ``H`` on log-log axes with the fitted slope of each regime.

    Parameters
    ----------
    Hs : sequence of int
        Numbers of heads.
    runs : dict
        Regime name -> list of :class:`tropattn.dynamics.WassersteinRun`, one per ``H``.
    fits : dict
        Regime name -> ``(mean_G2 per H, slope or None)``.
    path : str or Path
        The picture file.
    title : str, optional
        Figure title.
    dpi : int, optional
        Resolution.

    Returns
    -------
    pathlib.Path
        ``path``.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.dynamics import wasserstein_flow
    >>> rs = [wasserstein_flow(np.eye(3), np.repeat(np.eye(3)[None], H, 0), 0.5, 0.05) for H in (1, 2)]
    >>> p = os.path.join(tempfile.mkdtemp(), "w.png")
    >>> os.path.getsize(plot_wasserstein([1, 2], {"in-phase": rs}, {"in-phase": ([0.1, 0.05], -1.0)}, p)) > 0
    True
    """
    plt = pyplot()
    fig, (a1, a2, a3) = plt.subplots(1, 3, figsize=(15, 4.2))
    first = next(iter(runs))
    col = colors(len(Hs))
    for H, run, c in zip(Hs, runs[first], col):
        a1.plot(run.times, run.energy, color=c, lw=1, label=f"H = {H}")
        a2.semilogy(run.times[:-1], np.maximum(run.G2, 1e-300), color=c, lw=1, label=f"H = {H}")
    a1.set_xlabel("time t")
    a1.set_ylabel("E(x(t); D(t))")
    a1.set_title(f"interaction energy, one path per H ({first})")
    a1.legend(fontsize=7)
    a2.set_xlabel("time t")
    a2.set_ylabel("G^2(t) (log scale)")
    a2.set_title("metric slope G^2 = sum_i (Zbar_i/n^2) |v_i|^2")
    a2.legend(fontsize=7)
    H = np.asarray(Hs, float)
    for k, (name, (g2, slope)) in enumerate(fits.items()):
        g2 = np.asarray(g2, float)
        lab = f"{name}: slope {slope:.3g}" if slope is not None else f"{name}: no fit"
        a3.loglog(H, g2, "os"[k % 2], color=f"C{k}", label=lab)
        if slope is not None:
            keep = g2 > 0
            c0 = np.exp(np.mean(np.log(g2[keep])) - slope * np.mean(np.log(H[keep])))
            a3.loglog(H, c0 * H ** slope, "--", color=f"C{k}")
    a3.set_xlabel("number of heads H")
    a3.set_ylabel("<G^2> (second half)")
    a3.set_title("log-log fit of <G^2> against H")
    a3.legend(fontsize=7)
    fig.suptitle(title or "Wasserstein flows of time-dependent heads")
    fig.tight_layout()
    save(fig, path, dpi)
    return Path(path)
