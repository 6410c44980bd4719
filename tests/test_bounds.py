"""Bounds: formulas against independent counts."""

from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tropattn.attention import random_model
from tropattn.errors import InvalidInputError
from tropattn.region_bounds import (
    arrangement_bound,
    bounds,
    deep_bound,
    ffn_factor,
    layer_bound,
    line_bound,
)


@given(d=st.integers(1, 4), H=st.integers(1, 5), N=st.integers(1, 6), L=st.integers(1, 3))
def test_bounds_are_ordered(d, H, N, L):
    b = bounds(d, H, N, L)
    assert b.lower <= b.deep <= b.deep_product
    assert b.per_layer <= b.product == N ** H
    assert b.product_attainable == (H <= d or N == 1)
    if H <= d:                               # the product is attained, so no bound may be below it
        assert b.per_layer == N ** H


def test_arrangement_bound_counts_regions_of_lines_in_general_position():
    # n lines in general position in the plane cut it into 1 + n + C(n, 2) regions
    for n in range(1, 7):
        assert arrangement_bound(2, n, 2) == 1 + n + comb(n, 2)


def test_line_bound_is_breakpoints_plus_one():
    assert line_bound(3, 4) == 3 * 3 + 1
    assert layer_bound(1, 3, 4) == 10


def test_ffn_factor_and_deep_bound():
    assert ffn_factor(1, 4) == 5
    assert deep_bound(2, 1, 3, 2, ffn_hidden=2) == (3 * ffn_factor(2, 2)) ** 2


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_bad_shapes_are_refused(bad):
    with pytest.raises(InvalidInputError):
        bounds(bad, 2, 2)


def test_random_models_are_deterministic():
    a, b = random_model(2, 2, 3, seed=7), random_model(2, 2, 3, seed=7)
    assert [h.keys for h in a.layers[0].heads] == [h.keys for h in b.layers[0].heads]


@pytest.mark.parametrize("d,H,N,L", [(1, 2, 3, 2), (2, 1, 3, 2), (2, 3, 2, 2), (3, 2, 2, 2)])
def test_the_lower_bound_is_attained_by_the_sawtooth(d, H, N, L):
    from tropattn.attention import sawtooth_model
    from tropattn.regions import enumerate_regions

    n = len(enumerate_regions(sawtooth_model(d, N, L, heads=H)).activation_regions)
    assert n == bounds(d, H, N, L).lower
