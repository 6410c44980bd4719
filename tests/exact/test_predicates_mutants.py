"""The sign predicates where mutation testing found them unwatched (scripts/mutation.py predicates).

Empty inputs keep their shape and type; the scaled float rows keep the documented contract
(every entry below 2^500, a row that fits left exactly as it is, the minimal power of two);
signs come back as the documented integer types.  Expected values are written out here.
"""

import itertools
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest

from tropattn import config
from tropattn.exact import counting, dot_signs
from tropattn.exact._predicates import (PreparedPoints, dense_signs, determinant_signs, lex_order, matrix_signs,
                                        paired_signs, prepared_paired_signs, scaled_floats, sign_array,
                                        small_determinant_signs)


@pytest.mark.parametrize("rows,cols,shape", [([], [[1, 2]], (0, 1)), ([[1, 2]], [], (1, 0)), ([], [], (0, 0))])
def test_empty_inputs_give_empty_int8_signs(rows, cols, shape):
    out = dot_signs(rows, cols)
    assert out.shape == shape and out.dtype == np.int8


def test_signs_are_int8_and_exact_at_every_magnitude():
    big = 3 ** 700                                          # beyond float64's range
    rows = [[1, -1], [big, -big + 1], [2 ** 600, -(2 ** 600)], [-5, 3]]
    cols = [[1, 1], [3, 5]]
    out = dot_signs(rows, cols)
    assert out.dtype == np.int8
    expected = [[int(np.sign(sum(a * b for a, b in zip(r, c)))) for c in cols] for r in rows]
    assert out.tolist() == expected


def test_scaled_rows_lie_below_two_to_the_500():
    for top in (2 ** 500, 2 ** 600, 3 ** 400, 2 ** 1100):
        F = scaled_floats(np.array([[top, 1], [-top, 7]], dtype=object))
        assert F.dtype == float and np.all(np.isfinite(F)) and np.all(np.abs(F) < 2.0 ** 500)


def test_scaling_is_the_smallest_power_of_two_and_rows_that_fit_stay_exact():
    F = scaled_floats(np.array([[2 ** 600, 2 ** 599, 1], [3, 5, -7]], dtype=object))
    assert F[0, 0] == 2.0 ** 499 and F[0, 1] == 2.0 ** 498          # the row times 2^-101
    assert F[1].tolist() == [3.0, 5.0, -7.0]                           # already below 2^500: unscaled
    F = scaled_floats(np.array([[2 ** 500 - 1, 1]], dtype=object))
    assert F[0, 1] == 1.0                                              # fits: not halved


def test_sign_array_is_int64():
    for x in (np.array([-3, 0, 5]), np.array([-3, 0, 2 ** 70], dtype=object)):
        s = sign_array(x)
        assert s.dtype == np.int64 and s.tolist() == [-1, 0, 1]


def declined(rows, cols):
    """``dot_signs`` and the number of entries its float and int64 tiers declined (computed in Python ints)."""
    with counting() as c:
        out = dot_signs(rows, cols)
    expected = [[(s > 0) - (s < 0) for s in (sum(a * b for a, b in zip(r, col)) for col in cols)] for r in rows]
    assert out.tolist() == expected
    return c.filter_failures


def test_small_int64_products_are_decided_by_floats_zeros_included():
    assert declined([[1, -1], [3, 4], [0, 0]], [[1, 1], [2, -1]]) == 0          # exact below 2^53


def test_int64_products_below_2_to_62_are_decided_in_int64():
    assert declined([[2 ** 30, -(2 ** 30)], [2 ** 30, 2 ** 30 - 1]], [[2 ** 30, 2 ** 30]]) == 0


def test_large_int64_products_with_a_clear_sign_are_decided_by_floats():
    assert declined([[2 ** 40, 2 ** 40], [-(2 ** 40), 3]], [[2 ** 40, 1]]) == 0  # magnitudes ~2^80: the bound decides


def test_huge_cancelling_products_are_declined_once_each():
    big = 2 ** 600
    rows = [[big, -big], [big, big], [big, -big + 1], [3, 5]]
    assert declined(rows, [[1, 1]]) == 2                                         # the two sums near 0


