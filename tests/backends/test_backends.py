"""Executors behind the seam: serial, processes and Dask give the same regions, counts and counters."""

import os
from fractions import Fraction

import pytest

from tropattn.attention import Head, Layer, Transformer, random_model, sawtooth_model
from tropattn.backends import DaskExecutor, ProcessExecutor, SerialExecutor, get_executor
from tropattn.errors import InvalidInputError, TieError, TropattnError
from tropattn.exact import counting, record
from tropattn.regions import enumerate_regions


def _record_and_square(x):
    record("certified", where="test.backends")
    if x < 0:
        raise InvalidInputError(f"x = {x}; give a nonnegative number")
    return x * x


def _warm(model):
    enumerate_regions(model)  # power cells and maps are computed once per model (and counted then)
    return model


def _summary(result):
    counters = {k: v for k, v in result.counters.items() if k != "by_place"}
    return (sorted(r.pattern for r in result.activation_regions), result.n_activation, result.n_linear,
            sorted(tuple(sorted((result.activation_regions[u].pattern, result.activation_regions[v].pattern)))
                   for u, v in result.graph.edges),
            counters, result.counters["by_place"])


def _tie_model():
    # layer 1 sees a constant (no residual, constant values): its two keys tie everywhere
    return Transformer([Layer([Head([[0], [1]], [0, 0], [[1], [1]])], residual=False),
                        Layer([Head([[0], [1]], [0, -1])])])


@pytest.mark.parametrize("executor", [SerialExecutor(), ProcessExecutor(2)])
def test_executor_contract_order_counters_errors(executor):
    with counting() as c:
        assert [r.value for r in executor.map(_record_and_square, [3, 1, 2])] == [9, 1, 4]
    assert c.by_place["certified:test.backends"] == 3                      # merged exactly once each
    with pytest.raises(InvalidInputError, match="nonnegative"):
        list(executor.map(_record_and_square, [1, -1, 2]))


def test_processes_equal_serial():
    model = _warm(random_model(2, 2, 3, layers=2, seed=11, ffn_hidden=1))
    assert _summary(enumerate_regions(model)) == _summary(enumerate_regions(model, executor="processes", workers=2))


class _NoPickle:
    """A function's state that refuses pickling: what a pool must not pickle once per chunk."""

    def __init__(self, k):
        self.k = k

    def __reduce__(self):
        raise TypeError("pickled: the pool sent the function again")

    def __call__(self, x):
        return x * self.k


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="needs fork")
def test_a_process_pool_does_not_pickle_the_function_per_chunk():
    """A region search's function holds the model's steps (for a d_model-sized checkpoint,
    hundreds of megabytes of weights and limbs): the workers get it once, at their start."""
    assert [r.value for r in ProcessExecutor(2).map(_NoPickle(3), [1, 2, 3, 4, 5])] == [3, 6, 9, 12, 15]


def test_the_workers_asked_for_are_the_workers_started():
    """``workers=1`` is one Dask worker (it was raised to 2); not given, each executor's own default."""
    assert get_executor("dask", workers=1).workers == 1
    assert get_executor("dask", workers=3).workers == 3
    assert get_executor("dask").workers == 2
    assert get_executor("processes").workers == 2
    assert get_executor("processes", workers=1).workers == 1
    with pytest.raises(InvalidInputError, match="workers"):
        get_executor("dask", workers=0)


def test_a_scheduler_needs_dask_and_a_valid_address():
    with pytest.raises(InvalidInputError, match="executor = 'dask'"):
        get_executor("processes", 2, scheduler="local")
    with pytest.raises(InvalidInputError, match="tcp://host"):
        DaskExecutor("nowhere")


# ----------------------------------------------------------------------------------- Dask on a LocalCluster


@pytest.mark.dask
@pytest.mark.slow
def test_dask_executor_contract(cluster):
    ex = DaskExecutor(cluster.scheduler_address)
    try:
        with counting() as c:
            assert [r.value for r in ex.map(_record_and_square, [3, 1, 2, 5])] == [9, 1, 4, 25]
        assert c.by_place["certified:test.backends"] == 4
        with pytest.raises(InvalidInputError, match="nonnegative"):      # the same error class, not a traceback
            list(ex.map(_record_and_square, [1, -1, 2]))
        assert ex.workers == 2
    finally:
        ex.close()


@pytest.mark.dask
@pytest.mark.slow
@pytest.mark.parametrize("model", [sawtooth_model(2, 3, 2), random_model(2, 2, 3, layers=2, seed=11, ffn_hidden=1),
                                   random_model(3, 2, 3, layers=2, seed=5)])
