r"""Finite temperature: how far soft attention strays from its hard skeleton.

A head with keys ``a_j`` (rows of an ``(N, d)`` matrix), offsets ``b_j`` and values
``v_j`` scores a query ``x`` by ``s_j(x) = a_j . x + b_j``.  At temperature ``tau > 0``
it outputs

    p(x) = softmax(s(x) / tau),      y_tau(x) = sum_j p_j(x) v_j,

and at ``tau -> 0+`` the hard skeleton ``y_0(x) = v_{j*(x)}`` with ``j* = argmax_j s_j``:
piecewise constant on the cells of a power diagram (docs/THEORY.md §2).  This module
measures and bounds the gap (docs/THEORY.md §5).  With the *score margin*
``Delta(x) = s_{j*}(x) - max_{j != j*} s_j(x) > 0`` and ``p* = p_{j*}``:

* weights   ``e^{-Delta/tau} / (1 + (N-1) e^{-Delta/tau}) <= 1 - p* <= (N-1) e^{-Delta/tau}``;
* output    ``||y_tau - v_{j*}|| <= (1 - p*) max_j ||v_j - v_{j*}||``;
* Jacobian  ``J_tau = (1/tau) sum_j p_j (v_j - y_tau)(a_j - a_{j*})^T`` while the hard map
  has ``J_0 = 0`` inside a cell, and ``||J_tau||_2 <= (1 - p*) D_V D_A / tau`` with
  ``D_V = max_{j,l} ||v_j - v_l||`` and ``D_A = max_j ||a_j - a_{j*}||``;
* a point at distance ``>= delta`` from every wall of its cell has
  ``Delta >= delta * min_{j != j*} ||a_j - a_{j*}||``, so the defects are exponentially
  small outside a band of width about ``tau log(N / eps) / ||a_j - a_l||`` around the walls,
  and never exactly zero.

How it is computed.  Every defect is evaluated *in log space* and without
cancellation.  Write ``q_j = p_j / (1 - p*)`` (``j != j*``), a softmax over the losers
that never underflows.  Because ``sum_j p_j = 1``,

    y_tau - v_{j*} = (1 - p*) w,                w = sum_{j != j*} q_j (v_j - v_{j*}),
    J_tau = (1 - p*) / tau * K,   K = sum_{j != j*} q_j (v_j - v_{j*})(a_j - a_{j*})^T
                                       - (1 - p*) w (sum_{j != j*} q_j (a_j - a_{j*}))^T,

and ``ln(1 - p*) = u - ln(1 + e^u)`` with ``u = ln sum_{j != j*} e^{(s_j - s_{j*})/tau}``.
So ``ln ||y_tau - v_{j*}|| = ln(1 - p*) + ln ||w||`` stays finite long after
``e^{-Delta/tau}`` underflows float64 (below about ``1e-308``), and ratios
defect / bound are formed as differences of logarithms.  :func:`reference_defects`
recomputes the defects from the plain definitions with mpmath at a working
precision raised by ``Delta / (tau ln 10)`` digits: an independent check.

A head's ``score_scale`` (``Head.from_weights`` sets ``1/sqrt(d_k)``) multiplies its
scores in the soft map exactly as in :meth:`tropattn.attention.Head.soft`, so the
temperature on the raw scores is ``tau / score_scale``; margins stay in raw score units.

Which cell a sample point lies in is decided exactly (:func:`hard_labels`, through
the certified signs of :func:`tropattn.exact.dot_signs`); distances to walls are
floats, which is all sampling needs.

The convention trap.  Standard scaled dot-product attention is
``softmax(q k^T / sqrt(d_k))``: in score form with raw scores ``q . k`` that is
``tau = sqrt(d_k)`` (:func:`standard_temperature`).  The paper (docs/THEORY.md §5) calls
``tau = 1/sqrt(d_k)`` standard; for ``d_k = 64`` that softmax is 64 times sharper
than a real transformer's (:func:`convention_check`).

>>> from tropattn.attention._soft import margin, soft_weights
>>> head = ([[0, 0], [2, 0]], [0, -2])          # s_0 = 0, s_1 = 2 x_1 - 2: wall x_1 = 1
>>> X = np.array([[0.0, 0.0]])                  # margin 2 at the origin
>>> float(margin(head, X)[0])
2.0
>>> lower, upper = weight_bounds(2.0, 1.0, 2)   # N = 2: the lower bound is attained
>>> bool(np.isclose(1 - soft_weights(head, X, 1.0)[0, 0], lower))
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dataclasses import asdict

from .attention._soft import (HeadArrays, _head_terms, _points, _tau, as_heads,
                             hard_labels, head_arrays)
from .errors import DegenerateInputError, InvalidInputError, TieError
from .exact._numbers import positive_float
from .exact import facets, interior_point, to_float_array, to_rational, to_rational_matrix, to_rational_vector
from .geometry._power import PowerDiagram


__all__ = ["weight_bounds", "output_bound", "jacobian_bound", "PointwiseDefects", "pointwise_defects", "reference_defects", "cell_walls", "wall_distance", "default_box", "resolve_box", "sample_points", "delta_region_bounds", "predicted_band_width", "DefectStats", "StabilityRow", "measure", "stability_report", "standard_temperature", "paper_temperature", "raw_score_form", "convention_check"]


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
    x = -np.asarray(margin, dtype=float) / _tau(tau)
    if n_keys < 1:
        raise InvalidInputError(f"n_keys = {n_keys}; a head has at least one key")
    if n_keys == 1:
        z = np.full(np.shape(x), -np.inf)
        return (z, z) if log else (np.exp(z), np.exp(z))
    ln1 = math.log(n_keys - 1)
    lower = x - np.logaddexp(0.0, x + (0.0 if sharp else ln1))
    upper = ln1 + x - (np.logaddexp(0.0, ln1 + x) if sharp else 0.0)
    return (lower, upper) if log else (np.exp(lower), np.exp(upper))


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
    t = _tau(tau)
    factor = np.asarray(value_diameter, dtype=float) * np.asarray(key_spread, dtype=float) / t
    if log:
        return np.asarray(weight, dtype=float) + np.log(factor)
    return np.asarray(weight, dtype=float) * factor


def _log_norm_of_scaled_sum(logs, vecs, axes):
    """``ln || sum_h e^{logs_h} vecs_h ||`` over points; ``vecs_h`` has the point axis first."""
    L = np.max(np.stack(logs), axis=0)
    safe = np.where(np.isfinite(L), L, 0.0)
    total = sum(np.exp(l - safe).reshape((-1,) + (1,) * (v.ndim - 1)) * v for l, v in zip(logs, vecs))
    norm = np.linalg.norm(total, ord=2, axis=axes) if len(axes) == 2 else np.linalg.norm(total, axis=axes[0])
    with np.errstate(divide="ignore"):
        return np.where(np.isfinite(L), safe + np.log(norm), -np.inf)


@dataclass(frozen=True)
class PointwiseDefects:
    """Defects and §5 bounds at each point, all as natural logarithms.

    Attributes
    ----------
    labels, margin : (H, n) arrays
        Hard label and score margin of each head.
    log_weight, log_weight_lower, log_weight_upper : (H, n) arrays
        ``ln(1 - p*)`` of each head and its two margin bounds.
    log_output, log_output_bound : (n,) arrays
        ``ln ||sum_h (y_tau^h - v^h_{j*})||`` and ``ln sum_h (N_h-1) e^{-Delta_h/tau} max_j ||v_j - v_{j*}||``.
    log_jacobian, log_jacobian_bound : (n,) arrays
        ``ln ||sum_h J_tau^h||_2`` and ``ln sum_h (N_h-1) e^{-Delta_h/tau} D_V D_A / tau``.
    log_output_bound_p, log_jacobian_bound_p : (n,) arrays
        The same bounds with the measured ``1 - p*`` in place of ``(N-1) e^{-Delta/tau}``.
    """

    labels: np.ndarray
    margin: np.ndarray
    log_weight: np.ndarray
    log_weight_lower: np.ndarray
    log_weight_upper: np.ndarray
    log_output: np.ndarray
    log_output_bound: np.ndarray
    log_output_bound_p: np.ndarray
    log_jacobian: np.ndarray
    log_jacobian_bound: np.ndarray
    log_jacobian_bound_p: np.ndarray


def pointwise_defects(heads, X, tau, labels=None) -> PointwiseDefects:
    """Measured defects and their bounds at each point, for one head or a sum of heads.

    For several heads (one layer, outputs summed) the hard output is
    ``sum_h v^h_{j*_h}``, and the defect of the sum is at most the sum of the heads'
    bounds.  ``labels`` (shape ``(H, n)``) defaults to the float argmax; pass
    :func:`hard_labels` for exact cells.

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.
    X : array_like, shape (n, d) or (d,)
        Finite float query points.
    tau : float
        Temperature on the scaled scores, finite and ``>= TAU_MIN``
        (:data:`tropattn.attention._soft.TAU_MIN`).
    labels : array_like of int, shape (H, n), optional
        The winning key of each head at each point, in ``range(N_h)``.

    Returns
    -------
    PointwiseDefects
        Natural logarithms of the defects and bounds, per head and per point.

    Raises
    ------
    InvalidInputError
        a head :func:`~tropattn.attention._soft.as_heads` cannot read, ``X`` of the wrong shape or not finite, a bad ``tau``, or a
        label outside ``range(N_h)`` (a ``-1`` tie label included).  ``labels`` of a
        shape that cannot be reshaped to ``(H, n)`` raises numpy's ``ValueError``.

    Examples
    --------
    >>> pd = pointwise_defects(([[1], [-1]], None, [[0.0], [1.0]]), [[1.0]], 0.5)
    >>> bool(np.all(pd.log_output <= pd.log_output_bound)), bool(pd.log_weight[0, 0] < 0)
    (True, True)
    >>> bool(pd.log_weight_lower[0, 0] <= pd.log_weight[0, 0] <= pd.log_weight_upper[0, 0])
    True
    """
    hs = as_heads(heads)
    X = _points(X, hs[0].dim)
    ts = [h.temperature(tau) for h in hs]  # per head: tau on the raw scores
    if labels is not None:
        labels = np.asarray(labels).reshape(len(hs), X.shape[0])
    parts = [_head_terms(h, X, t, None if labels is None else labels[i]) for i, (h, t) in enumerate(zip(hs, ts))]
    marg = np.stack([p[0] for p in parts])
    logw = np.stack([p[1] for p in parts])
    labs = np.stack([p[2] for p in parts])
    bounds = [weight_bounds(p[0], t, h.N, log=True) for p, h, t in zip(parts, hs, ts)]
    low = np.stack([bd[0] for bd in bounds])
    up = np.stack([bd[1] for bd in bounds])

    def both(src):  # bounds of output and Jacobian from a weight (upper bound or measured)
        ob = np.logaddexp.reduce([output_bound(src[i], h.value_spread[labs[i]], log=True)
                                  for i, h in enumerate(hs)], axis=0)
        jb = np.logaddexp.reduce([jacobian_bound(src[i], h.value_diameter, h.key_spread[labs[i]], t, log=True)
                                  for i, (h, t) in enumerate(zip(hs, ts))], axis=0)
        return ob, jb

    with np.errstate(divide="ignore"):
        ob, jb = both(up)
        obp, jbp = both(logw)
        lo = _log_norm_of_scaled_sum(list(logw), [p[3] for p in parts], (1,))
        lj = _log_norm_of_scaled_sum([lw - math.log(t) for lw, t in zip(logw, ts)], [p[4] for p in parts], (1, 2))
    return PointwiseDefects(labels=labs, margin=marg, log_weight=logw, log_weight_lower=low,
                            log_weight_upper=up, log_output=lo, log_output_bound=ob, log_output_bound_p=obp,
                            log_jacobian=lj, log_jacobian_bound=jb, log_jacobian_bound_p=jbp)


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
        Anything :func:`tropattn.attention._soft.head_arrays` reads.
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
    import mpmath

    h = head_arrays(head)
    xq = to_rational_vector(np.ravel(x).tolist() if isinstance(x, np.ndarray) else list(x), "x", h.dim)
    t = to_rational(h.temperature(tau), "tau")
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


def cell_walls(head, method: str = "diagram") -> tuple:
    """The facet rows ``(A, b)`` (``A x <= b``) of each exact cell, ``None`` for hidden sites.

    ``method="diagram"`` reads them from the power diagram (``head.power_diagram()``
    when the head has one, else :class:`tropattn.geometry.PowerDiagram` of its keys and
    offsets); ``method="walls"`` reduces the wall rows ``(a_k - a_j) . x <= b_j - b_k``
    of each cell to facets with :func:`tropattn.exact.interior_point` and
    :func:`tropattn.exact.facets` (an independent route).  Rows are returned as float
    arrays: they are used for distances only.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Anything :func:`tropattn.attention._soft.head_arrays` reads.
    method : {"diagram", "walls"}, optional
        Which exact route finds the facets (default ``"diagram"``).

    Returns
    -------
    tuple
        One entry per key: ``None`` if its cell is empty, else ``(A, b)`` with ``A`` a
        float array of shape ``(m, d)`` and ``b`` of shape ``(m,)`` (``m = 0`` when the
        cell is all of ``R^d``).

    Raises
    ------
    InvalidInputError
        A head that cannot be read, or ``method`` not ``"diagram"`` or ``"walls"``.

    Examples
    --------
    >>> walls = cell_walls(([[0], [1], [2]], [0, 0, -2]), method="walls")   # (-inf,0], [0,2], [2,inf)
    >>> [w[0].ravel().tolist() for w in walls]
    [[1.0], [-1.0, 1.0], [-1.0]]
    >>> diagram = cell_walls(([[0], [1], [2]], [0, 0, -2]))
    >>> all(np.array_equal(u[0], v[0]) and np.array_equal(u[1], v[1]) for u, v in zip(walls, diagram))
    True
    """
    h = head_arrays(head)
    if method == "diagram":
        return tuple(None if c is None else (to_float_array(c.A).reshape(len(c.A), h.dim), to_float_array(c.b))
                     for c in _diagram(h).cells())
    if method != "walls":
        raise InvalidInputError(f"method = {method!r}; use 'diagram' or 'walls'")
    out = []
    for j in range(h.N):
        rows = [(tuple(ak - aj for ak, aj in zip(h.keys[k], h.keys[j])), h.offsets[j] - h.offsets[k])
                for k in range(h.N) if k != j]
        A, b = [r for r, _ in rows], [c for _, c in rows]
        cert = interior_point(A, b) if rows else None
        if cert is not None and not cert.feasible:
            out.append(None)
            continue
        keep = [i for i in facets(A, b, cert.point).rows if any(A[i])] if rows else []
        out.append((to_float_array([A[i] for i in keep]).reshape(len(keep), h.dim),
                    to_float_array([b[i] for i in keep])))
    return tuple(out)


def _diagram(h: HeadArrays):
    """The head's own power diagram, or one built from its keys and offsets."""
    make = getattr(h.source, "power_diagram", None)
    if callable(make):
        return make()

    return PowerDiagram.from_max_affine(h.keys, h.offsets)