def test_declines_are_counted_across_row_blocks():
    big = 2 ** 600
    rows = [[big, -big], [big, big], [big, -big], [big, 2], [big, -big]]
    with config.override(predicate_cache_entries=2):                             # blocks of 2 rows
        assert declined(rows, [[1, 1]]) == 3


def test_later_blocks_are_computed_after_a_fully_decided_block():
    rows = [[1, 2], [3, 4], [-1, -2], [0, 0], [2 ** 30, -(2 ** 30)], [-5, 1]]
    with config.override(predicate_cache_entries=2):
        assert declined(rows, [[1, 1], [2, 1]]) == 0


def leibniz_sign(A):
    """sign(det A) by the Leibniz formula in Python integers (k <= 5)."""
    k, total = len(A), 0
    for perm in itertools.permutations(range(k)):
        inversions = sum(perm[i] > perm[j] for i in range(k) for j in range(i + 1, k))
        term = (-1) ** inversions
        for i, j in enumerate(perm):
            term *= int(A[i][j])
        total += term
    return (total > 0) - (total < 0)


def stack(k, scale, seed):
    """Random k x k integer matrices times ``scale``, with singular and near-singular ones among them."""
    rng = np.random.default_rng(seed)
    mats = [[[int(v) * scale for v in row] for row in rng.integers(-3, 4, size=(k, k))] for _ in range(6)]
    base = mats[0]
    mats.append([list(base[0])] + [list(r) for r in base[1:-1]] + [list(base[0])])       # two equal rows: 0
    mats.append([[v * 2 for v in base[0]]] + [list(r) for r in base[1:]])                  # a scaled row
    near = [[int(i == j) * (2 ** 26) for j in range(k)] for i in range(k)]
    near[0][1] = 2 ** 26 - 1                                                                # det = 2^(26k)...
    near[1][0] = 2 ** 26 + 1                                                                # ... minus 2^52 - 1
    mats.append(near)
    return mats


@pytest.mark.parametrize("k", [2, 3, 4, 5])
@pytest.mark.parametrize("scale", [1, 10 ** 20, 10 ** 200, 10 ** 400])
def test_determinant_signs_are_exact(k, scale):
    """... at every magnitude (10^400 is beyond floats), quietly: an overflow in the float filter is no warning."""
    mats = stack(k, scale, seed=k)
    expected = [leibniz_sign(A) for A in mats]
    M = np.array(mats, dtype=object)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        outs = (determinant_signs(M, False), small_determinant_signs(M))
    for out in outs:
        assert out.dtype == np.int64 and out.shape == (len(mats),) and out.tolist() == expected
    if scale == 1:
        small = np.array(mats, dtype=np.int64)
        for out in (determinant_signs(small, False), small_determinant_signs(small)):
            assert out.dtype == np.int64 and out.tolist() == expected
        tiny = small[:-1]                                      # entries <= 6: int64 is exact
        assert determinant_signs(tiny, True).dtype == np.int64
        assert determinant_signs(tiny, True).tolist() == expected[:-1]


def test_only_the_undecided_small_determinants_are_declined():
    clear = [[[3, 1, 0], [0, 2, 1], [1, 0, 4]], [[-5, 0, 0], [0, 1, 0], [0, 0, 1]]]
    zero = [[[1, 2, 3], [2, 4, 6], [0, 1, 1]], [[1, 1, 1], [1, 1, 1], [2, 3, 4]], [[0, 0, 0], [1, 2, 3], [4, 5, 6]]]
    with counting() as c:
        out = small_determinant_signs(np.array(clear + zero, dtype=np.int64))
    assert out.tolist() == [1, -1, 0, 0, 0] and c.filter_failures == 3
    assert dict(c.by_place) == {"filter_failures:small_determinant_signs": 3}     # the place is named


def test_an_empty_stack_has_no_signs():
    for k in (2, 3, 5):
        assert small_determinant_signs(np.zeros((0, k, k), dtype=np.int64)).shape == (0,)


