"""Tropical (max-plus) algebra: polynomials, rational functions and maps, their regions and subdivisions.

>>> f = parse_polynomial("max(0, x)")            # the ReLU
>>> f(3), len(f.linear_regions())
(Fraction(3, 1), 2)
"""

from .._face import face
from ._balancing import CurveEdge, balancing_sums, curve_edges, lattice_length
from ._cells import LinearRegion, linear_regions, redundant_terms
from ._parsing import parse_polynomial, parse_rational_function, polynomial_from_json, polynomial_to_json
from ._polynomial import TropicalPolynomial
from ._rational import RationalPiece, TropicalRationalFunction, TropicalRationalMap, common_refinement
from ._semiring import NEG_INF, tropical_add, tropical_mul
from ._subdivision import HypersurfaceCell, dual_subdivision, hypersurface_cells, lifted_polytope, newton_polytope
from ._symbolic import (ParameterPiece, adjacency_condition, node_condition, parameter_regions, redundancy_condition,
                        to_expression, type_condition)

__all__ = [
    "NEG_INF", "tropical_add", "tropical_mul", "TropicalPolynomial", "LinearRegion", "HypersurfaceCell",
    "RationalPiece", "TropicalRationalFunction", "TropicalRationalMap", "newton_polytope", "lifted_polytope",
    "redundant_terms", "linear_regions", "dual_subdivision", "hypersurface_cells", "common_refinement",
    "parse_polynomial", "parse_rational_function", "polynomial_from_json", "polynomial_to_json",
    "CurveEdge", "lattice_length", "curve_edges", "balancing_sums",
    "to_expression", "ParameterPiece", "redundancy_condition", "adjacency_condition", "node_condition",
    "type_condition", "parameter_regions",
]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "SymbolicHead": "tropattn.attention.SymbolicHead (a head over the sympy domain EX)",
    "symbolic_product": "tropattn.attention.symbolic_product",
    "product_polynomial": "tropattn.attention.product_polynomial",
})
