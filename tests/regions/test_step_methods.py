"""The refinement steps' methods one by one, against their definitions written here in Fractions.

``AttentionStep`` and ``ReluStep`` (tropattn/regions/_steps.py) are called directly on small
random layers and parent maps ``f``: labels at points, the rows of a piece (checked pointwise:
a row holds exactly where its label beats its rival), the rivals (exactly the keys whose row
is a facet of the cell, decided by the Fourier-Motzkin oracle), which labels can win, and the
output maps.  The ReLU step is also checked inside a parent polygon (``restrict``: the units
whose line misses it are left out) and across a pickle.  Written to kill the method mutants of
``scripts/mutation.py steps``; nothing here reads the steps' internals.
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction as F
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from oracles.reference import strictly_feasible
from tropattn import config
from tropattn.attention import FFN, Head, Layer
from tropattn.errors import InvalidInputError
from tropattn.exact import counting
from tropattn.regions import AffineMap
from tropattn.regions._relu import _polygon_vertices
from tropattn.regions._steps import AttentionStep, ReluStep


# ---------------------------------------------------------------- the definitions, in Fractions

def _dot(u, v):
    return sum((F(a) * F(b) for a, b in zip(u, v)), F(0))


def _apply(M, c, x):
    return tuple(_dot(row, x) + F(ci) for row, ci in zip(M, c))


def _composed(key, offset, M, c):
    """The score ``key . (M x + c) + offset`` as an affine function of x: ``(gradient, constant)``."""
    return (tuple(sum((F(key[i]) * F(M[i][k]) for i in range(len(M))), F(0)) for k in range(len(M[0]))),
            _dot(key, c) + F(offset))


def _same_key(keys, offsets, j, k):
    return tuple(keys[j]) == tuple(keys[k]) and F(offsets[j]) == F(offsets[k])


def _label(keys, offsets, ties, M, c, x):
    """The head's label at x (the lowest of identical keys; a whole-region tie to the lowest under
    "first"), or None on a wall."""
    z = _apply(M, c, x)
    scores = [_dot(k, z) + F(o) for k, o in zip(keys, offsets)]
    best = max(scores)
    winners = [j for j, s in enumerate(scores) if s == best]
    if all(_same_key(keys, offsets, winners[0], k) for k in winners):
        return winners[0]
    funcs = [_composed(keys[k], offsets[k], M, c) for k in winners]
    if ties == "first" and all(g == funcs[0] for g in funcs):
        return winners[0]
    return None


def _wins_somewhere(keys, offsets, j):
    """Does key j beat every other key on an open set (and no earlier identical key take it)?"""
    if any(_same_key(keys, offsets, k, j) for k in range(j)):
        return False
    rows = [(tuple(F(a) - F(b) for a, b in zip(keys[k], keys[j])), F(offsets[j]) - F(offsets[k]))
            for k in range(len(keys)) if not _same_key(keys, offsets, j, k)]
    return strictly_feasible(rows, len(keys[0]))


# ---------------------------------------------------------------- attention steps

_entry = st.sampled_from([0, 1, -1, 2, F(1, 2), F(-3, 2)])


@st.composite
def _attention_case(draw):
    d_in, d = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    ties = draw(st.sampled_from(["refuse", "first"]))
    residual = draw(st.sampled_from([True, False, "matrix"]))
    out = draw(st.integers(1, 2))
    projection = None
    if draw(st.booleans()):
        projection = [[draw(_entry) for _ in range(out)] for _ in range(d)]
    elif residual is not False:
        out = d                                     # without a residual the output may have another dimension
    pool = [tuple(draw(_entry) for _ in range(d)) for _ in range(3)]      # few keys: repeats and ties
    heads = []
    for _ in range(draw(st.integers(1, 2))):
        n = draw(st.integers(2, 5))
        keys = [draw(st.sampled_from(pool)) for _ in range(n)]
        offsets = [draw(st.sampled_from([0, 0, 1, -1, F(1, 2)])) for _ in range(n)]
        values = [[draw(st.sampled_from([0, 1, -2, F(1, 3), F(5, 2)])) for _ in range(out)] for _ in range(n)]
        heads.append(Head(keys, offsets, values, ties=ties))
    if residual == "matrix":
        residual = [[draw(_entry) for _ in range(d)] for _ in range(d)]
    kind = draw(st.sampled_from(["general", "constant", "rank one"]))      # constant maps tie keys on f
    M = [[draw(_entry) if kind == "general" else 0 for _ in range(d_in)] for _ in range(d)]
    if kind == "rank one":
        M = [[F(i + 1) * draw(_entry) if k == 0 else 0 for k in range(d_in)] for i in range(d)]
    c = [draw(st.sampled_from([0, 1, F(-1, 2), F(2, 3)])) for _ in range(d)]
    index = draw(st.integers(0, 3))
    return Layer(heads, residual=residual, projection=projection), index, M, c


def _points(d_in):
    return [tuple(F(v, D) for v in X) for D in (1, 3) for X in product(range(-3, 4) if d_in == 1 else range(-2, 3), repeat=d_in)]


@settings(max_examples=35, deadline=None)
@given(case=_attention_case())
def test_attention_step_methods_against_the_definition(case):
    layer, index, M, c = case
    f = AffineMap(tuple(tuple(F(v) for v in row) for row in M), tuple(F(v) for v in c))
    step = AttentionStep(layer, index)
    heads = [(h.keys, h.offsets, h.values, h.ties) for h in layer.heads]
    d_in = len(M[0])
    points = _points(d_in)
    # labels_at: the argmax of every head at f(x), or None on a wall of one of them
    for x in points:
        D = 3 if any(v.denominator == 3 for v in x) else 1
        want = [_label(k, o, t, M, c, x) for k, o, _, t in heads]
        got = step.labels_at(f, tuple(int(v * D) for v in x), D)
        assert got == (None if None in want else tuple(want)), (x, got, want)
    # realisable: every label wins on an open set (or takes whole-region ties under "first")
    wins = [[ties == "first" or _wins_somewhere(keys, offsets, j) for j in range(len(keys))]
            for keys, offsets, _, ties in heads]
    for labels in product(*(range(len(k)) for k, _, _, _ in heads)):
        assert step.realisable(labels) == all(w[j] for w, j in zip(wins, labels)), labels
    # rows: each row "j beats k" holds exactly where it does at f(x); together they cut out j's cell
    scores = [[[_dot(k, z) + F(o) for k, o in zip(keys, offsets)] for z in (_apply(M, c, x) for x in points)]
              for keys, offsets, _, _ in heads]
    checked = set()
    for labels in product(*(range(len(k)) for k, _, _, _ in heads)):
        if not step.realisable(labels) or any(
                any(_same_key(k, o, i, j) for i in range(j)) for (k, o, _, _), j in zip(heads, labels)):
            continue
        A, b, walls = step.rows(labels, f)
        assert len(A) == len(b) == len(walls)
        for h, ((keys, offsets, _, ties), j) in enumerate(zip(heads, labels)):
            mine = [i for i, w in enumerate(walls) if w[2] == h]
            assert all(walls[i][:4] == ("head", index, h, j) for i in mine)
            if (h, j) in checked:          # the same rows in every tuple
                continue
            checked.add((h, j))
            fj = _composed(keys[j], offsets[j], M, c)
            tied = [k for k in range(len(keys)) if k != j and _composed(keys[k], offsets[k], M, c) == fj]
            for i in mine:
                k = walls[i][4]
                if k in tied:        # under "first" a lower key tying j everywhere wins: 0 <= -1
                    assert ties == "first" and k < j and not any(A[i]) and b[i] < 0, (walls[i], A[i], b[i])
            lost_tie = ties == "first" and any(k < j for k in tied)
            for x, s in zip(points, scores[h]):
                lhs = [_dot(A[i], x) - b[i] for i in mine]
                beats = all(s[j] >= s[k] for k in range(len(keys)) if k not in tied)
                assert all(v <= 0 for v in lhs) == (beats and not lost_tie), (x, labels, h)
                for i, v in zip(mine, lhs):    # each row on its own: the sign of "k minus j" at f(x), up to a factor
                    k = walls[i][4]
                    if k not in tied:
                        assert (v > 0) == (s[k] > s[j]) and (v == 0) == (s[k] == s[j]), (x, walls[i])
    # output_map: (x if residual, R x for a skip matrix, else 0) + P sum of the chosen values
    R = layer.residual
    for labels in product(*(range(len(k)) for k, _, _, _ in heads)):
        total = [sum((F(vals[j][i]) for (_, _, vals, _), j in zip(heads, labels)), F(0))
                 for i in range(len(heads[0][2][0]))]
        if layer.projection is not None:
            total = [_dot(row, total) for row in layer.projection]
        d = len(M)
        if R is True:
            skip_M, skip_c = M, c
        elif R is False:
            skip_M, skip_c = [[0] * d_in for _ in total], [0] * len(total)
        else:
            skip_M = [[_dot(r, [M[i][k] for i in range(d)]) for k in range(d_in)] for r in R]
            skip_c = [_dot(r, c) for r in R]
        g = step.output_map(labels, f)
        assert g.M == tuple(tuple(F(v) for v in row) for row in skip_M)
        assert g.c == tuple(F(v) + t for v, t in zip(skip_c, total))


def _facet_keys(keys, offsets, j):
    """The keys whose row "j beats k" is a facet of j's cell: dropping it lets points beyond it in
    (among the keys that win somewhere: a hidden or repeated key is never above all of them)."""
    live = [k for k in range(len(keys)) if k != j and _wins_somewhere(keys, offsets, k)]   # the others never
    out = []                                                                            # decide the maximum
    for k in live:
        others = [(tuple(F(a) - F(b) for a, b in zip(keys[i], keys[j])), F(offsets[j]) - F(offsets[i]))
                  for i in live if i != k]
        beyond = (tuple(F(b) - F(a) for a, b in zip(keys[k], keys[j])), F(offsets[k]) - F(offsets[j]))
        if strictly_feasible(others + [beyond], len(keys[0])):
            out.append(k)
    return out


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 6), d=st.integers(1, 2), data=st.data())
def test_rivals_are_the_facet_neighbours(n, d, data):
    keys = [[data.draw(st.integers(-2, 2)) for _ in range(d)] for _ in range(n)]
    offsets = [data.draw(st.sampled_from([0, -1, 1, F(-1, 2)])) for _ in range(n)]
    step = AttentionStep(Layer([Head(keys, offsets)], residual=False), 0)
    for j in range(n):
        distinct = [k for k in range(n) if not _same_key(keys, offsets, j, k)]
        if _wins_somewhere(keys, offsets, j):
            assert sorted(step.rivals(0, j)) == _facet_keys(keys, offsets, j), (keys, offsets, j)
        else:                                   # hidden or repeated: every distinct key
            assert sorted(step.rivals(0, j)) == distinct


def test_a_head_in_nine_dimensions_takes_every_distinct_key_as_rival():
    e = [[int(i == k) for i in range(9)] for k in range(9)]
    keys = [[0] * 9, e[0], e[1], e[0], [2 * v for v in e[0]]]          # key 3 repeats key 1
    step = AttentionStep(Layer([Head(keys, [0, 0, 0, 0, -5])], residual=False), 0)
    assert [sorted(step.rivals(0, j)) for j in range(5)] == [[1, 2, 3, 4], [0, 2, 4], [0, 1, 3, 4], [0, 2, 4],
                                                             [0, 1, 2, 3]]
    # without a diagram a label is a candidate unless it repeats an earlier key (the rows decide the rest)
    assert [step.realisable((j,)) for j in range(5)] == [True, True, True, False, True]


def test_a_residual_of_the_wrong_dimension_is_refused():
    step = AttentionStep(Layer([Head([[0], [1]], [0, 0], [[1], [2]])]), 2)
    wrong = AffineMap(((F(1),), (F(0),)), (F(0), F(1)))                  # a parent map into R^2
    with pytest.raises(InvalidInputError) as err:
        step.output_map((1,), wrong)
    assert str(err.value) == ("layer 2: the heads' outputs have dimension 1 but the model has dimension 2; "
                              "give values of length 2 or a projection of shape (2, 1)")


def test_a_head_in_eight_dimensions_has_a_diagram():
    # the largest dimension with a power diagram: the rivals are the neighbours, not every distinct key
    e = [[int(i == k) for i in range(8)] for k in range(8)]
    keys = [[0] * 8, e[0], e[1], [2 * v for v in e[0]], e[0]]          # key 4 repeats key 1
    offsets = [0, 0, 0, -5, 0]
    step = AttentionStep(Layer([Head(keys, offsets)], residual=False), 0)
    assert [sorted(step.rivals(0, j)) for j in range(4)] == [_facet_keys(keys, offsets, j) for j in range(4)] \
        == [[1, 2], [0, 2, 3], [0, 1, 3], [1, 2]]
    assert [step.realisable((j,)) for j in range(5)] == [True, True, True, True, False]


@pytest.mark.parametrize("n_heads", [1, 3])
@pytest.mark.parametrize("residual", [True, [[F(1, 7), 2], [-1, F(3, 11)]], False])
def test_output_maps_with_large_entries(residual, n_heads):
    # numerators past 2^53 and 2^63 in the values and in the parent map, one head or three summed
    big = 2 ** 45 + 1
    heads = [Head([[1, -1], [0, 0]], [1, 0], [[-big, F(big, 2)], [7, F(2 ** 62 + 1, 13)]]),
             Head([[0, 0], [1, 0]], [0, -1], [[F(big, 3), -big], [F(-(2 ** 44) - 7, 5), 3]]),
             Head([[0, 1], [1, 1]], [0, 0], [[F(big, 9), 1], [2 ** 70, F(-1, 2)]])][:n_heads]
    step = AttentionStep(Layer(heads, residual=residual), 1)
    den = 3 ** 21
    M = ((F(2 ** 50 + 3, den), F(-5, den)), (F(1, 2), F(-(2 ** 47), den)))
    c = (F(-(2 ** 61), 2 * den), F(2 ** 55 + 9, 7))
    f = AffineMap(M, c)
    for labels in product(range(2), repeat=n_heads):
        total = [sum((F(h.values[j][i]) for h, j in zip(heads, labels)), F(0)) for i in range(2)]
        if residual is True:
            skip_M, skip_c = M, c
        elif residual is False:
            skip_M, skip_c = ((0, 0), (0, 0)), (0, 0)
        else:
            skip_M = tuple(tuple(_dot(r, (M[0][k], M[1][k])) for k in range(2)) for r in residual)
            skip_c = tuple(_dot(r, c) for r in residual)
        g = step.output_map(labels, f)
        assert g.M == tuple(tuple(F(v) for v in row) for row in skip_M)
        assert g.c == tuple(F(v) + t for v, t in zip(skip_c, total)), labels


# ---------------------------------------------------------------- ReLU steps

def _pre_activations(W1, b1, M, c, x):
    y = _apply(M, c, x)
    return [_dot(row, y) + F(b) for row, b in zip(W1, b1)]


def _pulled_back_zero(W1, b1, M, c, i):
    """Is unit i's pre-activation identically 0 through the parent map?"""
    return _composed(W1[i], b1[i], M, c) == ((F(0),) * len(M[0]), F(0))


