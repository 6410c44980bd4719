"""Upper and lower bounds on region counts, and the models that attain them.

Upper bounds (docs/THEORY.md §3-4), per layer with ``H`` heads of ``N`` keys in ``R^d``:

* one head is a power diagram: at most ``N`` regions;
* ``H`` heads overlay: at most ``prod_h N_h = N^H`` (the paper's ``O(N^H)``);
* the overlay lies in the arrangement of the ``H * C(N, 2)`` bisector hyperplanes, so at
  most ``sum_{i <= d} C(H C(N, 2), i)``, which is ``O(H^d N^{2d})``: for ``H > d`` the
  product ``N^H`` cannot be attained;
* on a line (``d = 1``) each head adds at most ``N - 1`` breakpoints: ``H (N - 1) + 1``.

Depth multiplies: each layer splits each region at most by its per-layer count, and a
ReLU FFN with ``m`` hidden units by at most ``sum_{i<=d} C(m, i)`` (Zaslavsky).

Lower bounds are constructions whose counts are exact: *grid heads* (head ``h`` reads
coordinate ``h``; ``N^{min(H, d)}`` regions) and the *sawtooth* model of docs/THEORY.md §4
(``d`` heads per layer, exactly ``N^{dL}`` regions).

>>> layer_bound(dim=2, heads=2, keys=3)        # 3^2 = 9 attainable (grid)
9
>>> layer_bound(dim=1, heads=3, keys=3)        # on a line: 3 * 2 + 1 = 7 < 27
7
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import comb, prod

from .attention.constructions import _positive
from .errors import InvalidInputError


__all__ = ["single_head_bound", "product_bound", "arrangement_bound", "line_bound", "layer_bound", "ffn_factor", "deep_bound", "Bounds", "bounds"]


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
