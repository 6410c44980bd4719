"""The dual count: regions of a layer's head overlay as upper vertices of a Minkowski sum.

>>> from tropattn.attention import Head
>>> grid = [Head([[0, 0], [1, 0], [2, 0]], [0, "-1/2", -2]), Head([[0, 0], [0, 1], [0, 2]], [0, "-1/2", -2])]
>>> count_dual(grid)                               # a 3 x 3 grid
9
"""

from __future__ import annotations

from ..errors import InvalidInputError
from ..geometry import upper_hull


__all__ = ["count_dual"]


def count_dual(heads) -> int:
    """Regions of the overlay of the heads' power diagrams, counted in the dual.

    The overlay's regions are the linear regions of ``G_1 ⊙ ... ⊙ G_H`` and correspond
    to the upper vertices of the Minkowski sum of the lifted polytopes
    ``conv{(a_j, b_j)}`` (docs/THEORY.md §3).  The sum is built one summand at a time, pruned to
    its upper vertices after each step (an upper vertex of ``P + Q`` is a sum of upper
    vertices of ``P`` and ``Q``), with :func:`tropattn.geometry.upper_hull` (certified);
    docs/ALGORITHMS.md §7.

    Parameters
    ----------
    heads : iterable of Head
        One layer's heads, all reading the same query dimension ``d`` (anything with
        ``dim``, ``keys`` and ``offsets`` of a :class:`~tropattn.attention.Head`).

    Returns
    -------
    int
        The number of regions of the overlay of the heads' power diagrams (only the
        score maps count; values play no role).

    Raises
    ------
    InvalidInputError
        ``heads`` is empty, or two heads read different query dimensions.

    Examples
    --------
    Two grid heads on different axes: ``3 x 3`` regions, while their Minkowski sum
    of lifted segments ``{(j, -j^2/2)}`` has ``3 * 3`` upper vertices:

    >>> from tropattn.attention import Head
    >>> grid = [Head([[0, 0], [1, 0], [2, 0]], [0, "-1/2", -2]), Head([[0, 0], [0, 1], [0, 2]], [0, "-1/2", -2])]
    >>> count_dual(grid)                               # a 3 x 3 grid
    9
    >>> count_dual(grid[:1] * 2)                       # one head twice: the same 3 cells
    3
    """

    heads = list(heads)
    if not heads:
        raise InvalidInputError("count_dual needs at least one head")
    d = heads[0].dim
    for i, h in enumerate(heads):
        if h.dim != d:
            raise InvalidInputError(f"heads[{i}] reads dimension {h.dim}; heads[0] reads {d}")
    current = None
    for h in heads:
        pts = [tuple(k) + (b,) for k, b in zip(h.keys, h.offsets)]
        verts = [pts[i] for i in upper_hull(pts).vertices]
        if current is None:
            current = verts
            continue
        sums = list(dict.fromkeys(tuple(u + v for u, v in zip(p, q)) for p in current for q in verts))
        current = [sums[i] for i in upper_hull(sums).vertices]
    return len(current)
