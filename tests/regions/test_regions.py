"""Exact region enumeration: constructions, brute force, boxes, linear regions."""

import sys
from fractions import Fraction
from math import comb

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tropattn.attention import (
    FFN,
    Head,
    Layer,
    Transformer,
    count_dual,
    grid_model,
    random_model,
    sawtooth_count,
    sawtooth_model,
)
from tropattn.errors import Interrupted, InvalidInputError, TieError
from tropattn.region_bounds import line_bound
from tropattn.regions import ActivationRegion, brute_force_regions, enumerate_regions, overlay_regions


def patterns(result):
    return sorted(r.pattern for r in result.activation_regions)


@pytest.mark.parametrize("d,H,N", [(1, 1, 4), (2, 2, 3), (2, 1, 5), (3, 3, 2), (3, 2, 3)])
def test_grid_heads_give_N_to_the_H(d, H, N):
    assert len(enumerate_regions(grid_model(d, H, N)).activation_regions) == N ** H


@pytest.mark.parametrize("d,N,L", [(1, 3, 2), (1, 2, 3), (2, 2, 2), (2, 3, 2), (1, 4, 2)])
def test_sawtooth_gives_N_to_the_dL(d, N, L):
    model = sawtooth_model(d, N, L)
    assert len(enumerate_regions(model).activation_regions) == sawtooth_count(d, N, L)
    # also inside the unit box, where the construction routes floor(N^l x)
    assert len(enumerate_regions(model, box=(0, 1)).activation_regions) == sawtooth_count(d, N, L)


def test_every_region_certificate_is_exact():
    model = random_model(2, 2, 3, layers=2, seed=4)
    for r in enumerate_regions(model).activation_regions:
        x = r.interior_point
        out, pattern = model.evaluate(x)
        assert pattern == r.pattern
        assert r.map.apply(x) == tuple(out)
        assert all(sum(a * xi for a, xi in zip(row, x)) < b for row, b in zip(r.A, r.b))
        for row, b, p in zip(r.A, r.b, r.facet_points):      # facet points lie on their facet
            assert sum(a * xi for a, xi in zip(row, p)) == b


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 2), H=st.integers(1, 2), N=st.integers(2, 3),
       L=st.integers(1, 2), residual=st.booleans(), ffn=st.sampled_from([0, 0, 2]))
def test_enumeration_equals_brute_force(seed, d, H, N, L, residual, ffn):
    model = random_model(d, H, N, L, seed=seed, residual=residual, ffn_hidden=ffn)
    try:
        found = patterns(enumerate_regions(model))
    except TieError as exc:
        # legitimate only when a layer feeds a constant (no residual, or an FFN cancelling x) on which
        # two keys tie: then the model ties at the reported point and all around it
        assert "tie on a whole region" in str(exc)
        x = exc.point
        for dx in (0, Fraction(1, 10 ** 9), Fraction(-1, 10 ** 9)):
            with pytest.raises(TieError):
                model.evaluate(tuple(v + dx for v in x))
        assume(False)
    assert found == brute_force_regions(model)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 2), H=st.integers(1, 3), N=st.integers(2, 4),
       tiny=st.sampled_from([Fraction(1, 10 ** 6), Fraction(1, 2 ** 40), Fraction(3, 10 ** 9)]))
def test_thin_regions_are_found(seed, d, H, N, tiny):
    # offsets that differ by tiny amounts make regions far thinner than any fixed crossing step
    base = random_model(d, H, N, seed=seed).layers[0].heads
    heads = [Head(h.keys, [b + k * tiny for k, b in enumerate(h.offsets)], h.values) for h in base]
    model = Transformer([Layer(heads)])
    result = enumerate_regions(model)
    assert patterns(result) == brute_force_regions(model)
    assert len(result.activation_regions) == count_dual(heads)


def test_a_region_thinner_than_the_crossing_step():
    head = Head([[0], [1], [2]], [0, 0, -Fraction(1, 10 ** 6)], [[0], [1], [0]])
    result = enumerate_regions(Transformer([Layer([head], residual=False)]))
    assert len(result.activation_regions) == 3
    assert len(result.linear_regions) == 3       # the two outer regions share a map but do not touch


