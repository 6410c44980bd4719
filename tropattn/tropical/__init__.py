"""Tropical (max-plus) algebra: polynomials, rational functions and maps, their regions and subdivisions.

The face:

* the semiring -- :func:`tropical_add` (max), :func:`tropical_mul` (+), :data:`NEG_INF` (its zero);
* polynomials -- :class:`TropicalPolynomial`, :func:`parse_polynomial`, :func:`polynomial_from_json`,
  :func:`polynomial_to_json`;
* their geometry, certified -- :func:`linear_regions` (``method=`` "hull" or "search"),
  :class:`LinearRegion`, :func:`redundant_terms`, :func:`newton_polytope`, :func:`lifted_polytope`,
  :func:`dual_subdivision`, :func:`hypersurface_cells`, :class:`HypersurfaceCell`;
* tropical curves -- :func:`curve_edges`, :class:`CurveEdge`, :func:`lattice_length`, :func:`balancing_sums`;
* rational functions and maps -- :class:`TropicalRationalFunction`, :class:`TropicalRationalMap`,
  :class:`RationalPiece`, :func:`parse_rational_function`, :func:`common_refinement`;
* symbolic heads -- :class:`SymbolicHead`, :class:`ParameterPiece`, :func:`parameter_regions`,
  :func:`redundancy_condition`, :func:`adjacency_condition`, :func:`node_condition`,
  :func:`type_condition`, :func:`symbolic_product`, :func:`product_polynomial`.

>>> f = parse_polynomial("max(0, x)")            # the ReLU
>>> f(3), len(f.linear_regions())
(Fraction(3, 1), 2)
>>> redundant_terms(parse_polynomial("max(0, x, 2*x)"))   # x is the max only at 0
(1,)
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

#: The implementation modules of earlier releases (now private): where their API lives.
_MOVED = {
    "semiring": "tropattn.tropical (tropical_add, tropical_mul, NEG_INF)",
    "polynomial": "tropattn.tropical.TropicalPolynomial",
    "parsing": "tropattn.tropical (parse_polynomial, parse_rational_function, polynomial_from_json)",
    "export": "tropattn.tropical.polynomial_to_json, or the methods to_latex / to_sympy of TropicalPolynomial",
    "cells": "tropattn.tropical (linear_regions, redundant_terms, LinearRegion)",
    "subdivision": "tropattn.tropical (newton_polytope, lifted_polytope, dual_subdivision, hypersurface_cells)",
    "balancing": "tropattn.tropical (curve_edges, balancing_sums, lattice_length, CurveEdge)",
    "rational": "tropattn.tropical (TropicalRationalFunction, TropicalRationalMap, common_refinement)",
    "symbolic": "tropattn.attention.SymbolicHead; tropattn.tropical (parameter_regions, ...)",
    "SymbolicHead": "tropattn.attention.SymbolicHead (a head over the sympy domain EX)",
    "symbolic_product": "tropattn.attention.symbolic_product",
    "product_polynomial": "tropattn.attention.product_polynomial",
}

__getattr__, __dir__ = face(__name__, __all__, moved=_MOVED)
