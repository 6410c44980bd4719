"""tropattn's region enumeration against an independent reference (tests/oracles).

The reference reads the model's ``tropattn.model/1`` JSON, evaluates it pointwise in Fractions,
and enumerates regions by brute force over label tuples with its own affine algebra and an exact
Fourier-Motzkin test; the facet-adjacency graph is decided pair by pair.  tropattn is used only
to build the model (``model_to_json``) and to run ``enumerate_regions``.
"""

from fractions import Fraction as F
import random

import pytest
from hypothesis import Phase, given, settings, strategies as st

from oracles import adjacency, brute_force, evaluate, load_model, pattern_at
from oracles.compare import axis_walls, compare, random_model_json
from tropattn.attention import FFN, Head, Layer, Transformer
from tropattn.exact import WallFacet, facets_overlap, overlapping_pairs
from tropattn.io import model_from_json, model_to_json
from tropattn.regions import enumerate_regions


def issue_22_model():
    head = Head([[0, -3, 0], [0, 0, 0], [0, 0, 3]], [0, 0, 0], [[0, 0, 0], [0, 0, 0], [0, 0, F(1, 2)]])
    return Transformer([Layer([head], residual=True, ffn=FFN([[-1, 0, 1]], [0], [[0], [0], [0]], [0, 0, 0]))])


A, B = (((1,), (0,)),), (((2,), (1,)),)

# a failing random model is printed whole; shrinking it through the brute force takes minutes
NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)


def _edges(result):
    pats = [r.pattern for r in result.activation_regions]
    return {frozenset((pats[i], pats[j])) for i, j in result.graph.edges}


# ---------------------------------------------------------------- the issue's model

def test_issue_model_regions_agree_with_the_oracle():
    m = issue_22_model()
    res = enumerate_regions(m)
    found = compare(model_to_json(m), res)
    assert res.n_activation == 6
    assert not found["extra_edges"]
    assert not found["missing_edges"]


def test_oracle_sees_the_issue_models_shared_facet():
    om = load_model(model_to_json(issue_22_model()))
    assert pattern_at(om, (F(1, 4), 1, F(-1, 1000))) == A
    assert pattern_at(om, (F(1, 4), 1, F(1, 1000))) == B
    ref = brute_force(om)
    assert len(ref) == 6
    edges = adjacency(ref, 3)
    assert frozenset((A, B)) in edges and len(edges) == 11


def test_issue_model_graph_has_the_facet_edge():
    m = issue_22_model()
    res = enumerate_regions(m)
    index = {r.pattern: i for i, r in enumerate(res.activation_regions)}
    assert res.graph.has_edge(index[A], index[B])
    assert _edges(res) == adjacency(brute_force(load_model(model_to_json(m))), 3)


def test_facets_on_a_coordinate_hyperplane_overlap():
    # the issue model's two facets on x3 = 0: x3 is constant there, so the exact boxes' equal
    # x3 bounds must not count as a separation
    u = WallFacet(((0, -1, 0, 0), (0, 0, 1, 0), (-1, 0, 1, 0)), 1, ((156534, 156505, 0), 10240))
    v = WallFacet(((0, -1, -1, 0), (0, 0, -1, 0), (2, 0, -2, 1)), 1, ((-6071512832, 6121400265, 0), 201850880))
    assert facets_overlap(u, v, (0, 0, 1, 0), 3)
    assert overlapping_pairs([u], [v], (0, 0, 1, 0), 3) == [(u, v)]
    w = WallFacet(((0, -1, -1, 0), (0, 0, -1, 0), (1, 0, 0, -1)), 1, ((-2, 1, 0), 1))   # x1 <= -1: apart
    assert not facets_overlap(u, w, (0, 0, 1, 0), 3)


# ---------------------------------------------------------------- the oracle against tropattn's own evaluator

def test_pointwise_evaluator_matches_the_model():
    rnd = random.Random(5)
    for _ in range(20):
        d = rnd.randint(1, 3)
        obj = random_model_json(rnd, d, 2, 2, 3, 2, residual=None, projection=rnd.random() < .5)
        m, om = model_from_json(obj), load_model(obj)
        for _ in range(5):
            x = [F(rnd.randint(-40, 40), rnd.randint(1, 7)) for _ in range(d)]
            try:
                out, pattern = m.evaluate(x)
            except Exception:                      # a point on a wall: skip it
                continue
            assert (tuple(out), pattern) == evaluate(om, x, with_pattern=True)


