"""The equiangular reduction: n tokens with all pairwise overlaps equal to rho.

With scalar heads ``M_h = m_h I`` the flow of :mod:`tropattn.dynamics._sphere` keeps an
equiangular configuration equiangular (every token sees the same picture up to a rotation),
and the common overlap obeys a scalar ODE.  For token ``i`` and ``k != i``,
``<P_i v_i, x_k> = m e^{beta m rho} (1 - rho)(1 + (n-1) rho) / Z`` with ``Z`` the
normaliser, and ``drho/dt = 2 <dx_i/dt, x_k>``, so

* SA:  ``drho/dt = sum_h 2 m_h e^{beta m_h rho} (1-rho)(1+(n-1)rho) / (e^{beta m_h} + (n-1) e^{beta m_h rho})``
* USA: ``drho/dt = sum_h 2 m_h e^{beta m_h rho} (1-rho)(1+(n-1)rho) / n``.

*Clustering time.*  ``T(rho_a -> rho_b) = int_{rho_a}^{rho_b} drho / f(rho)``.  With one head
``M = I`` and the sharpness in the score only, ``d/dbeta log f = -(1-rho) e^beta / (e^beta + (n-1)
e^{beta rho}) < 0``: ``T`` *increases* with ``beta`` for every ``beta > 0``.  With the sharpness in
the head, ``D = beta I`` (scores and values both scaled, the convention of
:mod:`tropattn.dynamics._wasserstein`: ``values="scaled"``), ``T`` is divided by ``beta``: it falls
like ``1/beta`` for small ``beta``, has a minimum near ``beta = ln(n-1)`` (where the self-weight
``e^beta`` overtakes the ``n-1`` others) and grows like ``e^{beta (1 - rho_a)} / beta^2`` beyond.

*Closed-form critical beta* (docs/THEORY.md, "Attention dynamics").  With ``D = beta I`` the SA rate at
overlap ``rho`` is ``2 (1-rho)(1+(n-1)rho) beta / (e^{beta (1-rho)} + n - 1)``; its ``beta``-derivative vanishes
where ``u = beta (1-rho)`` solves ``e^u (u - 1) = n - 1``, so

    beta_c(n, rho) = (1 + W((n-1)/e)) / (1 - rho)        (W the principal Lambert function)

maximises the clustering rate at ``rho`` (:func:`rate_maximising_beta`; ``~ ln(n-1) - ln ln(n-1) + 1`` for
large ``n``).  The fastest ``rho_a -> rho_b`` clustering (:func:`fastest_clustering_beta`, the measured knee
of ``T(beta)``) lies between ``beta_c(n, rho_a)`` and ``beta_c(n, rho_b)``.

>>> [round(clustering_time(b, 8, values="scaled"), 3) for b in (1.0, 3.5, 8.0)]   # a minimum in between
[1.971, 0.926, 5.817]
>>> [round(clustering_time(b, 8, values="unit"), 3) for b in (1.0, 3.5, 8.0)]     # increasing
[1.971, 3.241, 46.532]
"""

from __future__ import annotations

import math

import numpy as np

from .._lazy import lazy_import
from .._validate import bounded_float, choice
from ..errors import InvalidInputError
from ._sphere import MODES, check_beta, check_positive

__all__ = ["VALUE_CONVENTIONS", "rho_rate", "rho_trajectory", "equiangular_tokens", "clustering_time",
           "rate_maximising_beta", "fastest_clustering_beta"]

integrate = lazy_import("scipy.integrate")
special = lazy_import("scipy.special")
optimize = lazy_import("scipy.optimize")

#: ``"unit"``: head ``M = m I`` with the score ``beta m``; ``"scaled"``: the head is ``D = beta m I``.
VALUE_CONVENTIONS = ("unit", "scaled")


def _check_rho(rho, n, what="rho"):
    return bounded_float(rho, what, -1.0 / (n - 1), 1.0,
                         meaning=f"an equiangular overlap of {n} unit vectors, in [-1/(n-1), 1],")


