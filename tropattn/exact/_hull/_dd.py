"""The exact fallback: facets by double description over Python integers (and the 1-D case).

Used when no Qhull run is certified (counted as a fallback) or when ``method="exact"``.

>>> rays, masks = facets_dd([(0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)], [0, 1, 2])
>>> sorted(rays), vertices_from_masks(masks, 4, 2)
([(-1, 0, 0), (0, -1, 0), (0, 1, -1), (1, 0, -1)], (0, 1, 2, 3))
"""

from __future__ import annotations

from fractions import Fraction

from .._linalg import nullspace
from .._numbers import integer_row, primitive_row, set_bits

__all__ = ["facets_dd", "facets_1d", "vertices_from_masks"]


def facets_1d(P):
    """Facets of points on a line: the smallest and largest coordinate."""
    vals = [Fraction(p[0], p[1]) for p in P]
    lo, hi = min(vals), max(vals)
    mask = lambda t: sum(1 << i for i, v in enumerate(vals) if v == t)  # noqa: E731
    return [(-lo.denominator, lo.numerator), (hi.denominator, -hi.numerator)], [mask(lo), mask(hi)]


def vertices_from_masks(masks, npoints: int, dim: int) -> tuple:
    """Point ``i`` is a vertex iff the facets through it meet in ``{i}`` alone."""
    through = [[] for _ in range(npoints)]
    for f, m in enumerate(masks):
        for i in set_bits(m):
            through[i].append(m)
    out = []
    for i, ms in enumerate(through):
        if len(ms) >= dim:
            acc = ms[0]
            for m in ms[1:]:
                acc &= m
            if acc == 1 << i:
                out.append(i)
    return tuple(out)


def facets_dd(P, init):
    """Exact facets of full-dimensional homogeneous points by double description.

    The facets are the extreme rays of the cone ``{h : h . g <= 0 for every point g}``.
    Start from the simplex ``init`` (whose cone has one ray per omitted point) and
    add the other points one at a time: rays on the wrong side are replaced by
    combinations of adjacent pairs across the new hyperplane (combinatorial
    adjacency test).  Pure Python integers.
    """
    k1 = len(P[0])
    rays, zs = [], []
    for j in range(k1):
        others = [P[init[i]] for i in range(k1) if i != j]
        (vec,) = nullspace([list(o) for o in others])
        r = integer_row(vec)
        if sum(a * b for a, b in zip(r, P[init[j]])) > 0:
            r = tuple(-v for v in r)
        rays.append(r)
        zs.append(sum(1 << init[i] for i in range(k1) if i != j))
    rest = [i for i in range(len(P)) if i not in set(init)]
    for i in rest:
        rays, zs = _dd_step(rays, zs, P[i], 1 << i, k1 - 2)
    return rays, zs


def _dd_step(rays, zs, g, bit, need):
    """Intersect the cone's ray list with the half-space ``h . g <= 0``."""
    s = [sum(a * b for a, b in zip(r, g)) for r in rays]
    pos = [j for j, v in enumerate(s) if v > 0]
    if not pos:
        return rays, [z | bit if s[j] == 0 else z for j, z in enumerate(zs)]
    neg = [j for j, v in enumerate(s) if v < 0]
    new_rays, new_zs = [], []
    for p in pos:
        for q in neg:
            Z = zs[p] & zs[q]
            if Z.bit_count() < need or _shared_by_other(Z, zs, p, q):
                continue
            new_rays.append(primitive_row([s[p] * b - s[q] * a for a, b in zip(rays[p], rays[q])]))
            new_zs.append(Z | bit)
    keep = [j for j, v in enumerate(s) if v <= 0]
    return ([rays[j] for j in keep] + new_rays,
            [zs[j] | bit if s[j] == 0 else zs[j] for j in keep] + new_zs)


def _shared_by_other(Z, zs, p, q) -> bool:
    for o, z in enumerate(zs):
        if z & Z == Z and o != p and o != q:
            return True
    return False