def wall_distance(head, X, labels=None, walls=None) -> np.ndarray:
    """Euclidean distance from each point to the boundary of its own cell, ``(n,)``.

    For ``x`` inside the convex cell of ``j``, the distance to the boundary is the
    smallest distance to a facet hyperplane, and also to any wall hyperplane
    ``s_j = s_k`` (a redundant wall lies outside the cell), so this is
    ``min_{k: a_k != a_j} (s_j(x) - s_k(x)) / ||a_k - a_j||`` unless ``walls``
    (from :func:`cell_walls`) is given.  Labels default to :func:`hard_labels`;
    points on ties get distance 0.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Anything :func:`tropattn.attention._soft.head_arrays` reads.
    X : array_like, shape (n, d) or (d,)
        Finite float query points.
    labels : array_like of int, shape (n,), optional
        The cell of each point, ``-1`` for a tie (default: :func:`hard_labels`, exact).
    walls : tuple, optional
        The facets of every cell from :func:`cell_walls` (then only facets count).

    Returns
    -------
    numpy.ndarray, shape (n,)
        Distance from each point to the boundary of its cell (floats); ``inf`` for a
        cell that is all of ``R^d``, ``0`` on a tie.

    Raises
    ------
    InvalidInputError
        A head that cannot be read, or ``X`` of the wrong shape or not finite.

    Examples
    --------
    >>> wall_distance(([[1], [-1]],), [[0.5], [-2.0]]).tolist()
    [0.5, 2.0]
    >>> head = ([[0], [1], [2]], [0, 0, -2])            # cells (-inf, 0], [0, 2], [2, inf)
    >>> wall_distance(head, [[1.5]]).tolist(), wall_distance(head, [[1.5]], walls=cell_walls(head)).tolist()
    ([0.5], [0.5])
    """
    h = head_arrays(head)
    X = _points(X, h.dim)
    labels = hard_labels(h, X) if labels is None else np.asarray(labels, dtype=np.intp)
    dist = np.zeros(X.shape[0])
    ok = labels >= 0
    if walls is None:
        S = X[ok] @ h.A.T + h.b
        lab = labels[ok]
        rows = np.arange(len(lab))
        gaps = np.linalg.norm(h.A[lab][:, None, :] - h.A[None, :, :], axis=2)
        same = np.array([[h.keys[j] == h.keys[k] for k in range(h.N)] for j in range(h.N)])[lab]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(same, np.inf, (S[rows, lab][:, None] - S) / np.where(same, 1.0, gaps))
        dist[ok] = ratio.min(axis=1) if h.N > 1 else np.inf
        return dist
    for j in np.unique(labels[ok]):
        idx = np.flatnonzero(labels == j)
        A, b = walls[j]
        if len(A) == 0:
            dist[idx] = np.inf
            continue
        norms = np.linalg.norm(A, axis=1)
        dist[idx] = ((b - X[idx] @ A.T) / norms).min(axis=1)
    return dist


