"""The exact kernel: conversions, filtered signs, certified LPs and facets against plain references."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.errors import InvalidInputError
from tropattn.exact import (
    counting,
    dot_signs,
    facets,
    interior_point,
    relative_interior_point,
    to_rational,
    to_rational_matrix,
)

rows = st.lists(st.lists(st.integers(-4, 4), min_size=2, max_size=2), min_size=1, max_size=7)


def dot(a, x):
    return sum(Fraction(u) * v for u, v in zip(a, x))


@settings(max_examples=150)
@given(A=rows, b=st.lists(st.integers(-6, 6), min_size=7, max_size=7),
       scale=st.lists(st.sampled_from([1, 2, 3, Fraction(1, 7), 10 ** 12, Fraction(1, 10 ** 12)]), min_size=7,
                      max_size=7))
def test_every_answer_carries_a_valid_certificate_in_the_callers_units(A, b, scale):
    # rows scaled by arbitrary positive factors: the point or the Farkas vector must hold for *these* rows
    A = [[Fraction(v) * s for v in row] for row, s in zip(A, scale)]
    b = [Fraction(v) * s for v, s in zip(b, scale)][:len(A)]
    cert = interior_point(A, b)
    if cert.feasible:
        assert all(dot(a, cert.point) < bi for a, bi in zip(A, b))
    else:
        y = cert.farkas
        assert all(v >= 0 for v in y) and any(v > 0 for v in y)
        assert all(sum(y[i] * A[i][k] for i in range(len(A))) == 0 for k in range(2))
        assert sum(yi * bi for yi, bi in zip(y, b)) <= 0


@settings(max_examples=60)
@given(A=rows, b=st.lists(st.integers(1, 6), min_size=7, max_size=7))
def test_facets_agree_with_one_exact_lp_per_row(A, b):
    A, b = [[Fraction(v) for v in r] for r in A], [Fraction(v) for v in b][:len(A)]
    point = (Fraction(0), Fraction(0))                     # b > 0: the origin is strictly inside
    fs = facets(A, b, point)
    distinct = [i for i in range(len(A)) if i not in fs.same_as and any(A[i])]
    for i in distinct:
        others = [j for j in distinct if j != i]
        lp = relative_interior_point([A[j] for j in others], [b[j] for j in others], [A[i]], [b[i]])
        assert (i in fs.rows) == lp.feasible
    for i in fs.rows:
        p = fs.points[i]
        assert dot(A[i], p) == b[i] and all(dot(A[j], p) < b[j] for j in distinct if j != i)


def test_dot_signs_are_exact_at_every_scale():
    rng = random.Random(5)
    for bits in (10, 52, 53, 62, 63, 64, 200, 1100):
        R = [[rng.randint(-2 ** bits, 2 ** bits) for _ in range(3)] for _ in range(5)]
        C = [[rng.randint(-2 ** bits, 2 ** bits) for _ in range(3)] for _ in range(4)]
        C[0] = [R[0][1], -R[0][0], 0]                       # an exact zero
        got = dot_signs(R, C)
        for i, r in enumerate(R):
            for k, c in enumerate(C):
                s = sum(x * y for x, y in zip(r, c))
                assert got[i, k] == (s > 0) - (s < 0)


def test_scaled_problems_certify_without_exact_fallback():
    # the same square at 1e-30 and 1e30: the float LP is rescaled, so no exact simplex is needed
    for s in (Fraction(1, 10 ** 30), Fraction(10 ** 30)):
        with counting() as c:
            cert = interior_point([[1, 0], [-1, 0], [0, 1], [0, -1]], [s, s, s, s])
        assert cert.feasible and c.fallbacks == 0


@pytest.mark.parametrize("value,expected", [
    ("3/4", Fraction(3, 4)), (0.1, Fraction(3602879701896397, 36028797018963968)), ("0.1", Fraction(1, 10)),
    (np.float32(0.5), Fraction(1, 2)), (np.int64(-3), Fraction(-3)), ("1e-3", Fraction(1, 1000)),
])
def test_numbers_convert_exactly(value, expected):
    assert to_rational(value) == expected


@pytest.mark.parametrize("value", [float("nan"), float("inf"), "nan", "abc", "1/0", True, None, "1e99999"])
def test_bad_numbers_are_refused(value):
    with pytest.raises(InvalidInputError):
        to_rational(value, "w")


def test_ragged_and_misshapen_matrices_are_refused():
    with pytest.raises(InvalidInputError, match="ragged"):
        to_rational_matrix([[1, 2], [3]], "keys")
    with pytest.raises(InvalidInputError, match="expected"):
        to_rational_matrix([1, 2], "keys")
    assert to_rational_matrix(np.array([[0.5, 2]]), "keys") == ((Fraction(1, 2), Fraction(2)),)
    assert math.isclose(float(to_rational("2.5e2")), 250)


@pytest.mark.parametrize("s", [Fraction(1, 10 ** 30), Fraction(10 ** 30), Fraction(1, 10 ** 100)])
def test_facets_certify_at_any_scale(s):
    # a square with redundant rows at scale s: facets and redundancy proofs come from the float
    # path (sigma-scaled), with no exact LP
    A = [[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1], [1, -1]]
    b = [s, s, s, s, 3 * s, 3 * s]
    with counting() as c:
        fs = facets(A, b, (Fraction(0), Fraction(0)))
    assert fs.rows == (0, 1, 2, 3) and c.fallbacks == 0 and c.exact_lps == 0


# ------------------------------------------- numbers beyond the float range or at its edge
SCALES = [Fraction(10) ** e for e in (-400, -330, -308, 0, 308, 309, 400)] + [Fraction(2.2250738585072014e-308)]
big_ints = st.integers(-2 ** 1400, 2 ** 1400) | st.integers(-2 ** 70, 2 ** 70) | st.integers(-9, 9)


def exact_sign(r, c):
    s = sum(x * y for x, y in zip(r, c))
    return (s > 0) - (s < 0)


@settings(max_examples=80, deadline=None)
@given(R=st.lists(st.lists(big_ints, min_size=3, max_size=3), min_size=1, max_size=5),
       C=st.lists(st.lists(big_ints, min_size=3, max_size=3), min_size=1, max_size=5))
def test_filtered_and_paired_signs_match_python_integers(R, C):
    from tropattn.exact._predicates import PreparedPoints, matrix_signs, paired_signs

    C = C + [[R[0][1], -R[0][0], 0]]  # an exact zero
    want = [[exact_sign(r, c) for c in C] for r in R]
    assert dot_signs(R, C).tolist() == want
    H = np.array(R, dtype=object)
    pts = PreparedPoints.of([tuple(c) for c in C])
    assert matrix_signs(H, pts).tolist() == want
    i, k = np.divmod(np.arange(len(R) * len(C)), len(C))
    assert paired_signs(H, pts, i, k).tolist() == [want[a][b] for a, b in zip(i, k)]


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 5), data=st.data())
def test_modular_minors_equal_the_integer_expansion(k, data):
    from tropattn.exact._linalg import maximal_minors, modular_minors

    bits = data.draw(st.sampled_from([3, 30, 80]))
    S = np.array(data.draw(st.lists(st.lists(st.lists(st.integers(-2 ** bits, 2 ** bits), min_size=k + 1,
                                                               max_size=k + 1), min_size=k, max_size=k),
                                    min_size=1, max_size=4)), dtype=object)
    bound = k * ((k + 1) * 2 ** bits).bit_length() + 1  # the product of the rows' L1 norms
    assert modular_minors(S, bound).tolist() == maximal_minors(S).tolist()


@settings(max_examples=60, deadline=None)
@given(A=rows, b=st.lists(st.integers(-6, 6), min_size=7, max_size=7),
       sa=st.sampled_from(SCALES), sb=st.sampled_from(SCALES))
def test_lps_and_facets_at_every_scale(A, b, sa, sb):
    # rows at 1e-400..1e400: the certificate must hold exactly, and agree with the unscaled system
    As = [[Fraction(v) * sa for v in row] for row in A]
    bs = [Fraction(v) * sb for v in b][:len(A)]
    cert = interior_point(As, bs)
    if cert.feasible:
        assert all(dot(a, cert.point) < bi for a, bi in zip(As, bs))
        fs = facets(As, bs, cert.point)
        for i in fs.rows:
            p = fs.points[i]
            assert dot(As[i], p) == bs[i]
    else:
        y = cert.farkas
        assert all(v >= 0 for v in y) and any(y)
        assert all(sum(yi * a[j] for yi, a in zip(y, As)) == 0 for j in range(2))
        assert sum(yi * bi for yi, bi in zip(y, bs)) <= 0
    rel = relative_interior_point(As, bs, [], [])
    if cert.feasible:
        assert rel.point is not None
    if rel.point is not None:
        assert all(dot(a, rel.point) <= bi for a, bi in zip(As, bs))
    # same feasibility as the system scaled back by positive factors
    assert cert.feasible == interior_point([[Fraction(v) for v in row] for row in A],
                                           [Fraction(v) * sb / sa for v in b][:len(A)]).feasible


@pytest.mark.parametrize("sigma", [2.2250738585072014e-308, 1e-300, 1.0, 1e300])
def test_projection_onto_a_hyperplane_is_exact_at_any_scale(sigma):
    from tropattn.exact._redundancy import _project_to_hyperplane

    row = (3, -7, 5)  # 3 x - 7 y = 5
    for point in ([1e-300, 2e-300], [0.5, -2.0], [1e300, -1e300]):
        num, den = _project_to_hyperplane(point, row, sigma)
        assert 3 * Fraction(num[0], den) - 7 * Fraction(num[1], den) == 5


@pytest.mark.parametrize("face, old, home", [
    ("exact", "hull", "certified_hull"), ("exact", "sum_hull", "minkowski_prefilter_pairs"),
    ("exact", "predicates", "dot_signs"), ("geometry", "power", "PowerDiagram"),
    ("geometry", "lifting", "upper_hull"), ("tropical", "cells", "linear_regions"),
])
def test_faces_name_their_api_and_the_new_home_of_old_modules(face, old, home):
    import importlib

    from tropattn.errors import MovedError

    module = importlib.import_module(f"tropattn.{face}")
    assert dir(module) == sorted(module.__all__)
    assert all(hasattr(module, name) for name in module.__all__)
    with pytest.raises(MovedError, match=home):
        getattr(module, old)
    with pytest.raises(AttributeError):
        getattr(module, "no_such_name")


def test_rows_to_fractions_inverts_homogeneous_rows():
    from tropattn.exact import homogeneous_row, rows_to_fractions

    pts = [(Fraction(1, 2), Fraction(-1, 3)), (Fraction(4), Fraction(0)), (Fraction(-7, 6), Fraction(5, 4))]
    assert rows_to_fractions([homogeneous_row(p) for p in pts]) == tuple(pts)
