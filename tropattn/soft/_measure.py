r"""Measured defects of soft attention against the §5 bounds, pointwise and over δ-regions.

:func:`pointwise_defects` evaluates, at each query point, the weight, output and Jacobian
defects of one head or of a sum of heads and their margin bounds (:mod:`~tropattn.soft._bounds`),
all as natural logarithms: every defect is computed in log space around the winner
(:func:`~tropattn.soft._kernel.head_terms`), so ``ln ||y_tau - v_{j*}|| = ln(1 - p*) + ln ||w||``
stays finite long after ``e^{-Delta/tau}`` underflows float64, and ratios defect / bound
are differences of logarithms.  :func:`measure` samples a box
(:func:`tropattn.attention.sample_points`; exact labels), keeps the points at distance
``>= delta`` from the walls, and summarises each temperature in a :class:`StabilityRow`.

>>> pd = pointwise_defects(([[1], [-1]], None, [[0.0], [1.0]]), [[1.0]], 0.5)
>>> bool(pd.log_weight_lower[0, 0] <= pd.log_weight[0, 0] <= pd.log_weight_upper[0, 0])
True
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

from .._doc import fill_doc
from .._validate import positive_float
from ..attention import as_heads, sample_points
from ..errors import DegenerateInputError
from ._bounds import delta_region_bounds, jacobian_bound, output_bound, predicted_band_width, weight_bounds
from ._kernel import DOC, check_tau, head_terms, raw_temperature

__all__ = ["PointwiseDefects", "pointwise_defects", "DefectStats", "StabilityRow", "measure"]

#: Relative rounding allowed when a measured ratio is compared with its bound (``<= 1``).
ROUNDING = 1e-9


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


@fill_doc(**DOC)
def pointwise_defects(heads, X, tau, labels=None) -> PointwiseDefects:
    """Measured defects and their bounds at each point, for one head or a sum of heads.

    For several heads (one layer, outputs summed) the hard output is
    ``sum_h v^h_{j*_h}``, and the defect of the sum is at most the sum of the heads'
    bounds.  ``labels`` (shape ``(H, n)``) defaults to the float argmax; pass
    :func:`hard_labels` for exact cells.

    Parameters
    ----------
    %(heads)s
    X : array_like, shape (n, d) or (d,)
        Finite float query points.
    %(tau)s
    labels : array_like of int, shape (H, n), optional
        The winning key of each head at each point, in ``range(N_h)``.

    Returns
    -------
    PointwiseDefects
        Natural logarithms of the defects and bounds, per head and per point.

    Raises
    ------
    InvalidInputError
        a head :func:`~tropattn.attention.as_heads` cannot read, ``X`` of the wrong shape or not finite, a bad ``tau``, or a
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
    X = hs[0].points(X)
    ts = [raw_temperature(h, tau) for h in hs]  # per head: tau on the raw scores
    if labels is not None:
        labels = np.asarray(labels).reshape(len(hs), X.shape[0])
    parts = [head_terms(h, X, t, None if labels is None else labels[i]) for i, (h, t) in enumerate(zip(hs, ts))]
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

    @property
    def within_bounds(self) -> bool:
        """Every measured ratio within its bound, up to rounding (a relative ``1e-9``).

        Examples
        --------
        >>> measure(([[1], [-1]],), [0.5], delta=0.1, box=(-1, 1), n_samples=50)[0].within_bounds
        True
        """
        slack = 1 + ROUNDING
        return bool(self.weights.ratio <= slack and self.output.ratio <= slack and self.jacobian.ratio <= slack
                    and self.weight_lower_ratio >= 1 / slack and self.band_width <= self.band_width_predicted * slack)

    def as_dict(self) -> dict:
        """The row as nested plain dicts (:func:`dataclasses.asdict`), e.g. for JSON.

        Returns
        -------
        dict
            The fields above; ``weights``, ``output`` and ``jacobian`` are dicts of the
            :class:`DefectStats` fields.  Non-finite floats are kept (the command line's
            ``tropattn stability`` prints a JSON-safe summary).

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


@fill_doc(**DOC)
def measure(heads, taus, delta: float = 0.0, box=None, n_samples: int = 2000, seed: int = 0,
            eps: float = 1e-3) -> tuple:
    """Measured defects against the §5 bounds, one :class:`StabilityRow` per τ.

    Samples ``n_samples`` uniform points of ``box`` (:func:`tropattn.attention.sample_points`; exact
    labels), keeps those at distance ``>= delta`` from every wall of their cell, and
    evaluates at each kept point the defects and the margin bounds (in log space).
    ``heads`` is one head or a list of heads whose outputs are summed.

    Parameters
    ----------
    %(heads)s
    taus : float or sequence of float
        Temperatures on the scaled scores, each finite and ``>= TAU_MIN``.
    delta : float, optional
        Distance from the walls of the measured points, ``>= 0`` (default 0).
    box : None, number or pair, optional
        The sampling box, as :func:`tropattn.attention.resolve_box` reads it (default
        :func:`tropattn.attention.default_box`).
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
        A bad ``tau``, ``delta``, ``box``, ``n_samples`` or ``eps`` (not ``> 0``), or a
        head :func:`~tropattn.attention.as_heads` cannot read.
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
    eps = positive_float(eps, "eps", meaning="the output defect threshold")
    hs = as_heads(heads)
    taus = [check_tau(t) for t in (np.atleast_1d(taus) if not isinstance(taus, (list, tuple)) else taus)]
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
