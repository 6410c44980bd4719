"""Where and how a long count runs: ``--workers``, ``--scheduler`` and ``--regions``.

Shared by ``tropattn count`` and ``tropattn table``: :func:`add_run_arguments` adds the
flags, :func:`run_kwargs` turns them into keyword arguments of
:func:`tropattn.regions.enumerate_regions` (``workers``, ``executor``, ``keep``).

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_run_arguments(p)
>>> run_kwargs(p.parse_args(["--workers", "1"]))
{'workers': 1}
"""

from __future__ import annotations

import atexit
import sys

from .._validate import positive_int
from ..backends import LOCAL_WORKERS, DaskExecutor, pool_size
from ..errors import InvalidInputError
from ..regions import RegionWriter

__all__ = ["add_run_arguments", "run_kwargs"]


def add_run_arguments(parser, regions: bool = False) -> None:
    """Add ``--workers`` and ``--scheduler`` (and ``--regions FILE`` when ``regions``).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A sub-command's parser.
    regions : bool, optional
        Also add ``--regions FILE`` (default False).

    Returns
    -------
    None

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(); add_run_arguments(p, regions=True)
    >>> p.parse_args(["--workers", "2"])
    Namespace(workers=2, scheduler=None, regions=None)
    """
    parser.add_argument("--workers", type=int, default=None,
                        help="processes on this machine for the primal search (default 1; capped at the machine's "
                             "cores, with a warning); with --scheduler local, the number of Dask workers "
                             "(default 2)")
    parser.add_argument("--scheduler", metavar="local|ADDRESS", default=None,
                        help="run on Dask (default: not used): 'local' starts a cluster here, tcp://host:8786 joins one started with "
                             "`dask scheduler` (workers: `dask worker tcp://host:8786`)")
    if regions:
        parser.add_argument("--regions", metavar="FILE", default=None,
                            help="write every activation region to FILE.jsonl, FILE.csv or FILE.parquet (the "
                                 "parquet extra) as it is found (schema tropattn.regions/1: pattern, interior point, inequalities, map, "
                                 "linear-region id; default: not written)")


def run_kwargs(args, reuse: bool = False) -> dict:
    """Keyword arguments for ``enumerate_regions`` from the parsed flags.

    ``--workers`` beyond the usable cores of this machine is capped at them (one warning line
    on stderr says so), unless the workers are on a remote Dask scheduler.

    With ``--scheduler``, each search starts (or joins) and closes its own cluster, unless
    ``reuse``: then one :class:`~tropattn.backends.DaskExecutor` serves every search of
    the command (``table`` counts hundreds of models) and is closed when the process exits.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``--workers``, ``--scheduler`` (and ``--regions``, ``--method`` if present).
    reuse : bool, optional
        Share one Dask executor between the command's searches.

    Returns
    -------
    dict
        ``workers`` and, as given, ``executor``/``scheduler`` and ``keep`` (a :class:`~tropattn.regions.RegionWriter`).

    Raises
    ------
    InvalidInputError
        If ``--workers`` is not positive, or ``--regions`` is combined with ``--method dual``.

    Examples
    --------
    >>> import argparse
    >>> run_kwargs(argparse.Namespace(workers=1, scheduler=None))
    {'workers': 1}
    >>> run_kwargs(argparse.Namespace(workers=1, scheduler="local"))
    {'workers': 1, 'executor': 'dask', 'scheduler': 'local'}
    >>> run_kwargs(argparse.Namespace(workers=None, scheduler="local"))   # --workers not given
    {'workers': 2, 'executor': 'dask', 'scheduler': 'local'}
    """
    workers = args.workers
    if workers is None:             # not given: one process, or a local Dask cluster's default size
        workers = LOCAL_WORKERS if args.scheduler == "local" else 1
    workers = positive_int(workers, "--workers", meaning="the number of worker processes")
    if args.scheduler in (None, "local"):  # processes on this machine: at most its cores
        workers, note = pool_size(workers)
        if note:
            print(f"tropattn: warning: --{note}", file=sys.stderr)
    out = {"workers": workers}
    if args.scheduler is not None:
        if reuse:
            executor = DaskExecutor(args.scheduler, workers=workers)
            atexit.register(executor.close)
            out["executor"] = executor
        else:
            out.update(executor="dask", scheduler=args.scheduler)
    if getattr(args, "regions", None):
        if getattr(args, "method", "primal") == "dual":
            raise InvalidInputError("--regions needs the primal search (--method primal): the dual method only counts")
        out["keep"] = RegionWriter(args.regions)
    return out
