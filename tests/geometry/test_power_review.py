"""Adversarial review of the simplicial (d >= 3) power-diagram fast path and its lazy fields.

Every fast answer is compared with the general exact construction (one certified LP per cell on
all N - 1 rows), and its points are checked exactly: an interior point wins alone, a wall point
ties exactly its two cells (and hidden sites lying on the wall, which tie on the whole wall).
Dishonest Qhull proposals check that each step of the certificate is needed and present.
"""

import itertools
import random
import warnings
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import ConvexHull

from tropattn.exact import counting, _lifted as lifted
from tropattn.geometry import PowerDiagram
from tropattn.geometry._lifting import integer_upper_hull
from tropattn.geometry._power_cells import _cells_by_lp  # the reference: one certified LP per cell on all N - 1 rows


def _winners(pd, x):
    """The nonempty sites of largest score at x (hidden duplicates mapped to the site hiding them)."""
    dups, hidden = pd.duplicates, set(pd.hidden)
    return {dups.get(j, j) for j in pd.locate_all(x)} - hidden


def _strict_check(pd):
    """Fast cells equal the per-cell LPs; interior, facet and edge points certified; returns the kernel used."""
    unique = [j for j in range(pd.N) if j not in pd.duplicates]
    with counting() as count:
        fast = pd.cells()
    slow = _cells_by_lp(pd, unique)
    assert [c is None for c in fast] == [c is None for c in slow]
    assert [c and (c.A, c.b, c.neighbors) for c in fast] == [c and (c.A, c.b, c.neighbors) for c in slow]
    for c in fast:
        if c is None:
            continue
        assert _winners(pd, c.interior_point) == {c.site}
        for k, p in zip(c.neighbors, c.facet_points):
            assert _winners(pd, p) == {c.site, k}
    g = pd.adjacency_graph(points=True)
    assert sorted(g.nodes) == list(pd.nonempty)
    assert sorted(g.edges) == sorted((c.site, k) for c in fast if c is not None for k in c.neighbors if c.site < k)
    for u, v, data in g.edges(data=True):
        assert _winners(pd, data["point"]) == {u, v}
    return "simplicial" if count.by_place["certified:power.simplicial"] == 1 else "general"


# ---------------------------------------------------------------- named adversarial inputs
def _sphere_point(rng, d):
    """A rational point on the unit sphere of R^d (inverse stereographic projection)."""
    t = [F(rng.randint(-20, 20), rng.randint(1, 9)) for _ in range(d - 1)]
    s = sum(x * x for x in t)
    return [2 * x / (1 + s) for x in t] + [(s - 1) / (1 + s)]


def _on_hull_faces(rng, d, n, m):
    """Sites whose lifted points lie exactly on faces (facets, ridges, edges) of the upper hull."""
    a = [[F(rng.randint(-50, 50)) for _ in range(d)] for _ in range(n)]
    b = [-sum(x * x for x in p) / 2 + rng.randint(0, 30) for p in a]
    pd = PowerDiagram.from_max_affine(a, b)
    A, B, _ = pd._int_scores()
    hull = integer_upper_hull([tuple(A[j]) + (B[j],) for j in range(n)])
    assert hull.kernel == "simplicial"
    for _ in range(m):
        verts = rng.sample(hull.data.simplices[rng.randrange(len(hull.data.simplices))].tolist(),
                           rng.choice([2, 3, d + 1]))
        lam = [F(rng.randint(1, 5)) for _ in verts]
        lam = [x / sum(lam) for x in lam]
        a.append([sum(t * a[v][c] for t, v in zip(lam, verts)) for c in range(d)])
        b.append(sum(t * b[v] for t, v in zip(lam, verts)) - rng.choice([0, 0, F(1, 10 ** 20)]))
    return PowerDiagram.from_max_affine(a, b)


