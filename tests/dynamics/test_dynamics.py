"""tropattn.dynamics: token flows on the sphere, clustering, hardmax cells, thresholds, Wasserstein flows.

Tolerances come from the integrators' orders: RK4 with step dt has global error O(dt^4), Euler O(dt);
the equiangular ODE is solved to rtol 1e-11.  Every random input is drawn from a seeded Generator.
"""

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.cli import main
from tropattn.dynamics import (attention_weights, clustered_tokens, clustering_time, collinearity_residual,
                               condensation_sweep, critical_beta, critical_beta_star, deviation_time,
                               dominance_diagram, dominance_polynomial, energy, energy_rate, equiangular_tokens,
                               exponential_rate, flow_terms, hardmax_flow, hardmax_targets, inter_cluster_mass,
                               inter_cluster_odds, interaction_energy, k_sharp, mass_bound, order_parameters,
                               overlap_gap, random_symmetric, random_tokens, rho_trajectory, self_dominant,
                               simulate, time_average, velocity, vertex_count, wasserstein_flow)
from tropattn.errors import DegenerateInputError, InvalidInputError

# ---------------------------------------------------------------- 1. energy along the flow


def _rates(M, beta, mode, seed, n=6, d=3, T=2.0, dt=0.05):
    X = random_tokens(n, d, np.random.default_rng(seed))
    tr = simulate(X, M, beta, T, dt, mode=mode)
    r = np.array([energy_rate(S, M, beta, mode) for S in tr.states])
    return r, tr


def _decreases(r):
    return bool(r.min() < -1e-12 * np.abs(r).max())


def test_velocity_matches_a_per_token_loop():
    rng = np.random.default_rng(3)
    X, M, beta = random_tokens(7, 4, rng), random_symmetric(4, rng, 3), 1.7
    for mode in ("sa", "usa"):
        V = velocity(X, M, beta, mode)
        for i, x in enumerate(X):
            v = np.zeros(4)
            for Mh in M:
                s = np.array([beta * x @ Mh @ y for y in X])
                w = np.exp(s - s.max()) / np.exp(s - s.max()).sum() if mode == "sa" else np.exp(s) / len(X)
                v += sum(wj * (Mh @ y) for wj, y in zip(w, X))
            assert np.allclose(V[i], v - (v @ x) * x, atol=1e-13)


def test_one_matrix_is_one_head_everywhere():
    # every function of the sphere flow takes a single (d, d) matrix as the stack of one head
    from tropattn.dynamics import head_velocities, scores
    rng = np.random.default_rng(4)
    X, M = random_tokens(5, 3, rng), random_symmetric(3, rng)
    for f in (scores, lambda X, M: attention_weights(X, M, 1.3), lambda X, M: head_velocities(X, M, 1.3),
              lambda X, M: velocity(X, M, 1.3), lambda X, M: energy(X, M, 1.3)):
        assert np.array_equal(f(X, M), f(X, M[None]))
    assert np.allclose(head_velocities(X, M, 1.3)[0], velocity(X, M, 1.3))


def test_energy_rate_is_the_time_derivative_of_the_energy():
    rng = np.random.default_rng(5)
    M = random_symmetric(3, rng, 2)
    r, tr = _rates(M, 1.5, "sa", 5, T=1.0, dt=0.01)
    E = tr.energies
    fd = (E[2:] - E[:-2]) / (2 * 0.01)          # central difference: O(dt^2) = 1e-4 relative
    assert np.allclose(fd, r[1:-1], atol=1e-3 * np.abs(r).max())


def test_one_sa_head_never_decreases_the_energy_40_runs():
    for seed in range(40):
        M = random_symmetric(3, np.random.default_rng(1000 + seed))
        r, tr = _rates(M, 2.0, "sa", seed)
        assert not _decreases(r), seed
        # the one-head identity dE/dt = sum_i Z_i |v_i|^2 / n^2
        X = tr.states[-1]
        Z = np.exp(2.0 * X @ M @ X.T).sum(axis=1)
        v = velocity(X, M, 2.0)
        assert math.isclose(r[-1], float((Z * (v * v).sum(axis=1)).sum() / 36), rel_tol=1e-9, abs_tol=1e-15)