def test_relu_units_that_vanish_identically_are_off_not_ties():
    ffn = FFN([[0], [1]], [0, 0], [[1, 1]], [0])             # unit 0 is identically 0
    model = Transformer([Layer([Head([[0], [1]], [0, 0], [[0], [1]])], ffn=ffn)])
    assert patterns(enumerate_regions(model)) == brute_force_regions(model)
    assert all(r.pattern[0][1][0] == 0 for r in enumerate_regions(model).activation_regions)


def test_a_tie_on_a_whole_region_is_reported():
    # layer 0 has no residual and outputs the constant 0, where layer 1's two keys tie
    l0 = Layer([Head([[0], [1]], [0, 0], [[0], [0]])], residual=False)
    l1 = Layer([Head([[1], [2]], [0, 0], [[0], [1]])])
    with pytest.raises(TieError, match="tie on a whole region"):
        enumerate_regions(Transformer([l0, l1]))


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 2), H=st.integers(1, 3), N=st.integers(2, 3))
def test_box_counts_never_exceed_global_and_match_brute_force(seed, d, H, N):
    model = random_model(d, H, N, seed=seed)
    inside = enumerate_regions(model, box=(-1, 1))
    assert len(inside.activation_regions) <= len(enumerate_regions(model).activation_regions)
    assert patterns(inside) == brute_force_regions(model, box=(-1, 1))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 3), H=st.integers(1, 3), N=st.integers(2, 4))
def test_primal_overlay_equals_dual_minkowski_count(seed, d, H, N):
    heads = random_model(d, H, N, seed=seed).layers[0].heads
    assert len(overlay_regions(heads).activation_regions) == count_dual(heads)


@pytest.mark.parametrize("H,N", [(3, 3), (4, 2), (2, 5)])
def test_line_bound_holds_for_H_above_d(H, N):
    for seed in range(3):
        n = len(enumerate_regions(random_model(1, H, N, seed=seed)).activation_regions)
        assert n <= line_bound(H, N) < N ** H


@pytest.mark.parametrize("d,H", [(2, 3), (2, 4), (3, 4)])
def test_two_key_heads_are_hyperplanes_in_general_position(d, H):
    # head h compares key 0 (score 0) with key 1 (score a_h . x + b_h): one hyperplane each
    normals = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 2, 3], [2, -1, 5]]
    heads = [Head([[0] * d, normals[h][:d] if h < d else [(h * 7 + i * 3) % 5 + 1 for i in range(d)]],
                  [0, Fraction(h * h, 3) - 1]) for h in range(H)]
    expected = sum(comb(H, i) for i in range(d + 1))
    assert len(overlay_regions(heads).activation_regions) == expected


def test_linear_regions_merge_repeated_values():
    # max over keys 0, x, 2x - 1 with values 0, 0, 1: the first two regions share a map
    head = Head([[0], [1], [2]], [0, 0, -1], [[0], [0], [1]])
    result = enumerate_regions(Transformer([Layer([head])]))
    assert len(result.activation_regions) == 3
    assert len(result.linear_regions) == 2


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), L=st.integers(1, 2))
def test_generic_values_give_as_many_linear_as_activation_regions(seed, L):
    # values 2^k e_1 with a distinct k for every (layer, head, key): all sums differ, so every
    # pattern has its own affine map and nothing may merge
    model = random_model(2, 2, 3, layers=L, seed=seed)
    k = iter(range(100))
    layers = [Layer([Head(h.keys, h.offsets, [[2 ** next(k), 0] for _ in h.keys]) for h in layer.heads])
              for layer in model.layers]
    result = enumerate_regions(Transformer(layers))
    assert len(result.linear_regions) == len(result.activation_regions)


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_repeated_values_merge_into_fewer_linear_regions(seed):
    # all values equal: the map is x + const everywhere, so R^d is one linear region
    model = random_model(2, 2, 3, layers=2, seed=seed)
    layers = [Layer([Head(h.keys, h.offsets, [[1, 1]] * len(h.keys)) for h in layer.heads])
              for layer in model.layers]
    result = enumerate_regions(Transformer(layers))
    assert len(result.linear_regions) == 1 < len(result.activation_regions)


