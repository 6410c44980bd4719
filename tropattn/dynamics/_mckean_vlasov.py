"""Noisy USA on ``S^{d-1}``: the McKean-Vlasov threshold ``beta*(d)`` and the coupling ``K#(beta)``.

**One convention** (derived in :mod:`tropattn.dynamics._mean_field`): the particles follow
``dx_i = P_i((1/n) sum_j e^{beta <x_i, x_j>} x_j) dt + sqrt(2/K) dB_i`` on the sphere (noise generator
``(1/K) Laplacian``), the Wasserstein gradient flow of the McKean-Vlasov free energy
``F(mu) = (1/K) int log mu dmu - (1/(2 beta)) int int e^{beta <x, y>} dmu dmu``.  Its second variation at
the uniform measure along a degree-1 harmonic is ``1/K - lambda_1/beta`` with the Funk-Hecke eigenvalue
``lambda_1 = Gamma(d/2) (2/beta)^{d/2-1} I_{d/2}(beta)``, so the uniform measure loses linear stability at

    K#(beta) = beta / lambda_1 = 2^{1-d/2} beta^{d/2} / (Gamma(d/2) I_{d/2}(beta))

(``I_nu`` the modified Bessel function); as ``beta -> 0``, ``I_{d/2}(beta) ~ (beta/2)^{d/2}/Gamma(d/2+1)``
so ``K# -> d``.  (An earlier version returned half of this, ``K# -> d/2``: the free energy above and that
formula disagreed by the factor 2 of ``(1/2) int int``; the formula now follows the free energy, and the
zonal stationary states of :func:`tropattn.dynamics.branch_coupling` bifurcate from it.)  The ordered branch
is continuous for ``beta < beta*(d)`` and discontinuous (subcritical) beyond; ``beta*(d)`` solves
``I_{d/2+1}(beta) / I_{d/2}(beta) = 1/d`` (the sign change of
:func:`tropattn.dynamics.landau_coefficient`).
Both are computed with ``scipy.special.ive`` (exponentially scaled Bessel functions: the ratio
and ``log I = log ive + beta`` never overflow) and ``brentq``.

>>> round(critical_beta_star(2), 4), round(critical_beta_star(3), 4)
(2.4469, 1.8162)
>>> round(k_sharp(1e-8, 3), 6)                       # K# -> d
3.0
"""

from __future__ import annotations

import math


from .._lazy import lazy_import
from .._validate import positive_int
from ..errors import InvalidInputError
from ._sphere import check_beta

__all__ = ["bessel_ratio", "critical_beta_star", "k_sharp"]

special = lazy_import("scipy.special")
optimize = lazy_import("scipy.optimize")


def _check_d(d):
    return positive_int(d, "d", minimum=2, meaning="the dimension of the sphere S^(d-1)")


def bessel_ratio(beta, nu):
    """``I_{nu+1}(beta) / I_nu(beta)`` from exponentially scaled Bessel functions.

    Parameters
    ----------
    beta : float
        The argument (>= 0).
    nu : float
        The order.

    Returns
    -------
    float
        The ratio, in ``[0, 1)``.

    Examples
    --------
    >>> round(bessel_ratio(1e-6, 1.0) / 1e-6, 6)       # ~ beta / (2 (nu + 1)) as beta -> 0
    0.25
    """
    return float(special.ive(nu + 1, beta) / special.ive(nu, beta))


def critical_beta_star(d):
    """``beta*(d)``: the root of ``I_{d/2+1}(beta)/I_{d/2}(beta) = 1/d`` (brentq, xtol 1e-14).

    The ratio increases from 0 (at ``beta = 0``) to 1, so the root is unique; it lies in
    ``[1/2, 4]`` for every ``d >= 2`` (it tends to 1 as ``d`` grows), which keeps ``ive(d/2, beta)``
    away from underflow for ``d <= 200``.

    Parameters
    ----------
    d : int
        The ambient dimension (the sphere is ``S^{d-1}``).

    Returns
    -------
    float
        ``beta*(d)``.

    Raises
    ------
    InvalidInputError
        ``d`` is not an integer in ``[2, 200]``.

    Examples
    --------
    >>> b = critical_beta_star(3)
    >>> round(b, 4), round(bessel_ratio(b, 1.5) * 3, 12)         # the ratio equals 1/d at the root
    (1.8162, 1.0)
    """
    d = _check_d(d)
    if d > 200:
        raise InvalidInputError(f"d = {d}; beta*(d) is computed for 2 <= d <= 200 (I_(d/2) underflows in floats "
                                "beyond; beta*(d) -> 1 as d grows)")
    nu = d / 2
    f = lambda b: bessel_ratio(b, nu) - 1.0 / d     # noqa: E731
    return float(optimize.brentq(f, 0.5, 4.0, xtol=1e-14, rtol=1e-15))


def k_sharp(beta, d):
    """The linear-stability coupling ``K#(beta) = 2^{1-d/2} beta^{d/2} / (Gamma(d/2) I_{d/2}(beta))``.

    Computed in logs: ``log I_{d/2}(beta) = log ive(d/2, beta) + beta``.

    Parameters
    ----------
    beta : float
        Inverse temperature (> 0).
    d : int
        The ambient dimension (>= 2).

    Returns
    -------
    float
        ``K#(beta)``, tending to ``d`` as ``beta -> 0``.

    Raises
    ------
    InvalidInputError
        If ``beta`` is not positive and finite or ``d`` is not an integer ``>= 2``.

    Examples
    --------
    >>> bool(k_sharp(5.0, 2) < k_sharp(1.0, 2) < 2.0)     # d = 2: K# = beta / I_1(beta) -> 2, then falls
    True
    """
    beta, d = check_beta(beta), _check_d(d)
    nu = d / 2
    log_k = (1 - nu) * math.log(2) + nu * math.log(beta) - special.gammaln(nu) - (math.log(special.ive(nu, beta)) + beta)
    return float(math.exp(log_k))
