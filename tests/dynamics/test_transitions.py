"""Transitions: the noiseless finite-time criterion beta_c(T) ~ c0 / T, its phase diagram, and the noisy
McKean-Vlasov model (K#, beta*) checked against an independent linearisation and particle simulations."""

import json
import math

import numpy as np
import pytest

from tropattn.cli import main
from tropattn.dynamics import critical_beta, order_parameter_grid, threshold_curve, zero_beta_constant


@pytest.mark.slow
def test_beta_c_times_T_tends_to_the_zero_beta_constant():
    rows, slope = threshold_curve(16, 4, [4.0, 12.0], lo=0.05, hi=1.5, seeds=(0, 1), tol=0.005)
    c0 = zero_beta_constant(16, 4, seeds=(0, 1))
    bcT = [r["beta_c_T"] for r in rows]
    assert slope == pytest.approx(-1.0, abs=0.06)
    # beta_c T is the time c0 the beta -> 0 field needs (phi is a step function of 1/32: a few per cent)
    assert all(abs(x - c0) / c0 < 0.05 for x in bcT) and 2.5 < c0 < 3.5


def test_bisection_stops_at_adjacent_floats():
    b, evals = critical_beta(12, 4, 2.0, lo=0.1, hi=3.0, seeds=(0,), tol=1e-300)
    assert 0.1 < b < 3.0 and len(evals) < 70


def test_phase_diagram_continued_runs_equal_fresh_runs():
    # the flow is autonomous: continuing a run from T1 to T2 is a fresh run to T2 (same RK4 steps when aligned)
    g = order_parameter_grid([0.5, 1.5], [2.0, 4.0], 12, 4, seeds=(0,))
    g2 = order_parameter_grid([0.5, 1.5], [4.0], 12, 4, seeds=(0,))
    assert np.array_equal(g[1], g2[0]) and g.shape == (2, 2)


