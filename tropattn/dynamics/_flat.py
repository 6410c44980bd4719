"""Flat (non-projected) attention dynamics in ``R^d`` beside the projected flow on the sphere, with the energy
identity of each and the sufficient condition for monotonicity with several heads.

*Flat*: ``dx_i/dt = sum_h u^h_i`` with ``u^h_i = sum_j softmax_j(beta <x_i, M_h x_j>) M_h x_j`` (SA; USA:
``(1/n) sum_j e^{beta S^h_ij} M_h x_j``), tokens anywhere in ``R^d``.  *Projected*: ``P_i`` applied to the sum
and renormalisation (:func:`tropattn.dynamics.simulate`).  With ``E = sum_h E_h``,
``E_h = 1/(2 beta n^2) sum_ij e^{beta S^h_ij}``, the gradient is ``grad_i E_h = (Z^h_i / n^2) u^h_i``, so

* flat:      ``dE/dt = sum_i < sum_h (Z^h_i/n^2) u^h_i , sum_h' u^h'_i >``;
* projected: ``dE/dt = sum_i < sum_h (Z^h_i/n^2) P_i u^h_i , sum_h' P_i u^h'_i >``.

The *diagonal* part ``D = sum_h sum_i (Z^h_i/n^2) |u^h_i|^2 >= 0`` (``|P_i u^h_i|^2`` when projected) is the
dissipation each head would have alone; the rest is the cross-head term ``C``.  **Sufficient condition**:
PSD heads with mutually orthogonal ranges (``M_h M_h' = 0``): then ``<u^h_i, u^h'_i> = 0`` and ``C = 0`` along
the *flat* flow, so ``dE/dt = D >= 0``.  It is not sufficient for the projected flow: ``P_i`` adds the radial
cross term ``-<u^h_i, x_i><u^h'_i, x_i>``, which can make ``dE/dt < 0``.  And without the condition the flat
``dE/dt`` can be negative too.  :func:`energy_terms` returns ``(dE/dt, D)`` for both flows.

>>> M = orthogonal_psd_heads(4, 2, np.random.default_rng(0))
>>> satisfies_monotone_condition(M), satisfies_monotone_condition(np.stack([np.eye(4), np.eye(4)]))
(True, False)
"""

from __future__ import annotations

import numpy as np

from .._validate import choice
from ..errors import DegenerateInputError
from ._sphere import MODES, _stack, check_beta, check_positive, log_energy

__all__ = ["FLOWS", "flat_velocity", "energy_terms", "orthogonal_psd_heads", "satisfies_monotone_condition",
           "integrate_flow", "identity_defect", "decreases"]

#: The two geometries.
FLOWS = ("flat", "projected")


def _head_parts(X, M, beta, mode):
    """Per head: the un-projected ``u^h_i`` and the gradient weights ``Z^h_i / n^2`` (shifted by the max score)."""
    M = _stack(M)
    MX = np.matmul(X, np.swapaxes(M, 1, 2))                   # (H, n, d)
    S = beta * np.matmul(X, np.swapaxes(MX, 1, 2))            # (H, n, n)
    c = float(S.max())
    E = np.exp(S - c)
    Z = E.sum(axis=2)                                         # shifted normalisers
    with np.errstate(over="ignore", invalid="ignore"):        # overflow is detected by integrate_flow
        W = E / Z[:, :, None] if mode == "sa" else E * (np.exp(c) / X.shape[0])
        return np.matmul(W, MX), Z * np.exp(c) / X.shape[0] ** 2


def flat_velocity(X, M, beta, mode="sa"):
    """The flat field ``sum_h u^h_i`` (no projection), shape ``(n, d)``.

    Examples
    --------
    >>> flat_velocity(np.array([[1.0, 0.0], [0.0, 2.0]]), np.eye(2), 1.0, "usa").round(3).tolist()
    [[1.359, 1.0], [0.5, 54.598]]
    """
    choice(mode, "mode", MODES)
    U, _ = _head_parts(X, M, check_beta(beta), mode)
    return U.sum(axis=0)


def energy_terms(X, M, beta, mode="sa", flow="flat"):
    """``(dE/dt, D)`` at ``X`` along the flat or projected flow: the rate and its diagonal (per-head) part.

    Parameters
    ----------
    X : (n, d) ndarray
        Tokens (unit rows for ``flow="projected"``).
    M : (H, d, d) or (d, d) ndarray
        Symmetric heads.
    beta : float
        Inverse temperature.
    mode : {"sa", "usa"}, optional
        The normalisation.
    flow : {"flat", "projected"}, optional
        The geometry.

    Returns
    -------
    (rate, diagonal) : floats
        ``rate - diagonal`` is the cross-head term (0 for one head, and for orthogonal PSD heads on the flat flow).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> r, D = energy_terms(X, np.eye(2), 1.0)
    >>> bool(np.isclose(r, D))                                 # one head: no cross term
    True
    """
    choice(flow, "flow", FLOWS)
    U, g = _head_parts(X, M, check_beta(beta), mode)
    if flow == "projected":
        U = U - np.einsum("hid,id->hi", U, X)[:, :, None] * X[None]
    V = U.sum(axis=0)
    rate = float(np.einsum("hi,hid,id->", g, U, V))
    diag = float(np.einsum("hi,hid,hid->", g, U, U))
    return rate, diag


