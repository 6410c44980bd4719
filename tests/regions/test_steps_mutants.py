"""Each feature of the refinement steps (tropattn/regions/_steps.py) against the independent reference.

Written to kill the mutants of _steps.py (scripts/mutation.py steps) by behaviour only: every
check runs ``enumerate_regions`` and compares the regions, patterns, affine maps, interior points
and facet graph with tests/oracles (a Fraction evaluator and a brute force over label tuples
that share no code with tropattn).  Each region's map is also checked at d + 1 affinely
independent points inside it against the reference's pointwise evaluation, so a wrong map is
caught even where the reference's own algebra would agree with a wrong pattern.
"""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from oracles import brute_force, evaluate, full_dimensional, load_model, pattern_at, region_polyhedron
from oracles.compare import compare
from tropattn.attention import Head, Layer, Transformer, slice_model
from tropattn.errors import TieError
from tropattn.io import model_from_json
from tropattn.regions import brute_force_regions, enumerate_regions


def _model(d, *layers, ties="first"):
    return {"format": "tropattn.model/1", "dim": d, "ties": ties, "layers": list(layers)}


def _layer(keys, offsets, values, **kw):
    return dict({"heads": [{"keys": keys, "offsets": offsets, "values": values}]}, **kw)


def _inside(region, x):
    return all(sum((a * v for a, v in zip(row, x)), F(0)) < b for row, b in zip(region.A, region.b))


def _probe_points(region):
    """The interior point and one point moved along each axis, strictly inside the region."""
    x = tuple(region.interior_point)
    out = [x]
    for i in range(len(x)):
        eps = F(1, 2)
        while not _inside(region, tuple(v + eps * (k == i) for k, v in enumerate(x))):
            eps /= 4
        out.append(tuple(v + eps * (k == i) for k, v in enumerate(x)))
    return out


def _maps_pointwise(result, ref_model, lift=None):
    """Every region's pattern and map agree with the reference at d + 1 points inside it."""
    for r in result.activation_regions:
        for x in _probe_points(r):
            y = lift(x) if lift else x
            assert pattern_at(ref_model, y) == r.pattern, (x, r.pattern)
            assert tuple(r.map.apply(x)) == evaluate(ref_model, y), (x, r.pattern)


def check(obj, box=None, edges=True):
    """tropattn's regions of ``obj`` (a model dict) are the reference's; returns the RegionSet."""
    result = enumerate_regions(model_from_json(obj), box=box, progress=False)
    found = compare(obj, result, box, edges=edges)
    if edges:
        assert not found["missing_edges"] and not found["extra_edges"], found
    _maps_pointwise(result, load_model(obj, box))
    for r in result.activation_regions:                              # each facet names its layer, unit or labels
        for tag in r.walls:
            if tag[0] == "head":
                assert r.pattern[tag[1]][0][tag[2]] == tag[3] != tag[4], (tag, r.pattern)
            elif tag[0] == "relu":
                assert r.pattern[tag[1]][1][tag[2]] == tag[3], (tag, r.pattern)
    brute = brute_force_regions(model_from_json(obj), box=box)       # every label tuple, every comparison row
    assert brute == sorted(r.pattern for r in result.activation_regions)
    return result


# ---------------------------------------------------------------- attention steps

def test_values_with_halves_and_several_heads():
    # values over a denominator 2 (the residual map's non-integer path) and two heads summed
    heads = [{"keys": [[0, 0], [1, 0], [2, 1]], "offsets": [0, "-1/2", -2], "values": [["1/2", 0], [0, "-1/2"], [1, 1]]},
             {"keys": [[0, 0], [0, 1], [1, -1]], "offsets": [0, 0, "-1/2"], "values": [[0, "3/2"], ["-1/2", 0], [0, 0]]}]
    second = _layer([[0, 0], [1, 1], [-1, 2]], [0, -1, 0], [[1, 0], [0, "1/2"], ["-3/2", 1]])
    r = check(_model(2, {"heads": heads}, second), box=(-3, 3))
    assert r.n_activation >= 10


def test_projection_with_fractions_and_no_residual():
    proj = [["1/2", 1], [-1, "3/2"]]
    L0 = _layer([[0, 0], [1, 0], [0, 1]], [0, 0, "-1/2"], [[1, 0], [0, 1], ["1/2", -1]], projection=proj)
    L1 = _layer([[0, 0], [1, -1], [1, 1]], [0, 0, -1], [[0, 1], [1, 0], [-1, -1]], residual=False, projection=proj)
    L2 = _layer([[0, 0], [2, 1]], [0, -1], [[0, 0], [1, 1]])
    check(_model(2, L0, L1, L2), box=(-2, 3))