def default_box(heads) -> tuple:
    """A box ``[-R, R]^d`` that shows every wall of every head.

    ``R = 1.5 max(1, max_{a_j != a_k} |b_j - b_k| / ||a_j - a_k||)``: the point of each
    wall ``s_j = s_k`` nearest the origin lies well inside.  (The keys' own size does
    not matter: the query space is where the walls are.)

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lo, hi)``, each of shape ``(d,)``: ``(-R, ..., -R)`` and ``(R, ..., R)``.

    Raises
    ------
    InvalidInputError
        A head :func:`~tropattn.attention._soft.as_heads` cannot read.

    Examples
    --------
    >>> default_box(([[1, 0], [-1, 0]], [3, -3]))[1].tolist()    # wall x = 3
    [4.5, 4.5]
    >>> default_box(([[1], [-1]],))[1].tolist()                   # wall x = 0: R = 1.5 * 1
    [1.5]
    """
    hs = as_heads(heads)
    R = 1.0
    for h in hs:
        for j, k in h._pairs:
            gap = np.linalg.norm(h.A[j] - h.A[k])
            if gap > 0:
                R = max(R, abs(h.b[j] - h.b[k]) / gap)
    R *= 1.5
    d = hs[0].dim
    return np.full(d, -R), np.full(d, R)


