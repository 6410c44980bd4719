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

For ``H > d`` the product ``N^H`` stays a valid upper bound for every ``N``, but its
*order* is not attainable: as ``N`` grows with ``d`` and ``H`` fixed, the largest
per-layer count is ``Theta(N^{min(H, d)})`` (the upper vertices of a Minkowski sum of
``H`` polytopes in ``R^{d+1}``), and the grid construction attains the lower figure
``N^{min(H, d)}``.  :class:`Bounds` therefore reports the per-layer upper bound, the
attainable order and the construction separately, never one number as both.

>>> layer_bound(dim=2, heads=2, keys=3)        # 3^2 = 9 attainable (grid)
9
>>> layer_bound(dim=1, heads=3, keys=3)        # on a line: 3 * 2 + 1 = 7 < 27
7
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import comb, prod

from ._display import html_fields
from ._validate import positive_int
from .errors import InvalidInputError


__all__ = ["single_head_bound", "product_bound", "arrangement_bound", "line_bound", "layer_bound", "ffn_factor", "deep_bound", "Bounds", "bounds"]


def single_head_bound(keys: int) -> int:
    """A single head with ``N`` keys: its power diagram has at most ``N`` cells.

    Parameters
    ----------
    keys : int
        The number of keys ``N >= 1``.

    Returns
    -------
    int
        ``N``.

    Raises
    ------
    InvalidInputError
        When ``keys`` is not an integer >= 1.

    Examples
    --------
    >>> single_head_bound(5)
    5
    """
    return positive_int(keys, "keys")


def product_bound(keys_per_head) -> int:
    """The product bound ``prod_h N_h`` (``N^H`` for equal heads).

    Overlaying the power diagrams of the heads refines each into at most the product
    of their cell counts.

    Parameters
    ----------
    keys_per_head : iterable of int
        The number of keys ``N_h >= 1`` of each head.

    Returns
    -------
    int
        ``prod_h N_h`` (1 for no heads).

    Raises
    ------
    InvalidInputError
        When a key count is not an integer >= 1.

    Examples
    --------
    >>> product_bound([3, 3, 2])
    18
    """
    return prod(positive_int(n, "keys") for n in keys_per_head)


def arrangement_bound(dim: int, heads: int, keys: int) -> int:
    """Regions of ``H C(N, 2)`` hyperplanes in general position in ``R^d``.

    Every wall of the overlay lies on a bisector of two keys of one head, so the
    overlay is refined by that arrangement: at most ``sum_{i <= d} C(H C(N, 2), i)``
    regions (docs/THEORY.md §3).

    Parameters
    ----------
    dim : int
        The input dimension ``d >= 1``.
    heads : int
        The number of heads ``H >= 1``.
    keys : int
        Keys per head ``N >= 1``.

    Returns
    -------
    int
        ``sum_{i=0}^{d} C(H C(N, 2), i)``.

    Raises
    ------
    InvalidInputError
        When an argument is not an integer >= 1.

    Examples
    --------
    >>> arrangement_bound(2, 3, 2)                 # 3 lines in the plane
    7
    """
    positive_int(dim, "dim")
    n = positive_int(heads, "heads") * comb(positive_int(keys, "keys"), 2)
    return sum(comb(n, i) for i in range(dim + 1))


def line_bound(heads: int, keys: int) -> int:
    """On a line each head contributes at most ``N - 1`` breakpoints.

    Parameters
    ----------
    heads : int
        The number of heads ``H >= 1``.
    keys : int
        Keys per head ``N >= 1``.

    Returns
    -------
    int
        ``H (N - 1) + 1``: the intervals cut by all breakpoints.

    Raises
    ------
    InvalidInputError
        When an argument is not an integer >= 1.

    Examples
    --------
    >>> line_bound(4, 3)
    9
    """
    return positive_int(heads, "heads") * (positive_int(keys, "keys") - 1) + 1


def layer_bound(dim: int, heads: int, keys: int) -> int:
    """The smallest of the valid per-layer upper bounds.

    The minimum of :func:`product_bound`, :func:`arrangement_bound` and, on a line,
    :func:`line_bound`.

    Parameters
    ----------
    dim : int
        The input dimension ``d >= 1``.
    heads : int
        The number of heads ``H >= 1``.
    keys : int
        Keys per head ``N >= 1``.

    Returns
    -------
    int
        An upper bound on the regions of one attention layer.

    Raises
    ------
    InvalidInputError
        When an argument is not an integer >= 1.

    Examples
    --------
    >>> layer_bound(2, 4, 2)                        # 4 lines in the plane: 11 < 2^4
    11
    >>> layer_bound(2, 2, 3)                        # 3^2 = 9 < 22 (arrangement)
    9
    """
    candidates = [arrangement_bound(dim, heads, keys), product_bound([keys] * heads)]  # checks the arguments first
    if dim == 1:
        candidates.append(line_bound(heads, keys))
    return min(candidates)


