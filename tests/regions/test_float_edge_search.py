"""Numbers at the float edge through the region search: an exact answer, never a crash (issue 23).

Entries 1e-300 beside +-3 put the search's interior points within 1e-301 of a wall in floats
(exactly they are inside): Qhull's halfspace intersection was handed such a point and crashed the
process.  Rationals like 10^-400 and 10^400 are beyond the float range altogether.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from tropattn.attention import FFN, Head, Layer, Transformer
from tropattn.exact import counting
from tropattn.regions import brute_force_regions, enumerate_regions


def _model(keys, offsets, values, W1, b1, layers=1):
    d = len(keys[0])
    ffn = FFN(W1, b1, [[1 if i == o else -1 for i in range(len(W1))] for o in range(d)], [0] * d)
    return Transformer([Layer([Head(keys, offsets, values, ties="first")], ffn=ffn)] * layers)


def test_the_issue_model_counts_exactly():
    """d = 3, one head, one ReLU unit; the point of one region is 1e-301 from two walls in floats."""
    model = _model([[0, 0, 3], [1e-300, 1e-300, -3], [1e-300, 0, -1e-300]], [1e-300, -3, 0],
                   [[1, 1, 1e-300], [1e-300, -1, 3], [1e-300, 1e-300, 1e-300]], [[-1e-300, 3, 1e-300]], [1e-300])
    with counting() as scope:
        result = enumerate_regions(model, box=(-1, 1), progress=False)
    assert sorted(r.pattern for r in result.activation_regions) == brute_force_regions(model, box=(-1, 1))
    assert scope.snapshot()["by_place"].get("declined:integer_facets", 0) >= 1    # the float claim declined


_EXPONENTS = (-400, -320, -300, -200, -20, 0, 20, 300, 320, 400)
_entry = st.one_of(st.sampled_from([0, 3, -3, 1e-300, -1e-300, 5e-324, 1e300, -3e300]),
                   st.builds(lambda s, e: s * Fraction(10) ** e, st.sampled_from([-3, -1, 1, 3]),
                             st.sampled_from(_EXPONENTS)))


@st.composite
def _edge_models(draw):
    d = draw(st.integers(1, 4))
    n, units = draw(st.integers(2, 3)), draw(st.integers(1, 2))
    row = st.lists(_entry, min_size=d, max_size=d)
    keys = draw(st.lists(row, min_size=n, max_size=n))
    offsets = draw(st.lists(_entry, min_size=n, max_size=n))
    values = draw(st.lists(st.lists(st.sampled_from([0, 1, -1, 3]), min_size=d, max_size=d), min_size=n,
                           max_size=n))
    W1 = draw(st.lists(row, min_size=units, max_size=units))
    b1 = draw(st.lists(_entry, min_size=units, max_size=units))
    return _model(keys, offsets, values, W1, b1, layers=draw(st.sampled_from([1, 1, 1, 2]))), draw(st.sampled_from([None, (-1, 1)]))


@settings(max_examples=5, deadline=None)
@given(case=_edge_models())
def test_magnitudes_from_1e_minus_400_to_1e400_are_counted_exactly(case):
    model, box = case
    result = enumerate_regions(model, box=box, progress=False)
    patterns = [r.pattern for r in result.activation_regions]
    assert len(set(patterns)) == result.n_activation >= 1
    assert sorted(patterns) == brute_force_regions(model, box=box)


@pytest.mark.slow
@settings(max_examples=30, deadline=None)
@given(case=_edge_models())
def test_magnitudes_from_1e_minus_400_to_1e400_on_30_models(case):
    test_magnitudes_from_1e_minus_400_to_1e400_are_counted_exactly.hypothesis.inner_test(case)
