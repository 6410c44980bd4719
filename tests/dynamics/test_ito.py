"""The stochastic energy identity of the Wasserstein flow: with the Ito term it closes at O(sqrt dt) (one Brownian
path, halved dt), without it it misses by int I dt, which does not shrink.  The paper's set-up as a preset; the
picture draws one E and one G^2 curve per H and one fit per regime."""

import json

import numpy as np
import pytest

from tropattn.cli import main
from tropattn.dynamics import cross_polytope_tokens, gaussian_heads, loglog_slope, wasserstein_flow


def _residuals(sigma, dt, paths=6, T=1.0, H=2, n=8, d=3):
    """(rms with Ito, mean without) over paths; each path's fine increments are summed in pairs for 2 dt."""
    out = {dt: ([], []), 2 * dt: ([], [])}
    for s in range(paths):
        rng = np.random.default_rng(s)
        X, D0 = cross_polytope_tokens(n, d, rng), 0.5 * gaussian_heads(H, d, rng)
        G = rng.standard_normal((int(round(T / dt)), H, d, d))
        fine = np.sqrt(dt) * (G + np.swapaxes(G, 2, 3)) / 2
        for step, noise in ((dt, fine), (2 * dt, fine[0::2] + fine[1::2])):
            run = wasserstein_flow(X, D0, T, step, "ou", sigma, noise=noise)
            out[step][0].append(run.stochastic_residual)
            out[step][1].append(run.stochastic_residual_without_ito)
    return {k: (float(np.sqrt(np.mean(np.square(a)))), float(np.mean(b))) for k, (a, b) in out.items()}


@pytest.mark.parametrize("sigma", [0.5, np.sqrt(2)])
def test_ito_identity_closes_at_sqrt_dt_only_with_the_ito_term(sigma):
    r = _residuals(sigma, 0.005)
    (coarse, coarse_no), (fine, fine_no) = r[0.01], r[0.005]
    assert fine < 0.85 * coarse                                  # shrinks with dt (about 1/sqrt 2 per halving)
    assert abs(fine_no) > 5 * fine and abs(fine_no) > 0.05 * sigma ** 2
    assert abs(fine_no - coarse_no) < 0.15 * abs(coarse_no)     # without the Ito term: no convergence


def test_without_noise_the_ito_and_martingale_terms_vanish():
    X = cross_polytope_tokens(6, 3, np.random.default_rng(0))
    run = wasserstein_flow(X, np.eye(3)[None], 1.0, 0.01, "ou", 0.0)
    assert not run.ito.any() and not run.martingale.any()
    assert run.stochastic_residual == pytest.approx(run.residual_with_Q - (run.drift_work.sum() - run.work.sum()))


def test_loglog_slope():
    assert loglog_slope([1, 4, 16], [2.0, 0.5, 0.125]) == pytest.approx(-1.0)
    assert loglog_slope([1], [1.0]) is None


def test_cli_paper_preset_and_picture(capsys, tmp_path, figures):
    import matplotlib
    matplotlib.use("Agg")
    png = tmp_path / "w.png"
    assert main(["dynamics", "wasserstein", "--preset", "paper", "--weights", "oscillating", "--phase", "both",
                 "--heads", "1,2,4", "--T", "1", "--dt", "0.05", "--seeds", "2", "--plot", str(png), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sigma"] == pytest.approx(np.sqrt(2)) and "cross-polytope" in out["setup"]
    assert set(out["regimes"]) == {"in-phase", "spread"}
    for reg in out["regimes"].values():
        assert [r["H"] for r in reg["rows"]] == [1, 2, 4] and reg["loglog_slope_G2_vs_H"] is not None
    a1, a2, a3 = figures[-1].axes
    assert len(a1.lines) == 3 and len(a2.lines) == 3                 # one E and one G^2 curve per H
    assert [ln.get_label() for ln in a1.lines] == ["H = 1", "H = 2", "H = 4"]
    assert len(a3.lines) == 4                                         # points + fitted line, per regime
    g2 = [r["mean_G2"] for r in out["regimes"]["in-phase"]["rows"]]
    assert np.allclose(a3.lines[0].get_ydata(), g2)
    assert "slope" in a3.get_legend().get_texts()[0].get_text()
