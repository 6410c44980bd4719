"""The local hull certificate decided from the points (float-filtered orientation signs), rows built when read.

The filtered path (``config.hull_filtered = 1``, the default) must give the same hull as the
exact-row path (``hull_filtered = 0``) and as the same certificate with every sign an exact
integer determinant (the filter's factor made infinite), on random small rational inputs,
degenerate ones among them: coplanar and collinear points, repeated points, tiny and huge
magnitudes side by side, points on a grid, denominators past 2^53 (exact zeros that floats
do not see).  Hulls are also compared with :mod:`oracles.hull`, which shares no code with
tropattn: every d-subset of the points in Fractions (a plane through d points with every
point on one side is a facet plane; a point is a vertex iff the facet normals through it
span R^d, or, in any dimension, iff it lies in the hull of no d + 1 others).
"""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.hull import oracle_facets, oracle_vertices, oracle_vertices_from_facets

from tropattn import config
from tropattn.exact import certified_hull, counting, homogeneous_row
from tropattn.exact._hull import _planes
from tropattn.exact._hull._filtered import FacetRows
from tropattn.geometry import convex_hull

LOCAL = {"hull_local_entries": 0}  # the local certificate, even on small inputs
PLACE = "filter_failures:hull.orientation"


# ------------------------------------------------------------------ the oracle
def oracle(points):
    """``(facets, vertices)`` of full-dimensional points by :mod:`oracles.hull` (Fractions only):
    the set of ``(normal, offset)`` and the sorted tuple of vertices."""
    pts = [tuple(map(Fraction, p)) for p in points]
    facets = oracle_facets(pts)
    return facets, tuple(sorted(oracle_vertices_from_facets(pts, facets)))


def test_the_oracle_on_a_square_pyramid():
    pts = [(0, 0, 0), (2, 0, 0), (0, 2, 0), (2, 2, 0), (1, 1, 1), (1, 1, 0), (1, 0, 0)]
    facets, verts = oracle(pts)
    assert len(facets) == 5 and len(verts) == 5 and ((0, 0, -1), 0) in facets


# ------------------------------------------------------------------ the paths compared
def _answer(points):
    """The Polytope's fields and counts, and the Hull's incidence (each facet row with the
    points on it)."""
    P = convex_hull(points)
    G = list(dict.fromkeys(homogeneous_row(p) for p in points))
    H = certified_hull(G)
    on = tuple(sorted(zip(H.facets, H.facet_points)))
    return P.dim, P.vertices, tuple(sorted(P.facets)), P.equations, P.facet_count, P.vertex_count, on


def _three_paths(points, knobs=LOCAL):
    """The hull by the filtered path, by the exact-row path, and with every sign exact."""
    with config.override(**knobs), counting() as c:
        filtered = _answer(points)
    with config.override(**knobs, hull_filtered=0):
        rows = _answer(points)
    with config.override(**knobs, hull_filter_signs=0):
        declined = _answer(points)
    assert filtered == rows == declined
    return filtered, c


def _fractions(draw, d, n, den_bits):
    """n random rational points of [-4, 4]^d with denominators below 2^den_bits."""
    out = []
    for _ in range(n):
        out.append(tuple(Fraction(draw(st.integers(-4 << den_bits, 4 << den_bits)),
                                  draw(st.integers(1, (1 << den_bits) - 1))) for _ in range(d)))
    return out


