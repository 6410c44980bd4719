"""Where work runs: one executor interface, ``map(fn, chunks)``, serially, in processes or on Dask.

* :func:`get_executor` -- an executor by name (``"serial"``, ``"processes"``, ``"dask"``);
* :class:`SerialExecutor`, :class:`ProcessExecutor`, :class:`DaskExecutor` -- the three;
* :data:`LOCAL_WORKERS` -- the local processes a pool or a Dask cluster starts when ``workers`` is not given;
* :func:`pool_size` -- how many local processes a request for ``workers`` starts (at most the cores);
* :class:`ChunkResult`, :func:`run_chunk` -- the contract of an executor of your own: ``map`` yields one
  ``ChunkResult(value, counters)`` per chunk, in chunk order, each made by ``run_chunk(fn, chunk)``;
* :func:`chunk_size` -- how many units a caller puts in a chunk for an executor; :func:`batch_size` -- how
  many chunks a task holds, from their measured cost (what the Dask executor does).

Whatever runs where, the results come back in chunk order and every exact-path counter of
every chunk reaches the caller exactly once, so a count never depends on the executor:

>>> [r.value for r in get_executor("serial").map(abs, [-2, 3])]
[2, 3]
"""

from .._face import face
from ._base import LOCAL_WORKERS, ChunkResult, batch_size, chunk_size, run_chunk
from ._dask import DaskExecutor
from ._processes import ProcessExecutor, pool_size
from ._registry import get_executor
from ._serial import SerialExecutor

__all__ = ["get_executor", "SerialExecutor", "ProcessExecutor", "DaskExecutor", "ChunkResult", "run_chunk",
           "pool_size", "chunk_size", "batch_size", "LOCAL_WORKERS"]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "EXECUTORS": "internal; get_executor names the executors ('serial', 'processes', 'dask') in its error",
})
