"""Exact activation and linear regions of small hard-attention transformers.

>>> from tropattn.attention import sawtooth_model
>>> len(enumerate_regions(sawtooth_model(1, 3, 2)).activation_regions)   # N^(dL) = 9
9
"""

from ._affine import AffineMap
from ._brute_force import brute_force_regions
from ._search import ActivationRegion, RegionSet, box_rows, enumerate_regions, group_linear_regions, overlay_regions
from ._export import CSV_COLUMNS, REGION_SCHEMA, RegionWriter, region_record

__all__ = ["AffineMap", "ActivationRegion", "RegionSet", "enumerate_regions", "overlay_regions",
           "brute_force_regions", "group_linear_regions", "box_rows",
           "RegionWriter", "region_record", "REGION_SCHEMA", "CSV_COLUMNS"]
