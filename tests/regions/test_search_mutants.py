"""The search's entry points (tropattn/regions/_search.py) by behaviour: keep modes, refusals, progress,
Ctrl-C, executors, the eager graph and overlays, checked against the independent reference.

Written to kill the mutants of _search.py (scripts/mutation.py search).  Counts, patterns and
edges come from tests/oracles (a Fraction brute force sharing no code with tropattn).
"""

from __future__ import annotations

import time
from fractions import Fraction

import pytest

from oracles import adjacency, brute_force, load_model
from oracles.compare import compare
from tropattn.attention import Head, Layer, Transformer
from tropattn.backends import SerialExecutor
from tropattn.errors import Interrupted, InvalidInputError
from tropattn.io import model_from_json, model_to_json
from tropattn.regions import enumerate_regions, overlay_regions

#: two layers in the plane with an FFN: 10+ regions, repeated values (fewer linear regions)
OBJ = {"format": "tropattn.model/1", "dim": 2, "ties": "first", "layers": [
    {"heads": [{"keys": [[0, 0], [1, 0], [0, 1]], "offsets": [0, 0, "-1/2"], "values": [[1, 0], [1, 0], [0, 1]]}],
     "ffn": {"W1": [[1, -1]], "b1": [0], "W2": [[0], [0]], "b2": [0, 0]}},
    {"heads": [{"keys": [[0, 0], [1, 1]], "offsets": [0, -1], "values": [[0, 0], [0, 0]]}]}]}


def _reference(obj=OBJ, box=None):
    ref = brute_force(load_model(obj, box))
    linear = {}
    for p, (_, f) in ref.items():
        linear.setdefault(f.key(), set()).add(p)
    return ref, linear


def _one_line_error(call, *words):
    with pytest.raises(InvalidInputError) as info:
        call()
    text = str(info.value)
    assert "\n" not in text and all(w in text for w in words), text


def test_keep_all_counts_and_callback_agree_with_the_reference():
    ref, linear = _reference()
    model = model_from_json(OBJ)
    full = enumerate_regions(model, progress=False)
    assert compare(OBJ, full) == {"missing_edges": set(), "extra_edges": set()}
    assert (full.n_activation, full.n_linear) == (len(ref), len(linear))
    assert full.n_linear < full.n_activation and full.complete and full.keep == "all"
    groups = {frozenset(full.activation_regions[i].pattern for i in g) for g in full.linear_regions}
    assert groups == {frozenset(g) for g in linear.values()}
    assert [min(g) for g in full.linear_regions] == sorted(min(g) for g in full.linear_regions)
    assert all(full.linear_ids[i] == full.linear_ids[min(g)] for g in full.linear_regions for i in g)
    counts = enumerate_regions(model, keep="counts", progress=False)
    assert (counts.n_activation, counts.n_linear, counts.keep, counts.complete) == \
        (len(ref), len(linear), "counts", True)
    assert list(counts.linear_ids) == list(full.linear_ids)
    seen, ended = [], []

    class Sink:
        def __call__(self, i, region):
            seen.append((i, region.pattern))

        def done(self, result):
            ended.append(result)

    streamed = enumerate_regions(model, keep=Sink(), progress=False)
    assert [i for i, _ in seen] == list(range(len(ref))) and {p for _, p in seen} == set(ref)
    assert ended == [streamed] and streamed.complete and streamed.keep == "callback"
    assert (streamed.n_activation, streamed.n_linear) == (len(ref), len(linear))
    plain = []
    enumerate_regions(model, keep=lambda i, r: plain.append(i), progress=False)   # no done(): fine
    assert plain == list(range(len(ref)))


@pytest.mark.parametrize("keep", ["all", "counts", "callback"])
def test_counters_and_seconds_are_filled(keep):
    t0 = time.perf_counter()
    r = enumerate_regions(model_from_json(OBJ), keep=(lambda i, r: None) if keep == "callback" else keep,
                          progress=False)
    assert 0 <= r.seconds <= time.perf_counter() - t0               # the search's own span, not a clock reading
    assert sum(v for v in r.counters.values() if isinstance(v, int)) > 0


def test_the_eager_graph_is_the_lazy_graph_and_the_references():
    model = model_from_json(OBJ)
    seen = []
    eager = enumerate_regions(model, graph=True, progress=lambda done, total, found: seen.append((done, total)))
    assert eager.kept[2].built is True
    lazy = enumerate_regions(model, progress=False)
    assert lazy.kept[2].built is False
    edges = sorted(map(sorted, lazy.graph.edges))
    assert edges == sorted(map(sorted, eager.graph.edges))
    ref, _ = _reference()
    pats = [r.pattern for r in eager.activation_regions]
    assert {frozenset((pats[i], pats[j])) for i, j in eager.graph.edges} == adjacency(ref, 2)
    assert seen and seen[-1][0] == seen[-1][1]                      # the graph stage ends at its total