def _check_relu_rows(step, W1, b1, M, c, f, bits, points, index, units=None):
    """Every row of the piece holds exactly where its unit has its bit; returns the units with a row."""
    A, b, walls = step.rows(bits, f)
    assert len(A) == len(b) == len(walls)
    assert [w[:2] for w in walls] == [("relu", index)] * len(walls)
    assert all(w[3] == bits[w[2]] for w in walls)
    mine = [w[2] for w in walls]
    assert mine == sorted(set(mine))
    zero = [_pulled_back_zero(W1, b1, M, c, i) for i in range(len(W1))]
    for a, beta, w in zip(A, b, walls):
        if zero[w[2]]:                                     # 0 everywhere: off, so "on" is impossible
            assert bits[w[2]] == 1 and not any(a) and beta < 0
    for x in points:
        pre = _pre_activations(W1, b1, M, c, x)
        for a, beta, w in zip(A, b, walls):
            i = w[2]
            if not zero[i]:
                lhs = _dot(a, x) - beta
                want = -pre[i] if bits[i] else pre[i]      # the row reads want <= 0, up to a positive factor
                assert (lhs > 0) == (want > 0) and (lhs == 0) == (want == 0), (x, w)
    if units is None:                                      # the units left out: off and 0 everywhere
        assert all(bits[i] == 0 and zero[i] for i in range(len(bits)) if i not in mine)
    return mine


