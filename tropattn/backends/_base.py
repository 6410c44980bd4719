"""The executor seam: one interface for running chunks of work serially, in processes or on a cluster.

An executor has one method, ``map(fn, chunks)``: it calls ``fn(chunk)`` for every chunk
and yields a :class:`ChunkResult` per chunk, **in the order of the chunks**, as each
becomes available.  Whatever runs where, it guarantees that

* the exact-path counters of every chunk end up in the caller's counting scopes
  (:func:`tropattn.exact.counting`) exactly once;
* an error raised by ``fn`` comes back as the same :class:`~tropattn.errors.TropattnError`
  (never as a worker traceback), and Ctrl-C in the caller stops the remaining chunks
  and raises :class:`KeyboardInterrupt` in the caller only.

``fn`` and the chunks must be picklable for executors that leave the process (use a
module-level function, or :func:`functools.partial` of one).  Three optional attributes
guide how callers cut their work (:func:`chunk_size` reads them): ``workers`` (how many
chunks run at once), ``in_process`` (True when chunks run in the caller's process and
cost nothing to send) and ``batches`` (True when the executor groups chunks into tasks
itself, sized from their measured cost, :func:`batch_size`); for either, a caller cuts
chunks of one unit, otherwise a few chunks per worker.

>>> run_chunk(abs, -3).value
3
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from ..exact import counting, merge

__all__ = ["LOCAL_WORKERS", "ChunkResult", "run_chunk", "run_batch", "in_order", "chunk_size", "batch_size"]

#: Worker processes of a process pool or a local Dask cluster when the caller does not say.
LOCAL_WORKERS = 2

#: Seconds of measured work a task should hold when chunks are batched (:func:`batch_size`).
TASK_SECONDS = 0.2


@dataclass(frozen=True)
class ChunkResult:
    """What ``fn(chunk)`` returned, and the counters it recorded (a :meth:`Counters.snapshot`)."""

    value: object
    counters: dict = field(default_factory=dict)


def run_chunk(fn, chunk) -> ChunkResult:
    """Run one chunk inside its own counting scope (what a worker does).

    Parameters
    ----------
    fn : callable
        Called as ``fn(chunk)``.
    chunk : object
        One unit of work.

    Returns
    -------
    ChunkResult
        ``fn(chunk)`` and the snapshot of the exact-path counters it recorded.

    Examples
    --------
    >>> run_chunk(sorted, [3, 1, 2]).value
    [1, 2, 3]
    """
    with counting() as c:
        value = fn(chunk)
    return ChunkResult(value, c.snapshot())


def run_batch(fn, chunks) -> tuple:
    """Run several chunks, each by :func:`run_chunk` (its own counting scope), and time them.

    What a task of a batching executor runs: the results are those of running the chunks one
    by one, so how chunks are grouped into tasks changes no value and no counter.

    Parameters
    ----------
    fn : callable
        Called as ``fn(chunk)`` for each chunk.
    chunks : list
        Units of work.

    Returns
    -------
    results : list of ChunkResult
        One per chunk, in order.
    seconds : float
        CPU seconds of this thread spent on them (the measured cost; it only sizes later tasks).

    Examples
    --------
    >>> results, seconds = run_batch(abs, [-1, -2])
    >>> [r.value for r in results], seconds >= 0
    ([1, 2], True)
    """
    start = time.thread_time()
    results = [run_chunk(fn, chunk) for chunk in chunks]
    return results, time.thread_time() - start


def chunk_size(executor, units: int) -> int:
    """How many units a caller should put in each chunk for ``executor``.

    One unit per chunk when the chunks run in the caller's process (``in_process``: a chunk
    costs nothing to send; the finest progress and Ctrl-C) or when the executor batches chunks
    into tasks itself from their measured cost (``batches``); otherwise about four chunks per
    worker (busy workers, few transfers).

    Parameters
    ----------
    executor : object
        An executor (its ``workers``, ``in_process`` and ``batches`` attributes are read).
    units : int
        How many units of work there are.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> from tropattn.backends import ProcessExecutor, SerialExecutor
    >>> chunk_size(SerialExecutor(), 64), chunk_size(ProcessExecutor(2), 64)
    (1, 8)
    """
    if getattr(executor, "in_process", False) or getattr(executor, "batches", False):
        return 1
    return max(1, units // (4 * max(1, getattr(executor, "workers", 1))))


def batch_size(seconds_per_chunk, remaining: int, workers: int, target: float = TASK_SECONDS) -> int:
    """How many chunks the next task should hold: ``target`` seconds of measured work, never more than a fair share.

    Enough chunks that the task's work (at ``seconds_per_chunk``, measured on the chunks done
    so far) reaches ``target`` seconds, so the scheduler's cost per task stays small against
    it; but at most ``remaining / (2 workers)`` (guided self-scheduling: tasks shrink as the
    work runs out, so the workers finish together).  Unmeasured (``None``): one chunk.

    Parameters
    ----------
    seconds_per_chunk : float or None
        The measured mean cost of one chunk, or None before any was measured.
    remaining : int
        Chunks not yet submitted.
    workers : int
        Workers running tasks.
    target : float, optional
        Seconds of work per task (default :data:`TASK_SECONDS`).

    Returns
    -------
    int
        Between 1 and ``max(1, remaining)``.

    Examples
    --------
    >>> batch_size(None, 60, 2), batch_size(0.001, 60, 2), batch_size(0.05, 60, 2), batch_size(0.05, 3, 2)
    (1, 15, 4, 1)
    """
    if seconds_per_chunk is None:
        return 1
    fair = math.ceil(remaining / (2 * workers))
    by_cost = math.ceil(target / seconds_per_chunk) if seconds_per_chunk > 0 else fair
    return max(1, min(by_cost, fair))


def in_order(futures, stop, done=None):
    """Yield the results of futures in their order, merging each one's counters into the caller's scopes.

    The loop every executor that leaves the process shares: ``futures`` are objects with
    ``result()`` giving a :class:`ChunkResult`; ``stop()`` is called when the caller stops
    early, an error comes back or Ctrl-C arrives (cancel what is pending), ``done()`` (optional)
    after every result was yielded.

    Parameters
    ----------
    futures : sequence
        Futures of :func:`run_chunk` calls, in chunk order.
    stop : callable
        Called with no argument when the results are abandoned.
    done : callable, optional
        Called with no argument after the last result.

    Yields
    ------
    ChunkResult

    Examples
    --------
    >>> from concurrent.futures import Future
    >>> f = Future(); f.set_result(run_chunk(abs, -2))
    >>> [r.value for r in in_order([f], stop=lambda: None)]
    [2]
    """
    finished = False
    try:
        for fut in futures:
            result = fut.result()
            merge(result.counters)
            yield result
        finished = True
    finally:
        if finished:
            if done is not None:
                done()
        else:
            stop()
