"""Hulls of rational points with big denominators (the multi-modular minors) against a brute-force oracle.

The oracle (:mod:`oracles.hull`) shares nothing with tropattn: Fractions and its own elimination.
Denominators near ``2^13`` (and multiples of the first modular prime, whose pivots have no
inverse modulo it) send the facet normals through the primes and the Chinese remainder
theorem; small ones through the float and wrapped images.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oracles.hull import oracle_facets, oracle_vertices, oracle_vertices_from_facets, rank

from tropattn import config
from tropattn.exact._linalg import _crt, _eliminated_minors_mod, _minors_mod, _prime_list, maximal_minors, modular_minors
from tropattn.geometry import convex_hull

FIRST_PRIME = 536870909  # the largest prime below 2^29: the first modulus of modular_minors


# ------------------------------------------------------------------ inputs
denominators = st.one_of(st.sampled_from([1, 2, 3, FIRST_PRIME, 2 * FIRST_PRIME]),
                         st.integers(2 ** 12, 2 ** 14))


@st.composite
def rational_points(draw, d):
    """Random rationals in [-1, 1]^d with big denominators, plus duplicates and coplanar points."""
    n = draw(st.integers(d + 1, 8))
    pts = []
    for _ in range(n):
        p = []
        for _ in range(d):
            q = draw(denominators)
            p.append(Fraction(draw(st.integers(-q, q)), q))
        pts.append(tuple(p))
    extra = draw(st.lists(st.tuples(st.sampled_from(["dup", "mid", "centroid"]),
                                    st.lists(st.integers(0, n - 1), min_size=3, max_size=3)), max_size=3))
    for kind, (i, j, k) in extra:
        if kind == "dup":
            pts.append(pts[i])
        elif kind == "mid":  # on the segment: on a facet when the segment is an edge
            pts.append(tuple((a + b) / 2 for a, b in zip(pts[i], pts[j])))
        else:  # in the plane of three points: on a facet when they span one
            pts.append(tuple((a + b + c) / 3 for a, b, c in zip(pts[i], pts[j], pts[k])))
    return pts


KNOBS = [{}, {"hull_local_entries": 0, "hull_inside_filter_entries": -1}]  # the global and the local certificate


@pytest.mark.parametrize("knobs", KNOBS, ids=["default", "local"])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), d=st.sampled_from([3, 4]))
def test_rational_hulls_match_the_brute_force_oracle(knobs, data, d):
    pts = data.draw(rational_points(d))
    facets = oracle_facets(pts)
    if not facets or rank([[a - b for a, b in zip(p, pts[0])] for p in pts]) < d:
        return  # lower-dimensional: test_flat_rational_hull covers those
    with config.override(**knobs):
        P = convex_hull(pts)
    assert set(P.facets) == facets
    assert set(P.vertices) == oracle_vertices_from_facets(pts, facets)


def test_flat_rational_hull():
    """Points on a plane of R^3 with big denominators: the vertices by Caratheodory."""
    rng = np.random.default_rng(3)
    pts = []
    for _ in range(9):
        q = [int(v) for v in rng.integers(2 ** 12, 2 ** 14, size=2)]
        x, y = Fraction(int(rng.integers(-q[0], q[0])), q[0]), Fraction(int(rng.integers(-q[1], q[1])), q[1])
        pts.append((x, y, (x + 2 * y) / 3 - Fraction(1, FIRST_PRIME)))
    P = convex_hull(pts)
    assert P.dim == 2 and set(P.vertices) == oracle_vertices(pts)


def test_big_denominator_cube_against_the_oracle_vertices():
    """A cube's corners with big denominators, its face centres and a duplicate: 8 vertices, 6 facets."""
    q = FIRST_PRIME * 3
    corners = [tuple(Fraction(s * (q - 1), q) for s in signs) for signs in itertools.product([-1, 1], repeat=3)]
    centres = [tuple(Fraction(s * (q - 1), q) if i == j else Fraction(0) for j in range(3))
               for i in range(3) for s in (-1, 1)]
    pts = corners + centres + [corners[0], (Fraction(1, 7), Fraction(-1, 9), Fraction(0))]
    P = convex_hull(pts)
    assert set(P.vertices) == set(corners) and set(P.facets) == oracle_facets(pts)


