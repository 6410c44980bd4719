"""The Dask executor: chunks on a ``dask.distributed`` cluster, on this machine or on many.

``DaskExecutor(None)`` (or ``"local"``) starts a :class:`distributed.LocalCluster` of worker
processes here when the first ``map`` runs; ``DaskExecutor("tcp://host:port")`` joins a
scheduler started elsewhere (``dask scheduler`` on one machine, ``dask worker
tcp://host:port`` on each of the others).  The contract of :mod:`tropattn.backends._base`
holds:

* results come back **in chunk order**, as they stream in: tasks finish in any order, each
  is yielded as soon as every earlier chunk is (so the caller's merge overlaps the workers);
* chunks are grouped into tasks sized from their measured CPU cost (about ``task_seconds``
  = 0.2 s of work per task, never more than a fair share of what remains; two tasks in
  flight per worker); the grouping changes no value and no counter;
* each chunk runs in its own counting scope on the worker, and the counters of the run
  that succeeded are merged into the caller's scopes exactly once (a task lost with a
  killed worker is rerun by the scheduler; only the result that arrives counts);
* losing a worker loses nothing that cannot be recomputed: the function (the model and its
  steps) is not scattered data but the result of a task every chunk depends on, so the
  scheduler recomputes it on another worker if the one holding it dies (scattered data
  would be gone for good: "cannot be recovered");
* an error in a chunk is re-raised in the caller as the same exception (tropattn's
  errors pickle with their fields); Ctrl-C (or any early stop) cancels the pending
  futures.

A local cluster of ours starts with :data:`LOCAL_CLUSTER_CONFIG` (no statistical profiler,
slower health checks: the workers' own CPU beyond their tasks drops from about 7% to 2%).
Dask is an optional extra (``pip install tropattn[dask]``); it is imported only when an
executor is first used.

>>> DaskExecutor("tcp://127.0.0.1:8786").scheduler      # nothing is contacted until map()
'tcp://127.0.0.1:8786'
"""

from __future__ import annotations

from .._lazy import lazy_import
from .._validate import positive_float, positive_int
from ..errors import InvalidInputError
from ..exact import merge
from ._base import LOCAL_WORKERS, TASK_SECONDS, batch_size, run_batch
from ._processes import usable_cores

dask = lazy_import("dask", extra="dask")
distributed = lazy_import("distributed", extra="dask")

#: Dask settings for the local clusters this executor starts (a cluster of ours, for compute): no statistical
#: profiler sampling every worker's task thread each 10 ms, and event-loop and memory checks each second or two
#: instead of each 20-500 ms.  Measured on a 2-core machine: a worker process spent 7% of CPU beyond its tasks
#: with Dask's defaults, 2% with these; the caller (which hosts the scheduler and nannies) a third of that.
LOCAL_CLUSTER_CONFIG = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}

__all__ = ["DaskExecutor"]


def _shared(value):
    """The result of the task that holds what every chunk needs (a function and its model)."""
    return value