def resolve_box(box, heads) -> tuple:
    """The box ``(lo, hi)`` as float arrays of length d.

    ``box`` is None (:func:`default_box`), a number ``R`` (``[-R, R]^d``) or a pair
    ``(lo, hi)`` of numbers or length-d vectors (numbers may be strings like ``"1/2"``).

    Parameters
    ----------
    box : None, number or pair
        The box; a number ``R`` means ``[-|R|, |R|]^d``.
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.

    Returns
    -------
    tuple of numpy.ndarray
        ``(lo, hi)``, float arrays of shape ``(d,)`` with ``lo < hi``.

    Raises
    ------
    InvalidInputError
        A box that is none of the forms above, not a number, infinite, of the wrong
        length, with ``lo >= hi`` in some coordinate (``R = 0`` included), or a head :func:`~tropattn.attention._soft.as_heads` cannot read.

    Examples
    --------
    >>> [v.tolist() for v in resolve_box((-1, "1/2"), ([[1, 0]],))]
    [[-1.0, -1.0], [0.5, 0.5]]
    >>> [v.tolist() for v in resolve_box(2, ([[1, 0]],))]
    [[-2.0, -2.0], [2.0, 2.0]]
    """
    d = as_heads(heads)[0].dim
    if box is None:
        return default_box(heads)
    if np.ndim(box) == 0:
        r = abs(float(to_rational(box, "box")))
        lo, hi = -r, r
    else:
        try:
            lo, hi = box
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"box = {box!r}; expected R (for [-R, R]^d), a pair (lo, hi) of numbers, or of length-{d} vectors"
            ) from None
    try:
        lo, hi = (np.broadcast_to([float(to_rational(v, "box")) for v in np.ravel(np.asarray(side, dtype=object))],
                                  (d,)).astype(float) for side in (lo, hi))
    except ValueError:
        raise InvalidInputError(f"box = {box!r}; lo and hi must be numbers or vectors of length {d}") from None
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo < hi)):
        raise InvalidInputError(f"box has lo = {lo.tolist()}, hi = {hi.tolist()}; need finite lo < hi "
                                "in every coordinate")
    return lo, hi


def sample_points(heads, box=None, n_samples: int = 2000, seed: int = 0, delta: float = 0.0):
    """Uniform points of a box with their exact labels and their distance to the walls.

    The labels are exact (:func:`hard_labels`); the distances are floats
    (:func:`wall_distance` to the facets of :func:`cell_walls`).

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.
    box : None, number or pair, optional
        The sampling box, as :func:`resolve_box` reads it (default :func:`default_box`).
    n_samples : int, optional
        Number of points ``n >= 1`` (default 2000).
    seed : int, optional
        Seed of :func:`numpy.random.default_rng` (default 0).
    delta : float, optional
        Distance from the walls, finite and ``>= 0`` (default 0).

    Returns
    -------
    tuple
        ``(X, labels, distance, keep)``: ``X`` of shape ``(n, d)``; ``labels`` of shape
        ``(H, n)`` (exact; ``-1`` on a tie); ``distance`` of shape ``(n,)``, the distance
        to the nearest wall of the point's cell in any head (the cells of the overlay);
        ``keep``, boolean ``(n,)``, marks the untied points at distance ``>= delta`` from
        every wall: the δ-region of docs/THEORY.md §5.

    Raises
    ------
    InvalidInputError
        ``n_samples < 1``, a negative or non-finite ``delta``, a bad ``box``, or a head :func:`~tropattn.attention._soft.as_heads` cannot read.
    DegenerateInputError
        Two keys of one head are equal with equal offsets (their scores tie everywhere).

    Examples
    --------
    >>> X, labels, dist, keep = sample_points(([[1], [-1]],), (-1, 1), 100, seed=1, delta=0.5)
    >>> bool(np.all(np.abs(X[keep, 0]) >= 0.5)), bool(np.all(labels[0, keep] == (X[keep, 0] < 0)))
    (True, True)
    """
    hs = as_heads(heads)
    if int(n_samples) < 1:
        raise InvalidInputError(f"n_samples = {n_samples}; need at least 1 point")
    delta = float(delta)
    if not (math.isfinite(delta) and delta >= 0):
        raise InvalidInputError(f"delta = {delta}; the distance to the walls must be a finite number >= 0")
    for h in hs:
        same = [(j, k) for j, k in h._pairs if h.keys[j] == h.keys[k] and h.offsets[j] == h.offsets[k]]
        if same:
            raise DegenerateInputError(
                f"keys {same[0][0]} and {same[0][1]} are equal with equal offsets: their scores tie "
                "everywhere, so soft attention splits their weight and no hard label exists; "
                "merge the two keys (their values averaged is what soft attention computes)")
    lo, hi = resolve_box(box, hs)
    rng = np.random.default_rng(seed)
    X = lo + (hi - lo) * rng.random((int(n_samples), hs[0].dim))
    labels = np.stack([hard_labels(h, X) for h in hs])
    dist = np.full(X.shape[0], np.inf)
    for h, lab in zip(hs, labels):
        dist = np.minimum(dist, wall_distance(h, X, lab, walls=cell_walls(h)))
    keep = np.all(labels >= 0, axis=0) & (dist >= delta)
    return X, labels, dist, keep