def test_a_layer_without_residual_feeds_constants_to_whole_region_ties():
    # layer 0 has no residual: layer 1 reads the constant 1 or 2; at 1 its keys 0 and 1 (scores z and
    # 2z - 1) tie on the whole region and the lower index wins under "first"; at 2 key 1 wins
    L0 = _layer([[0], [1]], [0, 0], [[1], [2]], residual=False)
    L1 = _layer([[1], [2], [0]], [0, -1, -5], [[1], [5], [-7]])
    r = check(_model(1, L0, L1))
    assert sorted(p[1][0] for p in (r.pattern for r in r.activation_regions)) == [(0,), (1,)]


def test_a_hidden_key_wins_a_whole_region_tie():
    # scores z, 1, 2z - 1 meet only at z = 1 (key 0 has no cell); layer 0 feeds the constant 1 on x < 0:
    # all three tie there and key 0, the lowest index, wins under "first"
    L0 = _layer([[0], [1]], [0, 0], [[1], [2]], residual=False)
    L1 = _layer([[1], [0], [2]], [0, 1, -1], [[1], [5], [-7]])
    r = check(_model(1, L0, L1))
    assert sorted(p[1][0] for p in (x.pattern for x in r.activation_regions)) == [(0,), (2,)]


@pytest.mark.parametrize("offset", [-3, -1, "1/2", 2])
def test_a_hidden_key_wins_a_whole_region_tie_behind_a_facet(offset):
    # the FFN folds x1 onto -1 where x1 > -1; there layer 1's keys 0, 1, 2 (scores 0, z1 + 1, -z1 - 1:
    # key 0 has no cell) tie on the whole piece where key 3 (z2 + offset) loses, and key 0 wins it;
    # the search reaches that piece across key 3's wall from one side or the other
    L0 = _layer([[0, 0], [1, 0]], [0, -3], [[0, 0], [0, 1]],
                ffn={"W1": [[1, 0]], "b1": [1], "W2": [[-1], [0]], "b2": [0, 0]})
    L1 = _layer([[0, 0], [1, 0], [-1, 0], [0, 1]], [0, 1, -1, offset], [[1, 0], [0, 1], [1, 1], [-1, 0]])
    r = check(_model(2, L0, L1))
    assert any(x.pattern[1][0] == (0,) for x in r.activation_regions)


@pytest.mark.parametrize("offset", [-3, 2])
def test_a_hidden_key_that_loses_a_whole_region_tie_of_two_others(offset):
    # as above with key 0 at -5 (below the others everywhere): keys 1 and 2 tie on the folded piece, key 1 wins
    L0 = _layer([[0, 0], [1, 0]], [0, -3], [[0, 0], [0, 1]],
                ffn={"W1": [[1, 0]], "b1": [1], "W2": [[-1], [0]], "b2": [0, 0]})
    L1 = _layer([[0, 0], [1, 0], [-1, 0], [0, 1]], [-5, 1, -1, offset], [[1, 0], [0, 1], [1, 1], [-1, 0]])
    r = check(_model(2, L0, L1))
    assert any(x.pattern[1][0] == (1,) and x.pattern[0][1] == (1,) for x in r.activation_regions)


def test_ties_refuse_raises_on_a_whole_region_tie_and_not_on_a_wall():
    L0 = _layer([[0], [1]], [0, 0], [[1], [2]], residual=False)
    tied = _model(1, L0, _layer([[1], [2], [0]], [0, -1, -5], [[1], [5], [-7]]), ties="refuse")
    with pytest.raises(TieError, match="tie on a whole region"):
        enumerate_regions(model_from_json(tied), progress=False)
    with pytest.raises(TieError, match="ties keys 0 and 1 on a whole region"):
        brute_force_regions(model_from_json(tied))
    walls_only = _model(1, _layer([[0], [1], [2]], [0, 0, -1], [[0], [1], [3]]), ties="refuse")
    assert enumerate_regions(model_from_json(walls_only), progress=False).n_activation == 3


def test_duplicate_and_hidden_keys():
    # key 3 repeats key 1 exactly (never wins), key 2 is hidden below the others (0, x, -5 + x/2)
    L = _layer([[0], [1], ["1/2"], [1]], [0, 0, -5, 0], [[1], [-1], [9], [4]])
    r = check(_model(1, L, L))
    assert all(3 not in p[0][0] and 2 not in p[0][0] for p in (x.pattern for x in r.activation_regions))


