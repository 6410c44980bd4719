"""Power diagrams: exact location, certified cells, hidden sites, pictures."""

import dataclasses
import pickle
import random
from fractions import Fraction as F

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from tropattn.errors import InvalidInputError, TieError
from tropattn.exact import counting, _lifted as lifted
from tropattn.geometry import PowerCell, PowerDiagram, power_cells, scores_to_weights
from tropattn.geometry._lifting import integer_upper_hull
from tropattn.geometry._power_cells import _cells_by_lp  # the reference: one certified LP per cell on all N - 1 rows
from tropattn.geometry._power_cells import _cells_from_hull  # the general construction on any certified hull

small = st.integers(-4, 4).map(F)
rational = st.builds(F, st.integers(-12, 12), st.integers(1, 4))


def diagrams(dim, max_n=6):
    return st.integers(1, max_n).flatmap(lambda n: st.tuples(
        st.lists(st.lists(small, min_size=dim, max_size=dim), min_size=n, max_size=n),
        st.lists(st.integers(-6, 6).map(F), min_size=n, max_size=n)))


def _inside(cell, x, strict=True):
    vals = [sum(a * xi for a, xi in zip(row, x)) - b for row, b in zip(cell.A, cell.b)]
    return all(v < 0 for v in vals) if strict else all(v <= 0 for v in vals)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(lambda d: st.tuples(st.just(d), diagrams(d))), st.data())
def test_locate_is_argmin_power_and_cell_membership(dsw, data):
    d, (sites, weights) = dsw
    pd = PowerDiagram(sites, weights)
    cells = pd.cells()
    for _ in range(5):
        x = data.draw(st.lists(rational, min_size=d, max_size=d))
        powers = [pd.power(x, j) for j in range(pd.N)]
        best = min(powers)
        assert pd.locate_all(x) == tuple(j for j, p in enumerate(powers) if p == best)
        try:
            j = pd.locate(x)
        except TieError as exc:
            assert len(exc.labels) >= 2
            assert all(powers[k] == best for k in exc.labels)
            continue
        assert powers[j] == best and cells[j] is not None
        assert _inside(cells[j], x, strict=False)
        # no other nonempty cell contains x in its interior
        assert not any(c is not None and c.site != j and _inside(c, x) for c in cells)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(lambda d: diagrams(d)))
def test_cells_are_certified(sw):
    sites, weights = sw
    pd = PowerDiagram(sites, weights)
    for c in pd.cells():
        if c is None:
            continue
        assert _inside(c, c.interior_point)
        assert pd.locate(c.interior_point) == c.site
        for i, (k, p) in enumerate(zip(c.neighbors, c.facet_points)):
            assert set(pd.locate_all(p)) >= {c.site, k}          # the facet point is on the wall j | k
            assert pd.cells()[k] is not None and c.site in pd.cells()[k].neighbors


def test_voronoi_special_case_is_nearest_site():
    rng = random.Random(1)
    sites = [[F(rng.randint(-20, 20), 4), F(rng.randint(-20, 20), 4)] for _ in range(12)]
    head_offsets = [-(a[0] ** 2 + a[1] ** 2) / 2 for a in sites]             # b_j = -||a_j||^2 / 2
    pd = PowerDiagram.from_max_affine(sites, head_offsets)
    assert pd.weights == (0,) * 12 and pd == PowerDiagram.voronoi(sites)
    for _ in range(200):
        x = [F(rng.randint(-50, 50), 7), F(rng.randint(-50, 50), 7)]
        dist = [(x[0] - a[0]) ** 2 + (x[1] - a[1]) ** 2 for a in sites]
        near = [j for j, v in enumerate(dist) if v == min(dist)]
        if len(near) == 1:
            assert pd.locate(x) == near[0]
    assert pd.hidden == ()          # every Voronoi cell of distinct sites is nonempty