def ffn_factor(dim: int, hidden: int) -> int:
    """How many pieces a ReLU layer with ``m`` units can cut one region into.

    The ``m`` hyperplanes where the units switch form an arrangement in ``R^d``
    with at most ``sum_{i<=d} C(m, i)`` regions (Zaslavsky).

    Parameters
    ----------
    dim : int
        The input dimension ``d >= 1``.
    hidden : int
        The number of hidden units ``m >= 0``.

    Returns
    -------
    int
        ``sum_{i=0}^{d} C(m, i)`` (1 for ``m = 0``).

    Raises
    ------
    InvalidInputError
        When ``dim`` is not an integer >= 1 or ``hidden`` not an integer >= 0.

    Examples
    --------
    >>> ffn_factor(2, 3)
    7
    """
    positive_int(dim, "dim")
    return sum(comb(positive_int(hidden, "hidden", 0), i) for i in range(dim + 1))


def deep_bound(dim: int, heads: int, keys: int, layers: int, ffn_hidden: int = 0) -> int:
    """``(per-layer bound x FFN factor)^L``.

    Each layer splits every region of the layers before it at most by its own
    per-layer count, so the bounds multiply.

    Parameters
    ----------
    dim : int
        The input dimension ``d >= 1``.
    heads : int
        Heads per layer ``H >= 1``.
    keys : int
        Keys per head ``N >= 1``.
    layers : int
        The number of layers ``L >= 1``.
    ffn_hidden : int, optional
        Hidden ReLU units of each layer's FFN (0: no FFN).

    Returns
    -------
    int
        ``(layer_bound(d, H, N) * ffn_factor(d, m))^L``.

    Raises
    ------
    InvalidInputError
        When an argument is not a positive integer (``ffn_hidden`` may be 0).

    Examples
    --------
    >>> deep_bound(2, 2, 3, 2)
    81
    >>> deep_bound(1, 1, 2, 1, ffn_hidden=2)          # 2 cells, each cut into <= 3
    6
    """
    per = layer_bound(dim, heads, keys) * (ffn_factor(dim, ffn_hidden) if ffn_hidden else 1)
    return per ** positive_int(layers, "layers")


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
    order_exponent: int = 0
    construction: str = ""

    def as_dict(self) -> dict:
        """Every field, JSON-ready.

        Returns
        -------
        dict
            Field name -> value (ints, bools, str and None only).

        Examples
        --------
        >>> d = bounds(2, 2, 3).as_dict()
        >>> d["per_layer"], d["lower"], d["construction"]
        (9, 9, 'grid')
        """
        return dict(self.__dict__)

    def _repr_html_(self) -> str:
        """Jupyter's summary: one row per field of :meth:`as_dict`.

        >>> bounds(2, 2, 3)._repr_html_().count("<tr>")     # the header and 15 fields
        16
        """
        return html_fields(self.as_dict().items(), caption=f"bounds for d={self.dim}, H={self.heads}, "
                           f"N={self.keys}, L={self.layers}")


def bounds(dim: int, heads: int, keys: int, layers: int = 1) -> Bounds:
    """Every bound of this module for one shape.

    ``lower`` is the count of an explicit construction (``construction``: grid heads
    for one layer, the sawtooth model otherwise): ``N^{min(H, d) L}``.
    ``product_attainable`` says whether the order ``N^H`` per layer is attainable
    (``H <= d``); the attainable order is ``N^order_exponent`` with
    ``order_exponent = min(H, d)``.

    Parameters
    ----------
    dim : int
        The input dimension ``d >= 1``.
    heads : int
        Heads per layer ``H >= 1``.
    keys : int
        Keys per head ``N >= 1``.
    layers : int, optional
        The number of layers ``L >= 1``.

    Returns
    -------
    Bounds
        The single-head, product, arrangement, line (``d = 1`` only), per-layer and
        deep upper bounds, the constructive lower bound and the attainability flags.

    Raises
    ------
    InvalidInputError
        When an argument is not an integer >= 1, or the bounds would have more than
        about a million digits.

    Examples
    --------
    >>> b = bounds(1, 3, 4)
    >>> b.product, b.per_layer, b.product_attainable, b.order_exponent, b.lower
    (64, 10, False, 1, 4)
    """
    positive_int(layers, "layers")
    positive_int(dim, "dim"), positive_int(heads, "heads"), positive_int(keys, "keys")
    digits = heads * layers * math.log10(max(keys, 2)) + dim * math.log10(max(heads * keys * keys, 2))
    if digits > 1e6:
        raise InvalidInputError(f"the bounds for d={dim}, H={heads}, N={keys}, L={layers} have about {digits:.3g} "
                                "digits; exact integers that large are not useful (use logarithms)")
    per = layer_bound(dim, heads, keys)
    return Bounds(dim, heads, keys, layers, single_head_bound(keys), product_bound([keys] * heads),
                  arrangement_bound(dim, heads, keys), line_bound(heads, keys) if dim == 1 else None,
                  per, product_bound([keys] * heads) ** layers, per ** layers,
                  keys ** (min(heads, dim) * layers), heads <= dim or keys == 1, min(heads, dim),
                  "grid" if layers == 1 and heads <= dim else "sawtooth")
