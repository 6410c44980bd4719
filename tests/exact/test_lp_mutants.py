"""The certified LP (exact/_lp.py) against oracles of its own: Fourier-Motzkin and vertex enumeration.

Every certificate is checked in Fractions here (a returned point strictly inside, a Farkas vector
that really proves infeasibility, an optimum equal to the best vertex with a valid dual), and the
counters say which path answered: the float LP on easy inputs, the exact simplex when the float
LP is made to fail.  Written where mutation testing (scripts/mutation.py lp) found gaps.
"""

import itertools
import random
from fractions import Fraction

import numpy as np
import pytest

from tropattn.errors import DegenerateInputError, InvalidInputError
from tropattn.exact import counting, exact_lp_max, interior_point, relative_interior_point
from tropattn.exact import _lp

F = Fraction


# ------------------------------------------------------------------ oracles (no tropattn code)

def dot(a, x):
    return sum(F(u) * F(v) for u, v in zip(a, x))


def fm_feasible(A, b):
    """Is ``{x : A x < b}`` nonempty?  Fourier-Motzkin elimination on strict inequalities."""
    rows = [([F(v) for v in a], F(bi)) for a, bi in zip(A, b)]
    d = len(A[0]) if A else 0
    for j in range(d):
        pos = [(a, bi) for a, bi in rows if a[j] > 0]
        neg = [(a, bi) for a, bi in rows if a[j] < 0]
        rows = [(a, bi) for a, bi in rows if a[j] == 0]
        for (p, bp), (q, bq) in itertools.product(pos, neg):
            s, t = -q[j], p[j]               # s p + t q has a zero in column j; both factors > 0
            rows.append(([s * u + t * v for u, v in zip(p, q)], s * bp + t * bq))
    return all(bi > 0 for _, bi in rows)


def eliminate_equations(A, b, E, f):
    """``{x : E x = f}`` as ``x = x0 + N z`` by Gauss-Jordan, and the strict rows in ``z``; None if inconsistent."""
    d = len(E[0])
    rows = [[F(v) for v in e] + [F(fi)] for e, fi in zip(E, f)]
    pivots, r = [], 0
    for c in range(d):
        p = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if p is None:
            continue
        rows[r], rows[p] = rows[p], rows[r]
        rows[r] = [v / rows[r][c] for v in rows[r]]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                rows[i] = [u - rows[i][c] * v for u, v in zip(rows[i], rows[r])]
        pivots.append(c)
        r += 1
    if any(all(v == 0 for v in row[:-1]) and row[-1] != 0 for row in rows):
        return None
    free = [c for c in range(d) if c not in pivots]
    x0 = [F(0)] * d
    for i, c in enumerate(pivots):
        x0[c] = rows[i][-1]
    N = []
    for fc in free:
        v = [F(0)] * d
        v[fc] = F(1)
        for i, c in enumerate(pivots):
            v[c] = -rows[i][fc]
        N.append(v)
    AN = [[dot(a, v) for v in N] for a in A]
    bN = [F(bi) - dot(a, x0) for a, bi in zip(A, b)]
    return x0, N, AN, bN


def rank(rows):
    M = [[F(v) for v in r] for r in rows]
    rk = 0
    for c in range(len(M[0]) if M else 0):
        p = next((i for i in range(rk, len(M)) if M[i][c] != 0), None)
        if p is None:
            continue
        M[rk], M[p] = M[p], M[rk]
        for i in range(rk + 1, len(M)):
            g = M[i][c] / M[rk][c]
            M[i] = [u - g * v for u, v in zip(M[i], M[rk])]
        rk += 1
    return rk


def assert_strictly_inside(A, b, x):
    assert all(dot(a, x) < bi for a, bi in zip(A, b)), (A, b, x)


def assert_farkas(A, b, y):
    assert len(y) == len(A)
    assert all(v >= 0 for v in y) and any(v > 0 for v in y), y
    d = len(A[0])
    assert all(sum(F(yi) * F(a[j]) for yi, a in zip(y, A)) == 0 for j in range(d)), y
    assert sum(F(yi) * F(bi) for yi, bi in zip(y, b)) <= 0, y