def test_hidden_site_never_wins_dense_sampling():
    sites = [[0, 0], [4, 0], [0, 4], [4, 4], [2, 2], [1, 3]]
    weights = [4, 4, 4, 4, -3, F(-1, 2)]           # light sites inside heavy ones
    pd = PowerDiagram(sites, weights)
    assert 4 in pd.hidden
    grid = [F(i, 6) for i in range(-12, 37)]
    seen = set()
    for x in grid:
        for y in grid:
            seen.update(pd.locate_all([x, y]))
    assert seen == set(pd.nonempty)                # no hidden site is ever a minimiser on the grid
    assert pd.adjacency_graph().number_of_nodes() == len(pd.nonempty)


@pytest.mark.slow
def test_planar_path_matches_lp_path_with_many_hidden():
    rng = random.Random(7)
    for n in (12, 40):
        sites = [[F(rng.randint(0, 100), 100), F(rng.randint(0, 100), 100)] for _ in range(n)]
        weights = [F(rng.randint(0, 100), 10**4) * rng.choice([1, 30]) for _ in range(n)]
        pd = PowerDiagram(sites, weights)
        unique = [j for j in range(n) if j not in pd.duplicates]
        with counting() as c:
            fast = power_cells(pd)
        slow = _cells_by_lp(pd, unique)
        assert c.by_place["certified:power.planar"] == 1 and c.declined == 0     # the fast path was taken
        assert [c and (c.A, c.b, c.neighbors) for c in fast] == [c and (c.A, c.b, c.neighbors) for c in slow]
        assert any(c is None for c in fast)


def test_duplicates():
    pd = PowerDiagram([[1, 1], [1, 1], [0, 0], [1, 1]], [2, 2, 0, 5])
    assert pd.duplicates == {0: 3, 1: 3}
    assert pd.hidden == (0, 1)
    same = PowerDiagram([[1], [1], [3]], [0, 0, 0])
    assert same.hidden == (1,) and same.locate([0]) == 0         # equal site and weight: earlier wins
    assert same.locate_all([0]) == (0, 1)


def test_fan_without_offsets():
    # b_j = 0: every cell is a cone from the origin; in d = 1 at most two cells survive
    keys = [[-3], [-1], [0], [2], [5]]
    pd = PowerDiagram.from_max_affine(keys, [0] * 5)
    assert pd.nonempty == (0, 4)
    pd2 = PowerDiagram.from_max_affine([[1, 0], [0, 1], [-1, -1], [0, 0], [F(1, 3), F(1, 3)]], [0] * 5)
    assert pd2.nonempty == (0, 1, 2)
    assert all(all(b == 0 for b in c.b) for c in pd2.cells() if c is not None)


def test_clip_to_box_areas_sum_to_box():
    rng = random.Random(3)
    sites = [[F(rng.randint(0, 50), 10), F(rng.randint(0, 50), 10)] for _ in range(25)]
    weights = [F(rng.randint(0, 40), 10) for _ in range(25)]
    pd = PowerDiagram(sites, weights)
    polys = pd.clip_to_box([-1, -2], [6, 7])
    assert sum(p.area for p in polys.values()) == pytest.approx(63.0, rel=1e-12)
    assert set(polys) <= set(pd.nonempty)
    for j, p in polys.items():
        c = p.representative_point()
        assert pd.locate([F(c.x), F(c.y)]) == j
    one = PowerDiagram.voronoi([[0], [2]]).clip_to_box([-1], [5])
    assert one == {0: (-1, 1), 1: (1, 5)}
    with pytest.raises(InvalidInputError, match="R\\^3"):
        PowerDiagram.voronoi([[0, 0, 0], [1, 1, 1]]).clip_to_box([0] * 3, [1] * 3)


@settings(max_examples=30, deadline=None)
@given(diagrams(2))
def test_max_affine_round_trip(sw):
    sites, weights = sw
    pd = PowerDiagram(sites, weights)
    slopes, intercepts = pd.to_max_affine()
    assert PowerDiagram.from_max_affine(slopes, intercepts) == pd
    assert scores_to_weights(slopes, intercepts) == pd.weights


