"""The process executor: chunks in a pool of worker processes on this machine.

Workers ignore Ctrl-C (the caller handles it: pending chunks are cancelled and the
pool is shut down), run each chunk in its own counting scope, and send back the value
and the counter snapshot, which is merged into the caller's scopes.  Errors raised in a
worker are re-raised in the caller as the same exception; tropattn's errors pickle
with their extra fields (:mod:`tropattn.errors`).

>>> from operator import neg
>>> [r.value for r in ProcessExecutor(2).map(neg, [1, 2, 3])]
[-1, -2, -3]
"""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor

from .._validate import positive_int
from ._base import in_order, run_chunk

__all__ = ["ProcessExecutor"]


def _ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ProcessExecutor:
    """Run ``fn(chunk)`` in ``workers`` processes; results come back in chunk order."""

    def __init__(self, workers: int = 2):
        self.workers = positive_int(workers, "workers", meaning="the number of worker processes")

    def map(self, fn, chunks):
        """Run ``fn(chunk)`` for every chunk in the worker pool; results in chunk order.

        Parameters
        ----------
        fn : callable
            Picklable (a module-level function or a :func:`functools.partial` of one).
        chunks : iterable
            Picklable units of work.

        Yields
        ------
        ChunkResult
            One per chunk, in chunk order; its counters are already merged into the caller's scopes.

        Examples
        --------
        >>> [r.value for r in ProcessExecutor(2).map(abs, [-4, 5])]
        [4, 5]
        """
        chunks = list(chunks)
        if not chunks:
            return
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
        pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(method),
                                   initializer=_ignore_sigint)
        futures = [pool.submit(run_chunk, fn, chunk) for chunk in chunks]

        def stop():  # an error, Ctrl-C, or the caller stopped early: stop the workers now
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in processes:
                proc.terminate()

        yield from in_order(futures, stop, done=lambda: pool.shutdown(wait=True))
