"""Flat and projected flows with several heads: the energy identity of each closes at RK4's order (halving dt),
only with the cross-head term, and the sufficient condition for monotonicity is tested on both sides."""

import numpy as np
import pytest

from tropattn.dynamics import (energy_terms, flat_velocity, integrate_flow, orthogonal_psd_heads, random_symmetric,
                               random_tokens, satisfies_monotone_condition)


def _simpson(y, dt):
    return dt / 3 * (y[0] + y[-1] + 4 * y[1:-1:2].sum() + 2 * y[2:-1:2].sum())


def _defects(flow, M, X, T, dt, beta=1.0):
    t, S, logE, rate, diag = integrate_flow(X, M, beta, T, dt, flow=flow)
    E = np.exp(logE)
    return E[-1] - E[0] - _simpson(rate, dt), E[-1] - E[0] - _simpson(diag, dt)


def _orthogonal_heads(seed):
    rng = np.random.default_rng(5000 + seed)
    Q, _ = np.linalg.qr(rng.standard_normal((3, 3)))
    return np.array([rng.uniform(0.5, 2) * np.outer(Q[:, 0], Q[:, 0]), rng.uniform(0.5, 2) * Q[:, 1:] @ Q[:, 1:].T])


def test_flat_velocity_matches_a_loop():
    rng = np.random.default_rng(2)
    X, M = rng.standard_normal((5, 3)), random_symmetric(3, rng, 2)
    for mode in ("sa", "usa"):
        v = np.zeros_like(X)
        for Mh in M:
            for i, x in enumerate(X):
                s = np.array([1.3 * x @ Mh @ y for y in X])
                w = np.exp(s - s.max()) / np.exp(s - s.max()).sum() if mode == "sa" else np.exp(s) / len(X)
                v[i] += sum(wj * (Mh @ y) for wj, y in zip(w, X))
        assert np.allclose(flat_velocity(X, M, 1.3, mode), v, atol=1e-12)


@pytest.mark.parametrize("flow", ["flat", "projected"])
def test_energy_identity_closes_at_rk4_order_and_fails_without_the_cross_term(flow):
    rng = np.random.default_rng(0)
    X, M = random_tokens(6, 4, rng), random_symmetric(4, rng, 2)
    dt = 0.1 if flow == "flat" else 0.05
    if flow == "flat":
        M = 0.3 * M                                          # the flat flow grows the tokens: keep E moderate on [0, 1]
    (a, a_diag), (b, b_diag) = _defects(flow, M, X, 1.0, dt), _defects(flow, M, X, 1.0, dt / 2)
    assert abs(b) < 2e-6 and 12 < abs(a / b) < 20            # O(dt^4): halving dt divides the defect by ~16
    assert abs(b_diag) > 1e-2 and abs(b_diag - a_diag) < 1e-3 * abs(b_diag)    # without C: an O(1) miss


def test_sufficient_condition_on_both_sides():
    flat_fail = proj_fail = 0
    for seed in range(40):
        M = _orthogonal_heads(seed)
        assert satisfies_monotone_condition(M)
        X = random_tokens(6, 3, np.random.default_rng(seed))
        r, D = energy_terms(X, M, 2.0, flow="flat")
        assert r == pytest.approx(D, rel=1e-10, abs=1e-14)       # C = 0 exactly under the condition
        rate = integrate_flow(X, M, 2.0, 1.0, 0.02, flow="flat")[3]
        flat_fail += bool(rate.min() < 0)
        rate = integrate_flow(X, M, 2.0, 2.0, 0.05, flow="projected")[3]
        proj_fail += bool(rate.min() < -1e-12 * np.abs(rate).max())
    assert flat_fail == 0 and 0 < proj_fail < 40               # measured: 0/40 flat, 2/40 projected
    # the other side of the condition: a non-PSD head (I and -2I) on nearby tokens makes the flat rate negative
    X = np.array([[1.0, 0.0, 0.0], [0.95, 0.3122, 0.0], [0.95, 0.0, 0.3122]])
    M = np.stack([np.eye(3), -2 * np.eye(3)])
    assert not satisfies_monotone_condition(M) and energy_terms(X, M, 2.0, flow="flat")[0] < 0


def test_orthogonal_psd_heads_satisfy_the_condition():
    M = orthogonal_psd_heads(6, 3, np.random.default_rng(4))
    assert satisfies_monotone_condition(M)
    assert not satisfies_monotone_condition(M + 0.01 * np.eye(6))


def test_cli_heads_reports_both_sides_and_the_identity(capsys):
    import json
    from tropattn.cli import main
    assert main(["dynamics", "heads", "--runs", "6", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {(r["heads"], r["flow"]): r for r in out["rows"]}
    assert rows[("orthogonal-psd", "flat")]["runs_decreasing"] == 0
    d = rows[("orthogonal-psd", "projected")]["identity_defect_first_run"]
    assert 10 < abs(d["dt"] / d["dt_half"]) < 20 and abs(d["dt_half_without_cross_term"]) > 1e3 * abs(d["dt_half"])
    f = rows[("orthogonal-psd", "flat")]["identity_defect_first_run"]
    assert f["dt_half"] == pytest.approx(f["dt_half_without_cross_term"])     # the cross term vanishes
    assert main(["dynamics", "heads", "--heads", "4", "--d", "3"]) == 2
