"""The tie rule: ties="refuse" (default) raises, ties="first" lets the lowest index win.

With "first", whole-region ties (a layer that feeds a constant to the next) are counted
exactly; the search is checked against the brute force with the same rule and against
dense sampling of the model's own evaluation.
"""

from fractions import Fraction
import random

import pytest
from hypothesis import given, settings, strategies as st

from tropattn.attention import Head, Layer, Transformer
from tropattn.errors import InvalidInputError, ModelFileError, TieError
from tropattn.io import model_from_json, model_to_json
from tropattn.regions import brute_force_regions, enumerate_regions


def constant_feed():
    """Layer 0 (no residual) outputs 0 everywhere; layer 1's three keys then tie on all of R."""
    l0 = Layer([Head([[1], [2]], [0, 0], [[0], [0]])], residual=False)
    l1 = Layer([Head([[1], [-1], [0]], [0, 0, 0], [[1], [2], [3]])])
    return Transformer([l0, l1])


def patterns(result):
    return sorted(r.pattern for r in result.activation_regions)


def test_head_label_rules():
    h = Head([[1], [-1], [1]], [0, 0, 0])
    with pytest.raises(TieError):
        h.label([0])
    assert h.with_ties("first").label([0]) == 0
    assert h.with_ties("first").label([1]) == 0                   # keys 0 and 2 are one key
    assert h.with_ties("first").label([-1]) == 1
    with pytest.raises(InvalidInputError, match="tie rule"):
        Head([[0]], ties="last")


def test_whole_region_tie_refused_by_both_methods():
    model = constant_feed()
    with pytest.raises(TieError, match="ties='first'"):
        enumerate_regions(model)
    with pytest.raises(TieError, match="ties='first'"):
        brute_force_regions(model)
    with pytest.raises(TieError):
        model.evaluate([1])


def test_whole_region_tie_counted_under_first():
    model = constant_feed().with_ties("first")
    result = enumerate_regions(model)
    assert patterns(result) == brute_force_regions(model)
    # layer 0 splits R at 0; layer 1 sees the constant 0 and picks key 0 (lowest of the tie 0, 1, 2)
    assert patterns(result) == [(((0,), ()), ((0,), ())), (((1,), ()), ((0,), ()))]
    for r in result.activation_regions:
        assert model.evaluate(r.interior_point)[1] == r.pattern
    assert len(result.linear_regions) == 1                         # both pieces output the constant 0 + 1


def _random_model(rng, d):
    layers = []
    for _ in range(rng.choice((1, 2))):
        heads = []
        for _ in range(rng.choice((1, 2))):
            n = rng.choice((2, 3))
            heads.append(Head([[rng.choice((-1, 0, 1)) for _ in range(d)] for _ in range(n)],
                              [rng.choice((-1, 0, 1)) for _ in range(n)],
                              [[rng.choice((-1, 0, 1)) for _ in range(d)] for _ in range(n)], ties="first"))
        layers.append(Layer(heads, residual=rng.random() < 0.5))
    return Transformer(layers)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from([1, 2]))
def test_first_rule_search_equals_brute_force(seed, d):
    model = _random_model(random.Random(seed), d)
    assert patterns(enumerate_regions(model)) == brute_force_regions(model)
    refuse = model.with_ties("refuse")
    try:
        got = patterns(enumerate_regions(refuse))
    except TieError:
        with pytest.raises(TieError):
            brute_force_regions(refuse)
    else:
        assert got == brute_force_regions(refuse)


def _width(region):
    """Length of a 1-D region ``A x <= b`` (the box bounds it)."""
    lo = max(b / a[0] for a, b in zip(region.A, region.b) if a[0] < 0)
    hi = min(b / a[0] for a, b in zip(region.A, region.b) if a[0] > 0)
    return hi - lo


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_first_rule_matches_dense_sampling(seed):
    rng = random.Random(seed)
    model = _random_model(rng, 1)
    result = enumerate_regions(model, box=(-4, 4))
    step = Fraction(8, 400)
    sampled = {model.evaluate([Fraction(-4) + step * i + step * rng.randint(1, 99) / 100])[1] for i in range(400)}
    assert sampled <= set(patterns(result))
    for r in result.activation_regions:                             # every region wider than 2 steps is hit
        assert r.pattern in sampled or _width(r) < 2 * step


def test_model_file_tie_rule_round_trips():
    obj = model_to_json(constant_feed())
    assert "ties" not in obj
    obj["ties"] = "first"
    model = model_from_json(obj)
    assert model.ties == "first" and model == constant_feed().with_ties("first")
    assert model_from_json(model_to_json(model)) == model
    obj["layers"][1]["heads"][0]["ties"] = "refuse"                 # a per-head override
    mixed = model_from_json(obj)
    assert mixed.ties is None and mixed.layers[1].heads[0].ties == "refuse"
    assert model_from_json(model_to_json(mixed)) == mixed
    obj["ties"] = "lowest"
    with pytest.raises(ModelFileError, match="^ties: ties = 'lowest'"):
        model_from_json(obj)


# ---------------------------------------------------------------- every method accepts and refuses alike

def test_overlay_regions_accepts_values_of_another_dimension_like_count_dual():
    from tropattn.attention import count_dual
    from tropattn.regions import overlay_regions

    heads = [Head([[0, 0], [1, 0], [2, 1]], [0, -1, -3], [[1, 2, 3], [0, 0, 1], [1, 1, 1]]),
             Head([[0, 1], [0, -1]], [0, 1], [[0, 0, 0], [1, 0, 0]])]
    assert len(overlay_regions(heads).activation_regions) == count_dual(heads)
    layer = Layer(heads, projection=[[1, 0, 0], [0, 1, 0]])               # the same heads in a layer
    assert len(enumerate_regions(Transformer([layer])).activation_regions) == count_dual(heads)


def test_dual_count_refuses_an_ffn_through_the_api():
    from tropattn.attention import FFN

    layer = Layer([Head([[0], [1]], [0, 0])], ffn=FFN([[1]], [-5], [[1]], [0]))
    with pytest.raises(InvalidInputError, match="FFN"):
        layer.count_dual()
    with pytest.raises(InvalidInputError, match="FFN"):
        Transformer([layer]).count_dual()
    assert len(enumerate_regions(Transformer([layer])).activation_regions) == 3   # x < 0 | 0 < x < 4 | x > 4


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_brute_force_equals_search_with_ffns(seed):
    from tropattn.attention import random_model

    model = random_model(1, 1, 3, 2, seed=seed % 1000, ffn_hidden=2)
    assert patterns(enumerate_regions(model)) == brute_force_regions(model)