def orthogonal_psd_heads(d, H, rng):
    """``H`` PSD heads with mutually orthogonal ranges: ``M_h = Q_h diag(lambda) Q_h^T`` on disjoint blocks
    of a random orthonormal basis (the sufficient condition of the module docstring).

    Examples
    --------
    >>> M = orthogonal_psd_heads(5, 2, np.random.default_rng(1))
    >>> M.shape, bool(np.abs(M[0] @ M[1]).max() < 1e-12)
    ((2, 5, 5), True)
    """
    Q, _ = np.linalg.qr(rng.standard_normal((d, d)))
    blocks = np.array_split(np.arange(d), H)
    out = np.zeros((H, d, d))
    for h, b in enumerate(blocks):
        lam = rng.uniform(0.5, 1.5, len(b))
        out[h] = (Q[:, b] * lam) @ Q[:, b].T
    return out


def satisfies_monotone_condition(M, tol=1e-10):
    """Are the heads PSD with mutually orthogonal ranges (``M_h M_h' = 0``), up to ``tol`` times their size?

    Examples
    --------
    >>> satisfies_monotone_condition(np.stack([np.diag([1.0, 0.0]), np.diag([0.0, 2.0])]))
    True
    """
    M = _stack(M)
    size = max(float(np.abs(M).max()), 1e-300)
    psd = all(np.linalg.eigvalsh(m).min() >= -tol * size for m in M)
    cross = all(np.abs(M[a] @ M[b]).max() <= tol * size * size
                for a in range(len(M)) for b in range(a + 1, len(M)))
    return bool(psd and cross)


def integrate_flow(X0, M, beta, T, dt, mode="sa", flow="flat"):
    """RK4 for the flat or projected flow (projected: renormalised after each step), recording every step.

    Returns
    -------
    times, states, log_energies, rates, diagonals : ndarrays
        ``rates`` and ``diagonals`` are :func:`energy_terms` at each recorded state.

    Examples
    --------
    >>> X0 = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> t, S, logE, r, D = integrate_flow(X0, np.eye(2), 1.0, 0.2, 0.05, flow="projected")
    >>> S.shape, bool(np.allclose(np.linalg.norm(S, axis=2), 1))
    ((5, 2, 2), True)
    """
    choice(flow, "flow", FLOWS)
    beta, T, dt = check_beta(beta), check_positive(T, "T", "the time horizon"), check_positive(dt, "dt", "the time step")
    steps = max(1, int(round(T / dt)))
    dt = T / steps

    def f(Y):
        V = flat_velocity(Y, M, beta, mode)
        return V - np.einsum("id,id->i", V, Y)[:, None] * Y if flow == "projected" else V

    X = np.array(X0, dtype=float)
    states = [X]
    with np.errstate(over="ignore", invalid="ignore"):           # overflow is detected below, once
        return _integrate(f, X, states, steps, dt, M, beta, mode, flow, T)


def _integrate(f, X, states, steps, dt, M, beta, mode, flow, T):
    for _ in range(steps):
        k1 = f(X)
        k2 = f(X + dt / 2 * k1)
        k3 = f(X + dt / 2 * k2)
        k4 = f(X + dt * k3)
        X = X + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        if flow == "projected":
            X = X / np.linalg.norm(X, axis=1, keepdims=True)
        states.append(X)
    states = np.array(states)
    if not np.all(np.isfinite(states)):
        raise DegenerateInputError(f"the {flow} flow left the float range by t = {T:g}; the flat flow grows the "
                                   "tokens: use a smaller T, beta or heads")
    terms = np.array([energy_terms(S, M, beta, mode, flow) for S in states])
    logE = np.array([log_energy(S, M, beta) for S in states])
    if not (np.all(np.isfinite(terms)) and np.all(logE < 700)):
        raise DegenerateInputError(f"the {flow} flow left the float range by t = {T:g} (E ~ e^{np.nanmax(logE):.3g}); "
                                   "the flat flow grows the tokens: use a smaller T, beta or heads")
    return np.linspace(0, T, steps + 1), states, logE, terms[:, 0], terms[:, 1]


def identity_defect(times, log_energies, rates):
    """``E(T) - E(0) - int dE/dt`` with Simpson's rule (an even number of steps; else the trapezoid), and the
    largest ``|E|`` for scale.

    Examples
    --------
    >>> t = np.linspace(0, 1, 11)
    >>> round(identity_defect(t, np.log(1 + t ** 2), 2 * t)[0], 12)        # E = 1 + t^2
    0.0
    """
    E = np.exp(np.asarray(log_energies, float))
    r, t = np.asarray(rates, float), np.asarray(times, float)
    dt = float(t[1] - t[0])
    if (len(t) - 1) % 2 == 0:
        integral = dt / 3 * (r[0] + r[-1] + 4 * r[1:-1:2].sum() + 2 * r[2:-1:2].sum())
    else:
        integral = dt * (r.sum() - (r[0] + r[-1]) / 2)
    return float(E[-1] - E[0] - integral), float(np.abs(E).max())


def decreases(rates, rel_tol=1e-12):
    """Does a sampled ``dE/dt`` go below ``-rel_tol`` times its largest size?

    Examples
    --------
    >>> decreases([1.0, -0.5]), decreases([1.0, -1e-15])
    (True, False)
    """
    r = np.asarray(rates, float)
    return bool(r.min() < -rel_tol * np.abs(r).max())