def delta_region_bounds(heads, tau, delta, labels=None) -> dict:
    """Uniform bounds on the defects over all points at distance ``>= delta`` from the walls.

    Such a point has ``Delta >= min(delta g_{j*}, t_{j*})`` with ``g_j`` the key gap
    and ``t_j`` the tie gap of :class:`HeadArrays`, so the pointwise margin bounds hold
    with that margin.  ``labels`` (per head, an iterable of key indices) restricts the
    maximum to cells that occur; default: every key.

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.
    tau : float
        Temperature on the scaled scores, finite and ``>= TAU_MIN``
        (:data:`tropattn.attention._soft.TAU_MIN`).
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
        A head :func:`~tropattn.attention._soft.as_heads` cannot read, or a bad ``tau``.

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
        t = h.temperature(tau)
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
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.
    tau : float
        Temperature on the scaled scores, finite and ``>= TAU_MIN``
        (:data:`tropattn.attention._soft.TAU_MIN`).
    eps : float
        The defect threshold, ``> 0``.

    Returns
    -------
    float
        The band half-width (0 if no defect can reach ``eps``; ``inf`` as above).

    Raises
    ------
    InvalidInputError
        ``eps <= 0`` or NaN, a bad ``tau``, or a head :func:`~tropattn.attention._soft.as_heads` cannot read.

    Examples
    --------
    >>> w = predicted_band_width(([[1], [-1]], None, [[0], [1]]), 0.1, 1e-3)   # 0.1 ln(1000) / 2
    >>> round(w, 6)
    0.345388
    >>> predicted_band_width(([[1], [-1]], None, [[0], [1]]), 0.1, 2.0)       # eps above D_V: no band
    0.0
    """
    hs = as_heads(heads)
    eps = float(eps)
    if not eps > 0:
        raise InvalidInputError(f"eps = {eps}; the defect threshold must be > 0")
    width = 0.0
    for h in hs:
        if h.N == 1 or h.value_diameter == 0:
            continue
        thresh = h.temperature(tau) * math.log(len(hs) * (h.N - 1) * h.value_diameter / eps)
        if thresh <= 0:
            continue
        if np.min(h.tie_gap[h.tie_gap > 0], initial=np.inf) < thresh:  # a key that wins over its twin
            return math.inf
        width = max(width, thresh / float(np.min(h.key_gap)))
    return width


@dataclass(frozen=True)
class DefectStats:
    """One defect (weights, output or Jacobian) over the δ-sampled points at one τ.

    ``defect`` and ``bound`` are the sups over the points (floats; they may underflow
    to 0, the ``log10_*`` fields do not).  ``ratio`` is the max over points of the
    pointwise ratio measured / bound (``<= 1`` up to rounding); ``sup_ratio`` is
    sup defect / sup bound; ``uniform_bound`` is the δ-region bound of
    :func:`delta_region_bounds` (``>= defect``).
    """

    defect: float
    bound: float
    ratio: float
    sup_ratio: float
    log10_defect: float
    log10_bound: float
    uniform_bound: float


@dataclass(frozen=True)
class StabilityRow:
    """Soft against hard attention at one temperature (see :func:`measure`).

    ``weights``, ``output`` and ``jacobian`` are :class:`DefectStats` on the δ-region;
    ``weight_lower_ratio`` is the min over points of measured ``1 - p*`` over the
    lower bound (``>= 1``).  ``fraction_below_eps`` is the fraction of the (uniformly
    sampled) box where the output defect is below ``eps``; ``band_width`` is the
    largest distance from the walls of a sample point whose output defect is ``>= eps``
    and ``band_width_predicted`` is :func:`predicted_band_width` (``>= band_width``).
    """

    tau: float
    n_points: int
    n_box: int
    weights: DefectStats
    output: DefectStats
    jacobian: DefectStats
    weight_lower_ratio: float
    eps: float
    fraction_below_eps: float
    band_width: float
    band_width_predicted: float

    def as_dict(self) -> dict:
        """The row as nested plain dicts (:func:`dataclasses.asdict`), e.g. for JSON.

        Returns
        -------
        dict
            The fields above; ``weights``, ``output`` and ``jacobian`` are dicts of the
            :class:`DefectStats` fields.  Non-finite floats are kept (see
            :func:`stability_report` for a JSON-safe summary).

        Examples
        --------
        >>> row = measure(([[1], [-1]],), [0.5], delta=0.1, box=(-1, 1), n_samples=50)[0]
        >>> d = row.as_dict()
        >>> d["tau"], sorted(d["output"])[:3]
        (0.5, ['bound', 'defect', 'log10_bound'])
        """
        return asdict(self)

