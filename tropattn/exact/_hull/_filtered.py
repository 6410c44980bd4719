"""The local certificate decided from the points: orientation signs, no exact rows.

:func:`certify_filtered` checks what :func:`~tropattn.exact._hull._local.certify_local`
checks, with every sign an orientation determinant of the input points
(:class:`~tropattn.exact._hull._planes.SimplexPlanes`: float cofactors with a rigorous
bound, exact integer determinants where the bound is unsure, counted).  The facets are
the classes of simplices joined by flat ridges (the opposite vertex exactly on the
simplex's hyperplane), and their exact primitive rows are built only when read
(:class:`FacetRows`): certifying the hull and reporting its vertices, incidence and
facet count never make them.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np

from ..._config import config
from ..._lazy import lazy_import
from .._counters import record
from .._linalg import maximal_minors
from .._predicates import PreparedPoints, as_small_ints
from ._local import _ridge_vertices, _star_vertices, first_simplices, inside_points, rows_vanish_on_simplices
from ._normals import _outward_rows, _primitive_normals, simplex_normals
from ._planes import SimplexPlanes
from ._surface import _consistently_oriented, _contains_point, _ridge_pairs, meets_alone_any

sparse = lazy_import("scipy.sparse")

__all__ = ["certify_filtered", "FacetRows"]

#: What :func:`certify_filtered` returns when it does not apply (the caller's exact rows answer).
NOT_APPLICABLE = None


def certify_filtered(pts: PreparedPoints, simplices: np.ndarray, inner: tuple, report: dict | None = None):
    """The local certificate of :func:`~tropattn.exact._hull._local.certify_local`, its signs
    decided from the points; returns like :func:`~tropattn.exact._hull._boundary.certify_boundary`
    with a lazy :class:`FacetRows` for the rows, or ``NOT_APPLICABLE`` (None) when the
    points leave the float range or a simplex is degenerate or has ``inner`` on its
    hyperplane (the caller's exact rows and certificates answer).

    With ``o_s = -sign(h_s . inner)`` the outward row of simplex ``s`` is ``o_s h_s``
    (a positive multiple of the primitive row, exact signs throughout):

    1. the simplices form a closed surface, consistently oriented by ``o``;
    2. at every ridge the vertex of each neighbour opposite the ridge is on the inner
       side of the simplex's row (``<= 0``); where it is on the hyperplane (a flat
       ridge) the two simplices span one hyperplane, and the facets are the classes of
       simplices joined by flat ridges (one representative simplex each);
    3. a ray meets the surface once: the centroid ``c`` of a simplex of the facet ``f0``
       with the fewest simplices is strictly inside every other facet, every point is
       on the inner side of ``f0``, and no other simplex of ``f0`` contains ``c``;
    4. every point off the surface is strictly inside every facet (a one-sided float
       filter) or in ``conv(inner, t)`` for a simplex ``t`` (exact determinants), else
       tested against every facet.

    Two classes on one hyperplane would fail 3 or 4 (a point of one is then not strictly
    inside the other), so the classes are the facets, and the theorem of Mehlhorn et
    al. applies as in :func:`~tropattn.exact._hull._local.certify_local`.  Vertices: as
    there, with the exact normals of only the facets a determinant needs.
    """
    n, (F, k) = len(pts.P), simplices.shape
    planes = SimplexPlanes.of(pts, simplices)
    if planes is None:
        return NOT_APPLICABLE
    orient = -planes.point_signs(np.arange(F), inner)
    if np.any(orient == 0):
        return NOT_APPLICABLE
    pairs = _ridge_pairs(simplices, n)
    if pairs is None or not _consistently_oriented(simplices, orient, n, pairs):  # 1
        return None, None, None
    facet_of = _facets_at_ridges(planes, simplices, orient, pairs, report)  # 2
    if facet_of is None:
        return None, None, None
    nf = int(facet_of.max()) + 1
    rep = first_simplices(facet_of, nf)
    if not _ray_meets_once(planes, simplices, facet_of, rep, orient, inner):  # 3
        return None, None, None
    on_surface = np.zeros(n, dtype=bool)
    on_surface[simplices.ravel()] = True
    others = np.flatnonzero(~on_surface)
    guide = planes.unit_rows(rep, orient[rep])  # the outward rows in floats: guesses only
    sign = orient[rep]
    interior, boundary = inside_points(  # 4
        pts, simplices, inner, others, nf, lambda idx: planes.negative_columns(rep, sign, idx), guide, rep,
        lambda rows, cols: sign[rows] * planes.pair_signs(rep[rows], cols), report)
    S = np.sort(simplices, axis=1)
    star_f, star_p = np.repeat(facet_of, k), simplices.ravel()
    A = LazyNormals(pts, simplices[rep])
    if nf == F:  # every ridge bent: each point of the surface is a vertex (see _ridge_vertices)
        by_ridges = on_surface.copy()
    else:
        by_ridges = _ridge_vertices(A, S, facet_of, pairs, n)
    if report is not None:
        report.setdefault("ridge_vertices", []).append(by_ridges)
    proved = _star_vertices(A, star_f, star_p, n, k, guide, by_ridges)
    suspicious = np.concatenate([np.flatnonzero(on_surface & ~proved), others[~interior | boundary]])
    rows = FacetRows(pts, simplices[rep], inner)
    Z = _incidence(planes, rep, orient, star_f, star_p, suspicious, n)
    if Z is None:
        return None, None, None
    vertex = proved.copy()
    if len(suspicious):
        vertex |= meets_alone_any(Z, suspicious)
    if not isinstance(Z, np.ndarray) and nf * n <= config.hull_dense_entries:
        Z = Z.toarray()
    return rows, Z, vertex


def _facets_at_ridges(planes: SimplexPlanes, simplices: np.ndarray, orient: np.ndarray, pairs: tuple,
                      report: dict | None) -> np.ndarray | None:
    """Check 2 of :func:`certify_filtered`: the facet of each simplex (classes joined by flat
    ridges, numbered by their first simplex), or None when a ridge is not convex (then
    ``report["ridges"]`` lists ``(simplex, simplex, opposite, opposite)`` of the bad ones)."""
    F = len(simplices)
    a, b = pairs  # rows j * F + s of the ridge list: simplex s without its j-th smallest vertex
    S = np.sort(simplices, axis=1)
    sa, sb = a % F, b % F
    opp_a, opp_b = S[sa, a // F], S[sb, b // F]
    g = np.concatenate([orient[sa], orient[sb]]) * planes.pair_signs(np.concatenate([sa, sb]),
                                                                     np.concatenate([opp_b, opp_a]))
    ga, gb = g[:len(sa)], g[len(sa):]
    bad = (ga > 0) | (gb > 0) | ((ga == 0) != (gb == 0))
    if np.any(bad):
        if report is not None:
            report["ridges"] = (sa[bad], sb[bad], opp_a[bad], opp_b[bad])
        return None
    flat = np.flatnonzero(ga == 0)
    return _classes(F, sa[flat], sb[flat])


def _classes(F: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The classes of ``range(F)`` joined by the pairs ``(a[i], b[i])``, numbered in the order
    of their smallest member: each member takes the least label of its pairs, and labels
    follow their own labels (pointer jumping), until nothing changes.

    >>> _classes(6, np.array([4, 1, 5]), np.array([2, 4, 3])).tolist()
    [0, 1, 1, 2, 1, 2]
    """
    label = np.arange(F)
    while len(a):
        low = np.minimum(label[a], label[b])
        new = label.copy()
        np.minimum.at(new, a, low)
        np.minimum.at(new, b, low)
        new = new[new]
        if np.array_equal(new, label):
            break
        label = new
    return np.unique(label, return_inverse=True)[1].reshape(-1)