def test_tie_error_names_labels():
    pd = PowerDiagram.voronoi([[0, 0], [2, 0], [1, 5]])
    with pytest.raises(TieError) as info:
        pd.locate([1, 0])
    assert info.value.labels == (0, 1)


def test_bad_input():
    with pytest.raises(InvalidInputError, match="at least one site"):
        PowerDiagram([], [])
    with pytest.raises(InvalidInputError, match="NaN"):
        PowerDiagram([[float("nan")]], [0])
    with pytest.raises(InvalidInputError, match="weights"):
        PowerDiagram([[0], [1]], [0])


# ---------------------------------------------------------------- fast paths against the per-cell LPs
def _cells_key(cells):
    return [c and (c.A, c.b, c.neighbors) for c in cells]


def _check_fast(pd, kernel):
    """The cells agree with the per-cell LPs (rows, neighbours, hidden) and their points are certified.

    Returns whether the fast path ``kernel`` ("chain", "planar", "simplicial") answered: True if it
    was certified, False if it declined (the general construction answered, also checked here).
    """
    unique = [j for j in range(pd.N) if j not in pd.duplicates]
    with counting() as count:
        fast = power_cells(pd)
    taken = count.by_place[f"certified:power.{kernel}"] == 1
    assert taken or count.by_place["fallbacks:power.general"] == 1
    assert _cells_key(fast) == _cells_key(_cells_by_lp(pd, unique))
    for c in fast:
        if c is None:
            continue
        assert all(isinstance(v, F) for row in c.A for v in row) and all(isinstance(v, F) for v in c.b)
        assert _inside(c, c.interior_point) and pd.locate(c.interior_point) == c.site
        for k, p in zip(c.neighbors, c.facet_points):
            assert set(pd.locate_all(p)) >= {c.site, k}
    assert tuple(fast) == pd.cells()         # the cached cells are the same
    return taken


FAST = {1: "chain", 2: "planar", 3: "simplicial"}


def grid_diagrams(dim, max_n=12, radius=2):
    """Sites on a small grid (duplicates, cocircular and collinear sites), weights often equal."""
    coord = st.integers(-radius, radius).map(F)
    return st.integers(dim + 2, max_n).flatmap(lambda n: st.tuples(
        st.lists(st.lists(coord, min_size=dim, max_size=dim), min_size=n, max_size=n),
        st.one_of(st.just([F(0)] * n), st.lists(st.integers(0, 6).map(F), min_size=n, max_size=n))))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([1, 2, 3]).flatmap(lambda d: st.tuples(st.just(d), grid_diagrams(d))))
@pytest.mark.slow
def test_fast_paths_match_lp_on_degenerate_inputs(dsw):
    d, (sites, weights) = dsw
    _check_fast(PowerDiagram(sites, weights), FAST[d])


@pytest.mark.parametrize("d, n, rounds", [(1, 30, 20), (2, 40, 8), (3, 14, 6)])
@pytest.mark.slow
def test_fast_paths_match_lp_in_general_position(d, n, rounds):
    rng = random.Random(11 + d)
    used = 0
    for _ in range(rounds):
        sites = [[F(rng.randint(-1000, 1000), 97) for _ in range(d)] for _ in range(n)]
        weights = [F(rng.randint(0, 10**4), 10**3) * rng.choice([1, 20]) for _ in range(n)]
        used += _check_fast(PowerDiagram(sites, weights), FAST[d])
    assert used == rounds                    # generic inputs never need the fallback


