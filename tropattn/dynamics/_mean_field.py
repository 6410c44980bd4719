"""The noisy USA model on ``S^{d-1}`` and its McKean-Vlasov limit: stationary states, branches, particles.

**The model and its one convention.**  ``n`` particles follow

    dx_i = P_i( (1/n) sum_j e^{beta <x_i, x_j>} x_j ) dt + sqrt(2/K) dB_i        (on the sphere),

so the density obeys ``d_t mu = div(mu grad(W * mu)) ... `` -- precisely the Wasserstein gradient flow of

    F(mu) = (1/K) int mu log mu  -  (1/(2 beta)) int int e^{beta <x, y>} dmu(x) dmu(y)

(the noise has generator ``(1/K) Laplacian``; ``K`` is an inverse temperature of the noise).  Stationary
states solve ``mu = exp((K/beta) Phi) / Z`` with ``Phi(x) = int e^{beta <x, y>} dmu(y)``.  Expanding ``F``
to second order at the uniform measure ``sigma`` along a degree-``l`` spherical harmonic ``f``:
``F(sigma (1 + eps f)) - F(sigma) = (eps^2 / 2) (1/K - lambda_l / beta) int f^2 dsigma``, with the Funk-Hecke
eigenvalue ``lambda_l = Gamma(d/2) (2/beta)^{d/2-1} I_{l+d/2-1}(beta)`` of the kernel.  ``l = 1`` goes first,
so the uniform state loses stability at

    K#(beta) = beta / lambda_1 = 2^{1-d/2} beta^{d/2} / (Gamma(d/2) I_{d/2}(beta)),     K# -> d as beta -> 0

(:func:`tropattn.dynamics.k_sharp`).  This module checks it without Bessel functions: the nontrivial zonal
stationary states are solved on a Gauss-Jacobi grid of ``t = <x, e>`` (:func:`branch_coupling` gives the
``K`` of the state whose order parameter ``r = |int x dmu|`` is prescribed), and ``K(r) -> K#`` as
``r -> 0``.  The sign of ``(K(r) - K#) / r^2`` (:func:`landau_coefficient`) tells the branches apart:
positive, the ordered branch appears continuously at ``K#`` (``beta < beta*(d)``); negative, it is
subcritical and the transition is discontinuous, with hysteresis (``beta > beta*(d)``).
:func:`noisy_particles` simulates the particles (Euler-Maruyama on the sphere) for the comparison.

>>> round(k_sharp_quadrature(1e-3, 3), 3)            # K# -> d
3.0
"""

from __future__ import annotations

import math

import numpy as np

from .._lazy import lazy_import
from .._validate import positive_int
from ..errors import DegenerateInputError
from ._sphere import check_beta, check_positive, random_tokens

__all__ = ["zonal_kernel", "branch_coupling", "k_sharp_quadrature", "landau_coefficient", "stationary_order",
           "noisy_particles", "particle_order"]

special = lazy_import("scipy.special")
optimize = lazy_import("scipy.optimize")


def _grid(d, nodes):
    """Gauss-Jacobi nodes ``t`` and weights of the law of ``<x, e>`` under the uniform measure (sum 1)."""
    a = (d - 3) / 2
    t, w = special.roots_jacobi(nodes, a, a)
    return t, w / w.sum()


def zonal_kernel(beta, d, t):
    """``A[i, j]``: ``e^{beta <x, y>}`` averaged over ``y`` with ``<y, e> = t_j``, at ``<x, e> = t_i``.

    ``A = e^{beta t s} Gamma((d-1)/2) (2/a)^{(d-3)/2} I_{(d-3)/2}(a)`` with ``a = beta sqrt(1-t^2) sqrt(1-s^2)``
    (the average of ``e^{a u}`` over the law of the azimuthal cosine ``u``; ``cosh a`` for ``d = 2``).

    Parameters
    ----------
    beta : float
        Inverse temperature.
    d : int
        Dimension (``>= 2``).
    t : (m,) ndarray
        Cosines in ``(-1, 1)``.

    Returns
    -------
    numpy.ndarray
        Shape ``(m, m)``.

    Examples
    --------
    >>> A = zonal_kernel(1.0, 2, np.array([0.0]))             # d = 2, t = s = 0: cosh(1)
    >>> bool(np.isclose(A[0, 0], np.cosh(1.0)))
    True
    """
    nu = (d - 3) / 2
    s = np.sqrt(1 - t ** 2)
    a = beta * np.outer(s, s)
    log_bessel = np.log(special.ive(nu, a)) + a + nu * np.log(2 / a) + special.gammaln((d - 1) / 2)
    return np.exp(beta * np.outer(t, t) + log_bessel)


