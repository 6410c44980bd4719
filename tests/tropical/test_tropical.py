"""Tests of tropattn.tropical: evaluation, linear regions, products, dual subdivisions, parsing.

Every geometric answer is cross-checked against an independent computation: one exact LP
per term written here from scratch, the upper hull of the lifted points, brute-force tie
points, or plain arithmetic.
"""

import dataclasses
import itertools
import json
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tropattn import exact
from tropattn.errors import InvalidInputError, ModelFileError
from tropattn.geometry import minkowski_sum, upper_hull
from tropattn.tropical import (
    TropicalPolynomial,
    TropicalRationalFunction,
    TropicalRationalMap,
    common_refinement,
    dual_subdivision,
    hypersurface_cells,
    linear_regions,
    parse_polynomial,
    polynomial_from_json,
    polynomial_to_json,
    redundant_terms,
    tropical_add,
    tropical_mul,
)

CONIC = "3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y²"

# ----------------------------------------------------------------- strategies
small = st.integers(-3, 3)
rational = st.builds(Fraction, st.integers(-6, 6), st.sampled_from([1, 1, 2, 3]))


@st.composite
def polynomials(draw, dims=(1, 2, 3), max_terms=6, exponent=small):
    d = draw(st.sampled_from(dims))
    n = draw(st.integers(1, max_terms))
    exps = draw(st.lists(st.lists(exponent, min_size=d, max_size=d), min_size=n, max_size=n))
    coefs = draw(st.lists(rational, min_size=n, max_size=n))
    if n > 1 and draw(st.booleans()):  # sometimes an exact duplicate term
        exps.append(list(exps[0]))
        coefs.append(coefs[0])
    return TropicalPolynomial(exps, coefs)


def points(d):
    return st.lists(rational, min_size=d, max_size=d)


def brute_max(f, x):
    return max(sum(Fraction(a) * Fraction(v) for a, v in zip(alpha, x)) + c for alpha, c in f.terms)


def lp_region_terms(f):
    """Independent count: term j has a region iff {x : α_j·x + c_j > α_k·x + c_k, all other k} != ∅."""
    alive = set()
    for j, (aj, cj) in enumerate(f.terms):
        A = [[ak[i] - aj[i] for i in range(f.dim)] for ak, ck in f.terms if (ak, ck) != (aj, cj)]
        b = [cj - ck for ak, ck in f.terms if (ak, ck) != (aj, cj)]
        if not A or exact.interior_point(A, b).feasible:
            alive.add(j)
    return alive


def dot(a, x):
    return sum(u * v for u, v in zip(a, x))


# ----------------------------------------------------------------- scalars
def test_tropical_scalars():
    assert tropical_add(1, "5/2", -7) == Fraction(5, 2)
    assert tropical_add(float("-inf"), 3) == 3  # -inf is the neutral element of max
    assert tropical_mul("1/2", "1/3") == Fraction(5, 6)
    assert tropical_mul(4, float("-inf")) == exact.NEG_INF  # absorbing
    with pytest.raises(InvalidInputError):
        tropical_add(float("nan"))


# ----------------------------------------------------------------- evaluation
@settings(max_examples=60, deadline=None)
@given(st.data())
@pytest.mark.slow
def test_evaluate_is_max_over_terms(data):
    f = data.draw(polynomials())
    x = data.draw(points(f.dim))
    value = f.evaluate(x)
    assert value == brute_max(f, x) == f(x)
    top = f.argmax_terms(x)
    assert top and all(dot(f.exponents[i], x) + f.coefficients[i] == value for i in top)
    assert f.evaluate_float(np.array([float(v) for v in x])) == pytest.approx(float(value), abs=1e-9)


@settings(max_examples=30, deadline=None)
@given(polynomials(), st.integers(0, 2**32 - 1))
def test_evaluate_float_matches_exact_on_a_batch(f, seed):
    X = np.random.default_rng(seed).integers(-20, 21, size=(7, f.dim)) / 4  # exact binary fractions
    got = f.evaluate_float(X)
    assert got.shape == (7,)
    want = [float(f.evaluate([Fraction(v) for v in row])) for row in X]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_neg_inf_terms_are_dropped_and_bad_shapes_refused():
    f = TropicalPolynomial([[0], [1], [2]], [0, float("-inf"), -1])
    assert len(f) == 2 and f(5) == 9
    with pytest.raises(InvalidInputError, match="reshape"):
        f.evaluate_float(np.zeros((3, 2)))