@pytest.mark.slow
def test_fast_paths_on_named_degenerate_inputs():
    circle = [[F(1 - t * t, 1 + t * t), F(2 * t, 1 + t * t)] for t in (F(k, 5) for k in range(-8, 9))]
    grid = [[i, j] for i in range(5) for j in range(5)]
    cases = {
        "grid (cocircular)": (grid, [0] * 25),
        "circle + centre": (circle + [[0, 0]], [0] * 18),
        "circle only (lifted points coplanar)": (circle, [0] * 17),
        "collinear sites": ([[i, 2 * i] for i in range(6)], [0] * 6),
        "duplicates": ([[0, 0], [1, 0], [0, 0], [0, 1], [1, 1], [1, 0]], [0, 1, 2, 0, 0, 1]),
        "many hidden": ([[i % 4, i // 4] for i in range(16)] + [[F(3, 2), F(3, 2)]], [0] * 16 + [40]),
    }
    taken = {}
    for name, (sites, weights) in cases.items():
        pd = PowerDiagram(sites, weights)
        taken[name] = _check_fast(pd, "planar")
        unique = [j for j in range(pd.N) if j not in pd.duplicates]
        assert _cells_key(pd.cells()) == _cells_key(_cells_by_lp(pd, unique))
    assert taken["grid (cocircular)"] and taken["circle + centre"] and taken["many hidden"]
    assert taken["circle only (lifted points coplanar)"]            # one flat face: certified without Qhull
    hidden = PowerDiagram(*cases["many hidden"]).hidden              # one heavy site hides inner sites,
    assert hidden and not {0, 3, 12, 15} & set(hidden)               # never a corner of conv{a_j}
    # on the line: lifted points on one segment hide the middle ones
    line = PowerDiagram.from_max_affine([[0], [1], [2], [3], [3]], [0, 0, 0, 0, -1])
    assert _check_fast(line, "chain") and line.hidden == (1, 2, 4)
    cube = PowerDiagram.voronoi([[i, j, k] for i in range(3) for j in range(3) for k in range(3)])
    _check_fast(cube, "simplicial")                                # cospherical: may decline
    assert len(cube.cells()[13].neighbors) == 6                     # the centre cell is a cube


def test_lazy_cells_equal_eager_cells():
    rng = random.Random(5)
    sites = [[F(rng.randint(0, 50), 7), F(rng.randint(0, 50), 7)] for _ in range(30)]
    pd = PowerDiagram(sites, [F(rng.randint(0, 9)) for _ in range(30)])
    cells = pd.cells()
    _lazy_cells_equal_eager(cells)
    for c in cells:
        if c is not None:
            with pytest.raises(dataclasses.FrozenInstanceError):
                c.site = 0
    g = pd.adjacency_graph(points=True)
    assert sorted(g.edges) == sorted((c.site, k) for c in cells if c is not None for k in c.neighbors if c.site < k)
    assert sorted(g.edges) == sorted(pd.adjacency_graph().edges)          # the same graph without the points
    for c in cells:
        if c is not None:
            assert all(g.edges[c.site, k]["point"] == p for k, p in zip(c.neighbors, c.facet_points))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_fast_paths_beyond_float_range(d):
    rng = random.Random(d)
    big = 10 ** 320                                      # overflows float64: floats only propose
    sites = [[F(rng.randint(-100, 100), 7) * big for _ in range(d)] for _ in range(9)]
    pd = PowerDiagram(sites, [F(rng.randint(0, 100)) * big * big for _ in range(9)])
    unique = [j for j in range(pd.N) if j not in pd.duplicates]
    assert _cells_key(pd.cells()) == _cells_key(_cells_by_lp(pd, unique))
    _check_fast(pd, FAST[d])


# ---------------------------------------------------------------- the 3-D fast path (simplicial kernel)
def _random_3d(rng, n, heavy=1):
    sites = [[F(rng.randint(-1000, 1000), 97) for _ in range(3)] for _ in range(n)]
    weights = [F(rng.randint(0, 10**4), 10**3) * rng.choice([1, heavy]) for _ in range(n)]
    return PowerDiagram(sites, weights)


@pytest.mark.parametrize("n, heavy, rounds", [(30, 1, 3), (40, 30, 3), (25, 400, 2)])
@pytest.mark.slow
def test_simplicial_path_matches_lp_on_random_and_hidden_heavy_inputs(n, heavy, rounds):
    rng = random.Random(100 * n + heavy)
    hidden = 0
    for _ in range(rounds):
        pd = _random_3d(rng, n, heavy)
        with counting() as c:
            pd.cells()
        assert c.by_place["certified:upper_hull.simplicial"] == 1 and c.by_place["certified:power.simplicial"] == 1
        assert c.declined == 0 and c.fallbacks == 0                     # generic input: the fast path answers
        assert _check_fast(PowerDiagram(pd.sites, pd.weights), "simplicial")
        hidden += len(pd.hidden)
    assert hidden > 0 if heavy > 1 else True


def _wall_points_ok(pd):
    g = pd.adjacency_graph(points=True)
    cells = pd.cells()
    assert sorted(g.edges) == sorted((c.site, k) for c in cells if c is not None for k in c.neighbors if c.site < k)
    for c in cells:                  # the lower site's facet point (the fast paths share one point per wall)
        if c is not None:
            assert all(g.edges[c.site, k]["point"] == p for k, p in zip(c.neighbors, c.facet_points) if c.site < k)
    return g


def test_simplicial_path_against_the_general_construction_on_degenerate_inputs():

    grid = [[i, j, k] for i in range(3) for j in range(3) for k in range(3)]
    rng = random.Random(4)
    cases = {
        "3x3x3 grid, equal weights (cospherical)": (grid, [0] * 27, False),
        "grid, small generic weights": (grid, [F(rng.randint(0, 999), 10**4) for _ in grid], True),
        "sites on a sphere": ([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1],
                               [F(3, 5), F(4, 5), 0], [0, F(3, 5), F(4, 5)]], [0] * 8, False),
        "coplanar sites": ([[i, j, 0] for i in range(3) for j in range(3)], [0] * 9, False),
        "duplicates": ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 0, 1], [1, 1, 1]],
                       [0, 1, 0, 0, 1, 2, F(1, 3)], None),
        "all hidden but a few": ([[1 + i % 3, 1 + i // 3 % 3, 1 + i // 9] for i in range(27)]
                                 + [[4 * (i % 2), 4 * (i // 2 % 2), 4 * (i // 4)] for i in range(8)],
                                 [F(rng.randint(0, 9), 10) for _ in range(27)] + [60 + i for i in range(8)], None),
    }
    for name, (sites, weights, fast) in cases.items():
        pd = PowerDiagram(sites, weights)
        taken = _check_fast(pd, "simplicial")
        if fast is not None:
            assert taken == fast, name
        unique = [j for j in range(pd.N) if j not in pd.duplicates]
        A, B, _ = pd._int_scores()
        hull = integer_upper_hull([tuple(A[j]) + (B[j],) for j in unique], method="exact")
        assert _cells_key(_cells_from_hull(pd, unique, hull)) == _cells_key(pd.cells()), name
        _wall_points_ok(pd)
    few = PowerDiagram(*cases["all hidden but a few"][:2])
    assert few.nonempty == tuple(range(27, 35))
    cube = PowerDiagram(grid, [0] * 27)
    assert len(cube.cells()[13].neighbors) == 6                    # the centre cell is a cube


@settings(max_examples=25, deadline=None)
@given(st.integers(6, 14).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.builds(F, st.integers(-50, 50), st.integers(1, 9)), min_size=3, max_size=3),
             min_size=n, max_size=n),
    st.lists(st.builds(F, st.integers(0, 400), st.integers(1, 20)), min_size=n, max_size=n))))
