"""The facet-adjacency graph against the independent reference on many random models (issue 22).

Each model is tiny (d = 1..4, up to three layers, one or two heads (one in d = 3 with two layers) of two or three keys, up to
two ReLU units per layer, random residuals and projections, duplicate keys, coordinate walls,
no box or one of two boxes) so that hundreds run in a couple of minutes.  The reference
(tests/oracles) reads the model's JSON, enumerates the regions by brute force with its own
affine algebra and Fourier-Motzkin feasibility, and decides every pair of regions' shared facet
on its own; tropattn only builds the model and runs ``enumerate_regions``, whose lazy
``graph`` must have exactly the reference's edges (and, on every fifth model, the eager
``graph=True`` build the same ones).  The seeds are fixed: a failure names its seed.
"""

from __future__ import annotations

import random

import pytest

from oracles.compare import axis_walls, compare, random_model_json
from tropattn.io import model_from_json
from tropattn.regions import enumerate_regions

BOXES = (None, (-3, 3), (-1, 2))


def draw(seed):
    """The model dict and box of one seed (d cycles through 1..4)."""
    rnd = random.Random(seed)
    d = 1 + seed % 4
    layers = rnd.randint(1, {1: 3, 2: 2, 3: 2, 4: 1}[d])
    heads = 1 if (d, layers) == (3, 2) else rnd.randint(1, 2)   # d = 3 with two layers: the pairs cost most
    obj = random_model_json(rnd, d, layers, heads, rnd.randint(2, 3),
                            rnd.randint(0, 2 if d < 3 else 1), residual=None, projection=rnd.random() < .2,
                            dup=rnd.random() < .25)
    if d > 1 and rnd.random() < .25:
        obj = axis_walls(rnd, obj)
    return obj, rnd.choice(BOXES)


def _edges(result):
    return sorted(tuple(sorted(e)) for e in result.graph.edges)


def check_seed(seed):
    """The regions, maps and graph of seed's model agree with the reference; returns (regions, edges)."""
    obj, box = draw(seed)
    result = enumerate_regions(model_from_json(obj), box=box, progress=False)
    found = compare(obj, result, box)
    assert not found["missing_edges"] and not found["extra_edges"], (f"seed {seed}", obj, box, found)
    if seed % 5 == 0:
        eager = enumerate_regions(model_from_json(obj), box=box, progress=False, graph=True)
        assert _edges(eager) == _edges(result), f"seed {seed}: the eager graph differs from the lazy one"
    return result.n_activation, len(result.graph.edges)


def _run(seeds):
    seen = {d: [0, 0, 0] for d in range(1, 5)}           # models, regions, edges per dimension
    for seed in seeds:
        regions, edges = check_seed(seed)
        s = seen[1 + seed % 4]
        s[0], s[1], s[2] = s[0] + 1, s[1] + regions, s[2] + edges
    return seen


def test_graph_agrees_with_the_reference_on_40_models():
    seen = _run(range(40))
    assert all(models == 10 for models, _, _ in seen.values())
    assert all(edges >= models for models, _, edges in seen.values()), seen   # the graphs are not all empty


@pytest.mark.slow
def test_graph_agrees_with_the_reference_on_520_models():
    seen = _run(range(40, 560))
    assert sum(models for models, _, _ in seen.values()) == 520
    assert all(edges >= 2 * models for models, _, edges in seen.values()), seen