# ----------------------------------------------------------------- linear regions
def check_regions(f, method="auto"):
    regions = f.linear_regions(method)
    alive = lp_region_terms(f)
    assert {i for r in regions for i in r.terms} == alive
    assert set(f.redundant_terms()) == set(range(len(f))) - alive
    assert len(regions) == len({f.terms[j] for j in alive})  # one region per distinct live term
    for r in regions:
        p = r.interior_point
        # the interior point makes the region's term the unique max (up to identical copies)
        assert set(f.argmax_terms(p)) == set(r.terms)
        assert all(dot(a, p) < bi for a, bi in zip(r.A, r.b))
        for i, (k, q) in enumerate(zip(r.neighbors, r.facet_points)):
            # on the facet the region's term and its neighbour tie; any other term tying there has
            # the same wall (its lifted point lies on the segment between theirs), and the row is tight
            tied = set(f.argmax_terms(q))
            assert {r.term, k} <= tied
            for t in tied - set(r.terms):
                row = [u - v for u, v in zip(f.exponents[t], f.exponents[r.term])]
                assert exact.integer_row(row + [f.coefficients[r.term] - f.coefficients[t]]) == \
                    exact.integer_row(list(r.A[i]) + [r.b[i]])
            assert dot(r.A[i], q) == r.b[i]
            assert all(dot(a, q) < bi for m, (a, bi) in enumerate(zip(r.A, r.b)) if m != i)
            assert r.term in next(s for s in regions if s.term == k).neighbors  # adjacency is symmetric
    return regions


@settings(max_examples=60, deadline=None)
@given(polynomials())
@pytest.mark.slow
def test_regions_agree_with_one_lp_per_term(f):
    check_regions(f)


@st.composite
def flat_polynomials(draw):
    """Lower-dimensional Newton polytopes: exponents ``M β`` for a k-variate polynomial, k < d."""
    g = draw(polynomials(dims=(1, 2), max_terms=6))
    d = draw(st.integers(g.dim + 1, 3))
    M = draw(st.lists(st.lists(small, min_size=g.dim, max_size=g.dim), min_size=d, max_size=d))
    exps = [[sum(m * e for m, e in zip(row, beta)) for row in M] for beta in g.exponents]
    return TropicalPolynomial(exps, g.coefficients)


@st.composite
def products(draw):
    """Products: many coplanar lifted points (whole faces of a Minkowski sum) and duplicates."""
    d = draw(st.sampled_from([1, 2, 3]))
    factors = draw(st.lists(polynomials(dims=(d,), max_terms=3), min_size=2, max_size=3))
    f = factors[0]
    for g in factors[1:]:
        f = f * g
    return f


def region_walls(regions):
    return [(r.term, r.terms, r.A, r.b, r.neighbors) for r in regions]


@settings(max_examples=80, deadline=None)
@given(st.one_of(polynomials(max_terms=8), flat_polynomials(), products()))
@pytest.mark.slow
def test_hull_and_search_methods_give_identical_regions(f):
    hull = check_regions(f, "hull")       # each also checked against one exact LP per term
    search = check_regions(f, "search")
    assert region_walls(hull) == region_walls(search)
    assert f.linear_regions() is hull      # "auto" is the hull method (and is cached)


def test_region_method_is_checked():
    with pytest.raises(InvalidInputError, match="search"):
        parse_polynomial("max(0, x)").linear_regions("fast")


