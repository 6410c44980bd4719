"""Hulls of rational points with big denominators (the multi-modular minors) against a brute-force oracle.

The oracle below shares nothing with tropattn: Fractions and its own elimination.  A facet is
the hyperplane of ``d`` affinely independent points with every point on one side; a point of a
full-dimensional set is a vertex iff the facets through it have normals of rank ``d``; a point
of any set is a vertex iff it lies in the hull of no ``<= d + 1`` of the others (Caratheodory).
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

from tropattn import config
from tropattn.exact._linalg import _crt, _eliminated_minors_mod, _minors_mod, _prime_list, maximal_minors, modular_minors
from tropattn.geometry import convex_hull

FIRST_PRIME = 536870909  # the largest prime below 2^29: the first modulus of modular_minors


# ------------------------------------------------------------------ the oracle
def _reduce(rows):
    """Row echelon form of Fraction rows (a copy) and its rank."""
    m = [list(r) for r in rows]
    rank = 0
    for c in range(len(m[0]) if m else 0):
        piv = next((i for i in range(rank, len(m)) if m[i][c] != 0), None)
        if piv is None:
            continue
        m[rank], m[piv] = m[piv], m[rank]
        for i in range(len(m)):
            if i != rank and m[i][c] != 0:
                f = m[i][c] / m[rank][c]
                m[i] = [a - f * b for a, b in zip(m[i], m[rank])]
        rank += 1
    return m, rank


def _normal(points):
    """A nonzero vector orthogonal to the differences of ``points`` (d of them in R^d), or None."""
    d = len(points[0])
    diffs = [[a - b for a, b in zip(p, points[0])] for p in points[1:]]
    m, rank = _reduce(diffs)
    if rank != d - 1:
        return None
    pivots = [next(c for c in range(d) if row[c] != 0) for row in m[:rank]]
    free = next(c for c in range(d) if c not in pivots)
    a = [Fraction(0)] * d
    a[free] = Fraction(1)
    for row, c in zip(m[:rank], pivots):
        a[c] = -row[free] / row[c]
    return a


def _primitive(a):
    den = math.lcm(*(v.denominator for v in a))
    ints = [int(v * den) for v in a]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints)


def oracle_facets(points):
    """The facets ``(normal, offset)``, ``normal . x <= offset``, of a full-dimensional set."""
    pts = list(dict.fromkeys(points))
    d = len(pts[0])
    out = set()
    for sub in itertools.combinations(pts, d):
        a = _normal(sub)
        if a is None:
            continue
        b = sum(x * y for x, y in zip(a, sub[0]))
        side = [sum(x * y for x, y in zip(a, p)) - b for p in pts]
        if all(s <= 0 for s in side) or all(s >= 0 for s in side):
            sign = 1 if all(s <= 0 for s in side) else -1
            n = _primitive([sign * v for v in a])
            out.add((n, sum(x * y for x, y in zip(n, sub[0]))))
    return out


def oracle_vertices_from_facets(points, facets):
    d = len(points[0])
    verts = set()
    for p in set(points):
        through = [list(map(Fraction, n)) for n, c in facets if sum(x * y for x, y in zip(n, p)) == c]
        if through and _reduce(through)[1] == d:
            verts.add(p)
    return verts


def _in_hull_of(p, others):
    """Is ``p`` a convex combination of ``others`` (at most d + 1 points suffice)?"""
    d = len(p)
    for size in range(1, min(d + 1, len(others)) + 1):
        for sub in itertools.combinations(others, size):
            # sum_i l_i q_i = p, sum_i l_i = 1: the augmented system, solved exactly
            rows = [[q[c] for q in sub] + [p[c]] for c in range(d)] + [[Fraction(1)] * size + [Fraction(1)]]
            m, rank = _reduce(rows)
            if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in m):
                continue  # inconsistent
            coef = _reduce([row[:-1] for row in rows])[1]
            if coef < size:
                continue  # dependent subset: a smaller one is tried too
            lam = [Fraction(0)] * size
            for row in m[:rank]:
                c = next(c for c in range(size) if row[c] != 0)
                lam[c] = row[-1] / row[c]
            if all(v >= 0 for v in lam):
                return True
    return False


def oracle_vertices(points):
    pts = list(dict.fromkeys(points))
    return {p for p in pts if not _in_hull_of(p, [q for q in pts if q != p])}


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
    if not facets or _reduce([[a - b for a, b in zip(p, pts[0])] for p in pts])[1] < d:
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