def test_usa_never_decreases_the_energy_for_any_heads():
    for seed in range(40):
        M = random_symmetric(3, np.random.default_rng(2000 + seed), 3)
        r, _ = _rates(M, 1.0, "usa", seed, T=1.0, dt=0.01)
        assert not _decreases(r), seed


def test_two_random_sa_heads_decrease_the_energy_in_many_runs():
    fails = sum(_decreases(_rates(random_symmetric(3, np.random.default_rng(3000 + s), 2), 2.0, "sa", s)[0])
                for s in range(40))
    assert fails >= 8          # measured: 13 of 40 here (n = 6, T = 2); 21 of 40 with n = 8, T = 5


def test_positive_scalar_heads_keep_the_energy_monotone():
    for seed in range(40):
        m = np.random.default_rng(4000 + seed).uniform(0.2, 3.0, 2)
        r, _ = _rates(np.array([mh * np.eye(3) for mh in m]), 2.0, "sa", seed)
        assert not _decreases(r), seed


def test_psd_heads_with_orthogonal_ranges_do_not_guarantee_monotonicity():
    """Declared finding: orthogonal ranges do not restore monotonicity (the tangent projection couples heads)."""
    fails = 0
    for seed in range(40):
        rng = np.random.default_rng(5000 + seed)
        Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
        P1, P2 = np.outer(Q[:, 0], Q[:, 0]), Q[:, 1:] @ Q[:, 1:].T
        assert np.allclose(P1 @ P2, 0)
        M = np.array([rng.uniform(0.5, 2) * P1, rng.uniform(0.5, 2) * P2])
        fails += _decreases(_rates(M, 2.0, "sa", seed)[0])
    assert 0 < fails < 40


# ---------------------------------------------------------------- 2. equiangular reduction


@pytest.mark.parametrize("mode", ["sa", "usa"])
@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_equiangular_particles_follow_the_scalar_ode(beta, mode):
    X0 = equiangular_tokens(8, 0.0)
    tr = simulate(X0, np.eye(8), beta, 2.0, dt=0.02, mode=mode)         # RK4: error ~ dt^4 = 1.6e-7
    G = tr.final @ tr.final.T
    off = G[np.triu_indices(8, 1)]
    assert off.std() < 1e-10                                           # stays equiangular
    _, rho = rho_trajectory(0.0, beta, 8, 2.0, mode=mode)
    assert abs(off.mean() - rho[-1]) <= 1e-3
    assert abs(off.mean() - rho[-1]) <= 1e-6                           # in fact: RK4 order


def test_solve_ivp_scheme_agrees_with_rk4():
    X0 = equiangular_tokens(5, 0.2)
    a = simulate(X0, np.eye(5), 1.0, 1.0, dt=0.01).final
    b = simulate(X0, np.eye(5), 1.0, 1.0, dt=0.1, scheme="solve_ivp").final
    assert np.abs(a - b).max() < 1e-7


def test_clustering_time_is_where_the_ode_reaches_rho_b():
    for values in ("unit", "scaled"):
        T = clustering_time(2.0, 8, 0.1, 0.9, values=values)
        m = 2.0 if values == "scaled" else 1.0
        _, rho = rho_trajectory(0.1, 2.0 if values == "unit" else 1.0, 8, T, m=(m,))
        assert abs(rho[-1] - 0.9) < 1e-7


@pytest.mark.slow
def test_clustering_time_minimum_near_log_n_and_exponential_growth():
    grid = np.linspace(0.2, 12, 400)
    ratios = []
    for n in (8, 16, 64):
        times = [clustering_time(b, n, values="scaled") for b in grid]
        b_min = grid[int(np.argmin(times))]
        ratios.append(b_min / math.log(n - 1))
        assert math.log(n - 1) < b_min < 2 * math.log(n - 1)
    assert ratios[0] > ratios[1] > ratios[2]                           # -> 1 slowly as n grows
    # beyond it: T ~ C e^{beta (1 - rho_a)} / beta^2 (Laplace at rho_a), so log T + 2 log beta has slope 0.9
    f = lambda b: math.log(clustering_time(b, 8, values="scaled")) + 2 * math.log(b)    # noqa: E731
    assert abs((f(60.0) - f(30.0)) / 30.0 - 0.9) < 0.05                # O(1/beta) corrections
    # with the sharpness in the score only, the time increases for every beta
    unit = [clustering_time(b, 8, values="unit") for b in (0.1, 0.5, 1, 2, 4, 8)]
    assert all(a < b for a, b in zip(unit, unit[1:]))