def test_generic_line_arrangement_has_one_region_per_cell():
    # sum_i max(0, x + i y + i^3) for i = 1..6: six lines, pairwise non-parallel (slopes differ) and no
    # three concurrent (the 3x3 determinant is (j-i)(k-i)(k-j)(i+j+k) != 0), so the arrangement has
    # 1 + 6 + C(6, 2) = 22 cells.  The 64 terms (one per subset) are distinct affine functions, and
    # adjacent cells carry different terms, so every cell is a linear region of the product.
    f = TropicalPolynomial([[0, 0]], [0])
    for i in range(1, 7):
        f = f * TropicalPolynomial([[0, 0], [1, i]], [0, i ** 3])
    assert len(f) == 64 and len(set(f.terms)) == 64
    hull = check_regions(f, "hull")
    assert len(hull) == 22 and len(f.redundant_terms()) == 64 - 22
    assert region_walls(hull) == region_walls(f.linear_regions("search"))


@settings(max_examples=40, deadline=None)
@given(polynomials(dims=(1, 2, 3)))
def test_regions_agree_with_upper_hull_vertices(f):
    hull = upper_hull(f.lifted_points())
    assert tuple(r.term for r in f.linear_regions()) == hull.vertices


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_every_point_lies_in_a_region_of_an_argmax_term(data):
    f = data.draw(polynomials())
    x = data.draw(points(f.dim))
    holding = [r for r in f.linear_regions() if r.contains(x)]
    assert holding and all(r.term in f.argmax_terms(x) for r in holding)


def test_relu_has_two_regions():
    regions = linear_regions(parse_polynomial("max(0, x)"))
    assert [r.term for r in regions] == [0, 1]
    assert regions[0].contains([-1]) and regions[1].contains([1])


def test_redundant_terms_example():
    # lifted points (0,0), (1,0), (2,0), (1/2,-5): (1,0) lies on the segment from (0,0) to (2,0)
    # and (1/2,-5) lies below it, so only 0 and 2x are upper vertices.
    f = parse_polynomial("max(0, x, 2*x, 1/2*x - 5)")
    assert redundant_terms(f) == (1, 3)
    assert f.simplify() == parse_polynomial("max(0, 2*x)")


def test_duplicates_are_not_redundant_and_share_a_region():
    f = parse_polynomial("max(0, x, 0, x - 1)")
    assert f.redundant_terms() == (3,)
    assert [r.terms for r in f.linear_regions()] == [(0, 2), (1,)]


def test_lineality_regions_are_unbounded_slabs():
    # Newt is a segment in R^3, so the regions are {x + y < 0}, {0 < x + y < 1}, {x + y > 1} times R
    f = parse_polynomial("max(0, x + y, 2*x + 2*y - 1)", variables=("x", "y", "z"))
    regions = check_regions(f)
    assert len(regions) == 3
    assert [len(r.A) for r in regions] == [1, 2, 1]
    assert all(row[2] == 0 for r in regions for row in r.A)  # z is a lineality direction


def test_single_term_is_everything():
    (r,) = parse_polynomial("x - y + 1").linear_regions()
    assert r.A == () and r.neighbors == () and len(r.interior_point) == 2


# ----------------------------------------------------------------- products
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_product_is_sum_and_regions_are_common_refinement(data):
    f = data.draw(polynomials(dims=(2,), max_terms=4))
    g = data.draw(polynomials(dims=(2,), max_terms=4))
    x = data.draw(points(2))
    fg = f * g
    assert fg(x) == f(x) + g(x)
    assert (f + g)(x) == max(f(x), g(x))
    # realisable pairs: a region of f meets a region of g in an open set (one exact LP each)
    pairs = set()
    for rf in f.linear_regions():
        for rg in g.linear_regions():
            A, b = list(rf.A) + list(rg.A), list(rf.b) + list(rg.b)
            if not A or exact.interior_point(A, b).feasible:
                pairs.add((rf.term, rg.term))
    assert len(fg.linear_regions()) == len(pairs)
    assert {p.terms for p in common_refinement([f, g])} == pairs


@settings(max_examples=15, deadline=None)
@given(polynomials(dims=(2,), max_terms=4), polynomials(dims=(2,), max_terms=3))
@pytest.mark.slow
def test_newton_polytope_of_product_is_minkowski_sum(f, g):
    assert (f * g).newton_polytope() == minkowski_sum(f.newton_polytope(), g.newton_polytope())
    assert (f * g).lifted_polytope() == minkowski_sum(f.lifted_polytope(), g.lifted_polytope())