_weight = st.sampled_from([0, 1, -1, 2, -3, F(1, 2), F(-2, 3)])


@settings(max_examples=25, deadline=None)
@given(d_in=st.integers(1, 2), d=st.integers(1, 3), n=st.integers(1, 5), data=st.data())
def test_relu_step_labels_rows_and_maps_against_the_definition(d_in, d, n, data):
    W1 = [[data.draw(_weight) for _ in range(d)] for _ in range(n)] + [[0] * d]     # the last unit reads nothing
    b1 = [data.draw(_weight) for _ in range(n)] + [0]
    W2 = [[data.draw(_weight) for _ in range(n + 1)] for _ in range(d)]
    b2 = [data.draw(_weight) for _ in range(d)]
    constant = data.draw(st.booleans())                 # a constant parent: some units are 0 on all of it
    M = [[0 if constant else data.draw(_weight) for _ in range(d_in)] for _ in range(d)]
    c = [data.draw(st.sampled_from([0, 1, F(-1, 2), 2])) for _ in range(d)]
    f = AffineMap(tuple(tuple(F(v) for v in r) for r in M), tuple(F(v) for v in c))
    index = data.draw(st.integers(0, 3))
    step = ReluStep(FFN(W1, b1, W2, b2), index)
    points = [tuple(F(v, D) for v in X) for D in (1, 2) for X in product(range(-2, 3), repeat=d_in)]
    for x in points:          # labels: the sign of every pre-activation; None on a unit's wall
        D = 2 if any(v.denominator == 2 for v in x) else 1
        pre = _pre_activations(W1, b1, M, c, x)
        walls = [i for i, p in enumerate(pre) if p == 0 and not _pulled_back_zero(W1, b1, M, c, i)]
        want = None if walls else tuple(int(p > 0) for p in pre)
        assert step.labels_at(f, tuple(int(v * D) for v in x), D) == want, x
    patterns = [tuple(data.draw(st.integers(0, 1)) for _ in range(n + 1)) for _ in range(3)]
    for bits in patterns:
        _check_relu_rows(step, W1, b1, M, c, f, bits, points, index)
        listed = list(bits)       # a list read twice, changed in between: the second map is of the new bits
        first = step.output_map(listed, f)
        listed[-2] = 1 - listed[-2]
        second = step.output_map(listed, f)
        for got, want_bits in ((first, bits), (second, tuple(listed))):
            for x in points[:d_in + 1] + points[-1:]:
                y = _apply(M, c, x)
                pre = _pre_activations(W1, b1, M, c, x)
                want = [v + sum((F(W2[o][i]) * p * want_bits[i] for i, p in enumerate(pre)), F(0)) + F(b2[o])
                        for o, v in enumerate(y)]
                assert tuple(got.apply(x)) == tuple(want), (x, want_bits)


