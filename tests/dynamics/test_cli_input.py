"""``tropattn dynamics``: large beta gives finite strict JSON, bad values give one line and exit 2, every option's
help shows its default.  The log-energy oracle is mpmath on plain Python dot products (no code shared)."""

import argparse
import json

import mpmath
import numpy as np
import pytest

from tropattn.cli import build_parser, main
from tropattn.dynamics import energy, energy_rate, log_energy, random_symmetric, random_tokens, simulate
from tropattn.errors import DegenerateInputError


def _strict_json(text):
    def refuse(name):
        raise AssertionError(f"non-strict JSON constant {name}")
    return json.loads(text, parse_constant=refuse)


def _log_energy_oracle(X, M, beta):
    X, M = X.tolist(), np.atleast_3d(M).tolist() if np.ndim(M) == 3 else [np.asarray(M).tolist()]
    n = len(X)
    total = mpmath.mpf(0)
    for Mh in M:
        for xi in X:
            for xj in X:
                s = sum(xi[a] * Mh[a][b] * xj[b] for a in range(len(xi)) for b in range(len(xj)))
                total += mpmath.exp(mpmath.mpf(beta) * mpmath.mpf(s))
    return float(mpmath.log(total / (2 * mpmath.mpf(beta) * n * n)))


@pytest.mark.parametrize("beta", [0.5, 700.0, 1000.0, 1e6])
def test_log_energy_matches_an_arbitrary_precision_sum(beta):
    rng = np.random.default_rng(7)
    X, M = random_tokens(5, 3, rng), random_symmetric(3, rng, 2)
    assert log_energy(X, M, beta) == pytest.approx(_log_energy_oracle(X, M, beta), rel=1e-12, abs=1e-9)


def test_energy_is_inf_only_where_it_overflows_and_rate_relative_is_finite():
    rng = np.random.default_rng(1)
    X, M = random_tokens(6, 3, rng), np.eye(3)
    assert energy(X, M, 2.0) == pytest.approx(np.exp(log_energy(X, M, 2.0)), rel=1e-13)
    assert energy(X, M, 1000.0) == np.inf
    # relative rate = dE/dt / E where both are floats
    assert energy_rate(X, M, 3.0, relative=True) == pytest.approx(energy_rate(X, M, 3.0) / energy(X, M, 3.0),
                                                                  rel=1e-12)
    for beta in (1000.0, 1e6):
        r = energy_rate(X, M, beta, relative=True)
        assert np.isfinite(r) and r >= 0


def test_trajectory_at_beta_1e6_is_finite():
    X = random_tokens(6, 2, np.random.default_rng(2))
    tr = simulate(X, np.eye(2), 1e6, 0.5, 0.05)
    assert np.all(np.isfinite(tr.log_energies)) and np.all(np.isfinite(tr.states))


def test_usa_overflow_is_refused_not_wrong():
    X = random_tokens(4, 2, np.random.default_rng(3))
    with pytest.raises(DegenerateInputError, match="mode 'usa'"):
        simulate(X, np.eye(2), 1000.0, 0.1, 0.01, mode="usa")


@pytest.mark.parametrize("beta", ["700", "1000", "1e6"])
def test_cli_flow_large_beta_is_strict_json_and_monotone(capsys, beta):
    assert main(["dynamics", "flow", "--beta", beta, "--T", "0.5", "--json"]) == 0
    out = _strict_json(capsys.readouterr().out)
    assert np.isfinite(out["log_E_start"]) and out["log_E_start"] > float(beta) - 20
    assert out["energy_monotone"] is True and out["min_dlogE_dt"] >= 0
    if float(beta) > 709:
        assert out["E_start"] is None


BAD = [
    (["flow", "--n", "-3"], "--n"), (["flow", "--d", "1"], "--d"), (["flow", "--heads", "0"], "--heads"),
    (["flow", "--T", "-1"], "--T"), (["flow", "--dt", "0"], "--dt"), (["flow", "--beta", "0"], "--beta"),
    (["flow", "--seed", "-1"], "--seed"), (["flow", "--threshold", "2"], "--threshold"),
    (["hardmax", "--interior", "-1"], "--interior"), (["hardmax", "--vertices", "0"], "--vertices"),
    (["hardmax", "--gamma", "0"], "--gamma"), (["hardmax", "--betas", "0,2"], "--betas"),
    (["cluster", "--n", "1"], "--n"),
    (["threshold", "--seeds", "0"], "--seeds"), (["threshold", "--tol", "0"], "--tol"),
    (["threshold", "--T", "-1"], "--T"), (["threshold", "--lo", "3"], "--lo"),
    (["wasserstein", "--dt", "0"], "--dt"), (["wasserstein", "--sigma", "nan"], "--sigma"),
    (["heads", "--runs", "0"], "--runs"), (["heads", "--heads", "1"], "--heads"),
    (["fixed-points", "--k", "1"], "--k"), (["fixed-points", "--betas", "0"], "--betas"),
    (["mean-field", "--d", "1"], "--d"), (["mean-field", "--particles", "-1"], "--particles"),
    (["mean-field", "--K-factors", "0"], "--K-factors"), (["mean-field", "--T", "0"], "--T"),
]


@pytest.mark.parametrize("argv,flag", BAD, ids=[" ".join(a) for a, _ in BAD])
def test_cli_bad_value_is_one_line_naming_the_option(capsys, argv, flag):
    assert main(["dynamics", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("tropattn: error: ") and flag in err[0], err


def _dynamics_parsers():
    root = build_parser()
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    dyn = sub.choices["dynamics"]
    dsub = next(a for a in dyn._actions if isinstance(a, argparse._SubParsersAction))
    return dsub.choices


def test_every_sub_command_has_a_description_and_every_option_shows_its_default():
    parsers = _dynamics_parsers()
    assert {"flow", "cluster", "threshold", "mean-field", "fixed-points", "heads", "hardmax", "wasserstein"} <= set(parsers)
    for name, p in parsers.items():
        assert p.description and len(p.description) > 40, name
        fmt = p._get_formatter()
        for act in p._actions:
            if act.option_strings and "--help" not in act.option_strings:
                assert act.help and "%(default)" in fmt._get_help_string(act), (name, act.dest)
        assert "(default: " in p.format_help()
