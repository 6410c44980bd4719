"""What every sub-command shares: printing (text or ``--json``), parsing ``LO,HI``, registering.

>>> parse_pair("-1/2,3", "--box")
(Fraction(-1, 2), Fraction(3, 1))
"""

from __future__ import annotations

import json
from fractions import Fraction

from ..errors import InvalidInputError
from ..exact import format_point, format_rational, to_rational

__all__ = ["emit", "json_default", "parse_pair", "add_command", "format_point", "format_rational"]

_fmt = format_rational


def emit(obj, as_json: bool, text_lines):
    if as_json:
        print(json.dumps(obj, indent=1, default=json_default))
    else:
        print("\n".join(text_lines))


def json_default(x):
    if isinstance(x, Fraction):
        return _fmt(x)
    if isinstance(x, (set, frozenset, tuple)):
        return sorted(x) if isinstance(x, (set, frozenset)) else list(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def parse_pair(text, what):

    parts = text.split(",")
    if len(parts) != 2:
        raise InvalidInputError(f"{what} must look like LO,HI (e.g. -2,2 or -1/2,3/2); got {text!r}")
    lo, hi = (to_rational(t, what) for t in parts)
    if not lo < hi:
        raise InvalidInputError(f"{what} needs LO < HI; got {_fmt(lo)},{_fmt(hi)}")
    return lo, hi


def add_command(sub, name, func, help_text, json_output=True):
    """One sub-command: its parser, its handler, and ``--json`` where it prints a result."""
    parser = sub.add_parser(name, help=help_text)
    parser.set_defaults(func=func)
    if json_output:
        parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser
