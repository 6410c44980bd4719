"""``tropattn dynamics flow|cluster|threshold|mean-field|fixed-points|hardmax|wasserstein``: attention dynamics.

Each sub-sub-command runs one part of :mod:`tropattn.dynamics` on seeded random data (or a token
file for ``flow``), prints a table or one JSON object (``--json``) and, with ``--plot FILE``, draws
the matching picture of :mod:`tropattn.plot._dynamics`.  Long runs show a progress line on a
terminal and stop cleanly on Ctrl-C.
"""

from __future__ import annotations

import argparse

import json
import math
import sys
import textwrap
import time

import numpy as np

from ..dynamics import (cluster_configuration, find_clustered_state, simplex_centres, spectrum_summary, suppression_in_d,
                        tangent_jacobian, cross_polytope_tokens, decreases, identity_defect, integrate_flow,
                        orthogonal_psd_heads, fastest_clustering_beta, rate_maximising_beta, gaussian_heads, loglog_slope,
                        clustering_time, collinearity_residual, critical_beta_star, k_sharp, k_sharp_quadrature,
                        landau_coefficient, particle_order, stationary_order, deviation_time, detect_clusters, dominance_diagram, energy_rate, is_monotone,
                        exponential_rate, hardmax_flow, inter_cluster_mass, least_margin, mass_bound,
                        order_parameter_grid, overlap_gap, random_symmetric, random_tokens, self_dominant, simulate,
                        threshold_curve, time_average, vertex_count, wasserstein_flow, zero_beta_constant)
from ..errors import DegenerateInputError, InvalidInputError
from ..plot import plot_fixed_points, plot_hardmax, plot_mean_field, plot_threshold, plot_trajectories, plot_wasserstein
from .._progress import Progress
from .._validate import bounded_float, nonnegative_int, positive_float, positive_int
from ._common import EXIT_CODES, add_command, emit, registers

__all__ = ["register"]


class _Steps(Progress):
    """The terminal progress line, counting steps (or evaluations) instead of sub-layers."""

    def __init__(self, what):
        super().__init__(steps=1)
        self.what = what

    def __call__(self, done, total):
        now = time.perf_counter()
        if self.enabled and (now - self.last > 0.2 or done == total):
            self.last = now
            tail = f"{done}/{total}" if total else f"{done}"
            sys.stderr.write(f"\r{self.what}: {tail}" + ("\n" if done == total else ""))
            sys.stderr.flush()


def _check(args, ints=(), positives=(), bounded=()):
    """Refuse bad option values with one line naming the option: ``ints`` are ``(dest, minimum, meaning)``,
    ``positives`` ``(dest, meaning)``, ``bounded`` ``(dest, lo, hi, meaning)`` with ``(lo, hi]``."""
    for dest, minimum, meaning in ints:
        positive_int(getattr(args, dest), _flag(dest), minimum, meaning)
    for dest, meaning in positives:
        positive_float(getattr(args, dest), _flag(dest), meaning=meaning)
    for dest, lo, hi, meaning in bounded:
        bounded_float(getattr(args, dest), _flag(dest), lo, hi, meaning=meaning, open_lo=True)
    if hasattr(args, "seed"):
        nonnegative_int(args.seed, "--seed", "the random seed")


def _flag(dest):
    return "--" + dest.replace("_", "-")


