"""The Dask executor: chunks on a ``dask.distributed`` cluster, on this machine or on many.

``DaskExecutor(None)`` (or ``"local"``) starts a :class:`distributed.LocalCluster` of worker
processes here when the first ``map`` runs; ``DaskExecutor("tcp://host:port")`` joins a
scheduler started elsewhere (``dask scheduler`` on one machine, ``dask worker
tcp://host:port`` on each of the others).  The contract of :mod:`tropattn.backends._base`
holds:

* results come back **in chunk order** (futures are gathered one by one, in order);
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

Dask is an optional extra (``pip install tropattn[dask]``); it is imported only when an
executor is first used.

>>> DaskExecutor("tcp://127.0.0.1:8786").scheduler      # nothing is contacted until map()
'tcp://127.0.0.1:8786'
"""

from __future__ import annotations

from .._lazy import lazy_import
from .._validate import positive_int
from ..errors import InvalidInputError
from ._base import in_order, run_chunk
from ._processes import usable_cores

distributed = lazy_import("distributed", extra="dask")

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
    """

    def __init__(self, scheduler=None, workers: int = 2):
        if scheduler is not None and not (scheduler == "local" or (isinstance(scheduler, str) and "://" in scheduler)):
            raise InvalidInputError(f"scheduler = {scheduler!r}; use 'local' or an address like tcp://host:8786")
        self.scheduler, self._workers = scheduler, positive_int(workers, "workers", meaning="the number of Dask workers")
        self._client = self._cluster = None

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
                self._cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                         dashboard_address=None, silence_logs=50)
                self._client = distributed.Client(self._cluster)
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
        """Run ``fn(chunk)`` for every chunk on the cluster; results in chunk order.

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
        # the model and steps travel once per worker, as the result of a task (recomputed if its worker dies)
        shared = client.submit(_shared, fn, pure=False)
        futures = [client.submit(run_chunk, shared, chunk, pure=False) for chunk in chunks]
        try:
            yield from in_order(futures, stop=lambda: client.cancel(futures))
        finally:
            for fut in futures:
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