@pytest.mark.parametrize("k", [2, 4])
def test_small_determinants_of_size_k_are_filtered_and_declines_counted(k):
    eye = np.eye(k, dtype=np.int64)
    swap = eye[[1, 0] + list(range(2, k))]
    singular = eye.copy()
    singular[-1] = singular[0]
    with counting() as c:
        out = small_determinant_signs(np.array([3 * eye, swap, singular, 0 * eye]))
    assert out.tolist() == [1, -1, 0, 0] and c.filter_failures == 2


def _matrix(rows):
    try:
        return np.array(rows, dtype=np.int64)
    except OverflowError:
        return np.array(rows, dtype=object)


@pytest.mark.parametrize("scale", [1, 2 ** 30, 3 ** 40, 2 ** 600])
def test_dense_signs_are_the_exact_signs_zeros_included(scale):
    rng = np.random.default_rng(7)
    rows = [[int(v) * scale for v in r] for r in rng.integers(-3, 4, size=(7, 5))]
    rows += [[scale, -scale, 0, 0, 0], [scale, -scale + 1, 0, 0, 0]]          # exact zero and +-1 against (1, 1, ...)
    cols = [[int(v) for v in c] for c in rng.integers(-2, 3, size=(6, 5))] + [[1, 1, 1, 1, 1]]
    R, C = _matrix(rows), _matrix(cols)
    expected = [[(s > 0) - (s < 0) for s in (sum(a * b for a, b in zip(r, c)) for c in cols)] for r in rows]
    out = dense_signs(R, C, scaled_floats(R), scaled_floats(C))
    assert out.dtype == np.int8 and out.shape == (9, 7) and out.tolist() == expected
    with config.override(predicate_cache_entries=8):                            # several row blocks
        assert dense_signs(R, C, scaled_floats(R), scaled_floats(C)).tolist() == expected


def test_dense_signs_trust_the_known_zeros():
    R, C = np.array([[1, 2], [3, 4]]), np.array([[5, 6], [1, 1]])
    out = dense_signs(R, C, scaled_floats(R), scaled_floats(C), known_zeros=(np.array([1]), np.array([0])))
    assert out.tolist() == [[1, 1], [0, 1]]                                     # (1, 0) taken as given


@pytest.mark.parametrize("scale", [1, 2 ** 30, 3 ** 40, 2 ** 600])
@pytest.mark.parametrize("blocks", [None, dict(predicate_cache_entries=8, predicate_block_entries=200)])
def test_dense_signs_decline_only_the_near_zeros_of_big_rows(scale, blocks):
    """Products that are multiples of ``scale`` are decided by floats; zeros and +-small ones of
    rows beyond int64 are declined (computed in Python ints, counted), int64 rows never are."""
    rng = np.random.default_rng(11)
    rows = [[int(v) * scale for v in r] for r in rng.integers(-3, 4, size=(6, 5))]
    rows += [[scale, -scale, 0, 0, 0], [scale, -scale + 1, 0, 0, 0]]
    cols = [[int(v) for v in c] for c in rng.integers(-2, 3, size=(5, 5))] + [[1, 1, 1, 1, 1]]
    R, C = _matrix(rows), _matrix(cols)
    exact = [[sum(a * b for a, b in zip(r, c)) for c in cols] for r in rows]
    with config.override(**(blocks or {})), counting() as count:
        out = dense_signs(R, C, scaled_floats(R), scaled_floats(C))
    assert out.tolist() == [[(v > 0) - (v < 0) for v in row] for row in exact]
    big = R.dtype == object
    near_zero = sum(abs(v) < scale for row in exact for v in row)
    assert count.filter_failures == (near_zero if big else 0)