def _cases():
    rng = random.Random(2)
    sphere = [_sphere_point(rng, 3) for _ in range(12)]
    eps = F(1, 2 ** 60)
    rand = [[F(rng.randint(-1000, 1000), 97) for _ in range(3)] for _ in range(14)]
    flat = [[F(rng.randint(-9, 9)), F(rng.randint(-9, 9))] for _ in range(10)]
    return {
        "cospherical": (PowerDiagram.voronoi(sphere), None),
        "cospherical + centre": (PowerDiagram.voronoi(sphere + [[0, 0, 0]]), "simplicial"),
        "sphere perturbed by 2^-60": (PowerDiagram.voronoi([[x + eps * rng.choice([-1, 0, 1]) for x in p]
                                                            for p in sphere]), None),
        "plane perturbed by 1e-15": (PowerDiagram.voronoi([[F(rng.randint(0, 4)), F(rng.randint(0, 4)),
                                                            F(1e-15) * rng.choice([-1, 0, 1])] for _ in range(10)]),
                                     None),
        "lattice perturbed by 2^-60 (4-D)": (PowerDiagram.voronoi([[F(rng.randint(0, 2)) + eps * rng.choice([-1, 1])
                                                                    for _ in range(4)] for _ in range(9)]), None),
        "coplanar subset": (PowerDiagram(rand[:8] + [[F(i), F(j), F(0)] for i in range(3) for j in range(3)],
                                         [0] * 17), None),
        "duplicates": (PowerDiagram(rand[:8] + rand[:8] + rand[2:5], [F(rng.randint(0, 3)) for _ in range(19)]),
                       "simplicial"),
        "beyond int64": (PowerDiagram([[int(x * 97) * 2 ** 70 + rng.randint(0, 5) for x in p] for p in rand],
                                      [rng.randint(0, 2 ** 150) for _ in rand]), "simplicial"),
        "huge (1e150)": (PowerDiagram([[x * 10 ** 150 for x in p] for p in rand], [0] * 14), "simplicial"),
        "tiny (1e-150)": (PowerDiagram([[x / 10 ** 150 for x in p] for p in rand], [0] * 14), "simplicial"),
        "huge floats (1e300)": (PowerDiagram([[float(x) * 1e300 for x in p] for p in rand[:7]], [0.0] * 7), None),
        "weights hide almost all": (PowerDiagram(rand, [F(10 ** 6)] * 5 + [F(rng.randint(0, 99)) for _ in range(9)]),
                                    "simplicial"),
        "hidden sites on facets, ridges, edges": (_on_hull_faces(rng, 3, 12, 10), "simplicial"),
        "hidden sites on faces (4-D)": (_on_hull_faces(rng, 4, 10, 6), "simplicial"),
        "flat: sites on a plane in R^3": (PowerDiagram([p + [F(0)] for p in flat], [F(rng.randint(0, 5)) for _ in flat]),
                                          "general"),
        "flat: tilted plane, thirds": (PowerDiagram([[x / 3, y / 3, (x + y + 1) / 3] for x, y in flat],
                                                    [F(rng.randint(0, 5)) for _ in flat]), "general"),
        "random (5-D)": (PowerDiagram([[F(rng.randint(-99, 99), 7) for _ in range(5)] for _ in range(11)],
                                      [F(rng.randint(0, 99), 10) for _ in range(11)]), "simplicial"),
    }


@pytest.mark.parametrize("name", list(_cases()))
def test_fast_path_on_adversarial_inputs(name):
    pd, kernel = _cases()[name]
    used = _strict_check(pd)
    assert kernel is None or used == kernel, used


def test_hidden_sites_on_the_hull_are_hidden_and_tie_on_whole_walls():
    pd = _on_hull_faces(random.Random(2), 3, 12, 10)
    assert set(range(12, 22)) <= set(pd.hidden)                    # on (or just below) a face: never a vertex
    ties = {j for c in pd.cells() if c is not None for p in c.facet_points for j in pd.locate_all(p)}
    assert ties & set(range(12, 22))                                # some lie on a wall's whole relative interior
    _strict_check(pd)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([3, 3, 4]).flatmap(lambda d: st.integers(d + 2, 11).flatmap(lambda n: st.tuples(
    st.lists(st.lists(st.integers(-2, 2).map(F), min_size=d, max_size=d), min_size=n, max_size=n),
    st.lists(st.integers(0, 8).map(lambda w: F(w, 2)), min_size=n, max_size=n)))))
def test_fast_path_property_on_small_lattices(sw):
    _strict_check(PowerDiagram(*sw))