# ---------------------------------------------------------------- 3. the inter-cluster mass bound


@settings(max_examples=40)
@given(seed=st.integers(0, 10 ** 6), k=st.integers(2, 5), d=st.integers(2, 12),
       spread=st.floats(0.0, 0.3), beta=st.floats(0.1, 30.0))
def test_mass_bound_holds_on_sampled_configurations(seed, k, d, spread, beta):
    rng = np.random.default_rng(seed)
    X, lab = clustered_tokens(rng.standard_normal((k, d)), rng.integers(1, 5, k), spread, rng)
    try:
        gap = overlap_gap(X, lab)
    except DegenerateInputError:
        return
    mass, odds, bound = inter_cluster_mass(X, lab, beta), inter_cluster_odds(X, lab, beta), mass_bound(X, lab, beta)
    assert np.all(mass <= odds * (1 + 1e-12))
    if gap > 0:
        assert np.all(odds <= bound * (1 + 1e-12))


def test_mass_bound_is_attained_by_coincident_clusters():
    c = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0]])
    X, lab = clustered_tokens(c, [3, 5], 0.0, np.random.default_rng(0))
    for beta in (0.5, 4.0, 40.0):
        odds, bound = inter_cluster_odds(X, lab, beta), mass_bound(X, lab, beta)
        assert np.allclose(odds, bound, rtol=1e-12, atol=0)
        assert np.allclose(inter_cluster_mass(X, lab, beta), bound / (1 + bound), rtol=1e-12, atol=0)


def test_log_mass_falls_linearly_in_d_with_beta_proportional_to_d():
    c, dims, logs = 0.25, [24, 32, 48, 64], []
    for d in dims:
        odds = []
        for s in range(20):
            rng = np.random.default_rng(s)
            X, lab = clustered_tokens(rng.standard_normal((20, d)), [5] * 20, 0.0, rng)
            odds.append(inter_cluster_odds(X, lab, c * d).mean())
        logs.append(math.log(np.mean(odds)))
    slope, icpt = np.polyfit(dims, logs, 1)
    fit = slope * np.array(dims) + icpt
    assert np.abs(fit - logs).max() < 0.15                              # linear in d
    # E[odds] = (95/5) e^{-c d + c^2 d / 2} for Gaussian overlaps N(0, 1/d): slope -c (1 - c/2)
    assert abs(slope / (-c * (1 - c / 2)) - 1) < 0.15


# ---------------------------------------------------------------- 4. hardmax


def _square_with_followers():
    V = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    R = np.array([[math.cos(0.2), -math.sin(0.2)], [math.sin(0.2), math.cos(0.2)]])
    return np.vstack([V, 0.5 * V @ R.T])


def test_hardmax_vertices_fixed_interior_straight_to_their_vertex():
    rng = np.random.default_rng(7)
    ang = np.sort(rng.uniform(0, 2 * np.pi, 7))
    V = np.c_[np.cos(ang), np.sin(ang)]
    X = np.vstack([V, rng.dirichlet(np.ones(7), 12) @ V])
    gamma, steps = 0.3, 25
    states, labels = hardmax_flow(X, np.eye(2), gamma, steps)
    assert self_dominant(X, np.eye(2)) == tuple(range(7))
    assert np.array_equal(states[-1, :7], X[:7])                       # vertices never move
    assert (labels == labels[0]).all()                                 # labels kept (exact locate)
    assert collinearity_residual(states, labels[0]) <= 1e-12
    k = np.arange(steps + 1)[:, None, None]
    closed = X[labels[0]][None] + (1 - gamma) ** k * (X - X[labels[0]])[None]
    assert np.abs(states - closed).max() < 1e-13