@pytest.mark.parametrize("blocks", [None, dict(predicate_cache_entries=8, predicate_block_entries=200)])
def test_dense_signs_skip_the_work_of_known_zeros_in_every_chunk(blocks):
    """Known zeros are neither computed nor counted; the other near zeros still are, in every row chunk."""
    scale = 2 ** 600
    rng = np.random.default_rng(11)
    rows = [[int(v) * scale for v in r] for r in rng.integers(-3, 4, size=(6, 5))]
    rows += [[scale, -scale, 0, 0, 0], [scale, -scale + 1, 0, 0, 0]]
    cols = [[int(v) for v in c] for c in rng.integers(-2, 3, size=(5, 5))] + [[1, 1, 1, 1, 1]]
    R, C = _matrix(rows), _matrix(cols)
    exact = np.array([[sum(a * b for a, b in zip(r, c)) for c in cols] for r in rows], dtype=object)
    zi, zk = np.nonzero(exact == 0)
    assert len(set(zi.tolist())) >= 3                                       # zeros in several rows and chunks
    near_zero = int(sum(abs(v) < scale for v in exact.ravel()))
    with config.override(**(blocks or {})), counting() as count:
        out = dense_signs(R, C, scaled_floats(R), scaled_floats(C), known_zeros=(zi, zk))
    assert out.tolist() == [[(v > 0) - (v < 0) for v in row] for row in exact.tolist()]
    assert count.filter_failures == near_zero - len(zi)


# ---------------------------------------------------------------- matrix_signs: each path, its type and its limits

def _exact(H, P):
    return [[(s > 0) - (s < 0) for s in (sum(int(a) * int(b) for a, b in zip(h, p)) for p in P)] for h in H]


@pytest.mark.parametrize("H,P", [
    (np.array([[1, -1, 0], [3, 4, -7]]), [(1, 1, 1), (2, -1, 1)]),                  # below 2^53: floats
    (np.array([[2 ** 30, -(2 ** 30), 1]]), [(2 ** 28, 2 ** 28, 1), (1, 2, 3)]),      # below 2^62: int64
    (np.array([[2 ** 600, -(2 ** 600), 1]], dtype=object), [(1, 1, 1), (1, 1, -1)]),   # the float filter
    (np.array([[1, -1, 0]]), [(2 ** 70, 2 ** 70, 1), (2 ** 70, 1, 1)]),              # points beyond int64
])
def test_matrix_signs_are_int8_and_exact_on_every_path(H, P):
    out = matrix_signs(H, PreparedPoints.of(P))
    assert out.dtype == np.int8 and out.tolist() == _exact(H, P)


@pytest.mark.parametrize("H", [np.zeros((0, 3), dtype=np.int64), np.zeros((0, 3), dtype=object)])
def test_matrix_signs_of_no_rows_keep_the_shape(H):
    out = matrix_signs(H, PreparedPoints.of([(1, 2, 1), (3, 4, 1)]))
    assert out.shape == (0, 2) and out.dtype == np.int8


def test_matrix_signs_of_a_single_entry():
    assert matrix_signs(np.array([[3]]), PreparedPoints.of([(1,), (2,)])).tolist() == [[1, 1]]


@pytest.mark.parametrize("h", [[1, 1, 1, 0], [-1, -1, -1, 0]])
def test_matrix_signs_leave_floats_once_a_partial_sum_can_reach_2_to_53(h):
    """``(2^53 - 1) + 2`` rounds to ``2^53`` in floats, so the sum ``+-1`` would come out 0: the bound
    ``max|H| * max|P| * columns`` is at least 2^53 here (for rows of either sign), and the int64 path decides."""
    P = [(2 ** 53 - 1, 2, -(2 ** 53), 1)]
    assert float(2 ** 53 - 1) + 2.0 - 2.0 ** 53 == 0.0
    assert matrix_signs(np.array([h]), PreparedPoints.of(P)).tolist() == [[h[0]]]


# ---------------------------------------------------------------- paired signs: the per-pair filter and its tiers

U = Fraction(1, 2 ** 53)


def paired(H, P, rows=None, cols=None, knob=None):
    """Signs of the pairs (default: every row with every point), checked against Python integers, and how many
    pairs were computed in Python integers.  An object ``H`` goes to ``prepared_paired_signs`` as it is (no int64
    tier: every pair the float filter declines is counted); an int64 ``H`` through ``paired_signs``."""
    pts = PreparedPoints.of(P)
    if rows is None:
        rows, cols = np.repeat(np.arange(len(H)), len(P)), np.tile(np.arange(len(P)), len(H))
    rows, cols = np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)
    with counting() as c, config.override(**({} if knob is None else {"predicate_cache_entries": knob})):
        if H.dtype == object:
            out = prepared_paired_signs(H, scaled_floats(H), pts, rows, cols)
        else:
            out = paired_signs(H, pts, rows, cols)
    want = [(s > 0) - (s < 0) for s in (sum(int(a) * int(b) for a, b in zip(H[r], P[k])) for r, k in zip(rows, cols))]
    assert out.dtype == np.int8 and out.shape == (len(rows),) and out.tolist() == want
    return c.filter_failures


