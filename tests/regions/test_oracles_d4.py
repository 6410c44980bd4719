"""The region search and its facet graph in d = 4 against the independent reference (tests/oracles).

The reference evaluates the model file in Fractions, enumerates label tuples by brute force with
an exact Fourier-Motzkin test, and decides every pair's shared facet on its own; tropattn only
builds the model (``model_from_json``) and runs ``enumerate_regions``.
"""

import random

import pytest
from hypothesis import Phase, given, settings, strategies as st

from oracles.compare import axis_walls, compare, random_model_json
from tropattn.io import model_from_json
from tropattn.regions import enumerate_regions

NO_SHRINK = (Phase.explicit, Phase.reuse, Phase.generate)   # a failing model is printed whole


def _agree(obj, boxed):
    box = (-3, 3) if boxed else None
    result = enumerate_regions(model_from_json(obj), box=box)
    found = compare(obj, result, box)
    assert not found["missing_edges"] and not found["extra_edges"], (obj, box, found)
    return result


@settings(phases=NO_SHRINK, max_examples=8, deadline=None)
@given(rnd=st.randoms(use_true_random=False), boxed=st.booleans())
def test_random_models_d4(rnd, boxed):
    _agree(random_model_json(rnd, 4, 1, rnd.randint(1, 2), rnd.randint(2, 3), rnd.randint(0, 1), residual=None,
                             projection=rnd.random() < .3, dup=rnd.random() < .25), boxed)


@settings(phases=NO_SHRINK, max_examples=6, deadline=None)
@given(rnd=st.randoms(use_true_random=False), boxed=st.booleans())
def test_random_models_d4_with_coordinate_walls(rnd, boxed):
    _agree(axis_walls(rnd, random_model_json(rnd, 4, 1, 1, rnd.randint(2, 3), rnd.randint(1, 2), residual=True,
                                              dup=rnd.random() < .25)), boxed)


def test_a_d4_model_with_many_regions_and_edges():
    """A fixed d = 4 model with 6 regions and 12 facet edges (not only the 1- and 2-region draws)."""
    for boxed in (False, True):
        rnd = random.Random(5)
        keys, units, dup = rnd.randint(2, 3), rnd.randint(0, 1), rnd.random() < .25
        result = _agree(random_model_json(rnd, 4, 1, 1, keys, units, residual=True, dup=dup), boxed)
        assert result.n_activation == 6 and len(result.graph.edges) == 12


@pytest.mark.slow
@settings(phases=NO_SHRINK, max_examples=15, deadline=None)
@given(rnd=st.randoms(use_true_random=False), boxed=st.booleans())
def test_random_models_d4_more(rnd, boxed):
    _agree(random_model_json(rnd, 4, 1, rnd.randint(1, 2), rnd.randint(2, 3), rnd.randint(0, 2),
                             residual=None, projection=rnd.random() < .3, dup=rnd.random() < .25), boxed)