# ---------------------------------------------------------------- each step of the certificate is needed
def _upper(X, idx):
    qh = ConvexHull(X[idx])
    up = qh.equations[:, -2] > 0                                      # the normal's height coordinate
    return np.asarray(idx)[qh.simplices[up]], qh.equations[up]


def test_certificate_refuses_a_double_cover():
    """The upper hull of all points plus that of the cube's corners: a degree-2 covering.

    Ridges pair up, boundary ridges lie on the cube, both layers are concave and every other point
    lies below: only the degree-one check (one centroid in one simplex) refuses it.
    """
    rng = random.Random(1)
    corners = list(itertools.product((0, 8), repeat=3))
    faces = []
    for ax, v in itertools.product(range(3), (0, 8)):
        p = [rng.randint(2, 6) for _ in range(3)]
        p[ax] = v
        faces.append(tuple(p))
    inner = [tuple(rng.randint(1, 7) for _ in range(3)) for _ in range(6)]
    pts = corners + faces + inner
    P = [p + (-10 * sum((c - 4) ** 2 for c in p) + rng.randint(0, 300) + (400 if i >= 8 else 0),)
         for i, p in enumerate(pts)]
    assert lifted.certified_upper_simplices(P, 3) is not None

    def proposal(X, options=None):
        S1, E1 = _upper(X, list(range(len(X))))
        S2, E2 = _upper(X, list(range(8)))
        return np.concatenate([S1, S2]), np.concatenate([E1, E2])

    assert lifted._certified_upper_simplices(P, 3, propose=proposal) is None
    no_degree_check = lifted._certified_upper_simplices(P, 3, propose=proposal, degree_one=lambda V, S, d: True)
    assert no_degree_check is not None                               # so the check above is the one needed


def test_certificate_refuses_a_proposal_missing_a_corner_of_the_hull():
    """A far corner lifted so low that it lies below every (extended) proposed hyperplane.

    Step 4 alone would accept it as hidden; the boundary ridges of the proposal are not on the
    boundary of ``conv{a_j}``, which refuses it.  A corner of ``conv{a_j}`` is never hidden.
    """
    rng = random.Random(3)
    pts = list(dict.fromkeys((rng.randint(-9, 9), rng.randint(-9, 9), rng.randint(-9, 9)) for _ in range(25)))
    P = [p + (rng.randint(0, 50),) for p in pts] + [(30, 30, 30, -10 ** 6)]
    honest = lifted.certified_upper_simplices(P, 3)
    assert len(P) - 1 in set(honest.simplices.ravel().tolist())

    def proposal(X, options=None):
        return _upper(X, list(range(len(X) - 1)))

    assert lifted._certified_upper_simplices(P, 3, propose=proposal) is None


def test_certificate_refuses_a_proposal_that_drops_a_point_above():
    """An upper vertex left out of the proposal lies above the surface: step 4 refuses it."""
    rng = random.Random(4)
    P = [(rng.randint(-9, 9), rng.randint(-9, 9), rng.randint(-9, 9), rng.randint(0, 50)) for _ in range(25)]
    P = list({p[:3]: p for p in P}.values()) + [(0, 0, 0, 10 ** 4)]       # a peak in the middle
    assert lifted.certified_upper_simplices(P, 3) is not None

    def proposal(X, options=None):
        return _upper(X, list(range(len(X) - 1)))

    assert lifted._certified_upper_simplices(P, 3, propose=proposal) is None


@pytest.mark.parametrize("d", [2, 3])
@pytest.mark.slow
def test_heights_near_the_top_of_the_float_range(d):
    """Scores ~1e307: their float sums overflow; Qhull sees the columns scaled by powers of two."""
    rng = random.Random(7)
    slopes = [[rng.randint(-50, 50) for _ in range(d)] for _ in range(16)]
    pd = PowerDiagram.from_max_affine(slopes, [6 * 10 ** 307 + rng.randint(0, 10 ** 305) for _ in slopes])
    with warnings.catch_warnings():
        warnings.simplefilter("error")                     # no overflow warnings on the way
        if d == 2:
            with counting() as count:
                pd.cells()
            assert count.by_place["certified:power.planar"] == 1
            _strict_check(pd)
        else:
            assert _strict_check(pd) == "simplicial"
