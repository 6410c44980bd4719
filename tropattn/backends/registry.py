"""Executors by name: ``get_executor("serial" | "processes", workers)``.

>>> ex = get_executor("serial")
>>> [r.value for r in ex.map(abs, [-1, 2, -3])]
[1, 2, 3]
"""

from __future__ import annotations

from ..errors import InvalidInputError
from .processes import ProcessExecutor
from .serial import SerialExecutor

__all__ = ["EXECUTORS", "get_executor"]


#: Executor names accepted by :func:`get_executor`.
EXECUTORS = ("serial", "processes")


def get_executor(kind="serial", workers: int = 1):
    """An executor by name (``"serial"`` or ``"processes"``), or the executor object itself.

    >>> get_executor("processes", workers=2).workers
    2
    """
    if not isinstance(kind, str):
        if callable(getattr(kind, "map", None)):
            return kind
        raise InvalidInputError(f"executor = {kind!r}; give 'serial', 'processes' or an object with map(fn, chunks)")
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InvalidInputError(f"workers must be a positive integer; got {workers!r}")
    if kind == "serial":
        return SerialExecutor()
    if kind == "processes":
        return ProcessExecutor(workers)
    raise InvalidInputError(f"executor = {kind!r}; use one of {EXECUTORS}")