def rho_rate(rho, beta, n, mode="sa", m=(1.0,)):
    """``drho/dt`` of the equiangular reduction (vectorised in ``rho``).

    Parameters
    ----------
    rho : float or array, the common overlap
    beta : float > 0
    n : int >= 2, the number of tokens
    mode : {"sa", "usa"}
    m : sequence of floats, the scalar heads ``M_h = m_h I``

    Returns
    -------
    numpy.ndarray
        ``drho/dt``, the shape of ``rho`` (0-d for a scalar).

    Raises
    ------
    InvalidInputError
        If ``mode`` is not ``"sa"`` or ``"usa"``.

    Examples
    --------
    >>> float(rho_rate(1.0, 1.0, 4))                  # a single cluster is a fixed point
    0.0
    >>> float(rho_rate(0.0, 1.0, 2, mode="usa"))        # 2 m (1-0)(1+0) / n
    1.0
    """
    rho = np.asarray(rho, dtype=float)
    out = np.zeros_like(rho)
    for mh in np.atleast_1d(np.asarray(m, dtype=float)):
        core = 2 * mh * (1 - rho) * (1 + (n - 1) * rho)
        if mode == "sa":   # e^{b rho} / (e^b + (n-1) e^{b rho}) = 1 / (e^{b (1-rho)} + n - 1)
            out = out + core / (np.exp(beta * mh * (1 - rho)) + n - 1)
        elif mode == "usa":
            out = out + core * np.exp(beta * mh * rho) / n
        else:
            choice(mode, "mode", MODES)
    return out


def rho_trajectory(rho0, beta, n, T, mode="sa", m=(1.0,), t_eval=None):
    """Solve the scalar ODE from ``rho0`` on ``[0, T]`` (scipy ``solve_ivp``, rtol 1e-11).

    Parameters
    ----------
    rho0 : float
        Initial overlap, in ``[-1/(n-1), 1]``.
    beta : float
        Inverse temperature (> 0).
    n : int
        Number of tokens (>= 2).
    T : float
        Final time (> 0).
    mode : {"sa", "usa"}, optional
        The normalisation.
    m : sequence of float, optional
        The scalar heads.
    t_eval : array_like, optional
        Sample times (default: the solver's steps).

    Returns
    -------
    (times, rho) ndarrays.

    Raises
    ------
    InvalidInputError
        If ``beta``, ``T`` or ``rho0`` is out of range, or ``mode`` is unknown.

    Examples
    --------
    >>> t, r = rho_trajectory(0.0, 1.0, 8, 2.0)
    >>> bool(0 < r[-1] < 1)
    True
    """
    beta, T = check_beta(beta), check_positive(T, "T", "the time horizon")
    rho0 = _check_rho(rho0, n, "rho0")
    sol = integrate.solve_ivp(lambda _, r: rho_rate(r, beta, n, mode, m), (0.0, T), [rho0], t_eval=t_eval,
                    rtol=1e-11, atol=1e-13, method="DOP853")
    return sol.t, sol.y[0]


def equiangular_tokens(n, rho):
    """``n`` unit vectors in ``R^n`` with all pairwise overlaps ``rho`` (a scaled simplex plus an axis).

    ``x_i = a e_i + c (1,...,1)`` with ``a^2 = 1 - rho`` and ``c`` chosen so ``|x_i| = 1``.

    Parameters
    ----------
    n : int
        Number of tokens (>= 2).
    rho : float
        The common overlap, in ``[-1/(n-1), 1]``.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, n)``, unit rows with Gram matrix ``(1 - rho) I + rho 11^T``.

    Raises
    ------
    InvalidInputError
        If ``rho`` is outside ``[-1/(n-1), 1]``.

    Examples
    --------
    >>> X = equiangular_tokens(4, 0.25)
    >>> bool(np.allclose(X @ X.T, 0.75 * np.eye(4) + 0.25))
    True
    """
    rho = _check_rho(rho, n)
    a = math.sqrt(1 - rho)
    # |x|^2 = a^2 + 2ac + n c^2 = 1  ->  n c^2 + 2 a c - rho = 0
    c = (-a + math.sqrt(a * a + n * rho)) / n
    return a * np.eye(n) + c