def test_no_pairs_no_signs_and_nothing_declined():
    assert paired(np.array([[1, 2]]), [(1, 1)], [], []) == 0


def test_small_int64_pairs_are_decided_by_floats():
    assert paired(np.array([[1, -1, 0], [3, 4, -7]]), [(1, 1, 1), (2, -1, 1)]) == 0


def test_int64_pairs_with_a_clear_sign_are_decided_by_the_filter():
    assert paired(np.array([[2 ** 40, 2 ** 40, 0], [-(2 ** 40), 3, 0]]), [(2 ** 40, 1, 1)]) == 0   # |products| ~2^80


@pytest.mark.parametrize("a,b", [(3 * 2 ** 29, 2 ** 30),                    # mag 2 a b = 3 * 2^60 < 2^62
                                 (2 ** 8, 2 ** 53 - 5)])                     # mag 2^62 - 2560: mag (1 + 4u) < 2^62
def test_int64_pairs_below_2_to_62_are_decided_in_int64(a, b):
    assert float(2 * a * b) * (1 + 4 * 2.0 ** -53) < 2.0 ** 62
    assert paired(np.array([[a, -a, 0], [a, -a, 1]]), [(b, b, 1)]) == 0      # the values 0 and 1


@pytest.mark.parametrize("a,b", [(3 * 2 ** 29, 2 ** 31), (2 ** 31, 2 ** 30),      # mag 3 * 2^61 < 2^63, and 2^62
                                 (7 * 131071 * 2 ** 10, 2454285751)])       # mag 2^62 - 2^11: mag (1 + 4u) is 2^62
def test_int64_pairs_from_2_to_62_are_computed_in_python_integers(a, b):
    assert 2 * a * b >= 2 ** 62 - 2 ** 11 and float(2 * a * b) * (1 + 4 * 2.0 ** -53) >= 2.0 ** 62
    assert paired(np.array([[a, -a, 0], [a, -a, 1]]), [(b, b, 1)]) == 2          # two declined pairs (0 and 1)


def test_object_rows_with_a_clear_sign_are_decided_and_cancelling_ones_declined():
    big = 2 ** 600
    H = np.array([[big, big, 0], [big, -big, 1], [1, -1, 0]], dtype=object)
    assert paired(H, [(1, 1, 1)]) == 2                                       # the last two cancel


def test_int64_rows_against_object_points_have_no_float_exact_tier():
    """Points beyond int64 (an object array): even a small pair the filter declines goes to Python integers."""
    assert paired(np.array([[1, -1, 0]]), [(1, 1, 1), (2 ** 70, 1, 1)], [0], [0]) == 1
    assert paired(np.array([[1, -1, 0]], dtype=object), [(1, 1, 1)]) == 1    # object rows, int64 points: the same


@pytest.mark.parametrize("knob", [None, 3, 6])
def test_pairs_in_blocks_are_all_computed_and_every_decline_counted(knob):
    """Blocks of ``predicate_cache_entries // m`` pairs (at least one): every block, the first included, is
    computed, and the declines of every block add up."""
    big = 2 ** 600
    H = np.array([[big, -big, 1], [1, 2, 3], [big, -big, 0], [-1, 0, 0]], dtype=object)
    P = [(1, 1, 1), (3, 3, 2)]
    rows, cols = [0, 1, 2, 3, 0, 2, 1, 3], [0, 0, 0, 0, 1, 1, 1, 1]
    assert paired(H, P, rows, cols, knob) == 4                               # rows 0 and 2 cancel at both points


def pair_bound(M, m):
    return (m + 3) * U / (1 - (m + 3) * U) * (1 + 4 * U) * M + (m + 1) * Fraction(2) ** -570


