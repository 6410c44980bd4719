"""tropattn: exact polyhedral geometry of transformer attention.

The public API is what ``__all__`` lists; every name is also importable from the
subpackage that owns it (``tropattn.exact``, ``tropattn.geometry``, ``tropattn.tropical``,
``tropattn.attention``, ``tropattn.regions``, ``tropattn.io``) or from the modules
``tropattn.region_bounds`` and ``tropattn.temperature``.

The names are loaded on first use (PEP 562): ``import tropattn`` costs a few
milliseconds, and a command such as ``tropattn regions`` imports only the
subpackages it needs.  ``tropattn.<name>`` and ``from tropattn import <name>``
behave exactly as eager imports would.

>>> import tropattn as ta
>>> len(ta.parse_polynomial("max(0, x)").linear_regions())       # max(0, x) has 2 linear regions
2
>>> len(ta.enumerate_regions(ta.sawtooth_model(1, 3, 2)).activation_regions)   # N^(dL) = 9
9
"""

import importlib

from ._version import __version__

#: Every public name, by the module that owns it (relative to this package).  ``slice`` is
#: ``attention.slicing.slice_model`` under a short name.
_PUBLIC = {
    "_config": ("config",),
    "errors": ("TropattnError", "InvalidInputError", "DegenerateInputError", "TieError", "QuadraticWallError",
               "ModelFileError", "Interrupted", "InternalError"),
    "exact": ("NEG_INF", "to_rational", "to_rational_vector", "to_rational_matrix", "Certificate", "interior_point",
              "relative_interior_point", "FacetSet", "facets", "COUNTERS", "counting"),
    "geometry": ("Polytope", "convex_hull", "minkowski_sum", "UpperHull", "upper_hull", "upper_vertex_count",
                 "NormalCone", "normal_fan", "PowerCell", "PowerDiagram"),
    "tropical": ("tropical_add", "tropical_mul", "TropicalPolynomial", "LinearRegion", "TropicalRationalFunction",
                 "TropicalRationalMap", "common_refinement", "parse_polynomial", "polynomial_from_json",
                 "polynomial_to_json"),
    "attention": ("Head", "FFN", "Layer", "Transformer", "MultiHeadAttention", "count_dual", "grid_heads",
                  "grid_model", "sawtooth_model", "sawtooth_count", "random_model"),
    "attention._slicing": ("slice", "slice_model", "slice_through", "token_points"),
    "attention._soft": ("margin", "soft_weights", "soft_output", "soft_jacobian"),
    "regions": ("AffineMap", "ActivationRegion", "RegionSet", "enumerate_regions", "overlay_regions",
                "brute_force_regions", "group_linear_regions"),
    "region_bounds": ("Bounds", "bounds", "product_bound", "arrangement_bound", "line_bound", "layer_bound",
                      "ffn_factor", "deep_bound"),
    "temperature": ("weight_bounds", "measure", "stability_report", "convention_check"),
    "io": ("load", "save", "model_from_json", "model_to_json", "from_torch", "load_gpt2", "Skeleton"),
}
_ALIASES = {"slice": "slice_model"}
_OWNER = {name: module for module, names in _PUBLIC.items() for name in names}
#: Subpackages and modules reachable as attributes (``tropattn.geometry.PowerDiagram``), loaded on first use.
_MODULES = ("exact", "geometry", "tropical", "attention", "regions", "backends", "io", "dynamics", "tasks", "plot",
            "cli", "region_bounds", "temperature", "table", "exercises", "errors")

__all__ = ["__version__", *_OWNER]


def __getattr__(name):
    """Load a public name from the module that owns it, on first use (PEP 562).

    ``import tropattn`` then costs milliseconds, and a command such as ``tropattn regions``
    imports only the subpackages it needs; ``tropattn.<name>`` and ``from tropattn import
    <name>`` behave as eager imports would.
    """
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name not in _OWNER:
        raise AttributeError(f"module 'tropattn' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_OWNER[name]}", __name__), _ALIASES.get(name, name))
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
