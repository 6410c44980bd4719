"""Normal fans of exact polytopes: the cone of directions maximised at each vertex.

>>> from tropattn.geometry._polytope import convex_hull
>>> [c.contains([1, 1]) for c in normal_fan(convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]]))]
[False, False, False, True]
"""

from __future__ import annotations

from dataclasses import dataclass


from .. import exact
from ._polytope import Polytope


__all__ = ["NormalCone", "normal_fan"]


@dataclass(frozen=True)
class NormalCone:
    """The cone of directions ``c`` maximised at ``vertex``: ``{c : rows @ c <= 0}``.

    ``rows`` are the edge directions ``w - vertex`` to the adjacent vertices ``w``
    (so the system is irredundant); for a lower-dimensional polytope the cone
    contains the normals of its equations.
    """

    vertex: tuple
    rows: tuple

    def contains(self, c) -> bool:
        """Exact test ``rows @ c <= 0``: is the linear function ``c . x`` maximised at ``vertex``?

        Parameters
        ----------
        c : sequence of numbers, length d
            A direction (ints, Fractions, ``"p/q"`` strings or floats, converted exactly).

        Returns
        -------
        bool
            True iff ``c`` lies in the closed cone (on its boundary ``c . x`` is also
            maximised at a neighbouring vertex).

        Raises
        ------
        InvalidInputError
            ``c`` has the wrong length or a NaN or infinite entry.

        Examples
        --------
        At the vertex ``(1, 0)`` of the triangle ``conv{0, e_1, e_2}`` the cone is cut
        out by the edges ``(-1, 0)`` and ``(-1, 1)``:

        >>> from tropattn.geometry import convex_hull
        >>> fan = normal_fan(convex_hull([[0, 0], [1, 0], [0, 1]]))
        >>> cone = next(c for c in fan if c.vertex == (1, 0))
        >>> cone.contains([1, 0]), cone.contains([1, 1]), cone.contains([0, 1])
        (True, True, False)
        """
        c = exact.to_rational_vector(c, "c", len(self.vertex))
        return all(sum(a * x for a, x in zip(r, c)) <= 0 for r in self.rows)


def normal_fan(P: Polytope) -> tuple:
    """The normal cone of every vertex of ``P`` (in the order of ``P.vertices``).

    Two vertices are joined by an edge iff the facets through both meet in those two
    vertices only (exact incidences); a vertex's cone is cut out by its edge directions.

    Parameters
    ----------
    P : Polytope
        An exact polytope (:func:`tropattn.geometry.convex_hull`); a single point has one
        cone, the whole space.

    Returns
    -------
    tuple of NormalCone
        One per vertex; the cones cover the whole space and meet only on boundaries.

    Examples
    --------
    >>> from tropattn.geometry import convex_hull
    >>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
    >>> fan = normal_fan(square)
    >>> [cone.contains([1, 1]) for cone in fan]    # x + y is maximised at (1, 1) only
    [False, False, False, True]
    """
    V = P.vertices
    if P.dim == 0:
        return (NormalCone(vertex=V[0], rows=()),)
    inc = [sum(1 << i for i, v in enumerate(V) if sum(a * x for a, x in zip(h, v)) == c)
           for h, c in P.facets]
    cones = []
    for i, v in enumerate(V):
        rows = [tuple(x - y for x, y in zip(w, v)) for j, w in enumerate(V)
                if j != i and _adjacent(i, j, inc, P.dim)]
        cones.append(NormalCone(vertex=v, rows=tuple(rows)))
    return tuple(cones)


def _adjacent(i: int, j: int, inc, dim: int) -> bool:
    """Vertices i, j span an edge iff the facets through both meet in {i, j} only."""
    if dim == 1:
        return True
    both = (1 << i) | (1 << j)
    acc = -1
    for m in inc:
        if m & both == both:
            acc &= m
    return acc == both
