"""What every sub-command shares: printing (text or ``--json``), ``LO,HI`` pairs, output paths, registering.

Conventions of every sub-command (documented in ``tropattn --help``):

* exit status 0 on success, 2 on bad input (one line ``tropattn: error: ...``), 130 on
  Ctrl-C (after printing the last complete result), 141 when the reader of the output
  goes away (a broken pipe, e.g. ``| head``): quietly;
* ``--box`` takes ``LO,HI`` or ``LO HI``, negative numbers and fractions included
  (``--box -1 1``, ``--box "-1,1"``, ``--box=-1/2,3``);
* an output file whose directory does not exist is refused by every command (no
  directory is created behind your back: a typo in a path is an error), as is an output
  path that is an existing directory.

>>> parse_pair("-1/2,3", "--box")
(Fraction(-1, 2), Fraction(3, 1))
>>> glue_negative_values(["count", "m.json", "--box", "-1", "1"])
['count', 'm.json', '--box=-1,1']
"""

from __future__ import annotations

import argparse
import json
import re
from fractions import Fraction
from pathlib import Path

from .._progress import PROGRESS_CHOICES
from .._validate import choice as choice_
from ..errors import InvalidInputError
from ..exact import format_point, format_rational, to_rational, unlimited_int_digits

__all__ = ["emit", "json_default", "parse_pair", "parse_float_pair", "FLOAT_LIMIT", "add_command", "format_point", "format_rational",
           "glue_negative_values", "output_path", "progress_enabled", "add_progress_argument", "progress_from_args",
           "as_flags", "registers", "EXIT_CODES", "BOX_HELP"]

_fmt = format_rational

#: The exit codes, as ``tropattn --help`` and every sub-command's help list them.
EXIT_CODES = ("exit status:\n"
              "  0    success\n"
              "  2    bad input: one line 'tropattn: error: ...' names the problem\n"
              "  130  interrupted by Ctrl-C (the last complete result is printed first)\n"
              "  141  the output pipe was closed (e.g. '| head'): quietly")

BOX_HELP = "LO,HI or LO HI: restrict to the box [LO, HI]^d (e.g. --box -1 1, --box \"-1/2,3\")"

#: Flags whose value may start with '-' (a negative number): see :func:`glue_negative_values`.
_NUMERIC_FLAGS = ("--box",)
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?(/\d+)?$")


def glue_negative_values(argv) -> list:
    """Rewrite ``--box -1 1`` and ``--box -1,1`` as ``--box=-1,1`` (argparse would read ``-1`` as a flag).

    Parameters
    ----------
    argv : list of str
        The command line after the program name.

    Returns
    -------
    list of str
        The same arguments with each numeric flag's value attached by ``=``.

    Examples
    --------
    >>> glue_negative_values(["count", "m.json", "--box", "-1/2,1", "--json"])
    ['count', 'm.json', '--box=-1/2,1', '--json']
    """
    out, i = [], 0
    argv = list(argv)
    while i < len(argv):
        tok = argv[i]
        if tok in _NUMERIC_FLAGS and i + 1 < len(argv):
            value = argv[i + 1]
            parts = value.split(",")
            if all(_NUMBER.match(p.strip()) for p in parts):
                if len(parts) == 1 and i + 2 < len(argv) and _NUMBER.match(argv[i + 2]):
                    out.append(f"{tok}={value},{argv[i + 2]}")
                    i += 3
                    continue
                out.append(f"{tok}={value}")
                i += 2
                continue
        out.append(tok)
        i += 1
    return out


def emit(obj, as_json: bool, text_lines):
    """Print ``obj`` as one JSON object (``--json``) or the readable ``text_lines``.

    Parameters
    ----------
    obj : dict
        The result (exact numbers become ``"p/q"`` strings, see :func:`json_default`).
    as_json : bool
        Print ``obj`` as JSON (``--json``) instead of the text.
    text_lines : list of str
        The readable form.

    Returns
    -------
    None

    Examples
    --------
    >>> from fractions import Fraction
    >>> emit({"regions": 3, "volume": Fraction(1, 3)}, True, ["3 regions"])
    {
     "regions": 3,
     "volume": "1/3"
    }
    >>> emit({"regions": 3}, False, ["3 regions"])
    3 regions
    """
    with unlimited_int_digits():
        if as_json:
            print(json.dumps(obj, indent=1, default=json_default))
        else:
            print("\n".join(text_lines))


