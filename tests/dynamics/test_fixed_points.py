"""Clustered stationary states: the solver finds them, the tangent Jacobian's slow rates fall like e^(-beta Delta),
the inter-cluster attention is suppressed in d.  Oracles: symmetry (simplex Gram matrix, antipodal closed form
2 e^(-2 beta)) and a hand-written loop for the velocity of the state."""

import json

import numpy as np
import pytest

from tropattn.cli import main
from tropattn.dynamics import (cluster_configuration, find_clustered_state, simplex_centres, slow_rate,
                               suppression_in_d, tangent_jacobian)


def _force_loop(C, sizes, beta):
    out = []
    for a, c in enumerate(C):
        u = sum(s * np.exp(beta * (c @ b)) * b for s, b in zip(sizes, C))
        u = u / sum(s * np.exp(beta * (c @ b)) for s, b in zip(sizes, C))     # the softmax-normalised force
        out.append(u - (u @ c) * c)
    return np.abs(out).max()


@pytest.mark.parametrize("k,d", [(2, 3), (3, 4), (5, 6)])
def test_solver_finds_the_simplex_and_it_is_stationary(k, d):
    S = simplex_centres(k, d)
    start = S + 0.05 * np.random.default_rng(1).standard_normal(S.shape)
    C, res = find_clustered_state(k, d, 6.0, [3] * k, start=start)
    G = C @ C.T
    assert np.allclose(G[~np.eye(k, dtype=bool)], -1 / (k - 1), atol=1e-9)
    assert _force_loop(C, [3] * k, 6.0) < 1e-9 and res < 1e-12


def test_antipodal_saddle_rate_is_2_exp_minus_2_beta():
    X, _ = cluster_configuration(np.array([[1.0, 0.0], [-1.0, 0.0]]), [2, 2])
    for beta in (3.0, 5.0):
        ev = tangent_jacobian(X, np.eye(2), beta)
        # one unstable inter-cluster mode (closed form for 2 + 2 tokens), one rotation, two fast stable modes
        assert ev.real.max() == pytest.approx(2 * np.exp(-2 * beta) / (1 + np.exp(-2 * beta)), rel=1e-5)
        assert int((ev.real < -0.5).sum()) == 2


@pytest.mark.parametrize("k,d", [(2, 3), (3, 4), (5, 6)])
def test_slow_rates_fall_like_exp_minus_beta_gap(k, d):
    S = simplex_centres(k, d)
    start = S + 0.05 * np.random.default_rng(0).standard_normal(S.shape)
    gap, rates = k / (k - 1), []
    for beta in (6.0, 10.0):
        C, _ = find_clustered_state(k, d, beta, [2] * k, start=start)
        X, _ = cluster_configuration(C, [2] * k)
        rates.append(slow_rate(tangent_jacobian(X, np.eye(d), beta)))
    exponent = -np.log(rates[1] / rates[0]) / 4.0
    assert gap - 1 / 6.0 < exponent <= gap + 0.01        # e^(-beta Delta) times a prefactor at most linear in beta


def test_inter_cluster_attention_is_suppressed_in_d_and_bounded():
    s = suppression_in_d([2, 8, 64], 4, 3, 8.0, seeds=(0, 1, 2, 3))
    assert s["gap"][0] < s["gap"][-1] and s["mass"][-1] < s["mass"][0] / 50
    assert all(m <= b for m, b in zip(s["mass"], s["bound"]))
    assert s["mass"][-1] < 3 * (9 / 3) * np.exp(-8.0 * 0.8)


def test_cli_fixed_points(capsys, tmp_path):
    png = tmp_path / "fp.png"
    assert main(["dynamics", "fixed-points", "--betas", "4,8", "--dims", "2,16", "--plot", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["rows"]) == 2 and out["gap_theory"] == 1.5 and png.stat().st_size > 0
    assert out["rows"][1]["slow_rate"] < out["rows"][0]["slow_rate"] * np.exp(-4 * 1.3)
    assert main(["dynamics", "fixed-points", "--k", "9", "--d", "4"]) == 2


# ---------------------------------------------------------------- the closed-form critical beta (equiangular)

from tropattn.dynamics import fastest_clustering_beta, rate_maximising_beta, rho_rate  # noqa: E402


@pytest.mark.parametrize("n", [4, 8, 64])
def test_closed_form_beta_maximises_the_rate_and_is_the_knee_of_narrow_windows(n):
    for rho in (0.05, 0.3):
        b = rate_maximising_beta(n, rho)
        grid = np.linspace(0.5 * b, 1.5 * b, 2001)
        rates = [g * float(rho_rate(rho, g, n, "sa")) for g in grid]      # D = g I: the unit rate times g
        assert abs(grid[int(np.argmax(rates))] - b) < 1e-3 * b
        # the fastest rho - 0.02 -> rho + 0.02 clustering is at the closed form (to O(window^2))
        assert fastest_clustering_beta(n, rho - 0.02, rho + 0.02) == pytest.approx(b, rel=5e-3)


def test_cli_cluster_reports_the_closed_form(capsys):
    assert main(["dynamics", "cluster", "--n", "8", "--betas", "1,3,8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["beta_c_closed_form_rho_a"] < out["fastest_beta_measured"] < out["beta_c_closed_form_rho_b"]


@pytest.mark.slow
def test_random_starts_give_stationary_states_from_few_large_to_many_small_clusters():
    for k, d, size in ((2, 3, 8), (5, 6, 2), (8, 10, 1)):
        C, res = find_clustered_state(k, d, 6.0, [size] * k, seed=3)
        X, lab = cluster_configuration(C, [size] * k)
        inter = (C @ C.T - 2 * np.eye(k)).max()
        scale = np.exp(-6.0 * (1 - inter))                    # the size of the inter-cluster forces
        assert _force_loop(C, [size] * k, 6.0) < 1e-8 * scale
        if size > 1:
            ev = tangent_jacobian(X, np.eye(d), 6.0)
            assert int((ev.real < -0.5).sum()) >= k * (size - 1) * (d - 1) // 2   # the intra-cluster modes are fast