def _self_consistency(beta, d, nodes):
    t, w = _grid(d, nodes)
    A = zonal_kernel(beta, d, t)

    def T(rho, K):
        u = (K / beta) * (A @ (rho * w))
        e = np.exp(u - u.max())
        return e / (e @ w)
    return t, w, T


def branch_coupling(beta, d, r, nodes=48):
    """``K`` of the zonal stationary state whose order parameter ``int <x, e> dmu`` is ``r`` (a root solve).

    Parameters
    ----------
    beta : float
        Inverse temperature.
    d : int
        Dimension.
    r : float
        Order parameter in ``(0, 1)``.
    nodes : int, optional
        Gauss-Jacobi nodes.

    Returns
    -------
    float
        The coupling ``K`` on the nontrivial branch.

    Raises
    ------
    DegenerateInputError
        The root solve failed.

    Examples
    --------
    >>> round(branch_coupling(1.0, 2, 1e-3), 4)           # = K#(1) in d = 2: 1 / I_1(1)
    1.7694
    """
    beta, d = check_beta(beta), positive_int(d, "d", 2, "the dimension")
    t, w, T = _self_consistency(beta, d, nodes)

    def F(z):
        rho, K = np.exp(z[:-1]), z[-1]
        return np.r_[z[:-1] - np.log(T(rho, K)), (rho * t) @ w - r]

    z0 = np.r_[np.log(1 + d * r * t), beta / _lambda1_quadrature(beta, d, t, w)]   # rho ~ 1 + d r t
    sol = optimize.root(F, z0, method="hybr", options={"xtol": 1e-13})
    if not sol.success:
        sol = optimize.root(F, z0, method="lm", options={"xtol": 1e-14, "ftol": 1e-14})
    if not sol.success:
        raise DegenerateInputError(f"no zonal stationary state with r = {r:g} at beta = {beta:g}, d = {d}: "
                                   f"{sol.message}")
    return float(sol.x[-1])


def _lambda1_quadrature(beta, d, t, w):
    """``lambda_1`` by quadrature: ``int int e^{beta <x, y>} <x, e> <y, e> / int <x, e>^2`` over the grid."""
    A = zonal_kernel(beta, d, t)
    return float((t * w) @ A @ (t * w) / ((t * t) @ w))


def k_sharp_quadrature(beta, d, nodes=48):
    """``K#(beta) = beta / lambda_1`` with ``lambda_1`` by Gauss-Jacobi quadrature (no Bessel ratio).

    Parameters
    ----------
    beta : float
        Inverse temperature.
    d : int
        Dimension.
    nodes : int, optional
        Quadrature nodes.

    Returns
    -------
    float
        ``K#(beta)``.

    Examples
    --------
    >>> round(k_sharp_quadrature(1.0, 2), 4)
    1.7694
    """
    beta, d = check_beta(beta), positive_int(d, "d", 2, "the dimension")
    t, w = _grid(d, nodes)
    return beta / _lambda1_quadrature(beta, d, t, w)


def landau_coefficient(beta, d, r=0.02, nodes=48):
    """``(K(r) - K#) / r^2`` on the nontrivial branch: > 0 continuous, < 0 discontinuous (subcritical).

    Parameters
    ----------
    beta : float
        Inverse temperature.
    d : int
        Dimension.
    r : float, optional
        The small order parameter at which the branch is read.
    nodes : int, optional
        Quadrature nodes.

    Returns
    -------
    float

    Examples
    --------
    >>> landau_coefficient(1.0, 2) > 0 > landau_coefficient(5.0, 2)     # beta*(2) = 2.4469 in between
    True
    """
    return (branch_coupling(beta, d, r, nodes) - k_sharp_quadrature(beta, d, nodes)) / r ** 2


