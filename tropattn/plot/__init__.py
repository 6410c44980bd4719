"""Pictures of zero- and finite-temperature attention (d = 1 or 2 only).

Three attention pictures, each saved as a PNG with matplotlib's Agg backend (imported lazily,
inside the functions, so ``import tropattn`` never needs a display):

* :func:`plot_power_diagram` -- one head's power diagram: the cells where each key
  wins the argmax, coloured by key, with the sites ``a_j`` marked and labelled;
* :func:`plot_overlay` -- each head's diagram and their common refinement, the
  zero-temperature regions of the layer (docs/THEORY.md §3).  The overlay is itself a power
  diagram: ``sum_h max_j (a_hj . x + b_hj) = max over tuples (j_1, ..., j_H)`` of the
  summed affine functions, so its cells are computed exactly by
  :class:`tropattn.power.PowerDiagram` on the summed keys (pruned to non-hidden tuples
  one head at a time) and labelled by tuples;
* :func:`plot_soft_weights` -- soft attention at several temperatures over the exact
  cell boundaries: each pixel mixes the key colours with the soft weights, and a
  second row shows ``log10(1 - p*)``, the weight defect, which decays
  exponentially with the distance to the walls (docs/THEORY.md §5);
* :mod:`tropattn.plot._tasks` -- the structured tasks of docs/THEORY.md §9: Dyck accuracy
  against beta with the knockout bars, layer 2's exact query-space partition, and the
  Markov surrogate's loss plateaus with per-head attention heat maps; the trained Dyck models'
  training curves, probe R² per layer and accuracy under each intervention; the trained Markov
  student's loss beside the surrogate's.

and three teaching pictures (:mod:`tropattn.plot._curves`): a tropical curve beside the
Newton polygon with its regular subdivision (:func:`plot_tropical_curve`, or a tropical
surface for d = 3), and two heads as the Minkowski sum of their lifted Newton polytopes
beside the overlay of their power diagrams (:func:`plot_minkowski_heads`).

* :func:`plot_slice` -- the exact activation regions of a 1- or 2-D slice of a deep
  model (e.g. a real checkpoint), labelled by the tokens each head attends to.

and the interactive 3-D page (:mod:`tropattn.plot._plotly`, the optional extra ``plotly``):
:func:`plot_3d` (or :func:`plot` with ``backend="plotly"``) writes a self-contained HTML file
with one turnable ``Mesh3d`` per exact cell -- power cells in ``d = 3``, the linear regions of a
tropical surface, a lifted polytope, the regions of a 3-D slice; :func:`plotly_figure` gives the
figure itself.  In a notebook, 2-D objects also draw themselves as SVG (``_repr_svg_``, see
:mod:`tropattn._display`).

The cell geometry is exact (rational clipping in :mod:`tropattn.power`); only the
drawing is in floats.  Queries in ``d > 2`` have no picture: project them or pick two
coordinates first (:class:`~tropattn.errors.InvalidInputError` says so).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "overlay.png")
>>> heads = [([[0], [1]], [0, 0]), ([[0], [1]], [0, -1])]    # walls at x = 0 and x = 1
>>> str(plot_overlay(heads, (-2, 2), path)) == path and os.path.getsize(path) > 0
True
"""

from ._dynamics import (plot_energy, plot_fixed_points, plot_hardmax, plot_mean_field, plot_order_parameter, plot_threshold,
                        plot_trajectories, plot_wasserstein)
from ._curves import curve_box, plot_minkowski_heads, plot_tropical_curve
from ._plotly import plot, plot_3d, plotly_figure
from ._power import plot_overlay, plot_power_diagram
from ._slices import plot_slice
from ._soft import plot_soft_weights
from ._tasks import (plot_dyck_accuracy, plot_dyck_interventions, plot_dyck_partition, plot_dyck_probes,
                     plot_dyck_training, plot_markov_run, plot_markov_student)

__all__ = ["plot_power_diagram", "plot_overlay", "plot_soft_weights", "curve_box", "plot_tropical_curve",
           "plot_minkowski_heads", "plot_dyck_accuracy", "plot_dyck_partition", "plot_markov_run",
           "plot_dyck_training", "plot_dyck_probes", "plot_dyck_interventions", "plot_markov_student",
           "plot_trajectories", "plot_hardmax", "plot_energy", "plot_order_parameter", "plot_threshold",
           "plot_mean_field", "plot_fixed_points", "plot_wasserstein", "plot_slice", "plot",
           "plot_3d", "plotly_figure"]
