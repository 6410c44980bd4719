"""Tests for tropattn.geometry (polytopes, hulls, sums) and its certificates: cross-checks between independent methods and known counts."""

from __future__ import annotations

import math
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tropattn import config, exact
from tropattn.errors import InvalidInputError
from tropattn.exact._hull import qhull_simplices as hull_qhull_simplices
from tropattn.geometry import (
    Polytope,
    convex_hull,
    minkowski_sum,
    normal_fan,
    rational_sphere_points,
    upper_hull,
    upper_vertex_count,
)


# ----------------------------------------------------------------------- helpers
def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def point_sets(dim, max_points=9, coord=3):
    """Small integer point sets with many duplicates and coplanar points (a tiny grid)."""
    point = st.tuples(*[st.integers(-coord, coord)] * dim)
    return st.lists(point, min_size=1, max_size=max_points)


def same_polytope(P, Q):
    return (P.vertices, P.facets, P.equations, P.dim) == (Q.vertices, Q.facets, Q.equations, Q.dim)


def check_h_description(P, points):
    """Every input point satisfies the H-description; every facet holds >= dim vertices."""
    for p in points:
        assert P.contains(p)
    for normal, offset in P.facets:
        assert any(normal)
        assert all(dot(normal, v) <= offset for v in P.vertices)
        assert sum(dot(normal, v) == offset for v in P.vertices) >= P.dim
        for e, _ in P.equations:
            assert dot(normal, e) == 0


# --------------------------------------------------------- fast path == exact fallback
@pytest.mark.parametrize("dim", [2, 3, 4])
def test_fast_path_equals_exact_fallback(dim):
    @settings(max_examples=40 if dim < 4 else 25, deadline=None)
    @given(point_sets(dim, max_points=10 if dim < 4 else 8))
    def check(points):
        fast = convex_hull(points)
        slow = convex_hull(points, method="exact")
        assert same_polytope(fast, slow)
        check_h_description(fast, points)
        assert set(fast.vertices) <= {tuple(F(x) for x in p) for p in points}

    check()


def test_fast_path_is_certified_on_coplanar_grid():
    grid = [(x, y, z) for x in range(3) for y in range(3) for z in range(3)]  # 27 points, 8 vertices
    with exact.counting() as c:
        P = convex_hull(grid)
    assert (P.vertex_count, P.facet_count) == (8, 6)
    assert c.certified == 1 and c.fallbacks == 0
    assert same_polytope(P, convex_hull(grid, method="exact"))


def test_float_blind_input_falls_back_to_exact():
    # (1/2 + 10^-30, 1/2 + 10^-30) is outside the edge x + y = 1 but rounds onto it in floats
    eps = F(1, 10**30)
    pts = [(0, 0), (1, 0), (0, 1), (F(1, 2) + eps, F(1, 2) + eps)]
    with exact.counting() as c:
        P = convex_hull(pts)
    # the plain Qhull run is refuted exactly; the joggled run (or the exact fallback) is right
    assert P.vertex_count == 4 and c.fallbacks + c.certified == 1
    inside = [(0, 0), (1, 0), (0, 1), (F(1, 2) - eps, F(1, 2) - eps)]
    assert convex_hull(inside).vertex_count == 3


def test_qhull_failure_uses_counted_exact_fallback(monkeypatch):
    import scipy.spatial

    def broken(*args, **kwargs):
        raise scipy.spatial.QhullError("simulated Qhull failure")

    monkeypatch.setattr(scipy.spatial, "ConvexHull", broken)
    pts = [(x, y, x * y) for x in range(3) for y in range(3)]
    with config.override(qhull_private_runner=0), exact.counting() as c:  # Qhull through the public class
        P = convex_hull(pts)
    assert c.fallbacks == 1 and c.certified == 0
    monkeypatch.undo()
    assert same_polytope(P, convex_hull(pts))


def test_qhull_runs_through_the_public_class_when_the_private_one_changes():
    pts = [(x, y, x * y) for x in range(3) for y in range(3)] + [(1, 1, 3)]
    ref = convex_hull(pts)
    with config.override(qhull_private_runner=0):  # what a changed private runner falls back to
        X = np.array(pts, dtype=float)
        simplices, planes = hull_qhull_simplices(X, "QJ")
        assert simplices.shape[1] == 3 and planes.shape == (len(simplices), 4)
        with exact.counting() as c:
            P = convex_hull(pts)
    assert c.certified == 1 and c.fallbacks == 0 and same_polytope(P, ref)


# ----------------------------------------------------------------- round trips
@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4).flatmap(lambda d: point_sets(d, max_points=8)))
def test_v_to_h_to_v_round_trip(points):
    P = convex_hull(points)
    A = [n for n, _ in P.facets]
    b = [o for _, o in P.facets]
    Q = Polytope.from_inequalities(A, b, [n for n, _ in P.equations], [o for _, o in P.equations])
    assert same_polytope(P, Q)
    assert hash(P) == hash(Q)


# ------------------------------------------------------------------ Minkowski sums
@settings(max_examples=30, deadline=None)
@given(st.integers(2, 3).flatmap(lambda d: st.tuples(point_sets(d, 7, 2), point_sets(d, 7, 2))))
def test_minkowski_vertices_are_sums_of_vertices(pq):
    P, Q = convex_hull(pq[0]), convex_hull(pq[1])
    S = minkowski_sum(P, Q)
    sums = {tuple(a + b for a, b in zip(v, w)) for v in P.vertices for w in Q.vertices}
    assert set(S.vertices) <= sums
    all_sums = [tuple(a + b for a, b in zip(p, q)) for p in pq[0] for q in pq[1]]
    assert same_polytope(S, convex_hull(all_sums, method="exact"))


