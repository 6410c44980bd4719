"""The facets of a full-dimensional polyhedron ``{x : A x <= b}``, certified.

Qhull intersects the half-spaces in floats; each facet it reports gets a rational
point in its relative interior (checked exactly), and each row it drops an exact conic
combination of facet rows that implies it; rows where a check fails are decided by a
certified LP (counted).

>>> fs = facets([[1, 0], [0, 1], [-1, 0], [1, 1]], [1, 1, 0, 5], [Fraction(1, 2), 0])
>>> fs.rows                                # x + y <= 5 is implied by x <= 1, y <= 1
(0, 1, 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .._lazy import lazy_import
from ..errors import InvalidInputError
from ._counters import record
from ._linalg import solve
from ._lp import relative_interior_point, _strictly_inside
from ._numbers import exact_number, float_point, float_rows, integer_row, to_rational


spatial = lazy_import("scipy.spatial")
optimize = lazy_import("scipy.optimize")

__all__ = ["FacetSet", "facets", "integer_facets"]


@dataclass(frozen=True)
class FacetSet:
    """The facets of a full-dimensional polyhedron ``{x : A x <= b}``, certified.

    Attributes
    ----------
    rows : tuple of int
        Indices of the rows that define facets (one per distinct half-space; a row
        equal to an earlier one up to a positive factor is reported in ``same_as``).
    points : dict int -> tuple of Fraction
        For each facet row, a rational point on its hyperplane that satisfies every
        other distinct row strictly: the proof that the row is a facet, and the place
        where a search crosses it.
    same_as : dict int -> int
        Rows that repeat an earlier row (same half-space): row -> first such row.
    """

    rows: tuple
    points: dict = field(default_factory=dict)
    same_as: dict = field(default_factory=dict)


def _dedupe_rows(int_rows):
    first, same_as, distinct = {}, {}, []
    for i, r in int_rows:
        if r in first:
            same_as[i] = first[r]
        else:
            first[r] = i
            distinct.append((i, r))
    return distinct, same_as


def _facet_point_ok(distinct, k, num, den) -> bool:
    """``num / den`` lies on row k's hyperplane and strictly inside every other distinct row."""
    for j, (_, r) in enumerate(distinct):
        s = sum(a * x for a, x in zip(r, num)) - r[-1] * den
        if (j == k and s != 0) or (j != k and s >= 0):
            return False
    return True


def _project_to_hyperplane(point, row, sigma=1.0):
    """The orthogonal projection of a float point onto ``a.x = beta``, as integers over a denominator.

    The float point is first rounded to a multiple of ``2^-40 sigma`` (the polyhedron's
    scale, see :func:`_scale`); the projection itself is exact.
    """
    a, beta = row[:-1], row[-1]
    scale = 1 << max(40, 40 - math.frexp(sigma)[1])
    num = [round(Fraction(v) * scale) for v in point]  # exact: v * scale may exceed the float range
    norm2 = sum(ai * ai for ai in a)
    slack = beta * scale - sum(ai * xi for ai, xi in zip(a, num))  # (beta - a.x) * scale
    return tuple(xi * norm2 + slack * ai for xi, ai in zip(num, a)), scale * norm2


def facets(A, b, point) -> FacetSet:
    """The facet rows of the full-dimensional polyhedron ``{x : A x <= b}``, certified.

    ``point`` must satisfy ``A x < b`` strictly (for example ``interior_point(A, b).point``).
    Qhull intersects the half-spaces (in homogeneous coordinates, so unbounded
    polyhedra need no bounding box); each reported facet gets a rational point in its
    relative interior checked exactly, and each discarded row gets an exact conic
    combination of facet rows that implies it.  Rows where a check fails are decided
    by an exact LP, counted in :data:`COUNTERS`.

    Parameters
    ----------
    A : sequence of sequence of number, shape (m, d)
        The inequality rows.
    b : sequence of number, shape (m,)
        Their right-hand sides.
    point : sequence of number, shape (d,)
        A point with ``A x < b`` strictly.

    Returns
    -------
    FacetSet
        Facet row indices (``rows``), a certified point on each facet (``points``) and
        repeated rows (``same_as``).

    Raises
    ------
    InvalidInputError
        When ``point`` is not strictly inside every row (or a zero row has
        ``b_i <= 0``), or an entry is not a finite number.

    Examples
    --------
    >>> fs = facets([[1, 0], [0, 1], [-1, 0], [1, 1]], [1, 1, 0, 5], [Fraction(1, 2), 0])
    >>> fs.rows                                # x + y <= 5 is implied by x <= 1, y <= 1
    (0, 1, 2)
    >>> fs.points[0][0]                        # a proof point on the facet x = 1
    Fraction(1, 1)
    """
    A = [tuple(exact_number(v) for v in row) for row in A]
    b = [exact_number(v) for v in b]
    return integer_facets([integer_row(list(a) + [bi]) for a, bi in zip(A, b)], point)


