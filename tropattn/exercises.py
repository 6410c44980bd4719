"""Exercises with exact checkers: each says whether a student's answer is right, and why.

1. **A hidden key.**  Find three *different* keys ``a_0, a_1, a_2`` and offsets ``b_j`` for
   which key 1 never wins the argmax (its power cell is empty) while keys 0 and 2 do.
   Hint: key ``j`` wins somewhere iff ``(a_j, b_j)`` is a vertex of the upper hull of the
   lifted points (docs/THEORY.md §1-2).  Checker: :func:`check_hidden_head`.
2. **A model that attains the lower bound.**  Build a transformer of shape
   ``(d, H, N, L)`` (query dimension ``d``, ``L`` layers of ``H`` heads with ``N`` keys each)
   with at least ``N^{min(H, d) L}`` activation regions (docs/THEORY.md §4).
   Checker: :func:`check_lower_bound_model`.
3. **A heavy edge.**  Write a tropical polynomial in ``x, y`` whose curve has a wall of
   weight 2 (the lattice length of the dual edge).  Checker: :func:`check_weighted_edge`.

Every check is exact (certified cells, exact region enumeration); :data:`ANSWERS` holds
one correct answer for each.

>>> check_hidden_head([[0], [1], [2]], [0, -1, 0])
Verdict(correct=True, reason='right: key 1 is hidden: (a_1, b_1) = (1, -1) lies on or below the upper hull of the other lifted points, and keys (0, 2) have cells')
"""

from __future__ import annotations

from dataclasses import dataclass

from ._validate import choice
from .attention import Head, Transformer, sawtooth_model
from .errors import TropattnError
from .exact import format_point, format_rational
from .region_bounds import bounds
from .regions import count_regions
from .tropical import TropicalPolynomial, curve_edges, parse_polynomial

__all__ = ["Verdict", "check_hidden_head", "check_lower_bound_model", "check_weighted_edge", "ANSWERS"]


@dataclass(frozen=True)
class Verdict:
    """A checker's answer: ``correct`` and a one-line ``reason``; truthy iff correct."""

    correct: bool
    reason: str

    def __bool__(self) -> bool:
        return self.correct


def check_hidden_head(keys, offsets, head: int = 1) -> Verdict:
    """Exercise 1: three different keys, key ``head`` hidden, the other two with cells.

    Parameters
    ----------
    keys : (3, d) rationals
    offsets : (3,) rationals
    head : int
        The key that must be hidden (0-based; the default 1 is the second of three).

    Returns
    -------
    Verdict

    Raises
    ------
    InvalidInputError
        If ``head`` is not 0, 1 or 2 (a mistake in the question, not in the answer; a bad
        answer is a Verdict).

    Examples
    --------
    >>> check_hidden_head([[0], [1], [2]], [0, 1, 0]).reason
    'not yet: key 1 wins around x = (0,), where its score 1 beats the others'
    """
    try:
        h = Head(keys, offsets)
    except TropattnError as exc:
        return Verdict(False, f"not a head: {exc}")
    if h.N != 3:
        return Verdict(False, f"the exercise asks for 3 keys; you gave {h.N}")
    choice(head, "head", (0, 1, 2), meaning="the key that must be hidden, of three")
    same = [k for k in range(3) if k != head and h.keys[k] == h.keys[head]]
    if same:
        return Verdict(False, f"key {head} equals key {same[0]}: a repeated key is hidden trivially; "
                              "use three different keys")
    diagram = h.power_diagram()
    cells = diagram.cells()
    if cells[head] is not None:
        x = cells[head].interior_point
        return Verdict(False, f"not yet: key {head} wins around x = {format_point(x)}, where its score "
                              f"{format_rational(h.scores(x)[head])} beats the others")
    others = tuple(k for k in range(3) if k != head)    # both have cells: a hidden key is not an extreme one
    point = format_point(h.keys[head] + (h.offsets[head],))
    return Verdict(True, f"right: key {head} is hidden: (a_{head}, b_{head}) = {point} lies on or below the "
                         f"upper hull of the other lifted points, and keys {others} have cells")


