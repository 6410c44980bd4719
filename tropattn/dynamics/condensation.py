"""Attention condensation: do clusters nucleate from a diffuse Gaussian start?

Start ``n`` tokens uniform on ``S^{d-1}`` (normalised Gaussians, seeded), run the SA flow of
:mod:`tropattn.dynamics.sphere` with the single head ``D = beta I`` (the sharpness scales scores
and values, ``values="scaled"``; ``values="unit"`` uses ``M = I`` at inverse temperature
``beta``) up to time ``T``, and measure the **order parameter**

    phi = fraction of tokens that have another token at overlap >= 1 - eps

(the clustered fraction; ``eps = 0.02`` by default, about 11 degrees).  A diffuse start in
``d >= 8`` has ``phi ~ 0``; a condensed state has ``phi = 1``.  The mean pairwise overlap
``q = (|sum_i x_i|^2 - n) / (n (n - 1))`` is reported alongside (it tells one cluster from many).

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

from ..errors import DegenerateInputError, InvalidInputError
from .clusters import cluster_sizes, detect_clusters
from .equiangular import VALUE_CONVENTIONS
from .sphere import check_beta, random_tokens, simulate

__all__ = ["order_parameters", "condensed_state", "condensation_sweep", "critical_beta"]


def order_parameters(X, eps=0.02):
    """(clustered fraction ``phi``, mean pairwise overlap ``q``) of unit tokens ``X``."""
    X = np.asarray(X, dtype=float)
    n = len(X)
    s = X.sum(axis=0)
    q = (s @ s - n) / (n * (n - 1))
    phi = float((cluster_sizes(detect_clusters(X, 1 - eps)) > 1).mean())
    return phi, float(round(q, 15))


def condensed_state(beta, n, d, T, seed, values="scaled", dt=0.05):
    """The tokens at time ``T`` from the seeded Gaussian start (RK4, step ``min(dt, 0.2/beta)``)."""
    beta = check_beta(beta)
    if values not in VALUE_CONVENTIONS:
        raise InvalidInputError(f"values = {values!r}; use one of {', '.join(VALUE_CONVENTIONS)}")
    X = random_tokens(int(n), int(d), np.random.default_rng(seed))
    M, b = (beta * np.eye(d), 1.0) if values == "scaled" else (np.eye(d), beta)
    speed = beta if values == "scaled" else 1.0
    return simulate(X, M, b, T, dt=min(dt, 0.2 / speed), scheme="rk4", record_every=10 ** 9).final


def condensation_sweep(betas, n, d, T=5.0, seeds=(0, 1, 2), values="scaled", eps=0.02, progress=None):
    """Seed-averaged order parameters at each ``beta``: arrays ``(phi, q)`` of shape ``(len(betas),)``.

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

    Returns
    -------
    (beta_c, evaluations) : float and a list of ``(beta, phi, q)`` triples, in the order computed.

    Raises
    ------
    DegenerateInputError
        ``[lo, hi]`` does not bracket the crossing.
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
        if phi(mid) >= 0.5:
            hi = mid
        else:
            lo = mid
    return (lo + hi) / 2, evals
