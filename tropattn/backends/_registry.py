"""Executors by name: ``get_executor("serial" | "processes" | "dask", workers, scheduler=...)``.

>>> ex = get_executor("serial")
>>> [r.value for r in ex.map(abs, [-1, 2, -3])]
[1, 2, 3]
"""

from __future__ import annotations

from .._validate import choice, positive_int
from ..errors import InvalidInputError
from ._dask import DaskExecutor
from ._processes import ProcessExecutor
from ._serial import SerialExecutor

__all__ = ["EXECUTORS", "get_executor"]


#: Executor names accepted by :func:`get_executor`.
EXECUTORS = ("serial", "processes", "dask")


def get_executor(kind="serial", workers: int = 1, scheduler=None):
    """An executor by name (``"serial"``, ``"processes"`` or ``"dask"``), or the executor object itself.

    ``scheduler`` is for ``"dask"`` only: ``None`` or ``"local"`` starts a LocalCluster of
    ``workers`` processes (at least 2) on this machine, ``"tcp://host:port"`` joins a
    running scheduler (nothing starts until the executor's first ``map``).

    Parameters
    ----------
    kind : {"serial", "processes", "dask"} or executor, optional
        The executor's name, or an object with ``map(fn, chunks)`` (returned as is).
    workers : int, optional
        Positive number of worker processes (default 1).
    scheduler : str, optional
        Dask only: ``None``/``"local"`` or a scheduler address.

    Returns
    -------
    SerialExecutor, ProcessExecutor or DaskExecutor
        A fresh executor (or ``kind`` itself).

    Raises
    ------
    InvalidInputError
        If ``kind`` is unknown, ``workers`` is not a positive int, or ``scheduler`` is given
        for an executor other than ``"dask"``.

    Examples
    --------
    >>> get_executor("processes", workers=2).workers
    2
    >>> get_executor("dask", scheduler="tcp://127.0.0.1:8786").scheduler
    'tcp://127.0.0.1:8786'
    """
    if scheduler is not None and kind != "dask":
        raise InvalidInputError(f"scheduler = {scheduler!r} needs executor = 'dask'; got executor = {kind!r}")
    if not isinstance(kind, str):
        if callable(getattr(kind, "map", None)):
            return kind
        raise InvalidInputError(f"executor = {kind!r}; give one of {EXECUTORS} or an object with map(fn, chunks)")
    workers = positive_int(workers, "workers", meaning="the number of worker processes")
    choice(kind, "executor", EXECUTORS, meaning="or an object with map(fn, chunks)")
    if kind == "serial":
        return SerialExecutor()
    if kind == "processes":
        return ProcessExecutor(workers)
    return DaskExecutor(scheduler, workers=max(workers, 2) if scheduler in (None, "local") else workers)
