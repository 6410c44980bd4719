"""The FFN step's nearest-units facets and deferred output maps against the plain path and an oracle.

* ``ReluStep.near_units`` / ``far_units``: a piece of a planar parent crossed by many units is
  cut by the rows of the units nearest its point; the exact signs of the others at the
  vertices certify that they are strictly redundant (or add them).  With
  ``relu_near_units=2`` the path runs on small models; ``0`` takes every unit's row.
* ``AffineMap.deferred``: a count hashes its last sub-layer's maps from their first rows
  and makes the rest only for maps of equal hash.  ``count_regions`` (deferred maps) must
  give the counts of ``enumerate_regions`` (every map made) and of the oracle.
* ``ReluStep._enter``: cells of a first layer share the linear part of their map, so the
  hidden rows are reused up to the ratio of the denominators.  Each region's map is checked
  against ``oracles.evaluate`` (Fractions, written from the definitions) at its point.
"""

from __future__ import annotations

import gc
import itertools
import pickle
import weakref
import random
from fractions import Fraction as F

from hypothesis import given, settings, strategies as st

from oracles import brute_force, evaluate, load_model
from tropattn import config
from tropattn.attention import FFN, Head, Layer, Transformer
from tropattn.exact import counting
from tropattn.io import model_to_json
from tropattn.regions import AffineMap, count_regions, enumerate_regions
from tropattn.regions._relu import Bits, ReluStep

_q = st.one_of(st.integers(-3, 3), st.builds(F, st.integers(-9, 9), st.sampled_from([2, 3, 5, 7])))


@st.composite
def _planar_model(draw, units=(4, 9)):
    """One or two layers of one head on 2-3 keys (values with several denominators) and a ReLU FFN."""
    layers = []
    for _ in range(draw(st.integers(1, 2))):
        n = draw(st.integers(2, 3))
        head = Head([[draw(_q), draw(_q)] for _ in range(n)], [draw(_q) for _ in range(n)],
                    [[draw(_q), draw(_q)] for _ in range(n)])
        h = draw(st.integers(*units))
        W2 = [[draw(_q) for _ in range(h)] for _ in range(2)]
        if draw(st.booleans()):                      # a dead unit: its wall joins two equal maps
            W2[0][0] = W2[1][0] = 0
        ffn = FFN([[draw(_q), draw(_q)] for _ in range(h)], [draw(_q) for _ in range(h)], W2,
                  [draw(_q), draw(_q)])
        layers.append(Layer([head], ffn=ffn))
    return Transformer(layers)


def _found(model, box, near):
    with config.override(relu_near_units=near), counting() as scope:
        rs = enumerate_regions(model, box=box, progress=False)
        c = count_regions(model, box=box, keep="counts", progress=False)
    got = sorted((r.pattern, tuple(sorted(r.integer_rows)), r.map._integers) for r in rs.activation_regions)
    return got, (rs.n_activation, rs.n_linear), (c.n_activation, c.n_linear), rs, scope.snapshot()["by_place"]


@settings(max_examples=12, deadline=None)
@given(model=_planar_model(), half=st.sampled_from([2, 6]))
def test_nearest_units_find_the_regions_of_every_unit(model, half):
    box = (-half, half)
    near, n_near, c_near, rs, _ = _found(model, box, 2)
    plain, n_plain, c_plain, _, places = _found(model, box, 0)
    assert near == plain                       # same patterns, facet rows and exact maps
    assert n_near == n_plain == c_near == c_plain
    assert not any(k.endswith("relu.near_units") for k in places)      # 0: the path is off
    om = load_model(model_to_json(model))
    for r in rs.activation_regions:            # each map is the model's own output at the region's point
        assert r.map.apply(r.interior_point) == evaluate(om, r.interior_point)


def test_the_oracle_counts_what_the_nearest_units_count():
    model = Transformer([Layer([Head([[1, 0], [0, 1], [-1, F(1, 3)]], [0, F(1, 2), 0],
                                     [[F(1, 3), 0], [0, F(2, 5)], [1, 1]])],
                               ffn=FFN([[1, 0], [0, 1], [1, 1], [1, -1], [2, 1], [1, 3]], [0, F(-1, 2), 1, 0, -1, 2],
                                       [[1, 0, 2, -1, 1, 0], [0, 1, 1, 1, 0, 0]], [0, 0]))])
    with config.override(relu_near_units=2), counting() as scope:
        c = count_regions(model, box=(-3, 3), keep="counts", progress=False)
    om = load_model(model_to_json(model), box=(-3, 3))
    assert c.n_activation == len(brute_force(om))
    places = scope.snapshot()["by_place"]
    assert places.get("certified:relu.near_units", 0) > 0          # the path did the work
    assert places.get("fallbacks:relu.near_units", 0) == 0         # ... and never gave up on a piece


def _maps_differing_in_row(k, rows=24):
    M = [[i + 1, 2 * i] for i in range(rows)]
    c = list(range(rows))
    N = [r[:] for r in M]
    N[k][1] += 1
    return AffineMap.from_integers(M, c, 3), AffineMap.from_integers(N, c, 3)


def test_deferred_maps_compare_exactly_beyond_the_hashed_rows():
    f, g = _maps_differing_in_row(20)          # row 20: neither the hashed offsets nor the first row
    assert hash(f) == hash(g) and f != g
    made = []
    lazy = AffineMap.deferred(lambda: made.append(1) or g, hash(g))
    assert lazy != f and made == [1]           # equal hashes: made once, then compared in full
    assert lazy == g and lazy.M == g.M


