"""Minkowski sums of exact polytopes, one summand at a time.

>>> from tropattn.geometry._polytope import convex_hull
>>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
>>> minkowski_sum(square, convex_hull([[0, 0], [1, 1]])).vertex_count     # a hexagon
6
"""

from __future__ import annotations



from .. import exact
from ..errors import InvalidInputError
from ._polytope import Polytope, _polytope_from_hull


__all__ = ["minkowski_sum"]


def minkowski_sum(*polytopes: Polytope) -> Polytope:
    """The Minkowski sum ``P + Q + ...`` of polytopes, exactly.

    A vertex of ``P + Q`` is a sum of a vertex of ``P`` and a vertex of ``Q``, so
    the summands are added one at a time and each partial sum is pruned to its
    vertices (docs/ALGORITHMS.md §5).  When a partial sum is full-dimensional and
    not tiny, its facets are certified against the two summands' vertices separately;
    otherwise the hull of all pairwise sums is taken (:func:`tropattn.exact.minkowski_hull`).

    Parameters
    ----------
    *polytopes : Polytope
        One or more summands in the same ambient dimension.

    Returns
    -------
    Polytope
        The sum (the first summand itself when only one is given).

    Raises
    ------
    InvalidInputError
        When no polytope is given, a summand is not a :class:`Polytope`, or the
        summands live in different dimensions.

    Examples
    --------
    >>> from tropattn.geometry import convex_hull
    >>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
    >>> segment = convex_hull([[0, 0], [1, 1]])
    >>> minkowski_sum(square, segment).vertex_count     # a hexagon
    6
    """
    if not polytopes:
        raise InvalidInputError("minkowski_sum needs at least one polytope")
    for i, P in enumerate(polytopes):
        if not isinstance(P, Polytope):
            raise InvalidInputError(f"summand {i} is a {type(P).__name__}; pass Polytope objects "
                                    "(build them with convex_hull(points))")
    if len({P.ambient_dim for P in polytopes}) != 1:
        raise InvalidInputError("all summands must live in the same dimension")
    if len(polytopes) == 1:
        return polytopes[0]
    return _polytope_from_hull(exact.minkowski_hull([_summand(P) for P in polytopes]))


def _summand(P: Polytope) -> tuple:
    """``(vertex rows, equations, facet rows)`` of a Polytope for :func:`tropattn.exact.minkowski_hull`.

    The integer facet rows ``(a, b)`` (``a . x + b <= 0``) kept by the hull code are passed
    when present, so no Fractions are built; a Polytope made from its fields gets them from
    its facets (full-dimensional only: they only serve a pre-filter).
    """
    rows = P._facet_rows if "_facet_rows" in P.__dict__ or "_hull" in P.__dict__ else None
    if rows is None and not P.equations:
        rows = tuple(exact.integer_row(list(a) + [-c]) for a, c in P.facets) or None
    return P._vertex_rows, P.equations, rows
