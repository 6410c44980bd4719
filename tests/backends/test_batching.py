"""Chunks grouped into tasks from their measured cost: the same regions, counts and counters as fixed chunks."""

import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tropattn.attention import random_model, sawtooth_model
from tropattn.backends import DaskExecutor, ProcessExecutor, SerialExecutor, batch_size, chunk_size, run_chunk
from tropattn.errors import InvalidInputError
from tropattn.exact import counting, record
from tropattn.regions import enumerate_regions


def _record_and_square(x):
    record("certified", where="test.batching")
    if x < 0:
        raise InvalidInputError(f"x = {x}; give a nonnegative number")
    return x * x


def _first_is_slow(x):
    record("certified", where="test.batching")
    if x == 0:                      # chunk 0 finishes after the others: the results must still come in order
        end = time.thread_time() + 0.4
        while time.thread_time() < end:
            pass
    return -x


def _summary(result):
    return (sorted(r.pattern for r in result.activation_regions), result.n_activation, result.n_linear,
            sorted(tuple(sorted((result.activation_regions[u].pattern, result.activation_regions[v].pattern)))
                   for u, v in result.graph.edges), result.counters)


class _Fixed:
    """A Dask executor seen as one that does not batch: callers cut it about four chunks per worker."""

    def __init__(self, ex, workers=2):
        self.ex, self.workers = ex, workers

    def map(self, fn, chunks):
        return self.ex.map(fn, chunks)


# ----------------------------------------------------------------------------------------- the sizing rules

@pytest.mark.parametrize("cost", [None, 0.0, 1e-6, 0.003, 0.05, 0.2, 5.0])
@pytest.mark.parametrize("workers", [1, 2, 7])
def test_batch_size_fills_the_target_within_a_fair_share(cost, workers):
    for remaining in range(1, 300):
        k = batch_size(cost, remaining, workers, target=0.2)
        assert 1 <= k <= remaining
        if cost is None:
            assert k == 1                                          # nothing measured yet: probe with one chunk
            continue
        fair = -(-remaining // (2 * workers))
        assert k <= fair                                           # never more than a fair share of the rest
        if k < fair:                                               # stopped by the target, not the share:
            assert cost * k >= 0.2 and cost * (k - 1) < 0.2        # the fewest chunks that reach it


def test_batch_sizes_cover_the_chunks_and_shrink_at_the_end():
    n, workers, sizes = 1000, 2, []
    while sum(sizes) < n:
        sizes.append(batch_size(1e-4, n - sum(sizes), workers))
    assert sum(sizes) == n and sizes[:3] == [250, 188, 141] and sizes[-4:] == [1, 1, 1, 1]
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))


def test_chunk_size_by_executor():
    assert chunk_size(SerialExecutor(), 64) == 1                   # in this process: one unit each
    assert chunk_size(DaskExecutor(), 64) == 1                     # batches itself
    assert chunk_size(ProcessExecutor(2), 64) == 8                 # travels unbatched: four chunks per worker
    assert chunk_size(ProcessExecutor(3), 5) == 1
    assert chunk_size(object(), 64) == 16                          # no attributes: one worker


def test_a_bad_task_seconds_is_one_clear_error():
    with pytest.raises(InvalidInputError, match="task_seconds"):
        DaskExecutor(task_seconds=0)
    with pytest.raises(InvalidInputError, match="task_seconds"):
        DaskExecutor(task_seconds="soon")


def test_run_chunk_of_a_batch_counts_each_chunk_once():
    with counting() as c:
        values = [run_chunk(_record_and_square, x).value for x in (1, 2, 3)]
    assert values == [1, 4, 9] and c.by_place["certified:test.batching"] == 3


# ------------------------------------------------------------------------------------ on a Dask LocalCluster