@pytest.mark.slow
def test_cli_threshold_reports_the_curve_and_draws_the_diagram(capsys, tmp_path):
    png = tmp_path / "th.png"
    argv = ["dynamics", "threshold", "--n", "12", "--d", "4,6", "--T", "2,4", "--seeds", "1", "--tol", "0.05",
            "--points", "3", "--lo", "0.1", "--hi", "3", "--plot", str(png), "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert "noiseless" in out["model"] and "T -> infinity" in out["long_time_limit"]
    assert [len(r["curve"]) for r in out["rows"]] == [2, 2] and out["rows"][0]["c0"] > 0
    assert "beta_star_mckean_vlasov" not in json.dumps(out)
    assert png.stat().st_size > 0


def test_threshold_picture_content(tmp_path, figures):
    from tropattn.plot import plot_threshold
    import matplotlib
    matplotlib.use("Agg")
    rows = [{"T": 2.0, "beta_c": 1.5}, {"T": 4.0, "beta_c": 0.75}]
    phi = np.array([[0, 0.2, 1.0], [0.1, 0.9, 1.0]])
    plot_threshold([0.5, 1, 2], [2, 4], phi, rows, 3.0, tmp_path / "a.png", dims=[4, 8],
                   phi_by_d=[[0, 0, 1], [0, 1, 1]])
    ax, ax2 = figures[-1].axes[:2]
    assert np.allclose(ax.collections[0].get_array().reshape(2, 3), phi)
    pts, law = ax.lines
    assert pts.get_xdata().tolist() == [1.5, 0.75] and pts.get_ydata().tolist() == [2.0, 4.0]
    assert np.allclose(law.get_xdata() * law.get_ydata(), 3.0)          # the c0 / T line
    assert np.allclose(ax2.collections[0].get_array().reshape(2, 3), [[0, 0, 1], [0, 1, 1]])
    assert [t.get_text() for t in ax2.get_yticklabels()] == ["4", "8"]


# ---------------------------------------------------------------- the noisy McKean-Vlasov model

from tropattn.dynamics import (branch_coupling, critical_beta_star, k_sharp, k_sharp_quadrature,  # noqa: E402
                               landau_coefficient, particle_order, stationary_order)


@pytest.mark.parametrize("d", [2, 3, 5])
def test_k_sharp_is_where_the_ordered_branch_bifurcates(d):
    # K# by the Bessel formula = K# by quadrature = the r -> 0 end of the solved stationary branch
    for beta in (0.5, 1.0, 3.0):
        ks = k_sharp(beta, d)
        assert k_sharp_quadrature(beta, d) == pytest.approx(ks, rel=1e-12)
        k1, k2 = branch_coupling(beta, d, 1e-3), branch_coupling(beta, d, 2e-3)
        assert abs(k1 - ks) < 1e-5 * ks
        assert (k2 - ks) / 4 == pytest.approx(k1 - ks, rel=0.05)      # K(r) - K# ~ c r^2
    assert k_sharp(1e-8, d) == pytest.approx(d, rel=1e-7)               # the free energy's convention: K# -> d


@pytest.mark.parametrize("d", [2, 3, 4])
def test_landau_coefficient_changes_sign_at_beta_star(d):
    bs = critical_beta_star(d)
    assert landau_coefficient(bs - 0.05, d) > 0 > landau_coefficient(bs + 0.05, d)


def test_discontinuous_branch_has_hysteresis_and_continuous_does_not():
    ks = k_sharp(5.0, 2)                                      # beta = 5 > beta*(2)
    assert stationary_order(5.0, 2, 0.9 * ks, 0.9) > 0.5 and stationary_order(5.0, 2, 0.9 * ks, 0.01) < 1e-6
    ks = k_sharp(1.0, 2)                                      # beta = 1 < beta*(2)
    assert stationary_order(1.0, 2, 0.9 * ks, 0.9) < 1e-6
    assert stationary_order(1.0, 2, 1.5 * ks, 0.9) == pytest.approx(stationary_order(1.0, 2, 1.5 * ks, 0.01), abs=1e-8)


@pytest.mark.parametrize("d", [2, 3])
def test_particles_agree_with_the_mean_field(d):
    n, beta = 200, 1.0
    ks = k_sharp(beta, d)
    m, e = particle_order(n, d, beta, 1.5 * ks, 30.0, 0.05, seeds=(0, 1, 2))
    assert abs(m - stationary_order(beta, d, 1.5 * ks, 0.9)) < 3 * e + 0.03
    # below K#: |mean x| is the Gaussian finite-n fluctuation, variance 1 / (d n (1 - K/K#)) per component
    m, e = particle_order(n, d, beta, 0.5 * ks, 30.0, 0.05, seeds=(0, 1, 2))
    sigma = np.sqrt(1 / (d * n * 0.5))
    pred = sigma * np.sqrt(2) * np.exp(math.lgamma((d + 1) / 2) - math.lgamma(d / 2))
    assert abs(m - pred) < 3 * e + 0.02


@pytest.mark.slow
def test_cli_mean_field_json_and_picture(capsys, tmp_path):
    png = tmp_path / "mf.png"
    argv = ["dynamics", "mean-field", "--d", "2", "--betas", "1,3", "--K-factors", "0.5,1.5", "--particles", "60",
            "--T", "5", "--seeds", "2", "--points", "3", "--plot", str(png), "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    (dim,) = out["dims"]
    assert dim["beta_star"] == pytest.approx(2.4469, abs=1e-4)
    assert [r["branch"] for r in dim["rows"]] == ["continuous", "discontinuous"]
    assert all(p["r_particles"] is not None for r in dim["rows"] for p in r["points"])
    assert "-> d" in out["K_sharp_formula"] and png.stat().st_size > 0


def test_mean_field_picture_content(tmp_path, figures):
    from tropattn.plot import plot_mean_field
    import matplotlib
    matplotlib.use("Agg")
    info = {"beta_star": 2.0, "curve": [[1.0, 1.8], [2.0, 1.2], [3.0, 0.8]],
            "rows": [{"beta": 1.0, "K_sharp": 1.8, "points": [{"K": 0.9, "r_particles": 0.1},
                                                               {"K": 2.7, "r_particles": 0.8}]},
                     {"beta": 3.0, "K_sharp": 0.8, "points": [{"K": 0.4, "r_particles": None}]}]}
    plot_mean_field([1, 2, 3], [0.5, 1.5], [[0, 0, 0.3], [0.8, 0.7, 0.6]], info, tmp_path / "m.png")
    a1, a2 = figures[-1].axes[:2]
    solid, dashed, bstar = a1.lines
    assert solid.get_xdata().tolist() == [1.0, 2.0] and dashed.get_xdata().tolist() == [3.0]
    assert solid.get_linestyle() == "-" and dashed.get_linestyle() == "--" and bstar.get_xdata()[0] == 2.0
    (sc,) = a1.collections
    assert sc.get_offsets().tolist() == [[1.0, 0.9], [1.0, 2.7]] and sc.get_array().tolist() == [0.1, 0.8]
    assert np.allclose(a2.collections[0].get_array().reshape(2, 3), [[0, 0, 0.3], [0.8, 0.7, 0.6]])


@pytest.mark.slow
def test_particles_at_large_n_agree_with_the_mean_field():
    # measured n = 1000: r = 0.8159 +- 0.0024 (mean field 0.8149).  Near K# runs must be longer: beta = 2,
    # K = 1.25 K#: 0.632 +- 0.006 at T = 30 (n = 1000), 0.8047 +- 0.0018 at T = 90 (n = 300), mean field 0.8033.
    beta, factor = 1.0, 1.5
    ks = k_sharp(beta, 2)
    m, e = particle_order(600, 2, beta, factor * ks, 30.0, 0.05, seeds=(0, 1))
    assert abs(m - stationary_order(beta, 2, factor * ks, 0.9)) < 3 * e + 0.01


@pytest.mark.slow
def test_particles_keep_the_ordered_state_below_k_sharp_only_past_beta_star():
    # K = 0.95 K#: the uniform state is linearly stable; an ordered start survives only on the subcritical branch
    # (beta = 1 relaxes at the slow linear rate (1 - K/K#)/K = 0.03: a long run)
    for beta, survives, T in ((4.0, True, 10.0), (1.0, False, 150.0)):
        ks = k_sharp(beta, 2)
        dt = min(0.05, 0.5 / (beta * np.exp(beta)))
        m, e = particle_order(200, 2, beta, 0.95 * ks, T, dt, seeds=(0,), start="clustered")
        assert (m > 0.5) == survives, (beta, m)
