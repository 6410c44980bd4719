"""tropattn: exact polyhedral geometry of transformer attention.

The root face holds about fifty task names; each subpackage has its own face (its
``__init__`` and ``__all__``) and keeps its implementation in private modules:

* files -- :func:`load`, :func:`save` (model files, ``.npz``, sites, polynomials, checkpoints),
  :func:`from_torch`, :func:`load_gpt2`, :class:`Skeleton` (:mod:`tropattn.io`);
* polyhedra -- :class:`Polytope`, :func:`convex_hull`, :func:`minkowski_sum`, :func:`upper_hull`,
  :func:`normal_fan`, :class:`PowerDiagram`, :func:`interior_point` (:mod:`tropattn.geometry`,
  :mod:`tropattn.exact`);
* tropical algebra -- :func:`parse_polynomial`, :class:`TropicalPolynomial`, rational functions and
  maps, :func:`common_refinement` (:mod:`tropattn.tropical`);
* attention -- :class:`Head` (and its sympy-domain twin :class:`SymbolicHead`), :class:`Layer`,
  :class:`FFN`, :class:`Transformer`, the constructions, :func:`slice_model` (:mod:`tropattn.attention`);
* regions -- :func:`count_regions` (``method="auto" | "primal" | "dual"``), :func:`enumerate_regions`,
  :func:`label`, :func:`bounds` (:mod:`tropattn.regions`, :mod:`tropattn.region_bounds`);
* soft attention against its hard skeleton -- :func:`soft_weights`, :func:`margin`,
  :func:`weight_bounds`, :func:`measure` (:mod:`tropattn.soft`);
* :data:`config` (tuning knobs read at call time), :data:`COUNTERS` and :func:`counting` (what was
  certified, declined, or recomputed exactly), and the errors.

Subpackages without root names: :mod:`tropattn.backends`, :mod:`tropattn.dynamics`,
:mod:`tropattn.tasks`, :mod:`tropattn.plot`, :mod:`tropattn.cli`.  Names load on first use
(PEP 562): ``import tropattn`` costs a few milliseconds.  A name an earlier release exported
here raises :class:`~tropattn.errors.MovedError` naming its new home.

>>> import tropattn as ta
>>> len(ta.parse_polynomial("max(0, x)").linear_regions())       # max(0, x) has 2 linear regions
2
>>> ta.count_regions(ta.sawtooth_model(1, 3, 2)).n_activation     # N^(dL) = 9
9
"""

import importlib

from ._version import __version__

#: The face: about fifty task names, by the module that owns them (relative to this package).
#: Everything else is reached through a subpackage's own face (``tropattn.exact.dot_signs``).
_PUBLIC = {
    "errors": ("TropattnError", "InvalidInputError", "DegenerateInputError", "TieError"),
    "_config": ("config",),
    "io": ("load", "save", "from_torch", "load_gpt2", "Skeleton"),
    "exact": ("interior_point", "COUNTERS", "counting"),
    "geometry": ("Polytope", "convex_hull", "minkowski_sum", "upper_hull", "normal_fan", "PowerDiagram"),
    "tropical": ("TropicalPolynomial", "TropicalRationalFunction", "TropicalRationalMap", "parse_polynomial",
                 "common_refinement"),
    "attention": ("Head", "SymbolicHead", "FFN", "Layer", "Transformer", "MultiHeadAttention", "count_dual",
                  "grid_model", "sawtooth_model", "random_model", "slice_model", "slice_through"),
    "soft": ("soft_weights", "soft_output", "soft_jacobian", "margin", "weight_bounds", "measure"),
    "regions": ("count_regions", "enumerate_regions", "overlay_regions", "RegionSet", "ActivationRegion", "label"),
    "region_bounds": ("Bounds", "bounds"),
}
_OWNER = {name: module for module, names in _PUBLIC.items() for name in names}
#: Subpackages and public modules reachable as attributes (``tropattn.geometry.PowerDiagram``), loaded on first use.
_MODULES = ("exact", "geometry", "tropical", "attention", "soft", "regions", "backends", "io", "dynamics", "tasks",
            "plot", "cli", "region_bounds", "table", "exercises", "errors")
