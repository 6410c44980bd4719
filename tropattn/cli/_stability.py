"""The soft-attention reports of the command line: ``tropattn stability`` and ``tropattn conventions``.

The numbers come from :mod:`tropattn.soft` (:func:`~tropattn.soft.measure`,
:func:`~tropattn.soft.compare_conventions`); this module only shapes them for the command
line: JSON-ready dicts (every ``inf`` or NaN replaced by None) and the printed lines.

>>> c = convention_check()
>>> c["paper"]["exponent"], c["standard"]["exponent"], c["sharpness"]
(-16.0, -0.25, 64.0)
"""

from __future__ import annotations

import math
from dataclasses import asdict

import numpy as np

from ..attention import as_heads, resolve_box
from ..soft import compare_conventions, measure

__all__ = ["stability_report", "convention_check"]


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
    """A JSON-ready summary of :func:`tropattn.soft.measure` for the ``tropattn stability`` command.

    ``delta`` defaults to 2% of the smallest box side.  Each row has ``tau``,
    ``max_defect`` (sup output defect ``||y_tau - y_0||`` on the δ-region), ``bound``
    (sup of the pointwise bound there), ``ratio`` (max pointwise measured / bound,
    ``<= 1``), ``sup_ratio``, ``uniform_bound``, ``log10_defect``, ``log10_bound``,
    ``fraction_below_eps``, ``band_width``, ``band_width_predicted`` and the same
    statistics for the weights and the Jacobian under ``"weights"`` / ``"jacobian"``.

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        Anything :func:`tropattn.attention.as_heads` reads; several heads have
        their outputs summed.
    taus : sequence of float, optional
        Temperatures (default ``(0.05, 0.2, 1.0)``).
    delta : float, optional
        Distance from the walls (default 2% of the smallest side of the box).
    box : None, number or pair, optional
        The sampling box, as :func:`tropattn.attention.resolve_box` reads it.
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
        As :func:`tropattn.soft.measure`.
    DegenerateInputError
        As :func:`tropattn.soft.measure`.

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
    ok = all(r.within_bounds for r in rows)
    return _json_safe({"heads": len(hs), "keys": [h.N for h in hs], "dim": hs[0].dim, "dim_out": hs[0].dim_out,
            "box": [lo.tolist(), hi.tolist()], "delta": float(delta), "n_samples": int(n_samples),
            "seed": seed, "eps": float(eps), "within_bounds": ok, "scope": scope, "rows": out_rows,
            "convention": "scores are s_j = a_j.x + b_j at temperature tau; standard attention "
                          "softmax(q.k/sqrt(d_k)) is tau = 1 on scaled scores, tau = sqrt(d_k) on raw q.k"})


def convention_check(raw_margin: float = 2.0, d_k: int = 64, n_keys: int = 2, verbose: bool = False) -> dict:
    """:func:`tropattn.soft.compare_conventions` as a dict, for ``tropattn conventions`` (and printed).

    Parameters
    ----------
    raw_margin, d_k, n_keys
        As :func:`tropattn.soft.compare_conventions` (defaults 2, 64 and 2).
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
        As :func:`tropattn.soft.compare_conventions`.

    Examples
    --------
    >>> round(convention_check()["standard"]["weight_defect"], 3)          # 1 / (1 + e^{0.25})
    0.438
    """
    c = compare_conventions(raw_margin, d_k, n_keys)
    out = {**asdict(c), "sharpness": c.sharpness}
    if verbose:
        for name in ("paper", "standard"):
            r = out[name]
            print(f"{name:>8}: tau = {r['tau']:g} on raw q.k, Delta/tau = {-r['exponent']:g}, "
                  f"e^(-Delta/tau) = {r['e_exponent']:.3e}, 1 - p* = {r['weight_defect']:.3e}")
        print(f"the paper's softmax is {out['sharpness']:g} times sharper than standard attention")
    return out