# ---------------------------------------------------------------- hand-made models for each step

def _check(obj, box=None):
    m = model_from_json(obj)
    found = compare(obj, enumerate_regions(m, box=box), box)
    assert not found["missing_edges"] and not found["extra_edges"], found
    return found


def _layer(keys, offsets, values, **kw):
    out = {"heads": [{"keys": keys, "offsets": offsets, "values": values}]}
    out.update(kw)
    return out


def _model(d, *layers, ties="first"):
    return {"format": "tropattn.model/1", "dim": d, "ties": ties, "layers": list(layers)}


def test_ffn_bias_and_residual_1d():
    ffn = {"W1": [[1], [-1]], "b1": [-1, 2], "W2": [[1, -2]], "b2": ["1/2"]}
    L0 = _layer([[0], [1], [3]], [0, 0, -2], [[1], [-1], [0]], ffn=ffn)
    L1 = _layer([[0], [2]], [0, -1], [[0], [1]], ffn={"W1": [[2]], "b1": [-1], "W2": [[-1]], "b2": [0]})
    _check(_model(1, L0, L1))
    _check(_model(1, L0, dict(L1, residual=False)), box=(-5, 5))


def test_heads_without_values_read_their_keys():
    """A model file may leave out "values": they are then the keys (score form)."""
    L0 = {"heads": [{"keys": [[0, 0], [1, 0], [0, 1]]}]}
    L1 = {"heads": [{"keys": [[1, 1], [-1, 0], [0, -2]]}]}
    _check(_model(2, L0, L1), box=(-3, 3))


def test_projection_not_symmetric_2d():
    L0 = _layer([[0, 0], [1, 0], [0, 1]], [0, 0, 0], [[1, 0], [0, 1], [1, 1]], projection=[[1, 2], [0, 1]])
    L1 = _layer([[0, 0], [1, -1], [-1, 1]], [0, 0, "1/2"], [[0, 0], [1, 0], [0, 1]],
                ffn={"W1": [[1, 1]], "b1": [-2], "W2": [[1], [0]], "b2": [0, 1]})
    _check(_model(2, L0, L1), box=(-4, 4))


def test_ties_first_duplicate_keys_and_constant_input():
    # duplicate keys (0 and 2) and a layer without residual: the next layer's scores tie on whole regions
    L0 = _layer([[1, 0], [0, 1], [1, 0]], [0, 0, 0], [[1, 0], [0, 1], [0, -1]], residual=False)
    L1 = _layer([[1, 0], [0, 1], [1, 1]], [0, 0, -1], [[1, 1], [-1, 0], [0, 2]])
    _check(_model(2, L0, L1))
    L2 = _layer([[0], [0], [1]], [0, 0, -1], [[2], [-1], [1]])
    _check(_model(1, L2, L2))
    # the next layer's scores are constants with ties at the maximum: 1, 0, 1 and 0, 1, 1
    L3 = _layer([[1, 0], [0, 1], [1, 1]], [0, 0, 0], [[0, 0], [1, -1], [0, 2]])
    found = _check(_model(2, L0, L3))
    assert found is not None


def test_ties_first_through_a_singular_map():
    # the FFN folds x1 onto -1 where it is on (y1 + 1 > 0): keys (1, 0) and (2, 0) with offsets 0, 1 then
    # tie on that whole region (scores -1 and -1), through a map that is not constant
    L0 = _layer([[0, 0], [1, 0]], [0, -3], [[0, 0], [0, 1]],
                ffn={"W1": [[1, 0]], "b1": [1], "W2": [[-1], [0]], "b2": [0, 0]})
    L1 = _layer([[1, 0], [2, 0], [0, 1]], [0, 1, 0], [[1, 0], [0, 1], [1, 1]])
    _check(_model(2, L0, L1))
    _check(_model(2, L0, L1), box=(-4, 4))


def test_ties_first_on_constant_scores_random():
    rnd = random.Random(11)
    for _ in range(8):
        d = rnd.randint(1, 2)
        vals = [[rnd.randint(0, 1) for _ in range(d)] for _ in range(3)]
        L0 = _layer([[rnd.randint(-1, 1) for _ in range(d)] for _ in range(3)], [0, "1/2", -1], vals,
                    residual=False)
        L1 = _layer([[rnd.randint(0, 1) for _ in range(d)] for _ in range(3)], [0, 0, 0],
                    [[rnd.randint(-1, 1) for _ in range(d)] for _ in range(3)])
        _check(_model(d, L0, L1))


