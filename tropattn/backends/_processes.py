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
import os
import signal
from concurrent.futures import ProcessPoolExecutor

from .._validate import positive_int
from ._base import LOCAL_WORKERS, in_order, run_chunk

__all__ = ["ProcessExecutor", "usable_cores", "pool_size"]


def usable_cores() -> int:
    """How many cores this process may run on (its CPU affinity; at least 1).

    Returns
    -------
    int

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    affinity = getattr(os, "sched_getaffinity", None)
    return max(1, len(affinity(0)) if affinity is not None else (os.cpu_count() or 1))


def pool_size(workers: int, cores: int | None = None) -> tuple[int, str | None]:
    """The processes to start for ``workers`` asked: at most the usable cores, and why if fewer.

    More processes than cores never finish sooner (each only adds its start-up and memory),
    and 100000 forks can exhaust the machine, so a local pool is capped at the cores.

    Parameters
    ----------
    workers : int
        The number of worker processes asked for (positive).
    cores : int, optional
        The usable cores (default :func:`usable_cores`).

    Returns
    -------
    n : int
        ``min(workers, cores)``.
    note : str or None
        One line saying that the request was capped, or None if it was not.

    Raises
    ------
    InvalidInputError
        If ``workers`` is not a positive int.

    Examples
    --------
    >>> pool_size(3, cores=4)
    (3, None)
    >>> pool_size(100000, cores=2)
    (2, 'workers = 100000 is more than the 2 usable cores of this machine; starting 2 worker processes')
    """
    workers = positive_int(workers, "workers", meaning="the number of worker processes")
    cores = usable_cores() if cores is None else cores
    if workers <= cores:
        return workers, None
    return cores, (f"workers = {workers} is more than the {cores} usable cores of this machine; "
                   f"starting {cores} worker processes")


#: The function of the current map in a worker process (set once per worker by :func:`_start_worker`).
_FN = None


def _start_worker(fn):
    """A worker's start: ignore Ctrl-C (the caller handles it) and keep ``fn`` for every chunk.

    ``fn`` reaches a worker once: inherited by a forked process, pickled once for a spawned
    one, never once per chunk (a region search's ``fn`` holds the model's steps: for a
    d_model-sized checkpoint, its weights and their limbs, hundreds of megabytes).
    """
    global _FN
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _FN = fn


def _run_chunk(chunk):
    return run_chunk(_FN, chunk)


class ProcessExecutor:
    """Run ``fn(chunk)`` in ``workers`` processes; results come back in chunk order.

    The pool starts at most :func:`usable_cores` processes (and no more than there are
    chunks), whatever ``workers`` says; ``workers`` still guides how callers cut their work.
    """

    def __init__(self, workers: int = LOCAL_WORKERS):
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
        n = min(pool_size(self.workers)[0], len(chunks))
        pool = ProcessPoolExecutor(n, mp_context=multiprocessing.get_context(method),
                                   initializer=_start_worker, initargs=(fn,))
        futures = [pool.submit(_run_chunk, chunk) for chunk in chunks]

        def stop():  # an error, Ctrl-C, or the caller stopped early: stop the workers now
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in processes:
                proc.terminate()

        yield from in_order(futures, stop, done=lambda: pool.shutdown(wait=True))