def json_default(x):
    """JSON for exact numbers (``"p/q"`` strings) and sets/tuples (lists).

    Parameters
    ----------
    x : object
        What ``json.dumps`` cannot encode itself.

    Returns
    -------
    str or list
        ``"p/q"`` for a Fraction, a list for a tuple, a sorted list for a set.

    Raises
    ------
    TypeError
        For anything else (as ``json.dumps`` expects).

    Examples
    --------
    >>> from fractions import Fraction
    >>> json_default(Fraction(-1, 3)), json_default((1, 2)), json_default({3, 1})
    ('-1/3', [1, 2], [1, 3])
    """
    if isinstance(x, Fraction):
        return _fmt(x)
    if isinstance(x, (set, frozenset, tuple)):
        return sorted(x) if isinstance(x, (set, frozenset)) else list(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def parse_pair(text, what):
    """``"LO,HI"`` as two exact rationals with ``LO < HI``.

    Parameters
    ----------
    text : str
        ``"LO,HI"`` (integers, decimals or ``p/q``).
    what : str
        The flag's name, for the message.

    Returns
    -------
    lo, hi : Fraction
        With ``lo < hi``.

    Raises
    ------
    InvalidInputError
        If ``text`` is not two numbers separated by a comma, or ``LO >= HI``.

    Examples
    --------
    >>> parse_pair("0.5,3/2", "--box")                # decimals are converted exactly
    (Fraction(1, 2), Fraction(3, 2))
    """
    parts = text.split(",")
    if len(parts) != 2:
        raise InvalidInputError(f"{what} must look like LO,HI or LO HI (e.g. -2,2 or -1/2 3/2); got {text!r}")
    lo, hi = (to_rational(t, what) for t in parts)
    if not lo < hi:
        raise InvalidInputError(f"{what} needs LO < HI; got {_fmt(lo)},{_fmt(hi)}")
    return lo, hi


#: The largest magnitude a float-drawn or float-sampled command accepts (floats end near 1.8e308;
#: the margin leaves room for a picture's padding and a sampler's spans).
FLOAT_LIMIT = Fraction(10) ** 300


def parse_float_pair(text, what):
    """:func:`parse_pair` for the commands that work in floats (pictures, soft attention): ``|LO|, |HI| <= 1e300``.

    Parameters
    ----------
    text : str
        ``"LO,HI"``.
    what : str
        The flag's name, for the message.

    Returns
    -------
    lo, hi : Fraction

    Raises
    ------
    InvalidInputError
        As :func:`parse_pair`, or if ``LO`` or ``HI`` is beyond ``1e300`` in magnitude, or both
        round to the same float.

    Examples
    --------
    >>> parse_float_pair("-1e400,1", "--box")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: --box = '-1e400,1'; this command computes in floating point, so LO and HI must lie within ±1e300
    """
    lo, hi = parse_pair(text, what)
    if max(abs(lo), abs(hi)) > FLOAT_LIMIT:
        raise InvalidInputError(f"{what} = {text!r}; this command computes in floating point, so LO and HI must lie "
                                "within ±1e300")
    if float(lo) == float(hi):
        raise InvalidInputError(f"{what} = {text!r}; LO and HI round to the same floating-point number, and this "
                                "command computes in floating point: give a wider box")
    return lo, hi


def output_path(path, what="output") -> Path:
    """The path of an output file, checked the same way for every command.

    A missing directory is refused (never created), so is an existing directory.

    Parameters
    ----------
    path : str or Path
        The output file.
    what : str, optional
        The flag's name, for the message.

    Returns
    -------
    pathlib.Path
        ``path``, whose directory exists.

    Raises
    ------
    InvalidInputError
        If ``path`` is a directory or its directory does not exist.

    Examples
    --------
    >>> output_path("no/such/dir/x.png", "-o")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: cannot write no/such/dir/x.png (-o): the directory no/such/dir does not exist; create it first (mkdir -p no/such/dir)
    """
    p = Path(path)
    if p.is_dir():
        raise InvalidInputError(f"cannot write {path} ({what}): it is a directory; give a file name such as "
                                f"{p / 'out.png'}")
    parent = p.parent
    if not parent.is_dir():
        raise InvalidInputError(f"cannot write {path} ({what}): the directory {parent} does not exist; create it "
                                f"first (mkdir -p {parent})")
    return p


def progress_enabled(value) -> bool | None:
    """``"auto"`` -> None (a terminal decides), ``"always"`` -> True, ``"never"`` -> False.

    Parameters
    ----------
    value : {"auto", "always", "never"}
        The ``--progress`` value.

    Returns
    -------
    bool or None
        The ``enabled`` argument of :class:`tropattn._progress.Progress`.

    Raises
    ------
    InvalidInputError
        If ``choice`` is not one of the three.

    Examples
    --------
    >>> [progress_enabled(c) for c in PROGRESS_CHOICES]
    [None, True, False]
    """
    return {"auto": None, "always": True, "never": False}[choice_(value, "--progress", PROGRESS_CHOICES)]


def add_progress_argument(parser):
    """``--progress auto|always|never`` (a bar on stderr).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        A sub-command's parser.

    Returns
    -------
    None

    Examples
    --------
    >>> import argparse
    >>> p = argparse.ArgumentParser(); add_progress_argument(p)
    >>> p.parse_args([]).progress, p.parse_args(["--progress", "never"]).progress
    ('auto', 'never')
    """
    parser.add_argument("--progress", choices=PROGRESS_CHOICES, default="auto",
                        help="show a progress bar on stderr: auto (only on a terminal, the default), always, never")


#: Library keywords in messages, and the flags that set them: ``method='dual'`` reads ``--method dual``.
_FLAGS = re.compile(r"(?<![-\w])(method|ties|workers|scheduler)\s?=\s?'?([\w/.:-]+)'?")


def as_flags(message: str) -> str:
    """A library error message in the words of the command line: ``method='primal'`` becomes ``--method primal``.

    Parameters
    ----------
    message : str
        An error message that names keyword arguments of a library function.

    Returns
    -------
    str
        The same message naming the flags that set them.

    Examples
    --------
    >>> as_flags("method='dual' cannot count this model: it has an FFN; use method='primal'")
    '--method dual cannot count this model: it has an FFN; use --method primal'
    """
    return _FLAGS.sub(lambda m: f"--{m.group(1)} {m.group(2)}", message)


def progress_from_args(args):
    """The ``enabled`` value of :class:`tropattn._progress.Progress` for ``--progress``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed arguments (``progress`` missing means ``"auto"``).

    Returns
    -------
    bool or None
        As :func:`progress_enabled`.

    Raises
    ------
    InvalidInputError
        If ``args.progress`` is not a progress choice.

    Examples
    --------
    >>> import argparse
    >>> progress_from_args(argparse.Namespace(progress="always")), progress_from_args(argparse.Namespace())
    (True, None)
    """
    return progress_enabled(getattr(args, "progress", "auto"))


def add_command(sub, name, func, help_text, json_output=True, examples=()):
    """One sub-command: its parser (help, examples and exit codes in the epilog), handler and ``--json``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The sub-command table (``parser.add_subparsers()``).
    name : str
        The sub-command's name.
    func : callable
        The handler, called as ``func(args)``.
    help_text : str
        One-line help (its capitalised form is the description).
    json_output : bool, optional
        Add ``--json`` (default True).
    examples : sequence of str, optional
        Example command lines for the epilog.

    Returns
    -------
    argparse.ArgumentParser
        The new sub-command's parser (add its own arguments to it).

    Examples
    --------
    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="tropattn").add_subparsers()
    >>> p = add_command(sub, "hello", print, "say hello", examples=["tropattn hello"])
    >>> p.prog, p.parse_args(["--json"]).json
    ('tropattn hello', True)
    """
    lines = ["examples:"] + [f"  {e}" for e in examples] + ["", EXIT_CODES] if examples else [EXIT_CODES]
    parser = sub.add_parser(name, help=help_text, description=help_text[:1].upper() + help_text[1:] + ".",
                            epilog="\n".join(lines), formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.set_defaults(func=func)
    if json_output:
        parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return parser


_REGISTER_DOC = """Add {what} to the ``tropattn`` sub-command parsers.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The ``tropattn`` sub-command table.

    Returns
    -------
    None

    Examples
    --------
    >>> import argparse
    >>> sub = argparse.ArgumentParser(prog="tropattn").add_subparsers()
    >>> register(sub); sorted(sub.choices)
    {commands}
    """


def registers(what: str, *commands):
    """Decorator: the one docstring of every command module's ``register(sub)``, naming its commands.

    Parameters
    ----------
    what : str
        What ``register`` adds, for the first line (``"``count``"``).
    *commands : str
        The sub-commands it registers (its doctest checks them).

    Returns
    -------
    callable
        A decorator that sets ``register.__doc__``.

    Examples
    --------
    >>> @registers("``hello``", "hello")
    ... def register(sub):
    ...     add_command(sub, "hello", print, "say hello")
    >>> register.__doc__.splitlines()[0], register.__doc__.rstrip().splitlines()[-1].strip()
    ('Add ``hello`` to the ``tropattn`` sub-command parsers.', "['hello']")
    """
    def decorate(fn):
        fn.__doc__ = _REGISTER_DOC.format(what=what, commands=sorted(commands))
        return fn
    return decorate