# ---------------------------------------------------------------- random models

def _random(rnd, d, layers, big=False):
    return random_model_json(rnd, d, layers, rnd.randint(1, 2), rnd.randint(2, 3 if not big else 4),
                             rnd.randint(0, 2), residual=None, projection=rnd.random() < .3,
                             dup=rnd.random() < .25)


def _property(rnd, d, layers, boxed, big=False):
    obj = _random(rnd, d, layers, big)
    box = (-3, 3) if boxed else None
    found = compare(obj, enumerate_regions(model_from_json(obj), box=box), box)
    assert not found["extra_edges"], (obj, box, found)
    assert not found["missing_edges"], (obj, box, found)


@settings(phases=NO_SHRINK, max_examples=12)
@given(rnd=st.randoms(use_true_random=False), layers=st.integers(1, 3), boxed=st.booleans())
def test_random_models_d1(rnd, layers, boxed):
    _property(rnd, 1, layers, boxed)


@settings(phases=NO_SHRINK, max_examples=10)
@given(rnd=st.randoms(use_true_random=False), layers=st.integers(1, 2), boxed=st.booleans())
def test_random_models_d2(rnd, layers, boxed):
    _property(rnd, 2, layers, boxed)


@settings(phases=NO_SHRINK, max_examples=6)
@given(rnd=st.randoms(use_true_random=False), boxed=st.booleans())
def test_random_models_d3(rnd, boxed):
    _property(rnd, 3, 1, boxed)


def _graph_agrees(obj, boxed):
    """The search's regions and facet graph equal the reference's, in the box [-3, 3]^d or unboxed."""
    box = (-3, 3) if boxed else None
    found = compare(obj, enumerate_regions(model_from_json(obj), box=box), box)
    assert not found["missing_edges"] and not found["extra_edges"], (obj, box, found)


@settings(phases=NO_SHRINK, max_examples=8)
@given(rnd=st.randoms(use_true_random=False), d=st.integers(2, 3), boxed=st.booleans())
def test_random_models_with_coordinate_walls(rnd, d, boxed):
    obj = axis_walls(rnd, random_model_json(rnd, d, 1, 1, rnd.randint(2, 3), rnd.randint(1, 2), residual=True,
                                             dup=rnd.random() < .25))
    _graph_agrees(obj, boxed)


@pytest.mark.long
@settings(phases=NO_SHRINK, max_examples=60)
@given(rnd=st.randoms(use_true_random=False), d=st.integers(2, 3), layers=st.integers(1, 2),
       boxed=st.booleans())
def test_random_models_with_coordinate_walls_more(rnd, d, layers, boxed):
    obj = axis_walls(rnd, _random(rnd, d, layers, big=True))
    _graph_agrees(obj, boxed)


@pytest.mark.long
@settings(phases=NO_SHRINK, max_examples=25)
@given(rnd=st.randoms(use_true_random=False), d=st.integers(1, 3), layers=st.integers(1, 2),
       boxed=st.booleans())
def test_random_models_more(rnd, d, layers, boxed):
    _property(rnd, d, layers + (d == 1), boxed, big=True)


# the long runs' draws, with d = 3 kept to one layer (its two-layer models are what take minutes):
# a minute in all, so `-m slow` runs them

@pytest.mark.slow
@settings(phases=NO_SHRINK, max_examples=60)
@given(rnd=st.randoms(use_true_random=False), d=st.integers(2, 3), layers=st.integers(1, 2),
       boxed=st.booleans())
def test_random_models_with_coordinate_walls_slow(rnd, d, layers, boxed):
    obj = axis_walls(rnd, _random(rnd, d, layers if d == 2 else 1, big=True))
    _graph_agrees(obj, boxed)


@pytest.mark.slow
@settings(phases=NO_SHRINK, max_examples=40)
@given(rnd=st.randoms(use_true_random=False), d=st.integers(1, 3), layers=st.integers(1, 2),
       boxed=st.booleans())
def test_random_models_more_slow(rnd, d, layers, boxed):
    _property(rnd, d, (layers if d < 3 else 1) + (d == 1), boxed, big=True)