def clustering_time(beta, n, rho_a=0.1, rho_b=0.9, mode="sa", m=1.0, values="unit"):
    """Time for the equiangular overlap to grow from ``rho_a`` to ``rho_b`` (one head ``m I``).

    ``values="unit"``: head ``M = m I`` at inverse temperature ``beta``; ``values="scaled"``:
    the head is ``D = beta m I`` (time divided by ``beta m``).  Computed by ``scipy.integrate.quad``
    of ``1/f``; ``f > 0`` on ``(-1/(n-1), 1)``.

    Parameters
    ----------
    beta : float
        Inverse temperature (> 0).
    n : int
        Number of tokens (>= 2).
    rho_a, rho_b : float, optional
        Start and end overlaps, ``rho_a < rho_b < 1`` (default 0.1 and 0.9).
    mode : {"sa", "usa"}, optional
        The normalisation.
    m : float, optional
        The scalar head.
    values : {"unit", "scaled"}, optional
        Where the sharpness sits (see above).

    Returns
    -------
    float
        ``T(rho_a -> rho_b)``.

    Raises
    ------
    InvalidInputError
        If ``beta`` is bad, the overlaps are out of range or out of order, or ``mode``/``values`` is unknown.

    Examples
    --------
    >>> t_unit = clustering_time(1.0, 8, mode="usa")
    >>> bool(np.isclose(clustering_time(1.0, 8, mode="usa", values="scaled"), t_unit))   # beta m = 1
    True
    """
    beta = check_beta(beta)
    rho_a, rho_b = _check_rho(rho_a, n, "rho_a"), _check_rho(rho_b, n, "rho_b")
    if not rho_a < rho_b < 1:
        raise InvalidInputError(f"need rho_a < rho_b < 1; got {rho_a:g}, {rho_b:g}")
    choice(values, "values", VALUE_CONVENTIONS)
    # f(rho) carries a factor e^{-beta m (1 - rho)}: integrate e^{-...}-scaled to keep quad accurate
    val, _ = integrate.quad(lambda r: 1.0 / float(rho_rate(r, beta, n, mode, (m,))), rho_a, rho_b, epsabs=0, epsrel=1e-10,
                  limit=200)
    return val / (beta * m) if values == "scaled" else val


def rate_maximising_beta(n, rho=0.0):
    """``beta_c(n, rho) = (1 + W((n-1)/e)) / (1 - rho)``: the ``beta`` of ``D = beta I`` that maximises the SA
    equiangular clustering rate at overlap ``rho`` (closed form, Lambert ``W``).

    Parameters
    ----------
    n : int
        Number of tokens (>= 2).
    rho : float, optional
        The overlap, in ``[-1/(n-1), 1)``.

    Returns
    -------
    float

    Examples
    --------
    >>> b = rate_maximising_beta(8)
    >>> round(b, 6), round(float(np.exp(b) * (b - 1)), 9)          # e^u (u - 1) = n - 1
    (1.973139, 7.0)
    """
    rho = _check_rho(rho, n)
    if rho >= 1:
        raise InvalidInputError("rho = 1; the rate vanishes at a single cluster (give rho < 1)")
    return float((1 + special.lambertw((n - 1) / math.e).real) / (1 - rho))


def fastest_clustering_beta(n, rho_a=0.1, rho_b=0.9, lo=0.05, hi=60.0):
    """The ``beta`` minimising the ``rho_a -> rho_b`` clustering time with ``D = beta I`` (SA), by a bounded
    scalar minimisation of :func:`clustering_time` in ``ln beta`` (the measured knee).

    Examples
    --------
    >>> b = fastest_clustering_beta(8)
    >>> rate_maximising_beta(8, 0.1) < b < rate_maximising_beta(8, 0.9)
    True
    """
    res = optimize.minimize_scalar(lambda s: clustering_time(math.exp(s), n, rho_a, rho_b, "sa", values="scaled"),
                                   bounds=(math.log(lo), math.log(hi)), method="bounded",
                                   options={"xatol": 1e-9})
    return float(math.exp(res.x))