def test_minkowski_square_plus_triangle_and_three_summands():
    square = convex_hull([[0, 0], [1, 0], [0, 1], [1, 1]])
    triangle = convex_hull([[0, 0], [2, 0], [0, 2]])
    # 4 + 3 edges, but the triangle's two axis edges are parallel to square edges
    assert minkowski_sum(square, triangle).vertex_count == 5
    seg = convex_hull([[0, 0], [1, 2]])
    assert minkowski_sum(square, triangle, seg) == minkowski_sum(minkowski_sum(square, seg), triangle)
    assert minkowski_sum(square) == square


@pytest.mark.parametrize("n", [1, 2, 3, 4, 6])
def test_zonotope_vertex_count(n):
    # segments along the moment curve (1, t, t^2): any three directions are independent
    segments = [convex_hull([[0, 0, 0], [1, t, t * t]]) for t in range(1, n + 1)]
    Z = minkowski_sum(*segments)
    expected = 2 * sum(math.comb(n - 1, i) for i in range(3))
    assert Z.vertex_count == expected
    assert Z.dim == min(n, 3)


# ------------------------------------------------------------------ sphere points
def test_sphere_points_are_all_vertices():
    pts = rational_sphere_points()
    assert len(set(pts)) == 200
    assert all(x * x + y * y + z * z == 1 for x, y, z in pts)  # exactly on the unit sphere
    # a point of a strictly convex surface is never a convex combination of others
    with exact.counting() as c:
        P = convex_hull(pts)
    assert P.vertex_count == 200 and set(P.vertices) == set(pts)
    assert c.fallbacks == 0 and c.certified == 1
    assert same_polytope(P, convex_hull(pts, method="exact"))
    # every facet is inscribed: all its vertices on the sphere, polygon facets included
    assert all(sum(dot(n, v) == o for v in P.vertices) >= 3 for n, o in P.facets)


@pytest.mark.slow
def test_sphere_minkowski_sum_matches_exact_hull_of_sums():
    A = convex_hull(rational_sphere_points()[::4])
    B = convex_hull(rational_sphere_points(5, 13, F(1, 3), (F(1, 2), 0, 0))[1::4])
    assert A.vertex_count == B.vertex_count == 50
    S = minkowski_sum(A, B)
    sums = [tuple(a + b for a, b in zip(v, w)) for v in A.vertices for w in B.vertices]
    assert same_polytope(S, convex_hull(sums, method="exact"))


def test_minkowski_vertex_incidence_from_the_incidence_matrix():
    # the (vertex, facet) pairs of a certified sum (boolean incidence) read directly must be
    # the pairs listed by facet_points, for a sum whose hull has points that are not vertices
    from tropattn.exact._hull import Hull
    from tropattn.exact._predicates import PreparedPoints
    from tropattn.exact._sum_hull import _vertex_incidence, certified_sum_hull

    A = convex_hull(rational_sphere_points()[::4])
    cube = convex_hull([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)] + [[F(1, 2), 0, 0]])
    for P, Q in ((A, cube), (cube, cube)):
        H = certified_sum_hull(PreparedPoints.of(P._vertex_rows), PreparedPoints.of(Q._vertex_rows))
        assert H is not None and isinstance(H.incidence, np.ndarray)
        v, f = _vertex_incidence(H)
        # the same hull with an extra non-vertex point (index 0) in G
        G = (H.G[H.vertices[0]],) + H.G
        Z = np.hstack([H.incidence[:, H.vertices[:1]], H.incidence])
        K = Hull(G, H.dim, H.coords, H.equations, H.facets, Z, tuple(i + 1 for i in H.vertices))
        listed = [(j, fi) for fi, pts in enumerate(H.facet_points) for j in pts]
        assert list(zip(v.tolist(), f.tolist())) == listed
        v2, f2 = _vertex_incidence(K)
        assert list(zip(v2.tolist(), f2.tolist())) == listed
        masks = Hull(G, H.dim, H.coords, H.equations, H.facets, K.masks, K.vertices)  # int bitmasks
        v3, f3 = _vertex_incidence(masks)
        assert list(zip(v3.tolist(), f3.tolist())) == listed


# -------------------------------------------------------------- lower dimensions
def test_collinear_points_in_r3():
    P = convex_hull([[0, 0, 0], [1, 2, 3], [3, 6, 9], [2, 4, 6], [1, 2, 3]])
    assert (P.dim, P.vertex_count, P.facet_count, len(P.equations)) == (1, 2, 2, 2)
    assert P.vertices == ((0, 0, 0), (3, 6, 9))
    assert P.contains([F(1, 2), 1, F(3, 2)]) and not P.contains([1, 1, 1]) and not P.contains([4, 8, 12])
    check_h_description(P, P.vertices)


def test_coplanar_points_in_r3():
    # a square and its centre in the plane z = x + y
    pts = [[0, 0, 0], [1, 0, 1], [0, 1, 1], [1, 1, 2], [F(1, 2), F(1, 2), 1]]
    P = convex_hull(pts)
    assert (P.dim, P.vertex_count, P.facet_count, len(P.equations)) == (2, 4, 4, 1)
    (e, f), = P.equations
    assert all(dot(e, p) == f for p in P.vertices)
    check_h_description(P, pts)
    assert same_polytope(P, convex_hull(pts, method="exact"))


