r"""Bounds of docs/THEORY.md §5: how far soft attention may stray from its hard skeleton.

With the score margin ``Delta(x) = s_{j*}(x) - max_{j != j*} s_j(x) > 0`` and ``p* = p_{j*}``:

* weights   ``e^{-Delta/tau} / (1 + (N-1) e^{-Delta/tau}) <= 1 - p* <= (N-1) e^{-Delta/tau}``
  (:func:`weight_bounds`);
* output    ``||y_tau - v_{j*}|| <= (1 - p*) max_j ||v_j - v_{j*}||`` (:func:`output_bound`);
* Jacobian  ``||J_tau||_2 <= (1 - p*) D_V D_A / tau`` with ``D_V = max_{j,l} ||v_j - v_l||``
  and ``D_A = max_j ||a_j - a_{j*}||``, while the hard map has ``J_0 = 0`` inside a cell
  (:func:`jacobian_bound`);
* a point at distance ``>= delta`` from every wall of its cell has
  ``Delta >= delta * min_{j != j*} ||a_j - a_{j*}||`` (:func:`delta_region_bounds`), so the
  defects are exponentially small outside a band of width about
  ``tau log(N / eps) / ||a_j - a_l||`` around the walls (:func:`predicted_band_width`).

Every bound can be taken in log space (``log=True``): ``e^{-Delta/tau}`` underflows float64
long before its logarithm does.

>>> lower, upper = weight_bounds(2.0, 1.0, 2)          # N = 2: the lower bound is attained
>>> bool(np.isclose(lower, 1 / (1 + np.exp(2.0)))), bool(np.isclose(upper, np.exp(-2.0)))
(True, True)
"""

from __future__ import annotations

import math

import numpy as np

from .._doc import fill_doc
from .._validate import positive_float, positive_int
from ..attention import as_heads
from ._kernel import DOC, check_tau, raw_temperature

__all__ = ["weight_bounds", "output_bound", "jacobian_bound", "delta_region_bounds", "predicted_band_width"]


@fill_doc(**DOC)
def weight_bounds(margin, tau, n_keys, *, log=False, sharp=False):
    """Bounds on the weight defect ``1 - p*`` from the margin (docs/THEORY.md §5).

    ``lower = e^{-Delta/tau} / (1 + (N-1) e^{-Delta/tau})`` and
    ``upper = (N-1) e^{-Delta/tau}``.  Both come from ``1 - p* = t / (1 + t)`` with
    ``t = sum_{j != j*} e^{-(s_{j*} - s_j)/tau}`` in ``[e^{-Delta/tau}, (N-1) e^{-Delta/tau}]``;
    ``sharp=True`` returns the attained bounds ``e/(1+e)`` and ``(N-1)e/(1+(N-1)e)``
    (``e = e^{-Delta/tau}``: one loser at the margin, or all losers tied there).
    With ``log=True`` both are natural logarithms (no underflow).

    Parameters
    ----------
    margin : float or array_like
        Score margin(s) ``Delta >= 0`` (raw score units; ``inf`` gives 0).
    tau : float
        Temperature on the same scores, finite and ``>= TAU_MIN``.
    n_keys : int
        Number of keys ``N >= 1``.
    log : bool, optional
        Return ``(ln lower, ln upper)`` (default False).
    sharp : bool, optional
        Return the attained bounds instead of the simple ones (default False).

    Returns
    -------
    tuple of numpy.ndarray
        ``(lower, upper)``, each of the shape of ``margin``; both 0 (or ``-inf`` with
        ``log=True``) when ``N = 1``.

    Raises
    ------
    InvalidInputError
        ``tau`` is not a finite number ``>= TAU_MIN``, or ``n_keys < 1``.

    Examples
    --------
    >>> lo, hi = weight_bounds(2.0, 1.0, 2)          # N = 2: lower = 1/(1 + e^2)
    >>> bool(np.isclose(lo, 1 / (1 + np.exp(2.0)))), bool(np.isclose(hi, np.exp(-2.0)))
    (True, True)
    >>> [round(float(v), 6) for v in weight_bounds(2.0, 1.0, 3, sharp=True)]   # e/(1+e), 2e/(1+2e), e = e^{-2}
    [0.119203, 0.213014]
    >>> [float(v) for v in weight_bounds(2000.0, 1.0, 2, log=True)]  # e^{-2000}: only its log is a float
    [-2000.0, -2000.0]
    """
    x = -np.asarray(margin, dtype=float) / check_tau(tau)
    n_keys = positive_int(n_keys, "n_keys", meaning="the number of keys of a head")
    if n_keys == 1:
        z = np.full(np.shape(x), -np.inf)
        return (z, z) if log else (np.exp(z), np.exp(z))
    ln1 = math.log(n_keys - 1)
    lower = x - np.logaddexp(0.0, x + (0.0 if sharp else ln1))
    upper = ln1 + x - (np.logaddexp(0.0, ln1 + x) if sharp else 0.0)
    return (lower, upper) if log else (np.exp(lower), np.exp(upper))