def solve_square(rows, rhs):
    """The unique solution of a square system in Fractions, or None."""
    n = len(rows)
    M = [[F(v) for v in r] + [F(h)] for r, h in zip(rows, rhs)]
    for c in range(n):
        p = next((i for i in range(c, n) if M[i][c] != 0), None)
        if p is None:
            return None
        M[c], M[p] = M[p], M[c]
        M[c] = [v / M[c][c] for v in M[c]]
        for i in range(n):
            if i != c and M[i][c] != 0:
                M[i] = [u - M[i][c] * v for u, v in zip(M[i], M[c])]
    return [M[i][-1] for i in range(n)]


def vertex_max(c, M, rhs):
    """``max c.z`` over ``M z <= rhs, z >= 0`` by enumerating the vertices (bounded programs)."""
    n = len(c)
    cons = [(list(r), F(h)) for r, h in zip(M, rhs)] + [([-int(i == j) for j in range(n)], F(0)) for i in range(n)]
    best = None
    for S in itertools.combinations(cons, n):
        z = solve_square([r for r, _ in S], [h for _, h in S])
        if z is None or any(dot(r, z) > h for r, h in cons):
            continue
        v = dot(c, z)
        best = v if best is None or v > best else best
    return best


def unbounded(c, M):
    """Is there a ray ``r >= 0, M r <= 0`` with ``c.r > 0``?  (Vertices of the cone cut by ``sum r = 1``.)"""
    n = len(c)
    cons = [(list(r), F(0)) for r in M] + [([-int(i == j) for j in range(n)], F(0)) for i in range(n)]
    for S in itertools.combinations(cons, n - 1):
        z = solve_square([r for r, _ in S] + [[1] * n], [h for _, h in S] + [1])
        if z is not None and all(dot(r, z) <= h for r, h in cons) and dot(c, z) > 0:
            return True
    return False


def random_system(rng, m, d, lo=-4, hi=4):
    A = [[rng.randint(lo, hi) for _ in range(d)] for _ in range(m)]
    b = [rng.randint(-6, 6) for _ in range(m)]
    return A, b


# ------------------------------------------------------------------ interior_point

@pytest.mark.parametrize("d", [1, 2, 3])
def test_interior_point_agrees_with_fourier_motzkin_and_its_certificates_hold(d):
    rng = random.Random(100 + d)
    seen = set()
    for _ in range(60):
        A, b = random_system(rng, rng.randint(1, 6), d)
        cert = interior_point(A, b)
        assert cert.feasible == fm_feasible(A, b), (A, b)
        assert (cert.point is None) != (cert.farkas is None)
        if cert.feasible:
            assert len(cert.point) == d and all(isinstance(v, Fraction) for v in cert.point)
            assert_strictly_inside(A, b, cert.point)
        else:
            assert_farkas(A, b, cert.farkas)
        seen.add(cert.feasible)
    assert seen == {True, False}


@pytest.mark.parametrize("d", [1, 2, 3])
def test_the_exact_simplex_alone_decides_and_certifies(d):
    """``_exact_strict`` on the primitive integer rows: the same answers, proved in Fractions."""
    rng = random.Random(200 + d)
    for _ in range(40):
        A, b = random_system(rng, rng.randint(1, 6), d)
        rows, zero_rows = _lp._int_system([[F(v) for v in a] for a in A], [F(v) for v in b])
        if not rows:
            continue
        kept = [i for i, _ in rows]
        cert = _lp._exact_strict(rows, d, len(A))
        assert cert.exact
        for i, r in rows:                                     # positive multiples of the caller's rows
            k = next(j for j, v in enumerate(A[i]) if v)
            s = F(r[k], A[i][k])
            assert s > 0 and list(r) == [s * v for v in A[i] + [b[i]]]
        sub_A, sub_b = [list(r[:-1]) for _, r in rows], [r[-1] for _, r in rows]
        assert cert.feasible == fm_feasible(sub_A, sub_b)
        if cert.feasible:
            assert_strictly_inside(sub_A, sub_b, cert.point)
        else:
            assert all(cert.farkas[i] == 0 for i, _ in zero_rows)
            assert_farkas(sub_A, sub_b, [cert.farkas[i] for i in kept])


