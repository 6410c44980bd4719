"""The counting path of power diagrams (integer cell tables, strict planar kernel, Morton-ordered
proposals, float-direct determinant filter) against independent oracles: per-cell certified LPs on
all N - 1 bisector rows, plain-integer determinants, and Fraction checks of the lazy cell fields."""

import itertools
import pickle
import random
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn import config
from tropattn.exact import _lifted as lifted
from tropattn.exact import counting
from tropattn.geometry import PowerDiagram, upper_hull
from tropattn.geometry._power_cells import _cells_by_lp  # the oracle: one certified LP per cell, all rows


def _det(M):
    """Leibniz determinant in Python integers (shares nothing with tropattn's predicates)."""
    k = len(M)
    total = 0
    for perm in itertools.permutations(range(k)):
        inv = sum(perm[i] > perm[j] for i in range(k) for j in range(i + 1, k))
        term = 1
        for i, p in enumerate(perm):
            term *= int(M[i][p])
        total += -term if inv % 2 else term
    return total


def _lp_oracle(pd):
    """(hidden, edges, cells by site) from the per-cell LPs on every bisector row."""
    unique = [j for j in range(pd.N) if j not in pd.duplicates]
    slow = _cells_by_lp(pd, unique)
    hidden = tuple(j for j, c in enumerate(slow) if c is None)
    edges = sorted((c.site, k) for c in slow if c is not None for k in c.neighbors if c.site < k)
    return hidden, edges, slow


def _check_against_lp(pd):
    hidden, edges, slow = _lp_oracle(pd)
    assert pd.hidden == hidden
    assert pd.nonempty == tuple(j for j in range(pd.N) if j not in hidden)
    assert [tuple(e) for e in pd.edges.tolist()] == edges
    assert sorted(pd.adjacency_graph().edges) == edges
    cells = pd.cells()                          # the lazy cells, built from the table on first read
    for c, s in zip(cells, slow):
        assert (c is None) == (s is None)
        if c is None:
            continue
        assert (c.A, c.b, c.neighbors) == (s.A, s.b, s.neighbors)
        # the lazily built exact fields: the interior point strictly inside every row, each facet
        # point on its row and strictly inside the others (checked here in Fractions)
        rows = [sum(a * x for a, x in zip(r, c.interior_point)) - b for r, b in zip(c.A, c.b)]
        assert all(v < 0 for v in rows)
        for i, p in enumerate(c.facet_points):
            vals = [sum(a * x for a, x in zip(r, p)) - b for r, b in zip(c.A, c.b)]
            assert vals[i] == 0 and all(v < 0 for t, v in enumerate(vals) if t != i)


rational = st.builds(F, st.integers(-40, 40), st.sampled_from([1, 3, 7, 1000, 999]))


def random_diagrams(d, max_n=14):
    """Rational sites with denominators, duplicates and equal weights mixed in."""
    site = st.lists(rational, min_size=d, max_size=d)
    return st.integers(d + 2, max_n).flatmap(lambda n: st.tuples(
        st.lists(site, min_size=n, max_size=n),
        st.lists(st.sampled_from([F(0), F(1), F(-3, 2), F(5, 7)]) | rational, min_size=n, max_size=n),
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3)))


def _build(sites, weights, copies):
    sites, weights = list(sites), list(weights)
    for i, j in copies:                         # exact duplicates (equal or different weights)
        sites[j] = sites[i]
    return PowerDiagram(sites, weights)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(lambda d: random_diagrams(d)))
def test_counting_path_equals_per_cell_lps(case):
    _check_against_lp(_build(*case))


def test_degenerate_planar_inputs_equal_per_cell_lps():
    """Co-circular sites (flat lifted faces), equal weights, hidden sites, a grid, collinear sites."""
    circle = [(F(3), F(4)), (F(-3), F(4)), (F(3), F(-4)), (F(-3), F(-4)), (F(5), F(0)), (F(0), F(5)),
              (F(-5), F(0)), (F(0), F(-5))]
    grid = [(F(i), F(j)) for i in range(4) for j in range(4)]
    rng = random.Random(4)
    cases = [
        (circle, [0] * 8),
        (circle + [(F(0), F(0))], [0] * 8 + [F(-30)]),               # a hidden centre
        (circle + [(F(0), F(0))], [0] * 8 + [F(0)]),
        (grid, [0] * 16),
        (grid, [F(rng.randrange(3), 2) for _ in grid]),
        ([(F(i), F(2 * i)) for i in range(5)] + [(F(0), F(1))], [0] * 6),
        (grid + grid[:5], [0] * 16 + [F(1)] * 5),                     # duplicates hiding others
    ]
    for sites, weights in cases:
        _check_against_lp(PowerDiagram(sites, weights))


