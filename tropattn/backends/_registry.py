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


def get_executor(kind="serial", workers: int | None = None, scheduler=None):
    """An executor by name (``"serial"``, ``"processes"`` or ``"dask"``), or the executor object itself.

    ``scheduler`` is for ``"dask"`` only: ``None`` or ``"local"`` starts a LocalCluster of
    ``workers`` processes (2 when not given) on this machine, ``"tcp://host:port"`` joins a
    running scheduler (nothing starts until the executor's first ``map``).

    Parameters
    ----------
    kind : {"serial", "processes", "dask"} or executor, optional
        The executor's name, or an object with ``map(fn, chunks)`` (returned as is).
    workers : int, optional
        Positive number of worker processes (default: the executor's own, 2 processes or 2
        local Dask workers; a serial executor has none).
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
    >>> get_executor("dask").workers, get_executor("dask", workers=1).workers   # nothing started yet
    (2, 1)
    """
    if scheduler is not None and kind != "dask":
        raise InvalidInputError(f"scheduler = {scheduler!r} needs executor = 'dask'; got executor = {kind!r}")
    if not isinstance(kind, str):
        if callable(getattr(kind, "map", None)):
            return kind
        raise InvalidInputError(f"executor = {kind!r}; give one of {EXECUTORS} or an object with map(fn, chunks)")
    if workers is not None:
        workers = positive_int(workers, "workers", meaning="the number of worker processes")
    choice(kind, "executor", EXECUTORS, meaning="or an object with map(fn, chunks)")
    if kind == "serial":
        return SerialExecutor()
    if kind == "processes":
        return ProcessExecutor() if workers is None else ProcessExecutor(workers)
    return DaskExecutor(scheduler) if workers is None else DaskExecutor(scheduler, workers=workers)
