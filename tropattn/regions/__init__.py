"""Exact activation and linear regions of small hard-attention transformers.

* :func:`count_regions` -- how many regions (``method="auto" | "primal" | "dual"``), a :class:`RegionCount`;
* :func:`enumerate_regions` -- every region, certified (``keep="all" | "counts"`` or a callback), a
  :class:`RegionSet` of :class:`ActivationRegion` with their :class:`AffineMap`; :func:`overlay_regions`
  for the heads of one layer, :func:`group_linear_regions` for linear regions of kept regions;
* :func:`label` -- which region points are in: a head's key or a model's activation pattern, exactly;
* :class:`RegionWriter` -- every region streamed to JSON lines or CSV as it is found;
* :func:`brute_force_regions` -- the independent oracle (every label tuple, one LP each).

A head's argmax cuts the query space into power cells; each layer of a sawtooth model folds
every coordinate into ``N`` pieces again, so ``L`` layers in ``d`` dimensions make ``N^(dL)``
regions, each certified by an exact interior point:

>>> from tropattn.attention import sawtooth_model
>>> len(enumerate_regions(sawtooth_model(1, 3, 2)).activation_regions)   # N^(dL) = 9
9
>>> count_regions(sawtooth_model(2, 3, 2)).n_activation                    # 3^(2*2), none held
81
"""

from .._face import face
from ._affine import AffineMap
from ._brute_force import brute_force_regions
from ._count import RegionCount, count_regions
from ._export import RegionWriter
from ._label import label
from ._results import ActivationRegion, RegionSet, group_linear_regions
from ._search import enumerate_regions, overlay_regions

__all__ = ["count_regions", "RegionCount", "enumerate_regions", "RegionSet", "ActivationRegion", "AffineMap",
           "overlay_regions", "group_linear_regions", "label", "RegionWriter", "brute_force_regions"]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "box_rows": "enumerate_regions(model, box=(lo, hi)) or count_regions(model, box=(lo, hi)), which take the box",
    "region_record": "internal; RegionWriter writes one such record per region",
    "REGION_SCHEMA": "internal; every file RegionWriter writes names its schema ('tropattn.regions/1') in its header",
    "CSV_COLUMNS": "internal; the CSV written by RegionWriter has a header row naming its columns",
})
