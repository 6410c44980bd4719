r"""Soft against hard attention, in floats: the softmax kernel, the §5 bounds, measured defects.

A head scores a query by ``s_j(x) = a_j . x + b_j``; at temperature ``tau > 0`` it outputs
``y_tau(x) = sum_j softmax(s(x) / tau)_j v_j``, and as ``tau -> 0`` the hard skeleton
``v_{j*(x)}``, piecewise constant on the cells of a power diagram (docs/THEORY.md §2, §5).

* **kernel** -- :func:`softmax`, :func:`log_softmax`, :func:`logsumexp` (the one stable
  softmax of tropattn, any axis), :func:`attend` (the one float forward of attention, used by
  ``dynamics``, ``tasks`` and ``io``), and per head :func:`scores`, :func:`margin`,
  :func:`soft_weights`, :func:`log_soft_weights`, :func:`soft_output`, :func:`soft_jacobian`;
* **bounds** -- :func:`weight_bounds`, :func:`output_bound`, :func:`jacobian_bound`,
  :func:`delta_region_bounds`, :func:`predicted_band_width`;
* **measurement** -- :func:`pointwise_defects` (:class:`PointwiseDefects`), :func:`measure`
  (:class:`StabilityRow` of :class:`DefectStats` per temperature);
* **reference** -- :func:`reference_defects`, the plain definitions in mpmath;
* **conventions** -- :func:`standard_temperature`, :func:`paper_temperature`,
  :func:`raw_score_form`, :func:`compare_conventions` (:class:`ConventionComparison`).

Temperatures below ``1e-9`` are refused (float64 log space cannot resolve ``margin / tau``
there; :func:`reference_defects` can).  The boxes, samples and exact labels these functions
measure on are :mod:`tropattn.attention`'s (:func:`~tropattn.attention.sample_points`,
:func:`~tropattn.attention.hard_labels`): pictures use them too.

>>> import numpy as np
>>> head = ([[0, 0], [2, 0]], [0, -2])          # s_0 = 0, s_1 = 2 x_1 - 2: wall x_1 = 1
>>> float(margin(head, [[0.0, 0.0]])[0])        # margin 2 at the origin
2.0
>>> lower, upper = weight_bounds(2.0, 1.0, 2)   # N = 2: the lower bound is attained
>>> bool(np.isclose(1 - soft_weights(head, [[0.0, 0.0]], 1.0)[0, 0], lower))
True
"""

from .._face import face
from ._bounds import delta_region_bounds, jacobian_bound, output_bound, predicted_band_width, weight_bounds
from ._conventions import (ConventionComparison, compare_conventions, paper_temperature, raw_score_form,
                           standard_temperature)
from ._kernel import (attend, log_soft_weights, log_softmax, logsumexp, margin, scores, soft_jacobian, soft_output,
                      soft_weights, softmax)
from ._measure import DefectStats, PointwiseDefects, StabilityRow, measure, pointwise_defects
from ._reference import reference_defects

__all__ = [
    "softmax", "log_softmax", "logsumexp", "attend",
    "scores", "margin", "soft_weights", "log_soft_weights", "soft_output", "soft_jacobian",
    "weight_bounds", "output_bound", "jacobian_bound", "delta_region_bounds", "predicted_band_width",
    "PointwiseDefects", "pointwise_defects", "DefectStats", "StabilityRow", "measure",
    "reference_defects",
    "standard_temperature", "paper_temperature", "raw_score_form", "ConventionComparison", "compare_conventions",
]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "TAU_MIN": "the documented floor tau >= 1e-9 (internal: tropattn.soft._kernel.TAU_MIN)",
    "stability_report": "tropattn.soft.measure (the rows); the JSON report is the CLI's: tropattn stability",
    "convention_check": "tropattn.soft.compare_conventions (a record); the CLI's report: tropattn conventions",
    "cell_walls": "tropattn.attention.cell_walls",
    "wall_distance": "tropattn.attention.wall_distance",
    "default_box": "tropattn.attention.default_box",
    "resolve_box": "tropattn.attention.resolve_box",
    "sample_points": "tropattn.attention.sample_points",
    "hard_labels": "tropattn.attention.hard_labels",
})
