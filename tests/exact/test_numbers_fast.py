"""The Fraction fast paths of the converters against the per-entry parse of the same numbers as strings."""

import math
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.errors import InvalidInputError
from tropattn.exact import to_rational_matrix, to_rational_vector

rational = st.builds(F, st.integers(-10 ** 6, 10 ** 6), st.integers(1, 10 ** 4))


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).flatmap(lambda d: st.lists(st.lists(rational, min_size=d, max_size=d), min_size=1,
                                                     max_size=20)))
def test_fraction_input_equals_the_parsed_strings(rows):
    assert to_rational_matrix(rows) == to_rational_matrix([[str(v) for v in r] for r in rows])
    assert to_rational_matrix(tuple(map(tuple, rows))) == to_rational_matrix(rows)
    flat = [v for r in rows for v in r]
    assert to_rational_vector(flat) == to_rational_vector([str(v) for v in flat])
    assert to_rational_vector(tuple(flat), "w", len(flat)) == tuple(flat)


def test_fraction_input_still_refuses_bad_shapes():
    with pytest.raises(InvalidInputError, match="ragged"):
        to_rational_matrix([[F(1), F(2)], [F(3)]], "sites")
    with pytest.raises(InvalidInputError, match="expected"):
        to_rational_vector([F(1), F(2)], "weights", 3)
    with pytest.raises(InvalidInputError, match="expected"):
        to_rational_matrix([[F(1)], [F(2)]], "sites", rows=3)
    with pytest.raises(InvalidInputError):
        to_rational_vector([F(1), [F(2)]], "weights")


@pytest.mark.parametrize("big", [3 ** 40, 2 ** 64 + 1, 10 ** 30])
def test_homogeneous_point_of_numpy_ints_beside_a_big_denominator(big):
    """numpy integers (plain, or inside Fractions) beside ``1 / big``: exact Python-int numerators
    (``a * (den // q)`` used to stay in int64 and overflow)."""
    import numpy as np

    from tropattn.exact import homogeneous_point

    values = [np.int64(2 ** 62), np.int64(-7), F(np.int64(5), np.int64(6)), F(1, big), np.int32(3)]
    nums, den = homogeneous_point(values)
    want = [F(2 ** 62), F(-7), F(5, 6), F(1, big), F(3)]
    assert den == math.lcm(6, big) and all(type(a) is int for a in nums)
    assert [F(a, den) for a in nums] == want
