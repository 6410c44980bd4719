"""Exact polyhedral geometry: polytopes, Minkowski sums, upper hulls, normal fans, power diagrams.

Geometry knows no attention: every object here is a value object over exact
rationals, and every float-then-certify decision is asked of :mod:`tropattn.exact`.
The face:

* polytopes -- :class:`Polytope`, :func:`convex_hull` (V to H), ``Polytope.from_inequalities``
  (H to V), :func:`minkowski_sum`, :func:`rational_sphere_points` (exact test points);
* upper hulls of lifted points -- :class:`UpperHull`, :func:`upper_hull` (``method=`` picks the
  kernel: chain, planar, simplicial, general, exact), :func:`upper_vertex_count`;
* normal fans -- :class:`NormalCone`, :func:`normal_fan`;
* power diagrams -- :class:`PowerDiagram`, :class:`PowerCell`, :func:`power_cells`,
  :func:`scores_to_weights`, :func:`weights_to_scores`, and :func:`clip_polygon` (exact clipping
  of a convex polygon, for pictures of cells).

>>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1], ["1/2", "1/2"]])
>>> square.vertex_count, square.facet_count        # the centre is not a vertex
(4, 4)
>>> minkowski_sum(square, convex_hull([[0, 0], [1, 1]])).vertex_count     # plus a diagonal: a hexagon
6
>>> PowerDiagram.voronoi([[0], [2]]).locate(["1/2"])                     # nearer to 0 than to 2
0
"""

from .._face import face
from ._fan import NormalCone, normal_fan
from ._lifting import UpperHull, upper_hull, upper_vertex_count
from ._minkowski import minkowski_sum
from ._polytope import Polytope, convex_hull, rational_sphere_points
from ._power import PowerDiagram, clip_polygon, scores_to_weights, weights_to_scores
from ._power_cells import PowerCell, power_cells

__all__ = [
    "Polytope", "convex_hull", "minkowski_sum", "rational_sphere_points",
    "UpperHull", "upper_hull", "upper_vertex_count",
    "NormalCone", "normal_fan",
    "PowerDiagram", "PowerCell", "power_cells", "scores_to_weights", "weights_to_scores", "clip_polygon",
]

#: The implementation modules of earlier releases (now private): where their API lives.
_MOVED = {
    "polytope": "tropattn.geometry (Polytope, convex_hull, rational_sphere_points)",
    "minkowski": "tropattn.geometry.minkowski_sum",
    "lifting": "tropattn.geometry (upper_hull, UpperHull, upper_vertex_count)",
    "fan": "tropattn.geometry (normal_fan, NormalCone)",
    "power": "tropattn.geometry (PowerDiagram, PowerCell, power_cells, scores_to_weights, weights_to_scores, "
             "clip_polygon)",
}

__getattr__, __dir__ = face(__name__, __all__, moved=_MOVED)
