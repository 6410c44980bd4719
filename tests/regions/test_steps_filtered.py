"""The fast paths of the region search's FFN step against the plain ones (issue 23, item 2).

* ``ReluStep.restrict``: in a planar parent, units whose line misses the parent polygon keep
  one sign (filtered at the vertices) and add no row.  The search with it
  (``relu_parent_filter=1``) and without it (``0``, every unit's row, every unit evaluated)
  must find the same regions -- patterns, facet rows, maps -- and the same counts.
* ``int_limbs``: products on float64 limbs against plain Python sums.
* ``FFN.from_integers`` and ``AffineMap.from_integers`` (Fraction views built lazily) against
  the Fraction-built objects; the skip-matrix output map of an attention step against
  ``Layer.evaluate``.

The oracles here are written from the definitions (Fractions, Python sums); they call none
of the code they check.
"""

from __future__ import annotations

import pickle
from math import gcd
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from tropattn import config
from tropattn.attention import FFN, Head, Layer, Transformer
from tropattn.exact import counting, int_limbs, int_matmul
from tropattn.regions import AffineMap, count_regions, enumerate_regions
from tropattn.regions._steps import AttentionStep, ReluStep

_small = st.one_of(st.integers(-3, 3), st.builds(lambda m, e: m * 2.0 ** e, st.integers(-40, 40), st.integers(-6, 0)))


@st.composite
def _planar_model(draw):
    """A 2-D model: one or two layers of 1-2 heads on 2-4 keys, a ReLU FFN of 1-6 units each."""
    layers = []
    for _ in range(draw(st.integers(1, 2))):
        heads = []
        for _ in range(draw(st.integers(1, 2))):
            n = draw(st.integers(2, 4))
            keys = [[draw(_small), draw(_small)] for _ in range(n)]
            heads.append(Head(keys, [draw(_small) for _ in range(n)], [[draw(_small), draw(_small)] for _ in range(n)]))
        h = draw(st.integers(1, 6))
        ffn = FFN([[draw(_small), draw(_small)] for _ in range(h)], [draw(_small) for _ in range(h)],
                  [[draw(_small) for _ in range(h)] for _ in range(2)], [draw(_small), draw(_small)])
        layers.append(Layer(heads, ffn=ffn))
    return Transformer(layers)


def _regions(model, box, filtered):
    with config.override(relu_parent_filter=int(filtered)), counting() as scope:
        rs = enumerate_regions(model, box=box, progress=False)
        got = sorted((r.pattern, tuple(sorted(r.integer_rows)), r.map._integers) for r in rs.activation_regions)
        return got, rs.n_linear, scope.snapshot()["by_place"]


@settings(max_examples=20, deadline=None)
@given(model=_planar_model(), half=st.sampled_from([1, 3, 10]))
def test_filtered_relu_step_finds_the_regions_of_the_plain_one(model, half):
    box = (-half, half)
    fast, lin_fast, places = _regions(model, box, True)
    plain, lin_plain, plain_places = _regions(model, box, False)
    assert fast == plain                               # same patterns, facet rows and exact maps
    assert lin_fast == lin_plain
    assert plain_places.get("certified:relu.parent_filter", 0) == 0    # the plain path never filters
    with config.override(relu_parent_filter=0):
        c0 = count_regions(model, box=box, progress=False)
    c1 = count_regions(model, box=box, progress=False)
    assert (c1.n_activation, c1.n_linear) == (c0.n_activation, c0.n_linear) == (len(fast), c0.n_linear)


def test_the_filter_drops_units_far_from_the_parent():
    # units x - 5, -x - 7, y - 100 miss the box [-1, 1]^2; x - y/2 crosses it
    ffn = FFN([[1, 0], [-1, 0], [0, 1], [1, "-1/2"]], [-5, -7, -100, 0], [[1, 1, 1, 1], [0, 1, 0, 1]], [0, 0])
    model = Transformer([Layer([Head([[0, 0]])], ffn=ffn)])
    with counting() as scope:
        c = count_regions(model, box=(-1, 1), progress=False)
    assert c.n_activation == 2
    assert scope.snapshot()["by_place"]["certified:relu.parent_filter"] == 3    # three units decided at once
    step = ReluStep(ffn, 0)
    f = AffineMap.identity(2)
    square = [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)]
    full, other = step.rows((0, 0, 0, 1), f), step.rows((1, 0, 0, 1), f)
    step.restrict(f, square)
    assert step.rows((0, 0, 0, 1), f) == ([full[0][3]], [full[1][3]], [full[2][3]])
    assert step.rows((1, 0, 0, 1), f) == other         # bits that disagree with the parent: every row
    assert step.labels_at(f, (1, 0), 2) == (0, 0, 0, 1)
    assert step.labels_at(f, (10, 0), 1) == (1, 0, 0, 1)        # outside the parent: every unit evaluated


