"""Sub-layers as refinement steps: a layer's heads, then its ReLU FFN.

Each step knows, for a parent region with affine map ``f``, the exact labels at a
point, the rows that cut out the piece of given labels, and the output map there.

**Ties.**  Two keys ``j < k`` whose scores, pulled back through ``f``, are the same
affine function tie on the whole parent (a *whole-region tie*: e.g. a layer without
residual feeds a constant to the next).  With a head's ``ties="refuse"`` no label is
defined there (the search raises :class:`~tropattn.errors.TieError`); with
``ties="first"`` the lower index ``j`` wins the whole tie, so the row "j beats k" is
dropped (it reads ``0 <= 0``) and ``k`` gets the impossible row ``0 <= -1``.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property

from ..errors import InvalidInputError
import numpy as np

from ..exact import common_denominator, int_limbs, int_matmul, integer_matrix
from ._affine import AffineMap
from ._relu import ReluStep


__all__ = ["DIAGRAM_MAX_DIM", "AttentionStep", "ReluStep", "model_steps", "append_pattern", "wall_rows",
           "duplicate_before", "distinct_rivals", "pulled_back_scores", "PulledBackScores"]


DIAGRAM_MAX_DIM = 8
"""Heads reading more coordinates take every distinct key as a rival instead of power-diagram neighbours."""

#: Parent maps with at least this many rows (model coordinates) pull every key of a layer back in one
#: exact integer product (:meth:`AttentionStep.pulled_back`); narrower ones key by key, when first read.
WIDE_MAP = 32


class AttentionStep:
    """The heads of one layer as a step of the refinement."""

    def __init__(self, layer, index):
        self.layer, self.index = layer, index
        self.heads = tuple(layer.heads)
        # a power diagram in many dimensions is slow to build (a sliced model's later layers read
        # d = 64... coordinates): there every other distinct key is a rival, the same cell
        self.cells = [h.power_diagram().cells() if h.dim <= DIAGRAM_MAX_DIM else None for h in self.heads]
        self.projection = layer.projection
        self._values = _integer_values(self.heads, self.projection)
        self._skip = None      # the skip matrix as integers (Rn, r), when first used
        self._keys = None      # every head's integer keys stacked, as limbs (wide maps), when first used
        self._pulled = None    # (f, every head's PulledBackScores through f): the last parent's

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_keys"], state["_pulled"] = None, None
        return state

    def pulled_back(self, f: AffineMap) -> list:
        """Every head's :class:`PulledBackScores` through ``f`` (those of the last ``f`` are kept).

        Through a wide map (at least :data:`WIDE_MAP` rows: a d_model-sized slice) every key
        of every head is pulled back in one exact product ``K [Mi | ci]``, the keys stacked and
        split into limbs once (:func:`tropattn.exact.int_limbs`); through a narrow one each key
        is pulled back when first read.

        >>> from tropattn.attention import Head, Layer
        >>> step = AttentionStep(Layer([Head([[0], [1], [2]], [0, 0, -1])]), 0)   # scores 0, x, 2x - 1
        >>> [step.pulled_back(AffineMap.identity(1))[0][k] for k in range(3)]
        [((0,), 0), ((1,), 0), ((2,), -1)]
        """
        last = self._pulled
        if last is not None and last[0] is f:
            return last[1]
        Mi, ci, m = f._integers
        if len(Mi) < WIDE_MAP or any(len(head.keys[0]) != len(Mi) for head in self.heads):
            out = [PulledBackScores(head, f) for head in self.heads]
        else:
            if self._keys is None:
                K = np.array([k for head in self.heads for k in head.integer_form()[0]], dtype=object)
                self._keys = int_limbs(K)
            P = int_matmul(self._keys, f._augmented).tolist()
            out, at = [], 0
            for head in self.heads:
                out.append(PulledBackScores(head, f, P[at:at + head.N]))
                at += head.N
        self._pulled = (f, out)
        return out

    def labels_at(self, f: AffineMap, X, D):
        """Exact argmax label of every head at ``f(X / D)`` (integers), or None on a tie.

        Keys equal in both key and offset are one key: the earlier index wins (the
        convention of :meth:`tropattn.attention.Head.label`).  With ``ties="first"`` a
        whole-region tie (every winner's pulled-back score is the same function) goes
        to the lowest index; a tie on a wall is None under either rule (the point is
        then moved off the wall).

        Parameters
        ----------
        f : AffineMap
            The parent region's map from the input space to this layer's input.
        X : tuple of int
            Numerator of the input point.
        D : int
            Positive denominator of the input point.

        Returns
        -------
        tuple of int or None
            One label per head, or None where the point is on a wall.

        Examples
        --------
        >>> from tropattn.attention import Head, Layer
        >>> step = AttentionStep(Layer([Head([[0], [1], [2]], [0, 0, -1])]), 0)   # scores 0, x, 2x - 1
        >>> step.labels_at(AffineMap.identity(1), (3,), 1), step.labels_at(AffineMap.identity(1), (0,), 1)
        ((2,), None)
        """
        out = []
        for head, scores in zip(self.heads, self.pulled_back(f)):
            winners = scores.argmax(X, D)
            label = head.distinct_winner(winners)
            if label is None and head.ties == "first" and not any(
                    _difference_row(head, winners[0], k, f, scores) for k in winners[1:]):
                label = winners[0]
            if label is None:
                return None
            out.append(label)
        return tuple(out)

    def rows(self, labels, f: AffineMap):
        """Pulled-back facet rows of the cells picked by ``labels``.

        Parameters
        ----------
        labels : tuple of int
            One label per head.
        f : AffineMap
            The parent region's map.

        Returns
        -------
        A : list of tuple
            Row normals ``a`` (in the input space) of the inequalities ``a . x <= beta``.
        b : list
            Right-hand sides ``beta``.
        walls : list of tuple
            One tag per row: ``("head", layer, head, j, k)`` for "label j beats k".

        Examples
        --------
        >>> from tropattn.attention import Head, Layer
        >>> step = AttentionStep(Layer([Head([[0], [1], [2]], [0, 0, -1])]), 0)
        >>> step.rows((1,), AffineMap.identity(1))[:2]          # label 1 wins on 0 <= x <= 1
        ([(-1,), (1,)], [0, 1])
        """
        A, b, walls = [], [], []
        for h, (head, j) in enumerate(zip(self.heads, labels)):
            wall_rows(head, j, self.rivals(h, j), f, ("head", self.index, h), A, b, walls)
        return A, b, walls

    def rivals(self, h, j) -> list:
        """The keys that label ``j`` of head ``h`` must beat: its power-diagram neighbours, or
        every distinct key where the head has no diagram (it reads more than
        :data:`DIAGRAM_MAX_DIM` coordinates) or ``j`` has no cell (hidden, won only by a tie).

        Examples
        --------
        >>> from tropattn.attention import Head, Layer
        >>> step = AttentionStep(Layer([Head([[0], [1], [2]], [0, 0, -1])]), 0)   # scores 0, x, 2x - 1
        >>> sorted(step.rivals(0, 0)), sorted(step.rivals(0, 1))
        ([1], [0, 2])
        """
        cells = self.cells[h]
        cell = cells[j] if cells is not None else None
        return list(cell.neighbors) if cell is not None else distinct_rivals(self.heads[h], j)

    def realisable(self, labels) -> bool:
        """Every label has a cell (or, for a head without a diagram, is no repeated key), or wins a
        whole-region tie under ``ties="first"``.

        Parameters
        ----------
        labels : tuple of int
            One label per head.

        Returns
        -------
        bool
            False if some label can never win (a hidden site or a repeated key).

        Examples
        --------
        >>> from tropattn.attention import Head, Layer
        >>> step = AttentionStep(Layer([Head([[0], [1], [2]], [0, -1, 0])]), 0)    # x - 1 never wins
        >>> step.realisable((0,)), step.realisable((1,))
        (True, False)
        """
        return all((not duplicate_before(self.heads[h], j)) if self.cells[h] is None
                   else (self.cells[h][j] is not None or self.heads[h].ties == "first")
                   for h, j in enumerate(labels))

    def output_map(self, labels, f: AffineMap, lazy: bool = False) -> AffineMap:
        """The affine map of the layer's attention output on the piece of the given labels.

        Parameters
        ----------
        labels : tuple of int
            One label per head.
        f : AffineMap
            The parent region's map.
        lazy : bool, optional
            Accepted as :meth:`ReluStep.output_map` takes it; this map is made at once.

        Returns
        -------
        AffineMap
            ``x -> R f(x) + P sum_h v^h_{labels[h]}`` (``R`` the skip term: identity, 0 or a matrix).

        Raises
        ------
        InvalidInputError
            If the residual adds vectors of different dimensions.

        Examples
        --------
        >>> from tropattn.attention import Head, Layer
        >>> step = AttentionStep(Layer([Head([[0], [1]])]), 0)
        >>> step.output_map((1,), AffineMap.identity(1))                # x + v_1 = x + 1
        AffineMap(M=((Fraction(1, 1),),), c=(Fraction(1, 1),))
        """
        R = self.layer.residual
        if R is True:
            return self._residual_map(labels, f)
        if R is not False:
            return self._skip_matrix_map(labels, f)
        _, t = self._values             # no residual: the constant P sum_h v^h (Layer checks the shapes)
        total = list(self._value_sum(labels))
        d = len(f._integers[0][0])      # a parent map has a row per model coordinate
        return AffineMap.from_integers([[0] * d for _ in total], total, t)

    def _skip_matrix_map(self, labels, f: AffineMap) -> AffineMap:
        """:meth:`output_map` with a skip matrix ``R = Rn / r``, in integers:
        ``(t Rn (Mi x + ci) + r m V) / (r m t)``."""
        _, t = self._values
        if self._skip is None:
            self._skip = integer_matrix(self.layer.residual)
        Rn, r = self._skip
        Mi, ci, m = f._integers
        d = len(Mi[0])                  # a parent map has a row per model coordinate
        N = int_matmul(Rn, f._augmented) * t
        N[:, d] += np.asarray(self._value_sum(labels), dtype=object) * (r * m)
        return AffineMap.from_integers(N[:, :d], N[:, d], r * m * t)

    def _residual_map(self, labels, f: AffineMap) -> AffineMap:
        """:meth:`output_map` with the residual on, in integers: ``(t Mi x + t ci + m V) / (m t)``."""
        _, t = self._values
        Mi, ci, m = f._integers
        total = self._value_sum(labels)
        if len(total) != len(ci):
            raise InvalidInputError(
                f"layer {self.index}: the heads' outputs have dimension {len(total)} but the model has "
                f"dimension {len(ci)}; give values of length {len(ci)} or a projection of shape "
                f"({len(ci)}, {len(total)})")
        if len(ci) < WIDE_MAP:          # a few coordinates: Python lists are cheaper than arrays
            return AffineMap.shifted(f, total, t)
        N = f._augmented * t if t != 1 else f._augmented.copy()      # object arrays: one C loop per operation
        d = N.shape[1] - 1
        N[:, d] += total * m
        return AffineMap.from_integers(N[:, :d], N[:, d], m * t)

    def _value_sum(self, labels):
        """``sum_h V[h][labels[h]]`` (integers over the values' ``t``): a list when short, else an object array."""
        V, _ = self._values
        if V[0].shape[1] < WIDE_MAP:                 # a few coordinates: Python ints in a list are cheaper
            rows = self._value_rows
            total = list(rows[0][labels[0]])
            for h in range(1, len(labels)):
                for i, v in enumerate(rows[h][labels[h]]):
                    total[i] += v
            return total
        total = V[0][labels[0]]
        for h in range(1, len(labels)):
            total = total + V[h][labels[h]]
        return total

    @cached_property
    def _value_rows(self):
        """The values of :attr:`_values` as tuples of Python ints (for short values)."""
        return [[tuple(row) for row in Vh.tolist()] for Vh in self._values[0]]


def _integer_values(heads, projection):
    """``(V, t)``: ``V[h][j]`` the (projected) value of key j of head h times ``t``, integers; or None.

    ``V[h]`` is an object array (one row per key).  A projection ``P`` is applied by exact
    integer products, ``(Vn Pn^T) / (tv tp)``, not a Fraction sum per entry.
    """
    vals = [[tuple(v) for v in head.values] for head in heads]
    if projection is not None:
        Pn, tp = integer_matrix(projection)
        out = []
        for hv in vals:
            if len({len(v) for v in hv}) != 1 or len(hv[0]) != Pn.shape[1]:
                return None
            Vn, tv = integer_matrix(hv)
            out.append([tuple(Fraction(x, tv * tp) for x in row) for row in int_matmul(Vn, Pn.T).tolist()])
        vals = out
    if len({len(v) for hv in vals for v in hv}) != 1:
        return None
    t = common_denominator(x for hv in vals for v in hv for x in v)
    return [np.array([[int(x * t) for x in v] for v in hv], dtype=object) for hv in vals], t


def model_steps(model):
    """The refinement steps of a model: per layer its heads, then its FFN if any.

    Parameters
    ----------
    model : Transformer
        A model with ``layers``.

    Returns
    -------
    list of AttentionStep and ReluStep
        In the order the search refines.

    Examples
    --------
    >>> from tropattn.attention import FFN, Head, Layer, Transformer
    >>> T = Transformer([Layer([Head([[0], [1]])], ffn=FFN([[1]], [-1], [[1]], [0]))])
    >>> [type(s).__name__ for s in model_steps(T)]
    ['AttentionStep', 'ReluStep']
    """
    steps = []
    for l, layer in enumerate(model.layers):
        steps.append(AttentionStep(layer, l))
        if getattr(layer, "ffn", None) is not None:
            steps.append(ReluStep(layer.ffn, l))
    return steps


def append_pattern(pattern, step, labels):
    """Patterns are tuples over layers of (head labels, relu bits).

    Parameters
    ----------
    pattern : tuple
        The activation pattern so far.
    step : AttentionStep or ReluStep
        The step that produced ``labels``.
    labels : tuple of int
        Head labels (a new layer entry) or ReLU bits (filled into the last layer's entry).

    Returns
    -------
    tuple
        The extended pattern.

    Examples
    --------
    >>> from tropattn.attention import FFN, Head, Layer
    >>> layer = Layer([Head([[0], [1]])], ffn=FFN([[1]], [-1], [[1]], [0]))
    >>> p = append_pattern((), AttentionStep(layer, 0), (1,))
    >>> p, append_pattern(p, ReluStep(layer.ffn, 0), (0,))
    ((((1,), ()),), (((1,), (0,)),))
    """
    if isinstance(step, AttentionStep):
        return pattern + ((labels, ()),)
    last = pattern[-1]
    return pattern[:-1] + ((last[0], labels),)


def _pulled_back_difference(head, j, k, f: AffineMap):
    """The integer row "j beats k" pulled back through ``f``: ``(a, beta)`` for ``a . x <= beta``,
    or None where it reads ``0 <= 0`` (``j`` and ``k`` tie on the whole parent)."""
    keys, offsets = head.integer_form()
    a, beta = f.pull_back_integer(tuple(u - v for u, v in zip(keys[k], keys[j])), offsets[j] - offsets[k])
    return None if beta == 0 and not any(a) else (a, beta)


def wall_rows(head, j, rivals, f: AffineMap, tag, A, b, walls, scores=None) -> list:
    """Append the rows "label j beats k" (k in rivals), pulled back through f.

    Returns the keys that tie ``j`` on the whole parent.  Under ``ties="first"`` the
    row is dropped for ``k > j`` (``j`` wins) and is the impossible ``0 <= -1`` for
    ``k < j``; under ``"refuse"`` it is dropped and the caller decides.

    Parameters
    ----------
    head : Head
        The head.
    j : int
        The label that must win.
    rivals : iterable of int
        The labels ``k`` it must beat.
    f : AffineMap
        The parent region's map.
    tag : tuple
        Prefix of each wall tag (``j, k`` are appended).
    A, b, walls : list
        Appended to in place: row normals, right-hand sides and tags.
    scores : PulledBackScores, optional
        :func:`pulled_back_scores` of ``head`` through ``f``, when the caller keeps them
        (the rows are then their differences: the same rows, no pull-back per rival).

    Returns
    -------
    list of int
        The rivals that tie ``j`` on the whole parent region; under ``ties="first"``, once one
        does, also every lower key outside ``rivals`` that ties (it gets the row ``0 <= -1``).

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> A, b, walls = [], [], []
    >>> wall_rows(Head([[0], [1], [0]]), 0, [1, 2], AffineMap.identity(1), ("head", 0, 0), A, b, walls)
    [2]
    >>> A, b                                          # 0 beats x where x <= 0; key 2 is key 0 again
    ([(1,)], [0])
    """
    tied, rivals = [], list(rivals)
    for k in rivals:
        row = _difference_row(head, j, k, f, scores)
        if row is None:
            tied.append(k)
            if head.ties != "first" or k > j:
                continue
            row = (tuple(0 for _ in f.M[0]), -1)
        A.append(row[0])
        b.append(row[1])
        walls.append(tag + (j, k))
    if tied and head.ties == "first":
        # the parent lies on a facet of j's cell: a lower key that is no rival (hidden, or meeting the
        # cell in a smaller face) may tie with j there too, and then it wins
        seen = set(rivals)
        for k in range(j):
            if k not in seen and _difference_row(head, j, k, f, scores) is None:
                tied.append(k)
                A.append(tuple(0 for _ in f.M[0]))
                b.append(-1)
                walls.append(tag + (j, k))
    return tied


def _difference_row(head, j, k, f, scores):
    """The row "j beats k" pulled back through ``f`` (from ``scores`` if given), or None on a whole-region tie."""
    if scores is None:
        return _pulled_back_difference(head, j, k, f)
    (aj, sj), (ak, sk) = scores[j], scores[k]
    row = (tuple(u - v for u, v in zip(ak, aj)), sj - sk)
    return None if row[1] == 0 and not any(row[0]) else row


def pulled_back_scores(head, f: AffineMap) -> "PulledBackScores":
    """Every key's score pulled back through ``f``, in integers, each computed when first read.

    With ``f = (Mi x + ci) / m`` and the head's integer form ``(keys, offsets)`` (one
    positive scale), ``m`` times the score of key ``k`` at ``f(x)`` is ``a_k . x + s_k``
    with ``a_k = keys_k Mi`` and ``s_k = keys_k . ci + offsets_k m``; the row "j beats k"
    is ``(a_k - a_j) . x <= s_j - s_k``.

    Parameters
    ----------
    head : Head
        The head.
    f : AffineMap
        The parent region's map.

    Returns
    -------
    PulledBackScores
        ``scores[k]`` is the pair ``(a_k, s_k)`` (a tuple of int and an int).

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> scores = pulled_back_scores(Head([[0], [1], [2]], [0, 0, -1]), AffineMap.identity(1))   # 0, x, 2x - 1
    >>> [scores[k] for k in range(3)]
    [((0,), 0), ((1,), 0), ((2,), -1)]
    """
    return PulledBackScores(head, f)


class PulledBackScores:
    """The pulled-back integer scores of one head through one map (see :func:`pulled_back_scores`).

    ``products``: the rows ``key_k [Mi | ci]`` of every key, when the caller computed them
    at once (:meth:`AttentionStep.pulled_back`).
    """

    def __init__(self, head, f: AffineMap, products=None):
        self.keys, self.offsets = head.integer_form()
        Mi, self.ci, self.m = f._integers
        d = len(Mi[0])                  # a parent map has a row per model coordinate
        self.cache = {}
        if products is not None:
            self.cols = None
            for k, row in enumerate(products):
                self.cache[k] = (tuple(row[:d]), row[d] + self.offsets[k] * self.m)
        else:
            self.cols = [tuple(row[i] for row in Mi) for i in range(d)]

    def argmax(self, X, D) -> tuple:
        """The keys of maximal score at ``X / D`` (input coordinates), increasing: the head's
        :meth:`~tropattn.attention.Head.argmax_homogeneous` at ``f(X / D)``, through the
        pulled-back scores (the same order: every score is scaled by the same ``m D > 0``)."""
        vals = []
        for k in range(len(self.keys)):
            a, s = self[k]
            vals.append(sum(u * x for u, x in zip(a, X)) + s * D)
        best = max(vals)
        return tuple(k for k, v in enumerate(vals) if v == best)

    def __getitem__(self, k):
        out = self.cache.get(k)
        if out is None:
            key = self.keys[k]
            out = self.cache[k] = (tuple(sum(u * v for u, v in zip(key, col)) for col in self.cols),
                                   sum(u * v for u, v in zip(key, self.ci)) + self.offsets[k] * self.m)
        return out


def distinct_rivals(head, j) -> list:
    """Every key that differs from key ``j`` (in key or offset).

    Parameters
    ----------
    head : Head
        The head.
    j : int
        A label.

    Returns
    -------
    list of int
        The labels whose ``(a_k, b_k)`` differs from ``(a_j, b_j)``.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> distinct_rivals(Head([[0], [1], [0]]), 0)
    [1]
    """
    return [k for k in range(len(head.keys))
            if (head.keys[k], head.offsets[k]) != (head.keys[j], head.offsets[j])]


def duplicate_before(head, j) -> bool:
    """Key j repeats an earlier key exactly (same key and offset): it never wins.

    Parameters
    ----------
    head : Head
        The head.
    j : int
        A label.

    Returns
    -------
    bool
        True if some ``k < j`` has the same key and offset.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> duplicate_before(Head([[0], [1], [0]]), 2), duplicate_before(Head([[0], [1], [0]]), 1)
    (True, False)
    """
    return any((head.keys[k], head.offsets[k]) == (head.keys[j], head.offsets[j]) for k in range(j))
