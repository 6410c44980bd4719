"""Where work runs: one executor interface (``map(fn, chunks)``), serial, in processes or on Dask.

>>> [r.value for r in get_executor("serial").map(abs, [-2])]
[2]
"""

from ._base import ChunkResult, run_chunk
from ._processes import ProcessExecutor
from ._dask import DaskExecutor
from ._registry import EXECUTORS, get_executor
from ._serial import SerialExecutor

__all__ = ["ChunkResult", "run_chunk", "get_executor", "EXECUTORS", "SerialExecutor", "ProcessExecutor",
           "DaskExecutor"]
