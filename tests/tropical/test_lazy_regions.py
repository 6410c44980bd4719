"""Regions read off the power diagram build their exact fields lazily; they equal eager ones."""

import copy
import dataclasses
import pickle
import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.tropical import LinearRegion, TropicalPolynomial, linear_regions

exponent = st.builds(F, st.integers(-6, 6), st.sampled_from([1, 2, 3]))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 2).flatmap(lambda d: st.lists(
    st.tuples(st.lists(exponent, min_size=d, max_size=d), st.integers(-5, 5)), min_size=1, max_size=9)))
def test_lazy_hull_regions_equal_the_search_and_eager_copies(terms):
    f = TropicalPolynomial([e for e, _ in terms], [c for _, c in terms])
    g = TropicalPolynomial([e for e, _ in terms], [c for _, c in terms])
    lazy = linear_regions(f, "hull")
    search = linear_regions(g, "search")       # an independent construction: LPs against every term
    assert [(r.term, r.terms, r.A, r.b, r.neighbors) for r in lazy] == \
           [(r.term, r.terms, r.A, r.b, r.neighbors) for r in search]
    for r in lazy:
        eager = LinearRegion(r.term, r.terms, r.A, r.b, r.neighbors, r.facet_points, r.interior_point)
        assert eager == r and hash(eager) == hash(r) and repr(eager) == repr(r)
        assert pickle.loads(pickle.dumps(r)) == r and copy.deepcopy(r) == r
        assert f.argmax_terms(r.interior_point) == r.terms            # certified interior point


def test_regions_are_immutable_and_fields_wait_until_read():
    rng = random.Random(2)
    pts = [(F(rng.randrange(-50, 50), 7), F(rng.randrange(-50, 50), 7)) for _ in range(40)]
    f = TropicalPolynomial(pts, [rng.randrange(5) for _ in pts])
    regions = linear_regions(f)
    cell = regions[0]._exact
    assert not isinstance(cell, dict) and cell._exact.memo is None      # no Fraction built yet
    regions[0].A
    assert cell._exact.memo is not None
    with pytest.raises(dataclasses.FrozenInstanceError):
        regions[0].term = 5
