"""The dual picture: Newton polytopes, the regular subdivision and the tropical hypersurface.

>>> from tropattn.tropical._parsing import parse_polynomial
>>> dual_subdivision(parse_polynomial("max(0, x, 2*x - 1)"))   # two segments
(frozenset({0, 1}), frozenset({1, 2}))
"""

from __future__ import annotations

from dataclasses import dataclass


from typing import TYPE_CHECKING

from .. import exact
from ..errors import InternalError
from ..geometry import convex_hull
from ._cells import _upper_hull

if TYPE_CHECKING:
    from ._polynomial import TropicalPolynomial


__all__ = ["HypersurfaceCell", "newton_polytope", "lifted_polytope", "dual_subdivision", "hypersurface_cells"]


@dataclass(frozen=True)
class HypersurfaceCell:
    """A relatively open cell of the tropical hypersurface (where the max is attained twice).

    The cell is ``{x : E x = f, A x < b}``; its closure replaces ``<`` by ``<=``.

    Attributes
    ----------
    terms : frozenset of int
        The terms attaining the max on the cell: the dual cell of the subdivision.
    E, f : equations (one row per tie with the smallest index of ``terms``).
    A, b : strict inequalities (the other terms stay strictly below): for walls the other
        facet rows of the adjacent region, otherwise the rows of the terms sharing a
        maximal cell of the subdivision with ``terms`` (every other row is implied).
    point : tuple of Fraction
        A certified point of the relative interior.
    dim : int
        Dimension of the cell (``d - rank E``).
    """

    terms: frozenset
    E: tuple
    f: tuple
    A: tuple
    b: tuple
    point: tuple
    dim: int


def newton_polytope(f: TropicalPolynomial):
    """``Newt(f) = conv{α_j}`` as a :class:`tropattn.geometry.Polytope`.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial; only its exponents ``α_j`` are used.

    Returns
    -------
    Polytope
        The exact convex hull of the exponents (possibly lower-dimensional).

    Examples
    --------
    The Newton polytope of a product is the Minkowski sum of the factors' ones:

    >>> from tropattn.tropical import parse_polynomial
    >>> from tropattn.geometry import minkowski_sum
    >>> f, g = parse_polynomial("max(0, x, y)"), parse_polynomial("max(0, x + y)")
    >>> newton_polytope(f * g) == minkowski_sum(newton_polytope(f), newton_polytope(g))
    True
    """
    return convex_hull(f.exponents)


def lifted_polytope(f: TropicalPolynomial):
    """The lifted Newton polytope ``conv{(α_j, c_j)}`` in ``Q^{d+1}``.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial; its lifted points ``(α_j, c_j)`` are used.

    Returns
    -------
    Polytope
        The exact convex hull in ``Q^{d+1}``; all its vertices, upper and lower
        (:func:`tropattn.geometry.upper_hull` keeps the upper ones only).

    Examples
    --------
    Its upper vertices are the terms with a linear region:

    >>> from tropattn.tropical import parse_polynomial
    >>> f = parse_polynomial("max(0, x, 2*x - 1)")
    >>> lifted_polytope(f).vertex_count, len(f.linear_regions())
    (3, 3)
    """
    return convex_hull(f.lifted_points())


def dual_subdivision(f: TropicalPolynomial) -> tuple:
    """The maximal cells of the regular subdivision of ``Newt(f)`` induced by the coefficients.

    Each cell is the frozenset of term indices whose lifted points lie on one upper
    facet of the lifted polytope (all of them, not only its vertices); within the
    affine hull when ``Newt(f)`` is lower-dimensional.  Sorted by sorted indices.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial; its certified upper hull is cached on it.

    Returns
    -------
    tuple of frozenset of int
        The maximal cells; each is dual to a vertex of the tropical hypersurface when
        ``Newt(f)`` is full-dimensional.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> dual_subdivision(parse_polynomial("max(0, x, 2*x - 1)"))   # two segments
    (frozenset({0, 1}), frozenset({1, 2}))
    >>> dual_subdivision(parse_polynomial("max(0, x, y, x + y)"))   # coefficients 0: one square
    (frozenset({0, 1, 2, 3}),)
    >>> dual_subdivision(parse_polynomial("max(0, x, y, x + y + 1)"))  # lifted corner: two triangles
    (frozenset({0, 1, 3}), frozenset({0, 2, 3}))
    """
    cells = _upper_hull(f).cells
    return tuple(sorted((frozenset(c) for c in cells), key=lambda s: sorted(s)))


def _tie_system(f, S, others=None):
    """Equations tying every term of S to min(S); strict rows for every other term (of ``others``)."""
    s0 = min(S)
    a0, c0 = f.terms[s0]
    E, rhs_e, A, b = [], [], [], []
    for k in sorted(others) if others is not None else range(len(f)):
        ak, ck = f.terms[k]
        row = tuple(p - q for p, q in zip(ak, a0))
        if k in S:
            if k != s0:
                E.append(row)
                rhs_e.append(c0 - ck)
        elif not (all(v == 0 for v in row) and ck < c0):
            A.append(row)
            b.append(c0 - ck)
    return E, rhs_e, A, b