_LOG10 = math.log(10.0)


def _exp(x: float) -> float:
    """``e^x``, or inf beyond the float range (a bound of 1/tau at tau = 1e-300 is such a number)."""
    return math.exp(x) if x < 709.0 else math.inf


def _stats(log_def, log_bound, uniform) -> DefectStats:
    with np.errstate(invalid="ignore", over="ignore"):
        pointwise = np.where(np.isneginf(log_def), 0.0, np.exp(log_def - log_bound))
    ld, lb = float(np.max(log_def)), float(np.max(log_bound))
    sup_ratio = 0.0 if ld == -math.inf else _exp(ld - lb)
    return DefectStats(defect=_exp(ld), bound=_exp(lb), ratio=float(np.max(pointwise)),
                       sup_ratio=sup_ratio, log10_defect=ld / _LOG10, log10_bound=lb / _LOG10,
                       uniform_bound=uniform)


def measure(heads, taus, delta: float = 0.0, box=None, n_samples: int = 2000, seed: int = 0,
            eps: float = 1e-3) -> tuple:
    """Measured defects against the §5 bounds, one :class:`StabilityRow` per τ.

    Samples ``n_samples`` uniform points of ``box`` (:func:`sample_points`; exact
    labels), keeps those at distance ``>= delta`` from every wall of their cell, and
    evaluates at each kept point the defects and the margin bounds (in log space).
    ``heads`` is one head or a list of heads whose outputs are summed.

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.
    taus : float or sequence of float
        Temperatures on the scaled scores, each finite and ``>= TAU_MIN``.
    delta : float, optional
        Distance from the walls of the measured points, ``>= 0`` (default 0).
    box : None, number or pair, optional
        The sampling box, as :func:`resolve_box` reads it (default :func:`default_box`).
    n_samples : int, optional
        Uniform sample points of the box (default 2000).
    seed : int, optional
        Seed of the sample (default 0).
    eps : float, optional
        Output defect threshold of ``fraction_below_eps`` and the band widths, ``> 0``
        (default ``1e-3``).

    Returns
    -------
    tuple of StabilityRow
        One per τ, in the order given.

    Raises
    ------
    InvalidInputError
        A bad ``tau``, ``delta``, ``box`` or ``n_samples``, a NaN ``eps``, or a head
        :func:`~tropattn.attention._soft.as_heads` cannot read.  (``eps <= 0`` raises the
        bare ``ValueError`` of ``math.log``, not an ``InvalidInputError``.)
    DegenerateInputError
        No sample point lies at distance ``>= delta`` from the walls, or two keys of a
        head are equal with equal offsets.

    Examples
    --------
    The defect shrinks with τ and stays below the bound (ratio ``<= 1``):

    >>> rows = measure(([[1], [-1]], None, [[0], [1]]), [0.1, 1.0], delta=0.2, box=(-1, 1), n_samples=200)
    >>> [r.output.ratio <= 1 for r in rows], rows[0].output.defect < rows[1].output.defect
    ([True, True], True)
    """
    eps = positive_float(eps, "eps")
    hs = as_heads(heads)
    taus = [_tau(t) for t in (np.atleast_1d(taus) if not isinstance(taus, (list, tuple)) else taus)]
    X, labels, dist, keep = sample_points(hs, box, n_samples, seed, delta)
    ok = np.all(labels >= 0, axis=0)
    if not keep.any():
        raise DegenerateInputError(
            f"none of the {len(X)} sample points lies at distance >= {delta} from the walls of its cell; "
            "lower delta, enlarge the box or sample more points")
    in_delta = keep[ok]
    rows = []
    for tau in taus:
        pd = pointwise_defects(hs, X[ok], tau, labels[:, ok])
        ub = delta_region_bounds(hs, tau, delta, labels[:, keep])
        sel = lambda a: a[..., in_delta]  # noqa: E731
        with np.errstate(invalid="ignore", over="ignore"):
            lower_ratio = np.exp(sel(pd.log_weight) - sel(pd.log_weight_lower))
        below = pd.log_output < math.log(eps)
        band = float(np.max(dist[ok][~below])) if (~below).any() else 0.0
        rows.append(StabilityRow(
            tau=tau, n_points=int(keep.sum()), n_box=int(ok.sum()),
            weights=_stats(sel(pd.log_weight), sel(pd.log_weight_upper), ub["weights"]),
            output=_stats(sel(pd.log_output), sel(pd.log_output_bound), ub["output"]),
            jacobian=_stats(sel(pd.log_jacobian), sel(pd.log_jacobian_bound), ub["jacobian"]),
            weight_lower_ratio=float(np.nanmin(lower_ratio)) if np.isfinite(lower_ratio).any() else math.inf,
            eps=float(eps), fraction_below_eps=float(below.mean()),
            band_width=band, band_width_predicted=predicted_band_width(hs, tau, eps)))
    return tuple(rows)


def _finite(x):
    """JSON-safe float: None for inf/nan."""
    x = float(x)
    return x if math.isfinite(x) else None


def _json_safe(obj):
    """Every non-finite float in a nested dict/list replaced by None (JSON has no inf)."""
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_json_safe(v) for v in obj]
    if isinstance(obj, float):
        return _finite(obj)
    return obj


