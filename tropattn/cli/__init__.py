"""The tropattn command line: a thin shell over the public functions.

Every sub-command prints a readable table, or one JSON object with ``--json``.  Bad
input prints one line ``tropattn: error: ...`` naming the problem (for model files,
its JSON path) and exits with status 2; Ctrl-C exits with status 130 after printing
what was found so far.

Each sub-command lives in a module of this package with a ``register(sub)`` function;
:data:`COMMAND_MODULES` lists them in the order ``tropattn --help`` shows.
"""

from __future__ import annotations

import argparse
import sys

from .._version import __version__
from ..errors import Interrupted, TropattnError
from . import demo, models, polynomials, teaching

__all__ = ["main", "build_parser", "COMMAND_MODULES"]

#: The modules that add sub-commands (each has ``register(sub)``).
COMMAND_MODULES = (demo, polynomials, models, teaching)


def build_parser() -> argparse.ArgumentParser:
    """The ``tropattn`` argument parser with every sub-command of :data:`COMMAND_MODULES`."""
    p = argparse.ArgumentParser(prog="tropattn", description=__doc__.splitlines()[0])
    p.add_argument("--version", action="version", version=f"tropattn {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMAND_MODULES:
        module.register(sub)
    return p


def main(argv=None) -> int:
    """Run the command line; returns the exit status (0 ok, 2 bad input, 130 interrupted)."""
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)  # exact answers may have more than 4,300 digits; print them all
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except Interrupted as exc:
        print(f"tropattn: interrupted: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("tropattn: interrupted", file=sys.stderr)
        return 130
    except TropattnError as exc:
        print(f"tropattn: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # unreadable model, unwritable output path
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"tropattn: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    return 0