class DaskExecutor:
    """Run ``fn(chunk)`` as Dask futures; results come back in chunk order.

    Parameters
    ----------
    scheduler : str, optional
        ``None`` or ``"local"``: a LocalCluster with ``workers`` processes (one thread
        each) on this machine, closed by :meth:`close`; ``"tcp://host:port"``: a running
        scheduler (its workers are not ours to close).
    workers : int, optional
        Workers of the local cluster (default 2).  For a remote scheduler it is only a
        hint for the chunk size; :attr:`workers` reports the workers actually connected.
    task_seconds : float, optional
        Measured CPU seconds of work per task once chunks are batched (default 0.2): large
        against the scheduler's cost per task (a few milliseconds), small against a run.
        It changes how chunks are grouped into tasks, never a result.

    Attributes
    ----------
    batches : bool
        True: chunks of one unit are welcome (this executor groups them into tasks itself).
    task_sizes : list of int
        How many chunks each task of the last :meth:`map` held, in submission order.
    chunk_seconds : float or None
        The mean measured CPU seconds per chunk of the last :meth:`map` (None before one ran).
    """

    #: This executor groups chunks into tasks from their measured cost: callers may cut chunks of one unit.
    batches = True

    def __init__(self, scheduler=None, workers: int = LOCAL_WORKERS, task_seconds: float = TASK_SECONDS):
        if scheduler is not None and not (scheduler == "local" or (isinstance(scheduler, str) and "://" in scheduler)):
            raise InvalidInputError(f"scheduler = {scheduler!r}; use 'local' or an address like tcp://host:8786")
        self.scheduler, self._workers = scheduler, positive_int(workers, "workers", meaning="the number of Dask workers")
        self.task_seconds = positive_float(task_seconds, "task_seconds",
                                           meaning="the seconds of measured work per Dask task")
        self._client = self._cluster = None
        self.task_sizes, self.chunk_seconds = [], None

    @property
    def client(self):
        """The ``distributed.Client`` (connecting, or starting the local cluster, on first use).

        Raises
        ------
        MissingDependencyError
            If dask.distributed is not installed.
        InvalidInputError
            If the scheduler cannot be reached.
        """
        if self._client is None:
            if self.scheduler in (None, "local"):
                n = min(self._workers, max(2, usable_cores()))  # never more local processes than cores (but 2)
                cluster = distributed.LocalCluster    # import distributed (its config defaults) before setting any
                with dask.config.set(LOCAL_CLUSTER_CONFIG):      # read as the scheduler and workers start
                    self._cluster = cluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                            silence_logs=50)
                # results come straight from the worker that holds them, not relayed by the scheduler
                self._client = distributed.Client(self._cluster, direct_to_workers=True)
            else:
                try:
                    self._client = distributed.Client(self.scheduler, timeout=10)
                except OSError as exc:
                    raise InvalidInputError(f"cannot reach the Dask scheduler at {self.scheduler} ({exc}); start it "
                                            "with `dask scheduler` and workers with `dask worker ADDRESS`") from None
        return self._client

    @property
    def workers(self) -> int:
        """How many workers the cluster has now (``workers`` before the first use)."""
        if self._client is None:
            return self._workers
        return max(1, len(self._client.scheduler_info().get("workers", {})))

    def map(self, fn, chunks):
        """Run ``fn(chunk)`` for every chunk on the cluster; results in chunk order, as they stream in.

        Chunks are grouped into tasks sized from their measured cost: the first tasks hold one
        chunk each, then each task holds about ``task_seconds`` of work at the mean CPU cost per
        chunk measured so far, never more than a fair share of what remains
        (:func:`~tropattn.backends._base.batch_size`); two tasks per worker are in flight, so a
        worker never waits for the scheduler, and results are yielded in chunk order as soon as
        they are complete (the caller's merge overlaps the workers).  The grouping changes no
        value and no counter: every chunk runs in its own counting scope.

        Parameters
        ----------
        fn : callable
            Picklable; called as ``fn(chunk)`` on a worker.
        chunks : iterable
            Picklable units of work.

        Yields
        ------
        ChunkResult
            One per chunk, in chunk order; its counters are already merged into the caller's scopes.

        Raises
        ------
        MissingDependencyError
            If dask.distributed is missing.
        InvalidInputError
            If the scheduler cannot be reached.

        Examples
        --------
        >>> list(DaskExecutor().map(abs, []))              # no chunks: no cluster is started
        []
        """
        chunks = list(chunks)
        if not chunks:
            return
        client = self.client
        workers = self.workers
        # the model and steps travel once per worker, as the result of a task (recomputed if its worker dies)
        shared = client.submit(_shared, fn, pure=False)
        flow = distributed.as_completed()
        pending, ready = {}, {}             # future -> index of its first chunk; index -> its results
        measured = [0.0, 0]                 # CPU seconds and chunks measured so far
        nxt = got = 0
        self.task_sizes = sizes = []

        def submit():
            nonlocal nxt
            per_chunk = measured[0] / measured[1] if measured[1] else None
            k = batch_size(per_chunk, len(chunks) - nxt, workers, self.task_seconds)
            fut = client.submit(run_batch, shared, chunks[nxt:nxt + k], pure=False)
            pending[fut], nxt = nxt, nxt + k
            flow.add(fut)
            sizes.append(k)

        finished = False
        try:
            while nxt < len(chunks) and len(pending) < 2 * workers:
                submit()
            while got < len(chunks):
                while got not in ready:
                    fut = next(flow)
                    start = pending.pop(fut)
                    results, seconds = fut.result()           # a chunk's error is raised here, as itself
                    fut.release()
                    measured[0] += seconds
                    measured[1] += len(results)
                    self.chunk_seconds = measured[0] / measured[1]
                    ready[start] = results
                    while nxt < len(chunks) and len(pending) < 2 * workers:
                        submit()
                for result in ready.pop(got):
                    merge(result.counters)
                    got += 1
                    yield result
            finished = True
        finally:
            if not finished:                                  # an error, Ctrl-C or an early stop: cancel the rest
                client.cancel(list(pending))
            flow.clear()
            for fut in pending:
                fut.release()
            shared.release()

    def close(self):
        """Close the client, and the local cluster if this executor started it.

        Returns
        -------
        None

        Examples
        --------
        >>> ex = DaskExecutor(workers=3)
        >>> ex.close()                                     # never used: nothing to close
        >>> ex.workers                                     # the requested size, no cluster running
        3
        """
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        self._client = self._cluster = None
