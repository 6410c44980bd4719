"""Upper and lower bounds on region counts, and the models that attain them.

Upper bounds (THEORY §3-4), per layer with ``H`` heads of ``N`` keys in ``R^d``:

* one head is a power diagram: at most ``N`` regions;
* ``H`` heads overlay: at most ``prod_h N_h = N^H`` (the paper's ``O(N^H)``);
* the overlay lies in the arrangement of the ``H * C(N, 2)`` bisector hyperplanes, so at
  most ``sum_{i <= d} C(H C(N, 2), i)``, which is ``O(H^d N^{2d})``: for ``H > d`` the
  product ``N^H`` cannot be attained;
* on a line (``d = 1``) each head adds at most ``N - 1`` breakpoints: ``H (N - 1) + 1``.

Depth multiplies: each layer splits each region at most by its per-layer count, and a
ReLU FFN with ``m`` hidden units by at most ``sum_{i<=d} C(m, i)`` (Zaslavsky).

Lower bounds are constructions whose counts are exact: *grid heads* (head ``h`` reads
coordinate ``h``; ``N^{min(H, d)}`` regions) and the *sawtooth* model of THEORY §4
(``d`` heads per layer, exactly ``N^{dL}`` regions).

>>> layer_bound(dim=2, heads=2, keys=3)        # 3^2 = 9 attainable (grid)
9
>>> layer_bound(dim=1, heads=3, keys=3)        # on a line: 3 * 2 + 1 = 7 < 27
7
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from math import comb, prod

from .errors import InvalidInputError

__all__ = [
    "single_head_bound",
    "product_bound",
    "arrangement_bound",
    "line_bound",
    "layer_bound",
    "ffn_factor",
    "deep_bound",
    "Bounds",
    "bounds",
    "grid_heads",
    "grid_model",
    "grid_count",
    "sawtooth_model",
    "sawtooth_count",
    "random_model",
]


def _positive(name, value, minimum=1):
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        raise InvalidInputError(f"{name} must be an integer >= {minimum}; got {value!r}")
    return value


def single_head_bound(keys: int) -> int:
    """A single head with ``N`` keys: its power diagram has at most ``N`` cells.

    >>> single_head_bound(5)
    5
    """
    return _positive("keys", keys)


def product_bound(keys_per_head) -> int:
    """The product bound ``prod_h N_h`` (``N^H`` for equal heads).

    >>> product_bound([3, 3, 2])
    18
    """
    return prod(_positive("keys", n) for n in keys_per_head)


def arrangement_bound(dim: int, heads: int, keys: int) -> int:
    """Regions of ``H C(N, 2)`` hyperplanes in general position in ``R^d``.

    >>> arrangement_bound(2, 3, 2)                 # 3 lines in the plane
    7
    """
    _positive("dim", dim)
    n = _positive("heads", heads) * comb(_positive("keys", keys), 2)
    return sum(comb(n, i) for i in range(dim + 1))


def line_bound(heads: int, keys: int) -> int:
    """On a line each head contributes at most ``N - 1`` breakpoints.

    >>> line_bound(4, 3)
    9
    """
    return _positive("heads", heads) * (_positive("keys", keys) - 1) + 1


def layer_bound(dim: int, heads: int, keys: int) -> int:
    """The smallest of the valid per-layer upper bounds.

    >>> layer_bound(2, 4, 2)                        # 4 lines in the plane: 11 < 2^4
    11
    """
    candidates = [product_bound([keys] * heads), arrangement_bound(dim, heads, keys)]
    if dim == 1:
        candidates.append(line_bound(heads, keys))
    return min(candidates)


def ffn_factor(dim: int, hidden: int) -> int:
    """How many pieces a ReLU layer with ``m`` units can cut one region into.

    >>> ffn_factor(2, 3)
    7
    """
    _positive("dim", dim)
    return sum(comb(_positive("hidden", hidden, 0), i) for i in range(dim + 1))


def deep_bound(dim: int, heads: int, keys: int, layers: int, ffn_hidden: int = 0) -> int:
    """``(per-layer bound x FFN factor)^L``.

    >>> deep_bound(2, 2, 3, 2)
    81
    """
    per = layer_bound(dim, heads, keys) * (ffn_factor(dim, ffn_hidden) if ffn_hidden else 1)
    return per ** _positive("layers", layers)


@dataclass(frozen=True)
class Bounds:
    """All bounds for one shape ``(d, H, N, L)`` and the attainable lower bound."""

    dim: int
    heads: int
    keys: int
    layers: int
    single_head: int
    product: int
    arrangement: int
    line: int | None
    per_layer: int
    deep_product: int
    deep: int
    lower: int
    product_attainable: bool

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def bounds(dim: int, heads: int, keys: int, layers: int = 1) -> Bounds:
    """Every bound of this module for one shape.

    ``lower`` is the count of an explicit construction (grid heads, or the sawtooth
    model when ``H >= d``): ``N^{min(H, d) L}``.  ``product_attainable`` says whether
    ``N^H`` per layer can be reached at all (``H <= d``).

    >>> b = bounds(1, 3, 4)
    >>> b.product, b.per_layer, b.product_attainable
    (64, 10, False)
    """
    _positive("layers", layers)
    _positive("dim", dim), _positive("heads", heads), _positive("keys", keys)
    digits = heads * layers * math.log10(max(keys, 2)) + dim * math.log10(max(heads * keys * keys, 2))
    if digits > 1e6:
        raise InvalidInputError(f"the bounds for d={dim}, H={heads}, N={keys}, L={layers} have about {digits:.3g} "
                                "digits; exact integers that large are not useful (use logarithms)")
    per = layer_bound(dim, heads, keys)
    return Bounds(dim, heads, keys, layers, single_head_bound(keys), product_bound([keys] * heads),
                  arrangement_bound(dim, heads, keys), line_bound(heads, keys) if dim == 1 else None,
                  per, product_bound([keys] * heads) ** layers, per ** layers,
                  keys ** (min(heads, dim) * layers), heads <= dim or keys == 1)


# ------------------------------------------------------------------ constructions
def grid_heads(dim: int, heads: int, keys: int, scale=1, offset_scale=1):
    """Heads ``h < min(H, d)`` that read coordinate ``h``: keys ``j e_h``, offsets ``-j^2/2``.

    Head h's walls are ``x_h = j - 1/2``: together an ``N x ... x N`` grid.  Extra heads
    (``H > d``) reuse coordinates with shifted offsets, adding walls in the same
    directions (still far from ``N^H``).

    >>> [h.offsets for h in grid_heads(1, 1, 3)]
    [(Fraction(0, 1), Fraction(-1, 2), Fraction(-2, 1))]
    """
    from .attention import Head

    _positive("dim", dim), _positive("heads", heads), _positive("keys", keys)
    out = []
    for h in range(heads):
        axis = h % dim
        shift = Fraction(h // dim, heads + 1)  # extra heads on a used axis: shifted walls
        keys_h = [[Fraction(j * scale) if i == axis else Fraction(0) for i in range(dim)] for j in range(keys)]
        offs = [-Fraction(j * j, 2) * scale - j * shift * scale for j in range(keys)]
        vals = [[Fraction(j) if i == axis else Fraction(0) for i in range(dim)] for j in range(keys)]
        out.append(Head(keys_h, offs, vals))
    return out


def grid_model(dim: int, heads: int, keys: int):
    """One layer of grid heads, residual on: ``N^H`` regions when ``H <= d``.

    >>> from tropattn.regions import enumerate_regions
    >>> len(enumerate_regions(grid_model(2, 2, 3)).activation_regions)     # a 3 x 3 grid
    9
    """
    from .attention import Layer, Transformer

    return Transformer([Layer(grid_heads(dim, heads, keys), residual=True)])


def grid_count(dim: int, heads: int, keys: int) -> int:
    """The exact region count of :func:`grid_heads` when ``H <= d``: ``N^H``.

    >>> grid_count(3, 2, 4)
    16
    """
    if heads > dim:
        raise InvalidInputError(f"grid heads attain N^H only for H <= d; got H={heads} > d={dim}")
    return keys ** heads


def sawtooth_model(dim: int, keys: int, layers: int, heads: int | None = None):
    """The depth construction of THEORY §4: exactly ``N^{min(H, d) L}`` regions.

    Layer ``l = 1..L`` has ``H`` heads (default ``H = d``).  Head ``h < min(H, d)`` has
    keys ``N^l j e_h``, offsets ``-j (j + 1) / 2`` and values ``-(j / N^l) e_h`` for
    ``j = 0..N-1``, residual on: on ``[0, 1)`` coordinate ``h`` is routed by
    ``floor(N^l x_h)`` and folded back, so it is cut into ``N^L`` intervals.  Heads
    ``h >= d`` are *silent*: all their keys coincide, so the first always wins and they
    add no wall.  With ``H = d`` this attains the paper's ``Θ(N^{dL})``.

    >>> m = sawtooth_model(1, 2, 2)
    >>> [h.keys for h in m.layers[1].heads]
    [((Fraction(0, 1),), (Fraction(4, 1),))]
    >>> len(sawtooth_model(2, 3, 1, heads=3).layers[0].heads)
    3
    """
    from .attention import Head, Layer, Transformer

    _positive("dim", dim), _positive("keys", keys), _positive("layers", layers)
    heads = dim if heads is None else _positive("heads", heads)
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

    >>> sawtooth_count(2, 3, 2)
    81
    """
    heads = dim if heads is None else heads
    return keys ** (min(heads, dim) * layers)