def _ffn_map(W1, b1, W2, b2, M, c, bits):
    """``x -> f(x) + W2 diag(bits) (W1 f(x) + b1) + b2`` as (matrix, offset) in Fractions."""
    d_in = len(M[0])
    hid = [_composed(W1[i], b1[i], M, c) for i in range(len(W1))]
    out_M = tuple(tuple(F(M[o][k]) + sum((F(W2[o][i]) * hid[i][0][k] * bits[i] for i in range(len(W1))), F(0))
                        for k in range(d_in)) for o in range(len(M)))
    out_c = tuple(F(c[o]) + sum((F(W2[o][i]) * hid[i][1] * bits[i] for i in range(len(W1))), F(0)) + F(b2[o])
                  for o in range(len(M)))
    return out_M, out_c


@pytest.mark.parametrize("large", [False, True])
def test_output_maps_with_many_units_flipped_at_once(large):
    # 80 units: products over more than a few units, from scratch and from a near piece (25 units flipped);
    # a parent map with numerators past 2^60 makes the pre-activations too large for floats
    n = 80
    W1 = [[(i % 7) - 3, F(i % 5 + 1, 4)] for i in range(n)]
    b1 = [F(i - 40, 3) for i in range(n)]
    W2 = [[(-1) ** i * (i % 4 + 1) for i in range(n)], [F(i % 3, 2) for i in range(n)]]
    b2 = [1, F(-1, 5)]
    M, c = ((F(1, 3), 2), (F(-1), F(1, 2))), (F(1, 7), 0)
    if large:
        M, c = ((F(2 ** 61 + 1, 3 ** 30), 2), (F(-1), F(2 ** 62 - 1, 5))), (F(1, 7), F(-(2 ** 63) - 3, 3 ** 30))
    f = AffineMap(M, c)
    step = ReluStep(FFN(W1, b1, W2, b2), 0)
    full = (1,) * n
    patterns = [full, (0,) * 25 + (1,) * 55, (1,) * 55 + (0,) * 25, full, (0, 1) * 40, full]
    for bits in patterns:
        assert (step.output_map(bits, f).M, step.output_map(bits, f).c) == _ffn_map(W1, b1, W2, b2, M, c, bits)