def test_scalar_action_and_power():
    f = parse_polynomial("max(0, x)")
    assert (f * 2)(1) == 3 and (2 * f)(-1) == 2           # 2 ⊙ f shifts by 2
    assert (f + 5)(1) == 5                                  # f ⊕ 5
    assert (f ** 3)(2) == 6 and len(f ** 3) == 8 and len((f ** 3).linear_regions()) == 2
    with pytest.raises(InvalidInputError):
        f ** -1
    with pytest.raises(InvalidInputError, match="same variables"):
        f * parse_polynomial("max(0, y)")


# ----------------------------------------------------------------- the plane conic
def test_plane_conic():
    # Max convention: c ⊙ x^a ⊙ y^b = c + a x + b y, so the conic is
    #   max(3, x + 2, y + 2, x + y + 3, 2x, 2y)   (x² and y² have coefficient 0).
    # Lifted exponents (a, b, c): (0,0,3) (1,0,2) (0,1,2) (1,1,3) (2,0,0) (0,2,0).
    # Each is an upper vertex: e.g. (1,0) = ((0,0)+(2,0))/2 only, and 2 > (3+0)/2; (1,1) = ((2,0)+(0,2))/2
    # only (the only lattice points with a+b = 2), and 3 > 0.  So 6 linear regions.
    # Upper cells: on the unit square {00,10,01,11} the diagonal 00-11 has the higher midpoint
    # ((3+3)/2 = 3 > (2+2)/2 = 2), giving triangles {00,10,11} (plane 3 - a + b) and {00,01,11}
    # (plane 3 + a - b); the corners give {10,20,11} (plane 4 - 2a + b) and {01,02,11}
    # (plane 4 + a - 2b).  Each plane lies on or above all six lifted points, and the four
    # triangles have area 1/2 each = area 2 of conv{00, 20, 02}: exactly 4 maximal cells.
    f = parse_polynomial(CONIC)
    assert f.variables == ("x", "y")
    order = {e: i for i, e in enumerate(f.exponents)}
    idx = {name: order[tuple(map(Fraction, e))] for name, e in
           {"00": (0, 0), "10": (1, 0), "01": (0, 1), "11": (1, 1), "20": (2, 0), "02": (0, 2)}.items()}
    assert f.coefficients[idx["20"]] == 0 and f.coefficients[idx["11"]] == 3
    assert len(check_regions(f)) == 6
    expected = {frozenset(idx[k] for k in cell) for cell in
                (("00", "10", "11"), ("00", "01", "11"), ("10", "20", "11"), ("01", "02", "11"))}
    assert set(dual_subdivision(f)) == expected
    cells = hypersurface_cells(f)
    # a tropical conic: 4 vertices, and 9 edges (3 bounded + 6 rays) = the 9 edges of the triangulation
    assert sorted(c.dim for c in cells) == [0] * 4 + [1] * 9
    assert {c.terms for c in cells if c.dim == 0} == expected


def brute_force_maximal_cells(f):
    """Full-dimensional Newt only: tie points of d+1 affinely independent terms, then their argmax sets."""
    d = f.dim
    cells = set()
    for S in itertools.combinations(range(len(f)), d + 1):
        a0, c0 = f.terms[S[0]]
        E = [[f.exponents[s][i] - a0[i] for i in range(d)] for s in S[1:]]
        if exact.rank(E) < d:
            continue
        x = exact.solve(E, [c0 - f.coefficients[s] for s in S[1:]])
        top = set(f.argmax_terms(x))
        if set(S) <= top:
            cells.add(frozenset(top))
    return cells


@settings(max_examples=40, deadline=None)
@given(polynomials(dims=(1, 2), max_terms=6))
def test_dual_subdivision_matches_brute_force_tie_points(f):
    assume(exact.rank([[a - b for a, b in zip(e, f.exponents[0])] for e in f.exponents]) == f.dim)
    assert set(dual_subdivision(f)) == brute_force_maximal_cells(f)