def random_model(dim: int, heads: int, keys: int, layers: int = 1, seed: int = 0, *,
                 residual: bool = True, ffn_hidden: int = 0, value_range: int = 3):
    """A random model with small integer keys, half-integer offsets and integer values.

    Deterministic for a seed.  Small integers keep the exact arithmetic fast while
    still giving generic configurations most of the time.

    >>> m = random_model(2, 2, 3, layers=2, seed=1)
    >>> (m.dim, len(m.layers), [len(l.heads) for l in m.layers])
    (2, 2, [2, 2])
    """
    from .attention import FFN, Head, Layer, Transformer

    rng = random.Random(seed)

    def ints(n, lo, hi):
        return [Fraction(rng.randint(lo, hi)) for _ in range(n)]

    out = []
    for _ in range(_positive("layers", layers)):
        hs = [Head([ints(dim, -4, 4) for _ in range(keys)],
                   [Fraction(rng.randint(-8, 8), 2) for _ in range(keys)],
                   [ints(dim, -value_range, value_range) for _ in range(keys)])
              for _ in range(_positive("heads", heads))]
        ffn = None
        if ffn_hidden:
            ffn = FFN([ints(dim, -2, 2) for _ in range(ffn_hidden)], ints(ffn_hidden, -2, 2),
                      [ints(ffn_hidden, -1, 1) for _ in range(dim)], ints(dim, -1, 1))
        out.append(Layer(hs, residual=residual, ffn=ffn))
    return Transformer(out)
