"""The Fraction fast paths of the converters against the per-entry parse of the same numbers as strings."""

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