def test_an_unbounded_parent_is_not_filtered():
    ffn = FFN([[1, 0]], [-5], [[1], [0]], [0, 0])
    step = ReluStep(ffn, 0)
    f = AffineMap.identity(2)
    step.restrict(f, [(1, 0, 1), (0, 1, 1)])          # a quadrant: no vertices to bound it
    assert step.rows((0,), f)[0] == [(1, 0)]


@settings(max_examples=60, deadline=None)
@given(bits=st.integers(0, 160), n=st.integers(1, 40), r=st.integers(1, 5), c=st.integers(1, 4), data=st.data())
def test_limb_products_are_exact(bits, n, r, c, data):
    ints = st.integers(-(2 ** bits), 2 ** bits)
    A = [[data.draw(ints) for _ in range(n)] for _ in range(r)]
    B = [[data.draw(ints) for _ in range(c)] for _ in range(n)]
    want = [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]
    with counting() as scope:
        got = int_matmul(int_limbs(A), np.array(B, dtype=object)).tolist()
    assert got == want and all(type(v) is int for row in got for v in row)
    bits_a, bits_b = (max(abs(v) for row in M for v in row).bit_length() for M in (A, B))
    if bits_a + bits_b + n.bit_length() > 62:                   # int64 cannot prove the product safe
        assert scope.snapshot()["by_place"].get("certified:int_matmul.limbs", 0) == 1


def test_ffn_from_integers_is_the_fraction_ffn():
    W1, b1, W2, b2 = [[0.5, -0.25], [3, 1]], [0.125, -1], [[1, 0.75], [-2, 0]], [0, 0.5]
    plain = FFN(W1, b1, W2, b2)
    N1 = [[4 * Fraction(v) * 2 for v in row] + [Fraction(b) * 8] for row, b in zip(W1, b1)]
    lazy = FFN.from_integers([[int(v) for v in row] for row in N1], 8, [[4, 3, 0], [-8, 0, 2]], 4)
    assert lazy.dim == 2 and "W1" not in lazy.__dict__
    assert lazy == plain and hash(lazy) == hash(plain)
    assert (lazy.W1, lazy.b1, lazy.W2, lazy.b2) == (plain.W1, plain.b1, plain.W2, plain.b2)
    x = [Fraction(1, 3), Fraction(-2)]
    assert lazy.evaluate(x) == plain.evaluate(x)
    again = pickle.loads(pickle.dumps(FFN.from_integers([[2, -2]], 2, [[1, 0]], 1)))
    assert again == FFN([[1]], [-1], [[1]], [0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-40, 40), min_size=6, max_size=6), st.lists(st.integers(-40, 40), min_size=6, max_size=6),
       st.integers(1, 48), st.integers(1, 48), st.integers(1, 6), st.integers(1, 6))
def test_ffn_from_int64_arrays_is_the_fraction_ffn(n1, n2, t1, t2, k1, k2):
    """int64 weights (a checkpoint's) take numpy's gcd; the FFN is that of the Fractions N / t, and
    the same as from Python-int lists, whatever the entries share with t (a factor k in common)."""
    N1, N2 = k1 * np.array(n1, dtype=np.int64).reshape(2, 3), k2 * np.array(n2, dtype=np.int64).reshape(2, 3)
    t1, t2 = k1 * t1, k2 * t2
    fast = FFN.from_integers(N1, t1, N2, t2)
    want = FFN([[Fraction(v, t1) for v in row[:-1]] for row in N1.tolist()],
               [Fraction(row[-1], t1) for row in N1.tolist()],
               [[Fraction(v, t2) for v in row[:-1]] for row in N2.tolist()], [Fraction(row[-1], t2) for row in N2.tolist()])
    assert fast == want and (fast.W1, fast.b1, fast.W2, fast.b2) == (want.W1, want.b1, want.W2, want.b2)
    slow = FFN.from_integers(N1.tolist(), t1, N2.tolist(), t2)
    a, b = fast.integer_form(), slow.integer_form()
    assert (a[0].tolist(), a[1], a[2].tolist(), a[3]) == (b[0].tolist(), b[1], b[2].tolist(), b[3])
    assert all(type(v) is int for v in a[0].ravel().tolist())
    assert gcd(a[1], *a[0].ravel().tolist()) == gcd(a[3], *a[2].ravel().tolist()) == 1   # least terms