#: Names of earlier releases that left the root face, and where they live now.
_MOVED = {
    "slice": "tropattn.slice_model (the alias shadowed the builtin slice)",
    "temperature": "tropattn.soft (kernel, bounds, measure, reference, conventions)",
    "QuadraticWallError": "tropattn.errors.QuadraticWallError", "ModelFileError": "tropattn.errors.ModelFileError",
    "Interrupted": "tropattn.errors.Interrupted", "InternalError": "tropattn.errors.InternalError",
    "NEG_INF": "tropattn.exact.NEG_INF", "to_rational": "tropattn.exact.to_rational",
    "to_rational_vector": "tropattn.exact.to_rational_vector", "to_rational_matrix": "tropattn.exact.to_rational_matrix",
    "Certificate": "tropattn.exact.Certificate", "relative_interior_point": "tropattn.exact.relative_interior_point",
    "FacetSet": "tropattn.exact.FacetSet", "facets": "tropattn.exact.facets",
    "UpperHull": "tropattn.geometry.UpperHull", "upper_vertex_count": "tropattn.geometry.upper_vertex_count",
    "NormalCone": "tropattn.geometry.NormalCone", "PowerCell": "tropattn.geometry.PowerCell",
    "tropical_add": "tropattn.tropical.tropical_add", "tropical_mul": "tropattn.tropical.tropical_mul",
    "LinearRegion": "tropattn.tropical.LinearRegion", "polynomial_from_json": "tropattn.load (a polynomial JSON file) "
    "or tropattn.tropical.polynomial_from_json", "polynomial_to_json": "tropattn.tropical.polynomial_to_json",
    "grid_heads": "tropattn.attention.grid_heads", "sawtooth_count": "tropattn.attention.sawtooth_count",
    "token_points": "tropattn.attention.token_points",
    "AffineMap": "tropattn.regions.AffineMap", "brute_force_regions": "tropattn.regions.brute_force_regions",
    "group_linear_regions": "tropattn.regions.group_linear_regions",
    "product_bound": "tropattn.region_bounds.product_bound", "arrangement_bound": "tropattn.region_bounds.arrangement_bound",
    "line_bound": "tropattn.region_bounds.line_bound", "layer_bound": "tropattn.region_bounds.layer_bound",
    "ffn_factor": "tropattn.region_bounds.ffn_factor", "deep_bound": "tropattn.region_bounds.deep_bound",
    "stability_report": "tropattn.measure (the numbers) or the command tropattn stability (the report)",
    "convention_check": "tropattn.soft.compare_conventions (or the command tropattn conventions)",
    "load_json": "tropattn.load", "load_model": "tropattn.load", "save_model": "tropattn.save",
    "model_from_json": "tropattn.io.model_from_json", "model_to_json": "tropattn.io.model_to_json",
    "load_npz": "tropattn.load (a .npz file)", "save_npz": "tropattn.save (to a .npz path)",
    "load_sites": "tropattn.load (a sites JSON file)",
}

__all__ = ["__version__", *_OWNER]


def __getattr__(name):
    """Load a public name from the module that owns it, on first use (PEP 562).

    ``import tropattn`` then costs milliseconds, and a command such as ``tropattn regions``
    imports only the subpackages it needs; ``tropattn.<name>`` and ``from tropattn import
    <name>`` behave as eager imports would.
    """
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _MOVED:
        raise importlib.import_module(".errors", __name__).MovedError(f"tropattn.{name} was removed from the root face; use {_MOVED[name]}")
    if name not in _OWNER:
        raise AttributeError(f"module 'tropattn' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{_OWNER[name]}", __name__), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


def __dir__():
    """The face and the subpackages (not the loader's own names)."""
    return sorted(set(__all__) | set(_MODULES))
