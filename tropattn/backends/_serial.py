"""The serial executor: every chunk in this process, in order.

Counters are recorded directly in the caller's scopes (the chunk runs in the caller's
context), so nothing is merged afterwards.

>>> [r.value for r in SerialExecutor().map(len, ["ab", "c"])]
[2, 1]
"""

from __future__ import annotations

from ._base import run_chunk

__all__ = ["SerialExecutor"]


class SerialExecutor:
    """Run ``fn(chunk)`` for each chunk here, one after the other."""

    workers = 1
    #: Chunks run in the caller's process (nothing is sent anywhere): callers may make them small.
    in_process = True

    def map(self, fn, chunks):
        """Run ``fn(chunk)`` for every chunk here, in order.

        Parameters
        ----------
        fn : callable
            Called as ``fn(chunk)`` in this process.
        chunks : iterable
            Units of work.

        Yields
        ------
        ChunkResult
            One per chunk, in order.

        Examples
        --------
        >>> [r.value for r in SerialExecutor().map(sum, [[1, 2], [3]])]
        [3, 3]
        """
        for chunk in chunks:
            yield run_chunk(fn, chunk)
