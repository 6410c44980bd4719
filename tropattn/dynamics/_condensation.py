"""Attention condensation: do clusters nucleate from a diffuse Gaussian start?

Start ``n`` tokens uniform on ``S^{d-1}`` (normalised Gaussians, seeded), run the SA flow of
:mod:`tropattn.dynamics._sphere` with the single head ``D = beta I`` (the sharpness scales scores
and values, ``values="scaled"``; ``values="unit"`` uses ``M = I`` at inverse temperature
``beta``) up to time ``T``, and measure the **order parameter**

    phi = fraction of tokens that have another token at overlap >= 1 - eps

(the clustered fraction; ``eps = 0.02`` by default, about 11 degrees).  A diffuse start in
``d >= 8`` has ``phi ~ 0``; a condensed state has ``phi = 1``.  The mean pairwise overlap
``q = (|sum_i x_i|^2 - n) / (n (n - 1))`` is reported alongside (it tells one cluster from many).

**This is the noiseless flow and a finite-time criterion, not a phase transition.**  With
``D = beta I`` and small ``beta`` the softmax weights are nearly uniform and the velocity is ``beta``
times the ``beta -> 0`` field ``P_i(mean_j x_j)``: the state at ``(beta, T)`` is close to the state of
that field at time ``s = beta T``.  So ``beta_c(T) ~ c_0 / T`` (:func:`threshold_curve` reports
``beta_c T``; :func:`zero_beta_constant` computes ``c_0``, the time the ``beta -> 0`` field needs to
reach ``phi = 1/2``), and ``beta_c(T) -> 0`` as ``T -> infinity``: every ``beta > 0`` clusters
eventually.  The noisy model's transition is another model (:mod:`tropattn.dynamics._mckean_vlasov`).

**Criterion.**  ``beta_c(n, d)`` is where the seed-averaged ``phi(beta)`` crosses ``1/2``, found by
bisection on ``[lo, hi]`` with ``phi(lo) < 1/2 <= phi(hi)`` (the same seeds at every ``beta``, so
``phi`` is a deterministic function of ``beta``).  In the ``scaled`` convention the velocity is
proportional to ``beta`` at small ``beta``, so below ``beta_c`` the tokens have not had the time to
condense; far above it the self-weight ``e^beta`` dominates the ``n - 1`` others, motion slows like
``e^{-beta (1-rho)}`` and the diffuse state freezes again (the condensed window closes; see the
report of :func:`condensation_sweep`).

>>> phi, q = order_parameters(np.eye(3))             # three orthogonal tokens: diffuse
>>> float(phi), float(q)
(0.0, 0.0)
"""

from __future__ import annotations

import numpy as np

from ..errors import DegenerateInputError
from ._clusters import cluster_sizes, detect_clusters
from ._equiangular import VALUE_CONVENTIONS
from .._validate import choice
from ._sphere import check_beta, random_tokens, simulate

__all__ = ["order_parameters", "condensed_state", "condensation_sweep", "critical_beta", "threshold_curve",
           "zero_beta_constant", "order_parameter_grid"]


def order_parameters(X, eps=0.02):
    """(clustered fraction ``phi``, mean pairwise overlap ``q``) of unit tokens ``X``.

    Parameters
    ----------
    X : (n, d) array_like
        Unit tokens, ``n >= 2``.
    eps : float, optional
        Two tokens are clustered when their overlap is ``>= 1 - eps`` (default 0.02).

    Returns
    -------
    phi : float
        The clustered fraction, in ``[0, 1]``.
    q : float
        The mean pairwise overlap, in ``[-1/(n-1), 1]``.

    Examples
    --------
    >>> phi, q = order_parameters([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])   # one pair, one loner
    >>> round(phi, 3), round(q, 3)
    (0.667, 0.333)
    """
    X = np.asarray(X, dtype=float)
    n = len(X)
    s = X.sum(axis=0)
    q = (s @ s - n) / (n * (n - 1))
    phi = float((cluster_sizes(detect_clusters(X, 1 - eps)) > 1).mean())
    return phi, float(round(q, 15))


def condensed_state(beta, n, d, T, seed, values="scaled", dt=0.05):
    """The tokens at time ``T`` from the seeded Gaussian start (RK4, step ``min(dt, 0.2/beta)``).

    Parameters
    ----------
    beta : float
        Sharpness (> 0).
    n, d : int
        Number of tokens and dimension.
    T : float
        Final time (> 0).
    seed : int
        Seed of the Gaussian start.
    values : {"scaled", "unit"}, optional
        Head ``D = beta I`` (default) or ``M = I`` at inverse temperature ``beta``.
    dt : float, optional
        Largest RK4 step (default 0.05).

    Returns
    -------
    numpy.ndarray
        The tokens at time ``T``, shape ``(n, d)``.

    Raises
    ------
    InvalidInputError
        If ``beta`` or ``T`` is not positive and finite, or ``values`` is unknown.
    DegenerateInputError
        If the RK4 step blows up.

    Examples
    --------
    >>> X = condensed_state(2.0, 16, 8, 3.0, seed=0)        # well above beta_c: one tight cluster
    >>> X.shape, order_parameters(X)[0]
    ((16, 8), 1.0)
    """
    beta = check_beta(beta)
    choice(values, "values", VALUE_CONVENTIONS)
    X = random_tokens(int(n), int(d), np.random.default_rng(seed))
    M, b = (beta * np.eye(d), 1.0) if values == "scaled" else (np.eye(d), beta)
    speed = beta if values == "scaled" else 1.0
    return simulate(X, M, b, T, dt=min(dt, 0.2 / speed), scheme="rk4", record_every=10 ** 9).final