def test_single_point():
    P = convex_hull([["1/3", 2, -1]] * 3)
    assert (P.dim, P.vertex_count, P.facet_count, len(P.equations)) == (0, 1, 0, 3)
    assert P.contains([F(1, 3), 2, -1]) and not P.contains([0, 2, -1])
    assert Polytope.from_inequalities([], [], [n for n, _ in P.equations], [o for _, o in P.equations]) == P


def test_mixed_number_types():
    P = convex_hull(np.array([[0.5, 0], [0, 0.25], [0, 0]]))
    Q = convex_hull([["1/2", 0], [0, F(1, 4)], [0, 0]])
    assert P == Q


# ---------------------------------------------------------------- H -> V
def test_from_inequalities_cube_simplex_cross_polytope():
    cube = Polytope.from_inequalities([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]],
                                      [1] * 6)
    assert (cube.vertex_count, cube.facet_count) == (8, 6)
    assert set(cube.vertices) == {(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)}
    simplex = Polytope.from_inequalities([[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 1, 1], [1, 0, 0]],
                                         [0, 0, 0, 1, 5])  # x <= 5 is redundant
    assert set(simplex.vertices) == {(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)}
    assert simplex.facet_count == 4
    signs = [(a, b, c) for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)]
    cross = Polytope.from_inequalities(signs, [1] * 8)
    assert (cross.vertex_count, cross.facet_count) == (6, 8)
    assert cross.contains([F(1, 3)] * 3) and not cross.contains([F(1, 2), F(1, 2), F(1, 100)])


def test_from_inequalities_implicit_equalities_and_equations():
    # x <= 0 and -x <= 0 force x = 0: a segment in R^2
    seg = Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 1, 0])
    assert (seg.dim, seg.vertices) == (1, ((0, 0), (0, 1)))
    tri = Polytope.from_inequalities([[-1, 0, 0], [0, -1, 0], [0, 0, -1]], [0, 0, 0], [[1, 1, 1]], [1])
    assert (tri.dim, tri.vertex_count, tri.facet_count) == (2, 3, 3)


def test_from_inequalities_refuses_empty_and_unbounded():
    with pytest.raises(InvalidInputError, match="empty"):
        Polytope.from_inequalities([[1], [-1]], [0, -1])  # x <= 0 and x >= 1
    with pytest.raises(InvalidInputError, match="unbounded"):
        Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1]], [1, 1, 1])
    with pytest.raises(InvalidInputError, match="inconsistent|empty"):
        Polytope.from_inequalities([[1, 0]], [1], [[1, 0], [1, 0]], [0, 1])


# --------------------------------------------------------------------- bad input
@pytest.mark.parametrize("bad", [[[0, float("nan")]], [[0, 1], [2]], [], [[0, 1], ["x", 2]], [1, 2]])
def test_bad_input_raises(bad):
    with pytest.raises(InvalidInputError):
        convex_hull(bad)
    with pytest.raises(InvalidInputError):
        upper_hull(bad)


def test_bad_method_and_summands():
    with pytest.raises(InvalidInputError):
        convex_hull([[0, 0], [1, 1], [0, 1]], method="float")
    with pytest.raises(InvalidInputError):
        minkowski_sum(convex_hull([[0, 0]]), convex_hull([[0, 0, 0]]))
    with pytest.raises(InvalidInputError):
        minkowski_sum([[0, 0]])


# ------------------------------------------------------------------ normal fans
@settings(max_examples=25, deadline=None)
@given(point_sets(3, 8, 2), st.tuples(*[st.integers(-5, 5)] * 3))
def test_normal_fan_contains_maximising_directions(points, c):
    P = convex_hull(points)
    fan = normal_fan(P)
    best = max(dot(c, v) for v in P.vertices)
    for cone in fan:
        assert cone.contains(c) == (dot(c, cone.vertex) == best)


# ------------------------------------------------------------------- upper hulls
def tropical_wins(points, j):
    """Exact LP: is there x where term j beats every other term strictly?"""
    a_j, c_j = points[j][:-1], points[j][-1]
    A = [[ak - aj for ak, aj in zip(p[:-1], a_j)] for k, p in enumerate(points) if k != j]
    b = [c_j - p[-1] for k, p in enumerate(points) if k != j]
    if not A:
        return True
    return exact.interior_point(A, b).feasible


def test_plane_conic_upper_hull():
    # 3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y² in the max convention: "2x" is 2 + x and "x²" is 0 + 2x
    pts = [(0, 0, 3), (1, 0, 2), (0, 1, 2), (1, 1, 3), (2, 0, 0), (0, 2, 0)]
    H = upper_hull(pts)
    assert H.vertices == tuple(j for j in range(6) if tropical_wins(pts, j)) == tuple(range(6))
    assert len(H.cells) == 4
    # the cells tile the Newton triangle (area 2) and each is a face of the upper hull
    assert sum(cell_area([pts[i] for i in cell]) for cell in H.cells) == 2
    for cell in H.cells:
        assert_upper_face(pts, cell)


def cell_area(points):
    """Exact area of the convex hull of the projected points (fan from the first vertex)."""
    P = convex_hull([p[:-1] for p in points])
    if P.dim < 2:
        return 0
    cx = sum(v[0] for v in P.vertices) / len(P.vertices)
    cy = sum(v[1] for v in P.vertices) / len(P.vertices)
    ring = sorted(P.vertices, key=lambda v: math.atan2(v[1] - cy, v[0] - cx))
    twice = sum(p[0] * q[1] - p[1] * q[0] for p, q in zip(ring, ring[1:] + ring[:1]))
    return abs(twice) / 2