def _strict(obj):
    """``obj`` with every non-finite float as None (``null``): the output is strict JSON.  The kernels report
    overflowing quantities in log form, so only values documented as possibly infinite (``E``) meet this."""
    if isinstance(obj, dict):
        return {k: _strict(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_strict(v) for v in obj]
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    if isinstance(obj, (np.integer, np.bool_)):
        return obj.item()
    return obj


def _emit(out, as_json, lines):
    emit(_strict(out), as_json, lines)


def _positive_list(vals, what):
    if not all(v > 0 for v in vals):
        raise InvalidInputError(f"{what} = {','.join(f'{v:g}' for v in vals)}; every value must be > 0")
    return vals


def _floats(text, what):
    try:
        vals = [float(t) for t in str(text).split(",") if t.strip()]
    except ValueError:
        raise InvalidInputError(f"{what} = {text!r}; give comma-separated numbers, e.g. 0.5,1,2") from None
    if not vals or not all(math.isfinite(v) for v in vals):
        raise InvalidInputError(f"{what} = {text!r}; give comma-separated finite numbers, e.g. 0.5,1,2")
    return vals


def _ints(text, what):
    vals = _floats(text, what)
    if not all(v == int(v) and v >= 1 for v in vals):
        raise InvalidInputError(f"{what} = {text!r}; give comma-separated positive integers, e.g. 1,4,16")
    return [int(v) for v in vals]


def _heads(kind, H, d, rng):
    if kind == "identity":
        return np.repeat(np.eye(d)[None], H, axis=0)
    return random_symmetric(d, rng, H)


def _run_flow(args):
    _check(args, ints=[("n", 1, "the number of tokens"), ("d", 2, "the dimension (tokens on S^(d-1))"),
                       ("heads", 1, "the number of heads")],
           positives=[("beta", "the inverse temperature"), ("T", "the final time"), ("dt", "the time step")],
           bounded=[("threshold", 0, 1, "the overlap that joins two tokens")])
    rng = np.random.default_rng(args.seed)
    if args.tokens:
        with open(args.tokens) as fh:
            try:
                X = np.array(json.load(fh), dtype=float)
            except (ValueError, TypeError) as exc:
                raise InvalidInputError(f"{args.tokens}: expected a JSON list of n token lists of d numbers "
                                        f"({exc})") from None
        if X.ndim != 2:
            raise InvalidInputError(f"{args.tokens}: expected a JSON list of n token lists of d numbers; got shape "
                                    f"{X.shape}")
        d = X.shape[1]
    else:
        d = args.d
        X = random_tokens(args.n, d, rng)
    M = _heads(args.head, args.heads, d, rng)
    bar = _Steps("flow steps")
    tr = simulate(X, M, args.beta, args.T, args.dt, mode=args.mode, scheme=args.scheme, normalize=args.normalize,
                  progress=bar)
    bar.close()
    rates = np.array([energy_rate(S, M, args.beta, args.mode, relative=True) for S in tr.states])
    lab = detect_clusters(tr.final, args.threshold)
    E = tr.energies
    out = {"n": len(tr.final), "d": d, "heads": len(M), "beta": args.beta, "mode": args.mode, "T": args.T,
           "log_E_start": float(tr.log_energies[0]), "log_E_end": float(tr.log_energies[-1]),
           "E_start": float(E[0]) if math.isfinite(E[0]) else None,
           "E_end": float(E[-1]) if math.isfinite(E[-1]) else None,
           "min_dlogE_dt": float(rates.min()), "energy_monotone": is_monotone(rates),
           "clusters": int(lab.max()) + 1}
    if lab.max() > 0:
        gap = overlap_gap(tr.final, lab)
        out["overlap_gap"] = gap
        if gap > 0:
            out["max_inter_cluster_mass"] = float(inter_cluster_mass(tr.final, lab, args.beta).max())
            out["mass_bound"] = float(mass_bound(tr.final, lab, args.beta).max())
    lines = [f"{k:>24}: {v}" for k, v in out.items()]
    if None in (out["E_start"], out["E_end"]):
        lines.append(f"E = e^(log_E) overflows a float at beta = {args.beta:g}: read log_E (null in --json)")
    if args.plot:
        plot_trajectories(tr, args.plot, args.threshold)
        lines.append(f"wrote {args.plot}")
    _emit(out, args.json, lines)


def _run_cluster(args):
    _check(args, ints=[("n", 2, "the number of equiangular tokens")])
    betas = _positive_list(_floats(args.betas, "--betas"), "--betas")
    rho = _floats(args.rho, "--rho")
    if len(rho) != 2:
        raise InvalidInputError(f"--rho = {args.rho!r}; give RHO_A,RHO_B, e.g. 0.1,0.9")
    ra, rb = rho
    times = [clustering_time(b, args.n, ra, rb, args.mode, values=args.values) for b in betas]
    k = int(np.argmin(times))
    out = {"n": args.n, "mode": args.mode, "values": args.values, "rho_a": ra, "rho_b": rb,
           "betas": betas, "times": times, "argmin_beta": betas[k], "ln_n_minus_1": math.log(args.n - 1)}
    if args.mode == "sa" and args.values == "scaled":
        out.update({"beta_c_closed_form_rho_a": rate_maximising_beta(args.n, ra),
                    "beta_c_closed_form_rho_b": rate_maximising_beta(args.n, rb),
                    "fastest_beta_measured": fastest_clustering_beta(args.n, ra, rb)})
    lines = [f"equiangular clustering time rho {ra:g} -> {rb:g}, n = {args.n}, {args.mode}, values {args.values}",
             f"{'beta':>10} {'T':>14}"] + [f"{b:>10.4g} {t:>14.6g}" for b, t in zip(betas, times)]
    lines.append(f"minimum on the grid at beta = {betas[k]:g} (ln(n-1) = {math.log(args.n - 1):.4g})")
    if "fastest_beta_measured" in out:
        lines.append(f"closed form beta_c(n, rho) = (1 + W((n-1)/e))/(1 - rho): {out['beta_c_closed_form_rho_a']:.4g} "
                     f"at rho_a, {out['beta_c_closed_form_rho_b']:.4g} at rho_b; measured knee (argmin of T over "
                     f"beta) {out['fastest_beta_measured']:.4g}, in between")
    _emit(out, args.json, lines)


def _run_threshold(args):
    _check(args, ints=[("n", 2, "the number of tokens"), ("seeds", 1, "the number of random starts"),
                       ("points", 2, "the number of betas of the picture")],
           positives=[("lo", "the lower end of the bracket"), ("hi", "the upper end of the bracket"),
                      ("tol", "the bisection tolerance")])
    if not args.lo < args.hi:
        raise InvalidInputError(f"--lo = {args.lo:g} and --hi = {args.hi:g}; the bracket needs lo < hi")
    dims = _ints(args.d, "--d")
    if min(dims) < 2:
        raise InvalidInputError(f"--d = {args.d!r}; every dimension must be >= 2 (tokens on S^(d-1))")
    Ts = sorted(set(_positive_list(_floats(args.T, "--T"), "--T")))
    seeds = tuple(range(args.seeds))
    bar = _Steps("threshold evaluations")
    rows = []
    for d in dims:
        curve, slope = threshold_curve(args.n, d, Ts, args.lo, args.hi, seeds, args.values, tol=args.tol,
                                       progress=bar)
        c0 = zero_beta_constant(args.n, d, seeds) if args.values == "scaled" else None
        rows.append({"d": d, "curve": curve, "loglog_slope": slope, "c0": c0})
    bar.close()
    out = {"model": "noiseless SA flow, head D = beta I" if args.values == "scaled" else "noiseless SA flow, M = I",
           "n": args.n, "values": args.values, "seeds": len(seeds),
           "criterion": "phi(beta_c) = 1/2 at time T, phi = fraction of tokens with a partner at overlap >= 0.98",
           "long_time_limit": "beta_c(T) -> 0 as T -> infinity; beta_c(T) T -> c0, the time the beta -> 0 field "
                              "P_i(mean x) needs to reach phi = 1/2" if args.values == "scaled" else
                              "beta_c(T) -> 0 as T -> infinity", "rows": rows}
    lines = [f"noiseless finite-time clustering criterion (not a phase transition): n = {args.n}, {len(seeds)} seeds, "
             "beta_c(T) where half the tokens have a partner at overlap >= 0.98 at time T",
             f"{'d':>4} {'T':>8} {'beta_c':>10} {'beta_c*T':>10}"]
    for r in rows:
        lines += [f"{r['d']:>4} {c['T']:>8.4g} {c['beta_c']:>10.4g} {c['beta_c_T']:>10.4g}" for c in r["curve"]]
        tail = f"d = {r['d']}: slope of ln beta_c against ln T = "
        tail += "n/a (one T)" if r["loglog_slope"] is None else f"{r['loglog_slope']:.3f} (-1: beta_c ~ c0/T)"
        if r["c0"] is not None:
            tail += f"; c0 = {r['c0']:.4g}"
        lines.append(tail)
    lines.append("long-time limit: " + out["long_time_limit"] + ". For the noisy model's transition "
                 "(K#(beta), beta*(d)) run 'tropattn dynamics mean-field'.")
    if args.plot:
        betas = np.geomspace(args.lo, args.hi, args.points)
        grid = order_parameter_grid(betas, Ts, args.n, dims[0], seeds, args.values, progress=bar)
        by_d = np.array([order_parameter_grid(betas, [Ts[0]], args.n, d, seeds, args.values)[0] for d in dims])
        plot_threshold(betas, Ts, grid, rows[0]["curve"], rows[0]["c0"], args.plot, dims=dims, phi_by_d=by_d,
                       title=f"noiseless SA flow from a Gaussian start, n = {args.n}, {len(seeds)} seeds")
        lines.append(f"wrote {args.plot}")
    _emit(out, args.json, lines)


#: Particle runs longer than this many steps are skipped (reported as stiff), not run.
_MAX_PARTICLE_STEPS = 20000


def _mean_field_row(beta, d, bstar, factors, args, bar):
    """One beta of ``dynamics mean-field``: K# two ways, the branch, mean-field and particle order parameters."""
    ks = k_sharp(beta, d)
    row = {"beta": beta, "K_sharp": ks, "K_sharp_quadrature": k_sharp_quadrature(beta, d),
           "branch": "continuous" if beta < bstar else "discontinuous",
           "landau_coefficient": landau_coefficient(beta, d), "points": []}
    dt = min(args.dt, 0.5 / (beta * math.exp(beta)))        # the drift's stiffness near a cluster: beta e^beta
    for f in factors:
        pt = {"K_over_K_sharp": f, "K": f * ks, "r_mean_field_ordered_start": stationary_order(beta, d, f * ks, 0.9),
              "r_mean_field_near_uniform_start": stationary_order(beta, d, f * ks, 0.01)}
        if args.particles and args.T / dt <= _MAX_PARTICLE_STEPS:
            m, e = particle_order(args.particles, d, beta, f * ks, args.T, dt, tuple(range(args.seeds)),
                                  progress=bar)
            pt.update({"r_particles": m, "r_particles_stderr": e, "dt": dt})
            if f < 1:
                sig2 = 1 / (d * args.particles * (1 - f))
                pt["r_finite_n_prediction"] = math.sqrt(2 * sig2) * math.gamma((d + 1) / 2) / math.gamma(d / 2)
        elif args.particles:
            pt["r_particles"] = None
            pt["particles_skipped"] = (f"stiff: the step must be <= 0.5 / (beta e^beta) = {dt:.2g}, so T / dt > "
                                       f"{_MAX_PARTICLE_STEPS} steps; use a smaller --T or beta")
        row["points"].append(pt)
    return row


def _run_mean_field(args):
    _check(args, ints=[("particles", 0, "the number of particles (0: none)"), ("seeds", 1, "the number of runs"),
                       ("points", 2, "the grid size of the picture")],
           positives=[("T", "the final time"), ("dt", "the time step")])
    if args.particles == 1:
        raise InvalidInputError("--particles = 1; give 0 (no simulation) or at least 2 particles")
    dims = _ints(args.d, "--d")
    if min(dims) < 2:
        raise InvalidInputError(f"--d = {args.d!r}; every dimension must be >= 2 (the sphere S^(d-1))")
    betas = _positive_list(_floats(args.betas, "--betas"), "--betas")
    factors = _positive_list(_floats(args.K_factors, "--K-factors"), "--K-factors")
    bar = _Steps("particle runs")
    out = {"model": "noisy USA: dx_i = P_i((1/n) sum_j e^(beta <x_i,x_j>) x_j) dt + sqrt(2/K) dB_i; free energy "
                    "F = (1/K) int mu log mu - (1/(2 beta)) int int e^(beta <x,y>) dmu dmu",
           "K_sharp_formula": "2^(1-d/2) beta^(d/2) / (Gamma(d/2) I_(d/2)(beta)), -> d as beta -> 0",
           "particles": args.particles, "T": args.T, "dt": args.dt, "seeds": args.seeds, "dims": []}
    lines = ["noisy USA McKean-Vlasov model (not the noiseless 'threshold' criterion): " + out["model"]]
    for d in dims:
        bstar = critical_beta_star(d)
        check = [landau_coefficient(b, d) for b in (bstar - 0.05, bstar + 0.05)]
        rows = [_mean_field_row(b, d, bstar, factors, args, bar) for b in betas]
        out["dims"].append({"d": d, "beta_star": bstar, "landau_at_beta_star_minus_plus_0.05": check, "rows": rows})
        lines += [f"d = {d}: beta*(d) = {bstar:.6g} (Bessel root); Landau coefficient {check[0]:+.3g} at beta* - 0.05, "
                  f"{check[1]:+.3g} at beta* + 0.05",
                  f"{'beta':>7} {'K#':>9} {'K# quad':>9} {'branch':>13} {'landau':>9}  K/K#: r mean-field "
                  "(ordered, near-uniform start) | particles"]
        for r in rows:
            pts = "; ".join(f"{p['K_over_K_sharp']:g}: {p['r_mean_field_ordered_start']:.3f}, "
                            f"{p['r_mean_field_near_uniform_start']:.3f}"
                            + (f" | {p['r_particles']:.3f}+-{p['r_particles_stderr']:.3f}"
                               if p.get("r_particles") is not None else (" | stiff" if args.particles else ""))
                            for p in r["points"])
            lines.append(f"{r['beta']:>7.4g} {r['K_sharp']:>9.5g} {r['K_sharp_quadrature']:>9.5g} "
                         f"{r['branch']:>13} {r['landau_coefficient']:>+9.3g}  {pts}")
    bar.close()
    if args.plot:
        d = dims[0]
        bgrid = np.linspace(min(betas), max(betas), args.points)
        kgrid = np.linspace(0.15, 1.95, args.points)
        field = np.array([[stationary_order(b, d, f * k_sharp(b, d), 0.9) for b in bgrid] for f in kgrid])
        dense = np.linspace(min(betas), max(betas), 200)
        info = dict(out["dims"][0], curve=[[b, k_sharp(b, d)] for b in dense])
        plot_mean_field(bgrid, kgrid, field, info, args.plot,
                        title=f"noisy USA on S^{d - 1}: order parameter r of the stable state (ordered start)")
        lines.append(f"wrote {args.plot}")
    _emit(out, args.json, lines)


def _run_fixed_points(args):
    _check(args, ints=[("k", 2, "the number of clusters"), ("size", 1, "the tokens per cluster"),
                       ("d", 2, "the dimension")], positives=[("beta", "the suppression's inverse temperature")])
    if args.k > args.d + 1:
        raise InvalidInputError(f"--k = {args.k} > --d + 1 = {args.d + 1}; a regular simplex of k clusters needs "
                                "d >= k - 1")
    betas = _positive_list(_floats(args.betas, "--betas"), "--betas")
    dims = _ints(args.dims, "--dims")
    S = simplex_centres(args.k, args.d)
    start = S + 0.05 * np.random.default_rng(args.seed).standard_normal(S.shape)
    gap = args.k / (args.k - 1)
    rows = []
    bar = _Steps("fixed points")
    for j, b in enumerate(betas):
        C, res = find_clustered_state(args.k, args.d, b, [args.size] * args.k, start=start)
        X, lab = cluster_configuration(C, [args.size] * args.k)
        ev = tangent_jacobian(X, np.eye(args.d), b)
        rows.append(dict({"beta": b, "force_residual": res, "overlap_gap": overlap_gap(X, lab)}, **spectrum_summary(ev)))
        bar(j + 1, len(betas))
    bar.close()
    exps = [-(math.log(b["slow_rate"]) - math.log(a["slow_rate"])) / (b["beta"] - a["beta"])
            for a, b in zip(rows, rows[1:]) if a["slow_rate"] > 0 and b["slow_rate"] > 0]
    sup = suppression_in_d(dims, args.k, args.size, args.beta)
    out = {"state": f"{args.k} clusters of {args.size} tokens on a regular simplex in R^{args.d} (found by the "
                    "solver from a perturbed simplex)", "gap_theory": gap, "rows": rows,
           "local_exponents": exps, "suppression": dict(sup, beta=args.beta, k=args.k, size=args.size)}
    lines = [out["state"] + f"; Delta = k/(k-1) = {gap:.4g}",
             f"{'beta':>6} {'residual':>10} {'gap':>8} {'slow rate':>11} {'unstable':>9} {'fast stable':>12}"]
    lines += [f"{r['beta']:>6.3g} {r['force_residual']:>10.2e} {r['overlap_gap']:>8.4g} {r['slow_rate']:>11.4e} "
              f"{r['unstable_modes']:>9} {r['stable_fast_modes']:>12}" for r in rows]
    lines.append("local exponents -dln(rate)/dbeta: " + ", ".join(f"{e:.4g}" for e in exps)
                 + f" (-> Delta = {gap:.4g}; the prefactor is polynomial in beta)")
    lines.append(f"random centres, beta = {args.beta:g}: " + "; ".join(
        f"d = {d}: gap {g:.3g}, mass {m:.3g} <= {bd:.3g}" for d, g, m, bd in
        zip(sup["d"], sup["gap"], sup["mass"], sup["bound"])))
    if args.plot:
        plot_fixed_points([r["beta"] for r in rows], [r["slow_rate"] for r in rows], gap, sup["d"], sup["mass"],
                          sup["bound"], args.plot)
        lines.append(f"wrote {args.plot}")
    _emit(out, args.json, lines)


def _head_family(kind, d, H, rng):
    if kind == "orthogonal-psd":
        return orthogonal_psd_heads(d, H, rng)
    return random_symmetric(d, rng, H)


def _run_heads(args):
    _check(args, ints=[("runs", 1, "the number of random runs"), ("n", 2, "the number of tokens"),
                       ("d", 2, "the dimension"), ("heads", 2, "the number of heads")],
           positives=[("beta", "the inverse temperature"), ("T", "the final time"), ("dt", "the time step")])
    if args.d < args.heads:
        raise InvalidInputError(f"--d = {args.d} < --heads = {args.heads}; orthogonal ranges need d >= H")
    bar = _Steps("runs")
    rows = []
    for kind in ("orthogonal-psd", "random"):
        for flow in ("flat", "projected"):
            dec = over = 0
            defects = None
            for s in range(args.runs):
                rng = np.random.default_rng(args.seed + s)
                M = _head_family(kind, args.d, args.heads, rng)
                X = random_tokens(args.n, args.d, rng)
                try:
                    t, _, logE, rate, diag = integrate_flow(X, M, args.beta, args.T, args.dt, flow=flow)
                except DegenerateInputError:
                    over += 1
                    continue
                dec += decreases(rate)
                if defects is None:
                    half = integrate_flow(X, M, args.beta, args.T, args.dt / 2, flow=flow)
                    rel = [identity_defect(*a) for a in ((t, logE, rate), half[0:1] + half[2:4],
                                                         (half[0], half[2], half[4]))]
                    defects = {k: d / scale for k, (d, scale) in
                               zip(("dt", "dt_half", "dt_half_without_cross_term"), rel)}
                bar(s + 1, args.runs)
            rows.append({"heads": kind, "flow": flow, "condition_holds": kind == "orthogonal-psd",
                         "runs_decreasing": dec, "runs_overflowed": over, "runs": args.runs,
                         "identity_defect_first_run": defects})
    bar.close()
    out = {"n": args.n, "d": args.d, "H": args.heads, "beta": args.beta, "T": args.T, "dt": args.dt,
           "condition": "PSD heads with mutually orthogonal ranges (M_h M_h' = 0): sufficient for dE/dt >= 0 along "
                        "the flat flow, not the projected one", "rows": rows}
    lines = [f"{args.heads} SA heads, n = {args.n}, d = {args.d}, beta = {args.beta:g}, T = {args.T:g}, "
             f"dt = {args.dt:g}, {args.runs} runs; " + out["condition"],
             f"{'heads':>15} {'flow':>10} {'decreasing':>11} {'overflow':>9} {'defect dt':>11} {'dt/2':>11} "
             f"{'no cross':>11}"]
    for r in rows:
        dfx = r["identity_defect_first_run"] or {}
        cells = " ".join(f"{dfx[k]:>11.3g}" if k in dfx else f"{'-':>11}"
                         for k in ("dt", "dt_half", "dt_half_without_cross_term"))
        lines.append(f"{r['heads']:>15} {r['flow']:>10} {r['runs_decreasing']:>5}/{r['runs']:<5} "
                     f"{r['runs_overflowed']:>9} {cells}")
    lines.append("defect = (E(T) - E(0) - int dE/dt) / max E (Simpson; first run); RK4 makes it O(dt^4) (halving dt: "
                 "/ 16); 'no cross' integrates only the per-head dissipation")
    _emit(out, args.json, lines)


def _polygon_tokens(vertices, interior, rng):
    """Vertices on the unit circle (jittered regular polygon); interior tokens at radius 1/2,
    each near the direction of a vertex (score margins >= ~1/4, so finite beta tracks them)."""
    ang = 2 * np.pi * (np.arange(vertices) + rng.uniform(-0.2, 0.2, vertices)) / vertices
    V = np.c_[np.cos(ang), np.sin(ang)]
    phi = ang[np.arange(interior) % vertices] + rng.uniform(-0.3, 0.3, interior) * np.pi / vertices
    return np.vstack([V, 0.5 * np.c_[np.cos(phi), np.sin(phi)]])


def _run_hardmax(args):
    _check(args, ints=[("vertices", 3, "the number of polygon vertices"), ("steps", 1, "the number of steps"),
                       ("max_steps", 1, "the step cap")],
           positives=[("delta", "the separation distance")],
           bounded=[("gamma", 0, 1, "the Frank-Wolfe step size")])
    nonnegative_int(args.interior, "--interior", "the number of interior tokens")
    rng = np.random.default_rng(args.seed)
    X = _polygon_tokens(args.vertices, args.interior, rng)
    B = np.eye(2)
    diagram = dominance_diagram(X, B)
    states, labels = hardmax_flow(X, B, args.gamma, args.steps)
    betas = _positive_list(_floats(args.betas, "--betas"), "--betas")
    times = [deviation_time(X, B, b, args.gamma, args.delta, args.max_steps) for b in betas]
    slope, _ = exponential_rate(betas, times)
    out = {"tokens": len(X), "vertices_conv_X": vertex_count(X), "nonempty_cells": len(diagram.nonempty),
           "fixed_points": list(self_dominant(X, B, diagram)), "labels_kept": bool((labels == labels[0]).all()),
           "collinearity_residual": collinearity_residual(states, labels[0]), "betas": betas,
           "deviation_steps": times, "deviation_slope": slope, "least_score_margin": least_margin(X, B)}
    lines = [f"{k:>24}: {v}" for k, v in out.items()]
    if args.plot:
        plot_hardmax(states, B, args.plot, labels[0])
        lines.append(f"wrote {args.plot}")
    _emit(out, args.json, lines)


def _wasserstein_regime(args, Hs, phase, sigma, seeds, bar):
    """Rows (one per H) and the first path of each H for one phase setting."""
    rows, firsts = [], []
    for H in Hs:
        g2, res, resq, sto, sto0 = [], [], [], [], []
        for s in range(seeds):
            rng = np.random.default_rng(1000 + s)
            if args.preset == "paper":
                X, D0 = cross_polytope_tokens(args.n, args.d, rng), gaussian_heads(H, args.d, rng)
            else:
                X, D0 = random_tokens(args.n, args.d, rng), np.repeat(np.eye(args.d)[None], H, 0)
            run = wasserstein_flow(X, D0, args.T, args.dt, args.weights, sigma, phase, seed=s, progress=bar)
            if s == 0:
                firsts.append(run)
            g2.append(time_average(run.G2))
            res.append(run.residual)
            resq.append(run.residual_with_Q)
            sto.append(run.stochastic_residual)
            sto0.append(run.stochastic_residual_without_ito)
        rows.append({"H": H, "mean_G2": float(np.mean(g2)), "residual": float(np.mean(res)),
                     "residual_with_Q": float(np.mean(resq)),
                     "ito_identity_rms_residual": float(np.sqrt(np.mean(np.square(sto)))),
                     "ito_identity_mean_residual_without_ito": float(np.mean(sto0))})
    return rows, firsts


def _run_wasserstein(args):
    _check(args, ints=[("n", 1, "the number of tokens"), ("d", 2, "the dimension (tokens on S^(d-1))")],
           positives=[("T", "the final time"), ("dt", "the time step")])
    paper = args.preset == "paper"
    sigma = args.sigma if args.sigma is not None else (math.sqrt(2) if paper else 0.1)
    seeds = args.seeds if args.seeds is not None else (10 if paper else 3)
    bounded_float(sigma, "--sigma", 0, math.inf, meaning="the noise level", open_hi=True)
    positive_int(seeds, "--seeds", 1, "the number of runs per H")
    Hs = _ints(args.heads, "--heads")
    phases = ("in-phase", "spread") if args.phase == "both" else (args.phase,)
    bar = _Steps("wasserstein steps")
    regimes = {}
    for ph in phases:
        rows, firsts = _wasserstein_regime(args, Hs, ph, sigma, seeds, bar)
        regimes[ph] = {"rows": rows, "loglog_slope_G2_vs_H": loglog_slope(Hs, [r["mean_G2"] for r in rows]),
                       "firsts": firsts}
    bar.close()
    setup = ("paper: sigma^2 = 2, D0 = Z + Z^T, tokens near the cross-polytope vertices" if paper else
             "default: D0 = I, random tokens")
    out = {"setup": setup, "weights": args.weights, "sigma": sigma, "T": args.T, "dt": args.dt, "paths": seeds,
           "regimes": {ph: {k: v for k, v in r.items() if k != "firsts"} for ph, r in regimes.items()}}
    lines = [f"{setup}; {args.weights} weights, sigma = {sigma:.4g}, T = {args.T:g}, dt = {args.dt:g}, {seeds} paths "
             "per H; <G2> averaged over the second half; Ito identity residuals (with the Ito term: O(sqrt dt); "
             "without: O(sigma^2))"]
    for ph, r in regimes.items():
        lines.append(f"phase {ph}: {'H':>4} {'<G2>':>11} {'resid+Q':>10} {'Ito rms':>10} {'no Ito':>10}")
        lines += [f"{'':>{7 + len(ph)}}{x['H']:>4} {x['mean_G2']:>11.4g} {x['residual_with_Q']:>10.3g} "
                  f"{x['ito_identity_rms_residual']:>10.3g} {x['ito_identity_mean_residual_without_ito']:>10.3g}"
                  for x in r["rows"]]
        sl = r["loglog_slope_G2_vs_H"]
        lines.append(f"phase {ph}: log-log slope of <G2> against H: {'n/a' if sl is None else round(sl, 3)}")
    if args.plot:
        plot_wasserstein(Hs, {ph: r["firsts"] for ph, r in regimes.items()},
                         {ph: ([x["mean_G2"] for x in r["rows"]], r["loglog_slope_G2_vs_H"])
                          for ph, r in regimes.items()}, args.plot,
                         title=f"{setup}; {args.weights} weights, sigma = {sigma:.3g}")
        lines.append(f"wrote {args.plot}")
    _emit(out, args.json, lines)


def _common(p, plot_help):
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE", help=plot_help)


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Epilog kept as written; every option's help ends with its default."""


def _sub(dsub, name, examples, help, description):
    """One ``tropattn dynamics NAME`` parser: its description, examples and the exit codes in the epilog."""
    epilog = "\n".join(["examples:"] + [f"  {e}" for e in examples] + ["", EXIT_CODES])
    return dsub.add_parser(name, help=help, description=textwrap.fill(description, 100), epilog=epilog,
                           formatter_class=_Formatter)


@registers("``dynamics`` (token flows, clusters, the finite-time threshold, the mean-field transition, fixed points, hardmax, Wasserstein)", "dynamics")
def register(sub):
    p = add_command(sub, "dynamics", lambda a: a.run(a), "attention as a dynamical system: token flows, "
                    "clustering, the noiseless finite-time threshold, the noisy mean-field transition, clustered "
                    "fixed points, the hardmax skeleton, Wasserstein flows", json_output=False,
                    examples=("tropattn dynamics flow --plot flow.png", "tropattn dynamics hardmax --json"))
    dsub = p.add_subparsers(dest="dynamics_command", required=True)

    f = _sub(dsub, "flow", ('tropattn dynamics flow --n 12 --d 3 --beta 4 --plot flow.png', 'tropattn dynamics flow --mode usa --heads 3 --json',), help="SA/USA token flow on the sphere: energy, clusters, mass bound",
             description="Integrate the noiseless SA or USA flow of n seeded random tokens (or a token file) on "
             "S^(d-1) and report the interaction energy in log form (ln E: finite at every beta; E itself when it "
             "is a float), the least d ln E/dt along the path, the final clusters and the inter-cluster "
             "attention mass against its bound.")
    f.set_defaults(run=_run_flow)
    f.add_argument("--n", type=int, default=12, help="number of tokens (random, seeded)")
    f.add_argument("--d", type=int, default=2, help="dimension of R^d (tokens on S^(d-1))")
    f.add_argument("--tokens", help="JSON file with an (n, d) list of tokens instead of random ones")
    f.add_argument("--normalize", action="store_true", help="project tokens off the sphere onto it (warns)")
    f.add_argument("--beta", type=float, default=4.0, help="inverse temperature beta > 0")
    f.add_argument("--heads", type=int, default=1, help="number of heads H")
    f.add_argument("--head", choices=("identity", "random"), default="identity", help="head matrices")
    f.add_argument("--mode", choices=("sa", "usa"), default="sa", help="sa: softmax-normalised; usa: unnormalised (a gradient flow of E)")
    f.add_argument("--scheme", choices=("euler", "rk4", "solve_ivp"), default="rk4", help="integrator: fixed-step Euler or RK4 with renormalisation, or adaptive solve_ivp")
    f.add_argument("--T", type=float, default=10.0, help="final time")
    f.add_argument("--dt", type=float, default=0.02, help="time step of the fixed-step schemes")
    f.add_argument("--threshold", type=float, default=0.999, help="overlap that joins two final tokens")
    f.add_argument("--seed", type=int, default=0, help="seed of the random tokens and heads")
    _common(f, "draw the trajectories (d = 2 or 3) to this PNG")

    c = _sub(dsub, "cluster", ('tropattn dynamics cluster --n 8 --betas 0.5,1,2,4 --json',), help="equiangular clustering time against beta",
             description="The time for the common overlap of n equiangular tokens (one scalar head) to grow from "
             "rho_a to rho_b, solved from the exact scalar ODE, at each beta.")
    c.set_defaults(run=_run_cluster)
    c.add_argument("--n", type=int, default=8, help="number of equiangular tokens")
    c.add_argument("--betas", default="0.5,1,1.5,2,2.5,3,3.5,4,5,6,8,10", help="inverse temperatures, comma-separated")
    c.add_argument("--rho", default="0.1,0.9", help="RHO_A,RHO_B")
    c.add_argument("--mode", choices=("sa", "usa"), default="sa", help="sa: softmax-normalised; usa: unnormalised")
    c.add_argument("--values", choices=("scaled", "unit"), default="scaled",
                   help="scaled: head D = beta I (scores and values); unit: M = I, beta in the score only")
    c.add_argument("--json", action="store_true", help="print one JSON object")

    t = _sub(dsub, "threshold", ('tropattn dynamics threshold --d 4,16 --plot threshold.png',), help="noiseless finite-time clustering criterion beta_c(T) (not the McKean-Vlasov beta*)",
             description="NOISELESS SA flow (head D = beta I) from a Gaussian start: beta_c(T) is where half of the "
             "tokens have a partner at overlap >= 0.98 at time T, found by bisection for each T. It is a "
             "finite-time criterion, not a phase transition: beta_c * T is about constant, so beta_c -> 0 as "
             "T -> infinity (every beta > 0 clusters eventually). For the noisy model's transition "
             "(K#(beta), beta*(d)) see 'tropattn dynamics mean-field'.")
    t.set_defaults(run=_run_threshold)
    t.add_argument("--n", type=int, default=32, help="number of tokens of the Gaussian start")
    t.add_argument("--d", default="4", help="dimensions, comma-separated")
    t.add_argument("--T", default="2.5,5,10,20", help="times at which the order parameter is read, comma-separated")
    t.add_argument("--lo", type=float, default=0.02, help="lower end of the bisection bracket for beta_c")
    t.add_argument("--hi", type=float, default=2.0, help="upper end of the bisection bracket for beta_c")
    t.add_argument("--tol", type=float, default=0.02, help="bisection stops when the bracket is this narrow")
    t.add_argument("--seeds", type=int, default=3, help="random starts averaged per beta")
    t.add_argument("--points", type=int, default=8, help="betas (log-spaced in [lo, hi]) of the phase diagram")
    t.add_argument("--values", choices=("scaled", "unit"), default="scaled", help="scaled: head D = beta I (the Wasserstein convention); unit: M = I, beta only in the score")
    _common(t, "draw the phase diagrams phi(beta, T) (first d) and phi(beta, d) (first T) to this PNG")

    m = _sub(dsub, "mean-field", ('tropattn dynamics mean-field --d 2,3 --betas 0.5,1,2,3,5',
                                  'tropattn dynamics mean-field --d 2 --particles 400 --plot mf.png'),
             help="noisy USA McKean-Vlasov model: K#(beta), beta*(d), branches, particle checks",
             description="The NOISY unnormalised model dx = P((1/n) sum e^(beta <x,y>) y) dt + sqrt(2/K) dB on "
             "S^(d-1) and its mean-field limit: the coupling K#(beta) at which the uniform state loses stability "
             "(Bessel formula and an independent quadrature), the tricritical beta*(d) separating the continuous "
             "(beta < beta*) from the discontinuous branch (beta > beta*; sign of the Landau coefficient), the "
             "order parameter r = |mean x| of the stable states from an ordered and a uniform start (hysteresis), "
             "and particle simulations at the same (K, beta). Not the noiseless 'threshold' criterion.")
    m.set_defaults(run=_run_mean_field)
    m.add_argument("--d", default="2", help="dimensions, comma-separated")
    m.add_argument("--betas", default="0.5,1,2,3,5", help="inverse temperatures, comma-separated")
    m.add_argument("--K-factors", dest="K_factors", default="0.5,0.9,1.5", help="couplings K as multiples of K#(beta)")
    m.add_argument("--particles", type=int, default=200, help="particles per simulation (0: no simulation)")
    m.add_argument("--T", type=float, default=30.0, help="time of each particle run (r averaged over its second half)")
    m.add_argument("--dt", type=float, default=0.05, help="Euler-Maruyama step (runs with dt beta e^beta > 0.5 are "
                   "skipped as stiff)")
    m.add_argument("--seeds", type=int, default=3, help="particle runs per point")
    m.add_argument("--points", type=int, default=10, help="grid size per axis of the picture")
    _common(m, "draw the (beta, K/K#) phase diagram of the first d to this PNG")

    x = _sub(dsub, "fixed-points", ('tropattn dynamics fixed-points --k 3 --d 4 --betas 4,6,8,10 --plot fp.png',),
             help="clustered stationary states: solver, tangent Jacobian spectrum vs the overlap gap, suppression in d",
             description="Solve for a clustered stationary state of the noiseless SA flow (k clusters of equal size "
             "on a regular simplex, found by least squares from a perturbed start), compute the spectrum of the "
             "flow's Jacobian on the tangent bundle at several beta (fast stable intra-cluster modes; slow "
             "inter-cluster modes whose rate falls like e^(-beta Delta), Delta the overlap gap), and the "
             "inter-cluster attention mass of random clustered states against the dimension d with its bound.")
    x.set_defaults(run=_run_fixed_points)
    x.add_argument("--k", type=int, default=3, help="number of clusters")
    x.add_argument("--size", type=int, default=3, help="tokens per cluster")
    x.add_argument("--d", type=int, default=4, help="dimension of the stationary state")
    x.add_argument("--betas", default="4,6,8,10", help="inverse temperatures of the spectrum")
    x.add_argument("--dims", default="2,4,8,16,32,64", help="dimensions of the suppression sweep")
    x.add_argument("--beta", type=float, default=8.0, help="inverse temperature of the suppression sweep")
    x.add_argument("--seed", type=int, default=0, help="seed of the perturbation of the start")
    _common(x, "draw the slow rate against beta and the inter-cluster mass against d to this PNG")

    q = _sub(dsub, "heads", ('tropattn dynamics heads --runs 40',),
             help="flat vs projected flows of several heads: energy identities and the monotonicity condition",
             description="Integrate the flat (no projection, tokens in R^d) and the projected flow of H SA heads "
             "from random starts, for heads that satisfy the sufficient condition for monotonicity (PSD with "
             "mutually orthogonal ranges) and for random symmetric heads; count runs where E decreases, and show "
             "the energy identity E(T) - E(0) = int dE/dt closing at RK4's order (halving dt) and failing with only "
             "the per-head dissipation.")
    q.set_defaults(run=_run_heads)
    q.add_argument("--runs", type=int, default=40, help="random runs per family and flow")
    q.add_argument("--n", type=int, default=6, help="number of tokens")
    q.add_argument("--d", type=int, default=3, help="dimension")
    q.add_argument("--heads", type=int, default=2, help="number of heads H")
    q.add_argument("--beta", type=float, default=1.0, help="inverse temperature")
    q.add_argument("--T", type=float, default=1.0, help="final time")
    q.add_argument("--dt", type=float, default=0.02, help="RK4 step")
    q.add_argument("--seed", type=int, default=0, help="first seed")
    q.add_argument("--json", action="store_true", help="print one JSON object")

    h = _sub(dsub, "hardmax", ('tropattn dynamics hardmax --vertices 6 --interior 6 --plot hardmax.png',), help="Frank-Wolfe hardmax step: exact dominance cells, paths, finite beta",
             description="The beta -> infinity limit in the plane: the exact dominance cells of the hardmax step, "
             "its fixed points (the hull vertices), the straight Frank-Wolfe paths, and when finite-beta paths "
             "separate from them.")
    h.set_defaults(run=_run_hardmax)
    h.add_argument("--vertices", type=int, default=6, help="tokens on the unit circle (the vertices)")
    h.add_argument("--interior", type=int, default=6, help="tokens inside their convex hull")
    h.add_argument("--gamma", type=float, default=0.3, help="Frank-Wolfe step size gamma in (0, 1]")
    h.add_argument("--steps", type=int, default=30, help="hardmax steps drawn in the picture")
    h.add_argument("--betas", default="12,16,20", help="finite betas for the deviation time")
    h.add_argument("--delta", type=float, default=0.1, help="distance at which a finite-beta path counts as separated")
    h.add_argument("--max-steps", type=int, default=200000, help="cap on the steps of the deviation-time search")
    h.add_argument("--seed", type=int, default=0, help="seed of the interior tokens")
    _common(h, "draw the dominance cells and paths to this PNG")

    w = _sub(dsub, "wasserstein", ('tropattn dynamics wasserstein --weights oscillating --phase spread --heads 1,4,16',), help="multi-head energy flow with OU / oscillating / frozen weights",
             description="Tokens follow the head-averaged SA field while the head matrices D_h(t) move (frozen, "
             "Ornstein-Uhlenbeck or oscillating, with noise sigma); reports the time-averaged metric slope <G^2> "
             "per number of heads H and the residuals of the stochastic energy identity.")
    w.set_defaults(run=_run_wasserstein)
    w.add_argument("--n", type=int, default=16, help="number of tokens")
    w.add_argument("--d", type=int, default=3, help="dimension of R^d (tokens on S^(d-1))")
    w.add_argument("--heads", default="1,4,16", help="numbers of heads H, comma-separated")
    w.add_argument("--weights", choices=("ou", "oscillating", "frozen"), default="ou", help="law of the head weights D_h(t)")
    w.add_argument("--phase", choices=("in-phase", "spread", "both"), default="in-phase",
                   help="phases of oscillating heads: all equal, spread 2 pi h / H, or both regimes")
    w.add_argument("--preset", choices=("default", "paper"), default="default",
                   help="paper: sigma^2 = 2, D0 = Z + Z^T, tokens near the cross-polytope vertices, 10 paths")
    w.add_argument("--sigma", type=float, default=None, help="noise of the weights (None: 0.1, or sqrt 2 with --preset "
                   "paper)")
    w.add_argument("--T", type=float, default=30.0, help="final time")
    w.add_argument("--dt", type=float, default=0.05, help="time step")
    w.add_argument("--seeds", type=int, default=None, help="paths averaged per H (None: 3, or 10 with --preset paper)")
    _common(w, "draw E(t) and G^2(t) for every H and the log-log <G^2>-H fit per regime to this PNG")