@pytest.mark.parametrize("a,b,declined", [(1, 1, 1), (2, 1, 0)])
def test_the_pair_filter_decides_exactly_above_its_bound(a, b, declined):
    """``(X + a, -(X - b)) . (1, 1) = a + b`` with exact floats: 0.8 and 1.2 times the bound."""
    X = 2 ** 51
    ratio = (a + b) / pair_bound(2 * X + a - b, 2)
    assert (ratio < 1) == bool(declined) and abs(ratio - 1) < Fraction(1, 4)
    assert paired(np.array([[X + a, -(X - b)]], dtype=object), [(1, 1)]) == declined


def test_the_pair_filter_declines_just_below_its_bound():
    X = 7205759403792789
    B = pair_bound(2 * X, 2)
    assert B * (1 - 6 * U) < 8 < B
    assert paired(np.array([[X + 4, -(X - 4)]], dtype=object), [(1, 1)]) == 1


@pytest.mark.parametrize("a,shift,declined", [(3, 570, 1), (9, 571, 0)])      # 3 and 4.5 times 2^-570
def test_the_pair_filter_absolute_term(a, shift, declined):
    H = np.array([[2 ** (shift + 499), a, 0]], dtype=object)
    assert scaled_floats(H)[0, 1] == a * 2.0 ** -shift
    assert (Fraction(a, 2 ** shift) < 4 * Fraction(2) ** -570) == bool(declined)   # (m + 1) 2^-570, m = 3
    assert paired(H, [(0, 1, 1)]) == declined


# ---------------------------------------------------------------- lex_order: float sort, exact check, exact fallback

def _lex(rows):
    """The stable exact lexicographic order of homogeneous points, in Fractions."""
    return sorted(range(len(rows)), key=lambda i: tuple(Fraction(v, rows[i][-1]) for v in rows[i][:-1]))


P_ = (2 ** 60 + 1, 0, 1)           # first coordinates 2^60 + 1 and 2^60 round to the same float, so the
Q_ = (2 ** 60, 2 ** 61, 1)         # float sort puts P_ (second coordinate 0) before Q_: exactly, Q_ comes first


@pytest.mark.parametrize("rows", [
    [], [(3, 1)], [(1, 1), (0, 1)], [(0, 1), (1, 1)],
    [(1, 0, 1), (0, 5, 1), (1, 0, 2)],
    [P_, Q_], [Q_, P_],
    [P_, Q_, (2 ** 61, 0, 1)], [(0, 0, 1), P_, Q_], [(0, 0, 1), P_, Q_, (2 ** 62, 0, 1)],
    [(2 ** 60 + 1, 2 ** 61, 1), (2 ** 60, 0, 1), (-1, 0, 1)],
    [(1, 2, 3), (2, 4, 6), (1, 2, 3), (0, 0, 1)],                      # equal points keep their order
    [(-(10 ** 400), 1, 1), (10 ** 400, 0, 1), (-(10 ** 400) + 1, 0, 1)],   # beyond the float range
])
def test_lex_order_is_the_exact_stable_order(rows):
    assert lex_order(rows) == _lex(rows)


def _is_body_of(code_name, name):
    """Whether a frame runs the body of function ``name`` (plain, or mutmut's ``x_<name>__mutmut_*`` copy)."""
    return code_name == name or code_name.startswith(f"x_{name}__mutmut_")


def exact_comparisons(rows):
    """``lex_order(rows)`` and how many exact comparisons of two points it made (a profile hook counts the calls
    of ``_lex_cmp``; it only watches, nothing is patched).  Under mutmut (scripts/mutation.py) the body runs as
    ``x__lex_cmp__mutmut_orig`` behind a trampoline; those calls count instead."""
    calls, previous = [0], sys.getprofile()

    def hook(frame, event, arg):
        if event == "call" and _is_body_of(frame.f_code.co_name, "_lex_cmp"):
            calls[0] += 1

    sys.setprofile(hook)
    try:
        order = lex_order(rows)
    finally:
        sys.setprofile(previous)
    assert order == _lex(rows)
    return calls[0]


