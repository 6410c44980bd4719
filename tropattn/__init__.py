"""tropattn: exact polyhedral geometry of transformer attention.

The public API is what ``__all__`` lists; every name is also importable from the
subpackage that owns it (``tropattn.exact``, ``tropattn.geometry``, ``tropattn.tropical``,
``tropattn.attention``, ``tropattn.regions``, ``tropattn.io``) or from the modules
``tropattn.region_bounds`` and ``tropattn.temperature``.

>>> import tropattn as ta
>>> len(ta.parse_polynomial("max(0, x)").linear_regions())       # max(0, x) has 2 linear regions
2
>>> len(ta.enumerate_regions(ta.sawtooth_model(1, 3, 2)).activation_regions)   # N^(dL) = 9
9
"""

from ._version import __version__
from .attention.slicing import slice_model, slice_model as slice, slice_through, token_points  # noqa: A004
from .attention.soft import margin, soft_jacobian, soft_output, soft_weights
from .attention import (FFN, Head, Layer, MultiHeadAttention, Transformer, count_dual, grid_heads, grid_model,
                        random_model, sawtooth_count, sawtooth_model)
from .errors import (DegenerateInputError, InternalError, Interrupted, InvalidInputError, ModelFileError,
                     QuadraticWallError, TieError, TropattnError)
from .exact import (COUNTERS, NEG_INF, Certificate, FacetSet, counting, facets, interior_point,
                    relative_interior_point, to_rational, to_rational_matrix, to_rational_vector)
from .geometry import (NormalCone, Polytope, PowerCell, PowerDiagram, UpperHull, convex_hull, minkowski_sum,
                       normal_fan, upper_hull, upper_vertex_count)
from .io import (Skeleton, from_torch, load_gpt2, load_json, load_model, load_npz, load_sites, model_from_json,
                 model_to_json, save_model, save_npz)
from .region_bounds import (Bounds, arrangement_bound, bounds, deep_bound, ffn_factor, layer_bound, line_bound,
                            product_bound)
from .regions import (ActivationRegion, AffineMap, RegionSet, brute_force_regions, enumerate_regions,
                      group_linear_regions, overlay_regions)
from .temperature import convention_check, measure, stability_report, weight_bounds
from .tropical import (LinearRegion, TropicalPolynomial, TropicalRationalFunction, TropicalRationalMap,
                       common_refinement, parse_polynomial, polynomial_from_json, polynomial_to_json, tropical_add,
                       tropical_mul)

__all__ = [
    "__version__",
    # errors
    "TropattnError", "InvalidInputError", "DegenerateInputError", "TieError", "QuadraticWallError",
    "ModelFileError", "Interrupted", "InternalError",
    # exact
    "NEG_INF", "to_rational", "to_rational_vector", "to_rational_matrix", "Certificate", "interior_point",
    "relative_interior_point", "FacetSet", "facets", "COUNTERS", "counting",
    # geometry
    "Polytope", "convex_hull", "minkowski_sum", "UpperHull", "upper_hull", "upper_vertex_count", "NormalCone",
    "normal_fan", "PowerCell", "PowerDiagram",
    # tropical
    "tropical_add", "tropical_mul", "TropicalPolynomial", "LinearRegion", "TropicalRationalFunction",
    "TropicalRationalMap", "common_refinement", "parse_polynomial", "polynomial_from_json", "polynomial_to_json",
    # attention
    "Head", "FFN", "Layer", "Transformer", "MultiHeadAttention", "count_dual", "grid_heads", "grid_model",
    "sawtooth_model", "sawtooth_count", "random_model", "slice", "slice_model", "slice_through", "token_points",
    # regions
    "AffineMap", "ActivationRegion", "RegionSet", "enumerate_regions", "overlay_regions", "brute_force_regions",
    "group_linear_regions",
    # bounds and temperature
    "Bounds", "bounds", "product_bound", "arrangement_bound", "line_bound", "layer_bound", "ffn_factor",
    "deep_bound", "margin", "weight_bounds", "soft_weights", "soft_output", "soft_jacobian", "measure",
    "stability_report", "convention_check",
    # io
    "load_json", "load_model", "save_model", "model_from_json", "model_to_json", "load_npz", "save_npz",
    "load_sites", "from_torch", "load_gpt2", "Skeleton",
]