def _ray_meets_once(planes: SimplexPlanes, simplices: np.ndarray, facet_of: np.ndarray, rep: np.ndarray,
                    orient: np.ndarray, inner: tuple) -> bool:
    """Check 3 of :func:`certify_filtered` (exact)."""
    pts = planes.pts
    counts = np.bincount(facet_of, minlength=len(rep))
    f0 = int(np.argmin(counts))
    here = np.flatnonzero(facet_of == f0)
    s0 = here[0]
    c = tuple(map(sum, zip(*(pts.P[i] for i in simplices[s0]))))  # on s0's hyperplane, exactly
    others = np.delete(rep, f0)
    if np.any(orient[others] * planes.point_signs(others, c) >= 0):
        return False
    rest = np.ones(len(pts.P), dtype=bool)
    rest[simplices[s0]] = False  # s0's own points: zeros by construction
    if np.any(orient[s0] * planes.sign_matrix(np.array([s0]), np.flatnonzero(rest))[0] > 0):
        return False
    return not (len(here) > 1 and _contains_point(pts, simplices[here[1:]], c, inner).any())


def _incidence(planes: SimplexPlanes, rep: np.ndarray, orient: np.ndarray, star_f: np.ndarray,
               star_p: np.ndarray, suspicious: np.ndarray, n: int):
    """The incidence (facets, points): the stars of the simplices, plus the zeros of every
    facet at the ``suspicious`` points (None if one is outside a facet); dense when no
    point is suspicious and it is small, else sparse."""
    nf = len(rep)
    if not len(suspicious) and nf * n <= config.hull_dense_entries:
        Z = np.zeros((nf, n), dtype=bool)
        Z[star_f, star_p] = True
        return Z
    Z = sparse.csr_matrix((np.ones(len(star_f), dtype=bool), (star_f, star_p)), shape=(nf, n))
    if len(suspicious):
        signs = orient[rep][:, None] * planes.sign_matrix(rep, suspicious)
        if np.any(signs > 0):
            return None
        f, j = np.nonzero(signs == 0)
        Z = (Z + sparse.csr_matrix((np.ones(len(f), dtype=bool), (f, suspicious[j])), shape=(nf, n))).astype(bool)
    Z.sum_duplicates()
    return Z