def test_the_exact_simplex_caps_the_slack_at_one():
    """``max t : A x + t <= b, t <= 1`` on ``0 < x < 3`` (largest slack 3/2): a vertex with slack exactly 1."""
    rows, _ = _lp._int_system([[F(1)], [F(-1)]], [F(3), F(0)])
    cert = _lp._exact_strict(rows, 1, 2)
    assert cert.exact and cert.point in ((F(1),), (F(2),))
    assert min(3 - cert.point[0], cert.point[0]) == 1


@pytest.mark.parametrize("A,b", [
    ([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1]),        # a square
    ([[1, 1], [-1, 0], [0, -1]], [1, 0, 0]),                    # a triangle at the origin
    ([[1], [-1]], [F(1, 10 ** 6), 0]),                          # a thin interval
    ([[3, -7, 2]], [-5]),                                       # a half-space
])
def test_easy_feasible_systems_are_certified_by_the_float_lp(A, b):
    with counting() as c:
        cert = interior_point(A, b)
    assert cert.feasible and not cert.exact
    assert_strictly_inside(A, b, cert.point)
    assert (c.certified, c.fallbacks, c.exact_lps) == (1, 0, 0)


@pytest.mark.parametrize("A,b", [
    ([[1], [-1]], [0, 0]),                                      # x < 0 and x > 0
    ([[1, 0], [-1, 0], [0, 1]], [1, -1, 5]),                    # x < 1 and x > 1
    ([[1, 1], [-1, 0], [0, -1]], [-1, 0, 0]),                   # x + y < -1, x > 0, y > 0
    ([[2, 0], [-3, 0], [0, 1], [0, -1]], [4, -9, 1, 1]),        # 2 x < 4 and 3 x > 9
    ([[1, 2], [-1, -2]], [3, -3]),                              # a line: no interior
])
def test_easy_infeasible_systems_get_a_float_farkas_vector(A, b):
    with counting() as c:
        cert = interior_point(A, b)
    assert not cert.feasible and not cert.exact
    assert_farkas(A, b, cert.farkas)
    assert (c.certified, c.fallbacks, c.exact_lps) == (1, 0, 0)


def test_farkas_multipliers_are_in_the_callers_units():
    A = [[F(1, 3), 0], [-6, 0], [0, 10 ** 20]]
    b = [F(2, 3), -12, 1]                       # x < 2 and x > 2, rows scaled by 1/3 and 6
    cert = interior_point(A, b)
    assert_farkas(A, b, cert.farkas)
    assert cert.farkas[2] == 0 and cert.farkas[0] == 18 * cert.farkas[1]


def test_zero_rows():
    """``0 < rhs``: true rows are dropped, a false one is its own Farkas vector (whatever else there is)."""
    with counting() as c:
        cert = interior_point([[0, 0], [0, 0]], [1, 5])
    assert cert.point == (0, 0) and (c.certified, c.exact_lps) == (1, 0)
    for rhs in (0, -3):
        cert = interior_point([[1, 0], [0, 0], [0, 1], [0, 0]], [1, 2, 1, rhs])
        assert cert.farkas == (0, 0, 0, 1)
    cert = interior_point([[0, 0], [1, 0], [-1, 0]], [1, 0, 0])
    assert_farkas([[0, 0], [1, 0], [-1, 0]], [1, 0, 0], cert.farkas) and cert.farkas[0] == 0
    assert interior_point([], []).point == ()


def test_mismatched_lengths_are_refused():
    with pytest.raises(InvalidInputError, match="2 rows but b has 1"):
        interior_point([[1], [2]], [1])


#: Gaps far below HiGHS's tolerances (1e-7 on rows scaled to size 1): the float LP cannot tell, the simplex can.
SLIVERS = [([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, -1 + F(1, 10 ** 15), 1, 1], True),   # 1 - 1e-15 < x < 1
           ([[1], [-1]], [1, -1 - F(1, 10 ** 12)], False)]                            # x < 1 and x > 1 + 1e-12


@pytest.mark.parametrize("A,b,feasible", SLIVERS)
def test_when_the_float_lp_cannot_tell_the_exact_simplex_answers(A, b, feasible):
    with counting() as c:
        cert = interior_point(A, b)
    assert cert.exact and cert.feasible == feasible == fm_feasible(A, b)
    assert (c.certified, c.fallbacks, c.exact_lps) == (0, 1, 1)
    if feasible:
        assert_strictly_inside(A, b, cert.point)
    else:
        assert_farkas(A, b, cert.farkas)