def test_linear_regions_merge_across_earlier_walls():
    # layer 0 splits x at 0 and shifts by 0 on both sides (equal values); layer 1 splits at 1.
    # The two layer-0 pieces carry the same map, so linear regions are those of layer 1 alone.
    l0 = Layer([Head([[0], [1]], [0, 0], [[0], [0]])])
    l1 = Layer([Head([[0], [1]], [0, -1], [[0], [5]])])
    result = enumerate_regions(Transformer([l0, l1]))
    assert len(result.activation_regions) == 3               # (-inf,0), (0,1), (1,inf)
    assert len(result.linear_regions) == 2


def _interrupt_after(chunks):
    """A progress callback that is Ctrl-C once ``chunks`` chunks of parents are done."""
    def progress(done, total, found):
        if done == chunks:
            raise KeyboardInterrupt
    return progress


def test_interrupt_returns_partial():
    with pytest.raises(Interrupted) as info:
        enumerate_regions(sawtooth_model(1, 3, 2), progress=_interrupt_after(1))
    assert info.value.partial.complete is False
    assert len(info.value.partial.activation_regions) >= 1


def test_ffn_regions_match_brute_force_on_a_hand_built_model():
    ffn = FFN([[1], [-1]], [0, 1], [[1, -1]], [0])
    model = Transformer([Layer([Head([[0], [1]], [0, "-1/2"], [[0], [1]])], ffn=ffn)])
    assert patterns(enumerate_regions(model)) == brute_force_regions(model)


def test_parallel_search_gives_the_same_regions():
    model = random_model(2, 2, 3, layers=2, seed=11, ffn_hidden=1)
    serial, parallel = enumerate_regions(model), enumerate_regions(model, workers=2)
    assert patterns(serial) == patterns(parallel)
    assert sorted(map(len, serial.linear_regions)) == sorted(map(len, parallel.linear_regions))


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), H=st.integers(1, 2))
def test_weight_form_regions_carry_the_labels_of_direct_attention(seed, H):
    # heads built from (W_Q, W_K, context, b_Q, b_K): every region's label is the argmax of
    # (W_Q x + b_Q) . (W_K y_j + b_K) computed directly, and every label seen by dense sampling
    # of direct attention is a region
    import random

    rng = random.Random(seed)
    d, N = 2, 4
    rand = lambda r, c: [[Fraction(rng.randint(-3, 3)) for _ in range(c)] for _ in range(r)]  # noqa: E731
    specs = [dict(W_Q=rand(2, d), W_K=rand(2, d), b_Q=[Fraction(rng.randint(-2, 2), 2) for _ in range(2)],
                  b_K=[Fraction(rng.randint(-2, 2)) for _ in range(2)]) for _ in range(H)]
    context = rand(N, d)
    eye = [[Fraction(int(i == j)) for j in range(d)] for i in range(d)]
    heads = [Head.from_weights(s["W_Q"], s["W_K"], eye, None, context, b_Q=s["b_Q"], b_K=s["b_K"]) for s in specs]

    def direct(x):
        labels = []
        for s in specs:
            q = [sum(w * xi for w, xi in zip(row, x)) + b for row, b in zip(s["W_Q"], s["b_Q"])]
            scores = [sum(qi * (sum(w * yi for w, yi in zip(row, y)) + b) for qi, row, b in zip(q, s["W_K"], s["b_K"]))
                      for y in context]
            best = max(scores)
            labels.append([j for j, v in enumerate(scores) if v == best])
        return labels

    result = enumerate_regions(Transformer([Layer(heads)]))
    for r in result.activation_regions:
        for winners, label in zip(direct(r.interior_point), r.pattern[0][0]):
            assert winners[0] == label                     # duplicates: the earlier key wins, as in the diagram
    realised = {r.pattern[0][0] for r in result.activation_regions}
    for i in range(-6, 7):
        for j in range(-6, 7):
            w = direct((Fraction(i, 3) + Fraction(1, 97), Fraction(j, 3) + Fraction(1, 89)))
            if all(len({(h.keys[k], h.offsets[k]) for k in ws}) == 1 for h, ws in zip(heads, w)):  # no real tie
                assert tuple(ws[0] for ws in w) in realised


