"""Region patterns by brute force over label tuples: an independent check for tests.

>>> from tropattn.attention import Head, Layer, Transformer
>>> model = Transformer([Layer([Head([[0], [1], [2]], [0, -5, 0])])])   # key 1 never wins
>>> brute_force_regions(model)
[(((0,), ()),), (((2,), ()),)]
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

from ..errors import TieError
from ..exact import format_point, interior_point
from ._affine import AffineMap
from ._results import box_rows
from ._steps import (AttentionStep, ReluStep, append_pattern, distinct_rivals, duplicate_before, model_steps,
                    wall_rows)


__all__ = ["brute_force_regions"]


def brute_force_regions(model, box=None) -> list:
    """All realisable full patterns, by trying every label tuple with an exact LP.

    Independent of the search: every comparison row (not only power-diagram facets),
    one certified LP per partial pattern, exponential in the number of heads and
    layers; for tests and benchmarks only.  Returns the sorted list of patterns.
    Ties follow each head's rule as :func:`~tropattn.regions.enumerate_regions` does:
    a whole-region tie raises :class:`~tropattn.errors.TieError` under ``"refuse"``
    and goes to the lowest index under ``"first"``.

    Parameters
    ----------
    model : Transformer
        The model (any number of layers, heads and FFNs; keep it tiny).
    box : (lo, hi), optional
        Restrict to this box (two numbers or two length-d sequences, as in :func:`~tropattn.regions.enumerate_regions`).

    Returns
    -------
    list of tuple
        The sorted activation patterns with a full-dimensional region.

    Raises
    ------
    TieError
        Two distinct keys of a head with ``ties="refuse"`` tie on a full-dimensional set.

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> model = Transformer([Layer([Head([[0], [1], [2]], [0, -5, 0])])])   # key 1 never wins
    >>> brute_force_regions(model)
    [(((0,), ()),), (((2,), ()),)]
    """
    d = model.dim
    A0, b0 = box_rows(box, d) if box is not None else ((), ())
    found = []

    def grow(s, pattern, A, b, f, steps):
        if s == len(steps):
            if interior_point(A, b).feasible if A else True:
                found.append(pattern)
            return
        step = steps[s]
        for labels in _all_labels(step):
            rA, rb, tied = _all_rows(step, labels, f)
            A2, b2 = list(A) + rA, list(b) + rb
            if A2 and not interior_point(A2, b2).feasible:
                continue
            if tied:
                raise _whole_region_tie(step, tied, interior_point(A2, b2).point if A2 else (Fraction(0),) * d)
            grow(s + 1, append_pattern(pattern, step, labels), A2, b2, step.output_map(labels, f), steps)

    grow(0, (), list(A0), list(b0), AffineMap.identity(d), model_steps(model))
    return sorted(found)


def _all_labels(step):
    if isinstance(step, AttentionStep):
        return product(*[range(len(h.keys)) for h in step.heads])
    return product((0, 1), repeat=len(step.ffn.W1))


def _all_rows(step, labels, f):
    """Every comparison row (not only cell facets), and the whole-region ties that
    ``ties="refuse"`` cannot label as ``(head, j, k)``: independent of the power diagrams."""
    if isinstance(step, ReluStep):
        return (*step.rows(labels, f)[:2], [])
    A, b, tied = [], [], []
    for h, (head, j) in enumerate(zip(step.heads, labels)):
        if duplicate_before(head, j):
            never = tuple(Fraction(0) for _ in f.M[0])                      # 0 . x <= -1: empty
            return [never], [Fraction(-1)], []
        ties = wall_rows(head, j, distinct_rivals(head, j), f, ("head", step.index, h), A, b, [])
        tied += [(h, j, k) for k in ties if head.ties == "refuse"]
    return A, b, tied


def _whole_region_tie(step, tied, point):
    h, j, k = tied[0]
    return TieError(f"head {h} of layer {step.index} ties keys {j} and {k} on a whole region around "
                    f"{format_point(point)} (their scores are the same function there); hard attention is "
                    "undefined on a full-dimensional set: use ties='first' (the lowest index wins) or break the tie",
                    (j, k))
