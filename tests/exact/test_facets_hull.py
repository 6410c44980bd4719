"""The Qhull facet step of small polyhedra (d = 2..6) against the exact path, on random and degenerate input.

``small_facets`` past ``facets_max_subsets`` takes one Qhull run on the polar and certifies
its claim in integers (a point per facet, a cone certificate per dropped row).  Forced here for
every size (``facets_max_subsets=0``), it must give the same half-spaces as
``integer_facets`` (Qhull's halfspace intersection, NNLS and LPs: no shared certificate code),
and every facet point is checked again here by plain integer arithmetic.
"""

import math
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tropattn import config
from tropattn.attention import random_model
from tropattn.exact import counting, homogeneous_point, integer_facets
from tropattn.exact._facets_batch import _float_products, _surely_negative, small_facets
from tropattn.regions import enumerate_regions

coord = st.fractions(-3, 3, max_denominator=4)


def _primitive(a, b):
    den = math.lcm(*(Fraction(v).denominator for v in (*a, b)))
    r = [int(v * den) for v in (*a, b)]
    g = math.gcd(*r)
    return tuple(v // g for v in r)


@st.composite
def polyhedra(draw, dims=(2, 3, 4, 5, 6)):
    """Rows strictly satisfied at p: generic, through shared points, repeated, parallel, thin, scaled, cylinders."""
    d = draw(st.sampled_from(dims))
    p = tuple(draw(coord) for _ in range(d))
    shared = draw(st.lists(st.tuples(*[coord] * d), min_size=1, max_size=2))
    cylinder = draw(st.sampled_from([False, False, False, True]))   # every normal has a_d = 0: a lineality line
    scale = draw(st.sampled_from([1, 1, 1, 10 ** 12, Fraction(1, 10 ** 9)]))
    rows = []
    for kind in draw(st.lists(st.sampled_from("ggvvvcrpt"), min_size=1, max_size=16)):
        a = [draw(st.integers(-4, 4)) for _ in range(d)]
        if cylinder:
            a[-1] = 0
        if not any(a):
            a[0] = 1
        ap = sum(x * y for x, y in zip(a, p))
        if kind == "g":
            a = [v * scale for v in a]
            b = sum(x * y for x, y in zip(a, p)) + draw(st.fractions(Fraction(1, 8), 6))
        elif kind in "vc":                                         # through a shared point: degenerate vertices,
            v = draw(st.sampled_from(shared))                      # or ("c") a cut 2^-60 short of it: a facet far
            av = sum(x * y for x, y in zip(a, v))                  # below float resolution, if any
            if av == ap:
                continue
            if av < ap:
                a, av = [-x for x in a], -av
            b = av if kind == "v" else av - Fraction(1, 2 ** 60)
        elif kind == "r" and rows:                                 # the same half-space again
            rows.append(rows[draw(st.integers(0, len(rows) - 1))])
            continue
        elif kind == "p" and rows:                                 # parallel to an earlier row, looser or tighter
            a = list(rows[draw(st.integers(0, len(rows) - 1))][:-1])
            b = sum(x * y for x, y in zip(a, p)) + draw(st.fractions(Fraction(1, 8), 6))
        else:                                                      # a thin slab: p 2^-40 from the wall
            b = ap + Fraction(1, 2 ** 40)
        rows.append(_primitive(a, b))
    if not rows:
        rows = [_primitive([1] + [0] * (d - 1), p[0] + 1)]
    return rows, p


def _check_points(rows, keep, points):
    for i in keep:
        N, E = points[i]
        assert E > 0
        for r in rows:
            s = sum(x * y for x, y in zip(r[:-1], N)) - r[-1] * E
            assert s == 0 if r == rows[i] else s < 0, (i, r)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polyhedra())
def test_the_qhull_facet_step_equals_the_exact_path(case):
    rows, p = case
    X, D = homogeneous_point(p)
    ref = integer_facets(rows, p)
    with config.override(facets_max_subsets=0), counting() as scope:
        out = small_facets(rows, X, D)
    places = scope.snapshot()["by_place"]
    assert places.get("certified:facets_batch", 0) + places.get("declined:facets_batch", 0) == 1
    if out is None:          # declined (counted): the exact path answers, nothing is guessed
        return
    keep, points = out
    assert {rows[i] for i in keep} == {rows[i] for i in ref.rows}          # the same half-spaces
    assert len(keep) == len({rows[i] for i in keep})                       # one index per half-space
    _check_points(rows, keep, points)