def test_simplicial_path_property(sw):
    sites, weights = sw
    pd = PowerDiagram(sites, weights)
    _check_fast(pd, "simplicial")
    _wall_points_ok(pd)


def test_adjacency_graph_with_and_without_points():
    pd = _random_3d(random.Random(9), 20)
    cells = pd.cells()
    eager = nx.Graph()
    eager.add_nodes_from(pd.nonempty)
    eager.add_edges_from((c.site, k, {"point": p}) for c in cells if c is not None
                         for k, p in zip(c.neighbors, c.facet_points) if c.site < k)
    g = pd.adjacency_graph(points=True)
    assert nx.utils.graphs_equal(g, eager) and nx.utils.graphs_equal(pickle.loads(pickle.dumps(g)), eager)
    plain = pd.adjacency_graph()
    assert sorted(plain.edges) == sorted(eager.edges) and all(not d for _, _, d in plain.edges(data=True))


@pytest.mark.parametrize("corrupt", ["drop", "duplicate", "other heights", "hide a vertex"])
def test_simplicial_certificate_rejects_wrong_proposals(corrupt):
    rng = random.Random(17)
    P = [[rng.randint(-99, 99) for _ in range(3)] + [rng.randint(0, 10**4)] for _ in range(30)]
    assert lifted.certified_upper_simplices(P, 3) is not None

    def proposal(X, options=None):
        X = np.array(X)
        if corrupt == "other heights":                                # a different regular triangulation
            X[:, 3] = [rng.randint(0, 10**4) for _ in range(len(X))]
        if corrupt == "hide a vertex":                                # the proposal misses an upper vertex
            top = int(np.argmax(X[:, 3]))
            X[top, 3] = X[:, 3].min() - 10**5
        qh = ConvexHull(X)
        S, E = qh.simplices, qh.equations
        up = np.flatnonzero(E[:, 3] > 0)
        if corrupt == "drop":
            keep = np.ones(len(S), dtype=bool)
            keep[up[len(up) // 2]] = False
            S, E = S[keep], E[keep]
        if corrupt == "duplicate":
            S, E = np.concatenate([S, S[up[:1]]]), np.concatenate([E, E[up[:1]]])
        return S, E

    assert lifted._certified_upper_simplices(P, 3, propose=proposal) is None


def test_simplicial_path_with_integers_beyond_int64():
    rng = random.Random(23)
    big = 10 ** 25                                     # floats still propose; the checks run on Python ints
    sites = [[F(rng.randint(-1000, 1000), 97) * big for _ in range(3)] for _ in range(20)]
    pd = PowerDiagram(sites, [F(rng.randint(0, 10**4)) * big * big * rng.choice([1, 30]) for _ in range(20)])
    assert _check_fast(pd, "simplicial")
    _wall_points_ok(pd)


def _lazy_cells_equal_eager(cells):
    """Each lazily built cell equals (hash, repr, pickle) the PowerCell made from its fields."""
    for c in cells:
        if c is None:
            continue
        eager = PowerCell(c.site, c.A, c.b, c.neighbors, c.interior_point, c.facet_points)
        assert eager == c and hash(eager) == hash(c) and repr(eager) == repr(c)
        assert pickle.loads(pickle.dumps(c)) == c


def test_lazy_3d_cells_equal_eager_cells():
    _lazy_cells_equal_eager(_random_3d(random.Random(31), 25, heavy=20).cells())


@pytest.mark.parametrize("d", [1, 2, 3])
def test_power_cells_method_forces_the_general_construction(d):
    rng = random.Random(40 + d)
    pd = PowerDiagram([[rng.randint(-20, 20) for _ in range(d)] for _ in range(25)],
                      [rng.randint(0, 200) for _ in range(25)])
    with counting() as c:
        general = power_cells(pd, method="general")
    assert c.by_place["fallbacks:power.general"] == 1                 # one certified LP per cell
    assert _cells_key(general) == _cells_key(pd.cells()) == _cells_key(power_cells(pd, method="exact"))
    with pytest.raises(InvalidInputError, match="method = 'simplicial' needs points over d >= 3" if d < 3 else
                       "method = 'chain' needs points over d = 1"):
        power_cells(pd, method="simplicial" if d < 3 else "chain")
