"""``tropattn new``: write a model file to start from (a construction or a seeded random model).

The file is ``tropattn.model/1`` JSON (or ``.npz`` arrays, by the suffix), the form every command
reads (:func:`tropattn.io.save`); the shape says how many regions to expect.
"""

from __future__ import annotations

from pathlib import Path

from .._validate import positive_int
from ..attention import grid_model, random_model, sawtooth_model
from ..errors import InvalidInputError
from ..io import save
from ..region_bounds import bounds
from ._common import add_command, emit, output_path, registers

__all__ = ["register", "shape_of", "new_model"]

#: Each construction: its shape's letters and the function that builds it.
KINDS = {"sawtooth": ("d,N,L", "dim, keys, layers"), "grid": ("d,H,N", "dim, heads, keys"),
         "random": ("d,H,N,L", "dim, heads, keys, layers")}


def shape_of(text: str, flag: str, letters: str) -> tuple:
    """``"2,3,2"`` as positive integers, one per letter of ``letters`` (``"d,N,L"``).

    Parameters
    ----------
    text : str
        The flag's value.
    flag : str
        The flag, for the message.
    letters : str
        What the numbers are, comma-separated.

    Returns
    -------
    tuple of int

    Raises
    ------
    InvalidInputError
        The wrong count of numbers, or a number that is not an integer >= 1.

    Examples
    --------
    >>> shape_of("2,3,2", "--sawtooth", "d,N,L")
    (2, 3, 2)
    >>> shape_of("2,3", "--sawtooth", "d,N,L")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: --sawtooth needs 3 integers d,N,L (e.g. --sawtooth 2,3,2); got '2,3'
    """
    names = letters.split(",")
    parts = text.split(",")
    example = ",".join(["2", "3", "2", "1"][:len(names)])
    if len(parts) != len(names):
        raise InvalidInputError(f"{flag} needs {len(names)} integers {letters} (e.g. {flag} {example}); got {text!r}")
    out = []
    for name, part in zip(names, parts):
        try:
            value = int(part)
        except ValueError:
            raise InvalidInputError(f"{flag}: {name} = {part!r} is not an integer; give {letters} as integers "
                                    f"(e.g. {flag} {example})") from None
        out.append(positive_int(value, f"{flag} {name}"))
    return tuple(out)


def new_model(kind: str, shape: tuple, seed: int = 0):
    """The model of a construction and its ``(d, H, N, L)`` shape.

    Parameters
    ----------
    kind : {"sawtooth", "grid", "random"}
        The construction.
    shape : tuple of int
        ``(d, N, L)`` for the sawtooth, ``(d, H, N)`` for grid heads, ``(d, H, N, L)`` for a random model.
    seed : int, optional
        The random model's seed.

    Returns
    -------
    model : Transformer
    shape : (d, H, N, L)

    Examples
    --------
    >>> model, shape = new_model("sawtooth", (2, 3, 2))
    >>> shape, len(model.layers)
    ((2, 2, 3, 2), 2)
    """
    if kind == "sawtooth":
        d, N, L = shape
        return sawtooth_model(d, N, L), (d, d, N, L)
    if kind == "grid":
        d, H, N = shape
        return grid_model(d, H, N), (d, H, N, 1)
    d, H, N, L = shape
    return random_model(d, H, N, L, seed=seed), (d, H, N, L)


def cmd_new(args):
    chosen = [k for k in KINDS if getattr(args, k) is not None]
    if len(chosen) != 1:
        raise InvalidInputError("give exactly one of --sawtooth d,N,L, --grid d,H,N or --random d,H,N,L "
                                f"(got {len(chosen)})")
    kind = chosen[0]
    path = output_path(args.model, "MODEL")
    if path.exists() and not args.force:
        raise InvalidInputError(f"{path} exists; pass --force to overwrite it, or name another file")
    if kind != "random" and args.seed != 0:
        raise InvalidInputError(f"--seed is for --random only; --{kind} is a fixed construction")
    model, (d, H, N, L) = new_model(kind, shape_of(getattr(args, kind), f"--{kind}", KINDS[kind][0]), args.seed)
    save(model, path)
    b = bounds(d, H, N, L)
    expect = (f"exactly {b.lower} activation regions (the construction)" if kind != "random"
              else f"at most {b.deep} activation regions (the per-layer bound to the power L)")
    name = f"{kind} seed {args.seed}" if kind == "random" else kind
    emit({"model": str(path), "kind": kind, "dim": d, "heads": H, "keys": N, "layers": L, "seed": args.seed,
          "expected": b.lower if kind != "random" else None, "upper_bound": b.deep}, args.json,
         [f"wrote {path}: {name} model, d = {d}, H = {H} heads/layer, N = {N} keys, L = {L} layer(s); {expect}",
          f"  next: tropattn count {path}"])


@registers("``new``", "new")
def register(sub):
    p = add_command(sub, "new", cmd_new, "write a model file to start from: a construction or a seeded random model",
                    examples=("tropattn new sawtooth.json --sawtooth 2,3,2",
                              "tropattn new grid.json --grid 2,2,3",
                              "tropattn new random.json --random 2,2,3,1 --seed 7",
                              "tropattn new random.npz --random 1,3,3,1 --json"))
    p.add_argument("model", metavar="MODEL", type=Path,
                   help="the file to write: MODEL.json (tropattn.model/1) or MODEL.npz (arrays)")
    p.add_argument("--sawtooth", metavar="d,N,L", default=None,
                   help="the depth construction: d inputs, N keys, L layers, exactly N^(dL) regions (default: not set)")
    p.add_argument("--grid", metavar="d,H,N", default=None,
                   help="one layer of H grid heads of N keys in R^d, N^H regions when H <= d (default: not set)")
    p.add_argument("--random", metavar="d,H,N,L", default=None,
                   help="a random model with small integer keys and values (default: not set)")
    p.add_argument("--seed", type=int, default=0, help="the random model's seed (default 0)")
    p.add_argument("--force", action="store_true", help="overwrite MODEL if it exists (default: refuse)")