def test_deferred_maps_differ_by_their_hash_without_being_made():
    f, g = _maps_differing_in_row(0)
    assert hash(f) != hash(g)
    lazy = AffineMap.deferred(lambda: (_ for _ in ()).throw(AssertionError("made")), hash(g))
    assert lazy != f                           # decided by the hash alone


def test_deferred_maps_pickle_whole():
    f, _ = _maps_differing_in_row(3)
    lazy = pickle.loads(pickle.dumps(AffineMap.deferred(lambda: f, hash(f))))
    assert lazy == f and lazy.c == f.c and hash(lazy) == hash(f)


def test_deferred_output_maps_are_the_ffn_on_the_piece():
    rng = random.Random(5)
    q = lambda: F(rng.randint(-9, 9), rng.choice([1, 2, 4, 3]))            # noqa: E731
    dm, units = 20, 5                          # more model rows than the hash reads
    W1, b1 = [[q() for _ in range(dm)] for _ in range(units)], [q() for _ in range(units)]
    W2, b2 = [[q() for _ in range(units)] for _ in range(dm)], [q() for _ in range(dm)]
    step = ReluStep(FFN(W1, b1, W2, b2), 0)
    M, c = [[q(), q()] for _ in range(dm)], [q() for _ in range(dm)]
    f = AffineMap(tuple(map(tuple, M)), tuple(c))
    for bits in itertools.product((0, 1), repeat=units):
        lazy, made = step.output_map(bits, f, lazy=True), step.output_map(bits, f)
        # the oracle: x -> f(x) + W2 diag(bits) (W1 f(x) + b1) + b2, column by column in Fractions
        on = [i for i in range(units) if bits[i]]
        pre_M = [[sum(W1[i][r] * M[r][k] for r in range(dm)) for k in range(2)] for i in range(units)]
        pre_c = [sum(W1[i][r] * c[r] for r in range(dm)) + b1[i] for i in range(units)]
        want_M = tuple(tuple(M[r][k] + sum(W2[r][i] * pre_M[i][k] for i in on) for k in range(2)) for r in range(dm))
        want_c = tuple(c[r] + sum(W2[r][i] * pre_c[i] for i in on) + b2[r] for r in range(dm))
        want = AffineMap(want_M, want_c)
        assert hash(lazy) == hash(want) == hash(made)
        assert lazy == want and made == want and lazy.M == want_M


def test_deferred_maps_outlive_their_parents_products():
    """A deferred map holds the parent's integers and its bits, not the parent's products: those
    are freed once the step enters another parent, and the map is still made right later."""
    rng = random.Random(8)
    q = lambda: F(rng.randint(-9, 9), rng.choice([1, 2, 3]))                # noqa: E731
    dm, units = 20, 4
    ffn = FFN([[q() for _ in range(dm)] for _ in range(units)], [q() for _ in range(units)],
              [[q() for _ in range(units)] for _ in range(dm)], [q() for _ in range(dm)])
    step, fresh = ReluStep(ffn, 0), ReluStep(ffn, 0)
    maps = [AffineMap(tuple((q(), q()) for _ in range(dm)), tuple(q() for _ in range(dm))) for _ in range(2)]
    bits = (1, 0, 1, 1)
    lazy = step.output_map(bits, maps[0], lazy=True)
    products = weakref.ref(step._last[3])
    step.output_map(bits, maps[1], lazy=True)           # the next parent
    gc.collect()
    assert products() is None
    assert lazy == fresh.output_map(bits, maps[0]) and lazy.c == fresh.output_map(bits, maps[0]).c


def test_many_float_units_long_bits_and_nearest_units_agree_with_every_unit():
    rng = random.Random(11)
    q = lambda: rng.uniform(-2, 2)             # noqa: E731  float weights, exact: rows past int64 (the float filter)
    units = 3 * Bits.SHORT // 2                # long bits: the search keys its dicts by Bits
    ffn = FFN([[q(), q()] for _ in range(units)], [q() for _ in range(units)],
              [[q() for _ in range(units)] for _ in range(2)], [0, 0])
    model = Transformer([Layer([Head([[1, 0], [0, 1]], [0, 0], [[F(1, 3), 0], [0, F(1, 5)]])], ffn=ffn)])
    box = (F(-1, 4), F(1, 4))
    with counting() as scope:
        near = enumerate_regions(model, box=box, progress=False)
        c = count_regions(model, box=box, keep="counts", progress=False)
    with config.override(relu_parent_filter=0):
        plain = enumerate_regions(model, box=box, progress=False)
    got = sorted((r.pattern, tuple(sorted(r.integer_rows)), r.map._integers) for r in near.activation_regions)
    assert got == sorted((r.pattern, tuple(sorted(r.integer_rows)), r.map._integers) for r in plain.activation_regions)
    assert (c.n_activation, c.n_linear) == (near.n_activation, near.n_linear) == (plain.n_activation, plain.n_linear)
    places = scope.snapshot()["by_place"]
    assert places.get("certified:relu.near_units", 0) > 0 and places.get("fallbacks:relu.near_units", 0) == 0
    assert isinstance(near.activation_regions[0].pattern[0][1], Bits) and near.n_activation > 40
    om = load_model(model_to_json(model))
    for r in near.activation_regions[::7]:
        assert r.map.apply(r.interior_point) == evaluate(om, r.interior_point)