def assert_upper_face(points, cell):
    """The cell's points lie on one affine function that weakly dominates every point."""
    sample = [points[i] for i in sorted(cell)]
    d = len(points[0]) - 1
    # fit height = w.x + t through the cell exactly
    sol = exact.solve([list(p[:-1]) + [1] for p in sample], [p[-1] for p in sample])
    assert sol is not None
    w, t = sol[:d], sol[d]
    for k, p in enumerate(points):
        lift = dot(w, p[:-1]) + t
        assert p[-1] <= lift
        assert (p[-1] == lift) == (k in cell) or not all_points_determine(sample, d)


def all_points_determine(sample, d):
    return exact.rank([list(p[:-1]) + [1] for p in sample]) == d + 1


def test_lifted_parabola_all_upper_vertices():
    pts = [(x, y, -(x * x + y * y)) for x in range(-2, 3) for y in range(-1, 2)]
    H = upper_hull(pts)
    assert H.vertices == tuple(range(len(pts)))
    # x^2 + y^2 is affine on every unit square, so the cells are the 8 unit squares
    assert len(H.cells) == 8 and all(len(c) == 4 for c in H.cells)
    assert sum(cell_area([pts[i] for i in c]) for c in H.cells) == 4 * 2
    for cell in H.cells:
        assert_upper_face(pts, cell)


def test_upper_hull_degenerate_cases():
    # all points on one face: one cell with every point; vertices = corners of the square
    flat = [(x, y, 1) for x in range(3) for y in range(3)]
    H = upper_hull(flat)
    assert H.cells == (frozenset(range(9)),)
    assert H.vertices == (0, 2, 6, 8)
    # duplicates: the first index wins; equal exponents with a lower height are hidden
    dup = [(0, 0), (1, 5), (0, 0), (1, 2), (2, 0)]
    H = upper_hull(dup)
    assert H.vertices == (0, 1, 4)
    assert set(H.cells) == {frozenset({0, 1, 2}), frozenset({1, 4})}
    # projections on a line in the plane: cells are maximal within that line
    line = [(t, 2 * t, -t * t) for t in range(4)]
    H = upper_hull(line)
    assert H.vertices == (0, 1, 2, 3) and len(H.cells) == 3
    assert upper_hull([(5, 7)]) == upper_hull([[5, 7]]) and upper_hull([(5, 7)]).cells == (frozenset({0}),)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3).flatmap(
    lambda d: st.lists(st.tuples(*[st.integers(0, 3)] * d, st.integers(-4, 4)), min_size=1, max_size=9)))
def test_upper_vertices_match_one_lp_per_term(points):
    distinct = list(dict.fromkeys(points))
    H = upper_hull(points)
    expected = {distinct[j] for j in range(len(distinct)) if tropical_wins(distinct, j)}
    assert {points[i] for i in H.vertices} == expected
    assert upper_vertex_count(points) == len(expected)
    assert H == upper_hull(points, method="exact")
    for cell in H.cells:
        assert_upper_face(points, cell)


# ------------------------------------------------------- fast paths vs exact fallbacks
def hull_of_all_sums(*point_sets_):
    sums = [()]
    for pts in point_sets_:
        sums = [tuple(F(a) + F(b) for a, b in zip(s, p)) if s else tuple(F(b) for b in p) for s in sums for p in pts]
    return convex_hull(sums, method="exact")


def certified_sums_everywhere():
    """Force the certified Minkowski path (and its float pre-filter) even on tiny inputs."""
    return config.override(minkowski_small_sum=0, minkowski_prefilter_pairs=0)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4).flatmap(lambda d: st.tuples(point_sets(d, 7, 2), point_sets(d, 7, 2), point_sets(d, 4, 1))))
def test_certified_minkowski_equals_exact_hull_of_all_sums(sets):
    # tiny grids: coplanar facets, sums that coincide, lower-dimensional summands
    P, Q, R = (convex_hull(s) for s in sets)
    with certified_sums_everywhere(), exact.counting() as c:
        S = minkowski_sum(P, Q, R)
    assert same_polytope(S, hull_of_all_sums(*sets))
    assert same_polytope(S, minkowski_sum(P, Q, R))  # the plain route for small inputs
    assert c.fallbacks == 0 or S.dim < S.ambient_dim


def test_minkowski_prefilter_miss_is_caught():
    # a float pre-filter that drops vertex pairs must not change the (certified) answer
    from tropattn.exact._predicates import PreparedPoints
    from tropattn.exact._sum_hull import certified_sum_hull
    from tropattn.geometry._polytope import _polytope_from_hull

    A = convex_hull(rational_sphere_points()[::8])
    B = convex_hull(rational_sphere_points(5, 13, F(1, 3), (F(1, 2), 0, 0))[1::8])
    expected = minkowski_sum(A, B)
    with config.override(minkowski_prefilter_pairs=0), exact.counting() as c:  # the dishonest pre-filter, given
        H = certified_sum_hull(PreparedPoints.of(A._vertex_rows), PreparedPoints.of(B._vertex_rows),
                               A._facet_rows, B._facet_rows, cone_pairs=lambda *args: np.arange(10))
        assert same_polytope(_polytope_from_hull(H), expected)
    assert c.certified == 1 and c.fallbacks == 0  # retried on all pairs
    sums = [tuple(a + b for a, b in zip(v, w)) for v in A.vertices for w in B.vertices]
    assert same_polytope(expected, convex_hull(sums, method="exact"))