def _polygon_rows(vertices):
    """Primitive integer facet rows ``(a1, a2, b)`` (``a . x <= b``, as the search gives them) of the convex
    polygon with these (rational) vertices, counter-clockwise."""
    rows = []
    for (x0, y0), (x1, y1) in zip(vertices, vertices[1:] + vertices[:1]):
        a1, a2 = F(y1) - F(y0), F(x0) - F(x1)         # the outward normal of a counter-clockwise edge
        row = (a1, a2, a1 * x0 + a2 * y0)
        scale = math.lcm(*(v.denominator for v in row))
        row = [int(v * scale) for v in row]
        g = math.gcd(*row)
        rows.append(tuple(v // g for v in row))
    return rows


_PARENT_FFN = FFN([[1, 0], [0, 1], [1, 1], [-1, 2], [1, -1], [0, 0], [2, 1], [F(-1, 2), 1], [0, 1]],
                  [-10, 0, -1, 20, 0, 0, F(-1, 2), 0, F(-9, 4)],
                  [[1, -1, 2, 0, 1, 3, -1, 2, 1], [0, 2, -1, 1, 1, 5, F(1, 2), -1, -3]], [0, 1])


def _parent_case(vertices=((1, 1), (3, 1), (3, 2), (1, 3))):
    M, c = ((F(1), F(0)), (F(1, 2), F(1))), (F(0), F(-1, 2))
    vertices = list(vertices)                            # counter-clockwise; unit 7 is x2 - 1/2 through f
    W1 = [[F(v) for v in r] for r in _PARENT_FFN.W1]
    b1 = [F(v) for v in _PARENT_FFN.b1]
    return M, c, vertices, W1, b1


def _denominator(x):
    return math.lcm(*(v.denominator for v in x))


@pytest.mark.parametrize("vertices", [((1, 1), (3, 1), (3, 2), (1, 3)), ((0, 1), (3, 2), (1, 3)),
                                      ((F(1, 2), 1), (3, 1), (1, F(5, 2))),       # unit 8 crosses its top only
                                      ((2, 2), (4, 2), (4, 4), (2, 4))])          # a vertex (2, 2) = 2 (1, 1)
def test_inside_a_parent_polygon_only_the_units_crossing_it_have_rows(vertices):
    M, c, vertices, W1, b1 = _parent_case(vertices)
    f = AffineMap(M, c)
    rows = _polygon_rows(vertices)
    step = ReluStep(_PARENT_FFN, 1)
    signs = [{(p > 0) - (p < 0) for p in (_pre_activations(W1, b1, M, c, v) for v in vertices)
              for p in [p[i]]} for i in range(len(W1))]
    cross = [i for i, s in enumerate(signs) if s not in ({1}, {-1})]
    fixed = [int(s == {1}) for s in signs]
    assert 0 < len(cross) < len(W1)
    with counting() as scope:
        step.restrict(f, rows)
    assert scope.snapshot()["by_place"].get("certified:relu.parent_filter", 0) == len(W1) - len(cross)
    def holds(x):
        return all(r[0] * x[0] + r[1] * x[1] <= r[2] for r in rows)
    inside = [x for x in product([F(a, 4) for a in range(17)], repeat=2) if holds(x)]
    axis = [F(a) for a in range(-4, 5)] + [F(-1, 2), F(1, 2), F(3, 2), F(-12), F(12)]
    outside = [x for x in product(axis, repeat=2) if not holds(x)]
    for x in inside + outside:     # labels: the same inside the polygon (its boundary too) and outside it
        D = _denominator(x)         # the point as given: X / D in lowest terms
        pre = _pre_activations(W1, b1, M, c, x)
        walls = [i for i, p in enumerate(pre) if p == 0 and not _pulled_back_zero(W1, b1, M, c, i)]
        want = None if walls else tuple(int(p > 0) for p in pre)
        got = step.labels_at(f, tuple(int(v * D) for v in x), D)
        assert got == want and (got is None or all(type(v) is int for v in got)), x   # ints: patterns, files
    # bits that keep the parent's fixed signs: rows of the crossing units only; other bits: every unit's row
    pieces = {tuple(int(p > 0) for p in _pre_activations(W1, b1, M, c, x)) for x in inside}
    assert len(pieces) > 1
    for bits in pieces:
        assert all(bits[i] == fixed[i] for i in range(len(W1)) if i not in cross)
        assert _check_relu_rows(step, W1, b1, M, c, f, bits, inside, 1, units=cross) == \
            [i for i in cross if not (bits[i] == 0 and _pulled_back_zero(W1, b1, M, c, i))]
    kept = next(i for i in range(len(W1)) if i not in cross)
    other = tuple(1 - v if i == kept else v for i, v in enumerate(sorted(pieces)[0]))
    assert kept in _check_relu_rows(step, W1, b1, M, c, f, other, inside + outside, 1)
    # another parent map (even an equal one) is not the polygon's: every unit's row, labels from scratch
    g = AffineMap(M, c)
    assert len(_check_relu_rows(step, W1, b1, M, c, g, sorted(pieces)[0], outside, 1)) == len(W1) - 1
    for x in outside:
        pre = _pre_activations(W1, b1, M, c, x)
        if all(p != 0 or _pulled_back_zero(W1, b1, M, c, i) for i, p in enumerate(pre)):
            D = _denominator(x)
            assert step.labels_at(g, tuple(int(v * D) for v in x), D) == tuple(int(p > 0) for p in pre)


@pytest.mark.parametrize("how", ["filter off", "unbounded", "line", "no rows"])
def test_a_parent_the_filter_does_not_read_keeps_every_unit(how):
    M, c, vertices, W1, b1 = _parent_case()
    rows = _polygon_rows(vertices)
    if how == "unbounded":                                           # a strip: no top edge
        rows = rows[:2] + rows[3:]
    elif how == "no rows":
        rows = []
    elif how == "line":                                              # a parent on a line: not the plane
        M = ((F(1),), (F(1, 2),))
    f = AffineMap(M, c)
    step = ReluStep(_PARENT_FFN, 0)
    with counting() as scope, config.override(relu_parent_filter=0 if how == "filter off" else 1):
        step.restrict(f, rows if how != "line" else [(1, 2), (-1, 0)])
    assert scope.snapshot()["by_place"].get("certified:relu.parent_filter", 0) == 0
    points = [tuple(F(v, 3) for v in X) for X in product(range(-3, 16, 2), repeat=len(M[0]))]
    bits = tuple(int(p > 0) for p in _pre_activations(W1, b1, M, c, points[-1]))
    assert len(_check_relu_rows(step, W1, b1, M, c, f, bits, points, 0)) == len(W1) - 1      # unit 5 reads 0
    for x in points:
        pre = _pre_activations(W1, b1, M, c, x)
        if all(p != 0 or _pulled_back_zero(W1, b1, M, c, i) for i, p in enumerate(pre)):
            assert step.labels_at(f, tuple(int(v * 3) for v in x), 3) == tuple(int(p > 0) for p in pre)


def test_a_used_relu_step_pickles_like_a_fresh_one():
    # the per-parent caches stay behind: a step sent to a worker carries its weights only
    M, c, vertices, W1, b1 = _parent_case()
    f = AffineMap(M, c)
    fresh, used = ReluStep(_PARENT_FFN, 2), ReluStep(_PARENT_FFN, 2)
    used.restrict(f, _polygon_rows(vertices))
    bits = used.labels_at(f, (7, 6), 4)
    assert bits is not None
    used.rows(bits, f)
    used.output_map(bits, f)
    fresh.token = used.token                # a step's name in map recipes: each step has its own
    assert pickle.dumps(used) == pickle.dumps(fresh)
    copy = pickle.loads(pickle.dumps(used))
    assert copy.labels_at(f, (7, 6), 4) == bits and copy.rows(bits, f) == fresh.rows(bits, f)
    assert copy.output_map(bits, f) == fresh.output_map(bits, f)


@pytest.mark.parametrize("d_in", [1, 2])
def test_a_hidden_lower_key_that_ties_on_the_whole_parent_takes_it(d_in):
    # scores z, 1, 2z - 1 (key 0 has no cell) and a parent fed the constant z = 1: all three tie there.
    # Label 1's only rival, key 2, ties it (dropped: 1 < 2); the hidden key 0 ties it too and wins under
    # "first", so label 1 gets the impossible row 0 <= -1 (over the parent's d_in coordinates)
    head = Head([[1], [0], [2]], [0, 1, -1], [[1], [5], [-7]], ties="first")
    step = AttentionStep(Layer([head]), 3)
    f = AffineMap(((F(0),) * d_in,), (F(1),))
    assert step.rivals(0, 1) == [2]
    assert step.rows((1,), f) == ([(0,) * d_in], [-1], [("head", 3, 0, 1, 0)])
    assert step.rows((0,), f) == ([], [], [])                   # key 0 wins the whole parent: no row
    assert step.labels_at(f, (5,) * d_in, 2) == (0,)


def test_a_unit_positive_on_the_parent_by_one_part_in_2_to_55_is_certified():
    # pre-activations (2^55 + 1) x1 - 2^55 and x2 - 1 on the square [1, 3] x [0, 2]: the first is 1 at the
    # left edge (in floats 0), so only an exact sign keeps it fixed on the polygon; the second crosses it
    big = 2 ** 55
    step = ReluStep(FFN([[big + 1, 0], [0, 1]], [-big, -1], [[1, 0], [0, 1]], [0, 0]), 0)
    f = AffineMap.identity(2)
    with counting() as scope:
        step.restrict(f, _polygon_rows([(1, 0), (3, 0), (3, 2), (1, 2)]))
    assert scope.snapshot()["by_place"].get("certified:relu.parent_filter", 0) == 1
    assert step.rows((1, 1), f) == ([(0, -1)], [-1], [("relu", 0, 1, 1)])
    assert step.labels_at(f, (1, 1), 1) is None and step.labels_at(f, (2, 3), 2) == (1, 1)


@pytest.mark.parametrize("b", [2 ** 53 + 1, 2 ** 60 + 3, 3 ** 80])
def test_polygon_vertices_are_exact_integers_past_the_float_range(b):
    """The corners of ``|x1| <= b``, ``-b <= x2 <= b / 3`` as ``(X1, X2, D)`` in lowest terms, ints beyond 2^53."""
    rows = [(1, 0, b), (-1, 0, b), (0, 3, b), (0, -1, b)]
    want = set()
    for x1, x2 in product((F(b), F(-b)), (F(b, 3), F(-b))):
        D = _denominator((x1, x2))
        want.add((int(x1 * D), int(x2 * D), D))
    got = _polygon_vertices(rows)
    assert set(got) == want and len(got) == 4
    assert all(type(v) is int for vertex in got for v in vertex)