@pytest.mark.dask
@pytest.mark.slow
@pytest.mark.parametrize("model", [sawtooth_model(2, 4, 2), random_model(2, 2, 3, layers=2, seed=11, ffn_hidden=1)])
def test_measured_batches_give_the_counts_of_fixed_chunks(cluster, model):
    enumerate_regions(model)                                       # per-model caches counted once, before
    serial = _summary(enumerate_regions(model))
    every = DaskExecutor(cluster.scheduler_address, task_seconds=1e-9)   # one chunk per task
    big = DaskExecutor(cluster.scheduler_address, task_seconds=1e9)      # as many as a fair share allows
    try:
        assert _summary(enumerate_regions(model, executor=every)) == serial
        assert set(every.task_sizes) == {1} and len(every.task_sizes) > 8
        assert _summary(enumerate_regions(model, executor=big)) == serial
        assert max(big.task_sizes) > 1 and len(big.task_sizes) < len(every.task_sizes)
        assert _summary(enumerate_regions(model, executor=_Fixed(big))) == serial        # chunks of several parents
        fixed = enumerate_regions(model, executor=_Fixed(every), keep="counts")
        measured = enumerate_regions(model, executor=big, keep="counts")
        assert (fixed.n_activation, fixed.n_linear, fixed.counters) == \
            (measured.n_activation, measured.n_linear, measured.counters)
    finally:
        every.close()
        big.close()


@pytest.mark.dask
@pytest.mark.slow
def test_results_stream_in_chunk_order_and_count_once(cluster):
    ex = DaskExecutor(cluster.scheduler_address, task_seconds=1e-9)
    big = DaskExecutor(cluster.scheduler_address, task_seconds=1e9)
    try:
        with counting() as c:
            assert [r.value for r in ex.map(_first_is_slow, range(8))] == [0, -1, -2, -3, -4, -5, -6, -7]
        assert c.by_place["certified:test.batching"] == 8
        with counting() as c:
            assert [r.value for r in big.map(_record_and_square, range(40))] == [x * x for x in range(40)]
        assert c.by_place["certified:test.batching"] == 40 and max(big.task_sizes) > 1
        assert sum(big.task_sizes) == 40 and big.chunk_seconds >= 0
    finally:
        ex.close()
        big.close()


@pytest.mark.dask
@pytest.mark.slow
def test_an_error_inside_a_batch_comes_back_and_cancels_the_rest(cluster):
    ex = DaskExecutor(cluster.scheduler_address, task_seconds=1e9)
    try:
        with pytest.raises(InvalidInputError, match="nonnegative"):
            list(ex.map(_record_and_square, list(range(30)) + [-1] + list(range(30))))
        assert not [f for f in ex.client.futures.values() if f.status == "pending"]
    finally:
        ex.close()


LOCAL = r"""
import json
from tropattn.backends import DaskExecutor

if __name__ == "__main__":
    ex = DaskExecutor(workers=1)
    values = [r.value for r in ex.map(abs, range(-5, 0))]
    profile = ex.client.run(__import__("dask").config.get, "distributed.worker.profile.enabled")
    ex.close()
    import dask
    print(json.dumps({"values": values, "profile": sorted(profile.values()), "sizes": ex.task_sizes,
                      "here": dask.config.get("distributed.worker.profile.enabled"),
                      "timeout": str(dask.config.get("distributed.deploy.lost-worker-timeout"))}))
"""


@pytest.mark.dask
@pytest.mark.slow
def test_a_local_cluster_of_ours_in_a_fresh_process(tmp_path):
    pytest.importorskip("distributed")
    script = tmp_path / "local.py"                                 # a file: the workers are spawned
    script.write_text(LOCAL)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=str(tmp_path),
                         env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])})
    assert out.returncode == 0, out.stderr[-2000:]
    row = json.loads(out.stdout.strip().splitlines()[-1])
    assert row["values"] == [5, 4, 3, 2, 1] and sum(row["sizes"]) == 5
    assert row["profile"] == [False]                               # our cluster's worker runs without the profiler
    assert row["here"] is True and row["timeout"]                  # the caller's Dask config is untouched


def test_batch_size_examples_are_ceilings():
    assert batch_size(0.07, 100, 2) == math.ceil(0.2 / 0.07) == 3