def stationary_order(beta, d, K, r0, nodes=48, iterations=4000, tol=1e-12):
    """The order parameter reached by the damped fixed-point iteration ``mu <- exp((K/beta) Phi)/Z`` from a
    zonal start of order parameter about ``r0`` (a stable stationary state: the one the particles see).

    Parameters
    ----------
    beta, K : float
        Inverse temperature and noise coupling.
    d : int
        Dimension.
    r0 : float
        Order parameter of the start (``rho ~ e^{c t}``); ``0`` is the uniform state.
    nodes, iterations, tol : optional
        Grid, iteration cap and stopping change.

    Returns
    -------
    float
        ``r`` of the state reached.

    Examples
    --------
    >>> K = k_sharp_quadrature(1.0, 2)
    >>> round(stationary_order(1.0, 2, 0.8 * K, 0.5), 6), stationary_order(1.0, 2, 1.5 * K, 0.5) > 0.3
    (0.0, True)
    """
    beta, K = check_beta(beta), check_positive(K, "K", "the noise coupling")
    t, w, T = _self_consistency(beta, positive_int(d, "d", 2, "the dimension"), nodes)
    rho = np.exp(3 * d * r0 * t)
    rho /= rho @ w
    for _ in range(iterations):
        new = 0.5 * rho + 0.5 * T(rho, K)
        if np.abs(new - rho).max() < tol:
            rho = new
            break
        rho = new
    return float(abs((rho * t) @ w))


def noisy_particles(n, d, beta, K, T, dt=0.02, seed=0, X0=None, progress=None):
    """Euler-Maruyama for the noisy USA particles: ``x <- normalise(x + v dt + sqrt(2 dt / K) P_x xi)``.

    Parameters
    ----------
    n, d : int
        Number of particles and dimension.
    beta, K : float
        Inverse temperature (``beta <= 700``: the USA weights are floats) and noise coupling.
    T, dt : float
        Horizon and step.
    seed : int, optional
        Seed of the start (uniform unless ``X0``) and of the noise.
    X0 : (n, d) ndarray, optional
        Start (unit rows).
    progress : callable, optional
        Called as ``progress(step, steps)``.

    Returns
    -------
    times : numpy.ndarray
        ``(steps + 1,)``.
    r : numpy.ndarray
        ``|mean_i x_i|`` at each time.
    X : numpy.ndarray
        The final particles.

    Examples
    --------
    >>> t, r, X = noisy_particles(50, 2, 1.0, 1.0, 1.0, seed=0)
    >>> len(t) == len(r) == 51 and X.shape == (50, 2)
    True
    """
    beta, K = check_beta(beta), check_positive(K, "K", "the noise coupling")
    T, dt = check_positive(T, "T", "the time horizon"), check_positive(dt, "dt", "the time step")
    if beta > 700:
        raise DegenerateInputError(f"beta = {beta:g}; the USA weights e^(beta <x, y>) overflow floats past 700")
    rng = np.random.default_rng(seed)
    X = random_tokens(int(n), int(d), rng) if X0 is None else np.array(X0, dtype=float)
    steps = max(1, int(round(T / dt)))
    dt = T / steps
    amp = math.sqrt(2 * dt / K)
    r = [float(np.linalg.norm(X.mean(axis=0)))]
    for k in range(steps):
        G = X @ X.T
        U = np.exp(beta * (G - 1)) @ X * (math.exp(beta) / len(X))
        xi = rng.standard_normal(X.shape)
        Y = U * dt + amp * xi
        Y -= np.einsum("id,id->i", Y, X)[:, None] * X
        X = X + Y
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        r.append(float(np.linalg.norm(X.mean(axis=0))))
        if progress is not None:
            progress(k + 1, steps)
    return np.linspace(0.0, T, steps + 1), np.array(r), X


def particle_order(n, d, beta, K, T, dt=0.02, seeds=(0, 1, 2), start="uniform", progress=None):
    """Mean and standard error over seeds of the time-averaged ``r`` (second half of ``[0, T]``).

    Parameters
    ----------
    n, d : int
        Number of particles and dimension.
    beta, K, T, dt : float
        As in :func:`noisy_particles`.
    seeds : sequence of int, optional
        Independent runs.
    start : {"uniform", "clustered"}, optional
        Uniform particles, or all at one point (the ordered side of a hysteresis loop).
    progress : callable, optional
        Called as ``progress(run, runs)``.

    Returns
    -------
    (mean, stderr) : floats

    Examples
    --------
    >>> m, s = particle_order(40, 2, 1.0, 5.0, 4.0, dt=0.05, seeds=(0, 1))
    >>> 0.3 < m < 1.0 and s >= 0
    True
    """
    vals = []
    for k, s in enumerate(seeds):
        X0 = np.tile(np.eye(d)[0], (int(n), 1)) if start == "clustered" else None
        _, r, _ = noisy_particles(n, d, beta, K, T, dt, s, X0)
        vals.append(float(r[len(r) // 2:].mean()))
        if progress is not None:
            progress(k + 1, len(seeds))
    return float(np.mean(vals)), float(np.std(vals, ddof=1) / math.sqrt(len(vals))) if len(vals) > 1 else 0.0