def test_a_vertex_outside_its_own_cell_moves():
    X = np.array([[1.0, 0.0], [2.0, 0.1], [0.0, 1.0], [0.5, 0.3]])     # <x_0, x_1> > <x_0, x_0>
    assert 0 not in self_dominant(X, np.eye(2))
    assert hardmax_targets(X, np.eye(2))[0] == 1


@pytest.mark.parametrize("d", [2, 3])
def test_nonempty_dominance_cells_equal_hull_vertices(d):
    for seed in range(4):
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((12, d))
        B = np.eye(d) + 0.3 * random_symmetric(d, rng)                 # invertible, generic
        diagram = dominance_diagram(X, B)
        assert len(diagram.nonempty) == vertex_count(X) == vertex_count(X @ B)


def test_dominance_cells_are_the_tropical_linear_regions():
    X = np.random.default_rng(1).standard_normal((7, 2))
    F = dominance_polynomial(X, np.eye(2))
    regions = F.linear_regions(method="search")                        # the independent search
    assert sorted(r.term for r in regions) == list(dominance_diagram(X, np.eye(2)).nonempty)


def test_finite_beta_tracks_hardmax_for_exponentially_long():
    V = _square_with_followers()[:4]
    delta, gamma = 1e-3, 0.5
    for beta in (10.0, 12.0):
        # each vertex leaks 2 gamma e^{-beta} per step towards the centre
        predicted = delta * math.exp(beta) / (2 * gamma)
        assert abs(deviation_time(V, np.eye(2), beta, gamma, delta, 10 ** 5) / predicted - 1) < 0.05
    X = _square_with_followers()
    betas = [8.0, 9.0, 10.0, 11.0, 12.0]
    times = [deviation_time(X, np.eye(2), b, gamma, 0.1, 10 ** 5) for b in betas]
    slope, _ = exponential_rate(betas, times)
    assert abs(slope - 1.0) < 0.15                                     # the vertex gap 1 - cos 90 deg = 1


# ---------------------------------------------------------------- 5. McKean-Vlasov


def test_beta_star_and_k_sharp():
    assert round(critical_beta_star(2), 4) == 2.4469
    assert round(critical_beta_star(3), 4) == 1.8162
    for d in range(2, 11):
        assert math.isclose(k_sharp(1e-9, d), d, rel_tol=1e-8)          # the convention of the free energy
    mpmath = pytest.importorskip("mpmath")
    for d in (2, 5, 64):
        b = critical_beta_star(d)
        ratio = mpmath.besseli(d / 2 + 1, b) / mpmath.besseli(d / 2, b)
        assert abs(float(ratio) - 1 / d) < 1e-12
        kb = 2 * mpmath.mpf(b) ** (d / 2) / (2 ** (d / 2) * mpmath.gamma(d / 2) * mpmath.besseli(d / 2, b))
        assert math.isclose(k_sharp(b, d), float(kb), rel_tol=1e-10)
    assert k_sharp(700.0, 3) > 0                                        # no overflow (ive)


# ---------------------------------------------------------------- condensation


def test_condensation_threshold_is_finite_and_rises_with_d():
    phi, q = condensation_sweep([0.1, 2.0], 24, 16, T=4.0, seeds=(0, 1))
    assert phi[0] < 0.5 <= phi[1] and q[1] > 0.9
    b4, _ = critical_beta(24, 4, T=4.0, lo=0.1, hi=2.0, seeds=(0, 1), tol=0.05)
    b32, _ = critical_beta(24, 32, T=4.0, lo=0.1, hi=2.0, seeds=(0, 1), tol=0.05)
    assert 0.1 < b4 < b32 < 2.0
    with pytest.raises(DegenerateInputError, match="bracket"):
        critical_beta(24, 4, T=4.0, lo=1.5, hi=2.0, seeds=(0,))
    assert order_parameters(np.eye(4)) == (0.0, 0.0)


# ---------------------------------------------------------------- 6. Wasserstein flows