def stability_report(heads, taus=(0.05, 0.2, 1.0), delta=None, box=None, n_samples: int = 2000,
                     seed: int = 0, eps: float = 1e-3) -> dict:
    """A JSON-ready summary of :func:`measure` for the ``tropattn stability`` command.

    ``delta`` defaults to 2% of the smallest box side.  Each row has ``tau``,
    ``max_defect`` (sup output defect ``||y_tau - y_0||`` on the δ-region), ``bound``
    (sup of the pointwise bound there), ``ratio`` (max pointwise measured / bound,
    ``<= 1``), ``sup_ratio``, ``uniform_bound``, ``log10_defect``, ``log10_bound``,
    ``fraction_below_eps``, ``band_width``, ``band_width_predicted`` and the same
    statistics for the weights and the Jacobian under ``"weights"`` / ``"jacobian"``.

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention._soft.as_heads` reads; several heads have
        their outputs summed.
    taus : sequence of float, optional
        Temperatures (default ``(0.05, 0.2, 1.0)``).
    delta : float, optional
        Distance from the walls (default 2% of the smallest side of the box).
    box : None, number or pair, optional
        The sampling box, as :func:`resolve_box` reads it (default :func:`default_box`).
    n_samples : int, optional
        Uniform sample points (default 2000).
    seed : int, optional
        Seed of the sample (default 0).
    eps : float, optional
        Output defect threshold (default ``1e-3``).

    Returns
    -------
    dict
        JSON-ready (every ``inf`` or NaN replaced by None): ``heads``, ``keys``, ``dim``,
        ``dim_out``, ``box``, ``delta``, ``n_samples``, ``seed``, ``eps``,
        ``within_bounds`` (every measured ratio within its bound, up to ``1e-9``),
        ``scope``, ``convention`` and ``rows`` as above.

    Raises
    ------
    InvalidInputError
        As :func:`measure`.
    DegenerateInputError
        As :func:`measure`.

    Examples
    --------
    >>> rep = stability_report(([[1], [-1]],), taus=[0.1], box=(-1, 1), n_samples=100)
    >>> sorted(rep["rows"][0])[:4], rep["within_bounds"]
    (['band_width', 'band_width_predicted', 'bound', 'eps'], True)
    """
    hs = as_heads(heads)
    layer = heads.layers[0] if hasattr(heads, "layers") and len(heads.layers) == 1 else heads
    scope = ("attention output only: the layer's FFN is not included" if getattr(layer, "ffn", None) is not None
             else "attention output (outputs of all heads summed, projection applied)")
    lo, hi = resolve_box(box, hs)
    if delta is None:
        delta = 0.02 * float(np.min(hi - lo))
    rows = measure(hs, taus, delta, (lo, hi), n_samples, seed, eps)
    out_rows = []
    for r in rows:
        row = {"tau": r.tau, "max_defect": r.output.defect, "bound": r.output.bound, "ratio": r.output.ratio,
               "sup_ratio": r.output.sup_ratio, "uniform_bound": r.output.uniform_bound,
               "log10_defect": _finite(r.output.log10_defect), "log10_bound": _finite(r.output.log10_bound),
               "fraction_below_eps": r.fraction_below_eps, "eps": r.eps, "band_width": r.band_width,
               "band_width_predicted": _finite(r.band_width_predicted), "n_points": r.n_points}
        for name in ("weights", "jacobian"):
            st = getattr(r, name)
            row[name] = {k: (_finite(v) if k.startswith("log10") else v) for k, v in asdict(st).items()}
        row["weights"]["lower_ratio"] = _finite(r.weight_lower_ratio)
        out_rows.append(row)
    slack = 1 + 1e-9
    ok = all(r.weights.ratio <= slack and r.output.ratio <= slack and r.jacobian.ratio <= slack
             and r.weight_lower_ratio >= 1 / slack and r.band_width <= r.band_width_predicted * slack
             for r in rows)
    return _json_safe({"heads": len(hs), "keys": [h.N for h in hs], "dim": hs[0].dim, "dim_out": hs[0].dim_out,
            "box": [lo.tolist(), hi.tolist()], "delta": float(delta), "n_samples": int(n_samples),
            "seed": seed, "eps": float(eps), "within_bounds": ok, "scope": scope, "rows": out_rows,
            "convention": "scores are s_j = a_j.x + b_j at temperature tau; standard attention "
                          "softmax(q.k/sqrt(d_k)) is tau = 1 on scaled scores, tau = sqrt(d_k) on raw q.k"})


def _key_dimension(d_k) -> int:
    """``d_k`` as a positive integer (refusing 2.5 or "a" rather than truncating them)."""
    if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or d_k < 1:
        raise InvalidInputError(f"d_k = {d_k!r}; the key dimension must be a positive integer such as 64")
    return int(d_k)


def standard_temperature(d_k: int) -> float:
    """Temperature of standard attention ``softmax(q.k / sqrt(d_k))`` on raw scores ``q.k``: ``sqrt(d_k)``.

    Parameters
    ----------
    d_k : int
        Key dimension ``>= 1`` (read with ``int()``, so a float is truncated).

    Returns
    -------
    float
        ``sqrt(d_k)``.

    Raises
    ------
    InvalidInputError
        ``d_k`` is not a positive integer.

    Examples
    --------
    >>> standard_temperature(64)
    8.0
    >>> from tropattn.attention._soft import soft_weights
    >>> bool(np.isclose(soft_weights(([[8], [0]],), [[1.0]], standard_temperature(64))[0, 0],
    ...                 1 / (1 + np.exp(-1.0))))        # raw scores 8 and 0: softmax of (1, 0)
    True
    """
    return math.sqrt(_key_dimension(d_k))


def paper_temperature(d_k: int) -> float:
    """The paper's "standard" temperature ``1/sqrt(d_k)`` on raw ``q.k`` (a ``d_k`` times sharper softmax).

    The convention trap of docs/THEORY.md §5: this is ``1 / d_k`` times
    :func:`standard_temperature`.

    Parameters
    ----------
    d_k : int
        Key dimension ``>= 1``.

    Returns
    -------
    float
        ``1 / sqrt(d_k)``.

    Raises
    ------
    InvalidInputError
        ``d_k`` is not a positive integer.

    Examples
    --------
    >>> paper_temperature(64)
    0.125
    >>> standard_temperature(64) / paper_temperature(64)
    64.0
    """
    return 1.0 / standard_temperature(d_k)


