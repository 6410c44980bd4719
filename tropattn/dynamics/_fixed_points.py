"""Clustered stationary states of the SA flow, their stability, and the suppression of inter-cluster attention.

A *clustered state* puts ``sizes[a]`` tokens exactly on each of ``k`` unit centres ``c_a``.  It is stationary
when every centre feels no tangent force: ``P_{c_a} sum_b s_b e^{beta <c_a, M c_b>} M c_b = 0`` (the token's
own cluster included; weights normalised or not, the zero set is the same).  :func:`find_clustered_state`
solves these ``k d`` equations from random centres (``scipy.optimize.least_squares`` on unnormalised
representatives), from a few macroscopic clusters (``k`` small, large sizes) to many small ones.

*Stability* is the spectrum of the Jacobian of the flow restricted to the tangent bundle
``T_X (S^{d-1})^n`` (:func:`tangent_jacobian`: central differences in an orthonormal tangent frame).  It
splits in two: *intra-cluster* modes (a token leaving its cluster is pulled back at a rate of order 1) and
*inter-cluster* modes, whose rates are carried by the attention between clusters, of order
``e^{-beta Delta}`` with ``Delta`` the overlap gap (1 minus the largest inter-cluster overlap).  The slow
modes may be unstable (two antipodal clusters, a regular simplex: saddles of the energy), but their rates
are exponentially small, so the clustered state is metastable, with a lifetime growing like
``e^{beta Delta}`` (:func:`slow_rate`; for the simplex ``Delta = k/(k-1)``).  For random centres in ``R^d`` the largest inter-cluster overlap is
``O(sqrt(log k / d))``, so ``Delta -> 1`` and the inter-cluster attention mass falls to
``~ (n - n_a)/n_a e^{-beta}`` (:func:`suppression_in_d`).

>>> C, res = find_clustered_state(3, 3, 4.0, [4, 4, 4], seed=0)
>>> C.shape, res < 1e-10
((3, 3), True)
"""

from __future__ import annotations

import numpy as np

from .._lazy import lazy_import
from .._validate import positive_int
from ..errors import DegenerateInputError
from ._clusters import inter_cluster_mass, mass_bound, overlap_gap
from ._sphere import check_beta, random_tokens, velocity

__all__ = ["cluster_configuration", "simplex_centres", "find_clustered_state", "tangent_frame", "tangent_jacobian", "slow_rate",
           "spectrum_summary", "suppression_in_d"]

optimize = lazy_import("scipy.optimize")


def cluster_configuration(centres, sizes):
    """Tokens ``X`` and labels: ``sizes[a]`` copies of the unit centre ``centres[a]``.

    Parameters
    ----------
    centres : (k, d) array_like
        Unit centres.
    sizes : sequence of int
        Tokens per centre.

    Returns
    -------
    X : numpy.ndarray
        ``(sum sizes, d)``.
    labels : numpy.ndarray
        Cluster of each token.

    Examples
    --------
    >>> X, lab = cluster_configuration(np.eye(2), [2, 1])
    >>> X.tolist(), lab.tolist()
    ([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [0, 0, 1])
    """
    C = np.asarray(centres, dtype=float)
    lab = np.repeat(np.arange(len(C)), np.asarray(sizes, dtype=int))
    return C[lab].copy(), lab


def _centre_force(Y, sizes, beta, M):
    C = Y / np.linalg.norm(Y, axis=1, keepdims=True)
    MC = C @ M.T
    S = beta * (C @ MC.T)
    W = np.asarray(sizes, float)[None, :] * np.exp(S - S.max(axis=1, keepdims=True))
    U = (W / W.sum(axis=1, keepdims=True)) @ MC
    return C, U - np.einsum("ad,ad->a", U, C)[:, None] * C


