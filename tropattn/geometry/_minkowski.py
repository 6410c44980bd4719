"""Minkowski sums of exact polytopes, one summand at a time.

>>> from tropattn.geometry._polytope import convex_hull
>>> square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
>>> minkowski_sum(square, convex_hull([[0, 0], [1, 1]])).vertex_count     # a hexagon
6
"""

from __future__ import annotations


import numpy as np

from .. import exact
from ..errors import InvalidInputError
from ..exact._hull import certified_hull
from ..exact._predicates import PreparedPoints
from ..exact._sum_hull import PREFILTER_PAIRS, certified_sum_hull, pairwise_sums
from ._polytope import Polytope, _polytope_from_hull


__all__ = ["minkowski_sum"]


def minkowski_sum(*polytopes: Polytope) -> Polytope:
    """The Minkowski sum ``P + Q + ...`` of polytopes, exactly.

    A vertex of ``P + Q`` is a sum of a vertex of ``P`` and a vertex of ``Q``, so
    the summands are added one at a time and each partial sum is pruned to its
    vertices (docs/ALGORITHMS.md §5).  When a partial sum is full-dimensional and
    not tiny, its facets are certified against the two summands' vertices separately
    (:func:`certified_sum_hull`); otherwise the hull of all pairwise sums is taken.

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
    P0 = polytopes[0]
    G, eqs, partial = P0._vertex_rows, P0.equations, P0  # partial: the sum so far
    hull = None
    for Q in polytopes[1:]:
        H = Q._vertex_rows
        hull = None
        if len(G) * len(H) > _SMALL_SUM and _full_dimensional_sum(eqs, Q.equations, Q.ambient_dim):
            floats = (_facet_floats(partial), _facet_floats(Q)) if len(G) * len(H) > PREFILTER_PAIRS else ()
            hull = certified_sum_hull(PreparedPoints.of(G), PreparedPoints.of(H), *floats)
        if hull is None:
            hull = certified_hull(pairwise_sums(G, H))
        G = [hull.G[i] for i in hull.vertices]
        eqs, partial = hull.equations, hull
    return P0 if hull is None else _polytope_from_hull(hull)


def _facet_floats(P):
    """Float facet normals and offsets ``(N, c)`` (``N x <= c``) of a full-dimensional
    Polytope or Hull, for the float pre-filter of :func:`certified_sum_hull`; else None.

    Integer facet rows ``(a, b)`` (``a . x <= -b``) are used when present, so no
    Fractions are built; rows too large for floats give None (no pre-filter).
    """
    if P.equations:
        return None
    if isinstance(P, Polytope):
        rows = P.__dict__.get("_facet_rows")
        if rows is None:
            if not P.facets:
                return None
            return (np.array([a for a, _ in P.facets], dtype=float),
                    np.array([float(c) for _, c in P.facets]))
    else:
        rows = P.facets
    if not rows:
        return None
    try:
        H = np.array(rows, dtype=float)
    except OverflowError:
        return None
    if not np.all(np.isfinite(H)):
        return None
    if isinstance(P, Polytope):
        return H[:, :-1], -H[:, -1]
    return H[:, :-1], -H[:, -1], _vertex_incidence(P)


def _vertex_incidence(hull):
    """The exact (vertex, facet) pairs of a Hull, vertices numbered in ``hull.vertices`` order."""
    where = np.full(len(hull.G), -1)
    where[list(hull.vertices)] = np.arange(len(hull.vertices))
    if isinstance(hull.incidence, np.ndarray):  # boolean (facets, points): facet-major pairs directly
        f, i = np.nonzero(hull.incidence)
        v = where[i]
    else:
        f = np.repeat(np.arange(len(hull.facets)), [len(p) for p in hull.facet_points])
        v = where[np.fromiter((i for p in hull.facet_points for i in p), dtype=np.intp, count=len(f))]
    keep = v >= 0
    return v[keep], f[keep]

#: Below this many vertex pairs the plain route (hull of all sums) is faster than
#: :func:`certified_sum_hull`; above ``_PREFILTER_PAIRS`` pairs the normal-cone filter pays off.
_SMALL_SUM = 100



def _full_dimensional_sum(eqs_p, eqs_q, n: int) -> bool:
    """Whether ``P + Q`` is full-dimensional (n >= 2), from the equations of P and Q.

    The normal space of ``P + Q`` is the intersection of those of P and Q; it is zero
    iff the two bases of equation normals are together independent.
    """
    if n < 2:
        return False
    if not eqs_p or not eqs_q:
        return True
    E = [list(e) for e, _ in eqs_p] + [list(e) for e, _ in eqs_q]
    return exact.rank(E) == len(E)
