"""Multi-head attention as a time-dependent Wasserstein-type gradient flow (floats: a simulation).

Heads carry symmetric matrices ``D_h(t)`` (score and value at once, sharpness included), and the
tokens on ``S^{d-1}`` have the interaction energy

    E(X; D) = -(1/(2 H n^2)) sum_h sum_{i,j} exp(<x_i, D_h x_j>).

(The sign is our convention: the attention flow *descends* ``E``; the issue's ``E`` is ``-E``.)
Tokens move with the head average of the per-head softmax tangent velocities
``v_i = (1/H) sum_h P_i u^h_i``, ``u^h_i = sum_j softmax_j(<x_i, D_h x_j>) D_h x_j``.  With the
normalisers ``Z^h_i = sum_j e^{<x_i, D_h x_j>}`` the tangent gradient is
``grad_i E = -(1/(H n^2)) sum_h Z^h_i P_i u^h_i``.  In the token-wise metric ``g_i = Zbar_i / n^2``
(``Zbar_i`` the head mean of ``Z^h_i``) the **metric slope** is ``G^2 = sum_i g_i |v_i|^2`` and

    dE/dt = -G^2 + dE/dt|_weights + Q,     Q = -(1/(H n^2)) sum_i < sum_h (Z^h_i - Zbar_i) P_i u^h_i, v_i >.

For ``H = 1`` (or heads with equal normalisers) ``Q = 0``: the flow is an exact gradient flow and
``E(T) - E(0) = int (dE/dt|_weights - G^2) dt``.  For ``H > 1`` the heads' normalisers differ, ``v``
is not the gradient in any token-wise metric and ``Q != 0``: the identity closes only with ``Q``.

Weights follow ``dD_h = f_h(D_h, t) dt + sigma dW_h`` (Euler-Maruyama, symmetric noise
``dW = sqrt(dt) (G + G^T)/2`` with ``G`` standard Gaussian from a seeded numpy Generator):

* ``ou``:          ``f = I - D`` (Ornstein-Uhlenbeck around ``I``);
* ``oscillating``: ``f = C_h(t) - D`` with ``C_h(t) = I + A cos(omega t + phi_h) S`` for one shared
  random symmetric ``S`` (unit spectral norm); ``phase="in-phase"``: ``phi_h = 0``;
  ``phase="spread"``: ``phi_h = 2 pi h / H``;
* ``frozen``:      ``D_h(t) = D_h(0)`` (``sigma`` is ignored).

**The stochastic energy identity (Ito).**  With ``A_h = dE/dD_h = -(1/(2 H n^2)) sum_ij e^{S^h_ij} x_i x_j^T``
and the symmetric increments ``dW = (G + G^T)/2 sqrt(dt)`` (``E[(a^T dW b)^2] = dt (|a|^2 |b|^2 + (a.b)^2)/2``),
Ito's formula gives

    dE = (-G^2 + Q) dt + sum_h <A_h, f_h> dt + sigma sum_h <A_h, dW_h> + I dt,
    I = -(sigma^2 / 2) (1/(2 H n^2)) sum_h sum_ij e^{S^h_ij} (1 + <x_i, x_j>^2) / 2      (the Ito correction),

the third term a martingale.  :attr:`WassersteinRun.stochastic_residual` is ``E_K - E_0`` minus the Euler-
Maruyama sums of all five terms (``O(sqrt(dt))`` pathwise); without ``I`` it misses by ``int I dt = O(sigma^2)``,
which does not shrink with ``dt`` (:attr:`WassersteinRun.stochastic_residual_without_ito`).

One step: tokens ``x <- normalise(x + dt v(x; D_k))``, then weights ``D_k -> D_{k+1}``.  The
recorded terms are, per step, ``G^2(x_k; D_k)``, ``Q(x_k; D_k)`` and the exact weight work
``E(x_{k+1}; D_{k+1}) - E(x_{k+1}; D_k)``; the residual ``E_K - E_0 + sum dt G^2 - sum work`` is
``O(dt)`` when ``H = 1`` (Euler), and ``sum dt Q + O(dt)`` otherwise.

>>> res = wasserstein_flow(np.eye(3), np.eye(3)[None], T=1.0, dt=0.01, weights="frozen")
>>> bool(np.all(np.diff(res.energy) <= 1e-15))           # one frozen head: E never increases
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import DegenerateInputError
from .._validate import bounded_float, choice
from ._sphere import MAX_ANGLE_STEP, check_heads, check_positive, check_tokens, energy, head_velocities, scores

__all__ = ["WEIGHT_LAWS", "PHASES", "interaction_energy", "flow_terms", "symmetric_noise", "WassersteinRun",
           "wasserstein_flow", "time_average", "cross_polytope_tokens", "gaussian_heads", "loglog_slope"]

WEIGHT_LAWS = ("ou", "oscillating", "frozen")
PHASES = ("in-phase", "spread")


def interaction_energy(X, D):
    """``E(X; D) = -(1/(2 H n^2)) sum_h sum_ij exp(<x_i, D_h x_j>)``.

    Parameters
    ----------
    X : (n, d) ndarray
        Unit tokens.
    D : (H, d, d) ndarray
        Head matrices.

    Returns
    -------
    float
        ``E(X; D) < 0``.

    Examples
    --------
    >>> float(interaction_energy(np.array([[1.0, 0.0]]), np.zeros((1, 2, 2))))   # one token, D = 0
    -0.5
    """
    return -energy(X, D, 1.0) / len(D)


def flow_terms(X, D):
    """(velocity ``v``, ``G^2``, ``Q``) at tokens ``X`` and heads ``D`` (see the module docstring).

    Parameters
    ----------
    X : (n, d) ndarray
        Unit tokens.
    D : (H, d, d) ndarray
        Symmetric head matrices.

    Returns
    -------
    v : numpy.ndarray
        The head-averaged tangent velocity, shape ``(n, d)``.
    G2 : float
        The metric slope ``sum_i g_i |v_i|^2 >= 0``.
    Q : float
        The cross-head term (0 for one head).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]])
    >>> v, G2, Q = flow_terms(X, np.eye(3)[None])
    >>> v.shape, G2 > 0, Q == 0                                  # one head: an exact gradient flow
    ((3, 3), True, True)
    >>> bool(flow_terms(X, np.stack([np.eye(3), 3 * np.eye(3)]))[2] < 0)   # unequal normalisers: Q != 0
    True
    """
    H, n = len(D), len(X)
    Pu = head_velocities(X, D, 1.0, "sa")                      # (H, n, d)
    Z = np.exp(scores(X, D)).sum(axis=2)                        # (H, n)
    v = Pu.mean(axis=0)
    Zbar = Z.mean(axis=0)
    G2 = float((Zbar * np.einsum("id,id->i", v, v)).sum() / n ** 2)
    Q = -float(np.einsum("hi,hid,id->", Z - Zbar, Pu, v) / (H * n ** 2))
    return v, G2, Q


def symmetric_noise(rng, H, d, dt):
    """``sqrt(dt) (G + G^T)/2`` per head: symmetric Gaussian increments, shape ``(H, d, d)``.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random source.
    H, d : int
        Number of heads and dimension.
    dt : float
        Time step (the increment scales like ``sqrt(dt)``).

    Returns
    -------
    numpy.ndarray
        Shape ``(H, d, d)``, symmetric in the last two axes.

    Examples
    --------
    >>> N = symmetric_noise(np.random.default_rng(0), 2, 3, 0.01)
    >>> N.shape, bool(np.allclose(N, N.transpose(0, 2, 1)))
    ((2, 3, 3), True)
    """
    G = rng.standard_normal((H, d, d))
    return np.sqrt(dt) * (G + np.swapaxes(G, 1, 2)) / 2


@dataclass(frozen=True)
class WassersteinRun:
    """A recorded flow: ``times (K+1,)``, ``energy (K+1,)``, per step ``G2, Q, work (K,)``, final state."""

    times: np.ndarray
    energy: np.ndarray
    G2: np.ndarray
    Q: np.ndarray
    work: np.ndarray
    tokens: np.ndarray
    weights: np.ndarray
    states: np.ndarray
    drift_work: np.ndarray = None
    martingale: np.ndarray = None
    ito: np.ndarray = None

    @property
    def dt(self):
        return float(self.times[1] - self.times[0])

    @property
    def residual(self):
        """``E_K - E_0 + sum dt G^2 - sum work``: ``O(dt)`` for one head."""
        return float(self.energy[-1] - self.energy[0] + self.dt * self.G2.sum() - self.work.sum())

    @property
    def stochastic_residual(self):
        """``E_K - E_0 - sum [(Q - G^2) dt + <A, f> dt + sigma <A, dW> + I dt]``: ``O(sqrt(dt))`` (Ito's formula)."""
        return float(self.energy[-1] - self.energy[0] - self.dt * (self.Q.sum() - self.G2.sum())
                     - self.drift_work.sum() - self.martingale.sum() - self.ito.sum())

    @property
    def stochastic_residual_without_ito(self):
        """The same without the Ito correction: misses by ``int I dt``, which does not shrink with ``dt``."""
        return self.stochastic_residual + float(self.ito.sum())

    @property
    def residual_with_Q(self):
        """The residual once the cross-head term is included: ``residual - sum dt Q`` (``O(dt)`` for any H)."""
        return self.residual - self.dt * float(self.Q.sum())


def _drift(law, D, t, target, amplitude, omega, phases):
    if law == "ou":
        return np.eye(D.shape[1])[None] - D
    if law == "oscillating":
        C = np.eye(D.shape[1])[None] + amplitude * np.cos(omega * t + phases)[:, None, None] * target[None]
        return C - D
    return np.zeros_like(D)


def _shared_target(rng, d):
    G = rng.standard_normal((d, d))
    S = (G + G.T) / 2
    return S / np.abs(np.linalg.eigvalsh(S)).max()


def _ito_terms(X, D, drift, noise, sigma, dt):
    """``(<A, f> dt, sigma <A, dW>, I dt)`` at tokens ``X`` and weights ``D`` (see the module docstring)."""
    H, n = len(D), len(X)
    S = scores(X, D)                                                   # (H, n, n)
    c = float(S.max())
    w = np.exp(S - c) * np.exp(c)
    A = -np.einsum("hij,id,je->hde", w, X, X) / (2 * H * n * n)
    rho2 = (X @ X.T) ** 2
    ito = -(sigma ** 2 / 2) * float((w * (1 + rho2)[None] / 2).sum()) / (2 * H * n * n) * dt
    work = float(np.einsum("hde,hde->", A, drift)) * dt
    mart = sigma * float(np.einsum("hde,hde->", A, noise)) if noise is not None else 0.0
    return work, mart, ito


def wasserstein_flow(X0, D0, T, dt=0.01, weights="frozen", sigma=0.0, phase="in-phase", amplitude=1.0,
                     omega=1.0, seed=0, record_states=False, normalize=False, progress=None, noise=None):
    """Run the token flow and the weight law together; returns a :class:`WassersteinRun`.

    Parameters
    ----------
    X0 : (n, d) unit tokens
    D0 : (H, d, d) symmetric initial head matrices
    T, dt : positive floats (``T / dt`` Euler steps)
    weights : {"ou", "oscillating", "frozen"}
    sigma : float >= 0, the noise level (ignored for ``frozen``)
    phase : {"in-phase", "spread"} (``oscillating`` only)
    amplitude, omega : the oscillation ``A`` and frequency
    seed : int, seeds the Generator for the noise and the shared target ``S``
    record_states : keep every token state (for pictures)
    normalize : bool, optional
        Project tokens off the sphere onto it (with a warning) instead of refusing them.
    progress : callable, optional
        Called as ``progress(step, steps)``.
    noise : (steps, H, d, d) ndarray, optional
        The symmetric increments ``dW`` (already ``sqrt(dt)``-scaled) instead of drawing them: one Brownian
        path shared by several ``dt`` (sum pairs of a fine path for a coarse one).

    Returns
    -------
    WassersteinRun
        Energies, per-step ``G2``, ``Q`` and weight work, final tokens and weights.

    Raises
    ------
    InvalidInputError
        Bad tokens, non-symmetric ``D0``, bad names or numbers.
    DegenerateInputError
        ``dt`` too large: a token would move more than 0.5 rad in one step, or the weights blew up.

    Examples
    --------
    >>> X0 = np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]])
    >>> run = wasserstein_flow(X0, np.eye(3)[None], T=1.0, dt=0.01, weights="ou", sigma=0.1)
    >>> abs(run.residual) < 0.05                        # one head: the energy identity closes up to O(dt)
    True
    """
    X = check_tokens(X0, normalize=normalize)
    n, d = X.shape
    D = check_heads(D0, d, what="head matrices D_h").copy()
    H = len(D)
    T, dt = check_positive(T, "T", "the time horizon"), check_positive(dt, "dt", "the time step")
    choice(weights, "weights", WEIGHT_LAWS)
    choice(phase, "phase", PHASES)
    sigma = bounded_float(sigma, "sigma", 0, np.inf, meaning="the noise level", open_hi=True)
    if weights == "frozen":
        sigma = 0.0
    rng = np.random.default_rng(seed)
    target = _shared_target(rng, d)
    phases = np.zeros(H) if phase == "in-phase" else 2 * np.pi * np.arange(H) / H
    steps = max(1, int(round(T / dt)))
    dt = T / steps
    E, G2, Q, W, states, ito_rows = [interaction_energy(X, D)], [], [], [], [X], []
    for k in range(steps):
        v, g2, q = flow_terms(X, D)
        speed = float(np.abs(v).max())
        if not speed * dt <= MAX_ANGLE_STEP:
            raise DegenerateInputError(f"dt = {dt:g} is too large at t = {k * dt:.4g}: a token would move "
                                       f"{speed * dt:.3g} rad in one step (> {MAX_ANGLE_STEP}); use a smaller dt")
        Y = X + dt * v
        X = Y / np.linalg.norm(Y, axis=1, keepdims=True)
        before = interaction_energy(X, D)
        f = _drift(weights, D, k * dt, target, amplitude, omega, phases)
        N = (noise[k] if noise is not None else symmetric_noise(rng, H, d, dt)) if sigma else None
        ito_rows.append(_ito_terms(X, D, f, N, sigma, dt))
        D = D + dt * f
        if sigma:
            D = D + sigma * N
        after = interaction_energy(X, D)
        if not (np.isfinite(after) and np.all(np.isfinite(D))):
            raise DegenerateInputError(f"the weights blew up at t = {(k + 1) * dt:.4g}; use a smaller dt or sigma")
        E.append(after)
        G2.append(g2)
        Q.append(q)
        W.append(after - before)
        if record_states:
            states.append(X)
        if progress is not None:
            progress(k + 1, steps)
    ito_rows = np.array(ito_rows).reshape(-1, 3)
    return WassersteinRun(np.linspace(0, T, steps + 1), np.array(E), np.array(G2), np.array(Q), np.array(W), X, D,
                          np.array(states), ito_rows[:, 0], ito_rows[:, 1], ito_rows[:, 2])


def time_average(values, fraction=0.5):
    """Mean of the last ``fraction`` of a per-step series (the transient is dropped).

    Parameters
    ----------
    values : array_like
        A per-step series.
    fraction : float, optional
        The trailing fraction averaged (default 1/2).

    Returns
    -------
    float
        The mean of the last ``fraction`` of ``values``.

    Examples
    --------
    >>> time_average(np.array([9.0, 9.0, 1.0, 3.0]))
    2.0
    """
    values = np.asarray(values, dtype=float)
    return float(values[int(len(values) * (1 - fraction)):].mean())


def cross_polytope_tokens(n, d, rng, spread=0.1):
    """``n`` unit tokens near the ``2d`` vertices ``+-e_k`` of the cross-polytope (cycled), Gaussian ``spread``.

    Examples
    --------
    >>> X = cross_polytope_tokens(6, 3, np.random.default_rng(0), spread=0.0)
    >>> np.abs(X).tolist()[:4], X[3, 0]
    ([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], np.float64(-1.0))
    """
    V = np.vstack([np.eye(d), -np.eye(d)])
    X = V[np.arange(n) % (2 * d)] + spread * rng.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def gaussian_heads(H, d, rng):
    """``H`` heads ``D_h(0) = Z + Z^T`` with ``Z`` standard Gaussian (the paper's start).

    Examples
    --------
    >>> D = gaussian_heads(2, 3, np.random.default_rng(0))
    >>> D.shape, bool(np.allclose(D, D.transpose(0, 2, 1)))
    ((2, 3, 3), True)
    """
    Z = rng.standard_normal((H, d, d))
    return Z + np.swapaxes(Z, 1, 2)


def loglog_slope(Hs, values):
    """Least-squares slope of ``ln values`` against ``ln H`` (None with fewer than two positive points).

    Examples
    --------
    >>> round(loglog_slope([1, 2, 4], [1.0, 0.5, 0.25]), 6)
    -1.0
    """
    H, v = np.asarray(Hs, float), np.asarray(values, float)
    keep = v > 0
    if keep.sum() < 2:
        return None
    return float(np.polyfit(np.log(H[keep]), np.log(v[keep]), 1)[0])
