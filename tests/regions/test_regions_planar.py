"""The planar search (exact facet kernel, entry through a verified facet) against brute force, on degenerate heads."""

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tropattn.attention import FFN, Head, Layer, Transformer, count_dual, random_model, sawtooth_model
from tropattn.errors import TieError
from tropattn.regions import brute_force_regions, enumerate_regions

coord = st.integers(-2, 2).map(Fraction)


def _check_certificates(model, result):
    """Every region: its pattern and map at its interior point (strictly inside), its facet points on its facets."""
    for r in result.activation_regions:
        x = r.interior_point
        out, pattern = model.evaluate(x)
        assert pattern == r.pattern and r.map.apply(x) == tuple(out)
        for k, (row, b, p) in enumerate(zip(r.A, r.b, r.facet_points)):
            assert sum(a * xi for a, xi in zip(row, x)) < b
            assert sum(a * xi for a, xi in zip(row, p)) == b
            for other, c in zip(r.A[:k] + r.A[k + 1:], r.b[:k] + r.b[k + 1:]):
                assert sum(a * xi for a, xi in zip(other, p)) < c


@st.composite
def degenerate_heads(draw):
    """Planar heads with repeated keys, collinear keys, hidden sites and walls through one point."""
    n = draw(st.integers(2, 5))
    keys = [[draw(coord), draw(coord)] for _ in range(n)]
    kind = draw(st.sampled_from(["free", "collinear", "repeat", "concurrent"]))
    if kind == "collinear":
        keys = [[Fraction(j), Fraction(2 * j)] for j in range(n)]
    offsets = [Fraction(draw(st.integers(-4, 4)), 2) for _ in range(n)]
    if kind == "repeat":
        keys[-1], offsets[-1] = list(keys[0]), offsets[0]
    if kind == "concurrent":        # every score equal at x = (1, 1): all walls through one point
        offsets = [-(k[0] + k[1]) for k in keys]
    values = [[draw(coord), draw(coord)] for _ in range(n)]
    return Head(keys, offsets, values, ties=draw(st.sampled_from(["refuse", "first"])))


@settings(max_examples=25, deadline=None)
@given(heads=st.lists(degenerate_heads(), min_size=1, max_size=3), layers=st.integers(1, 2),
       ffn=st.booleans(), box=st.sampled_from([None, (-1, 1)]))
@pytest.mark.slow
def test_planar_search_equals_brute_force_on_degenerate_heads(heads, layers, ffn, box):
    net = FFN([[1, -1], [0, 1]], [0, Fraction(-1, 2)], [[1, 0], [0, 1]], [0, 0]) if ffn else None
    model = Transformer([Layer(heads, ffn=net if l == 0 else None) for l in range(layers)])
    try:
        result = enumerate_regions(model, box=box)
    except TieError:
        assume(False)
    assert sorted(r.pattern for r in result.activation_regions) == brute_force_regions(model, box=box)
    _check_certificates(model, result)
    counts = enumerate_regions(model, box=box, keep="counts")
    assert (counts.n_activation, counts.n_linear) == (result.n_activation, result.n_linear)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), tiny=st.sampled_from([Fraction(1, 10 ** 6), Fraction(1, 2 ** 40),
                                                          Fraction(1, 10 ** 30)]))
def test_planar_thin_regions_need_no_step(seed, tiny):
    # regions of width ~tiny are entered through their facets: their interior points are midpoints
    base = random_model(2, 2, 4, seed=seed).layers[0].heads
    heads = [Head(h.keys, [b + k * tiny for k, b in enumerate(h.offsets)], h.values) for h in base]
    model = Transformer([Layer(heads)])
    result = enumerate_regions(model)
    assert len(result.activation_regions) == count_dual(heads)
    _check_certificates(model, result)


def test_planar_deep_models_keep_their_certificates():
    for model in (sawtooth_model(2, 3, 2), random_model(2, 3, 4, 3, seed=2)):
        result = enumerate_regions(model)
        _check_certificates(model, result)
        assert len(set(r.pattern for r in result.activation_regions)) == result.n_activation


def test_planar_search_with_numbers_beyond_the_float_range():
    # rows of size 10^400: the angle sort falls back to exact comparisons, nothing else changes
    big = 10 ** 400
    heads = [Head([[0, 0], [big, 0], [0, big], [big, big + 1]], [0, -big, -big, -3 * big]),
             Head([[0, 0], [1, 2], [2, -1]], [0, Fraction(-1, 3), -1])]
    model = Transformer([Layer(heads), Layer([Head([[0, 0], [big, -big]], [0, 7])])])
    result = enumerate_regions(model)
    assert sorted(r.pattern for r in result.activation_regions) == brute_force_regions(model)
    _check_certificates(model, result)
