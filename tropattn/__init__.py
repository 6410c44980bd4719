"""tropattn: exact polyhedral geometry of transformer attention.

Everything a test, a script or a user needs is importable from here:

>>> import tropattn as ta
>>> ta.parse_polynomial("max(0, x)").linear_regions().__len__()      # max(0, x) has 2 linear regions
2
>>> len(ta.enumerate_regions(ta.sawtooth_model(1, 3, 2)).activation_regions)   # N^(dL) = 9
9
"""

from .errors import (DegenerateInputError, InvalidInputError, Interrupted, ModelFileError,  # noqa: F401
                     QuadraticWallError, TieError, TropattnError)
from .exact import (COUNTERS, NEG_INF, Certificate, FacetSet, counting, facets, interior_point,  # noqa: F401
                    relative_interior_point, to_rational, to_rational_matrix, to_rational_vector)
from .polytope import (NormalCone, Polytope, UpperHull, convex_hull, minkowski_sum, normal_fan,  # noqa: F401
                       upper_hull, upper_vertex_count)
from .tropical import (LinearRegion, TropicalPolynomial, TropicalRationalFunction,  # noqa: F401
                       TropicalRationalMap, common_refinement, parse_polynomial, polynomial_from_json,
                       polynomial_to_json, tropical_add, tropical_mul)
from .power import PowerCell, PowerDiagram  # noqa: F401
from .attention import FFN, Head, Layer, MultiHeadAttention, Transformer, count_dual  # noqa: F401
from .regions import (ActivationRegion, AffineMap, RegionSet, brute_force_regions,  # noqa: F401
                      enumerate_regions, overlay_regions)
from .bounds import (Bounds, arrangement_bound, bounds, deep_bound, ffn_factor, grid_heads,  # noqa: F401
                     grid_model, layer_bound, line_bound, product_bound, random_model, sawtooth_count,
                     sawtooth_model)
from .temperature import (convention_check, margin, measure, soft_jacobian, soft_output,  # noqa: F401
                          soft_weights, stability_report, weight_bounds)
from .io import (load_json, load_model, load_npz, load_sites, model_from_json, model_to_json,  # noqa: F401
                 save_model, save_npz)

__version__ = "0.1.0"