@fill_doc(**DOC)
def output_bound(weight, spread, *, log=False):
    """Output bound ``||y_tau - v_{j*}|| <= weight * max_j ||v_j - v_{j*}||``.

    ``weight`` is ``1 - p*`` itself or any upper bound on it, such as
    ``(N-1) e^{-Delta/tau}`` from :func:`weight_bounds`; ``spread`` is
    ``max_j ||v_j - v_{j*}||`` (``HeadArrays.value_spread[j*]``).  With ``log=True``,
    ``weight`` is ``ln(1 - p*)`` (or the log of the bound) and the result is a log.

    Parameters
    ----------
    weight : float or array_like
        ``1 - p*`` or an upper bound on it (its natural log with ``log=True``).
    spread : float or array_like
        ``max_j ||v_j - v_{j*}||``, broadcast against ``weight``.
    log : bool, optional
        Logarithmic input and output (default False).

    Returns
    -------
    numpy.ndarray
        ``weight * spread`` (or ``weight + ln spread``), broadcast.

    Examples
    --------
    >>> float(output_bound(0.25, 4.0))
    1.0
    >>> float(output_bound(np.log(0.25), 4.0, log=True)) == float(np.log(1.0))
    True
    """
    if log:
        return np.asarray(weight, dtype=float) + np.log(np.asarray(spread, dtype=float))
    return np.asarray(weight, dtype=float) * np.asarray(spread, dtype=float)


@fill_doc(**DOC)
def jacobian_bound(weight, value_diameter, key_spread, tau, *, log=False):
    """Jacobian bound ``||J_tau - J_0||_2 <= weight * D_V * D_A / tau`` (``J_0 = 0`` in a cell).

    ``weight`` is ``1 - p*`` or an upper bound on it, ``value_diameter`` is
    ``D_V = max_{j,l} ||v_j - v_l||`` and ``key_spread`` is ``D_A = max_j ||a_j - a_{j*}||``.
    With ``log=True`` ``weight`` and the result are natural logarithms.

    Parameters
    ----------
    weight : float or array_like
        ``1 - p*`` or an upper bound on it (its natural log with ``log=True``).
    value_diameter : float or array_like
        ``D_V``.
    key_spread : float or array_like
        ``D_A`` of the winning key (``HeadArrays.key_spread[j*]``).
    tau : float
        The temperature of the scores the margin is measured in, finite and ``>= TAU_MIN``.
    log : bool, optional
        Logarithmic ``weight`` and result (default False).

    Returns
    -------
    numpy.ndarray
        ``weight * D_V * D_A / tau`` (or its log), broadcast.

    Raises
    ------
    InvalidInputError
        ``tau`` is not a finite number ``>= TAU_MIN``.

    Examples
    --------
    >>> float(jacobian_bound(0.5, 2.0, 3.0, 0.5))
    6.0
    """
    t = check_tau(tau)
    factor = np.asarray(value_diameter, dtype=float) * np.asarray(key_spread, dtype=float) / t
    if log:
        return np.asarray(weight, dtype=float) + np.log(factor)
    return np.asarray(weight, dtype=float) * factor


