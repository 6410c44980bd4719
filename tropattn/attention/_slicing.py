"""Slices of the query space: the skeleton on ``x = x0 + U t``, ``t in Q^k``, as a k-dimensional model.

A real model has ``d = 64 ... 768`` query coordinates, far too many to enumerate regions
over all of ``R^d``.  On an affine slice ``x = x0 + U t`` (``U`` of shape ``(d, k)``, rank
``k``) every score of the first layer stays affine in ``t``:

    a_j . (x0 + U t) + b_j = (U^T a_j) . t + (a_j . x0 + b_j),

so the first layer becomes a layer of ``k``-dimensional heads with keys ``U^T a_j`` and
offsets ``b_j + a_j . x0``; its residual ``x`` becomes the skip matrix ``U`` and the
constant ``x0`` is added to the values of head 0 (each head picks exactly one value, so
this is exact).  The later layers read the ``d``-dimensional state unchanged.  The
result is an ordinary :class:`~tropattn.attention.Transformer` in ``t``: its exact
regions, counts, power cells and pictures are those of the model restricted to the slice.

>>> from tropattn.attention import Head, Layer, Transformer
>>> T = Transformer([Layer([Head([[1, 0], [0, 1]], [0, 0], [[0, 0], [0, 0]])])])
>>> S = slice_model(T, [0, 1], [[1, 0]])          # the line x = (t, 1): key 0 wins iff t > 1
>>> S.dim, S.evaluate([2])[1][0][0], S.evaluate([0])[1][0][0]
(1, (0,), (1,))
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from ..errors import InvalidInputError
from ..exact import int_limbs, int_matmul, integer_matrix, rank, to_rational_matrix, to_rational_vector
from ._domain import QQ
from ._head import Head
from ._layer import Layer, Transformer

__all__ = ["slice_model", "precompose_head", "precompose_layer", "slice_through", "token_points"]


def _transpose(M):
    return tuple(zip(*M))


def _matmul(A, B):
    Bt = _transpose(B)
    return tuple(tuple(sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in Bt) for row in A)


def precompose_head(head: Head, M, c) -> Head:
    """The head reading ``M x + c``: keys ``M^T a_j``, offsets ``b_j + a_j . c``, same values.

    Parameters
    ----------
    head : Head
        The head, reading ``x`` in ``Q^d``.
    M : (d, k) rationals
        The linear part of the substitution ``x = M t + c``.
    c : (d,) rationals
        The offset of the substitution.

    Returns
    -------
    Head
        A head on ``Q^k`` with the same scores at ``t`` as ``head`` at ``M t + c``.

    Raises
    ------
    InvalidInputError
        If ``M`` does not have ``d`` rows or ``c`` not ``d`` entries.

    Examples
    --------
    >>> h = precompose_head(Head([[1, 2]], [5]), [[1], [1]], [0, 1])   # x = (t, t + 1)
    >>> h.keys, h.offsets                                                # t + 2(t + 1) + 5
    (((Fraction(3, 1),),), (Fraction(7, 1),))
    """
    M = to_rational_matrix(M, "M", rows=head.dim)
    c = to_rational_vector(c, "c", head.dim)
    if head.domain is QQ and head.dim >= _INTEGER_DIM:
        keys, offsets = _keys_through_integers(head.keys, head.offsets, M, c)
    else:
        Mt = _transpose(M)
        keys = tuple(QQ.matvec(Mt, a) for a in head.keys)
        offsets = tuple(b + sum((ai * ci for ai, ci in zip(a, c)), Fraction(0))
                        for a, b in zip(head.keys, head.offsets))
    return Head(keys, offsets, head.values, score_scale=head.score_scale)


#: Heads reading at least this many coordinates are precomposed by one integer product.
_INTEGER_DIM = 32


def _keys_through_integers(keys, offsets, M, c):
    """``(M^T a_j, b_j + a_j . c)`` for every key ``a_j`` (Fractions): ``[a_j] = A / s`` and
    ``[M | c] = B / t`` as integers, one exact product ``A B`` on float64 limbs, and a
    Fraction per output entry only (a checkpoint's head reads d_model coordinates: no
    Fraction arithmetic per multiply-add).

    >>> _keys_through_integers([[Fraction(1, 2), 3]], [1], [[1], [Fraction(1, 3)]], [0, 2])
    (((Fraction(3, 2),),), (Fraction(7, 1),))
    """
    A, s = integer_matrix(keys)
    B, t = integer_matrix([list(row) + [ci] for row, ci in zip(M, c)])
    P = int_matmul(int_limbs(A), B)
    den = s * t
    pulled = tuple(tuple(Fraction(int(v), den) for v in row[:-1]) for row in P)
    return pulled, tuple(b + Fraction(int(row[-1]), den) for b, row in zip(offsets, P))


def precompose_layer(layer: Layer, M, c) -> Layer:
    """The layer ``x -> layer(M x + c)`` in score form, exactly.

    Keys ``M^T a_j``, offsets ``b_j + a_j . c``; the projection is folded into the values,
    the skip term becomes the matrix ``R M`` (``R`` = identity for ``residual=True``) and
    ``R c`` is added to every value of head 0.  The FFN is unchanged.

    Parameters
    ----------
    layer : Layer
    M : (d, k) rationals
    c : (d,) rationals

    Returns
    -------
    Layer
        Reading ``k`` coordinates.

    >>> from tropattn.attention import Head
    >>> L = Layer([Head([[2]], [0], [[5]])])                  # x -> x + 5
    >>> precompose_layer(L, [[3]], [1]).apply([1], (0,))[0]   # (3 * 1 + 1) + 5
    (Fraction(9, 1),)
    """
    d = layer.dim
    M = to_rational_matrix(M, "M", rows=d)
    c = to_rational_vector(c, "c", d)
    R = layer.residual
    skip = None if R is False else (c if R is True else QQ.matvec(R, c))
    heads = []
    for i, h in enumerate(layer.heads):
        values = h.values
        if layer.projection is not None:
            values = tuple(QQ.matvec(layer.projection, v) for v in values)
        if i == 0 and skip is not None:
            values = tuple(tuple(v + s for v, s in zip(val, skip)) for val in values)
        heads.append(precompose_head(Head(h.keys, h.offsets, values, score_scale=h.score_scale), M, c))
    if R is False:
        residual = False
    else:
        residual = M if R is True else _matmul(R, M)
    return Layer(heads, residual=residual, projection=None, ffn=layer.ffn)


def slice_model(model: Transformer, x0, directions) -> Transformer:
    """The model on the affine slice ``x = x0 + t_1 u_1 + ... + t_k u_k``, as a model in ``t``.

    Parameters
    ----------
    model : Transformer
        Query dimension ``d``.
    x0 : (d,) rationals
        The origin of the slice (``t = 0``).
    directions : (k, d) rationals
        The directions ``u_1, ..., u_k`` (rows), linearly independent (checked exactly).

    Returns
    -------
    Transformer
        Of dimension ``k``: ``slice_model(T, x0, U).evaluate(t) == T.evaluate(x0 + U t)``,
        and its regions are the regions of ``T`` cut by the slice.

    Raises
    ------
    InvalidInputError
        ``x0`` or a direction of the wrong length, no direction, or dependent directions.

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> grid = Transformer([Layer([Head([[0, 0], [1, 0]], [0, "-1/2"]), Head([[0, 0], [0, 1]], [0, "-1/2"])])])
    >>> diag = slice_model(grid, [0, 0], [[1, 1]])     # the diagonal crosses both walls at t = 1/2
    >>> diag.evaluate([1])[1], diag.evaluate([0])[1]
    ((((1, 1), ()),), (((0, 0), ()),))
    """
    d = model.dim
    x0 = to_rational_vector(x0, "x0", d)
    if directions is None or len(directions) == 0:
        raise InvalidInputError("no slice direction given; pass directions of shape (k, d) with k >= 1, "
                                "e.g. [[1, 0, ...]] for a line")
    rows = []
    for i, u in enumerate(directions):
        rows.append(to_rational_vector(u, f"directions[{i}]"))
        if len(rows[-1]) != d:
            raise InvalidInputError(f"directions[{i}] has {len(rows[-1])} entries; the model's query space has "
                                    f"dimension d = {d}, so every direction needs {d}")
    k = len(rows)
    r = rank(rows)
    if r < k:
        raise InvalidInputError(f"the {k} slice directions have rank {r} < {k} (they are linearly dependent); "
                                "drop or replace a direction so that they span a k-dimensional slice")
    U = _transpose(rows)                       # (d, k)
    first = precompose_layer(model.layers[0], U, x0)
    return Transformer((first,) + tuple(model.layers[1:]))


def slice_through(points) -> tuple:
    """``(x0, directions)`` of the affine slice through ``k + 1`` points ``p_0, ..., p_k``.

    ``x0 = p_0`` and ``u_i = p_i - p_0``: ``t = 0`` is ``p_0`` and ``t = e_i`` is ``p_i``
    (three token embeddings give "the plane through these three tokens").

    Parameters
    ----------
    points : (k + 1, d) rationals
        At least two points.

    Returns
    -------
    x0 : tuple of Fraction
        The base point ``p_0``, shape ``(d,)``.
    directions : tuple of tuple of Fraction
        ``u_i = p_i - p_0``, shape ``(k, d)``.

    Raises
    ------
    InvalidInputError
        If fewer than two points are given.

    Examples
    --------
    >>> slice_through([[0, 0, 1], [1, 0, 1], [0, 2, 1]])[1]
    ((Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(2, 1), Fraction(0, 1)))
    """
    P = to_rational_matrix(points, "points")
    if len(P) < 2:
        raise InvalidInputError(f"a slice through points needs at least 2 points (a line); got {len(P)}")
    x0 = P[0]
    return x0, tuple(tuple(a - b for a, b in zip(p, x0)) for p in P[1:])


def token_points(token_embedding, position_embedding, ids, position) -> tuple:
    """Exact embeddings ``wte[id] + wpe[position]`` of tokens put at one position.

    Parameters
    ----------
    token_embedding : (V, d) array (``wte``)
    position_embedding : (P, d) array (``wpe``) or None (no learned positions)
    ids : sequence of int
    position : int
        The query's position (the context length for a query after ``N`` tokens).

    Returns
    -------
    tuple of tuple of Fraction
        One exact point per id, shape ``(len(ids), d)``.

    Raises
    ------
    InvalidInputError
        If ``wte`` is not 2-D, ``wpe`` does not match it, ``position`` is outside ``wpe``, or an
        id is outside the vocabulary.

    Examples
    --------
    >>> token_points([[1, 0], [0, 1]], [[0, 0], [5, 5]], [1, 0], 1)
    ((Fraction(5, 1), Fraction(6, 1)), (Fraction(6, 1), Fraction(5, 1)))
    """
    wte = np.asarray(token_embedding)
    if wte.ndim != 2:
        raise InvalidInputError(f"wte has shape {wte.shape}; expected (vocabulary, d)")
    pos = None
    if position_embedding is not None:
        wpe = np.asarray(position_embedding)
        if wpe.ndim != 2 or wpe.shape[1] != wte.shape[1]:
            raise InvalidInputError(f"wpe has shape {wpe.shape}; expected (positions, {wte.shape[1]})")
        if not 0 <= position < len(wpe):
            raise InvalidInputError(f"position {position} is outside wpe (0..{len(wpe) - 1}); use a shorter context")
        pos = to_rational_vector(wpe[position], f"wpe[{position}]")
    out = []
    for i in ids:
        if not 0 <= int(i) < len(wte):
            raise InvalidInputError(f"token id {i} is outside the vocabulary 0..{len(wte) - 1}")
        e = to_rational_vector(wte[int(i)], f"wte[{int(i)}]")
        out.append(e if pos is None else tuple(a + b for a, b in zip(e, pos)))
    return tuple(out)