def integer_facets(rows, point) -> FacetSet:
    """:func:`facets` for rows already given as integer tuples ``(a_1, ..., a_d, b)``.

    The rows may be any positive multiples (:func:`integer_row` makes them primitive,
    which identifies repeated half-spaces); callers that keep integer rows across many
    polyhedra (the region search) skip every rational conversion this way.

    Parameters
    ----------
    rows : sequence of sequence of int, shape (m, d + 1)
        Integer rows ``(a, b)`` of the half-spaces ``a.x <= b``.
    point : sequence of number, shape (d,)
        A point strictly inside every row.

    Returns
    -------
    FacetSet
        As for :func:`facets`.

    Raises
    ------
    InvalidInputError
        When ``point`` is not strictly inside every row.

    Examples
    --------
    >>> integer_facets([(1, 0, 1), (0, 1, 1), (-1, 0, 0), (1, 1, 5)], [Fraction(1, 2), 0]).rows
    (0, 1, 2)
    >>> integer_facets([(1, 0, 1), (2, 0, 2)], [0, 0]).same_as        # 2x <= 2 repeats x <= 1
    {1: 0}
    """
    point = tuple(to_rational(v) for v in point)
    primitive = [integer_row(r) for r in rows]
    zero_rows = [(i, r[-1]) for i, r in enumerate(primitive) if not any(r[:-1])]
    rows = [(i, r) for i, r in enumerate(primitive) if any(r[:-1])]
    if any(rhs <= 0 for _, rhs in zero_rows) or not _strictly_inside(rows, point):
        raise InvalidInputError("facets() needs a point strictly inside every row; got one that is not")
    distinct, same_as = _dedupe_rows(rows)
    if not distinct:
        return FacetSet(rows=(), points={}, same_as=same_as)
    d = len(point)
    sigma = _scale([r for _, r in distinct], point)
    claim = _qhull_facets(distinct, d, point, sigma)
    facet_idx, pts = [], {}
    undecided = []
    if claim is None:
        undecided = list(range(len(distinct)))
    else:
        is_facet, fpoints = claim
        for k in range(len(distinct)):
            if is_facet[k]:
                p = fpoints.get(k)
                if p is not None:
                    num, den = _project_to_hyperplane(p, distinct[k][1], sigma)
                    if _facet_point_ok(distinct, k, num, den):
                        facet_idx.append(k)
                        pts[k] = tuple(Fraction(v, den) for v in num)
                        continue
                undecided.append(k)
        facet_rows = [distinct[k][1] for k in facet_idx]
        cone = _facet_cone(facet_rows, d, sigma) if facet_rows else None
        for k in range(len(distinct)):
            if not is_facet[k] and not _implied(distinct[k][1], facet_rows, d, cone, sigma):
                undecided.append(k)
        if undecided:
            record("fallbacks")
        else:
            record("certified")
    for k in undecided:
        others = [r for j, (_, r) in enumerate(distinct) if j != k]
        r = distinct[k][1]
        cert = relative_interior_point([o[:-1] for o in others], [o[-1] for o in others], [r[:-1]], [r[-1]])
        if cert.point is not None:
            facet_idx.append(k)
            pts[k] = cert.point
    facet_idx.sort()
    return FacetSet(rows=tuple(distinct[k][0] for k in facet_idx),
                    points={distinct[k][0]: pts[k] for k in facet_idx}, same_as=same_as)


def _scale(int_rows, point) -> float:
    """A length ``sigma`` at which the polyhedron has size ~1: its rows' distances from 0 and the point.

    Substituting ``x = sigma x'`` multiplies the normals by ``sigma`` and keeps every
    conic relation between homogenised rows, so float steps can work at unit scale
    while the exact checks see the original rows.
    """
    G = float_rows([list(r[:-1]) + [r[-1]] for r in int_rows])
    with np.errstate(all="ignore"):
        reach = np.abs(G[:, -1]) / np.linalg.norm(G[:, :-1], axis=1)
    z = float_point(point)
    size = float(np.max(np.abs(z), initial=0.0)) if z is not None else 0.0
    return float(max(np.max(reach[np.isfinite(reach)], initial=0.0), size)) or 1.0


