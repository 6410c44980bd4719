"""The facet-adjacency graph is built when asked for, never for a count (issue 23, item 1b)."""

from __future__ import annotations

import json
import random

import pytest

from oracles.compare import compare, random_model_json
from tropattn.attention import sawtooth_model
from tropattn.cli import main
from tropattn.errors import InvalidInputError
from tropattn.io import model_from_json, save
from tropattn.regions import count_regions, enumerate_regions


def _edges(result):
    return sorted(tuple(sorted(e)) for e in result.graph.edges)


def test_keep_all_does_the_exact_work_of_a_count_until_the_graph_is_read():
    model = sawtooth_model(3, 2, 2, heads=2)                     # d = 3: walls of layer 1 cut by layer 2
    enumerate_regions(model, keep="counts", progress=False)      # the heads' power diagrams, built once
    counted = enumerate_regions(model, keep="counts", progress=False)
    kept = enumerate_regions(model, keep="all", progress=False)
    assert kept.counters == counted.counters                     # no overlap LP for the graph
    assert kept.kept[2].built is False
    assert (kept.n_activation, kept.n_linear) == (counted.n_activation, counted.n_linear) == (16, 16)
    eager = enumerate_regions(model, keep="all", progress=False, graph=True)
    assert eager.kept[2].built is True
    assert eager.counters != counted.counters                    # the graph's certificates are counted
    assert _edges(kept) == _edges(eager) and kept.kept[2].built
    assert len(_edges(kept)) == 24                               # a 4 x 4 grid (x3 free): 2 * 4 * 3 pairs


def test_lazy_graph_agrees_with_the_oracle_in_d3():
    rnd = random.Random(5)
    for _ in range(3):
        obj = random_model_json(rnd, 3, 2, 1, 3, 1)
        lazy = enumerate_regions(model_from_json(obj), box=(-2, 2))
        eager = enumerate_regions(model_from_json(obj), box=(-2, 2), graph=True, progress=False)
        assert _edges(lazy) == _edges(eager)
        assert compare(obj, lazy, (-2, 2)) == {"missing_edges": set(), "extra_edges": set()}


def test_graph_stage_reports_progress():
    seen = []
    enumerate_regions(sawtooth_model(3, 2, 2, heads=2), graph=True,
                      progress=lambda done, total, found: seen.append((done, total)))
    starts = [i for i, (done, _) in enumerate(seen) if done == 0]
    assert len(starts) == 2                                      # the search's stage, then the graph's
    walls = seen[-1][1]
    assert walls > 0 and seen[starts[-1]:] == [(k, walls) for k in range(walls + 1)]   # one wall at a time


def test_count_regions_graph_counts_edges():
    c = count_regions(sawtooth_model(2, 2, 2), graph=True)
    assert c.method == "primal" and c.n_activation == 16 and c.n_edges == 24   # a 4 x 4 grid
    assert count_regions(sawtooth_model(2, 2, 2)).n_edges is None
    with pytest.raises(InvalidInputError, match="keep='counts'"):
        count_regions(sawtooth_model(2, 2, 2), graph=True, keep=lambda i, r: None)
    with pytest.raises(InvalidInputError, match="keep='all'"):
        enumerate_regions(sawtooth_model(2, 2, 2), keep="counts", graph=True)


def test_cli_graph_flag(tmp_path, capsys):
    path = tmp_path / "m.json"
    save(sawtooth_model(2, 2, 2), path)
    assert main(["count", str(path), "--json"]) == 0
    assert "adjacency_edges" not in json.loads(capsys.readouterr().out)
    assert main(["count", str(path), "--graph", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["adjacency_edges"] == 24
    assert main(["count", str(path), "--graph"]) == 0
    assert "adjacency edges:    24 (pairs of regions sharing a facet)" in capsys.readouterr().out
    one = tmp_path / "one.json"
    save(sawtooth_model(2, 2, 1), one)
    for model, extra, words in ((path, ["--regions", str(tmp_path / "r.csv")], "give one of the two"),
                                (one, ["--method", "dual"], "--method dual only counts them")):
        assert main(["count", str(model), "--graph", *extra]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1