@pytest.mark.parametrize("exponent", [40, 200, 1000])
def test_regions_far_thinner_than_any_fixed_step(exponent):
    # on a line the middle region (0, tiny) can only be reached by crossing one of its two walls
    tiny = Fraction(1, 10 ** exponent)
    head = Head([[0], [1], [2]], [0, 0, -tiny], [[0], [1], [0]])
    model = Transformer([Layer([head], residual=False)])
    assert patterns(enumerate_regions(model)) == brute_force_regions(model)
    box = (Fraction(-1, 10 ** (exponent // 2)), Fraction(1, 10 ** exponent))      # a box of width ~10^-e/2
    assert patterns(enumerate_regions(model, box=box)) == brute_force_regions(model, box=box)


# ------------------------------------------------------------------ streaming, adjacency, regions out

def _independent_adjacency(regions):
    """Every pair of regions whose facets on one hyperplane, on opposite sides, overlap: an exact LP each."""
    from tropattn.exact import relative_interior_point

    edges = set()
    for i, r in enumerate(regions):
        for j in range(i + 1, len(regions)):
            s = regions[j]
            for ri, row in enumerate(r.integer_rows):
                opposite = tuple(-v for v in row)
                if opposite not in s.integer_rows:
                    continue
                sj = s.integer_rows.index(opposite)
                others = [q for k, q in enumerate(r.integer_rows) if k != ri]
                others += [q for k, q in enumerate(s.integer_rows) if k != sj]
                cert = relative_interior_point([q[:-1] for q in others], [q[-1] for q in others],
                                               [row[:-1]], [row[-1]])
                if cert.feasible:
                    edges.add((i, j))
    return edges


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 3), N=st.integers(2, 3), L=st.integers(1, 3),
       ffn=st.sampled_from([0, 0, 1]))
@pytest.mark.slow
def test_graph_holds_every_facet_adjacency(seed, d, N, L, ffn):
    # crossing gives the adjacency inside a parent; across walls of earlier sub-layers the two sides are
    # cut differently, and the graph must still hold every pair that shares a (d-1)-dimensional facet piece
    assume(d < 3 or L < 3)
    model = random_model(d, 2, N, L, seed=seed, ffn_hidden=ffn)
    try:
        result = enumerate_regions(model)
    except TieError:
        assume(False)
    found = {tuple(sorted(e)) for e in result.graph.edges}
    assert found == _independent_adjacency(result.activation_regions)
    import networkx as nx
    assert nx.is_connected(result.graph)


def test_sawtooth_graph_crosses_first_layer_walls():
    result = enumerate_regions(sawtooth_model(2, 2, 2))
    assert {tuple(sorted(e)) for e in result.graph.edges} == _independent_adjacency(result.activation_regions)
    # a 4 x 4 grid of cells (N^(dL) = 16): 2 * 4 * 3 shared edges, half of them on first-layer walls
    assert result.graph.number_of_edges() == 2 * 4 * 3


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 2), H=st.integers(1, 2), N=st.integers(2, 4),
       L=st.integers(1, 3), values=st.sampled_from([None, 2]), ffn=st.sampled_from([0, 0, 2]))