def check_lower_bound_model(model, d: int, H: int, N: int, L: int) -> Verdict:
    """Exercise 2: a model of shape ``(d, H, N, L)`` with at least ``N^{min(H, d) L}`` regions.

    The regions are counted exactly over all of ``R^d`` (:func:`tropattn.regions.count_regions`);
    keep the shape small (with several layers the ``N^{dL}`` regions are found one by one).

    Parameters
    ----------
    model : Transformer
        The learner's answer.
    d, H, N, L : int
        The shape asked for: dimension, heads per layer, keys per head, layers.

    Returns
    -------
    Verdict
        ``correct`` and a one-line ``reason`` (what is wrong, or the count that makes it right).

    Examples
    --------
    >>> check_lower_bound_model(sawtooth_model(1, 3, 2), 1, 1, 3, 2).reason
    'right: 9 activation regions >= N^(min(H, d) L) = 3^2 = 9'
    >>> from tropattn.attention import grid_model
    >>> check_lower_bound_model(grid_model(1, 1, 3), 1, 1, 3, 2).correct       # one layer, not two
    False
    """
    if not isinstance(model, Transformer):
        return Verdict(False, f"expected a Transformer, got {type(model).__name__}")
    if model.dim != d:
        return Verdict(False, f"the model reads R^{model.dim}; the exercise asks for d = {d}")
    if len(model.layers) != L:
        return Verdict(False, f"the model has {len(model.layers)} layers; the exercise asks for L = {L}")
    for i, layer in enumerate(model.layers):
        if len(layer.heads) != H:
            return Verdict(False, f"layer {i} has {len(layer.heads)} heads; the exercise asks for H = {H}")
        bad = [h.N for h in layer.heads if h.N != N]
        if bad:
            return Verdict(False, f"layer {i} has a head with {bad[0]} keys; the exercise asks for N = {N}")
    target = bounds(d, H, N, L).lower
    count = count_regions(model, progress=False).n_activation
    exponent = min(H, d) * L
    if count < target:
        return Verdict(False, f"not yet: {count} activation regions < N^(min(H, d) L) = {N}^{exponent} = {target}")
    return Verdict(True, f"right: {count} activation regions >= N^(min(H, d) L) = {N}^{exponent} = {target}")


def check_weighted_edge(poly, weight: int = 2) -> Verdict:
    """Exercise 3: a plane tropical curve with a wall of the given weight.

    Parameters
    ----------
    poly : str or TropicalPolynomial
        The learner's answer, e.g. ``"max(0, 2*x, y)"``.
    weight : int, optional
        The wall weight asked for (default 2).

    Returns
    -------
    Verdict
        ``correct`` and a one-line ``reason``; an unreadable polynomial is a wrong answer, not an error.

    Examples
    --------
    >>> check_weighted_edge("max(0, x, y)").reason
    'not yet: every wall has weight 1; a wall dual to an edge with k + 1 lattice points has weight k'
    """
    try:
        f = parse_polynomial(poly) if isinstance(poly, str) else poly
    except TropattnError as exc:
        return Verdict(False, f"cannot read the polynomial: {exc}")
    if not isinstance(f, TropicalPolynomial) or f.dim != 2:
        return Verdict(False, "the exercise asks for a tropical polynomial in two variables x, y")
    edges = curve_edges(f)
    hits = [e for e in edges if e.weight == weight]
    if not hits:
        seen = sorted({e.weight for e in edges})
        return Verdict(False, f"not yet: every wall has weight {', '.join(format_rational(w) for w in seen)}; "
                              "a wall dual to an edge with k + 1 lattice points has weight k")
    j, k = hits[0].ends
    return Verdict(True, f"right: the wall between the regions of terms {j} and {k} (through "
                         f"{format_point(hits[0].cell.point)}) has weight {weight}")


#: One correct answer per exercise (arguments for the checker).
ANSWERS = {
    "hidden_head": {"keys": [[0], [1], [2]], "offsets": [0, -1, 0]},
    "lower_bound_model": {"model": sawtooth_model(2, 2, 2), "d": 2, "H": 2, "N": 2, "L": 2},
    "weighted_edge": {"poly": "max(0, 2*x, y)"},
}
