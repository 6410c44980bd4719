"""Which region a point is in: :func:`label`, the exact argmax labels of points.

One labeller for every consumer: a head's winning key at each point (``-1`` on a wall),
or a model's activation pattern (``None`` on a wall), decided exactly for any input
numbers -- floats are rationals, so ``s_j(x) > s_k(x)`` always has an exact answer
(:func:`tropattn.exact.dot_signs`: a float filter with an integer fallback).  The
conventions are those of the region search: keys equal in key and offset are one key
(the earlier index wins), a head with ``ties="first"`` gives every tie to the lowest index.

>>> from tropattn.attention import Head
>>> label(Head([[0], [1], [2]], [0, 0, -1]), [[-1], [0.5], [3], [0]]).tolist()   # x = 0: keys 0, 1 tie
[0, 1, 2, -1]
"""

from __future__ import annotations

import numpy as np

from ..attention import Head, Layer, Transformer
from ..errors import InvalidInputError, TieError
from ..exact import dot_signs, homogeneous_point, integer_row, to_rational_matrix

__all__ = ["label"]


def label(model_or_head, points):
    """Exact argmax labels of ``points``: a head's key, or a model's activation pattern.

    Parameters
    ----------
    model_or_head : Head, Layer or Transformer
        What labels the points.
    points : array_like, shape (n, d) or (d,)
        Query points (floats, ints, Fractions or ``"p/q"`` strings; converted exactly);
        a single point may be given as a vector.

    Returns
    -------
    numpy.ndarray of intp, shape (n,)
        For a Head: the winning key of each point, ``-1`` where distinct keys tie for the
        best score (under ``ties="refuse"``).
    tuple
        For a Transformer: each point's activation pattern (one ``(head labels, relu bits)``
        per layer, as :attr:`ActivationRegion.pattern`), or None where a head is on a wall;
        for a Layer: each point's ``(head labels, relu bits)``, or None.

    Raises
    ------
    InvalidInputError
        Points of the wrong dimension or not finite numbers, or an object that is not a Head,
        Layer or Transformer.

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> head = Head([[1], [-1]])                                 # |x|: key 0 right of 0, key 1 left
    >>> label(head, [[2], [-1e-300], [0]]).tolist()              # -1e-300 is a nonzero rational
    [0, 1, -1]
    >>> label(Transformer([Layer([head])]), [[2], [0]])
    ((((0,), ()),), None)
    """
    if isinstance(model_or_head, Head):
        return _head_labels(model_or_head, _points(points, model_or_head.dim))
    if isinstance(model_or_head, Layer):
        model, unwrap = Transformer([model_or_head]), True
    elif isinstance(model_or_head, Transformer):
        model, unwrap = model_or_head, False
    else:
        raise InvalidInputError(f"label takes a Head, a Layer or a Transformer; got {type(model_or_head).__name__}")
    out = []
    for x in _points(points, model.dim):
        try:
            pattern = model.evaluate(x)[1]
        except TieError:
            pattern = None
        out.append(pattern[0] if unwrap and pattern is not None else pattern)
    return tuple(out)


def _points(points, d):
    try:
        one = np.ndim(points) == 1
    except ValueError:   # ragged: let the conversion name the problem
        one = False
    return to_rational_matrix([points] if one else points, "points", cols=d)


def _head_labels(head, P) -> np.ndarray:
    n, N = len(P), head.N
    if N == 1 or n == 0:
        return np.zeros(n, dtype=np.intp)
    pairs = [(j, k) for j in range(N) for k in range(j + 1, N)]
    rows = [integer_row([a - c for a, c in zip(head.keys[j], head.keys[k])] + [head.offsets[j] - head.offsets[k]])
            for j, k in pairs]
    cols = [X + (D,) for X, D in map(homogeneous_point, P)]
    signs = dot_signs(rows, cols)                      # sign(s_j - s_k) at every point
    beaten = np.zeros((N, n), dtype=bool)
    for (j, k), s in zip(pairs, signs):
        beaten[j] |= s < 0
        beaten[k] |= s > 0
    winners = ~beaten
    first = winners.argmax(axis=0)
    if head.ties == "first":
        return first.astype(np.intp)
    group = np.array([next(i for i in range(N) if (head.keys[i], head.offsets[i]) == (head.keys[j], head.offsets[j]))
                      for j in range(N)])
    distinct = (winners & (group[:, None] != group[first][None, :])).any(axis=0)
    return np.where(distinct, -1, first).astype(np.intp)