def _subdivision_faces(f):
    """Every face of the regular subdivision: ``{terms: dim}`` plus the maximal cells.

    A face is named by all terms whose lifted points lie on it (so a face shared by
    several maximal cells is found once) and ``dim`` is the dimension of its
    projection.  Faces of a cell are found by walking down facets
    (:func:`tropattn.geometry.convex_hull`, exact, within the affine hull); a face of a
    face is a face.  Single points (dimension 0) are included with ``dim = 0``.
    """
    cells = [frozenset(c) for c in _upper_hull(f).cells]
    faces, todo = {}, [(S, None) for S in cells]
    while todo:
        S, dim = todo.pop()
        if S in faces:
            continue
        if dim is not None and dim <= 1:  # a segment's faces are its end points, which we do not need
            faces[S] = dim
            continue
        P = convex_hull([f.exponents[k] for k in S])
        faces[S] = P.dim
        for normal, offset in P.facets if P.dim >= 2 else ():
            todo.append((frozenset(k for k in S if sum(a * v for a, v in zip(normal, f.exponents[k])) == offset),
                         P.dim - 1))
    return faces, cells


def hypersurface_cells(f: TropicalPolynomial) -> tuple:
    """Every cell of the tropical hypersurface: one per face of the dual subdivision.

    A face ``F`` of the regular subdivision with ``dim F >= 1`` (at least two
    distinct exponents) is dual to the relatively open polyhedron where exactly the
    terms on ``F`` attain the max; its dimension is ``d - dim F``.  Together with the
    linear regions (dual to the vertices) these cells partition ``R^d``.

    * *walls* (``dim F = 1``, cell dimension ``d - 1``): one per pair of adjacent
      regions ``j, k``, with the equation ``(α_k - α_j)·x = c_j - c_k`` and region
      ``j``'s other facet rows;
    * every other face (down to the maximal cells, dual to the vertices of the
      hypersurface when ``Newt(f)`` is full-dimensional): ties with the smallest
      term of ``F`` as equations, strict rows for the terms sharing a maximal cell with
      ``F`` (all other rows are implied), and a point certified by
      :func:`tropattn.exact.relative_interior_point`.

    Cells are identified by the set of terms attaining the max on them, so a wall that
    is also a maximal cell (``Newt`` of dimension 1) appears once.  Faces of the
    subdivision come from :func:`tropattn.geometry.convex_hull`.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial; its linear regions and upper hull are cached on it.

    Returns
    -------
    tuple of HypersurfaceCell, sorted by decreasing dimension, then by sorted terms.

    Raises
    ------
    InternalError
        A face of the subdivision whose dual cell has no point (cannot happen for a
        correct certificate; please report the polynomial).

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> cells = hypersurface_cells(parse_polynomial("max(0, x, y)"))   # tropical line
    >>> sorted((c.dim, sorted(c.terms)) for c in cells)
    [(0, [0, 1, 2]), (1, [0, 1]), (1, [0, 2]), (1, [1, 2])]
    >>> plane = hypersurface_cells(parse_polynomial("max(0, x, y, z)"))  # 6 walls, 4 rays, 1 vertex
    >>> [sum(c.dim == k for c in plane) for k in (2, 1, 0)]
    [6, 4, 1]
    """
    out = {}
    for reg in f.linear_regions():
        for i, k in enumerate(reg.neighbors):
            if k < reg.term:
                continue
            p = reg.facet_points[i]
            terms = frozenset(f.argmax_terms(p))
            out.setdefault(terms, HypersurfaceCell(
                terms=terms, E=(reg.A[i],), f=(reg.b[i],),
                A=tuple(r for m, r in enumerate(reg.A) if m != i),
                b=tuple(r for m, r in enumerate(reg.b) if m != i),
                point=p, dim=f.dim - 1))
    faces, cells = _subdivision_faces(f)
    for S, k in faces.items():
        if k == 0 or S in out:
            continue
        E, fe, A, b = _tie_system(f, S, set().union(*(C for C in cells if S <= C)))
        cert = exact.relative_interior_point(A, b, E, fe) if A else None
        point = cert.point if cert is not None else exact.solve(E, fe)
        if point is None:
            raise InternalError(
                f"the face {sorted(S)} of the dual subdivision has no dual cell; "
                "please report this polynomial")
        out[S] = HypersurfaceCell(terms=S, E=tuple(E), f=tuple(fe), A=tuple(A), b=tuple(b),
                                  point=tuple(point), dim=f.dim - k)
    return tuple(sorted(out.values(), key=lambda c: (-c.dim, sorted(c.terms))))