def test_dask_equals_serial_regions_counts_counters(cluster, model):
    ex = DaskExecutor(cluster.scheduler_address)
    _warm(model)
    try:
        assert _summary(enumerate_regions(model, executor=ex)) == _summary(enumerate_regions(model))
        counts = enumerate_regions(model, executor=ex, keep="counts")
        serial = enumerate_regions(model, keep="counts")
        assert (counts.n_activation, counts.n_linear, counts.counters) == \
            (serial.n_activation, serial.n_linear, serial.counters)
    finally:
        ex.close()


@pytest.mark.dask
@pytest.mark.slow
def test_dask_errors_come_back_as_tropattn_errors(cluster):
    with pytest.raises(TieError) as info:
        enumerate_regions(_tie_model(), scheduler=cluster.scheduler_address)
    assert isinstance(info.value, TropattnError) and info.value.point is not None


@pytest.mark.dask
@pytest.mark.slow
def test_a_worker_killed_mid_run_changes_no_count(cluster):
    # the first region to arrive kills one worker while the other chunks are pending or running;
    # the scheduler reruns the lost tasks and the result (and every counter) is that of the serial run
    model = _warm(sawtooth_model(2, 4, 2))
    ex = DaskExecutor(cluster.scheduler_address)
    client = ex.client
    killed = []

    def kill_one(i, region):
        if not killed:
            victim = sorted(client.scheduler_info()["workers"])[0]
            killed.append(victim)
            try:
                client.run(os._exit, 1, workers=[victim])
            except Exception:  # noqa: BLE001  (the worker dies before it can answer)
                pass

    try:
        result = enumerate_regions(model, executor=ex, keep=kill_one)
    finally:
        ex.close()
    serial = enumerate_regions(model, keep="counts")
    assert killed
    assert (result.n_activation, result.n_linear) == (serial.n_activation, serial.n_linear) == (256, 256)
    assert result.counters == serial.counters


class _DieOnce:
    """``x * x``, but the first call anywhere kills its worker process (a marker file says it happened)."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __call__(self, x):
        if not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        return x * x


@pytest.mark.dask
@pytest.mark.slow
def test_a_worker_dying_in_a_chunk_loses_no_chunk_and_no_model(cluster, tmp_path):
    # the function (the model) is the result of a task, not scattered data: if its only holder dies it is
    # recomputed elsewhere; the chunk the worker was running is rerun
    ex = DaskExecutor(cluster.scheduler_address)
    try:
        assert [r.value for r in ex.map(_DieOnce(tmp_path / "died"), [1, 2, 3, 4, 5])] == [1, 4, 9, 16, 25]
    finally:
        ex.close()
    assert (tmp_path / "died").exists()


@pytest.mark.dask
@pytest.mark.slow
def test_ctrl_c_cancels_and_reports_the_regions_found(cluster):
    from tropattn.errors import Interrupted

    calls = {"n": 0}

    def interrupt_on_third(done, total, found):    # Ctrl-C as the third chunk comes back
        calls["n"] += 1
        if calls["n"] == 1 + 3:                     # (the first call announces the stage)
            raise KeyboardInterrupt

    ex = DaskExecutor(cluster.scheduler_address)
    try:
        with pytest.raises(Interrupted) as info:
            enumerate_regions(sawtooth_model(2, 4, 2), executor=ex, keep="counts", progress=interrupt_on_third)
        partial = info.value.partial
        assert partial.complete is False and 0 < partial.n_activation < 256
        assert not [f for f in ex.client.futures.values() if f.status == "pending"]   # nothing left running
    finally:
        ex.close()


def test_fractions_survive_the_trip():
    head = Head([[0], [1], [2]], [0, Fraction(-1, 10 ** 30), -1])
    model = _warm(Transformer([Layer([head])]))
    assert _summary(enumerate_regions(model, workers=2)) == _summary(enumerate_regions(model))


@pytest.mark.dask
@pytest.mark.slow
def test_cli_count_and_table_run_on_a_scheduler(cluster, tmp_path, capsys):
    import json

    from tropattn.cli import main
    from tropattn.io import save
    from tropattn.table import region_rows

    path = tmp_path / "saw.json"
    save(sawtooth_model(2, 3, 2), path)
    assert main(["count", str(path), "--scheduler", cluster.scheduler_address, "--json",
                 "--regions", str(tmp_path / "r.jsonl")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["activation_regions"], out["linear_regions"]) == (81, 81)
    assert sum(1 for line in open(tmp_path / "r.jsonl")) == 81 + 2        # header, regions, summary
    ex = DaskExecutor(cluster.scheduler_address)
    try:
        rows = region_rows(shapes=[(1, 1, 3, 2)], seeds=1, executor=ex)
    finally:
        ex.close()
    assert [r["activation_regions"] for r in rows] == [r["activation_regions"]
                                                       for r in region_rows(shapes=[(1, 1, 3, 2)], seeds=1)]