class LazyNormals:
    """The exact normals (all columns but the last) of the facets, made on first use:
    ``A[pick]`` for an index array ``pick``, as :func:`_ridge_vertices` and
    :func:`_star_vertices` read them (only the dependence of normals matters there, so
    a simplex's own cross product serves).  Only surfaces with flat ridges read them."""

    def __init__(self, pts: PreparedPoints, simplices: np.ndarray):
        self.pts, self.simplices = pts, simplices

    def __len__(self) -> int:
        return len(self.simplices)

    def __getitem__(self, pick: np.ndarray) -> np.ndarray:
        return self.normals[pick]

    @functools.cached_property
    def normals(self) -> np.ndarray:
        """Every facet's normal, one vectorised call (int64 when they fit)."""
        return as_small_ints(simplex_normals(self.pts, self.simplices)[:, :-1])


class FacetRows(Sequence):
    """The primitive outward integer rows of the facets, one per representative simplex,
    made exactly when first read (a sequence of tuples of int; ``len`` needs none).

    Made as before the certificate changed: the simplex's exact cross product
    (``normals``, by default :func:`~tropattn.exact._hull._normals._primitive_normals`;
    ``(raw, floats)`` as it returns them), primitive, negative at
    ``inner``; each row is checked to vanish at its simplex's points
    (:func:`~tropattn.exact._hull._local.rows_vanish_on_simplices`), else it is rebuilt
    from Python-integer minors (counted ``declined`` at ``"hull.lazy_rows"``).
    """

    def __init__(self, pts: PreparedPoints, simplices: np.ndarray, inner: tuple, normals=_primitive_normals):
        self.pts, self.simplices, self.inner, self.normals = pts, simplices, inner, normals

    def __len__(self) -> int:
        return len(self.simplices)

    def __getitem__(self, i):
        return self.rows[i]

    def __iter__(self):
        return iter(self.rows)

    @functools.cached_property
    def rows(self) -> tuple:
        """The rows, as tuples of Python ints (computed once)."""
        U = self._outward(*self.normals(self.pts, self.simplices))
        if U is None or not rows_vanish_on_simplices(self.pts, self.simplices, U, np.arange(len(U))):
            record("declined", where="hull.lazy_rows")
            U = self._outward(_object_normals(self.pts, self.simplices), None)
        return tuple(map(tuple, U.tolist()))

    def _outward(self, raw: np.ndarray, floats) -> np.ndarray | None:
        """The primitive outward rows of ``raw``, one per simplex, in order (None if some
        row is zero, through ``inner``, or equal to another: never for certified facets)."""
        out = _outward_rows(raw, self.inner, floats)
        if out is None or not np.all(out[1]) or len(out[0]) != len(raw):
            return None
        return out[0][out[2]]


def _object_normals(pts: PreparedPoints, simplices: np.ndarray) -> np.ndarray:
    """The simplices' normals from Python-integer minors (the slow, plain route)."""
    minors = maximal_minors(pts.Pa[simplices].astype(object))
    a = minors[:, ::-1].copy()
    a[:, 1::2] = -a[:, 1::2]
    return a
