"""Exact numbers, filtered predicates and the one certifier of tropattn.

This is the only subpackage that compares a float with anything.  Everything else asks
it questions ("does this region have interior?", "which rows are facets?", "what is
the hull of these points?") and gets answers certified in rational arithmetic.  The face:

* numbers in and out -- :func:`to_rational`, :func:`to_rational_vector`, :func:`to_rational_matrix`,
  :func:`to_float_array`, :func:`common_denominator`, :data:`NEG_INF`, :func:`json_number`,
  :func:`format_rational`, :func:`format_point`, :func:`load_json`, :func:`unlimited_int_digits`;
* integer rows -- :func:`integer_row`, :func:`primitive_row`, :func:`homogeneous_point`,
  :func:`homogeneous_row`, :func:`homogeneous_rows`, :func:`rows_to_fractions`, :func:`lex_order`;
* linear algebra over Q -- :func:`rank`, :func:`nullspace`, :func:`solve`, :func:`determinants`
  (stacks), :func:`integer_determinant` (one small integer matrix);
* integer matrices -- :func:`integer_matrix` (one common denominator), :func:`int_matmul`
  (exact products: int64 where a bound proves it safe, else Python ints), :func:`int_bits`;
  :func:`residues`, :func:`residue_matmul` (products modulo a prime below 2^20, exact in float64);
* filtered signs -- :func:`dot_signs` (floats first, exact where unsure);
* certified LP -- :class:`Certificate`, :func:`interior_point`, :func:`relative_interior_point`,
  :func:`exact_lp_max`;
* facets of polyhedra -- :class:`FacetSet`, :func:`facets`, :func:`integer_facets`;
* hulls -- :class:`Hull`, :func:`certified_hull` (any dimension), :func:`minkowski_hull`
  (sums of polytopes), :func:`upper_facets` (lifted points: the chain, planar and simplicial
  kernels);
* counters -- :class:`Counters`, :data:`COUNTERS`, :func:`counting`, :func:`record`, :func:`merge`:
  every certified answer, declined fast path and fallback, counted.

The sizes at which the kernels switch strategy are knobs of ``tropattn.config``; they change
speed and memory, never an answer.

>>> A = [[1, 0], [0, 1], [-1, -1]]          # x <= 1, y <= 1, x + y >= -1
>>> interior_point(A, [1, 1, 1]).feasible
True
>>> H = certified_hull([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1), (1, 1, 2)])   # a square, its centre
>>> len(H.facets), H.vertices                                                     # is no vertex
(4, (0, 1, 2, 3))
"""

from .._face import face
from ._counters import COUNTERS, Counters, counting, merge, record
from ._hull import Hull, certified_hull
from ._intmat import IntLimbs, int_bits, int_limbs, int_matmul, integer_matrix, residue_matmul, residues
from ._lifted import upper_facets
from ._linalg import determinants, integer_determinant, nullspace, rank, solve
from ._lp import Certificate, exact_lp_max, interior_point, relative_interior_point
from ._numbers import (NEG_INF, common_denominator, format_point, format_rational, homogeneous_point, homogeneous_row,
                       homogeneous_rows,                        integer_row, json_number, load_json, primitive_row, rows_to_fractions, to_float_array,
                       to_rational, to_rational_matrix, to_rational_vector, unlimited_int_digits)
from ._predicates import as_small_ints, dot_signs, lex_order
from ._prepared_rows import PreparedRows
from ._polyhedra import UnionFind, WallFacet, facets_overlap, overlapping_pairs, region_facets
from ._redundancy import FacetSet, facets, integer_facets
from ._sum_hull import minkowski_hull

__all__ = [
    "NEG_INF", "to_rational", "to_rational_vector", "to_rational_matrix", "to_float_array", "common_denominator",
    "json_number", "format_rational", "format_point", "unlimited_int_digits", "load_json",
    "integer_row", "primitive_row", "homogeneous_point", "homogeneous_row", "homogeneous_rows", "rows_to_fractions", "lex_order",
    "rank", "nullspace", "solve", "determinants", "integer_determinant", "integer_matrix", "int_matmul", "int_bits",
    "int_limbs", "IntLimbs", "residues", "residue_matmul",
    "dot_signs", "PreparedRows", "as_small_ints",
    "Certificate", "interior_point", "relative_interior_point", "exact_lp_max",
    "FacetSet", "facets", "integer_facets", "region_facets", "WallFacet", "facets_overlap", "overlapping_pairs",
    "UnionFind",
    "Hull", "certified_hull", "minkowski_hull", "upper_facets",
    "Counters", "COUNTERS", "counting", "record", "merge",
]

#: The implementation modules of earlier releases (now private): where their API lives.
_MOVED = {
    "numbers": "tropattn.exact (to_rational, integer_row, format_point, ...); the module is private",
    "linalg": "tropattn.exact (rank, nullspace, solve, determinants, integer_determinant)",
    "predicates": "tropattn.exact.dot_signs; the other filtered predicates are internal",
    "lp": "tropattn.exact (interior_point, relative_interior_point, exact_lp_max, Certificate)",
    "redundancy": "tropattn.exact (facets, integer_facets, FacetSet)",
    "hull": "tropattn.exact (certified_hull, Hull); the tuning constants are tropattn.config knobs "
            "(hull_local_entries, hull_inside_filter_entries, hull_dense_entries)",
    "sum_hull": "tropattn.exact.minkowski_hull (or tropattn.geometry.minkowski_sum); PREFILTER_PAIRS is the "
                "tropattn.config knob minkowski_prefilter_pairs",
    "lifted": "tropattn.exact.upper_facets (or tropattn.geometry.upper_hull)",
    "counters": "tropattn.exact (counting, record, merge, Counters, COUNTERS)",
    "facets_batch": "internal (the region search's fast facets); MAX_SUBSETS is the tropattn.config knob "
                    "facets_max_subsets",
}

__getattr__, __dir__ = face(__name__, __all__, moved=_MOVED)
