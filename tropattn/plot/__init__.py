"""Pictures of zero- and finite-temperature attention (d = 1 or 2 only).

Three pictures, each saved as a PNG with matplotlib's Agg backend (imported lazily,
inside the functions, so ``import tropattn`` never needs a display):

* :func:`plot_power_diagram` -- one head's power diagram: the cells where each key
  wins the argmax, coloured by key, with the sites ``a_j`` marked and labelled;
* :func:`plot_overlay` -- each head's diagram and their common refinement, the
  zero-temperature regions of the layer (THEORY §3).  The overlay is itself a power
  diagram: ``sum_h max_j (a_hj . x + b_hj) = max over tuples (j_1, ..., j_H)`` of the
  summed affine functions, so its cells are computed exactly by
  :class:`tropattn.power.PowerDiagram` on the summed keys (pruned to non-hidden tuples
  one head at a time) and labelled by tuples;
* :func:`plot_soft_weights` -- soft attention at several temperatures over the exact
  cell boundaries: each pixel mixes the key colours with the soft weights, and a
  second row shows ``log10(1 - p*)``, the weight defect, which decays
  exponentially with the distance to the walls (THEORY §5).

* :func:`plot_slice` -- the exact activation regions of a 1- or 2-D slice of a deep
  model (e.g. a real checkpoint), labelled by the tokens each head attends to.

The cell geometry is exact (rational clipping in :mod:`tropattn.power`); only the
drawing is in floats.  Queries in ``d > 2`` have no picture: project them or pick two
coordinates first (:class:`~tropattn.errors.InvalidInputError` says so).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "overlay.png")
>>> heads = [([[0], [1]], [0, 0]), ([[0], [1]], [0, -1])]    # walls at x = 0 and x = 1
>>> str(plot_overlay(heads, (-2, 2), path)) == path and os.path.getsize(path) > 0
True
"""

from .power import plot_overlay, plot_power_diagram
from .slices import plot_slice
from .soft import plot_soft_weights

__all__ = ["plot_power_diagram", "plot_overlay", "plot_soft_weights", "plot_slice"]