def test_a_head_reading_more_than_eight_coordinates():
    # d = 9: no power diagram, every distinct key is a rival (with a duplicate and a hidden key)
    d = 9
    e = [[int(i == k) for i in range(d)] for k in range(d)]
    L0 = _layer([[0] * d, e[0], e[1], e[0], [F(1, 2) * v for v in e[0]]], [0, 0, "-1/2", 0, -3],
                [[0] * d, e[2], e[3], e[4], e[5]])
    L1 = _layer([[0] * d, e[2], [1, 1] + [0] * 7], [0, "-1/2", -1], [[0] * d, e[0], e[1]],
                ffn={"W1": [e[3]], "b1": ["-1/2"], "W2": [[v] for v in e[1]], "b2": [0] * d})
    obj = _model(d, L0, L1)
    r = check(obj, box=(-2, 2), edges=False)         # the pairwise facet test in d = 9 is the slow part
    assert r.n_activation == len(brute_force(load_model(obj, (-2, 2)))) >= 6


# ---------------------------------------------------------------- ReLU steps

def test_ffn_with_many_units_near_pieces_share_products():
    # eight units on a line: neighbouring pieces differ in one bit (the near-piece path of the output map)
    W1 = [[1], [-1], [2], [1], [-1], [3], [1], [-2]]
    b1 = [-1, -1, 1, "1/2", "3/2", -2, 2, 3]
    ffn = {"W1": W1, "b1": b1, "W2": [[1, -1, "1/2", 1, 2, -1, "-1/2", 1]], "b2": ["1/4"]}
    L0 = _layer([[0], [1]], [0, -4], [[0], [1]], ffn=ffn)
    L1 = _layer([[0], [1], [-1]], [0, -2, -3], [[1], [0], [2]])
    r = check(_model(1, L0, L1))
    assert r.n_activation >= 8


def test_ffn_in_two_dimensions_with_float_weights():
    # float weights are read exactly (powers of two as denominators); four units in the plane
    ffn = {"W1": [[0.5, -1.25], [1.0, 0.75], [-0.375, 1.0], [1.5, 1.5]], "b1": [0.25, -1.0, 0.5, -2.0],
           "W2": [[1.0, -0.5, 0.25, 1.0], [-1.0, 1.0, 0.5, -0.75]], "b2": [0.125, -0.5]}
    L0 = _layer([[0, 0], [1, 0]], [0, -1], [[0, 0], [0.5, -1.5]], ffn=ffn)
    L1 = _layer([[0, 0], [1, 1], [-1, 0.5]], [0, -1, -0.5], [[0, 0], [1, 0], [0, 1]])
    check(_model(2, L0, L1), box=(-3, 3))


def test_units_identically_zero_on_a_region_are_off():
    # no residual: the FFN reads the constant value; unit 0's pre-activation is 0 - 0 there (always off),
    # unit 1's is 1 on the first key's region and -1 on the second's; unit 2 is zero everywhere
    ffn = {"W1": [[1, 0], [0, 1], [0, 0]], "b1": [0, 0, 0], "W2": [[1, 2, 5], [3, -1, 7]], "b2": [0, 1]}
    L0 = _layer([[0, 0], [1, 0]], [0, 0], [[0, 1], [0, -1]], residual=False, ffn=ffn)
    L1 = _layer([[0, 0], [0, 1], [1, 1]], [0, 0, -1], [[1, 0], [0, 1], [1, 1]])
    r = check(_model(2, L0, L1))
    assert {p[0][1] for p in (x.pattern for x in r.activation_regions)} == {(0, 1, 0), (0, 0, 0)}


def test_a_unit_zero_on_a_wall_of_the_layer_before():
    # unit relu(x) switches exactly on the head's wall x = 0: no extra piece, no tie
    ffn = {"W1": [[1], [-1]], "b1": [0, 0], "W2": [[1, 1]], "b2": [0]}
    r = check(_model(1, _layer([[0], [1]], [0, 0], [[0], [0]], ffn=ffn)))
    assert r.n_activation == 2


# ---------------------------------------------------------------- skip matrices (a sliced model)

def _lift(x0, directions):
    def lift(t):
        return tuple(F(x0[i]) + sum((F(v[i]) * s for v, s in zip(directions, t)), F(0)) for i in range(len(x0)))
    return lift


@pytest.mark.parametrize("x0, directions", [((F(1, 3), F(-1, 2), 0), ((1, 0, 1), (0, 1, -1))),
                                             ((0, F(1, 2), F(1, 4)), ((1, 1, 1),))])