@fill_doc(**DOC)
def delta_region_bounds(heads, tau, delta, labels=None) -> dict:
    """Uniform bounds on the defects over all points at distance ``>= delta`` from the walls.

    Such a point has ``Delta >= min(delta g_{j*}, t_{j*})`` with ``g_j`` the key gap
    and ``t_j`` the tie gap of :class:`HeadArrays`, so the pointwise margin bounds hold
    with that margin.  ``labels`` (per head, an iterable of key indices) restricts the
    maximum to cells that occur; default: every key.

    Parameters
    ----------
    %(heads)s
    %(tau)s
    delta : float
        Distance from the walls, ``>= 0`` (not checked: a negative ``delta`` gives bounds
        for a negative margin, which may exceed 1).
    labels : sequence of iterables of int, optional
        Per head, the keys whose cells the maximum runs over.

    Returns
    -------
    dict
        ``{"weights", "output", "jacobian"}``: the largest weight bound over the heads,
        and the sums over heads of the output and Jacobian bounds (floats).

    Raises
    ------
    InvalidInputError
        A head :func:`~tropattn.attention.as_heads` cannot read, or a bad ``tau``.

    Examples
    --------
    >>> b = delta_region_bounds(([[1], [-1]],), 0.5, 1.0)    # Delta >= 2: e^{-4}
    >>> bool(np.isclose(b["weights"], np.exp(-4.0)))
    True
    >>> e = np.exp(-4.0)                                    # values = keys: M = D_V = D_A = 2
    >>> bool(np.isclose(b["output"], 2 * e)), bool(np.isclose(b["jacobian"], e * 2 * 2 / 0.5))
    (True, True)
    """
    hs = as_heads(heads)
    out = {"weights": 0.0, "output": 0.0, "jacobian": 0.0}
    for i, h in enumerate(hs):
        t = raw_temperature(h, tau)
        js = ([j for j in range(h.N) if h.tie_gap[j] > 0] if labels is None  # others never win alone
              else sorted(set(int(j) for j in labels[i])))
        marg = np.array([min(delta * h.key_gap[j] if np.isfinite(h.key_gap[j]) else np.inf, h.tie_gap[j])
                         for j in js])
        _, up = weight_bounds(marg, t, h.N)
        idx = np.array(list(js), dtype=np.intp)
        out["weights"] = max(out["weights"], float(np.max(up)))
        out["output"] += float(np.max(output_bound(up, h.value_spread[idx])))
        out["jacobian"] += float(np.max(jacobian_bound(up, h.value_diameter, h.key_spread[idx], t)))
    return out


@fill_doc(**DOC)
def predicted_band_width(heads, tau, eps) -> float:
    """Width of the band around the walls outside which the output defect is ``< eps``.

    From ``sum_h (N_h-1) e^{-Delta_h/tau} M_h <= eps``: a point whose defect exceeds
    ``eps`` has, in some head, ``Delta_h < tau ln(H (N_h-1) M_h / eps)``, hence lies
    within ``tau ln(H (N_h-1) M_h / eps) / g_h`` of a wall (``g_h`` = smallest gap
    between distinct keys; ``M_h`` = largest value spread).  For one head with
    unit values this is ``tau ln((N-1)/eps) / min ||a_j - a_l||``, the ``tau log(N/eps)``
    width of docs/THEORY.md §5.  ``inf`` when a repeated key's tie gap is below the threshold.

    Parameters
    ----------
    %(heads)s
    %(tau)s
    eps : float
        The defect threshold, ``> 0``.

    Returns
    -------
    float
        The band half-width (0 if no defect can reach ``eps``; ``inf`` as above).

    Raises
    ------
    InvalidInputError
        ``eps <= 0`` or NaN, a bad ``tau``, or a head :func:`~tropattn.attention.as_heads` cannot read.

    Examples
    --------
    >>> w = predicted_band_width(([[1], [-1]], None, [[0], [1]]), 0.1, 1e-3)   # 0.1 ln(1000) / 2
    >>> round(w, 6)
    0.345388
    >>> predicted_band_width(([[1], [-1]], None, [[0], [1]]), 0.1, 2.0)       # eps above D_V: no band
    0.0
    """
    hs = as_heads(heads)
    eps = positive_float(eps, "eps", meaning="the defect threshold")
    width = 0.0
    for h in hs:
        if h.N == 1 or h.value_diameter == 0:
            continue
        thresh = raw_temperature(h, tau) * math.log(len(hs) * (h.N - 1) * h.value_diameter / eps)
        if thresh <= 0:
            continue
        if np.min(h.tie_gap[h.tie_gap > 0], initial=np.inf) < thresh:  # a key that wins over its twin
            return math.inf
        width = max(width, thresh / float(np.min(h.key_gap)))
    return width