@pytest.mark.slow
def test_lazy_polytope_equals_eager_one_and_hashes_the_same():
    import pickle

    A = convex_hull(rational_sphere_points()[::8])
    B = convex_hull(rational_sphere_points(5, 13, F(1, 3), (F(1, 2), 0, 0))[1::8])
    S = minkowski_sum(A, B)
    assert "vertices" not in S.__dict__ and "facets" not in S.__dict__  # built lazily
    # the eager object: Fraction fields from an independent route (exact hull of all sums)
    sums = [tuple(a + b for a, b in zip(v, w)) for v in A.vertices for w in B.vertices]
    E = convex_hull(sums, method="exact")
    eager = Polytope(vertices=tuple(sorted(set(E.vertices))), equations=E.equations, facets=E.facets,
                     ambient_dim=3, dim=3)
    assert "_vertex_rows" not in eager.__dict__
    assert (S.vertex_count, S.facet_count) == (eager.vertex_count, eager.facet_count)
    assert S == eager and eager == S and hash(S) == hash(eager) and len({S, eager}) == 1
    assert repr(S) == repr(eager)
    T = pickle.loads(pickle.dumps(S))  # before and after the Fractions are built
    assert T == eager and hash(T) == hash(eager)
    assert same_polytope(S, eager) and same_polytope(T, eager)
    assert all(isinstance(x, F) for v in S.vertices for x in v)
    assert all(isinstance(c, F) and all(type(a) is int for a in h) for h, c in S.facets)
    assert S.vertices is S.vertices  # built once
    assert pickle.loads(pickle.dumps(S)) == S
    # chained sums read the integer rows only: the summands' Fractions are never built
    R = convex_hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    C = minkowski_sum(S, minkowski_sum(A, R), R)
    assert "vertices" not in C.__dict__ and C == convex_hull(
        [tuple(a + b + b2 + c for a, b, b2, c in zip(s, t, u, r)) for s in S.vertices
         for t in A.vertices for u in R.vertices for r in R.vertices], method="exact")
    assert S != convex_hull([[0, 0]]) and S != A


def test_minkowski_of_lower_dimensional_summands_in_r3():
    # two unit squares in perpendicular planes: a full-dimensional sum (the box [0,1] x [0,2] x [0,1])
    P = convex_hull([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]])
    Q = convex_hull([[0, 0, 0], [0, 0, 1], [0, 1, 0], [0, 1, 1]])
    with certified_sums_everywhere(), exact.counting() as c:
        S = minkowski_sum(P, Q)
    assert (S.dim, S.vertex_count, S.facet_count) == (3, 8, 6) and c.certified == 1
    assert same_polytope(S, hull_of_all_sums(P.vertices, Q.vertices))


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4).flatmap(
    lambda d: st.lists(st.tuples(*[st.integers(0, 2)] * d, st.integers(-3, 3)), min_size=1, max_size=12)))
def test_upper_hull_apex_construction_equals_exact(points):
    # many coplanar lifted points; the certified (apex) path must agree with double description
    with exact.counting() as c:
        H = upper_hull(points)
    assert H == upper_hull(points, method="exact")
    assert c.certified + c.fallbacks <= 1
    for cell in H.cells:
        assert_upper_face(points, cell)


def test_upper_hull_with_rational_heights_and_far_apart_heights():
    pts = [(0, 0, F(-10**12)), (1, 0, F(1, 3)), (0, 1, F(2, 7)), (1, 1, F(10**9)), (F(1, 2), F(1, 2), F(5, 11))]
    H = upper_hull(pts)
    assert H == upper_hull(pts, method="exact")
    assert H.vertices == tuple(j for j in range(len(pts)) if tropical_wins(pts, j))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5).flatmap(lambda m: st.tuples(
    st.lists(st.lists(st.integers(-2**200, 2**200), min_size=m, max_size=m), min_size=1, max_size=4),
    st.lists(st.lists(st.integers(-2**20, 2**20), min_size=m, max_size=m), min_size=1, max_size=4),
    st.integers(0, 2**100))))
def test_limb_signs_are_exact(data):
    from tropattn.exact._predicates import PreparedPoints as _Prepared
    from tropattn.exact._predicates import _limb_signs
    from tropattn.exact._predicates import matrix_signs as _signs

    H, C, k = data
    if len(H[0]) >= 2 and C[0][0] and C[0][1]:
        H.append([k * C[0][1], -k * C[0][0]] + [0] * (len(H[0]) - 2))  # an exact zero
    want = [[(s > 0) - (s < 0) for s in (dot(h, c) for c in C)] for h in H]
    Cf = np.array(C, dtype=float)
    widest = 53 - (max(1, max(abs(v) for c in C for v in c)) * len(C[0])).bit_length()
    for bits in {widest, 20}:  # the widest exact digits, and narrow ones (more carries)
        assert _limb_signs(np.array(H, dtype=object), Cf, bits).tolist() == want
    for shift in (0, 20, 40):  # every branch of the dispatcher: float, int64, digits
        small = [[v >> (200 - shift) for v in h] for h in H]
        want_small = [[(s > 0) - (s < 0) for s in (dot(h, c) for c in C)] for h in small]
        assert _signs(np.array(small, dtype=object), _Prepared.of([tuple(c) for c in C])).tolist() == want_small
    assert _signs(np.array(H, dtype=object), _Prepared.of([tuple(c) for c in C])).tolist() == want


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 5).flatmap(lambda k: st.lists(
    st.lists(st.integers(-50, 50), min_size=k + 1, max_size=k + 1), min_size=k, max_size=k)))