@pytest.mark.slow
@settings(max_examples=240, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(polyhedra())
def test_the_qhull_facet_step_equals_the_exact_path_on_240_cases(case):
    test_the_qhull_facet_step_equals_the_exact_path.hypothesis.inner_test(case)


@settings(max_examples=60, deadline=None)
@given(polyhedra(dims=(3, 4)))
def test_the_subset_enumeration_agrees_with_the_qhull_step(case):
    rows, p = case
    X, D = homogeneous_point(p)
    with config.override(facets_max_subsets=10 ** 9):
        subsets = small_facets(rows, X, D)
    with config.override(facets_max_subsets=0):
        hull = small_facets(rows, X, D)
    if subsets is not None and hull is not None:
        assert {rows[i] for i in subsets[0]} == {rows[i] for i in hull[0]}


def test_a_cube_with_implied_rows_and_a_cut_corner():
    rows = [(1, 0, 0, 1), (-1, 0, 0, 0), (0, 1, 0, 1), (0, -1, 0, 0), (0, 0, 1, 1), (0, 0, -1, 0),
            (1, 1, 1, 3),                # touches the cube at the corner (1, 1, 1) only: implied
            (1, 1, 0, 2),                # touches along an edge: implied
            (2, 0, 0, 3),                # parallel and looser: implied
            (1, 1, 1, 5, )]              # far away: implied
    with config.override(facets_max_subsets=0), counting() as scope:
        keep, points = small_facets(rows, (1, 1, 1), 2)
    assert keep == (0, 1, 2, 3, 4, 5)
    assert scope.snapshot()["by_place"] == {"certified:facets_batch": 1}
    _check_points(rows, keep, points)
    with config.override(facets_max_subsets=0):       # the corner cut off: (1, 1, 1) is no longer in the cube
        keep, _ = small_facets(rows[:6] + [(1, 1, 1, 2)], (1, 1, 1), 3)
    assert keep == (0, 1, 2, 3, 4, 5, 6)


def test_a_corner_cut_far_below_float_resolution_is_a_facet():
    big = 10 ** 20          # x + y + z <= 3 - 10^-20: floats see it touch the corner (1, 1, 1), exactly it cuts
    rows = [(1, 0, 0, 1), (-1, 0, 0, 0), (0, 1, 0, 1), (0, -1, 0, 0), (0, 0, 1, 1), (0, 0, -1, 0),
            (big, big, big, 3 * big - 1)]
    with config.override(facets_max_subsets=0):
        keep, points = small_facets(rows, (1, 1, 1), 2)
    assert keep == (0, 1, 2, 3, 4, 5, 6)
    _check_points(rows, keep, points)
    with config.override(facets_max_subsets=0):       # and touching exactly, it is implied
        keep, _ = small_facets(rows[:6] + [(1, 1, 1, 3)], (1, 1, 1), 2)
    assert keep == (0, 1, 2, 3, 4, 5)


def test_a_point_just_inside_a_wall_moves_the_polar_and_still_certifies():
    eps = 2 ** 40          # (1/2, 1/2, 1/2^40 + ...) sits 2^-40 above the floor z = 0 of a unit cube
    rows = [(1, 0, 0, 1), (-1, 0, 0, 0), (0, 1, 0, 1), (0, -1, 0, 0), (0, 0, 1, 1), (0, 0, -1, 0), (1, 1, 1, 4)]
    with config.override(facets_max_subsets=0), counting() as scope:
        keep, points = small_facets(rows, (eps, eps, 1), 2 * eps)
    assert keep == (0, 1, 2, 3, 4, 5)
    assert scope.snapshot()["by_place"] == {"certified:facets_batch": 1}
    _check_points(rows, keep, points)


def test_the_knob_leaves_big_polyhedra_to_the_exact_path():
    rows = [(1, 0, 0, 1), (-1, 0, 0, 1), (0, 1, 0, 1), (0, -1, 0, 1), (0, 0, 1, 1), (0, 0, -1, 1)]
    with config.override(facets_max_subsets=0, facets_hull=0), counting() as scope:
        assert small_facets(rows, (0, 0, 0), 1) is None
    assert scope.snapshot()["by_place"] == {"declined:facets_batch": 1}


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), d=st.sampled_from([3, 4]))
def test_region_searches_agree_with_the_exact_facet_path(seed, d):
    model = random_model(d, 3, 4, 2, seed=seed)
    with config.override(facets_max_subsets=0):
        fast = enumerate_regions(model, box=(-2, 2), progress=False)
    with config.override(facets_max_subsets=0, facets_hull=0):
        exact = enumerate_regions(model, box=(-2, 2), progress=False)
    # the same regions with the same facets (their order may differ: other facet points start other crossings)
    assert sorted((r.pattern, r.integer_rows) for r in fast.activation_regions) == \
        sorted((r.pattern, r.integer_rows) for r in exact.activation_regions)
    assert fast.n_linear == exact.n_linear
    assert fast.counters["by_place"].get("certified:facets_batch", 0) > 0


big_int = st.one_of(st.integers(-5, 5), st.integers(-(2 ** 80), 2 ** 80), st.integers(-(2 ** 1000), 2 ** 1000))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(big_int, min_size=4, max_size=4), min_size=1, max_size=5),
       st.lists(st.lists(big_int, min_size=4, max_size=4), min_size=1, max_size=4), st.integers(-2, 2))
def test_the_float_sign_filter_never_decides_wrongly(rows, points, nudge):
    """Rows (a, b) against points (N, E): where the filter decides, its sign is the integers' sign."""
    rows = [tuple(r) for r in rows]
    points = [(tuple(p[:3]), p[3]) for p in points]
    for (a0, a1, a2, b), (t1, t2) in zip(rows, [(p[0][0], p[0][1]) for p in points]):
        if a0:   # on the row's plane, then nudged: a . N - b E = a0 * nudge, far below the terms' size
            points.append(((b - a1 * t1 - a2 * t2 + nudge, a0 * t1, a0 * t2), a0))
    exact = [[sum(x * y for x, y in zip(r[:-1], N)) - r[-1] * E for (N, E) in points] for r in rows]
    P = [N + (E,) for N, E in points]
    sure = _surely_negative(rows, P)
    found = _float_products(rows, P)
    if sure is None:
        assert found is None
        return
    T, B = found
    for j in range(len(rows)):
        for c in range(len(points)):
            assert not sure[j, c] or exact[j][c] < 0
            if abs(T[j, c]) > B[j, c]:
                assert exact[j][c] != 0 and (exact[j][c] > 0) == (T[j, c] > 0)