@pytest.mark.parametrize("rows,comparisons", [
    ([(3, 1, 1), (1, 2, 1), (2, 0, 1), (-5, 9, 2)], 0),     # distinct first coordinates: the float sort is proved
    ([(1, 9, 1), (1, 2, 1), (2, 0, 1)], 1),                 # one tie in floats: one exact check, no exact sort
    ([(1, 2, 3), (2, 4, 6), (0, 0, 1)], 1),                 # equal points: the check accepts them as they are
    ([(1, 0, 2), (0, 5, 1), (1, 0, 1)], 0),
])
def test_lex_order_compares_exactly_only_the_float_ties(rows, comparisons):
    assert exact_comparisons(rows) == comparisons


def calls_of(names, fn, *args):
    """``fn(*args)`` and how often each function named in ``names`` was called meanwhile (a profile hook: it only
    watches which path did the work where every path gives the same signs; mutmut's copies count too)."""
    calls, previous = dict.fromkeys(names, 0), sys.getprofile()

    def hook(frame, event, arg):
        if event == "call":
            for name in names:
                if _is_body_of(frame.f_code.co_name, name):
                    calls[name] += 1

    sys.setprofile(hook)
    try:
        out = fn(*args)
    finally:
        sys.setprofile(previous)
    return out, calls


@pytest.mark.parametrize("H,P,path", [
    ([[1, -1]], [(1, 1)], "floats"),
    ([[0, 0]], [(2 ** 60, 1)], "floats"),                      # zero rows: the bound is 0
    ([[1, -1]], [(2 ** 52, 1)], "int64"),                      # max|H| max|P| columns = 2^53: no longer floats
    ([[2 ** 30, -1]], [(2 ** 30, 1)], "int64"),
    ([[2 ** 31, -1]], [(2 ** 30, 1)], "filter"),               # = 2^62: no longer int64
])
def test_matrix_signs_take_the_documented_path(H, P, path):
    """Below 2^53 a float product, below 2^62 an int64 product, else the float filter (bound: max|H| max|P| m)."""
    out, calls = calls_of(("row_products", "filtered_signs"), matrix_signs, np.array(H), PreparedPoints.of(P))
    assert out.tolist() == _exact(H, P)
    assert (calls["row_products"] > 0, calls["filtered_signs"] > 0) == {"floats": (True, False), "int64": (False, False),
                                                                        "filter": (calls["row_products"] > 0, True)}[path]


def float_pair_bound(X):
    """The pair filter's bound for ``(X + 4, -(X - 4)) . (1, 1)`` as floats compute it: gamma_5 (1 + 4u) mag + 3 eta."""
    u = 2.0 ** -53
    return 5 * u / (1 - 5 * u) * float(2 * X) * (1 + 4 * u) + 3 * 2.0 ** -570


@pytest.mark.parametrize("X,declined", [(7205759403792787, 1),      # the rounded bound is exactly the value 8
                                        (7205759403792785, 0)])     # one ulp below 8 (gamma over 1 - 6u: 8 itself)
def test_the_pair_filter_at_its_rounded_bound(X, declined):
    assert (float_pair_bound(X) == 8.0) == bool(declined) and float_pair_bound(X) > 8.0 * (1 - 2.0 ** -51)
    assert paired(np.array([[X + 4, -(X - 4)]], dtype=object), [(1, 1)]) == declined


@pytest.mark.parametrize("knob,blocks", [(None, 1), (6, 2), (2, 4)])
def test_pair_blocks_hold_at_most_knob_over_m_pairs_and_at_least_one(knob, blocks):
    """Four declined pairs of width 3: one block by default, two pairs a block under 6 entries, one under 2."""
    big = 2 ** 600
    H = np.array([[big, -big, 1], [big, -big, 0]], dtype=object)
    pts = PreparedPoints.of([(1, 1, 1), (3, 3, 2)])
    rows, cols = np.array([0, 1, 0, 1]), np.array([0, 0, 1, 1])
    with config.override(**({} if knob is None else {"predicate_cache_entries": knob})):
        out, calls = calls_of(("sign_array",), prepared_paired_signs, H, scaled_floats(H), pts, rows, cols)
    assert out.tolist() == [1, 0, 1, 0] and calls["sign_array"] == blocks   # one exact pass per block