#: How far (in the normalised float system) the interior point must be from every halfspace for
#: Qhull: it needs a point clearly inside, and crashed on one 1e-301 from a wall (issue 23).
_QHULL_CLEARANCE = 1e-9


def _qhull_facets(distinct, d, point, sigma=1.0):
    """Float claim: which rows are facets, and a float point inside each facet."""
    G = float_rows([list(r[:-1]) + [-r[-1]] for _, r in distinct])
    z0 = float_point(list(point) + [1])
    if d == 0 or z0 is None:
        return None
    with np.errstate(all="ignore"):  # an overflow is no float claim (below), not a warning
        G[:, :-1] *= sigma  # x = sigma x': size ~1 in the primed coordinates
        if not np.all(np.isfinite(G)):
            return None
        z0[:-1] /= sigma
        norms = np.linalg.norm(G, axis=1)
    if not np.all(norms > 0):  # a row underflowed at this scale: no float claim
        return None
    G /= norms[:, None]
    D = d + 1
    box = np.hstack([np.vstack([np.eye(D), -np.eye(D)]), -np.ones((2 * D, 1))])
    trow = np.zeros((1, D + 1))
    trow[0, D - 1] = -1.0
    H = np.vstack([np.hstack([G, np.zeros((len(G), 1))]), trow, box])
    z0 /= 2 * np.max(np.abs(z0))
    if not np.max(H[:, :-1] @ z0 + H[:, -1]) < -_QHULL_CLEARANCE:
        record("declined", where="integer_facets")  # the point is inside in exact terms, on a wall in floats:
        return None                         # Qhull would fail (or crash); the exact path decides
    try:
        with np.errstate(all="ignore"):
            hs = spatial.HalfspaceIntersection(H, z0)
    except (spatial.QhullError, ValueError):
        return None
    verts = hs.intersections
    if not np.all(np.isfinite(verts)):
        return None
    nrows = len(distinct)
    on_facet = [[] for _ in range(nrows)]  # primal vertices on each row's hyperplane
    for v, active in enumerate(hs.dual_facets):
        for k in active:
            if k < nrows:
                on_facet[k].append(v)
    is_facet = [bool(on) for on in on_facet]
    fpoints = {}
    for k in range(nrows):
        if on_facet[k]:
            zbar = verts[on_facet[k]].mean(axis=0)
            if zbar[-1] > 1e-12:
                fpoints[k] = sigma * zbar[:-1] / zbar[-1]
    return is_facet, fpoints


def _implied(row, facet_rows, d, cone=None, sigma=1.0) -> bool:
    """Exact proof that ``a.x <= beta`` follows from the facet rows (and t >= 0).

    NNLS proposes the support of a conic combination of the homogenised facet rows
    ``(a_f, -b_f)`` (and ``(0, -1)``); an exact solve on that support must then give
    nonnegative multipliers.  ``cone`` is the normalised float matrix of those rows,
    built once per polyhedron by :func:`_facet_cone`.
    """
    if not facet_rows:
        return False
    G = _facet_cone(facet_rows, d, sigma) if cone is None else cone
    g = float_rows([list(row[:-1]) + [-row[-1]]])[0]
    g[:-1] *= sigma
    try:
        y, resid = optimize.nnls(G, g)
    except (RuntimeError, ValueError):
        return False
    support = [k for k in range(G.shape[1]) if y[k] > 1e-12 * max(1.0, y.max())]
    if not support:
        return False
    cols = [list(facet_rows[k][:-1]) + [-facet_rows[k][-1]] if k < len(facet_rows) else [0] * d + [-1]
            for k in support]
    target = list(row[:-1]) + [-row[-1]]
    # the exact combination on the support: sum_k y_k cols[k] = target, y >= 0
    ys = solve([[c[j] for c in cols] for j in range(d + 1)], target)
    return ys is not None and all(v >= 0 for v in ys)


def _facet_cone(facet_rows, d, sigma=1.0) -> np.ndarray:
    """Columns: the homogenised facet rows and ``t >= 0`` (normals times ``sigma``), unit length (floats)."""
    G = float_rows([list(r[:-1]) + [-r[-1]] for r in facet_rows] + [[0] * d + [-1]]).T
    G[:-1] *= sigma
    norms = np.linalg.norm(G, axis=0)
    return G / np.where(norms > 0, norms, 1.0)
