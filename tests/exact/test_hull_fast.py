"""The fast exact kernels of certified hulls against the general exact methods.

Minors from float and wrapped int64 images against Python-integer minors; certified
hulls large enough for the local certificate against exact double description, on
random and degenerate inputs (cospherical, coplanar, duplicated, flat, huge/tiny).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn import config, exact
from tropattn.exact import _hull as hull_module
from tropattn.exact._hull import _flips, _normals, _qhull, certified_hull, simplex_normals
from tropattn.exact._linalg import maximal_minors, wrapped_minors
from tropattn.exact._predicates import PreparedPoints, negative_columns, scaled_floats
from tropattn.geometry import convex_hull


# ------------------------------------------------------------------ minors
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(1, 52), st.integers(0, 2**32 - 1), st.booleans())
def test_wrapped_minors_equal_python_integer_minors(k, bits, seed, degenerate):
    rng = np.random.default_rng(seed)
    top = 1 << bits
    S = rng.integers(-top + 1, top, size=(30, k, k + 1), dtype=np.int64)
    S[:3] = top - 1  # the largest entries: all minors zero, products near the bound
    S[3:5] = -(top - 1)
    if degenerate and k > 1:
        S[5:15, 1] = S[5:15, 0]  # repeated rows: every minor is an exact zero
        S[15:20, -1] = 2 * S[15:20, 0] - S[15:20, 1] if k > 2 else S[15:20, 0]
    got = wrapped_minors(S, 1000)
    ref = maximal_minors(S.astype(object))
    assert got.shape == ref.shape
    assert all(int(a) == int(b) for a, b in zip(got.ravel(), ref.ravel()))


@pytest.mark.parametrize("seed", range(4))
def test_wrapped_minors_near_the_int64_limit(seed):
    # 2 x 2 and 3 x 3 minors of entries near 2^31 and 2^20.7: values around 2^62, the int64 limit
    rng = np.random.default_rng(seed)
    for k, top in ((2, 2**31), (3, 1 << 20), (3, 1700000)):
        S = rng.integers(-top, top, size=(400, k, k + 1), dtype=np.int64)
        S[:20] = top - 1
        S[20:40, 0], S[20:40, 1:] = top - 1, -(top - 1)
        got = wrapped_minors(S, 200)
        ref = maximal_minors(S.astype(object))
        assert all(int(a) == int(b) for a, b in zip(got.ravel(), ref.ravel()))
        assert got.dtype == object or int(np.abs(got).max()) < 2**62


@pytest.mark.parametrize("d, mag", [(3, 10**6), (4, 10**6), (5, 10**6), (6, 10**5), (4, 2**45)])
def test_simplex_normals_fast_path_is_exact(d, mag):
    rng = np.random.default_rng(d)
    X = rng.integers(-mag, mag, size=(40, d))
    G = np.hstack([X, np.ones((40, 1), dtype=np.int64)])
    simplices = np.array([rng.choice(40, d, replace=False) for _ in range(200)])
    simplices[:5, 1] = simplices[:5, 0]  # degenerate simplices: zero rows
    raw = simplex_normals(PreparedPoints.of(G), simplices)
    Go = G.astype(object)
    for s, h in zip(simplices, raw):
        assert all(sum(int(a) * int(b) for a, b in zip(h, Go[i])) == 0 for i in s)
    ref = simplex_normals(PreparedPoints.of([tuple(int(v) for v in r) for r in Go.tolist()] + [(2**70,) * (d + 1)]),
                          simplices)  # a huge extra point forces the Python-integer path
    assert all(int(a) == int(b) for a, b in zip(np.asarray(raw).ravel(), np.asarray(ref).ravel()))


# --------------------------------------------------- certified hull == exact hull
@pytest.fixture(autouse=True, params=["local", "cones", "auto"])
def certificate(request):
    """Each hull test runs three times: with the local certificate forced (with and without
    its float filter for interior points, "cones": every point by the cone test), and as chosen."""
    knobs = {}
    if request.param in ("local", "cones"):
        knobs["hull_local_entries"] = 0
    if request.param == "cones":
        knobs["hull_inside_filter_entries"] = -1
    with config.override(**knobs):
        yield request.param


def _same(G, **private):
    """The certified hull of ``G`` (``private``: arguments of the private driver, e.g. a
    proposer or a report) against double description."""
    with exact.counting() as c:
        fast = hull_module._certified_hull(G, **private) if private else certified_hull(G)
    slow = certified_hull(G, method="exact")
    assert fast.dim == slow.dim and fast.equations == slow.equations
    assert sorted(fast.facets) == sorted(slow.facets)
    assert fast.vertices == slow.vertices
    assert sorted(map(tuple, fast.facet_points)) == sorted(map(tuple, slow.facet_points))
    return fast, c


def _rows(X, den=1):
    return [tuple(int(v) for v in x) + (den,) for x in X]


@pytest.mark.parametrize("d, n, mag", [(3, 160, 10**6), (4, 110, 10**6), (5, 70, 10**5), (4, 90, 2**44)])
@pytest.mark.slow
def test_local_certificate_equals_double_description_random(d, n, mag):
    X = np.random.default_rng(n).integers(-mag, mag, size=(n, d))
    H, c = _same(_rows(X))
    assert c.certified == 1 and c.fallbacks == 0


def test_local_certificate_on_cospherical_points_in_r4():
    import math

    r2 = 30
    pts = set()
    for a in range(-5, 6):
        for b in range(-5, 6):
            for c in range(-5, 6):
                rest = r2 - a * a - b * b - c * c
                if rest >= 0 and math.isqrt(rest) ** 2 == rest:
                    pts |= {(a, b, c, math.isqrt(rest)), (a, b, c, -math.isqrt(rest))}
    pts = sorted(pts)[::6]  # 96 lattice points on one sphere
    H, c = _same(_rows(pts))
    assert len(H.vertices) == len(pts)  # every point is a vertex


def test_local_certificate_on_cube_grid_with_interior_and_duplicates():
    grid = [(x, y, z, w) for x in range(4) for y in range(4) for z in range(4) for w in range(3)]
    P = convex_hull(grid + grid[:10])  # duplicates, coplanar boundary points, interior points
    assert (P.vertex_count, P.facet_count) == (16, 8)
    _same(_rows(grid))


def test_local_certificate_on_coplanar_subsets_and_scaled_points():
    rng = np.random.default_rng(5)
    X = rng.integers(-1000, 1000, size=(120, 4))
    X[:40, 3] = 1000  # forty points on one facet hyperplane
    X[40:60, 0] = -1000
    _same(_rows(X))
    _same(_rows(X * 3, den=7))  # rational points x / 7


def test_flat_large_input_in_r5():
    rng = np.random.default_rng(9)
    Y = rng.integers(-10**5, 10**5, size=(150, 4))
    X = np.hstack([Y, (Y @ np.array([[1], [2], [-3], [1]])) + 5])  # a hyperplane of R^5
    _same(_rows(X))


def test_huge_and_tiny_coordinates():
    rng = np.random.default_rng(3)
    X = rng.integers(-10**6, 10**6, size=(100, 4))
    _same([tuple(int(v) * 10**30 for v in x) + (1,) for x in X])
    _same([tuple(int(v) for v in x) + (10**40,) for x in X])
    assert convex_hull([[F(int(v), 10**40) for v in x] for x in X]).vertex_count == \
        convex_hull(X.tolist()).vertex_count


def test_facet_rows_with_equal_floats_are_split_exactly():
    big = 2**70  # big + 1 and big round to the same float: the float keys collide
    raw = np.array([[big + 1, 1, -1], [big, 1, -1], [-big - 1, -1, 1], [3 * big, 3, -3], [2 * big, 2, -2]],
                   dtype=object)
    rows, live, inverse, floats = _normals._outward_rows(raw, (0, 0, 1))
    assert live.all() and len(rows) == 2
    got = [tuple(int(v) for v in rows[i]) for i in inverse]
    assert got == [(big + 1, 1, -1), (big, 1, -1), (big + 1, 1, -1), (big, 1, -1), (big, 1, -1)]
    assert np.array_equal(floats, scaled_floats(rows))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.sampled_from([10, 2**26, 2**40, 2**70, 2**300]), st.integers(0, 2**32 - 1))
def test_dense_signs_equal_exact_signs(m, mag, seed):
    from tropattn.exact._predicates import dense_signs, scaled_floats

    rng = np.random.default_rng(seed)
    R = np.array([[int(v) * (mag // 16 + 1) + int(w) for v, w in zip(r, q)]
                  for r, q in zip(rng.integers(-16, 16, size=(25, m)), rng.integers(-3, 3, size=(25, m)))], dtype=object)
    C = rng.integers(-50, 50, size=(30, m)).astype(object)
    C[:5] = 0
    C[5:10] = C[10:15] * 3  # repeated directions
    R[:5] = R[5:10] * 2
    R[10, :] = 0
    if m > 1:  # rows orthogonal to some columns: exact zeros the floats cannot see
        R[11] = 0
        R[11, 0], R[11, 1] = C[12, 1], -C[12, 0]
    for A in (R, R.astype(np.int64) if mag < 2**40 else R):
        got = dense_signs(A, C if A.dtype == object else C.astype(np.int64), scaled_floats(A),
                          scaled_floats(C.astype(np.int64)))
        ref = np.sign(np.array([[sum(int(a) * int(b) for a, b in zip(r, c)) for c in C] for r in R]))
        assert np.array_equal(got, ref)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 6), st.sampled_from([0, 20, 40, 61, 200]), st.integers(0, 2**32 - 1))
def test_dense_signs_row_bound_with_columns_of_mixed_scale(m, spread, seed):
    # columns of very different sizes make the one-bound-per-row filter loose, and rows
    # orthogonal to a column up to +-1 give values the floats cannot decide: the
    # per-entry filter and the exact tiers must get every sign right
    from tropattn.exact._predicates import dense_signs

    rng = np.random.default_rng(seed)
    C = [[int(v) << int(s) for v in row] for row, s in
         zip(rng.integers(-9, 9, size=(40, m)), rng.integers(0, spread + 1, size=40))]
    C[0] = [0] * m
    C[1] = C[2]  # duplicate column
    R = []
    for t in range(30):
        c = C[int(rng.integers(2, 40))]
        r = [int(v) for v in rng.integers(-5, 5, size=m)]
        if t % 2 and any(c[1:]):  # r . c = tweak in {-1, 0, 1}
            j = next(j for j in range(1, m) if c[j])
            r[0] = c[j]
            r[j] = -c[0]
        R.append(r)
    Cm = np.array(C, dtype=object)
    Rm = np.array(R, dtype=object)
    Rm[1::4, 0] += 1  # perturb some orthogonal rows by one unit of column 0
    for A, B in ((Rm, Cm), (as_ints(Rm), as_ints(Cm))):
        got = dense_signs(A, B, scaled_floats(A), scaled_floats(B))
        ref = np.sign(np.array([[sum(int(a) * int(b) for a, b in zip(r, c)) for c in Cm] for r in Rm]))
        assert np.array_equal(got, ref)
        zi, zk = np.nonzero(ref == 0)  # half the true zeros declared known: the same signs
        assert np.array_equal(dense_signs(A, B, scaled_floats(A), scaled_floats(B), (zi[::2], zk[::2])), ref)


@pytest.mark.parametrize("cache, block", [(8, 64), (40, 10**6), (3, 1)])
def test_dense_signs_in_many_blocks(cache, block):
    # tiny blocks: rows split over many cache blocks and chunks of undecided entries
    with config.override(predicate_cache_entries=cache, predicate_block_entries=block):
        _dense_signs_in_blocks()


def _dense_signs_in_blocks():
    from tropattn.exact import _predicates as predicates

    rng = np.random.default_rng(7)
    C = rng.integers(-6, 6, size=(9, 3)).astype(object) * (2**70 + 1)
    R = rng.integers(-6, 6, size=(23, 3)).astype(object)
    for t in range(0, len(R), 3):  # orthogonal to columns 0 and 1 + t % 8: exact zeros
        R[t] = [int(v) for v in np.cross(C[1 + t % 8], C[0])]
    R[1::5, 2] += 1
    got = predicates.dense_signs(R, C, scaled_floats(R), scaled_floats(C))
    ref = np.sign(np.array([[sum(int(a) * int(b) for a, b in zip(r, c)) for c in C] for r in R]))
    assert np.array_equal(got, ref) and (ref == 0).sum() >= 8
    rows = np.array([t for t in range(0, len(R), 3) if t % 5 != 1])  # the rows left orthogonal
    known = (np.r_[rows, rows], np.r_[np.zeros(len(rows), int), 1 + rows % 8])
    assert np.array_equal(predicates.dense_signs(R, C, scaled_floats(R), scaled_floats(C), known), ref)


def as_ints(M):
    """int64 when every entry fits, else unchanged (object)."""
    try:
        return M.astype(np.int64)
    except OverflowError:
        return M


@pytest.mark.parametrize("d", [3, 4, 5])
def test_cross_polytope_vertices_need_the_greedy_choice(d):
    # at a vertex of the cross polytope the facet normals form a cube's vertices: rows spread
    # over the star are dependent (a face of that cube), so the greedy choice must prove them
    pts = [tuple(s * (i == j) for j in range(d)) for i in range(d) for s in (1, -1)] + [(0,) * d]
    H, c = _same(_rows(pts))
    assert len(H.vertices) == 2 * d and len(H.facets) == 2 ** d


def test_nonconvex_edges_of_a_claim_are_flipped_and_recertified(certificate):
    from tropattn.exact._predicates import PreparedPoints as Prepared

    rng = np.random.default_rng(2)
    X = rng.integers(-10**4, 10**4, size=(60, 3)).astype(float)
    X = np.round(X / np.linalg.norm(X, axis=1)[:, None] * 10**6).astype(np.int64)  # near a sphere
    G = _rows(X)
    pts = Prepared.of(G)
    inner = hull_module.row_sum([G[i] for i in hull_module.independent_rows(G)[0]])
    simplices = hull_module.qhull_simplices(pts.X_scaled, "QJ")[0]
    assert hull_module.certify_boundary(pts, simplices, inner)[0] is not None
    # flip one edge of the true triangulation: the claim is a closed surface, not convex there
    S = np.sort(simplices, axis=1)
    s1 = 0
    s2 = next(j for j in range(1, len(S)) if len(set(S[0]) & set(S[j])) == 2)
    r = (set(S[s1]) - set(S[s2])).pop()
    t = (set(S[s2]) - set(S[s1])).pop()
    bad = _flips._flip_edges(simplices, np.array([s1]), np.array([s2]), np.array([r]), np.array([t]))
    assert hull_module.certify_boundary(pts, bad, inner)[0] is None
    facets, Z, vertex = _flips.certify_with_flips(pts, bad, inner)
    if certificate == "local":  # the local certificate names the bad edge; flipping it back proves the hull
        assert facets is not None and vertex.all()
        assert sorted(facets) == sorted(certified_hull(G, method="exact").facets)


# ------------------------------------------------ interior points by one float filter
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.sampled_from([1, 10, 2**26, 2**52, 2**70, 2**400]), st.integers(0, 2**32 - 1))
def test_negative_columns_proves_only_true_negatives(m, mag, seed):
    rng = np.random.default_rng(seed)
    H = np.array([[int(v) * (mag // 8 + 1) + int(w) for v, w in zip(r, q)]
                  for r, q in zip(rng.integers(-8, 8, size=(20, m)), rng.integers(-2, 3, size=(20, m)))], dtype=object)
    H[:, -1] = -np.abs(H[:, -1]) - mag  # rows negative at (0, ..., 0, 1): some columns are inside
    P = rng.integers(-3, 4, size=(40, m)).astype(object)
    P[:, -1] = rng.integers(1, 50, size=40)
    P[:5, :-1] = 0  # the origin, with various denominators: inside every row
    if m > 1:  # a point on a row (an exact zero the floats see as tiny) and a point beyond it
        P[5], H[0] = 0, 0
        P[5, 0], P[5, -1], H[0, 0], H[0, -1] = 1, 1, mag, -mag
        P[6, 0], P[6, -1] = 2, 1
    exact_max = np.array([max(sum(int(a) * int(b) for a, b in zip(h, p)) for h in H) for p in P])
    got = negative_columns(scaled_floats(H), scaled_floats(P))
    assert np.all(exact_max[got] < 0)
    assert got[:5].all()  # clearly inside: the filter must prove them
    if m > 1:
        assert not got[5] and not got[6]


def test_interior_points_skip_the_cone_test(certificate):
    if certificate == "cones":
        pytest.skip("the float filter is switched off")
    report = {}  # the local certificate reports how many points it left to the cone test
    X = np.random.default_rng(11).integers(-10**6, 10**6, size=(300, 4))
    H, c = _same(_rows(X), report=report)
    seen = report.get("cone_points", [])
    assert c.certified == 1 and len(H.vertices) < 200  # over a hundred interior points ...
    assert seen and max(seen) == 0  # ... all proved by the float filter


@pytest.mark.parametrize("d, mag", [(3, 10**6), (4, 10**6), (4, 10**3), (5, 10**4)])
def test_primitive_normals_are_positive_multiples_of_the_normals(d, mag):
    import math

    rng = np.random.default_rng(d + mag)
    X = rng.integers(-mag, mag, size=(60, d))
    X[:10] = X[:10] // 4 * 4  # common factors in some normals
    pts = PreparedPoints.of(np.hstack([X, np.ones((60, 1), dtype=np.int64)]))
    simplices = np.array([rng.choice(60, d, replace=False) for _ in range(150)])
    simplices[:3, 1] = simplices[:3, 0]  # degenerate: zero rows
    simplices[3:6] = np.arange(d)  # the same simplex, often with a common factor
    raw, floats = _normals._primitive_normals(pts, simplices)
    ref = simplex_normals(pts, simplices)
    for r, h in zip(raw.tolist(), ref.tolist()):
        g = math.gcd(*map(int, h))
        assert [int(v) for v in r] == [int(v) // (g or 1) for v in h]
    if floats is not None:
        assert np.array_equal(floats, scaled_floats(raw))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 62), st.integers(1, 62), st.integers(0, 2**32 - 1))
def test_wrapped_dots_equal_python_integer_dots(m, abits, bbits, seed):
    from tropattn.exact._linalg import wrapped_dots

    rng = np.random.default_rng(seed)
    A = rng.integers(-(1 << abits) + 1, 1 << abits, size=(50, m), dtype=np.int64)
    B = rng.integers(-(1 << bbits) + 1, 1 << bbits, size=(50, m), dtype=np.int64)
    A[:5], B[:5] = (1 << abits) - 1, (1 << bbits) - 1  # the largest products
    if m > 1:  # cancellation to an exact zero
        A[5:10, 1], B[5:10, 1] = A[5:10, 0], -B[5:10, 0]
        A[5:10, 2:] = 0
    got = wrapped_dots(A, B)
    ref = [sum(int(a) * int(b) for a, b in zip(r, q)) for r, q in zip(A.tolist(), B.tolist())]
    assert [int(v) for v in got] == ref


@pytest.mark.parametrize("v", [2**62 - 1, 2**62, -(2**62) + 1, -(2**62), 2**63 - 1, 2**63, -(2**63), 2**64, -(2**70), 0])
def test_as_small_ints_at_the_limits(v):
    from tropattn.exact._predicates import as_small_ints

    out = as_small_ints(np.array([[1, v], [-3, 2]], dtype=object))
    assert (out.dtype == np.int64) == (abs(v) < 2**62)
    assert [int(x) for x in out.ravel()] == [1, v, -3, 2]


# ----------------------------------------------- "Qt Q0" first in dimension >= 4
def _degenerate_high_dim():
    rng = np.random.default_rng(11)
    grid = [(x, y, z, w) for x in range(3) for y in range(3) for z in range(3) for w in range(3)]
    cross = [tuple(s * (i == j) for j in range(4)) for i in range(4) for s in (-2, 2)]
    X = rng.integers(-50, 50, size=(80, 4))
    X[:30, 0] = 50  # thirty points on one facet hyperplane
    simplex5 = [tuple(t * (i == j) for j in range(5)) for i in range(5) for t in (1, 2, 3)] + [(0,) * 5]
    return {"grid": _rows(grid), "cross+interior": _rows(cross + [tuple(v) for v in rng.integers(-1, 2, (20, 4))]),
            "coplanar": _rows(X), "simplex5 with edge points": _rows(simplex5),
            "random5": _rows(rng.integers(-10**6, 10**6, size=(60, 5)))}


@pytest.mark.parametrize("name", sorted(_degenerate_high_dim()))
def test_triangulated_unmerged_run_first_in_high_dimension(name):
    G = sorted(set(_degenerate_high_dim()[name]))
    seen = []
    run = _qhull.qhull_simplices

    def spy(X, options=None):  # the honest proposer, watched
        seen.append(options)
        return run(X, options)

    H, c = _same(G, propose=spy)
    assert seen[0] == _qhull.QHULL_FIRST_HIGH_DIM == "Qt Q0"
    assert c.certified == 1 and c.fallbacks == 0
    seen.clear()  # the run alone, without the default list behind it: certified or refused, never wrong
    got = hull_module._certified_hull(G, qhull_options=("Qt Q0",), propose=spy)
    assert sorted(got.facets) == sorted(certified_hull(G, qhull_options=("Qt Q0",)).facets)
    assert seen == ["Qt Q0"] and sorted(got.facets) == sorted(H.facets) and got.vertices == H.vertices


def test_a_wrong_first_claim_is_refused_and_the_next_run_decides():
    G = sorted(set(_degenerate_high_dim()["coplanar"]))
    seen = []
    run = _qhull.qhull_simplices

    def broken_first(X, options=None):  # "Qt Q0" proposes its triangulation less one simplex
        seen.append(options)
        out = run(X, options)
        return (out[0][1:], out[1][1:]) if options == "Qt Q0" else out

    H, c = _same(G, propose=broken_first)
    assert seen[:2] == ["Qt Q0", "QJ"] and c.certified == 1 and c.fallbacks == 0


@pytest.mark.parametrize("name", ["random4", "grid", "coplanar", "cross+interior"])
def test_ridge_choice_proves_only_vertices(name):
    # the rows of one simplex and of its neighbours across the ridges through a point: a
    # nonzero determinant only at vertices (coplanar surface points must not pass), and in
    # general position at every vertex
    cases = dict(_degenerate_high_dim(), random4=_rows(np.random.default_rng(2).integers(-10**6, 10**6, (120, 4))))
    G = sorted(set(cases[name]))
    with config.override(hull_local_entries=0):
        _ridge_choice(name, G)


def _ridge_choice(name, G):
    for options in (("QJ",), ("Qt Q0",)):
        report = {}  # the local certificate reports the vertices it proved from the ridges
        fast = hull_module._certified_hull(G, qhull_options=options, report=report)
        seen = report.get("ridge_vertices", [])
        slow = certified_hull(G, method="exact")
        assert fast.vertices == slow.vertices
        assert seen or name != "random4"
        for proved in seen:
            assert set(np.flatnonzero(proved).tolist()) <= set(slow.vertices)
            if name == "random4":
                assert np.flatnonzero(proved).tolist() == list(slow.vertices)



def _cube_with_edge_midpoints(den):
    """The cube [0, 2]^3 with its twelve edge midpoints (over ``den``), and a triangulation of its
    boundary holding every midpoint: per face, a corner triangle at each corner and the square of
    the four midpoints cut in two."""
    G = sorted({tuple(v) + (den,) for v in itertools.product(range(3), repeat=3) if sum(c == 1 for c in v) <= 1})
    at = {g[:3]: i for i, g in enumerate(G)}
    tris = []
    for axis, side in itertools.product(range(3), (0, 2)):
        def pt(u, v):
            p = [0, 0, 0]
            p[axis], p[(axis + 1) % 3], p[(axis + 2) % 3] = side, u, v
            return at[tuple(p)]
        corners = [(0, 0), (2, 0), (2, 2), (0, 2)]
        mids = [(1, 0), (2, 1), (1, 2), (0, 1)]
        for i in range(4):
            tris.append([pt(*corners[i]), pt(*mids[i]), pt(*mids[i - 1])])
        tris += [[pt(*mids[0]), pt(*mids[1]), pt(*mids[2])], [pt(*mids[0]), pt(*mids[2]), pt(*mids[3])]]
    return G, np.array(tris)


@pytest.mark.parametrize("den", [1, 7])
def test_ridge_choice_on_edge_midpoints_in_3d(den):
    """An edge midpoint has one ridge bent (along the edge) and one flat (inside a face) in every
    triangle holding it: the local certificate may prove a vertex without a determinant only where
    every ridge through it is bent.  The claim is handed in, so the midpoints are on the surface."""
    G, tris = _cube_with_edge_midpoints(den)
    report = {}
    with config.override(hull_local_entries=0):
        H = hull_module._certified_hull(G, qhull_options=("QJ",), propose=lambda X, o: (tris, None),
                                        report=report)
    corners = [i for i, g in enumerate(G) if all(c != 1 for c in g[:3])]
    assert list(H.vertices) == corners and len(H.facets) == 6
    (proved,) = report["ridge_vertices"]
    assert set(np.flatnonzero(proved).tolist()) <= set(corners)