def condensation_sweep(betas, n, d, T=5.0, seeds=(0, 1, 2), values="scaled", eps=0.02, progress=None):
    """Seed-averaged order parameters at each ``beta``: arrays ``(phi, q)`` of shape ``(len(betas),)``.

    Parameters
    ----------
    betas : sequence of float
        Sharpness values (> 0).
    n, d : int
        Number of tokens and dimension.
    T : float, optional
        Final time (default 5).
    seeds : sequence of int, optional
        The Gaussian starts averaged over.
    values : {"scaled", "unit"}, optional
        Value convention (see :func:`condensed_state`).
    eps : float, optional
        Cluster threshold of :func:`order_parameters`.
    progress : callable, optional
        Called as ``progress(done, total)`` after each ``beta``.

    Returns
    -------
    phi : numpy.ndarray
        Seed-averaged clustered fraction per ``beta``.
    q : numpy.ndarray
        Seed-averaged mean overlap per ``beta``.

    Raises
    ------
    InvalidInputError
        If a ``beta`` or ``T`` is bad or ``values`` is unknown.

    Examples
    --------
    >>> phi, q = condensation_sweep([0.25, 2.0], 16, 8, T=3.0, seeds=(0,))
    >>> bool(phi[0] < 0.5 <= phi[1])
    True
    """
    out = []
    for k, b in enumerate(betas):
        vals = [order_parameters(condensed_state(b, n, d, T, s, values), eps) for s in seeds]
        out.append(np.mean(vals, axis=0))
        if progress is not None:
            progress(k + 1, len(betas))
    out = np.array(out)
    return out[:, 0], out[:, 1]


def critical_beta(n, d, T=5.0, lo=0.05, hi=4.0, seeds=(0, 1, 2), values="scaled", eps=0.02, tol=0.01,
                  progress=None):
    """``beta_c``: bisection for the crossing ``phi(beta) = 1/2`` on ``[lo, hi]`` (to ``tol``).

    Parameters
    ----------
    n, d : int
        Number of tokens and dimension.
    T : float, optional
        Final time (default 5).
    lo, hi : float, optional
        The bracket (``phi(lo) < 1/2 <= phi(hi)``).
    seeds : sequence of int, optional
        The Gaussian starts averaged over.
    values : {"scaled", "unit"}, optional
        Value convention.
    eps : float, optional
        Cluster threshold of :func:`order_parameters`.
    tol : float, optional
        Width of the final bracket.
    progress : callable, optional
        Called as ``progress(evaluations, None)``.

    Returns
    -------
    (beta_c, evaluations) : float and a list of ``(beta, phi, q)`` triples, in the order computed.

    Raises
    ------
    DegenerateInputError
        ``[lo, hi]`` does not bracket the crossing.

    Examples
    --------
    >>> b, evals = critical_beta(16, 8, T=3.0, lo=0.25, hi=2.0, seeds=(0,), tol=0.5)
    >>> round(b, 3), [round(e[1], 2) for e in evals]        # phi at 0.25, 2, then the bisection
    (0.906, [0.0, 1.0, 1.0, 0.0])
    """
    lo, hi = check_beta(lo, "lo"), check_beta(hi, "hi")
    evals = []

    def phi(b):
        p, q = condensation_sweep([b], n, d, T, seeds, values, eps)
        evals.append((b, float(p[0]), float(q[0])))
        if progress is not None:
            progress(len(evals), None)
        return p[0]

    p_lo, p_hi = phi(lo), phi(hi)
    if not (p_lo < 0.5 <= p_hi):
        raise DegenerateInputError(f"phi({lo:g}) = {evals[0][1]:.3g} and phi({hi:g}) = {evals[1][1]:.3g} do not "
                                   "bracket the threshold 1/2; widen [lo, hi] or change T")
    while hi - lo > tol:
        mid = (lo + hi) / 2
        if not lo < mid < hi:                   # the bracket is down to adjacent floats
            break
        if phi(mid) >= 0.5:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2, evals