@st.composite
def clouds(draw):
    """Small rational clouds, often degenerate: coplanar, collinear, repeated, on a grid,
    tiny beside huge, big denominators."""
    d = draw(st.integers(2, 4))
    kind = draw(st.sampled_from(["random", "coplanar", "repeated", "grid", "magnitudes", "midpoints"]))
    n = draw(st.integers(d + 2, 11))
    den_bits = draw(st.sampled_from([3, 20, 40]))
    pts = _fractions(draw, d, n, den_bits)
    if kind == "coplanar":  # the last coordinate fixed on part of the cloud (or all): often a facet's plane
        c = draw(st.sampled_from([Fraction(4), Fraction(-4), Fraction(draw(st.integers(-5, 5)), 7)]))
        cut = draw(st.integers(d, n))
        pts = [p[:-1] + (c,) for p in pts[:cut]] + pts[cut:]
    elif kind == "repeated":
        pts = pts + pts[: draw(st.integers(1, n))]
    elif kind == "grid":
        step = Fraction(1, draw(st.sampled_from([1, 3, 10**6 + 3])))
        pts = [tuple(step * draw(st.integers(-2, 2)) for _ in range(d)) for _ in range(n + 4)]
    elif kind == "magnitudes":  # 1e-300 beside 3, 1e300 beside 1
        scale = draw(st.sampled_from([Fraction(1e-300), Fraction(1e300), Fraction(1, 3)]))
        pts = [tuple(v * scale if i % 2 else v for i, v in enumerate(p)) for p in pts]
        pts.append(tuple(Fraction(3) for _ in range(d)))
    elif kind == "midpoints":  # points on the segments between others: exact zeros of big determinants
        for a, b in zip(pts[:3], pts[1:4]):
            pts.append(tuple((x + y) / 2 for x, y in zip(a, b)))
    return pts


@settings(max_examples=80, deadline=None)
@given(clouds(), st.sampled_from([LOCAL, {**LOCAL, "hull_inside_filter_entries": -1}]))
def test_filtered_equals_exact_rows_and_every_sign_exact(pts, knobs):
    """Same dimension, vertices, facets, equations and counts on all three paths; full-dimensional
    hulls also against the oracle."""
    (dim, verts, facets, eqs, nf, nv, _), _ = _three_paths(pts, knobs)
    if dim == len(pts[0]):
        want_f, want_v = oracle(pts)
        assert set(facets) == want_f and verts == want_v
        assert nf == len(want_f) and nv == len(want_v)
    else:  # lower-dimensional: the vertices by Caratheodory
        assert set(verts) == oracle_vertices([tuple(map(Fraction, p)) for p in pts])


@pytest.mark.parametrize("d", [3, 4])
def test_rational_cube_equals_the_oracle(d):
    """The benchmark's input, small: random denominators per coordinate."""
    pts = _cube_q(40 if d == 3 else 22, d, seed=d)
    (dim, verts, facets, *_), c = _three_paths(pts)
    want_f, want_v = oracle(pts)
    assert set(facets) == want_f and verts == want_v
    assert c.certified == 2 and c.fallbacks == 0  # the Polytope's hull and the Hull's, each certified


# ------------------------------------------------------------------ the counter of declined signs
def test_a_near_degenerate_input_moves_the_decline_counter():
    """A cube with its face centres pulled in by 10^-30: Qhull sees them on the faces, the
    float filter cannot place them (their signs are far below its bound), so exact
    determinants decide (counted), and the answer is the oracle's: the cube."""
    eps = Fraction(1, 10**30)
    corners = [tuple(Fraction(v) for v in c) for c in itertools.product([0, 1], repeat=3)]
    centres = []
    for axis, side in itertools.product(range(3), [0, 1]):
        p = [Fraction(1, 2)] * 3
        p[axis] = side - eps if side else eps
        centres.append(tuple(p))
    pts = corners + centres
    with config.override(**LOCAL), counting() as c:
        P = convex_hull(pts)
        answer = set(P.facets), P.vertices
    assert c.by_place[PLACE] > 0 and c.certified == 1 and c.fallbacks == 0
    assert answer == oracle(pts)
    assert P.vertex_count == 8 and P.facet_count == 6