def test_a_box_restricts_the_regions():
    box = (-1, "1/2")
    ref, _ = _reference(box=box)
    r = enumerate_regions(model_from_json(OBJ), box=box, progress=False)
    assert compare(OBJ, r, box) == {"missing_edges": set(), "extra_edges": set()}
    assert r.n_activation == len(ref) < enumerate_regions(model_from_json(OBJ), progress=False).n_activation


def test_refusals_are_one_clear_line():
    model = model_from_json(OBJ)
    _one_line_error(lambda: enumerate_regions(model, keep="some"), "keep", "counts",
                    "or give a function called with (id, region)")
    _one_line_error(lambda: enumerate_regions(model, progress="yes"), "progress", "progress(done, total, found)")
    _one_line_error(lambda: enumerate_regions(model, workers=0), "workers")
    _one_line_error(lambda: enumerate_regions(model, keep="counts", graph=True), "graph=True needs keep='all'",
                    "'counts'")
    _one_line_error(lambda: enumerate_regions(model, keep=print, graph=True), "graph=True needs keep='all'")
    _one_line_error(lambda: enumerate_regions(model, box=(1, 0)), "box")


@pytest.mark.parametrize("kwargs,message", [
    ({"keep": "some"}, "keep = 'some'; use one of 'all', 'counts'; or give a function called with (id, region)"),
    ({"progress": "yes"}, "progress = 'yes'; use None (a bar on a terminal), True, False or a function called as "
                          "progress(done, total, found)"),
    ({"workers": 0}, "workers = 0; the number of worker processes must be an integer >= 1"),
    ({"keep": "counts", "graph": True},
     "graph=True needs keep='all' (got keep='counts'): the adjacency graph is built on the regions it keeps"),
    ({"scheduler": "bogus"}, "scheduler = 'bogus'; use 'local' or an address like tcp://host:8786"),
    ({"executor": "nope"}, "executor = 'nope'; use one of 'serial', 'processes', 'dask'; or an object with "
                           "map(fn, chunks)"),
])
def test_each_refusal_says_what_was_given_and_what_to_give(kwargs, message):
    def stop(done, total, found):            # a refusal must come before any work: never reached
        raise KeyboardInterrupt

    with pytest.raises(InvalidInputError) as info:
        enumerate_regions(model_from_json(OBJ), **{"progress": stop, **kwargs})
    assert str(info.value) == message


def test_ctrl_c_gives_a_partial_result_and_tells_the_writer():
    ended = []

    class Sink:
        def __call__(self, i, region):
            pass

        def done(self, result):
            ended.append(result)

    def stop(done, total, found):
        if done >= 1:
            raise KeyboardInterrupt

    model = model_from_json(OBJ)
    for keep in ("all", Sink()):
        with pytest.raises(Interrupted) as info:
            enumerate_regions(model, keep=keep, progress=stop)
        part = info.value.partial
        assert part.complete is False and 0 < part.n_activation < len(brute_force(load_model(OBJ)))
        if keep == "all":
            assert part.kept[2].built is False                     # no graph built for a partial result
        assert str(info.value) == (f"interrupted; the partial result holds the {part.n_activation} regions "
                                   "certified so far (a lower bound on the count)")
    assert len(ended) == 1 and ended[0].complete is False


class _Recorder(SerialExecutor):
    """An executor object: maps in this process and records that it was used (and never closed)."""

    def __init__(self):
        self.calls, self.closed = 0, False

    def map(self, fn, chunks):
        self.calls += 1
        return super().map(fn, chunks)

    def close(self):
        self.closed = True


def test_an_executor_object_is_used_and_left_open():
    rec = _Recorder()
    model = model_from_json(OBJ)
    r = enumerate_regions(model, executor=rec, progress=False)
    assert rec.calls >= 1 and rec.closed is False
    assert compare(OBJ, r) == {"missing_edges": set(), "extra_edges": set()}