def test_simplex_minors_give_the_exact_normal(rows):
    from tropattn.exact._linalg import maximal_minors as _maximal_minors

    k = len(rows)
    minors = _maximal_minors(np.array([rows], dtype=np.int64))[0].tolist()
    h = [(-1) ** j * minors[k - j] for j in range(k + 1)]  # column i omits column k - i
    assert all(dot(h, r) == 0 for r in rows)
    assert any(h) == (exact.rank(rows) == k)


# ------------------------------------------------------ the complete surface certificate
def certify(points, simplices):
    """Feed a claimed boundary triangulation of integer points straight to the certificate."""
    from tropattn.exact._hull._boundary import _certify_triangulation
    from tropattn.exact._hull import independent_rows as _independent_rows
    from tropattn.exact._hull import row_sum as _row_sum
    from tropattn.exact._predicates import PreparedPoints as _Prepared

    rows = [tuple(p) + (1,) for p in points]
    inner = _row_sum([rows[i] for i in _independent_rows(rows)[0]])
    return _certify_triangulation(_Prepared.of(rows), np.array(simplices), inner)


def surface_checks(points, simplices):
    """The parts of the certificate separately: (points on one side of every simplex,
    every ridge in two simplices, consistently oriented, the ray meets one simplex)."""
    from tropattn.exact._hull._normals import _outward
    from tropattn.exact._hull._surface import _consistently_oriented, _ray_meets_once, _ridge_pairs
    from tropattn.exact._hull import independent_rows as _independent_rows
    from tropattn.exact._hull import row_sum as _row_sum
    from tropattn.exact._predicates import PreparedPoints as _Prepared

    rows = [tuple(p) + (1,) for p in points]
    inner = _row_sum([rows[i] for i in _independent_rows(rows)[0]])
    pts, S = _Prepared.of(rows), np.array(simplices)
    normals = []
    for s in simplices:
        (vec,) = exact.nullspace([list(rows[i]) for i in s])
        h = exact.integer_row(vec)
        if dot(h, inner) > 0:
            h = tuple(-v for v in h)
        normals.append(h)
    one_side = all(dot(h, r) <= 0 for h in normals for r in rows)
    U = np.array(sorted(set(normals)), dtype=np.int64)
    facet_of = np.array([sorted(set(normals)).index(h) for h in normals])
    Z = np.array([[dot(h, r) == 0 for r in rows] for h in U.tolist()])
    sigma = _outward(pts, S, U, facet_of)
    return (one_side, _ridge_pairs(S, len(rows)) is not None, _consistently_oriented(S, sigma, len(rows)),
            _ray_meets_once(pts, S, facet_of, np.flatnonzero(sigma == 0), Z[:, []], inner))


def test_certificate_accepts_a_true_triangulation():
    # square pyramid: the base split along a diagonal, four triangular sides
    pts = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1)]
    tris = [(0, 1, 2), (0, 2, 3), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)]
    facets, Z = certify(pts, tris)
    assert len(facets) == 5 and Z.sum(axis=1).tolist().count(4) == 1
    assert surface_checks(pts, tris) == (True, True, True, True)


def test_certificate_rejects_a_doubly_triangulated_square():
    # the base of a pyramid triangulated twice (ABC, ACD and ABD, BCD): every ridge lies in
    # exactly two triangles and every point on one side, yet only the base is covered
    pts = [(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1)]
    tris = [(0, 1, 2), (0, 2, 3), (0, 1, 3), (1, 2, 3)]
    assert certify(pts, tris) == (None, None)
    one_side, closed, oriented, ray = surface_checks(pts, tris)
    assert one_side and closed  # the old certificate passed
    assert not oriented and not ray  # the two copies face the same way; the ray meets both


def test_certificate_rejects_a_doubled_tetrahedron():
    # the boundary of a tetrahedron twice: once as its 4 faces, once with every face split
    # into 4 at the edge midpoints (no edge shared), so each ridge lies in two triangles
    # and the surface is consistently oriented outward, but it wraps around twice
    A, B, C, D = range(4)
    pts = [(0, 0, 0), (2, 0, 0), (0, 2, 0), (0, 0, 2)]
    mid = {}
    for i, j in [(A, B), (A, C), (A, D), (B, C), (B, D), (C, D)]:
        mid[i, j] = mid[j, i] = len(pts)
        pts.append(tuple((x + y) // 2 for x, y in zip(pts[i], pts[j])))
    faces = [(A, B, C), (A, B, D), (A, C, D), (B, C, D)]
    tris = list(faces)
    for a, b, c in faces:
        ab, bc, ca = mid[a, b], mid[b, c], mid[c, a]
        tris += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    assert certify(pts, tris) == (None, None)
    assert surface_checks(pts, tris) == (True, True, True, False)  # only the ray test bites
    assert len(certify(pts, tris[4:])[0]) == 4  # one copy alone is a true triangulation


@pytest.mark.parametrize("dim, n, seed", [(3, 40, 0), (3, 200, 1), (4, 60, 2), (5, 40, 3)])
def test_random_inputs_certify_without_fallback(dim, n, seed):
    rng = np.random.default_rng(seed)
    ints = rng.integers(-10**6, 10**6, size=(n, dim)).tolist()
    rats = [[F(int(a), int(b)) for a, b in zip(p, q)]
            for p, q in zip(rng.integers(-999, 999, size=(n, dim)), rng.integers(1, 999, size=(n, dim)))]
    for pts in (ints, rats):
        with exact.counting() as c:
            P = convex_hull(pts)
        assert c.fallbacks == 0 and c.certified == 1
        assert same_polytope(P, convex_hull(pts, method="exact"))


def test_random_minkowski_sums_and_upper_hulls_certify_without_fallback():
    rng = np.random.default_rng(7)
    P = convex_hull(rng.integers(-50, 50, size=(30, 3)).tolist())
    Q = convex_hull([[F(int(x), 7) for x in p] for p in rng.integers(-50, 50, size=(30, 3))])
    lifted = rng.integers(-20, 20, size=(40, 4)).tolist()
    with exact.counting() as c:
        S = minkowski_sum(P, Q)
        H = upper_hull(lifted)
    assert c.fallbacks == 0 and c.certified == 2
    assert same_polytope(S, hull_of_all_sums(P.vertices, Q.vertices))
    assert H == upper_hull(lifted, method="exact")
    # vertices rebuilt from integer rows are Fractions in lowest terms (public constructor)
    assert all(math.gcd(x.numerator, x.denominator) == 1 for v in S.vertices for x in v)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 4).flatmap(lambda k: st.tuples(
    st.lists(st.lists(st.integers(-2**70, 2**70), min_size=k, max_size=k), min_size=k - 1, max_size=k - 1),
    st.lists(st.integers(-3, 3), min_size=k - 1, max_size=k - 1))))
