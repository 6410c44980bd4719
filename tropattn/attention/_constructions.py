"""Models whose region counts are known exactly: grid heads, the sawtooth, seeded random models.

>>> from tropattn.regions import enumerate_regions
>>> len(enumerate_regions(grid_model(2, 2, 3)).activation_regions)     # a 3 x 3 grid
9
"""

from __future__ import annotations

import random
from fractions import Fraction

from .._validate import positive_int
from ..errors import InvalidInputError
from ._head import Head
from ._layer import FFN, Layer, Transformer
from .._doc import fill_doc


__all__ = ["grid_heads", "grid_model", "grid_count", "sawtooth_model", "sawtooth_count", "random_model"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "dim": """dim : int
    Query dimension ``d >= 1``.""",
    "keys": """keys : int
    Keys per head ``N >= 1``.""",
    "heads": """heads : int
    Number of heads ``H >= 1``.""",
}


@fill_doc(**_DOC)
def grid_heads(dim: int, heads: int, keys: int, scale=1):
    """Heads ``h < min(H, d)`` that read coordinate ``h``: keys ``j e_h``, offsets ``-j^2/2``.

    Head h's walls are ``x_h = j - 1/2``: together an ``N x ... x N`` grid.  Extra heads
    (``H > d``) reuse coordinates with shifted offsets, adding walls in the same
    directions (still far from ``N^H``).

    Parameters
    ----------
    %(dim)s
    %(heads)s
    %(keys)s
    scale : positive number, optional
        Factor on keys and offsets (default 1): ``j scale e_h`` and ``-scale j^2 / 2``.
        All scores scale by it, so the walls ``x_h = j - 1/2`` stay where they are (not
        checked: a negative scale reverses the argmax).

    Returns
    -------
    list of Head
        ``H`` heads; head ``h`` has keys ``j scale e_{h mod d}`` and values ``j e_{h mod d}``,
        ``j = 0..N-1`` (heads ``h >= d`` have their offsets shifted by ``-j scale floor(h/d) / (H+1)``).

    Raises
    ------
    InvalidInputError
        ``dim``, ``heads`` or ``keys`` is not an integer ``>= 1``.

    Examples
    --------
    Key ``j`` beats key ``j - 1`` where ``j x - j^2/2 > (j - 1) x - (j - 1)^2/2``, that is
    ``x > j - 1/2``:

    >>> [h.offsets for h in grid_heads(1, 1, 3)]
    [(Fraction(0, 1), Fraction(-1, 2), Fraction(-2, 1))]
    >>> [grid_heads(1, 1, 3)[0].label([x]) for x in (0, "0.6", 2)]
    [0, 1, 2]
    """

    positive_int(dim, "dim"), positive_int(heads, "heads"), positive_int(keys, "keys")
    out = []
    for h in range(heads):
        axis = h % dim
        shift = Fraction(h // dim, heads + 1)  # extra heads on a used axis: shifted walls
        keys_h = [[Fraction(j * scale) if i == axis else Fraction(0) for i in range(dim)] for j in range(keys)]
        offs = [-Fraction(j * j, 2) * scale - j * shift * scale for j in range(keys)]
        vals = [[Fraction(j) if i == axis else Fraction(0) for i in range(dim)] for j in range(keys)]
        out.append(Head(keys_h, offs, vals))
    return out


@fill_doc(**_DOC)
def grid_model(dim: int, heads: int, keys: int):
    """One layer of grid heads, residual on: ``N^H`` regions when ``H <= d``.

    Parameters
    ----------
    %(dim)s
    heads : int
        Number of heads ``H >= 1`` (:func:`grid_heads`).
    %(keys)s

    Returns
    -------
    Transformer
        One residual layer of :func:`grid_heads`; :func:`grid_count` is its region count
        when ``H <= d``.

    Raises
    ------
    InvalidInputError
        ``dim``, ``heads`` or ``keys`` is not an integer ``>= 1``.

    Examples
    --------
    >>> from tropattn.regions import enumerate_regions
    >>> len(enumerate_regions(grid_model(2, 2, 3)).activation_regions)     # a 3 x 3 grid
    9
    """

    return Transformer([Layer(grid_heads(dim, heads, keys), residual=True)])


def grid_count(dim: int, heads: int, keys: int) -> int:
    """The exact region count of :func:`grid_heads` when ``H <= d``: ``N^H``.

    Each of the ``H`` heads cuts its own axis into ``N`` intervals, and the overlay of
    ``H`` independent axis partitions has ``N^H`` boxes.

    Parameters
    ----------
    dim : int
        Query dimension ``d``.
    heads : int
        Number of heads ``H <= d``.
    keys : int
        Keys per head ``N``.

    Returns
    -------
    int
        ``N^H``.  The arguments are not checked to be positive.

    Raises
    ------
    InvalidInputError
        ``heads > dim``: extra heads reuse axes and the count is no longer ``N^H``.

    Examples
    --------
    >>> grid_count(3, 2, 4)
    16
    >>> from tropattn.regions import enumerate_regions
    >>> len(enumerate_regions(grid_model(2, 2, 4)).activation_regions) == grid_count(2, 2, 4)
    True
    """
    if heads > dim:
        raise InvalidInputError(f"grid heads attain N^H only for H <= d; got H={heads} > d={dim}")
    return keys ** heads


@fill_doc(**_DOC)
def sawtooth_model(dim: int, keys: int, layers: int, heads: int | None = None):
    """The depth construction of docs/THEORY.md §4: exactly ``N^{min(H, d) L}`` regions.

    Layer ``l = 1..L`` has ``H`` heads (default ``H = d``).  Head ``h < min(H, d)`` has
    keys ``N^l j e_h``, offsets ``-j (j + 1) / 2`` and values ``-(j / N^l) e_h`` for
    ``j = 0..N-1``, residual on: on ``[0, 1)`` coordinate ``h`` is routed by
    ``floor(N^l x_h)`` and folded back, so it is cut into ``N^L`` intervals.  Heads
    ``h >= d`` are *silent*: all their keys coincide, so the first always wins and they
    add no wall.  With ``H = d`` this attains the paper's ``Θ(N^{dL})`` (docs/THEORY.md §4).

    Parameters
    ----------
    %(dim)s
    %(keys)s
    layers : int
        Depth ``L >= 1``.
    heads : int, optional
        Heads per layer ``H >= 1`` (default ``d``); heads beyond ``d`` are silent.

    Returns
    -------
    Transformer
        ``L`` residual layers of ``H`` heads each; :func:`sawtooth_count` is its exact
        region count.

    Raises
    ------
    InvalidInputError
        ``dim``, ``keys``, ``layers`` or ``heads`` is not an integer ``>= 1``.

    Examples
    --------
    Layer 2 of a one-dimensional sawtooth with ``N = 2`` has keys ``0`` and ``N^2 = 4``:

    >>> m = sawtooth_model(1, 2, 2)
    >>> [h.keys for h in m.layers[1].heads]
    [((Fraction(0, 1),), (Fraction(4, 1),))]
    >>> len(sawtooth_model(2, 3, 1, heads=3).layers[0].heads)
    3
    """

    positive_int(dim, "dim"), positive_int(keys, "keys"), positive_int(layers, "layers")
    heads = dim if heads is None else positive_int(heads, "heads")
    zero = [Fraction(0)] * dim
    silent = Head([zero] * keys, [Fraction(0)] * keys, [zero] * keys)
    out = []
    for l in range(1, layers + 1):
        scale = keys ** l
        layer = []
        for h in range(min(heads, dim)):
            e = [Fraction(int(i == h)) for i in range(dim)]
            layer.append(Head([[scale * j * v for v in e] for j in range(keys)],
                              [-Fraction(j * (j + 1), 2) for j in range(keys)],
                              [[-Fraction(j, scale) * v for v in e] for j in range(keys)]))
        out.append(Layer(layer + [silent] * (heads - len(layer)), residual=True))
    return Transformer(out)


def sawtooth_count(dim: int, keys: int, layers: int, heads: int | None = None) -> int:
    """``N^{min(H, d) L}`` (``N^{dL}`` for the default ``H = d``).

    The exact region count of :func:`sawtooth_model`: each layer refines each of the
    ``min(H, d)`` routed coordinates ``N``-fold, and the layers multiply.

    Parameters
    ----------
    dim : int
        Query dimension ``d``.
    keys : int
        Keys per head ``N``.
    layers : int
        Depth ``L``.
    heads : int, optional
        Heads per layer ``H`` (default ``d``).

    Returns
    -------
    int
        ``N^{min(H, d) L}``.  The arguments are not validated (no error is raised).

    Examples
    --------
    >>> sawtooth_count(2, 3, 2)
    81
    >>> from tropattn.regions import enumerate_regions
    >>> len(enumerate_regions(sawtooth_model(1, 2, 2)).activation_regions) == sawtooth_count(1, 2, 2)
    True
    """
    heads = dim if heads is None else heads
    return keys ** (min(heads, dim) * layers)


@fill_doc(**_DOC)
def random_model(dim: int, heads: int, keys: int, layers: int = 1, seed: int = 0, *,
                 residual: bool = True, ffn_hidden: int = 0, value_range: int = 3):
    """A random model with small integer keys, half-integer offsets and integer values.

    Deterministic for a seed.  Small integers keep the exact arithmetic fast while
    still giving generic configurations most of the time.

    Parameters
    ----------
    %(dim)s
    heads : int
        Heads per layer ``H >= 1``.
    %(keys)s
    layers : int, optional
        Depth ``L >= 1`` (default 1).
    seed : int, optional
        Seed of the :class:`random.Random` generator (default 0).
    residual : bool, optional
        Whether every layer adds its input back (default True).
    ffn_hidden : int, optional
        Hidden width of a random ReLU FFN after each layer; 0 (default) means no FFN.
    value_range : int, optional
        Values are integers in ``[-value_range, value_range]`` (default 3).

    Returns
    -------
    Transformer
        Keys with integer entries in ``[-4, 4]``, offsets in ``{-4, -7/2, ..., 4}``.

    Raises
    ------
    InvalidInputError
        ``layers`` or ``heads`` is not an integer ``>= 1``, or ``dim < 1`` or ``keys < 1``
        (rejected by :class:`Head`).

    Examples
    --------
    >>> m = random_model(2, 2, 3, layers=2, seed=1)
    >>> (m.dim, len(m.layers), [len(l.heads) for l in m.layers])
    (2, 2, [2, 2])
    """

    rng = random.Random(seed)

    def ints(n, lo, hi):
        return [Fraction(rng.randint(lo, hi)) for _ in range(n)]

    out = []
    for _ in range(positive_int(layers, "layers")):
        hs = [Head([ints(dim, -4, 4) for _ in range(keys)],
                   [Fraction(rng.randint(-8, 8), 2) for _ in range(keys)],
                   [ints(dim, -value_range, value_range) for _ in range(keys)])
              for _ in range(positive_int(heads, "heads"))]
        ffn = None
        if ffn_hidden:
            ffn = FFN([ints(dim, -2, 2) for _ in range(ffn_hidden)], ints(ffn_hidden, -2, 2),
                      [ints(ffn_hidden, -1, 1) for _ in range(dim)], ints(dim, -1, 1))
        out.append(Layer(hs, residual=residual, ffn=ffn))
    return Transformer(out)