def test_streamed_counts_equal_kept_regions(seed, d, H, N, L, values, ffn):
    # counts only (union-find on ids, nothing kept) and a callback agree with the full result
    model = random_model(d, H, N, L, seed=seed, ffn_hidden=ffn)
    if values:   # few distinct values: many regions merge into linear regions
        for layer in model.layers:
            for h in layer.heads:
                object.__setattr__(h, "values", tuple(tuple(Fraction(int(v) % values) for v in val)
                                                      for val in h.values))
    try:
        full = enumerate_regions(model)
    except TieError:
        assume(False)
    counts = enumerate_regions(model, keep="counts")
    seen = []
    streamed = enumerate_regions(model, keep=lambda i, r: seen.append((i, r.pattern)))
    with pytest.raises(InvalidInputError, match="keep='all'"):      # not kept: an error, not an empty tuple
        counts.activation_regions
    assert counts.n_activation == len(full.activation_regions)
    assert list(counts.linear_ids) == list(streamed.linear_ids)
    assert counts.n_linear == streamed.n_linear == len(full.linear_regions)
    assert [i for i, _ in seen] == list(range(len(seen)))
    assert [p for _, p in seen] == [r.pattern for r in full.activation_regions]
    groups = {}
    for i, lin in enumerate(streamed.linear_ids):
        groups.setdefault(lin, set()).add(i)
    assert sorted(map(sorted, groups.values())) == sorted(map(sorted, full.linear_regions))


def test_counts_build_no_region_objects():
    # watch (not steer) the search: a profile hook notes every ActivationRegion being made
    built, init = [], ActivationRegion.__init__.__code__

    def watch(frame, event, arg):
        if event == "call" and frame.f_code is init:
            built.append(1)

    sys.setprofile(watch)
    try:
        result = enumerate_regions(sawtooth_model(2, 4, 2), keep="counts")
    finally:
        sys.setprofile(None)
    assert result.n_activation == 256 and not built
    sys.setprofile(watch)
    try:
        enumerate_regions(sawtooth_model(1, 2, 1))             # the hook does see regions that are made
    finally:
        sys.setprofile(None)
    assert len(built) == 2