def test_overlay_of_heads_is_their_common_refinement():
    h = [Head([[0, 0], [1, 0]], [0, 0], [[0, 0], [1, 0]]), Head([[0, 0], [0, 1], [1, 1]], [0, 0, -1],
                                                               [[0, 0], [0, 1], [0, 0]])]
    obj = model_to_json(Transformer([Layer(h, residual=False)]))
    ref = brute_force(load_model(obj))
    r = overlay_regions(h)
    assert sorted(x.pattern for x in r.activation_regions) == sorted(ref)
    linear = {}
    for p, (_, f) in ref.items():
        linear.setdefault(f.key(), set()).add(p)
    assert r.n_linear == len(linear) < r.n_activation                # no residual: equal value sums merge
    seen = []
    overlay_regions(h, progress=lambda done, total, found: seen.append(found))
    assert seen and seen[-1] == r.n_activation
    wide = [Head(x.keys, x.offsets, [[1, 2, 3]] * len(x.keys)) for x in h]   # values of another dimension
    assert overlay_regions(wide).n_activation == r.n_activation and overlay_regions(wide).n_linear == 1
    boxed = overlay_regions(h, box=(0, "1/2"))
    assert boxed.n_activation == len(brute_force(load_model(obj, (0, "1/2")))) < r.n_activation
    with pytest.raises(InvalidInputError):
        overlay_regions([Head([[0], [1]]), Head([[0, 0], [1, 1]])])


def test_the_graph_stage_has_its_own_line_on_the_bar(capsys):
    enumerate_regions(model_from_json(OBJ), graph=True, progress=True)
    lines = [x.strip() for x in capsys.readouterr().err.replace("\r", "\n").splitlines() if x.strip()]
    graph = [x for x in lines if x.startswith("adjacency graph")]
    assert graph and all("walls" in x and "regions" not in x for x in graph), lines
    total = graph[-1].split(" walls")[0].split()[-1]                # "... k/n walls ..."
    assert total.split("/")[0] == total.split("/")[1] and int(total.split("/")[1]) > 0, graph[-1]
    assert lines[0].startswith("sub-layer") and "regions" in [x for x in lines if x.startswith("sub-layer")][-1]


def _intervals(n=32):
    """x -> nearest of 0..n-1 (walls at j + 1/2: n intervals), then a second layer: n parents to split into chunks."""
    return Transformer([Layer([Head([[j] for j in range(n)], [Fraction(-j * j, 2) for j in range(n)])]),
                        Layer([Head([[0], [1]], [0, 0])])])


@pytest.mark.parametrize("workers,chunk", [(None, 1), (1, 1), (2, 4), (3, 2)])
def test_the_executor_follows_workers_and_shows_in_the_chunks(workers, chunk):
    """In this process (the default, ``workers=1``) every parent is its own chunk (the finest progress); with
    ``workers > 1`` the search runs on that many processes, about four chunks per worker (32 parents here)."""
    model = _intervals()
    ref = brute_force(load_model(model_to_json(model)))
    seen = []
    kwargs = {} if workers is None else {"workers": workers}
    r = enumerate_regions(model, progress=lambda done, total, found: seen.append((done, total)), **kwargs)
    assert sorted(x.pattern for x in r.activation_regions) == sorted(ref)
    assert seen == [(k, 32) for k in range(0, 33, chunk)]


def test_a_scheduler_address_means_dask():
    def stop(done, total, found):            # Ctrl-C as the chunked stage starts: before any task is sent
        raise KeyboardInterrupt

    for executor in ("serial", "dask"):      # the default executor with a scheduler is Dask
        with pytest.raises(Interrupted) as info:
            enumerate_regions(model_from_json(OBJ), executor=executor, scheduler="tcp://127.0.0.1:9", progress=stop)
        assert info.value.partial.n_activation == 0 and info.value.partial.complete is False
    with pytest.raises(InvalidInputError, match="needs executor = 'dask'"):
        enumerate_regions(model_from_json(OBJ), executor="processes", scheduler="tcp://127.0.0.1:9", progress=stop)


def test_the_eager_graph_is_a_stage_of_the_progress_callback():
    model = model_from_json(OBJ)
    lazy, eager = [], []
    enumerate_regions(model, progress=lambda *a: lazy.append(a))
    enumerate_regions(model, graph=True, progress=lambda *a: eager.append(a))
    walls = eager[-1][1]
    assert walls > 0 and lazy[-1][0] == lazy[-1][1]
    assert eager == lazy + [(k, walls, 0) for k in range(walls + 1)]    # walls, one at a time, no regions


def _bar_lines(capsys):
    return [x.strip() for x in capsys.readouterr().err.replace("\r", "\n").splitlines() if x.strip()]


def test_the_bar_counts_sub_layers_only_when_there_are_several(capsys):
    enumerate_regions(model_from_json(OBJ), graph=True, progress=True)       # 3 sub-layers, all before 64 parents
    lines = _bar_lines(capsys)
    assert lines and all(x.startswith(("sub-layer 3/3 [", "adjacency graph [")) for x in lines), lines
    enumerate_regions(Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])])]), progress=True)   # one sub-layer
    lines = _bar_lines(capsys)
    assert lines and all(x.startswith("sub-layer [") for x in lines), lines