def test_determinant_signs_float_filter_is_exact(data):
    from tropattn.exact._predicates import determinant_signs as _determinant_signs

    rows, coef = data
    last = [sum(c * r[j] for c, r in zip(coef, rows)) for j in range(len(rows[0]))]  # singular
    for M in (rows + [last], rows + [[v + 1 for v in last]]):
        want = exact.rank(M) == len(M) and (1 if _det(M) > 0 else -1)
        got = int(_determinant_signs(np.array([M], dtype=object), False)[0])
        assert got == (want or 0)


def _det(M):
    """Exact determinant by permutations (tiny matrices)."""
    import itertools

    n, total = len(M), 0
    for perm in itertools.permutations(range(n)):
        inv = sum(perm[i] > perm[j] for i in range(n) for j in range(i + 1, n))
        total += (-1) ** inv * math.prod(M[i][perm[i]] for i in range(n))
    return total


def test_certificate_orients_degenerate_simplices():
    # the pyramid with M, the midpoint of AB, and a flat triangle AMB folded into the edge AB
    A, B, C, D, E, M = range(6)
    pts = [(0, 0, 0), (2, 0, 0), (2, 2, 0), (0, 2, 0), (0, 0, 2), (1, 0, 0)]
    tris = [(A, M, C), (M, B, C), (A, C, D), (A, M, B), (A, B, E), (B, C, E), (C, D, E), (D, A, E)]
    facets, _ = certify(pts, tris)
    assert len(facets) == 5  # AMB has no orientation of its own: it is propagated from AMC, MBC, ABE


def test_point_in_hull_of_dependent_rows():
    from tropattn.exact._hull._surface import _in_hull

    seg = [(0, 0, 1), (1, 1, 1), (2, 2, 1)]  # collinear points (0,0), (1,1), (2,2)
    assert _in_hull(seg, (3, 3, 2))  # (3/2, 3/2)
    assert not _in_hull(seg, (3, 3, 1))  # (3, 3): on the line, outside the segment
    assert not _in_hull(seg, (1, 0, 1))  # off the line


def test_from_inequalities_with_scaled_rows_finds_the_flat_polytope():
    # x <= 1/3 and -2x <= -2/3 force x = 1/3: a segment, not an empty set (Farkas units matter here)
    P = Polytope.from_inequalities([[1, 0], [-2, 0], [0, 1], [0, -1]], ["1/3", "-2/3", 1, 1])
    assert P.dim == 1 and P.vertices == ((F(1, 3), F(-1)), (F(1, 3), F(1)))


# ------------------------------------------- numbers beyond the float range or at its edge
SCALES = [F(10) ** e for e in (-400, -330, -308, -300, 0, 300, 308, 309, 400)] + [F(2.2250738585072014e-308)]


def scaled(points, factors):
    return [[F(x) * s for x, s in zip(p, factors)] for p in points]


@settings(max_examples=60, deadline=None)
@given(points=st.integers(1, 3).flatmap(lambda d: point_sets(d, max_points=8)),
       picks=st.lists(st.sampled_from(SCALES), min_size=3, max_size=3))
def test_hulls_at_every_scale_match_exact_and_the_unscaled_hull(points, picks):
    # a positive scaling of each axis maps the hull onto the hull: an independent oracle
    factors = picks[:len(points[0])]
    P = convex_hull(scaled(points, factors))
    assert same_polytope(P, convex_hull(scaled(points, factors), method="exact"))
    Q = convex_hull(points)
    assert P.vertices == tuple(sorted(tuple(F(x) * s for x, s in zip(v, factors)) for v in Q.vertices))
    assert P.facet_count == Q.facet_count and P.dim == Q.dim


@settings(max_examples=30, deadline=None)
@given(pq=st.tuples(point_sets(2, max_points=6), point_sets(2, max_points=6)), s=st.sampled_from(SCALES))
def test_minkowski_sums_at_every_scale(pq, s):
    A, B = (scaled(p, (s, s)) for p in pq)
    M = minkowski_sum(convex_hull(A), convex_hull(B))
    assert same_polytope(M, convex_hull([[a + b for a, b in zip(p, q)] for p in A for q in B], method="exact"))


