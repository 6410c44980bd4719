"""A count's chunks that leave the process send their waiting wall facets packed (hashes beside a pickle).

The caller opens a pack only where the other side of the wall holds an equal map hash.  The
linear regions must be those of the reference (tests/oracles: a Fraction brute force, its own
facet adjacency, joined where the maps are equal), whatever the chunks and however they travel.
"""

from __future__ import annotations

import pickle
import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from oracles.compare import random_model_json, reference_counts
from tropattn.backends import run_chunk
from tropattn.errors import InvalidInputError
from tropattn.io import model_from_json
from tropattn.regions import AffineMap, enumerate_regions
from tropattn.regions._collect import Collector, _Packed, _Pending


class PicklingExecutor:
    """Runs each chunk here, but hands back what a worker process would: its result through pickle."""

    workers, batches = 2, True

    def __init__(self):
        self.chunks = 0

    def map(self, fn, chunks):
        for chunk in chunks:
            self.chunks += 1
            yield pickle.loads(pickle.dumps(run_chunk(fn, chunk), protocol=5))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), d=st.sampled_from([1, 2]), units=st.sampled_from([0, 1]))
def test_packed_counts_are_the_references(seed, d, units):
    obj = random_model_json(random.Random(seed), d, layers=2, heads=1, keys=3, units=units, residual="random")
    model = model_from_json(obj)
    ex = PicklingExecutor()
    packed = enumerate_regions(model, executor=ex, keep="counts", progress=False)
    assert ex.chunks > 1 or packed.n_activation <= 3        # the walls between chunks were crossed
    assert (packed.n_activation, packed.n_linear) == reference_counts(obj)
    assert packed.n_linear == enumerate_regions(model, keep="counts", progress=False).n_linear


def test_a_fixed_model_merges_across_packed_walls():
    # equal values behind different keys: the maps agree across attention walls of layer 1
    obj = {"format": "tropattn.model/1", "dim": 2, "ties": "first", "layers": [
        {"heads": [{"keys": [[0, 0], [1, 0], [0, 1], [1, 1]], "offsets": [0, 0, 0, "-1/2"],
                    "values": [[1, 0], [1, 0], [0, 1], [1, 0]]}]},
        {"heads": [{"keys": [[0, 0], [2, -1]], "offsets": [0, "1/2"], "values": [[0, 1], [1, 1]]}]}]}
    activation, linear = reference_counts(obj)
    assert linear < activation                                   # merges happen (across walls)
    got = enumerate_regions(model_from_json(obj), executor=PicklingExecutor(), keep="counts", progress=False)
    assert (got.n_activation, got.n_linear) == (activation, linear)


def _facet(i, f):
    return _Pending(((1, 0, 0),), 0, None, id=i, map=f)


def test_a_pack_without_a_matching_hash_stays_shut():
    f, g = AffineMap.from_integers([[1, 0]], [0], 1), AffineMap.from_integers([[2, 0]], [1], 1)
    sink = Collector("counts", None, 2)
    for _ in range(3):
        sink.uf.add()
        sink.n += 1
    shut = _Packed(np.array([hash(g)], dtype=np.int64), np.array([1]), blob=b"not a pickle: opening it fails")
    sink.pending = {0: {(1, 0, 0): ([_facet(0, f)], [shut])}}
    sink.close_all()                                             # hash(f) != hash(g): nothing to open
    assert sink.linear == 3
    sent = pickle.loads(pickle.dumps(pickle.loads(pickle.dumps(_Packed.of([_facet(1, g), _facet(2, f)])))))
    sink.pending = {0: {(1, 0, 0): ([_facet(0, f)], [sent])}}
    sink.close_all()                                             # region 2 has f's map: opened and joined
    assert sink.linear == 2 and sink.uf.find(0) == sink.uf.find(2) != sink.uf.find(1)


def test_a_count_in_process_never_makes_a_deferred_map():
    made = []
    g = AffineMap.from_integers([[3, 0]], [1], 2)

    def make():
        made.append(1)
        return g

    here = _Packed.of([_facet(5, AffineMap.deferred(make, hash(g)))])
    assert here.open()[0].id == 5 and not made                   # in the process that found it: as it was
    pickle.dumps(here)
    assert made == [1]                                           # sent: the map is made to travel


def test_a_piece_map_travels_as_its_recipe_and_is_made_where_it_is_read():
    """A ReLU step's deferred piece map pickles as the parent's integers and the bits (named by the
    step's token), not as a made map: made after the trip, equal to the map made at once."""
    from tropattn.attention import FFN
    from tropattn.regions._relu import _STEPS, ReluStep, _MapRecipe

    step = ReluStep(FFN([[1, 2], [3, -1], [0, 1]], [1, 0, -2], [[1, 0, 2], [0, 1, 1]], [0, 1]), 0)
    f = AffineMap.from_integers([[1, 0], [2, 1]], [3, 5], 7)
    bits = (1, 0, 1)
    made = []
    real = step._made_map
    step._made_map = lambda b, i: made.append(1) or real(b, i)
    lazy = step.output_map(bits, f, lazy=True)
    back = pickle.loads(pickle.dumps(lazy))
    assert not made and "_make" in back.__dict__                  # sent and received: still a recipe
    assert back == step.output_map(bits, f) and made               # compared: made here, right
    foreign = _MapRecipe(None, bits, f._integers, token="not-a-step-of-this-process")
    assert foreign.token not in _STEPS
    with pytest.raises(InvalidInputError, match="does not hold its ReLU step"):
        foreign()


def test_a_sealed_pack_holds_one_pickle_and_opens_to_its_facets():
    f, g = AffineMap.from_integers([[1, 0]], [0], 1), AffineMap.from_integers([[2, 0]], [1], 3)
    sealed = _Packed.of([_facet(1, g), _facet(2, f)], sealed=True)
    assert sealed.facets is None and isinstance(sealed.blob, bytes)
    sealed.ids += 5
    assert [(e.id, e.map) for e in sealed.open()] == [(6, g), (7, f)]
    assert sealed.hashes.tolist() == [hash(g), hash(f)]


def test_a_pack_holding_a_deferred_map_is_not_sealed_and_the_map_is_not_made():
    made = []
    g = AffineMap.from_integers([[3, 0]], [1], 2)
    pack = _Packed.of([_facet(0, g), _facet(1, AffineMap.deferred(lambda: made.append(1) or g, hash(g)))],
                      sealed=True)
    assert pack.blob is None and len(pack.facets) == 2 and not made


@pytest.mark.parametrize("sealed", [0, 1])
def test_serial_counts_merge_across_walls_whether_the_facets_wait_sealed_or_not(sealed):
    from tropattn import config
    obj = {"format": "tropattn.model/1", "dim": 2, "ties": "first", "layers": [
        {"heads": [{"keys": [[0, 0], [1, 0], [0, 1], [1, 1]], "offsets": [0, 0, 0, "-1/2"],
                    "values": [[1, 0], [1, 0], [0, 1], [1, 0]]}]},
        {"heads": [{"keys": [[0, 0], [2, -1]], "offsets": [0, "1/2"], "values": [[0, 1], [1, 1]]}]}]}
    activation, linear = reference_counts(obj)
    with config.override(search_sealed=sealed):       # chunks of one layer-1 piece: the walls wait packed
        got = enumerate_regions(model_from_json(obj), keep="counts", progress=False)
    assert linear < activation and (got.n_activation, got.n_linear) == (activation, linear)
