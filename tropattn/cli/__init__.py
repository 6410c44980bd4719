"""The tropattn command line: a thin shell over the public functions.

Every sub-command prints a readable table, or one JSON object with ``--json``.  Bad
input prints one line ``tropattn: error: ...`` naming the problem (for model files,
its JSON path) and exits with status 2; Ctrl-C exits with status 130 after printing
the last complete result (as text, or JSON with ``--json``); a closed output pipe
exits quietly with status 141.  ``python -m tropattn`` is the same program.

Each sub-command lives in a module of this package with a ``register(sub)`` function;
:data:`COMMANDS` names the module of every sub-command, in the order ``tropattn --help``
shows.  ``tropattn COMMAND ...`` imports only that command's module (so ``tropattn
regions`` never loads the model machinery, ``tropattn --version`` loads none); ``tropattn
--help`` and unknown commands load them all.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .._face import face
from .._version import __version__
from ..errors import Interrupted, TropattnError
from .._lazy import lazy_import

# the shared helpers of the sub-commands import numpy and the exact kernel: ``tropattn
# --version`` needs neither, so they are read on first use
_common = lazy_import("tropattn.cli._common")

__all__ = ["main", "build_parser", "COMMANDS"]

#: Every sub-command and the module of this package that registers it, in ``--help`` order.
COMMANDS = {
    "demo": "demo", "new": "new", "regions": "polynomials",
    "count": "models", "power": "models", "diagram": "models", "bounds": "models", "table": "models",
    "conventions": "models", "stability": "models",
    "curve": "teaching", "dyck": "tasks", "markov": "tasks", "dynamics": "dynamics",
}
#: The sub-commands whose matrix products are small (polynomials, curves, bounds, the demo's small
#: models) or exact (region counts, diagrams and tables, checkpoints included: limb products of at most
#: a few thousand rows): their process runs BLAS on one thread.  OpenBLAS starts one spinning thread per
#: core when numpy is imported, about 0.08 CPU-seconds on two cores, more than the small commands' whole
#: work; on a GPT-2-small slice the threads gave the same wall time for 1.3-1.8x the CPU
#: (``scripts/bench_checkpoint.py``).  An environment that names a thread count
#: (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``) is kept.
_ONE_BLAS_THREAD = frozenset({"regions", "curve", "bounds", "conventions", "new", "demo", "count", "diagram",
                              "table"})
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
#: The modules that add sub-commands (each has ``register(sub)``), in ``--help`` order.
_COMMAND_MODULES = tuple(dict.fromkeys(COMMANDS.values()))

__getattr__, __dir__ = face(__name__, __all__, moved={
    "COMMAND_MODULES": "internal; COMMANDS maps every sub-command to the module that registers it",
})


def build_parser(command=None) -> argparse.ArgumentParser:
    """The ``tropattn`` argument parser: every sub-command, or only the module of ``command``.

    Parameters
    ----------
    command : str, optional
        A sub-command of :data:`COMMANDS`: only its module is imported and registered (the
        parse is the same for that command); ``""``: none (``tropattn --version``).  Default
        (None, or a name that is no sub-command): all of them.

    Returns
    -------
    argparse.ArgumentParser
        Parses ``tropattn [--version] COMMAND ...``; ``args.func`` is the command's handler.

    Examples
    --------
    >>> args = build_parser().parse_args(["regions", "max(0, x)", "--json"])
    >>> args.command, args.json
    ('regions', True)
    >>> sorted(build_parser("regions")._subparsers._group_actions[0].choices)    # one module: one command
    ['regions']
    """
    epilog = None if command == "" else (   # a bare --version parser prints no help: skip the helpers' import
        "model files: tropattn.model/1 JSON (score form: keys, offsets, values per head;\n"
        "  or weight form: W_Q, W_K, W_V, W_O and a context) or .npz arrays of the same names;\n"
        "  every number exact (integers, 'p/q' strings, decimals); unknown fields are errors.\n"
        "checkpoints: a GPT-2 .safetensors file, its shard index or a model directory (config.json\n"
        "  honoured); count and diagram read them on a slice with a fixed context (see 'tropattn count --help').\n"
        "run 'tropattn COMMAND --help' for a command's arguments and examples.\n\n" + _common.EXIT_CODES)
    p = argparse.ArgumentParser(prog="tropattn", description=__doc__.splitlines()[0], epilog=epilog,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"tropattn {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    names = () if command == "" else _COMMAND_MODULES if command not in COMMANDS else (COMMANDS[command],)
    for name in names:
        importlib.import_module(f"._{name}", __name__).register(sub)
    return p


def _command(argv):
    """The sub-command ``argv`` names (its first word that is not an option), or None."""
    return next((a for a in argv if not a.startswith("-")), None)


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input, 130 interrupted, 141 closed pipe).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status.

    Examples
    --------
    >>> main(["regions", "max(0, x)"])                # doctest: +ELLIPSIS
    tropical polynomial  max(0, x)
    ...
    linear regions: 2 (one per non-redundant term; exact interior points)
    ...
    0
    >>> main(["regions", "max(0, x"])                 # bad input: one line on stderr, status 2
    2
    """
    argv = sys.argv[1:] if argv is None else argv
    command = _command(argv)
    if command is None and "--version" in argv:
        command = ""                        # only the version: no sub-command module is imported
    _choose_blas_threads(command)
    argv = argv if command == "" else _common.glue_negative_values(argv)
    try:  # importing a command's module takes a moment: Ctrl-C there is an interruption too
        args = build_parser(command).parse_args(argv)
    except KeyboardInterrupt:
        print("tropattn: interrupted before any result was complete", file=sys.stderr)
        return 130
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)  # exact answers may have more than 4,300 digits; print them all
    try:
        args.func(args)
        sys.stdout.flush()
    except Interrupted as exc:
        # a command that printed its last complete result marks the error as reported
        print("tropattn: interrupted" if getattr(exc, "reported", False) else f"tropattn: interrupted: {exc}",
              file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("tropattn: interrupted before any result was complete", file=sys.stderr)
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 141
    except TropattnError as exc:
        print(f"tropattn: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # unreadable model, unwritable output path
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"tropattn: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    return 0


def _choose_blas_threads(command):
    """One BLAS thread for a command of :data:`_ONE_BLAS_THREAD`, decided before numpy is imported.

    Only in a process that has not imported numpy yet (``tropattn`` run as a program): a
    Python session that calls :func:`main` keeps its BLAS, and its environment, untouched.
    """
    if command in _ONE_BLAS_THREAD and "numpy" not in sys.modules and not any(
            os.environ.get(name) for name in _BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _silence_stdout():
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (e.g. under pytest's capture)
        pass