def check_hypersurface(f):
    """Certified cells, and with the regions a partition of R^d: Euler characteristic (-1)^d."""
    cells = hypersurface_cells(f)
    walls = 0
    for c in cells:
        p = c.point
        assert set(f.argmax_terms(p)) == set(c.terms)
        assert len({f.exponents[t] for t in c.terms}) >= 2  # a genuine corner, not a duplicate
        assert all(dot(e, p) == fe for e, fe in zip(c.E, c.f))
        assert all(dot(a, p) < bi for a, bi in zip(c.A, c.b))
        # the cell is dual to the face spanned by its terms' exponents: dimensions are complementary
        spread = [[u - v for u, v in zip(f.exponents[t], f.exponents[min(c.terms)])] for t in c.terms]
        assert c.dim == f.dim - exact.rank(spread) == f.dim - exact.rank(c.E)
        walls += c.dim == f.dim - 1
    assert len({c.terms for c in cells}) == len(cells)
    adjacent_pairs = sum(len(r.neighbors) for r in f.linear_regions()) // 2
    assert walls == adjacent_pairs
    # Every point of R^d lies in exactly one region or cell (its argmax set names it), and each is
    # a relatively open polyhedron of dimension k, with compactly supported Euler characteristic
    # (-1)^k; they add up to that of R^d.  A missing cell of any dimension breaks the sum
    # (unless several cancel exactly).
    euler = sum((-1) ** c.dim for c in cells) + (-1) ** f.dim * len(f.linear_regions())
    assert euler == (-1) ** f.dim
    return cells


def cell_counts(cells, d):
    return [sum(c.dim == k for c in cells) for k in range(d - 1, -1, -1)]


@settings(max_examples=40, deadline=None)
@given(st.one_of(polynomials(dims=(1, 2, 3), max_terms=6), flat_polynomials(), products()))
def test_hypersurface_cells_are_certified_ties(f):
    check_hypersurface(f)


def test_tropical_plane_cells():
    # max(0, x, y, z): Newt is the unit simplex, all coefficients 0, so the subdivision is the simplex
    # itself.  Its faces: 4 vertices (regions), 6 edges (2-dim walls where two terms tie, e.g. x = y > 0, z),
    # 4 triangles (rays where three terms tie, e.g. {0, x, y}: x = y = 0 > z, the ray -t e_3) and the
    # tetrahedron (the vertex 0 where all four tie).  Euler: 4 regions - 6 walls + 4 rays - 1 vertex = 1.
    f = parse_polynomial("max(0, x, y, z)")
    cells = check_hypersurface(f)
    assert len(f.linear_regions()) == 4 and cell_counts(cells, 3) == [6, 4, 1]
    assert next(c for c in cells if c.dim == 0).point == (0, 0, 0)


def test_coordinate_planes_cells():
    # max(0,x) + max(0,y) + max(0,z): the three coordinate planes.  The 8 octants are the regions; each
    # plane is cut by the other two into 4 quadrants (12 walls); the 3 axes minus the origin give 6 rays;
    # the origin is the vertex.  Dually: Newt = unit cube with all 8 lifted points coplanar (one cell),
    # whose faces are 12 edges, 6 squares (the in-between faces: a ray dual to a square) and the cube.
    f = parse_polynomial("max(0, x) + max(0, y) + max(0, z)")
    cells = check_hypersurface(f)
    assert len(f.linear_regions()) == 8 and cell_counts(cells, 3) == [12, 6, 1]
    assert all(len(c.terms) == 2 ** (3 - c.dim) for c in cells)  # 2^(number of zero coordinates)


def test_generic_plane_arrangement_cells():
    # sum_i max(0, x + i y + i^2 z + i^3), i = 1..4: four planes whose normals (1, i, i^2) are pairwise
    # independent, any three independent (Vandermonde) and no four through one point (4x4 Vandermonde),
    # so the arrangement is generic.  A generic arrangement of n planes in R^3 has
    # f_k = C(n, 3 - k) * sum_{i <= k} C(n - 3 + k, i) faces of dimension k:
    # f_3 = 1 + 4 + 6 + 4 = 15, f_2 = 4 * (1 + 3 + 3) = 28, f_1 = 6 * (1 + 2) = 18, f_0 = 4 * 1 = 4.
    # The 16 terms (one per subset of planes) are distinct affine functions, so each region of the
    # arrangement is a linear region, and each lower face is the cell where exactly the 2^(#planes through
    # it) terms {positive planes + any subset of the planes through it} tie: all distinct sets.
    f = TropicalPolynomial([[0, 0, 0]], [0])
    for i in range(1, 5):
        f = f * TropicalPolynomial([[0, 0, 0], [1, i, i * i]], [0, i ** 3])
    assert len(set(f.terms)) == 16
    cells = check_hypersurface(f)
    assert len(f.linear_regions()) == 15 and cell_counts(cells, 3) == [28, 18, 4]