def test_points_on_the_boundary_are_not_strictly_inside():
    rows, _ = _lp._int_system([[F(1), F(1)], [F(-1), F(0)]], [F(2), F(0)])      # x + y < 2, x > 0
    assert _lp._strictly_inside(rows, (F(1, 2), F(1, 2)))
    assert not _lp._strictly_inside(rows, (F(1), F(1)))                     # on x + y = 2
    assert not _lp._strictly_inside(rows, (F(0), F(1, 2)))                  # on x = 0
    assert not _lp._strictly_inside(rows, (F(3), F(0)))


def repair(A, b, y):
    """``_repair_farkas`` on the primitive rows of ``A x < b`` and the float multipliers ``y``."""
    rows, _ = _lp._int_system([[F(v) for v in a] for a in A], [F(v) for v in b])
    return _lp._repair_farkas(rows, np.asarray(y, dtype=float), len(A[0]), len(A))


@pytest.mark.parametrize("A,b,y,repaired", [
    ([[1], [-1], [1]], [0, 0, -1], [1, 1, 1], True),          # a two-dimensional kernel: projected, still >= 0
    ([[1], [-1], [1]], [0, 0, -1], [1, 1, 3], True),          # projected to (0, 2, 2): a zero entry is fine
    ([[1], [-1], [1]], [0, 0, -1], [1e-30, 1e-30, 3e-30], True),   # tiny multipliers (rows at 1e30)
    ([[1], [-1], [1]], [0, 0, -1], [1, 0.25, 3], False),      # projected to a negative entry: refused
    ([[1], [1]], [1, 2], [1, 1], False),                      # projected to zero: refused (feasible)
    ([[1, 0], [-1, 0], [0, 1]], [1, 1, 1], [1, 1, 0], False),  # y.A = 0 but y.b = 1 > 0: refused (feasible)
    ([[1], [-1]], [0, 0], [np.nan, 1], False),                # not finite
    ([[1], [-1]], [0, 0], [0, 0], False),                     # nothing positive
])
def test_float_duals_are_repaired_only_into_real_farkas_vectors(A, b, y, repaired):
    cert = repair(A, b, y)
    if repaired:
        assert_farkas(A, b, cert.farkas)
        assert not cert.exact
    else:
        assert cert is None


@pytest.mark.parametrize("s", [F(1, 10 ** 40), F(1), F(10 ** 40)])
def test_feasibility_is_decided_at_any_scale_without_the_simplex(s):
    A = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1]]
    for b, feasible in (([s, s, s, s, s], True), ([s, s, s, s, -3 * s], False), ([s, -s / 2, s, s, s], True)):
        with counting() as c:
            cert = interior_point(A, b)
        assert cert.feasible == feasible and c.fallbacks == 0
        if feasible:
            assert_strictly_inside(A, b, cert.point)
        else:
            assert_farkas(A, b, cert.farkas)


def test_thin_and_offset_boxes_get_simple_points():
    """The first rounding uses a denominator about 8 / margin: a box of width 2^-20 far from 0."""
    lo, w = F(10 ** 6) + F(1, 3), F(1, 2 ** 20)
    A, b = [[1, 0], [-1, 0], [0, 1], [0, -1]], [lo + w, -lo, lo + w, -lo]
    with counting() as c:
        cert = interior_point(A, b)
    assert_strictly_inside(A, b, cert.point) and c.fallbacks == 0
    assert all(v.denominator <= 2 ** 30 for v in cert.point)


# ------------------------------------------------------------------ candidate points

def test_candidate_points_are_distinct_roundings_simplest_first():
    xf = np.array([0.3, 1 / 3, -2.5])
    got = list(_lp._candidate_points(xf, 0.1))
    want = [tuple(F(float(v)).limit_denominator(80) for v in xf), tuple(F(float(v)) for v in xf)]
    assert got == want                                  # 2^20 and 2^40 give the first again: not repeated
    x = 1 / 8501                                        # its best approximations change between 8000 and 9000
    got = list(_lp._candidate_points(np.array([x]), 1e-3))
    assert F(x).limit_denominator(8000) != F(x).limit_denominator(9000)
    assert got == [(F(x).limit_denominator(8000),), (F(1, 8501),), (F(x),)]      # 2^20 and 2^40 agree: once
    pi = F(np.pi)                                       # pi's roundings differ at every cap, and at twice each
    assert len({pi.limit_denominator(q) for q in (8000, 2 ** 20, 2 ** 21, 2 ** 40, 2 ** 41)}) == 5
    assert list(_lp._candidate_points(np.array([np.pi]), 1e-3)) == [
        (pi.limit_denominator(q),) for q in (8000, 2 ** 20, 2 ** 40)] + [(pi,)]