def test_frozen_weights_energy_decreases():
    for seed in range(10):
        rng = np.random.default_rng(seed)
        run = wasserstein_flow(random_tokens(10, 3, rng), random_symmetric(3, rng)[None], 2.0, 0.01)
        assert np.all(np.diff(run.energy) <= 1e-14), seed
        assert np.all(run.work == 0) and np.allclose(run.Q, 0, atol=1e-15)


def test_energy_matches_the_sphere_energy_and_flow_terms():
    rng = np.random.default_rng(2)
    X, D = random_tokens(6, 3, rng), random_symmetric(3, rng, 3)
    assert math.isclose(interaction_energy(X, D), -energy(X, D, 1.0) / 3)
    v, G2, Q = flow_terms(X, D)
    # dE/dt along v equals -G^2 + Q (the decomposition is exact)
    h = 1e-6
    fd = (interaction_energy(X + h * v, D) - interaction_energy(X - h * v, D)) / (2 * h)
    assert math.isclose(fd, -G2 + Q, rel_tol=1e-6)


def test_one_head_identity_residual_is_order_dt():
    rng = np.random.default_rng(4)
    X, D0 = random_tokens(8, 3, rng), random_symmetric(3, rng)[None]
    res = [wasserstein_flow(X, D0, 2.0, dt, "ou").residual for dt in (0.02, 0.01, 0.005)]
    for a, b in zip(res, res[1:]):
        assert 1.7 < a / b < 2.3                                        # Euler: halves with dt


def test_several_heads_identity_does_not_close_without_Q():
    rng = np.random.default_rng(6)
    X, D0 = random_tokens(8, 3, rng), 2 * random_symmetric(3, rng, 2)
    runs = [wasserstein_flow(X, D0, 2.0, dt, "frozen") for dt in (0.02, 0.01, 0.005)]
    res = [r.residual for r in runs]
    assert abs(res[-1]) > 0.5 * abs(res[0])                            # does not shrink with dt
    with_q = [r.residual_with_Q for r in runs]
    for a, b in zip(with_q, with_q[1:]):
        assert 1.7 < a / b < 2.3


def _g2_slope(weights, phase, Hs=(1, 4, 16)):
    g = []
    for H in Hs:
        vals = [time_average(wasserstein_flow(random_tokens(12, 3, np.random.default_rng(100 + s)),
                                              np.repeat(np.eye(3)[None], H, 0), 20.0, 0.05, weights, 0.1, phase,
                                              seed=s).G2) for s in range(2)]
        g.append(np.mean(vals))
    return float(np.polyfit(np.log(Hs), np.log(g), 1)[0])


@pytest.mark.slow
def test_time_averaged_g2_against_h():
    assert abs(_g2_slope("ou", "in-phase") + 1) < 0.3                 # head-averaged noise: variance ~ 1/H
    assert abs(_g2_slope("oscillating", "in-phase")) < 0.25            # identical heads: H does not matter
    assert _g2_slope("oscillating", "spread") < -1.0                   # the targets cancel for H >= 2


def test_in_phase_heads_without_noise_are_one_head():
    X = random_tokens(8, 3, np.random.default_rng(0))
    a = wasserstein_flow(X, np.eye(3)[None], 3.0, 0.05, "oscillating", 0.0)
    b = wasserstein_flow(X, np.repeat(np.eye(3)[None], 5, 0), 3.0, 0.05, "oscillating", 0.0)
    assert np.allclose(a.G2, b.G2, rtol=1e-10, atol=1e-300) and np.allclose(a.energy, b.energy, rtol=1e-12)


# ---------------------------------------------------------------- 8. bad input


