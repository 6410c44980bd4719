"""An independent reference: the defects of one point from the plain definitions, in mpmath.

:func:`reference_defects` shares nothing with the vectorised kernel it checks
(:mod:`~tropattn.soft._kernel`): it takes the head and the point exactly, forms
``p = softmax(s / tau)`` by direct exponentials and sums at a working precision raised by
``Delta / (tau ln 10)`` digits, so that the requested digits survive the cancellation in
``1 - p*``.

>>> r = reference_defects(([[1], [-1]],), [0.5], 1e-3)      # margin 1, tau 1e-3: 1 - p* = 1/(1 + e^1000)
>>> r["label"], float(r["log_weight"]) == -1000.0
(0, True)
"""

from __future__ import annotations

import math

import numpy as np

from .._lazy import lazy_import
from ..attention import head_arrays
from ..errors import TieError
from ..exact import to_rational, to_rational_vector
from ._kernel import raw_temperature

__all__ = ["reference_defects"]

mpmath = lazy_import("mpmath")


def reference_defects(head, x, tau, dps: int = 50) -> dict:
    """High-precision defects at one point, from the plain definitions (mpmath).

    Computes ``p = softmax(s/tau)``, ``1 - p*``, ``||sum_j p_j v_j - v_{j*}||`` and the
    spectral norm of ``(1/tau) (sum_j p_j v_j a_j^T - y (sum_j p_j a_j)^T)`` by direct
    subtraction, at ``dps + Delta/(tau ln 10) + 10`` digits so that ``dps`` digits
    survive the cancellation.  The point and the head are taken exactly; the label
    is the exact argmax (:class:`~tropattn.errors.TieError` on a tie).

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Anything :func:`tropattn.attention.head_arrays` reads.
    x : sequence of numbers or numpy.ndarray, length d
        One query point (converted exactly).
    tau : float
        Temperature on the scaled scores (as in :func:`pointwise_defects`); the float
        ``tau / score_scale`` is then taken exactly.
    dps : int, optional
        Decimal digits wanted in the results (default 50).

    Returns
    -------
    dict
        ``label``, ``margin``, ``weight``, ``output``, ``jacobian`` (mpmath ``mpf``),
        each with about ``dps`` correct digits, and ``log_*`` (natural logs, mpf).

    Raises
    ------
    TieError
        Two keys tie for the best score at ``x`` (``labels`` holds them).
    InvalidInputError
        A head that cannot be read, ``x`` of the wrong length or not finite, or a
        bad ``tau``.

    Examples
    --------
    ``1 - p* = 1 / (1 + e^{1000})``, far below float64, is still resolved:

    >>> r = reference_defects(([[1], [-1]],), [0.5], 1e-3)      # margin 1, tau 1e-3
    >>> r["label"], float(r["log_weight"]) == -1000.0, r["weight"] > 0
    (0, True, True)
    """
    h = head_arrays(head)
    xq = to_rational_vector(np.ravel(x).tolist() if isinstance(x, np.ndarray) else list(x), "x", h.dim)
    t = to_rational(raw_temperature(h, tau), "tau")
    s = [sum(a * xi for a, xi in zip(row, xq)) + bj for row, bj in zip(h.keys, h.offsets)]
    best = max(s)
    winners = [j for j, v in enumerate(s) if v == best]
    if len(winners) > 1:
        raise TieError(f"scores tie at x = {[str(v) for v in xq]} between keys {winners}; "
                       "the hard label and the defect are not defined there", winners)
    js = winners[0]
    marg = best - max((v for j, v in enumerate(s) if j != js), default=best + 1)
    extra = float(marg / t) / math.log(10) if len(s) > 1 else 0.0
    with mpmath.workdps(int(dps + extra + 10)):
        mpq = lambda f: mpmath.mpf(f.numerator) / f.denominator  # noqa: E731
        tt = mpq(t)
        e = [mpmath.exp((mpq(v) - mpq(best)) / tt) for v in s]
        Z = mpmath.fsum(e)
        p = [ei / Z for ei in e]
        weight = 1 - p[js]
        V = [[mpq(v) for v in row] for row in h.values]
        A = [[mpq(v) for v in row] for row in h.keys]
        y = [mpmath.fsum(p[j] * V[j][c] for j in range(h.N)) for c in range(h.dim_out)]
        abar = [mpmath.fsum(p[j] * A[j][c] for j in range(h.N)) for c in range(h.dim)]
        output = mpmath.sqrt(mpmath.fsum((y[c] - V[js][c]) ** 2 for c in range(h.dim_out)))
        J = mpmath.matrix(h.dim_out, h.dim)
        for r in range(h.dim_out):
            for c in range(h.dim):
                J[r, c] = (mpmath.fsum(p[j] * V[j][r] * A[j][c] for j in range(h.N)) - y[r] * abar[c]) / tt
        jac = max(mpmath.svd_r(J, compute_uv=False)) if h.N > 1 else mpmath.mpf(0)
        out = {"label": js, "margin": mpq(marg) if h.N > 1 else mpmath.inf,
               "weight": +weight, "output": +output, "jacobian": +jac}
        for k in ("weight", "output", "jacobian"):
            out["log_" + k] = mpmath.log(out[k]) if out[k] > 0 else -mpmath.inf
    return out