def test_candidate_denominators_are_capped_and_huge_points_are_not_taken_as_floats():
    x = 3 * 2.0 ** -61                                   # a float whose denominator is 2^61
    got = list(_lp._candidate_points(np.array([x]), 1e-30))
    assert got[0] == (F(x).limit_denominator(2 ** 60),) and got[0] != (F(x),)
    assert got[-1] == (F(x),)
    got = list(_lp._candidate_points(np.array([0.4]), 100.0))
    assert got[0] == (F(1, 2),)                          # max(2, 8 / 100): at most 2 (3 would give 1/3)
    for big in (1e300, -2e300):                          # from 1e300 on: no exact float candidate
        assert list(_lp._candidate_points(np.array([big, 1 / 3]), 1.0)) == [(F(big), F(1, 3))]
    assert list(_lp._candidate_points(np.array([9e299, 1 / 3]), 1.0)) == [(F(9e299), F(1, 3)),
                                                                         (F(9e299), F(1 / 3))]
    assert list(_lp._candidate_points(np.array([0.5]), 1.0)) == [(F(1, 2),)] * 2      # the float is not deduplicated
    assert list(_lp._candidate_points(np.zeros(0), 1.0)) == [(), ()]


# ------------------------------------------------------------------ exact_lp_max

def check_lp(c, M, rhs):
    z, value, y = exact_lp_max(c, M, rhs)
    assert len(z) == len(c) and len(y) == len(M)
    assert all(v >= 0 for v in z) and all(dot(r, z) <= h for r, h in zip(M, rhs))
    assert dot(c, z) == value
    assert all(v >= 0 for v in y)
    assert all(sum(F(yi) * F(r[j]) for yi, r in zip(y, M)) >= c[j] for j in range(len(c)))
    assert dot(y, rhs) == value
    assert value == vertex_max(c, M, rhs)
    return z, value, y


def test_exact_lp_max_matches_the_best_vertex_with_an_optimal_dual():
    rng = random.Random(7)
    solved = 0
    for _ in range(80):
        n, m = rng.randint(1, 3), rng.randint(1, 4)
        c = [rng.randint(-3, 5) for _ in range(n)]
        M = [[rng.randint(-2, 4) for _ in range(n)] for _ in range(m)]
        rhs = [rng.randint(0, 5) for _ in range(m)]
        if unbounded(c, M):
            with pytest.raises(DegenerateInputError, match="unbounded"):
                exact_lp_max(c, M, rhs)
        else:
            check_lp(c, M, rhs)
            solved += 1
    assert solved > 30


def test_exact_lp_max_on_degenerate_programs():
    # Beale's example: cycles under the largest-coefficient rule; Bland's rule ends at 5/4
    c = [F(3, 4), -20, F(1, 2), -6]
    M = [[F(1, 4), -8, -1, 9], [F(1, 2), -12, F(-1, 2), 3], [0, 0, 1, 0]]
    z, value, _ = check_lp(c, M, [0, 0, 1])
    assert value == F(5, 4)
    # many constraints tight at the optimum (ties in the ratio test), and at z = 0
    check_lp([1, 1], [[1, 0], [0, 1], [1, 1], [2, 1], [1, 2]], [1, 1, 2, 3, 3])
    check_lp([1, 2, 3], [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0]], [0, 0, 0, 0, 0])
    check_lp([1, 1], [[1, -1], [-1, 1], [1, 1]], [0, 0, 4])
    check_lp([-1, -2], [[1, 1]], [3])                                    # optimum 0 at z = 0
    check_lp([0, 0], [[1, 1]], [3])
    check_lp([2, 3], [[F(1, 3), F(1, 7)], [F(5, 2), 1]], [F(2, 9), 4])    # fractions everywhere