def test_bad_input_messages():
    X = random_tokens(4, 3, np.random.default_rng(0))
    with pytest.raises(InvalidInputError, match="not 1; tokens live on the unit sphere"):
        simulate(2 * X, np.eye(3), 1.0, 1.0)
    with pytest.warns(UserWarning, match="normalised"):
        tr = simulate(2 * X, np.eye(3), 1.0, 0.1, normalize=True)
    assert np.allclose(tr.states[0], X)
    with pytest.raises(InvalidInputError, match="not symmetric"):
        simulate(X, np.triu(np.ones((3, 3))), 1.0, 1.0)
    for beta in (0, -1, float("nan"), float("inf")):
        with pytest.raises(InvalidInputError, match="inverse temperature must be a positive finite"):
            simulate(X, np.eye(3), beta, 1.0)
    bad = X.copy()
    bad[1, 2] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        simulate(bad, np.eye(3), 1.0, 1.0)
    with pytest.raises(InvalidInputError, match="3x3"):
        simulate(X, np.eye(2), 1.0, 1.0)
    with pytest.raises(DegenerateInputError, match="too large"):
        simulate(X, 5 * np.eye(3), 3.0, 10.0, dt=1.0, mode="usa")
    with pytest.raises(DegenerateInputError, match="too large"):
        wasserstein_flow(X, 5 * random_symmetric(3, np.random.default_rng(1))[None], 4.0, 1.0)
    with pytest.raises(InvalidInputError, match="mode"):
        attention_weights(X, np.eye(3)[None], 1.0, "hard")
    with pytest.raises(InvalidInputError, match="sigma"):
        wasserstein_flow(X, np.eye(3)[None], 1.0, 0.1, "ou", sigma=-1)
    with pytest.raises(InvalidInputError, match="d = 1"):
        critical_beta_star(1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        simulate(X, np.eye(3), 1.0, 0.1)                                # on the sphere: no warning


# ---------------------------------------------------------------- 7. CLI and pictures


def _cli(capsys, *argv):
    status = main(["dynamics", *argv, "--json"])
    return status, json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_cli_sub_commands(capsys, tmp_path):
    s, out = _cli(capsys, "flow", "--n", "8", "--T", "3", "--plot", str(tmp_path / "f.png"))
    assert s == 0 and out["energy_monotone"] and (tmp_path / "f.png").stat().st_size > 0
    s, out = _cli(capsys, "cluster", "--n", "8", "--betas", "1,3.5,8")
    assert s == 0 and out["argmin_beta"] == 3.5
    s, out = _cli(capsys, "threshold", "--n", "16", "--d", "4", "--T", "3", "--seeds", "1", "--tol", "0.1",
                  "--lo", "0.1", "--points", "3")
    assert s == 0 and 0.1 < out["rows"][0]["curve"][0]["beta_c"] < 2
    s, out = _cli(capsys, "hardmax", "--steps", "5", "--betas", "12,16", "--plot", str(tmp_path / "h.png"))
    assert s == 0 and out["nonempty_cells"] == out["vertices_conv_X"] and out["labels_kept"]
    s, out = _cli(capsys, "wasserstein", "--heads", "1,2", "--T", "1", "--seeds", "1", "--plot",
                  str(tmp_path / "w.png"))
    assert s == 0 and len(out["regimes"]["in-phase"]["rows"]) == 2 and (tmp_path / "w.png").exists()


def test_cli_bad_input_exits_2(capsys, tmp_path):
    assert main(["dynamics", "flow", "--beta", "-1"]) == 2
    assert "inverse temperature" in capsys.readouterr().err
    assert main(["dynamics", "wasserstein", "--heads", "0"]) == 2
    assert "positive integers" in capsys.readouterr().err
    assert main(["dynamics", "flow", "--d", "3", "--plot", str(tmp_path / "s2.png"), "--T", "0.1"]) == 0
    capsys.readouterr()
    assert main(["dynamics", "flow", "--d", "4", "--T", "0.1", "--plot", str(tmp_path / "s3.png")]) == 2
    assert "d = 2 (S^1) or d = 3 (S^2)" in capsys.readouterr().err
    tokens = tmp_path / "tokens.json"
    tokens.write_text(json.dumps([[3.0, 4.0], [1.0, 0.0]]))
    assert main(["dynamics", "flow", "--tokens", str(tokens), "--T", "0.1"]) == 2
    assert "norm 5" in capsys.readouterr().err
    with pytest.warns(UserWarning, match="normalised"):
        assert main(["dynamics", "flow", "--tokens", str(tokens), "--T", "0.1", "--normalize"]) == 0