# ----------------------------------------------------------------- rational functions and maps
def test_rational_function_pieces_are_affine():
    num, den = parse_polynomial("max(0, x, 2*y - 1)"), parse_polynomial("max(0, x + y - 1)")
    r = TropicalRationalFunction(num, den)
    X = np.array([[0.5, -1.0], [3.0, 2.0]])
    np.testing.assert_allclose(r.evaluate_float(X), num.evaluate_float(X) - den.evaluate_float(X))
    pieces = r.pieces()
    assert len(pieces) == len((num * den).linear_regions())
    for piece in pieces:
        i, j = piece.terms
        slope = [a - b for a, b in zip(num.exponents[i], den.exponents[j])]
        for p in [piece.interior_point] + [[v + Fraction(1, 10**6) for v in piece.interior_point]]:
            if all(dot(a, p) < bi for a, bi in zip(piece.A, piece.b)):
                assert r(p) == dot(slope, p) + num.coefficients[i] - den.coefficients[j]


def test_rational_map():
    f, g = parse_polynomial("max(0, x, y)"), parse_polynomial("max(x, y - 1)")
    F = TropicalRationalMap([f, TropicalRationalFunction(f, g)])
    x = [Fraction(1, 3), Fraction(-2)]
    assert F(x) == (f(x), f(x) - g(x))
    assert F.evaluate_float(np.zeros((4, 2))).shape == (4, 2)
    assert F.dim == 2 and F.dim_out == 2
    with pytest.raises(InvalidInputError):
        TropicalRationalMap([f, parse_polynomial("max(0, z)")])


# ----------------------------------------------------------------- export and parsing
@settings(max_examples=40, deadline=None)
@given(st.data())
def test_parse_round_trips(data):
    f = data.draw(polynomials(exponent=rational))
    assert parse_polynomial(str(f), variables=f.variables) == f  # formal: every term, in order
    assert polynomial_from_json(json.loads(json.dumps(polynomial_to_json(f)))) == f
    g = parse_polynomial(str(f.to_sympy()), variables=f.variables)  # sympy may merge terms
    for _ in range(3):
        x = data.draw(points(f.dim))
        assert g(x) == f(x)


def test_sympy_and_latex():
    sympy = pytest.importorskip("sympy")
    f = parse_polynomial("max(0, x + 1, 2*y - 1/2)")
    x, y = sympy.symbols("x y", real=True)
    assert f.to_sympy().subs({x: 1, y: 3}) == sympy.Rational(11, 2) == f([1, 3])
    assert f.to_latex() == r"\max(0,\; x + 1,\; 2y - \tfrac{1}{2})"
    assert parse_polynomial("max(0, x1/3)").to_latex() == r"\max(0,\; \tfrac{1}{3}x_{1})"


def test_parse_notations():
    conic = parse_polynomial(CONIC)
    same = parse_polynomial("max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)")
    assert conic == same
    assert parse_polynomial("Max(0, 2x, max(y, -1))") == parse_polynomial("max(0, 2*x, y, -1)")
    # a sum of maxes is their tropical product; a positive multiple a tropical power
    prod = parse_polynomial("max(0, x) + max(0, y)")
    assert prod == parse_polynomial("max(0, x)", ("x", "y")) * parse_polynomial("max(0, y)", ("x", "y"))
    assert parse_polynomial("(x ⊕ 1)^2")([5]) == 10
    assert parse_polynomial("x^(1/2) ⊙ y⁻¹ ⊕ (-1)").exponents[0] == (Fraction(1, 2), Fraction(-1))
    assert parse_polynomial("max(x2, x10, x1)").variables == ("x1", "x2", "x10")
    assert parse_polynomial("max(0, b)", variables=("b", "a")).variables == ("b", "a")