def simplex_centres(k, d):
    """``k <= d + 1`` unit centres of a regular simplex centred at 0 in ``R^d`` (pairwise overlap ``-1/(k-1)``):
    stationary for equal sizes, by symmetry, at every ``beta``.

    Examples
    --------
    >>> C = simplex_centres(3, 2)
    >>> np.round(C @ C.T, 12).tolist()
    [[1.0, -0.5, -0.5], [-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0]]
    """
    k, d = positive_int(k, "k", 2, "the number of centres"), positive_int(d, "d", 2, "the dimension")
    if k > d + 1:
        raise DegenerateInputError(f"k = {k} > d + 1 = {d + 1}; a regular simplex with k vertices needs d >= k - 1")
    E = np.eye(k) - 1.0 / k                                  # centred basis vectors of R^k, rank k - 1
    U, _, _ = np.linalg.svd(E)
    C = E @ U[:, :k - 1]                                     # coordinates in the (k-1)-dim span
    C /= np.linalg.norm(C, axis=1, keepdims=True)
    return np.c_[C, np.zeros((k, d - (k - 1)))]


def find_clustered_state(k, d, beta, sizes, seed=0, M=None, start=None):
    """Centres of a stationary clustered state with ``k`` clusters of the given sizes (least squares).

    Parameters
    ----------
    k, d : int
        Number of clusters and dimension.
    beta : float
        Inverse temperature.
    sizes : sequence of int
        Tokens per cluster (``k`` entries).
    seed : int, optional
        Seed of the random initial centres.
    M : (d, d) ndarray, optional
        The (single, symmetric) head; default ``I``.
    start : (k, d) array_like, optional
        Initial centres instead of random ones (e.g. a perturbed :func:`simplex_centres`).

    Returns
    -------
    centres : numpy.ndarray
        ``(k, d)`` unit centres.
    residual : float
        ``max_a |P_{c_a} u_a|`` at the solution (the tangent force; the solve works on it scaled by
        ``e^{beta Delta_0}``, ``Delta_0`` the gap of the start, since the forces are exponentially small).

    Raises
    ------
    DegenerateInputError
        Two centres merged (the solve fell onto fewer clusters).

    Examples
    --------
    >>> C, res = find_clustered_state(2, 2, 3.0, [3, 3])          # two equal clusters on the circle: antipodal
    >>> round(float(C[0] @ C[1]), 9), res < 1e-12
    (-1.0, True)
    """
    k, d = positive_int(k, "k", 1, "the number of clusters"), positive_int(d, "d", 2, "the dimension")
    beta = check_beta(beta)
    if len(sizes) != k:
        raise DegenerateInputError(f"sizes has {len(sizes)} entries; give one size per cluster (k = {k})")
    M = np.eye(d) if M is None else np.asarray(M, dtype=float)
    Y0 = random_tokens(k, d, np.random.default_rng(seed)) if start is None else np.array(start, dtype=float)

    C0 = Y0 / np.linalg.norm(Y0, axis=1, keepdims=True)
    top = (C0 @ C0.T - 2 * np.eye(k)).max() if k > 1 else -1.0
    scale = np.exp(beta * (1 - top))                     # the forces are of order e^{-beta Delta}: solve them at O(1)

    def resid(y):
        return scale * _centre_force(y.reshape(k, d), sizes, beta, M)[1].ravel()

    sol = optimize.least_squares(resid, Y0.ravel(), xtol=1e-15, ftol=1e-15, gtol=1e-15, max_nfev=2000)
    C, F = _centre_force(sol.x.reshape(k, d), sizes, beta, M)
    if k > 1 and (C @ C.T - 2 * np.eye(k)).max() > 1 - 1e-6:
        raise DegenerateInputError(f"the solve merged two of the {k} centres; try another seed or a larger beta")
    return C, float(np.abs(F).max())


def tangent_frame(X):
    """An orthonormal basis of ``T_{x_i} S^{d-1}`` at each token, shape ``(n, d, d-1)``.

    Examples
    --------
    >>> B = tangent_frame(np.array([[0.0, 0.0, 1.0]]))
    >>> B.shape, bool(np.allclose(B[0].T @ [0.0, 0.0, 1.0], 0))
    ((1, 3, 2), True)
    """
    n, d = X.shape
    out = np.empty((n, d, d - 1))
    for i, x in enumerate(X):
        Q, _ = np.linalg.qr(np.c_[x, np.eye(d)])
        out[i] = Q[:, 1:d]
    return out


