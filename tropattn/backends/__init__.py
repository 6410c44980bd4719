"""Where work runs: one executor interface (``map(fn, chunks)``), serial, in processes or on Dask.

>>> [r.value for r in get_executor("serial").map(abs, [-2])]
[2]
"""

from .base import ChunkResult, run_chunk
from .processes import ProcessExecutor
from .dask import DaskExecutor
from .registry import EXECUTORS, get_executor
from .serial import SerialExecutor

__all__ = ["ChunkResult", "run_chunk", "get_executor", "EXECUTORS", "SerialExecutor", "ProcessExecutor",
           "DaskExecutor"]
