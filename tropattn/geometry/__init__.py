"""Exact polyhedral geometry: polytopes, Minkowski sums, upper hulls, normal fans, power diagrams.

Geometry knows no attention: every object here is a value object over exact
rationals, and every float-then-certify decision is asked of :mod:`tropattn.exact`.

>>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1], ["1/2", "1/2"]])
>>> square.vertex_count, square.facet_count        # the centre is not a vertex
(4, 4)
"""

from ._fan import NormalCone, normal_fan
from ._lifting import UpperHull, upper_hull, upper_vertex_count
from ._minkowski import minkowski_sum
from ._polytope import Polytope, convex_hull, rational_sphere_points
from ._power import PowerCell, PowerDiagram, power_cells, scores_to_weights, weights_to_scores

__all__ = [
    "Polytope", "convex_hull", "rational_sphere_points", "minkowski_sum", "UpperHull", "upper_hull",
    "upper_vertex_count", "NormalCone", "normal_fan", "PowerCell", "PowerDiagram", "power_cells",
    "scores_to_weights", "weights_to_scores",
]