def raw_score_form(W_Q, context_keys, b_Q=None, d_k=None):
    """Standard attention as exact score form plus temperature.

    Scores of standard attention are ``q . k_j / sqrt(d_k)`` with ``q = W_Q x + b_Q``.
    Keep the raw scores exact: ``a_j = W_Q^T k_j``, ``b_j = b_Q . k_j`` and put
    ``sqrt(d_k)`` (irrational in general) into ``tau = sqrt(d_k)``.  The hard
    skeleton does not depend on ``tau``; the soft map at ``tau`` is standard
    attention exactly when ``tau = sqrt(d_k)`` (``d_k`` defaults to the rows of ``W_Q``).

    Parameters
    ----------
    W_Q : array_like, shape (d_k, d)
        Query weights (exact rationals).
    context_keys : array_like, shape (N, d_k)
        The keys ``k_j`` of the fixed context.
    b_Q : array_like, shape (d_k,), optional
        Query bias (default 0).
    d_k : int, optional
        Key dimension of the ``sqrt(d_k)`` (default: the rows of ``W_Q``).

    Returns
    -------
    tuple
        ``(keys, offsets, tau)``: keys ``(N, d)`` and offsets ``(N,)`` as exact tuples
        of Fractions, ``tau = sqrt(d_k)`` a float.

    Raises
    ------
    InvalidInputError
        A matrix or vector of the wrong shape or with a NaN or infinite entry, or
        ``d_k < 1``.

    Examples
    --------
    >>> keys, offsets, tau = raw_score_form([[1, 0], [0, 1]], [[2, 0], [0, 4]], b_Q=[1, 1])
    >>> [[int(v) for v in k] for k in keys], [int(v) for v in offsets], tau
    ([[2, 0], [0, 4]], [2, 4], 1.4142135623730951)
    """
    W = to_rational_matrix(W_Q, "W_Q")
    K = to_rational_matrix(context_keys, "context_keys", cols=len(W))
    bq = (Fraction(0),) * len(W) if b_Q is None else to_rational_vector(b_Q, "b_Q", len(W))
    keys = tuple(tuple(sum(W[r][c] * k[r] for r in range(len(W))) for c in range(len(W[0]))) for k in K)
    offsets = tuple(sum(q * kr for q, kr in zip(bq, k)) for k in K)
    return keys, offsets, standard_temperature(len(W) if d_k is None else d_k)


def convention_check(raw_margin: float = 2.0, d_k: int = 64, n_keys: int = 2, verbose: bool = False) -> dict:
    """Both temperature conventions on one example: the paper's e^{-16} against the standard e^{-0.25}.

    The trap: with raw scores ``q . k``, standard attention divides by ``sqrt(d_k)``,
    i.e. runs at ``tau = sqrt(d_k)`` (8 for ``d_k = 64``).  The paper calls
    ``tau = 1/sqrt(d_k)`` (0.125) standard, so its defect ``e^{-Delta/tau}`` with a raw
    margin ``Delta = 2`` is ``e^{-16}`` where a real transformer has ``e^{-0.25}``: a
    ``d_k = 64`` times sharper softmax, and a defect about 1e6 times smaller.
    The exact weight defect uses ``n_keys - 1`` losers tied at the margin (worst case).
    See docs/THEORY.md §5.

    Parameters
    ----------
    raw_margin : float, optional
        Margin ``Delta`` of the raw scores ``q . k`` (default 2).
    d_k : int, optional
        Key dimension (default 64).
    n_keys : int, optional
        Number of keys ``N >= 1`` (default 2).
    verbose : bool, optional
        Also print one line per convention (default False).

    Returns
    -------
    dict
        ``raw_margin``, ``d_k``, ``n_keys``, ``sharpness`` (ratio of the two τ) and, under
        ``"paper"`` and ``"standard"``: ``tau``, ``exponent`` (``-Delta/tau``),
        ``e_exponent``, ``weight_defect`` (attained ``1 - p*``) and ``weight_bound``.

    Raises
    ------
    InvalidInputError
        ``d_k < 1`` or ``n_keys < 1``.

    Examples
    --------
    >>> c = convention_check()
    >>> c["paper"]["exponent"], c["standard"]["exponent"], c["sharpness"]
    (-16.0, -0.25, 64.0)
    >>> round(c["standard"]["weight_defect"], 3)                   # 1 / (1 + e^{0.25})
    0.438
    """
    out = {"raw_margin": float(raw_margin), "d_k": _key_dimension(d_k), "n_keys": int(n_keys)}
    for name, tau in (("paper", paper_temperature(d_k)), ("standard", standard_temperature(d_k))):
        x = -float(raw_margin) / tau
        _, exact = weight_bounds(raw_margin, tau, n_keys, sharp=True)
        out[name] = {"tau": tau, "exponent": x, "e_exponent": math.exp(x), "weight_defect": float(exact),
                     "weight_bound": float(weight_bounds(raw_margin, tau, n_keys)[1])}
    out["sharpness"] = out["standard"]["tau"] / out["paper"]["tau"]
    if verbose:
        for name in ("paper", "standard"):
            r = out[name]
            print(f"{name:>8}: tau = {r['tau']:g} on raw q.k, Delta/tau = {-r['exponent']:g}, "
                  f"e^(-Delta/tau) = {r['e_exponent']:.3e}, 1 - p* = {r['weight_defect']:.3e}")
        print(f"the paper's softmax is {out['sharpness']:g} times sharper than standard attention")
    return out