def tangent_jacobian(X, M, beta, mode="sa", h=1e-6):
    """Eigenvalues of the flow's Jacobian on the tangent bundle at ``X`` (central differences, step ``h``).

    Parameters
    ----------
    X : (n, d) ndarray
        Unit tokens (a stationary state, for a stability statement).
    M : (d, d) or (H, d, d) ndarray
        Symmetric heads.
    beta : float
        Inverse temperature.
    mode : {"sa", "usa"}, optional
        The flow.
    h : float, optional
        Difference step.

    Returns
    -------
    numpy.ndarray
        The ``n (d - 1)`` eigenvalues, sorted by real part (descending).

    Examples
    --------
    >>> X, _ = cluster_configuration(np.array([[1.0, 0.0], [-1.0, 0.0]]), [2, 2])
    >>> ev = tangent_jacobian(X, np.eye(2), 4.0)       # antipodal clusters: a saddle, its unstable rate ~ 2 e^(-2 beta)
    >>> round(float(ev.real.max() / np.exp(-8.0)), 2), int((ev.real < -0.5).sum())
    (2.0, 2)
    """
    n, d = X.shape
    B = tangent_frame(X)
    cols = []
    for i in range(n):
        for a in range(d - 1):
            E = np.zeros_like(X)
            E[i] = h * B[i, :, a]
            Vp = velocity(_retract(X + E), M, beta, mode)
            Vm = velocity(_retract(X - E), M, beta, mode)
            cols.append(np.einsum("ida,id->ia", B, (Vp - Vm) / (2 * h)).ravel())
    ev = np.linalg.eigvals(np.array(cols).T)
    return ev[np.argsort(-ev.real)]


def _retract(Y):
    return Y / np.linalg.norm(Y, axis=1, keepdims=True)


def slow_rate(eigenvalues, cut=0.05):
    """The largest ``|lambda|`` among the slow (inter-cluster) modes ``|lambda| < cut``, or 0 if there are none.

    Examples
    --------
    >>> slow_rate(np.array([-1.0, -0.9, 1e-4, -3e-4]))
    0.0003
    """
    lam = np.abs(np.asarray(eigenvalues))
    slow = lam[lam < cut]
    return float(slow.max()) if slow.size else 0.0


def spectrum_summary(eigenvalues, cut=0.05, zero=1e-9):
    """Counts of a tangent spectrum: unstable modes (``Re > zero``), fast stable modes (``Re < -cut``), the slow
    rate (:func:`slow_rate`) and the largest real part.

    Examples
    --------
    >>> spectrum_summary(np.array([-1.0, -0.9, 1e-4, 0.0]))
    {'unstable_modes': 1, 'stable_fast_modes': 2, 'slow_rate': 0.0001, 'max_real_eigenvalue': 0.0001}
    """
    ev = np.asarray(eigenvalues)
    return {"unstable_modes": int((ev.real > zero).sum()), "stable_fast_modes": int((ev.real < -cut).sum()),
            "slow_rate": slow_rate(ev, cut), "max_real_eigenvalue": float(ev.real.max())}


def suppression_in_d(dims, k, size, beta, seeds=(0, 1, 2)):
    """Seed means, per dimension, of the overlap gap, the largest inter-cluster attention mass and its bound,
    for ``k`` clusters of ``size`` tokens on random centres.

    Parameters
    ----------
    dims : sequence of int
        Dimensions.
    k, size : int
        Clusters and tokens per cluster.
    beta : float
        Inverse temperature.
    seeds : sequence of int, optional
        Random centres.

    Returns
    -------
    dict
        ``{"d", "gap", "mass", "bound"}``: lists aligned with ``dims``.

    Examples
    --------
    >>> s = suppression_in_d([2, 64], 4, 3, 8.0)
    >>> s["gap"][0] < s["gap"][1] and s["mass"][0] > s["mass"][1]
    True
    """
    beta = check_beta(beta)
    out = {"d": [], "gap": [], "mass": [], "bound": []}
    for d in dims:
        g, m, b = [], [], []
        for s in seeds:
            X, lab = cluster_configuration(random_tokens(k, int(d), np.random.default_rng(s)), [size] * k)
            g.append(overlap_gap(X, lab))
            m.append(float(inter_cluster_mass(X, lab, beta).max()))
            b.append(float(mass_bound(X, lab, beta).max()))
        for key, v in zip(("d", "gap", "mass", "bound"), (int(d), np.mean(g), np.mean(m), np.mean(b))):
            out[key].append(v if key == "d" else float(v))
    return out
