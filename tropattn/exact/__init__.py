"""Exact numbers, filtered predicates and the one certifier of tropattn.

This is the only subpackage that compares a float with anything.  Everything else asks
it questions ("does this region have interior?", "which rows are facets?", "what is
the hull of these points?") and gets answers certified in rational arithmetic:

* :mod:`~tropattn.exact._numbers` -- numbers in (every input type, exactly), integer rows, formatting;
* :mod:`~tropattn.exact._linalg` -- elimination, nullspaces, minors and determinants over Q;
* :mod:`~tropattn.exact._predicates` -- filtered signs of dot products, matrix products, determinants;
* :mod:`~tropattn.exact._lp` -- certified strict feasibility (rational point or Farkas vector);
* :mod:`~tropattn.exact._redundancy` -- certified facets of a polyhedron;
* :mod:`~tropattn.exact._hull`, :mod:`~tropattn.exact._sum_hull`, :mod:`~tropattn.exact._lifted` --
  certified convex hulls, Minkowski sums and upper hulls of lifted points;
* :mod:`~tropattn.exact._counters` -- every certified answer, declined fast path and fallback, counted.

>>> A = [[1, 0], [0, 1], [-1, -1]]          # x <= 1, y <= 1, x + y >= -1
>>> interior_point(A, [1, 1, 1]).feasible
True
"""

from ._counters import COUNTERS, Counters, counting, merge, record
from ._linalg import determinants, nullspace, rank, solve
from ._lp import Certificate, exact_lp_max, interior_point, relative_interior_point
from ._numbers import (NEG_INF, common_denominator, format_point, format_rational, homogeneous_point, integer_row, json_number,
                      to_float_array, to_rational, to_rational_matrix, to_rational_vector, unlimited_int_digits,
                      load_json)
from ._predicates import dot_signs
from ._polyhedra import UnionFind, WallFacet, facets_overlap, overlapping_pairs, region_facets
from ._redundancy import FacetSet, facets, integer_facets

__all__ = [
    "NEG_INF", "to_rational", "to_rational_vector", "to_rational_matrix", "to_float_array", "common_denominator",
    "integer_row", "homogeneous_point", "json_number", "format_rational", "format_point", "unlimited_int_digits", "load_json",
    "rank", "nullspace", "solve", "determinants", "dot_signs",
    "Counters", "COUNTERS", "counting", "record", "merge",
    "Certificate", "interior_point", "relative_interior_point", "exact_lp_max",
    "FacetSet", "facets", "integer_facets",
]
__all__ += ["region_facets", "WallFacet", "facets_overlap", "overlapping_pairs", "UnionFind"]  # the region search's predicates