def test_region_files_round_trip(tmp_path):
    import csv
    import json

    from tropattn.cli import main

    model = random_model(2, 2, 3, 2, seed=3, ffn_hidden=1)
    full = enumerate_regions(model)
    path = tmp_path / "model.json"
    from tropattn.io import save
    save(model, path)
    for name in ("r.jsonl", "r.csv"):
        assert main(["count", str(path), "--regions", str(tmp_path / name)]) == 0
    lines = [json.loads(line) for line in open(tmp_path / "r.jsonl")]
    assert lines[0]["schema"] == "tropattn.regions/1" and lines[-1]["complete"] is True
    records = [r for r in lines if r["type"] == "region"]
    assert len(records) == len(full.activation_regions) == lines[-1]["activation_regions"]
    for rec in records:      # each record is a certified region: the pattern holds at its point, strictly inside
        x = tuple(Fraction(v) for v in rec["interior_point"])
        out, pattern = model.evaluate(x)
        assert [[list(h), list(b)] for h, b in pattern] == rec["pattern"]
        assert tuple(out) == tuple(sum(Fraction(m) * xi for m, xi in zip(row, x)) + Fraction(c)
                                   for row, c in zip(rec["map"]["M"], rec["map"]["c"]))
        assert all(sum(Fraction(a) * xi for a, xi in zip(q["a"], x)) < Fraction(q["b"]) for q in rec["inequalities"])
    by_linear = {}
    for rec in records:
        by_linear.setdefault(rec["linear_region"], []).append(rec["id"])
    assert len(by_linear) == len(full.linear_regions) == lines[-1]["linear_regions"]
    with open(tmp_path / "r.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(int(r["id"]), json.loads(r["pattern"]), int(r["linear_region"])) for r in rows] == \
        [(r["id"], r["pattern"], r["linear_region"]) for r in records]
    assert not list(tmp_path.glob("*.part"))


def test_interrupted_region_file_holds_what_was_found(tmp_path):
    import json

    from tropattn.regions import RegionWriter

    path = tmp_path / "r.jsonl"
    with pytest.raises(Interrupted) as info:
        enumerate_regions(sawtooth_model(2, 3, 2), keep=RegionWriter(path), progress=_interrupt_after(4))
    lines = [json.loads(line) for line in open(path)]
    regions = [r for r in lines if r["type"] == "region"]
    assert lines[-1]["complete"] is False
    assert len(regions) == lines[-1]["activation_regions"] == info.value.partial.n_activation > 0
    assert all(r["linear_region"] is not None for r in regions)


# ------------------------------------------------------------------ one count, one labeller

def test_count_regions_methods_agree_and_refusals_speak_to_a_library_user():
    from tropattn.regions import count_regions

    one = random_model(2, 3, 3, seed=5)                      # one layer, no FFN: the dual applies
    auto, primal, dual = (count_regions(one, m) for m in ("auto", "primal", "dual"))
    assert (auto.method, primal.method, dual.method) == ("dual", "primal", "dual")
    assert auto.n_activation == primal.n_activation == dual.n_activation == len(enumerate_regions(one).activation_regions)
    assert dual.n_linear is None and primal.n_linear == enumerate_regions(one, keep="counts").n_linear
    assert count_regions(one, box=(-1, 1)).method == "primal"            # a box: only the primal counts it
    deep = sawtooth_model(1, 3, 2)
    assert (count_regions(deep).method, count_regions(deep).n_activation) == ("primal", 9)
    with pytest.raises(InvalidInputError, match="^method='dual' cannot count this model: the model has 2 layers"):
        count_regions(deep, "dual")
    with pytest.raises(InvalidInputError, match="not a box; use method='primal'"):
        count_regions(one, "dual", box=(-1, 1))
    with pytest.raises(InvalidInputError, match="only counts"):
        count_regions(one, "dual", keep="all")
    with pytest.raises(InvalidInputError, match="did you mean 'primal'"):
        count_regions(one, "primall")
    tie = Transformer([Layer([Head([[0], [1]], [0, 0], [[1], [1]])], residual=False), Layer([Head([[0], [1]], [0, -1])])])
    with pytest.raises(TieError):
        count_regions(tie)
    assert count_regions(tie, ties="first").n_activation == len(brute_force_regions(tie.with_ties("first")))


def test_region_set_reads_regions_only_where_they_were_kept():
    kept = enumerate_regions(sawtooth_model(1, 3, 2))
    for keep in ("counts", lambda i, r: None):
        counted = enumerate_regions(sawtooth_model(1, 3, 2), keep=keep)
        assert (counted.n_activation, counted.n_linear) == (kept.n_activation, kept.n_linear) == (9, 9)
        assert list(counted.linear_ids) == list(kept.linear_ids)
        for name in ("activation_regions", "linear_regions", "graph"):
            with pytest.raises(InvalidInputError, match="were not kept.*pass keep='all'"):
                getattr(counted, name)
    assert [sorted(g) for g in kept.linear_regions] == [[i] for i in range(9)]
    assert all(kept.linear_ids[i] == k for k, g in enumerate(kept.linear_regions) for i in g)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), d=st.integers(1, 2), L=st.integers(1, 2), ffn=st.sampled_from([0, 1]))
def test_label_gives_every_region_point_its_pattern(seed, d, L, ffn):
    from tropattn.regions import label

    model = random_model(d, 2, 3, L, seed=seed, ffn_hidden=ffn)
    try:
        regions = enumerate_regions(model).activation_regions
    except TieError:
        assume(False)
    points = [r.interior_point for r in regions]
    assert label(model, points) == tuple(r.pattern for r in regions)
    head = model.layers[0].heads[0]
    assert label(head, points).tolist() == [r.pattern[0][0][0] for r in regions]
    assert label(model.layers[0], points[:1]) == (regions[0].pattern[0],)


def test_label_on_walls_duplicates_and_floats():
    from tropattn.regions import label

    head = Head([[1], [1], [-1]], [0, 0, 0])                     # keys 0 and 1 are one key
    assert label(head, [[2], [-2], [0], [1e-300], [-1e-300]]).tolist() == [0, 2, -1, 0, 2]
    assert label(head.with_ties("first"), [[0]]).tolist() == [0]          # a wall: the lowest index wins
    assert label(head, ["1/2"]).tolist() == [0]                   # one point given as a vector
    assert label(Transformer([Layer([head])]), [[0], [3]]) == (None, (((0,), ()),))
    with pytest.raises(InvalidInputError, match="points"):
        label(head, [[1, 2]])
    with pytest.raises(InvalidInputError, match="a Head, a Layer or a Transformer"):
        label("head", [[1]])