def test_exact_lp_max_checks_its_preconditions():
    with pytest.raises(InvalidInputError, match=r"^exact_lp_max needs rhs >= 0 \(the zero vector must be feasible\)$"):
        exact_lp_max([1], [[1]], [-1])
    with pytest.raises(DegenerateInputError, match="^the linear program is unbounded$"):
        exact_lp_max([1, 1], [[1, -1]], [1])
    with pytest.raises(DegenerateInputError):
        exact_lp_max([0, 1], [[1, 0]], [1])


def test_exact_lp_max_counts_each_run():
    with counting() as c:
        exact_lp_max([1], [[1]], [1])
        exact_lp_max([1], [[2]], [1])
    assert c.exact_lps == 2


# ------------------------------------------------------------------ relative_interior_point

def check_relative(A, b, E, f):
    cert = relative_interior_point(A, b, E, f)
    reduced = eliminate_equations(A, b, E, f)
    if reduced is None:
        assert cert.farkas == ()
        return cert
    x0, N, AN, bN = reduced
    feasible = all(bi > 0 for bi in bN) if not N else fm_feasible(AN, bN)
    assert cert.feasible == feasible, (A, b, E, f)
    if feasible:
        x = cert.point
        assert len(x) == len(E[0])
        assert all(dot(e, x) == fi for e, fi in zip(E, f))
        assert_strictly_inside(A, b, x)
    else:
        y = cert.farkas
        assert len(y) == len(A) and all(v >= 0 for v in y) and any(v > 0 for v in y)
        yA = [sum(F(yi) * F(a[j]) for yi, a in zip(y, A)) for j in range(len(E[0]))]
        assert rank(list(E) + [yA]) == rank(E)                         # y^T A in the row space of E
        assert sum(F(yi) * (F(bi) - dot(a, x0)) for yi, a, bi in zip(y, A, b)) <= 0
    return cert


@pytest.mark.parametrize("d,k", [(2, 1), (3, 1), (3, 2)])
def test_relative_interior_points_against_elimination(d, k):
    rng = random.Random(300 + 10 * d + k)
    outcomes = set()
    for _ in range(40):
        A, b = random_system(rng, rng.randint(1, 5), d)
        E, f = random_system(rng, k, d, -2, 2)
        cert = check_relative(A, b, E, f)
        outcomes.add(cert.feasible)
    assert outcomes == {True, False}


def test_relative_interior_point_special_cases():
    # no equations: interior_point itself
    assert relative_interior_point([[1], [-1]], [1, 1], [], []).point == (0,)
    # inconsistent equations
    assert relative_interior_point([[1, 0]], [1], [[1, 1], [2, 2]], [1, 3]).farkas == ()
    # the equations fix a point: inside, or the first row it violates
    E, f = [[1, 0], [0, 1]], [1, 2]
    cert = relative_interior_point([[1, 1], [1, 0]], [4, 2], E, f)
    assert cert.point == (1, 2)
    cert = relative_interior_point([[1, 1], [1, 0], [0, 1]], [4, 1, 0], E, f)
    assert cert.farkas == (0, 1, 0)
    cert = relative_interior_point([[1, 1], [1, 0]], [3, 5], E, f)
    assert cert.farkas == (1, 0)
    # no strict rows: any solution of the equations
    cert = relative_interior_point([], [], [[1, -1, 0]], [3])
    assert cert.feasible and cert.point[0] - cert.point[1] == 3
    # a line through the square, and one that misses it
    sq_A, sq_b = [[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1]
    assert check_relative(sq_A, sq_b, [[1, 1]], [F(3, 2)]).feasible
    assert not check_relative(sq_A, sq_b, [[1, 1]], [2]).feasible        # touches the corner only
    assert not check_relative(sq_A, sq_b, [[1, 0]], [1]).feasible        # along an edge
    with counting() as c:
        cert = check_relative(sq_A, sq_b, [[1, -1]], [0])
    assert cert.feasible and not cert.exact and c.fallbacks == 0


def test_relative_interior_point_keeps_the_exact_flag():
    """A sliver ``1 - 1e-15 < x < 1`` on the line ``y = x / 2``: only the exact simplex finds it."""
    A, b, _ = SLIVERS[0]
    cert = check_relative(A, b, [[1, -2]], [0])
    assert cert.exact and cert.feasible