def threshold_curve(n, d, Ts, lo=0.02, hi=2.0, seeds=(0, 1, 2), values="scaled", eps=0.02, tol=0.01,
                    progress=None):
    """``beta_c(T)`` at each time of ``Ts`` (bisection of :func:`critical_beta`), with ``beta_c T``.

    Parameters
    ----------
    n, d : int
        Number of tokens and dimension.
    Ts : sequence of float
        The reading times.
    lo, hi, seeds, values, eps, tol, progress
        As in :func:`critical_beta`.

    Returns
    -------
    rows : list of dict
        ``{"T", "beta_c", "beta_c_T"}`` per time.
    slope : float or None
        Least-squares slope of ``ln beta_c`` against ``ln T`` (``-1`` for the ``c_0 / T`` law; None for one ``T``).

    Examples
    --------
    >>> rows, slope = threshold_curve(12, 4, [2.0, 4.0], lo=0.1, hi=3.0, seeds=(0,), tol=0.1)
    >>> [round(r["beta_c_T"], 2) for r in rows], round(slope, 2)      # beta_c T about constant: slope ~ -1
    ([1.56, 1.67], -0.9)
    """
    rows = []
    for T in Ts:
        bc, _ = critical_beta(n, d, T, lo, hi, seeds, values, eps, tol, progress)
        rows.append({"T": float(T), "beta_c": bc, "beta_c_T": bc * T})
    slope = None
    if len(rows) > 1:
        slope = float(np.polyfit(np.log([r["T"] for r in rows]), np.log([r["beta_c"] for r in rows]), 1)[0])
    return rows, slope


def zero_beta_constant(n, d, seeds=(0, 1, 2), eps=0.02, s_max=12.0, ds=0.02):
    """``c_0``: the first time ``s`` at which the ``beta -> 0`` field ``P_i(mean_j x_j)`` has ``phi >= 1/2``.

    The seed-averaged clustered fraction of the Gaussian starts is read every ``ds``; ``beta_c(T) T -> c_0``
    as ``T -> infinity`` (see the module docstring).

    Parameters
    ----------
    n, d : int
        Number of tokens and dimension.
    seeds : sequence of int, optional
        The Gaussian starts (the same as :func:`critical_beta`'s).
    eps : float, optional
        Cluster threshold.
    s_max, ds : float, optional
        Horizon and reading step of the limiting flow (RK4 with step ``ds``).

    Returns
    -------
    float
        ``c_0`` (linearly interpolated between readings).

    Raises
    ------
    DegenerateInputError
        ``phi`` stays below 1/2 up to ``s_max``.

    Examples
    --------
    >>> round(zero_beta_constant(32, 4), 2)          # beta_c(T) T -> 3.02 (n = 32, d = 4, seeds 0, 1, 2)
    3.02
    """
    runs = [simulate(random_tokens(int(n), int(d), np.random.default_rng(s)), np.eye(d), 1e-12, s_max, ds).states
            for s in seeds]
    phi = np.mean([[order_parameters(X, eps)[0] for X in states] for states in runs], axis=0)
    k = int(np.argmax(phi >= 0.5))
    if phi[k] < 0.5:
        raise DegenerateInputError(f"phi stays below 1/2 up to s = {s_max:g} for the beta -> 0 field; raise s_max")
    if k == 0:
        return 0.0
    return float(ds * (k - 1 + (0.5 - phi[k - 1]) / (phi[k] - phi[k - 1])))


def order_parameter_grid(betas, Ts, n, d, seeds=(0, 1), values="scaled", eps=0.02, progress=None):
    """Seed-averaged ``phi`` on the grid ``Ts x betas`` from the Gaussian starts, shape ``(len(Ts), len(betas))``.

    The flow is autonomous, so each ``(beta, seed)`` run is continued from one reading time to the next
    (``Ts`` sorted increasing).

    Parameters
    ----------
    betas : sequence of float
        Sharpness values.
    Ts : sequence of float
        Increasing reading times.
    n, d : int
        Number of tokens and dimension.
    seeds, values, eps
        As in :func:`condensation_sweep`.
    progress : callable, optional
        Called as ``progress(done, len(betas))``.

    Returns
    -------
    numpy.ndarray
        ``phi[t, b]``.

    Examples
    --------
    >>> np.round(order_parameter_grid([0.1, 3.0], [1.0, 4.0], 12, 4, seeds=(0,)), 2).tolist()
    [[0.0, 0.83], [0.17, 1.0]]
    """
    Ts = [float(T) for T in Ts]
    if any(b <= a for a, b in zip(Ts, Ts[1:])):
        raise DegenerateInputError(f"Ts = {Ts}; the reading times must increase")
    out = np.zeros((len(Ts), len(betas)))
    for j, beta in enumerate(betas):
        beta = check_beta(beta)
        M, b = (beta * np.eye(d), 1.0) if values == "scaled" else (np.eye(d), beta)
        dt = min(0.05, 0.2 / (beta if values == "scaled" else 1.0))
        for s in seeds:
            X, t = random_tokens(int(n), int(d), np.random.default_rng(s)), 0.0
            for i, T in enumerate(Ts):
                X = simulate(X, M, b, T - t, dt=dt, record_every=10 ** 9).final
                t = T
                out[i, j] += order_parameters(X, eps)[0] / len(seeds)
        if progress is not None:
            progress(j + 1, len(betas))
    return out
