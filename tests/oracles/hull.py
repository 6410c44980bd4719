"""A brute-force convex hull oracle in Fractions (it shares no code with tropattn).

A facet is the hyperplane of ``d`` affinely independent points with every point on one side;
a point of a full-dimensional set is a vertex iff the facets through it have normals of rank
``d``; a point of any set is a vertex iff it lies in the hull of no ``<= d + 1`` of the others
(Caratheodory).  Every step is Fraction elimination written here.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

__all__ = ["oracle_facets", "oracle_vertices", "oracle_vertices_from_facets", "rank"]


def rank(rows) -> int:
    """The rank of Fraction (or int) rows."""
    return _reduce([list(map(Fraction, r)) for r in rows])[1]


def _reduce(rows):
    """Row echelon form of Fraction rows (a copy) and its rank."""
    m = [list(r) for r in rows]
    rank = 0
    for c in range(len(m[0]) if m else 0):
        piv = next((i for i in range(rank, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][c] != 0:
                f = m[i][c] / m[rank][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[rank])]
        rank += 1
    return m, rank


def _normal(points):
    """A nonzero vector orthogonal to the differences of ``points`` (d of them in R^d), or None."""
    d = len(points[0])
    diffs = [[a - b for a, b in zip(p, points[0])] for p in points[1:]]
    m, rank = _reduce(diffs)
    if rank != d - 1:
        return None
    pivots = [next(c for c in range(d) if row[c] != 0) for row in m[:rank]]
    free = next(c for c in range(d) if c not in pivots)
    a = [Fraction(0)] * d
    a[free] = Fraction(1)
    for row, c in zip(m[:rank], pivots):
        a[c] = -row[free] / row[c]
    return a


def _primitive(a):
    den = math.lcm(*(v.denominator for v in a))
    ints = [int(v * den) for v in a]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints)


def oracle_facets(points):
    """The facets ``(normal, offset)``, ``normal . x <= offset``, of a full-dimensional set."""
    pts = list(dict.fromkeys(points))
    d = len(pts[0])
    out = set()
    for sub in itertools.combinations(pts, d):
        a = _normal(sub)
        if a is None:
            continue
        b = sum(x * y for x, y in zip(a, sub[0]))
        side = [sum(x * y for x, y in zip(a, p)) - b for p in pts]
        if all(s <= 0 for s in side) or all(s >= 0 for s in side):
            sign = 1 if all(s <= 0 for s in side) else -1
            n = _primitive([sign * v for v in a])
            out.add((n, sum(x * y for x, y in zip(n, sub[0]))))
    return out


def oracle_vertices_from_facets(points, facets):
    d = len(points[0])
    verts = set()
    for p in set(points):
        through = [list(map(Fraction, n)) for n, c in facets if sum(x * y for x, y in zip(n, p)) == c]
        if through and _reduce(through)[1] == d:
            verts.add(p)
    return verts


def _in_hull_of(p, others):
    """Is ``p`` a convex combination of ``others`` (at most d + 1 points suffice)?"""
    d = len(p)
    for size in range(1, min(d + 1, len(others)) + 1):
        for sub in itertools.combinations(others, size):
            # sum_i l_i q_i = p, sum_i l_i = 1: the augmented system, solved exactly
            rows = [[q[c] for q in sub] + [p[c]] for c in range(d)] + [[Fraction(1)] * size + [Fraction(1)]]
            m, rank = _reduce(rows)
            if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in m):
                continue  # inconsistent
            coef = _reduce([row[:-1] for row in rows])[1]
            if coef < size:
                continue  # dependent subset: a smaller one is tried too
            lam = [Fraction(0)] * size
            for row in m[:rank]:
                c = next(c for c in range(size) if row[c] != 0)
                lam[c] = row[-1] / row[c]
            if all(v >= 0 for v in lam):
                return True
    return False


def oracle_vertices(points):
    pts = list(dict.fromkeys(points))
    return {p for p in pts if not _in_hull_of(p, [q for q in pts if q != p])}