def test_lazy_maps_compare_and_hash_as_fraction_maps():
    f = AffineMap.from_integers(np.array([[6, 4]], dtype=object), np.array([2], dtype=object), 8)
    g = AffineMap(((Fraction(3, 4), Fraction(1, 2)),), (Fraction(1, 4),))
    assert "M" not in f.__dict__
    assert f == g and hash(f) == hash(g) and len({f, g}) == 1
    assert f != AffineMap(((Fraction(3, 4), Fraction(1, 2)),), (Fraction(1, 3),))
    assert f.M == g.M and f.c == g.c and repr(f) == repr(g)
    assert pickle.loads(pickle.dumps(f)) == g


def test_a_pickled_map_carries_its_integers_not_its_fraction_views():
    f = AffineMap.from_integers([[2, 4]], [6], 4)
    assert f.M == ((Fraction(1, 2), Fraction(1)),)                    # the views are built, then left behind
    copy = pickle.loads(pickle.dumps(f))
    assert "M" not in copy.__dict__ and "c" not in copy.__dict__
    assert copy == f and hash(copy) == hash(f) and (copy.M, copy.c) == (f.M, f.c)
    g = AffineMap(((Fraction(1, 3),),), (Fraction(-2, 7),))            # made from Fractions: they are the map
    again = pickle.loads(pickle.dumps(g))
    assert again == g and (again.M, again.c) == (g.M, g.c) and hash(again) == hash(g)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_skip_matrix_output_map_is_the_layer(data):
    R = [[data.draw(_small) for _ in range(2)] for _ in range(3)]              # a slice: R^2 -> R^3
    n = data.draw(st.integers(1, 3))
    head = Head([[data.draw(_small) for _ in range(2)] for _ in range(n)], [data.draw(_small) for _ in range(n)],
                [[data.draw(_small) for _ in range(3)] for _ in range(n)])
    layer = Layer([head], residual=R)
    step = AttentionStep(layer, 0)
    f = AffineMap.identity(2)
    x = (Fraction(data.draw(st.integers(-9, 9)), 7), Fraction(data.draw(st.integers(-9, 9)), 5))
    j = data.draw(st.integers(0, n - 1))
    want = tuple(sum((Fraction(r[i]) * x[i] for i in range(2)), Fraction(0)) + Fraction(v)
                 for r, v in zip(R, head.values[j]))               # R x + v_j, from the definition
    assert step.output_map((j,), f).apply(x) == want


def test_limb_products_at_the_float_edge():
    # every limb of every entry at its largest value: each float partial sum is as large as the split allows
    for n in (7, 100, 768, 3000):
        a, b = (1 << 90) - 1, -((1 << 70) - 1)
        got = int_matmul(int_limbs([[a] * n, [-a] * n]), np.array([[b, 1]] * n, dtype=object)).tolist()
        assert got == [[n * a * b, n * a], [-n * a * b, -n * a]]


def test_limb_products_of_huge_entries_carry_in_turns():
    # 12,000-bit entries: more limb blocks share a weight than one int64 digit may sum, so in turns
    rng = np.random.default_rng(3)
    A = [[int(v) * (1 << 12000) + int(w) for v, w in zip(rng.integers(-2 ** 20, 2 ** 20, 3), rng.integers(0, 9, 3))]
         for _ in range(2)]
    B = [[-(int(v) << 12000) - 1 for v in rng.integers(1, 2 ** 10, 2)] for _ in range(3)]
    want = [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]
    assert int_matmul(int_limbs(A), np.array(B, dtype=object)).tolist() == want