def test_numbers_beyond_the_float_range_and_at_its_edge():
    P = convex_hull([[0], [1], ["1e309"]])
    assert P.vertices == ((F(0),), (F(10) ** 309,))
    tiny = 2.2250738585072014e-308  # the smallest normal double, as a key entry
    Q = convex_hull([[0, 1], [1, tiny], [1, 1], [0, 0]])
    assert Q.vertex_count == 4 and Q.contains([F(1, 2), F(1, 2)])
    huge = convex_hull([[0, 0, 0], ["1e400", 0, 0], [0, "1e400", 0], [0, 0, "1e-400"], ["1e399", "1e399", "1e-401"]])
    assert huge.vertex_count == 4 and huge.facet_count == 4
    seg = convex_hull([[0, 0, 0], ["1e-400", "2e-400", "3e-400"]])
    sums = [[a + b for a, b in zip(p, q)] for p in huge.vertices for q in seg.vertices]
    assert same_polytope(minkowski_sum(huge, seg), convex_hull(sums, method="exact"))


# ---------------------------------------------- the local certificate and sparse incidences
@pytest.fixture
def local_certificate():
    with config.override(hull_local_entries=0):
        yield


@pytest.mark.parametrize("dim, n, seed", [(3, 60, 0), (4, 50, 1), (5, 40, 2)])
def test_local_certificate_equals_exact(local_certificate, dim, n, seed):
    rng = np.random.default_rng(seed)
    pts = rng.integers(-10**6, 10**6, size=(n, dim)).tolist()
    rats = [[F(int(a), int(b)) for a, b in zip(p, q)]
            for p, q in zip(rng.integers(-99, 99, size=(n, dim)), rng.integers(1, 99, size=(n, dim)))]
    for points in (pts, rats, pts[:10] + [[0] * dim]):
        with exact.counting() as c:
            P = convex_hull(points)
        assert c.certified == 1 and c.fallbacks == 0
        assert same_polytope(P, convex_hull(points, method="exact"))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(points=st.integers(2, 4).flatmap(lambda d: point_sets(d, max_points=10, coord=2)))
def test_local_certificate_on_coplanar_grids(local_certificate, points):  # the patch holds for every input
    assert same_polytope(convex_hull(points), convex_hull(points, method="exact"))


def test_local_certificate_rejects_doubled_and_folded_surfaces(local_certificate):
    test_certificate_accepts_a_true_triangulation()
    test_certificate_rejects_a_doubly_triangulated_square()
    test_certificate_rejects_a_doubled_tetrahedron()


def test_local_certificate_rejects_a_missing_point_outside():
    # a true boundary of 4 points, but a fifth point lies outside: step 4 must refuse
    from tropattn.exact._hull import certify_boundary, row_sum
    from tropattn.exact._predicates import PreparedPoints

    rows = [(0, 0, 0, 1), (4, 0, 0, 1), (0, 4, 0, 1), (0, 0, 4, 1), (3, 3, 3, 1), (1, 1, 1, 1)]
    tris = np.array([(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)])
    inner = row_sum(rows[:4])
    assert certify_boundary(PreparedPoints.of(rows), tris, inner) == (None, None, None)
    facets, Z, vertex = certify_boundary(PreparedPoints.of(rows[:4] + rows[5:]), tris, inner)
    assert len(facets) == 4 and vertex.tolist() == [True] * 4 + [False]


def test_sparse_incidences_equal_dense():
    from tropattn.exact import _hull as hull

    rng = np.random.default_rng(3)
    pts = [tuple(p) + (1,) for p in rng.integers(-5, 5, size=(60, 3)).tolist()]
    pts = list(dict.fromkeys(pts))
    dense = hull.certified_hull(pts)
    for local in (1 << 40, 0):
        with config.override(hull_dense_entries=0, hull_local_entries=local):
            sparse = hull.certified_hull(pts)
        assert not isinstance(sparse.incidence, np.ndarray)
        assert sorted(zip(sparse.facets, sparse.masks)) == sorted(zip(dense.facets, dense.masks))
        assert sorted(zip(sparse.facets, sparse.facet_points)) == sorted(zip(dense.facets, dense.facet_points))
        assert all(sum(1 << i for i in pts) == m for pts, m in zip(dense.facet_points, dense.masks))
        assert sparse.vertices == dense.vertices


def test_sphere_points_certify_locally(local_certificate):
    pts = rational_sphere_points()
    with exact.counting() as c:
        P = convex_hull(pts)
    assert P.vertex_count == 200 and c.fallbacks == 0
    assert same_polytope(P, convex_hull(pts, method="exact"))


def test_integer_fast_path_equals_the_general_path():
    rng = np.random.default_rng(11)
    A = rng.integers(-30, 30, size=(80, 3))
    A[5] = A[7]  # a duplicate
    general = convex_hull([[F(int(x)) for x in p] for p in A])
    assert same_polytope(convex_hull(A), general) and same_polytope(convex_hull(A.tolist()), general)
    with pytest.raises(InvalidInputError, match="boolean"):
        convex_hull([[1, True], [0, 0]])


def test_integer_rows_are_proved_distinct_or_checked_exactly():
    from tropattn.geometry._polytope import _may_repeat

    A = np.random.default_rng(1).integers(-10**6, 10**6, size=(500, 4))
    assert not _may_repeat(A)
    assert _may_repeat(np.vstack([A, A[7:8]]))
    w = np.array([0x9E3779B97F4A7C15 - (1 << 64), 0x632BE59BD9B4E019], dtype=np.int64)
    B = np.array([[0, 0], [int(w[1]), -int(w[0])]], dtype=np.int64)  # distinct rows, equal hashes
    with np.errstate(over="ignore"):
        assert (B @ w)[0] == (B @ w)[1]
    assert not _may_repeat(B)  # the hash collision is resolved exactly
    P = convex_hull(np.vstack([A[:60], A[:60]]).tolist())
    assert P == convex_hull(A[:60].tolist())
