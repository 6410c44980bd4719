"""slice_model against evaluating the full model on the slice, and its regions against brute force."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.attention import Head, Layer, Transformer, precompose_layer, random_model, slice_model
from tropattn.errors import InvalidInputError, TieError
from tropattn.regions import brute_force_regions, enumerate_regions

small = st.integers(-3, 3).map(Fraction)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), x0=st.lists(small, min_size=3, max_size=3),
       u=st.lists(small, min_size=3, max_size=3), t=st.fractions(-3, 3, max_denominator=7),
       residual=st.booleans())
def test_sliced_model_equals_the_model_on_the_slice(seed, x0, u, t, residual):
    model = random_model(3, 2, 3, layers=2, seed=seed, residual=True, ffn_hidden=2)
    if not residual:        # a first layer without residual: the skip term vanishes
        first = model.layers[0]
        model = Transformer((Layer(first.heads, residual=False, ffn=first.ffn),) + model.layers[1:])
    if not any(u):
        with pytest.raises(InvalidInputError, match="rank 0 < 1"):
            slice_model(model, x0, [u])
        return
    S = slice_model(model, x0, [u])
    x = [a + t * b for a, b in zip(x0, u)]
    try:
        expected = model.evaluate(x)
    except TieError:
        with pytest.raises(TieError):
            S.evaluate([t])
        return
    assert S.evaluate([t]) == expected


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000))
@pytest.mark.slow
def test_regions_on_a_plane_match_brute_force(seed):
    model = random_model(3, 2, 3, layers=2, seed=seed)
    S = slice_model(model, [Fraction(1, 2), 0, Fraction(-1, 3)], [[1, 0, 1], [0, 1, -1]])
    found = enumerate_regions(S, box=(-2, 2), progress=False)
    assert sorted(r.pattern for r in found.activation_regions) == brute_force_regions(S, box=(-2, 2))


def test_precompose_twice_is_precompose_of_the_composition():
    L = Layer([Head([[1, 2], [0, -1]], [0, 1], [[1, 1], [2, 0]])])
    M1, c1 = [[1, 0], [1, 1]], [1, 0]
    M2, c2 = [[2, 0], [0, 1]], [0, 3]
    twice = precompose_layer(precompose_layer(L, M1, c1), M2, c2)
    once = precompose_layer(L, [[2, 0], [2, 1]], [1, 3])         # M1 M2, M1 c2 + c1
    for x in ([1, 2], [-3, 1], ["1/2", "-5/3"]):
        assert twice.evaluate(x) == once.evaluate(x)


wide = st.fractions(-10**6, 10**6, max_denominator=2**40)


@settings(max_examples=30, deadline=None)
@given(st.data(), st.integers(1, 3), st.integers(1, 3))
def test_a_wide_head_is_precomposed_as_the_fractions_say(data, N, k):
    """Heads reading >= 32 coordinates take one integer product; the keys and offsets are
    those of the Fraction sums a_j . M[:, i] and b_j + a_j . c."""
    from tropattn.attention import precompose_head
    d = 33
    keys = data.draw(st.lists(st.lists(wide, min_size=d, max_size=d), min_size=N, max_size=N))
    offsets = data.draw(st.lists(wide, min_size=N, max_size=N))
    M = data.draw(st.lists(st.lists(wide, min_size=k, max_size=k), min_size=d, max_size=d))
    c = data.draw(st.lists(wide, min_size=d, max_size=d))
    got = precompose_head(Head(keys, offsets), M, c)
    want = Head([[sum((a[r] * M[r][i] for r in range(d)), Fraction(0)) for i in range(k)] for a in keys],
                [b + sum((ai * ci for ai, ci in zip(a, c)), Fraction(0)) for a, b in zip(keys, offsets)],
                got.values)                                  # the values are carried unchanged
    assert got == want and got.values == Head(keys, offsets).values