@pytest.mark.parametrize("text, hint", [
    ("max(0, x*y)", "'x + y'"),
    ("max(0, x^2)", "write 2*x"),
    ("min(0, x)", "max"),
    ("max(0 x)", "','"),
    ("max(0, x", "expected ')'"),
    ("", "empty"),
    ("-max(0, x)", "min"),
    ("max(0, x) @ 2", "cannot read"),
    ("max(0, 1/x)", "not affine"),
    ("max(0, x/0)", "division by zero"),
])
def test_parse_errors_say_what_to_write(text, hint):
    with pytest.raises(InvalidInputError, match=re.escape(hint)):
        parse_polynomial(text)


def test_parse_unknown_variable():
    with pytest.raises(InvalidInputError, match="not among variables"):
        parse_polynomial("max(0, z)", variables=("x", "y"))


@pytest.mark.parametrize("obj, path", [
    ({"terms": []}, "terms"),
    ({"terms": [{"exponent": [1, 0], "coefficient": 0}, {"exponent": [1], "coefficient": 1}]}, "terms[1].exponent"),
    ({"terms": [{"exponent": [1, 0], "coefficient": 0}, {"exponent": [1, 0], "coefficient": 1},
                {"exponent": [0, "a"], "coefficient": 1}]}, "terms[2].exponent[1]"),
    ({"terms": [{"exponent": [0], "coefficient": "NaN"}]}, "terms[0].coefficient"),
    ({"terms": [{"exponent": [0]}]}, "terms[0]"),
    ({"terms": [{"exponent": 3, "coefficient": 0}]}, "terms[0].exponent"),
    ({"variables": ["x"], "terms": [{"exponent": [0, 1], "coefficient": 0}]}, "variables"),
    ({"variables": ["x", "2y"], "terms": [{"exponent": [0, 1], "coefficient": 0}]}, "variables[1]"),
])
def test_json_errors_name_the_path(obj, path):
    with pytest.raises(ModelFileError) as info:
        polynomial_from_json(obj)
    assert info.value.path == path
    assert str(info.value).startswith(path + ": ")


def test_json_reads_neg_inf_and_strings():
    f = polynomial_from_json('{"variables": ["u"], "terms": [{"exponent": [0], "coefficient": "-inf"},'
                             ' {"exponent": ["1/2"], "coefficient": "0.25"}]}')
    assert len(f) == 1 and f.variables == ("u",) and f([2]) == Fraction(5, 4)


@pytest.mark.parametrize("exponents, coefficients, match", [
    ([], [], "at least one term"),
    ([[0, 1], [1]], [0, 0], "ragged"),
    ([[0], [1]], [0, float("nan")], "NaN"),
    ([[0], [1]], [0, "one"], "not a number"),
    ([[0], ["x"]], [0, 0], "not a number"),
    ([[0], [1]], [0], "one coefficient per term"),
    ([[0]], [float("-inf")], "finite coefficient"),
    ([[0], [float("inf")]], [0, 0], "finite"),
])
def test_bad_input(exponents, coefficients, match):
    with pytest.raises(InvalidInputError, match=match):
        TropicalPolynomial(exponents, coefficients)


def test_bad_variables():
    with pytest.raises(InvalidInputError, match="one name per"):
        TropicalPolynomial([[0, 1]], [0], variables=("x",))
    with pytest.raises(InvalidInputError, match="repeated"):
        TropicalPolynomial([[0, 1]], [0], variables=("x", "x"))
    with pytest.raises(InvalidInputError, match="not a valid name"):
        TropicalPolynomial([[0, 1]], [0], variables=("x", "y z"))


def test_value_object():
    f = parse_polynomial("max(0, x)")
    assert f == TropicalPolynomial([[0], [1]], ["0", 0.0]) and hash(f) == hash(parse_polynomial("max(0, x)"))
    assert "max(0, x)" in repr(f)
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.coefficients = (1, 2)