def test_a_clear_input_needs_no_exact_sign():
    """Points in general position, away from every degeneracy: the filter decides every sign."""
    rng = np.random.default_rng(5)
    pts = [tuple(Fraction(int(a), 1000) for a in r) for r in rng.integers(-1000, 1000, size=(60, 3))]
    with config.override(**LOCAL), counting() as c:
        P = convex_hull(pts)
        _ = P.vertex_count, P.facet_count
    assert c.certified == 1 and c.by_place[PLACE] == 0


# ------------------------------------------------------------------ laziness
def _cube_q(n, d, seed=0):
    rng = np.random.default_rng(seed)
    den = rng.integers(900, 1100, size=(n, d), endpoint=True)
    num = rng.integers(-den, den, endpoint=True)
    return [tuple(Fraction(int(a), int(b)) for a, b in zip(r, s)) for r, s in zip(num, den)]


def test_rows_are_built_only_when_read():
    """Counts and vertices leave the facet rows unbuilt; the rows, once read, are the
    exact-row path's, and a Polytope pickled before or after reads the same."""
    pts = _cube_q(300, 4)
    P = convex_hull(pts)
    hull = P.__dict__["_hull"]
    assert isinstance(hull.facet_rows, FacetRows)
    nv, nf = P.vertex_count, P.facet_count
    assert "rows" not in hull.facet_rows.__dict__ and "facets" not in hull.__dict__
    early = pickle.loads(pickle.dumps(P))
    with config.override(hull_filtered=0):
        Q = convex_hull(pts)
    assert (nv, nf) == (Q.vertex_count, Q.facet_count)
    assert P.facets == Q.facets and early.facets == Q.facets and P.vertices == Q.vertices
    assert sorted(hull.facets) == sorted(Q.__dict__["_facet_rows"])
    assert len(hull.facets) == hull.facet_count == nf


def test_wrong_lazy_rows_are_rebuilt_from_python_integers():
    """Broken exact normals (planted: a simplex given its neighbour's row) are caught when the
    rows are read: they are rebuilt from Python-integer minors (counted) and come out right."""
    from tropattn.exact._hull._normals import _primitive_normals
    from tropattn.exact._hull._qhull import qhull_simplices
    from tropattn.exact._predicates import PreparedPoints

    G = list(dict.fromkeys(homogeneous_row(p) for p in _cube_q(60, 3, seed=2)))
    pts = PreparedPoints.of(G)
    simplices = qhull_simplices(pts.X_scaled, "Qt")[0]
    inner = tuple(map(sum, zip(*G)))

    def broken(pts_, simplices_):
        raw, _ = _primitive_normals(pts_, simplices_)
        raw = raw.copy()
        raw[0] = raw[1]
        return raw, None

    want = FacetRows(pts, simplices, inner)
    with counting() as c:
        got = FacetRows(pts, simplices, inner, normals=broken)
        rows = tuple(got)
    assert c.by_place["declined:hull.lazy_rows"] == 1
    assert rows == tuple(want) and len(rows) == len(simplices)


# ------------------------------------------------------------------ the filtered signs themselves
def _det(M) -> int:
    """Determinant of a square matrix of Python ints (Bareiss, fraction-free)."""
    A = [list(r) for r in M]
    n, sign, prev = len(A), 1, 1
    for c in range(n - 1):
        piv = next((i for i in range(c, n) if A[i][c]), None)
        if piv is None:
            return 0
        if piv != c:
            A[c], A[piv] = A[piv], A[c]
            sign = -sign
        for i in range(c + 1, n):
            for j in range(c + 1, n):
                A[i][j] = (A[i][j] * A[c][c] - A[i][c] * A[c][j]) // prev
        prev = A[c][c]
    return sign * A[-1][-1]


def _sign(v: int) -> int:
    return (v > 0) - (v < 0)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 5), st.sampled_from([3, 30, 60]), st.integers(0, 2**32 - 1))
