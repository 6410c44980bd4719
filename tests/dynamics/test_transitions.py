"""Transitions: the noiseless finite-time criterion beta_c(T) ~ c0 / T, its phase diagram, and the noisy
McKean-Vlasov model (K#, beta*) checked against an independent linearisation and particle simulations."""

import json

import numpy as np
import pytest

from tropattn.cli import main
from tropattn.dynamics import critical_beta, order_parameter_grid, threshold_curve, zero_beta_constant


def test_beta_c_times_T_tends_to_the_zero_beta_constant():
    rows, slope = threshold_curve(16, 4, [4.0, 16.0], lo=0.02, hi=2.0, seeds=(0, 1), tol=0.005)
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


def test_threshold_picture_content(tmp_path):
    from tropattn.plot import plot_threshold
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [{"T": 2.0, "beta_c": 1.5}, {"T": 4.0, "beta_c": 0.75}]
    phi = np.array([[0, 0.2, 1.0], [0.1, 0.9, 1.0]])
    captured = {}
    real_save = plt.Figure.savefig

    def keep(fig, *a, **k):
        captured["fig"] = fig
        return real_save(fig, *a, **k)
    plt.Figure.savefig = keep
    try:
        plot_threshold([0.5, 1, 2], [2, 4], phi, rows, 3.0, tmp_path / "a.png", dims=[4, 8],
                       phi_by_d=[[0, 0, 1], [0, 1, 1]])
    finally:
        plt.Figure.savefig = real_save
    ax, ax2 = captured["fig"].axes[:2]
    assert np.allclose(ax.collections[0].get_array().reshape(2, 3), phi)
    pts, law = ax.lines
    assert pts.get_xdata().tolist() == [1.5, 0.75] and pts.get_ydata().tolist() == [2.0, 4.0]
    assert np.allclose(law.get_xdata() * law.get_ydata(), 3.0)          # the c0 / T line
    assert np.allclose(ax2.collections[0].get_array().reshape(2, 3), [[0, 0, 1], [0, 1, 1]])
    assert [t.get_text() for t in ax2.get_yticklabels()] == ["4", "8"]