def test_a_sliced_model_through_skip_matrices(x0, directions):
    # a slice of a 3-d model: each layer's skip term is a matrix; the regions are the full model's
    # regions met by the plane (line) in a set with an interior, with the full model's maps
    L0 = _layer([[0, 0, 0], [1, 0, -1], [0, 1, 1]], [0, "-1/2", 0], [[1, 0, 0], [0, "1/2", 1], [-1, 1, 0]],
                ffn={"W1": [[1, 1, 0], [0, -1, 1]], "b1": [0, "1/2"], "W2": [[1, 0], [0, -1], [1, 1]],
                     "b2": [0, 0, "1/2"]})
    L1 = _layer([[0, 0, 0], [1, 1, 0], [0, -1, 2]], [0, -1, 0], [[0, 1, 0], [1, 0, 0], [0, 0, -1]])
    obj = _model(3, L0, L1)
    ref = load_model(obj)
    sliced = slice_model(model_from_json(obj), list(x0), [list(v) for v in directions])
    box = (-3, 3)
    result = enumerate_regions(sliced, box=box, progress=False)
    lift = _lift(x0, directions)
    _maps_pointwise(result, ref, lift)
    k = len(directions)
    expected = set()
    for pattern in brute_force(ref):
        rows, _ = region_polyhedron(ref, pattern)
        at = [(tuple(sum((F(a[i]) * F(v[i]) for i in range(3)), F(0)) for v in directions),
               b - sum((F(a[i]) * F(x0[i]) for i in range(3)), F(0))) for a, b in rows]
        box_rows = [(tuple(F(s * (i == j)) for j in range(k)), F(3)) for i in range(k) for s in (1, -1)]
        if full_dimensional(at + box_rows, k):
            expected.add(pattern)
    assert {r.pattern for r in result.activation_regions} == expected
    assert result.n_activation == len(expected) >= 3


def _skip_model():
    """Layer 1 of this 2-d model has the skip matrix R (not the identity): x -> R x + sum of values."""
    R = [[2, -1], ["1/2", 1]]
    L0 = Layer([Head([[0, 0], [1, 0], [0, 1]], [0, "-1/2", 0], [[1, "1/2"], [0, 1], [-1, 0]])])
    L1 = Layer([Head([[0, 0], [1, 1], [-1, 2]], [0, -1, 0], [[0, 1], [1, 0], ["1/2", -1]])], residual=R)
    L2 = Layer([Head([[0, 0], [2, -1]], [0, "1/2"], [[0, 0], [1, 1]])])
    return Transformer([L0, L1, L2])


def _skip_reference(x):
    """The model of :func:`_skip_model` evaluated in Fractions from its definition: (output, labels)."""
    layers = [([(0, 0), (1, 0), (0, 1)], [0, F(-1, 2), 0], [(1, F(1, 2)), (0, 1), (-1, 0)], None),
              ([(0, 0), (1, 1), (-1, 2)], [0, -1, 0], [(0, 1), (1, 0), (F(1, 2), -1)], [[2, -1], [F(1, 2), 1]]),
              ([(0, 0), (2, -1)], [0, F(1, 2)], [(0, 0), (1, 1)], None)]
    z, labels = tuple(F(v) for v in x), []
    for keys, offs, vals, R in layers:
        scores = [sum((F(k) * v for k, v in zip(key, z)), F(0)) + o for key, o in zip(keys, offs)]
        j = scores.index(max(scores))
        assert scores.count(max(scores)) == 1, "a probe on a wall"
        skip = z if R is None else tuple(sum((F(r) * v for r, v in zip(row, z)), F(0)) for row in R)
        z, labels = tuple(s + F(v) for s, v in zip(skip, vals[j])), labels + [j]
    return z, labels


def test_a_skip_matrix_after_a_layer_with_a_residual():
    model = _skip_model()
    result = enumerate_regions(model, box=(-3, 3), progress=False)
    assert result.n_activation >= 5
    for r in result.activation_regions:
        for x in _probe_points(r):
            out, labels = _skip_reference(x)
            assert [p[0][0] for p in r.pattern] == labels and tuple(r.map.apply(x)) == out, (x, r.pattern)
    grid = [(F(i, 3), F(j, 3)) for i in range(-8, 9, 3) for j in range(-7, 9, 3)]
    found = {tuple(x.pattern[i][0][0] for i in range(3)) for x in result.activation_regions}
    for x in grid:                                    # every labelled grid point lies in a listed region
        try:
            labels = tuple(_skip_reference(x)[1])
        except AssertionError:
            continue
        assert labels in found, x
