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
module-level function, or :func:`functools.partial` of one).  Two optional attributes
guide how callers cut their work: ``workers`` (how many chunks run at once) and
``in_process`` (True when chunks run in the caller's process and cost nothing to send,
so they may be as small as one unit; otherwise a caller makes a few chunks per worker).

>>> run_chunk(abs, -3).value
3
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..exact import counting, merge

__all__ = ["ChunkResult", "run_chunk", "in_order"]


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