def test_simplex_plane_signs_equal_exact_determinants(k, bits, seed):
    """``sign(h_s . x) = (-1)^k sign det[v_0; ...; v_{k-1}; x]``, for points off and exactly on
    the hyperplanes (integer combinations of a simplex's points, where floats round), by
    all three entry points: pairs, one point, a matrix."""
    from tropattn.exact._predicates import PreparedPoints

    rng = np.random.default_rng(seed)
    top = 1 << bits
    base = [[int(v) for v in rng.integers(-top, top, size=k + 1)] for _ in range(3 * k)]
    simplices = np.array([rng.choice(3 * k, k, replace=False) for _ in range(6)])
    on = []
    for s in simplices:  # points on the hyperplane of s, exactly
        lam = rng.integers(-3, 4, size=k).tolist()
        on.append([sum(int(c) * base[i][j] for c, i in zip(lam, s)) for j in range(k + 1)])
    P = base + on
    pts = PreparedPoints.of([tuple(r) for r in P])
    planes = _planes.SimplexPlanes.of(pts, simplices)
    assert planes is not None
    want = np.array([[(-1) ** k * _sign(_det([P[i] for i in s] + [x])) for x in P] for s in simplices])
    S, X = np.meshgrid(np.arange(len(simplices)), np.arange(len(P)), indexing="ij")
    assert planes.pair_signs(S.ravel(), X.ravel()).reshape(S.shape).tolist() == want.tolist()
    assert planes.sign_matrix(np.arange(len(simplices)), np.arange(len(P))).tolist() == want.tolist()
    for j in (0, len(base), len(P) - 1):
        assert planes.point_signs(np.arange(len(simplices)), tuple(P[j])).tolist() == want[:, j].tolist()
    assert all(want[i, len(base) + i] == 0 for i in range(len(simplices)))


# ------------------------------------------------------------------ a dishonest claim
def test_a_surface_winding_twice_is_refused():
    """A pentagon's vertices joined as a pentagram (A-C-E-B-D-A) is a closed, consistently
    oriented, locally convex cycle that winds twice around the centre: only the ray check
    (every point on the inner side of one edge's line) tells it from a boundary.  The
    certificate refuses it, and the next proposal (Qhull's) answers."""
    from tropattn.exact import _hull as hull_module
    from tropattn.exact._hull._qhull import qhull_simplices

    # A, C, D first: their centroid (the certificate's inner point) lies in the star's core
    pentagon = [(0, 10, 1), (6, -8, 1), (-6, -8, 1), (10, 3, 1), (-10, 3, 1), (0, 0, 1)]  # A C D B E, centre
    star = np.array([[0, 1], [1, 4], [4, 3], [3, 2], [2, 0]])  # A-C-E-B-D-A
    calls = []

    def dishonest_first(X, options=None):
        calls.append(options)
        return (star, None) if len(calls) == 1 else qhull_simplices(X, options)

    with config.override(**LOCAL), counting() as c:
        H = hull_module._certified_hull(pentagon, qhull_options=("QJ", None), propose=dishonest_first)
    assert len(calls) == 2 and c.certified == 1 and c.fallbacks == 0
    assert H.vertices == (0, 1, 2, 3, 4) and H.facet_count == 5
    assert sorted(H.facets) == sorted(oracle_facets_2d(pentagon))


def oracle_facets_2d(rows):
    """The primitive outward rows ``(a, b, c)`` (``a x + b y + c <= 0``) of the hull of integer
    points ``(x, y, 1)`` in the plane: the lines through two points with all points on one side."""
    pts = [r[:2] for r in rows]
    out = set()
    for p, q in itertools.combinations(pts, 2):
        a, b = q[1] - p[1], p[0] - q[0]
        c = -(a * p[0] + b * p[1])
        side = [a * x + b * y + c for x, y in pts]
        if all(v <= 0 for v in side) or all(v >= 0 for v in side):
            s = 1 if all(v <= 0 for v in side) else -1
            g = math.gcd(a, b, c)
            out.add((s * a // g, s * b // g, s * c // g))
    return out