# ------------------------------------------------------------------ the kernels themselves
@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 7), data=st.data())
def test_eliminated_residues_equal_the_full_expansion(k, data):
    """Minors modulo p from the eliminated rows, pivots zero modulo p included."""
    p = data.draw(st.sampled_from([7, 101, FIRST_PRIME]))
    rows = data.draw(st.lists(st.lists(st.lists(st.integers(0, p - 1), min_size=k + 1, max_size=k + 1),
                                       min_size=k, max_size=k), min_size=1, max_size=6))
    R = np.array(rows, dtype=np.int64)
    zero = data.draw(st.lists(st.booleans(), min_size=len(R), max_size=len(R)))
    R[np.array(zero), 0, -1] = 0
    assert _eliminated_minors_mod(R, p).tolist() == _minors_mod(R, p).tolist()


@settings(max_examples=60, deadline=None)
@given(k=st.integers(2, 6), data=st.data())
def test_modular_minors_of_homogeneous_rows(k, data):
    """Big homogeneous rows whose last entries are multiples of the first primes (no inverse there)."""
    primes = _prime_list()
    den = st.one_of(st.integers(1, 2 ** 62), st.sampled_from([primes[0], primes[1] * 5, primes[0] * primes[2]]))
    S = np.array(data.draw(st.lists(st.lists(st.tuples(*[st.integers(-2 ** 62, 2 ** 62)] * k, den).map(list),
                                             min_size=k, max_size=k), min_size=1, max_size=5)), dtype=object)
    bits = k * (2 ** 62 * (k + 1)).bit_length() + 1
    assert modular_minors(S, bits).tolist() == maximal_minors(S).tolist()
    assert modular_minors(S.astype(object)[:0], bits).shape == (0, k + 1)


@pytest.mark.parametrize("count", [1, 2, 3, 14, 40])
def test_crt_at_the_ends_of_its_range(count):
    primes = list(_prime_list()[:count])
    M = math.prod(primes)
    values = [0, 1, -1, M // 2, -(M // 2), M // 3, -(M // 7), 12345]
    values = [v for v in values if abs(v) <= M // 2]
    residues = [np.array([v % p for v in values], dtype=np.int64).reshape(1, -1) for p in primes]
    assert _crt(residues, primes).ravel().tolist() == values


@pytest.mark.parametrize("rows", [1, 5, 511, 512, 513, 1500])
def test_largest_products_is_the_argmax(rows):
    """The cone guess of the local certificate: the argmax of the products, padding never chosen."""
    from tropattn.exact._hull._local import _largest_products

    rng = np.random.default_rng(rows)
    A = rng.standard_normal((37, 5)).astype(np.float32)
    B = rng.standard_normal((rows, 5)).astype(np.float32)
    got = _largest_products(A, B)
    want = np.argmax(A.astype(float) @ B.astype(float).T, axis=1)
    P = A.astype(float) @ B.astype(float).T
    assert got.max() < rows
    assert np.allclose(P[np.arange(len(A)), got], P[np.arange(len(A)), want], rtol=1e-5, atol=1e-5)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.one_of(st.fractions(max_denominator=10 ** 6), st.integers(-10 ** 20, 10 ** 20), st.booleans(),
                          st.integers(-2 ** 20, 2 ** 20).map(np.int64)), max_size=6))
def test_homogeneous_point_of_mixed_rationals(values):
    """One common denominator, the least: Fractions, ints, booleans and numpy ints alike."""
    from tropattn.exact import homogeneous_point

    nums, den = homogeneous_point(values)
    want = math.lcm(1, *(Fraction(int(v) if isinstance(v, np.integer) else v).denominator for v in values))
    assert den == want and all(type(a) is int or isinstance(a, np.integer) for a in nums)
    assert [Fraction(int(a), den) for a in nums] == [Fraction(int(v) if isinstance(v, np.integer) else v)
                                                     for v in values]