def test_strict_planar_kernel_answers_generic_input_and_agrees_with_the_general_hull():
    rng = random.Random(7)
    sites = [(F(rng.randrange(10 ** 6), 1000), F(rng.randrange(10 ** 6), 1000)) for _ in range(300)]
    weights = [F(rng.randrange(10 ** 4), 10) for _ in sites]
    pd = PowerDiagram(sites, weights)
    A, B, _ = pd._int_scores()
    P = [tuple(a) + (b,) for a, b in zip(A, B)]
    strict = lifted.certified_upper_facets_2d(P)
    assert isinstance(strict, lifted.StrictPlanarUpperHull) and strict.cycles == {}
    # the general hull certificate's maximal upper faces are exactly these triangles
    general = upper_hull(P, method="general")
    assert general.kernel == "general"
    assert sorted(sorted(c) for c in general.cells) == sorted(map(sorted, strict.tri.tolist()))
    # the planar fields: each triangle's three ccw edges, the triangle across (or -1 on the boundary)
    T = strict.tri.tolist()
    for u, v, f, g in zip(strict.eu.tolist(), strict.ev.tolist(), strict.ef.tolist(), strict.eg.tolist()):
        t = T[f]
        assert (u, v) in ((t[0], t[1]), (t[1], t[2]), (t[2], t[0]))
        assert g == -1 or (g != f and {u, v} <= set(T[g]))
    # planes: through the triangle's points (Python ints), ccw in the projection (n_z > 0)
    for t, (nx, ny, nz, e) in zip(T, strict.planes.tolist()):
        assert nz > 0 and all(nx * P[i][0] + ny * P[i][1] + nz * P[i][2] + e == 0 for i in t)
        (x0, y0, _), (x1, y1, _), (x2, y2, _) = (P[i] for i in t)
        assert (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) > 0
    with counting() as c:
        pd.edges
    assert c.by_place["certified:power.planar"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("d", [2, 3])
def test_morton_ordered_proposals_give_the_same_diagram(d):
    rng = random.Random(d)
    n = 200
    sites = [[F(rng.randrange(1 << 12), 1 << 8) for _ in range(d)] for _ in range(n)]
    weights = [F(rng.randrange(1 << 10), 1 << 6) for _ in range(n)]
    with config.override(qhull_sort_from=-1):
        plain = PowerDiagram(sites, weights)
        expect = (plain.hidden, plain.edges.tolist())
    with config.override(qhull_sort_from=0):
        flt = lifted._pow2_scaled(np.array([tuple(a) + (b,) for a, b in zip(*plain._int_scores()[:2])], dtype=float))
        run = lifted._proposal(flt, "Q0")
        A = np.array([tuple(a) + (b,) for a, b in zip(*plain._int_scores()[:2])], dtype=np.int64)
        # the sorted proposal, mapped back to the original indices, is certified as it stands
        assert lifted._certify_simplices(A, flt, run, d, lifted._degree_one) is not None
        sorted_pd = PowerDiagram(sites, weights)
        assert (sorted_pd.hidden, sorted_pd.edges.tolist()) == expect
        _check_against_lp(sorted_pd)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.integers(0, 10 ** 6), st.sampled_from([3, 1 << 20, 1 << 51, 1 << 60]))
def test_difference_signs_equal_integer_determinants(k, seed, scale):
    """Both branches (float columns read from int64 points; the stacked integer matrices): many
    exact zeros from repeated and collinear points, values near 2^52 and past it."""
    rng = np.random.default_rng(seed)
    n = 12
    A = rng.integers(-scale, scale, size=(n, k + 1), dtype=np.int64, endpoint=True)
    A[3] = A[1]                                          # a repeated point: zero determinants
    A[4] = 2 * A[2] - A[0] if scale < 1 << 60 else A[4]  # collinear with two others
    m = 30
    base = rng.integers(0, n, size=m)
    rows = [rng.integers(0, n, size=m) for _ in range(k)]
    got = lifted._difference_signs(A, base, rows, k)
    for t in range(m):
        M = [[int(A[r[t], c]) - int(A[base[t], c]) for c in range(k)] for r in rows]
        det = _det(M)
        assert got[t] == (det > 0) - (det < 0)


def test_table_has_no_cell_objects_until_cells_are_read():
    rng = random.Random(3)
    pd = PowerDiagram([(F(rng.randrange(999), 999), F(rng.randrange(999), 999)) for _ in range(80)], [0] * 80)
    pd.hidden, pd.edges
    table = pd._cache["table"]
    assert table._cells is None                 # counting built no PowerCell
    cells = pd.cells()
    assert table._cells is cells and sum(c is not None for c in cells) == len(pd.nonempty)
    with pytest.raises(ValueError):
        pd.edges[0, 0] = 5                      # read-only, cached


@pytest.mark.parametrize("d, n", [(1, 9), (2, 14), (3, 12)])
def test_a_diagram_whose_cells_were_read_pickles_with_them(d, n):
    """The cell tables keep picklable makers (no closures): a diagram, and a head holding one,
    pickle after their cells are read (a process pool's steps carry them), and the cells
    that come back are the same cells."""
    rng = random.Random(d * 100 + n)
    sites = [[rng.randint(-40, 40) for _ in range(d)] for _ in range(n)]
    pd = PowerDiagram(sites, [rng.randint(-30, 30) for _ in range(n)])
    cells = pd.cells()
    back = pickle.loads(pickle.dumps(pd)).cells()
    assert [c is None for c in back] == [c is None for c in cells]
    for a, b in zip(cells, back):
        if a is not None:
            assert (a.neighbors, a.interior_point, a.A, a.b) == (b.neighbors, b.interior_point, b.A, b.b)
