r"""Dyck-(k, m): balanced brackets and a two-layer hard-attention model of the stack (docs/THEORY.md §9).

A Dyck-(k, m) word has ``k`` bracket types, is balanced and never nests deeper than ``m``.
Token ``+(c+1)`` opens a bracket of type ``c``, ``-(c+1)`` closes it.  The oracles:

* ``depth[j]``  = number of unmatched opens after token ``j`` (``D_j``);
* ``match[j]``  = the partner of token ``j``;
* ``top[t]``    = the most recent unmatched open in the prefix ``w[:t]`` (``-1`` if none).

The task: at every close ``t``, predict its type from the prefix ``w[:t]``; the answer is
the type of ``top[t]``.  The top of the stack is the **latest open** ``j < t`` **whose
depth equals the current depth** ``d_t = D_{t-1}`` (later opens at that depth would still
be unmatched; earlier ones were closed).  So with ``lambda > mu (t - 1)`` it is the argmax of

    s_j(d, r) = lambda (2 D_j d - D_j^2) + mu j r  =  lambda (d^2 - (D_j - d)^2) + mu j r

over the opens ``j < t``, at the query ``(d, r) = (d_t, 1)``: a max-plus (tropical) score,
affine in the query with key ``a_j = (2 lambda D_j, mu j)`` and offset ``-lambda D_j^2``.

The model (:class:`DyckModel`) is a real two-layer :class:`~tropattn.attention.Transformer`
per query position, exact in rationals:

* **layer 1** (depth): the query ``x0 = (1,)`` scores context token ``j`` by ``j`` and copies
  the value ``(D_j, 1)`` of the latest token: ``x1 = (d_t, 1)``.  The running depths ``D_j``
  of the context are what causal *uniform* attention computes (the mean sign of the prefix
  times its length); that averaging step is not an argmax, so it is done exactly in
  rationals (:func:`depths`) and enters as the context states;
* **layer 2** (top of stack): one head over the opens ``j < t`` with the keys above and
  the one-hot type of ``j`` as value.  Its zero-temperature attention is the tropical
  polynomial ``max_j s_j`` and its regions the cells of a power diagram
  (:meth:`Head.power_diagram`): which region of the ``(d, r)`` plane selects which bracket.

Interventions: *knockout* removes the key of ``top[t]`` (its attention edge is masked);
*depth ablation* zeroes the depth coordinate in the keys and the query, so layer 2 picks the
latest open.  Both leave the model exact.  Soft attention uses the same scores at inverse
temperature ``beta`` (floats, for simulation only).

>>> w = (1, 2, -2, 1, -1, -1)                      # ( [ ] ( ) )
>>> format_sequence(w, 2), depths(w), top_of_stack(w)
('([]())', (1, 2, 1, 2, 1, 0), (-1, 0, 1, 0, 3, 0, -1))
>>> model = DyckModel(k=2, m=2, length=6)
>>> [model.predict(w, t) for t in closing_positions(w)]      # types of ] ) )
[1, 0, 0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._doc import fill_doc
from .._validate import bounded_float, positive_float, positive_int
from ..attention import Head, Layer, Transformer, head_arrays
from ..errors import InvalidInputError
from ..soft import margin, soft_weights, weight_bounds

__all__ = ["check_shape", "generate", "depths", "matches", "top_of_stack", "closing_positions",
           "format_sequence", "DyckModel", "hard_accuracy", "SoftRow", "soft_sweep"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "w": """w : sequence of int
    A balanced word.""",
    "t": """t : int
    Query position.""",
    "knockout": """knockout : iterable of int, optional
    Positions masked in layer 2.""",
    "ablate_depth": """ablate_depth : bool, optional
    Depth ablation.""",
}

_BRACKETS = "()[]{}<>"


def check_shape(length, k, m) -> tuple:
    """Validate a Dyck-(k, m) shape; returns ``(length, k, m)`` as ints.

    Parameters
    ----------
    length : int
        Word length (even, >= 2).
    k : int
        Number of bracket types (>= 1).
    m : int
        Maximal depth (>= 1).

    Returns
    -------
    tuple of int
        ``(length, k, m)``.

    Raises
    ------
    InvalidInputError
        If ``k`` or ``m`` is below 1, or no balanced word has this length.

    Examples
    --------
    >>> check_shape(7, 2, 3)
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: length = 7 cannot close: a balanced bracket word has even length >= 2 (use 6 or 8)
    """
    k = positive_int(k, "k", meaning="the number of bracket types")
    m = positive_int(m, "m", meaning="the maximal depth")
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 2 or length % 2:
        hint = f" (use {length - 1} or {length + 1})" if isinstance(length, (int, np.integer)) and length > 2 \
            else " (use 2 or more)"
        raise InvalidInputError(f"length = {length!r} cannot close: a balanced bracket word has even length "
                                f">= 2{hint}")
    return int(length), k, m


def generate(n_sequences, length, k, m, seed=0) -> tuple:
    """``n_sequences`` random Dyck-(k, m) words of one length (seeded).

    A random walk on the depth: open (a uniform type) or close the top with probability
    1/2 each whenever both keep the word closable with depth ``<= m``.  Not uniform over
    the words; every word of the shape has positive probability.

    Parameters
    ----------
    n_sequences : int
        Number of words (>= 1).
    length : int
        Word length (even, >= 2).
    k : int
        Bracket types.
    m : int
        Maximal depth.
    seed : int, optional
        Seed of the numpy Generator (default 0).

    Returns
    -------
    tuple of tuple of int
        The words, tokens ``+(c+1)`` / ``-(c+1)``.

    Raises
    ------
    InvalidInputError
        If the shape is invalid (see :func:`check_shape`) or ``n_sequences < 1``.

    Examples
    --------
    >>> ws = generate(3, 8, k=2, m=2, seed=1)
    >>> all(max(depths(w)) <= 2 and depths(w)[-1] == 0 for w in ws)
    True
    """
    length, k, m = check_shape(length, k, m)
    n = positive_int(n_sequences, "n_sequences", meaning="the number of sequences")
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        stack, w = [], []
        for i in range(length):
            left = length - i
            can_open = len(stack) < m and len(stack) + 1 <= left - 1
            can_close = bool(stack)
            if can_open and (not can_close or rng.random() < 0.5):
                c = int(rng.integers(k))
                stack.append(c)
                w.append(c + 1)
            else:
                w.append(-(stack.pop() + 1))
        out.append(tuple(w))
    return tuple(out)


def _check_word(w) -> tuple:
    w = tuple(int(x) for x in w)
    depth = 0
    stack = []
    for i, x in enumerate(w):
        if x == 0:
            raise InvalidInputError(f"token {i} is 0; tokens are +(c+1) (open type c) or -(c+1) (close)")
        if x > 0:
            stack.append(x)
        elif not stack or stack.pop() != -x:
            raise InvalidInputError(f"token {i} = {x} closes nothing of its type; the word is not balanced")
        depth = len(stack)
    if depth:
        raise InvalidInputError(f"the word ends at depth {depth}; a Dyck word is balanced")
    return w


@fill_doc(**_DOC)
def depths(w) -> tuple:
    """``D_j``: unmatched opens after token ``j`` (the depth oracle).

    Parameters
    ----------
    %(w)s

    Returns
    -------
    tuple of int
        ``D_j`` for ``j = 0..len(w)-1``; the last is 0.

    Raises
    ------
    InvalidInputError
        If ``w`` has a 0 token or is not balanced.

    Examples
    --------
    >>> depths((1, 1, -1, -1))
    (1, 2, 1, 0)
    """
    out, d = [], 0
    for x in _check_word(w):
        d += 1 if x > 0 else -1
        out.append(d)
    return tuple(out)


@fill_doc(**_DOC)
def matches(w) -> tuple:
    """``match[j]``: the index of the bracket paired with ``j`` (the match oracle).

    Parameters
    ----------
    %(w)s

    Returns
    -------
    tuple of int
        ``match[j]``, an involution without fixed points.

    Raises
    ------
    InvalidInputError
        If ``w`` is not a balanced word.

    Examples
    --------
    >>> matches((1, 2, -2, -1))
    (3, 2, 1, 0)
    """
    w = _check_word(w)
    out, stack = [0] * len(w), []
    for i, x in enumerate(w):
        if x > 0:
            stack.append(i)
        else:
            j = stack.pop()
            out[i], out[j] = j, i
    return tuple(out)


@fill_doc(**_DOC)
def top_of_stack(w) -> tuple:
    """``top[t]`` for ``t = 0..len(w)``: the latest unmatched open of ``w[:t]``, or -1.

    Parameters
    ----------
    %(w)s

    Returns
    -------
    tuple of int
        ``len(w) + 1`` entries: ``top[0] = -1`` (the empty prefix) up to ``top[len(w)] = -1``.

    Raises
    ------
    InvalidInputError
        If ``w`` is not a balanced word.

    Examples
    --------
    >>> top_of_stack((1, 2, -2, -1))
    (-1, 0, 1, 0, -1)
    """
    w = _check_word(w)
    out, stack = [-1], []
    for i, x in enumerate(w):
        if x > 0:
            stack.append(i)
        else:
            stack.pop()
        out.append(stack[-1] if stack else -1)
    return tuple(out)


@fill_doc(**_DOC)
def closing_positions(w, min_distance=1) -> tuple:
    """Positions ``t`` of closes with ``t - match[t] >= min_distance`` (3: long-distance).

    Parameters
    ----------
    %(w)s
    min_distance : int, optional
        Least distance to the matching open (default 1: every close).

    Returns
    -------
    tuple of int
        The positions, increasing.

    Raises
    ------
    InvalidInputError
        If ``w`` is not a balanced word.

    Examples
    --------
    >>> closing_positions((1, 2, -2, -1)), closing_positions((1, 2, -2, -1), 3)
    ((2, 3), (3,))
    """
    mt = matches(w)
    return tuple(t for t, x in enumerate(w) if x < 0 and t - mt[t] >= min_distance)


@fill_doc(**_DOC)
def format_sequence(w, k) -> str:
    """The word in brackets ``()[]{}<>`` (``k <= 4``) or as ``+c``/``-c`` tokens.

    Parameters
    ----------
    %(w)s
    k : int
        Number of bracket types (bracket characters for ``k <= 4``).

    Returns
    -------
    str
        The printable word.

    Raises
    ------
    InvalidInputError
        If ``w`` is not a balanced word.

    Examples
    --------
    >>> format_sequence((1, 2, -2, -1), 2)
    '([])'
    """
    w = _check_word(w)
    if k <= 4:
        return "".join(_BRACKETS[2 * (abs(x) - 1) + (x < 0)] for x in w)
    return " ".join(f"{'+' if x > 0 else '-'}{abs(x) - 1}" for x in w)


@dataclass(frozen=True)
class DyckModel:
    """The exact two-layer top-of-stack transformer for Dyck-(k, m) words of a given length.

    Parameters
    ----------
    k, m, length : int
        Bracket types, maximal depth, word length (even).
    lam, mu : rational, optional
        Depth and recency weights of layer 2; default ``lam = length``, ``mu = 1``, so
        ``lam > mu (length - 1)``: a depth mismatch always costs more than any recency gain.

    >>> model = DyckModel(2, 2, 4)
    >>> T, opens = model.transformer((1, 2, -2, -1), 3)
    >>> T.evaluate(model.query)[0], opens          # attends to the open '(' at 0
    ((Fraction(1, 1), Fraction(0, 1)), (0, 1))
    """

    k: int
    m: int
    length: int
    lam: Fraction = None
    mu: Fraction = Fraction(1)

    def __post_init__(self):
        length, k, m = check_shape(self.length, self.k, self.m)
        lam = Fraction(length) if self.lam is None else Fraction(self.lam)
        mu = Fraction(self.mu)
        if mu <= 0 or lam <= mu * (length - 1):
            raise InvalidInputError(f"lam = {lam}, mu = {mu}; need mu > 0 and lam > mu (length - 1) = "
                                    f"{mu * (length - 1)} so that depth decides before recency")
        for name, v in (("k", k), ("m", m), ("length", length), ("lam", lam), ("mu", mu)):
            object.__setattr__(self, name, v)

    #: Layer 1's query: the probe token (a constant feature).
    query = (Fraction(1),)

    def _word(self, w, t):
        w = _check_word(w)
        if len(w) > self.length or any(abs(x) > self.k for x in w):
            raise InvalidInputError(f"the word has length {len(w)} and types up to {max(map(abs, w)) - 1}; "
                                    f"this model reads length <= {self.length} and k = {self.k} types")
        if not (isinstance(t, (int, np.integer)) and 1 <= t < len(w) + 1):
            raise InvalidInputError(f"t = {t!r}; the query position must be in 1..{len(w)}")
        return w

    def layer1_head(self, w, t, ablate_depth=False) -> Head:
        """Keys ``(j,)`` (the latest token wins at ``x0 = 1``), values ``(D_j, 1)`` (or ``(0, 1)``).

        Parameters
        ----------
        w : sequence of int
            A balanced word the model reads.
        t : int
            Query position, ``1 <= t <= len(w)``: the head reads the tokens ``0..t-1``.
        ablate_depth : bool, optional
            Zero the depth in the values.

        Returns
        -------
        Head
            The recency head (score ``j`` at the query ``x0 = 1``).

        Raises
        ------
        InvalidInputError
            If ``w`` is not balanced, too long or has too many types for the model, or ``t`` is out of range.

        Examples
        --------
        >>> h = DyckModel(2, 2, 6).layer1_head((1, 2, -2, 1, -1, -1), 3)
        >>> h.label(DyckModel.query), h.hard(DyckModel.query)        # the latest token, 2, at depth D_2 = 1
        (2, (Fraction(1, 1), Fraction(1, 1)))
        """
        w = self._word(w, t)
        D = depths(w)
        return Head([(j,) for j in range(t)],
                    values=[(0 if ablate_depth else D[j], 1) for j in range(t)])

    @fill_doc(**_DOC)
    def layer2_head(self, w, t, knockout=(), ablate_depth=False) -> tuple:
        """``(head, opens)``: the top-of-stack head over the opens ``j < t`` not knocked out.

        Key ``(2 lam D_j, mu j)``, offset ``-lam D_j^2``, value the one-hot type of ``j``
        (depth-ablated: key ``(0, mu j)``, offset 0); ``opens[i]`` is the position of key ``i``.

        Parameters
        ----------
        %(w)s
        %(t)s
        knockout : iterable of int, optional
            Positions whose keys are removed.
        ablate_depth : bool, optional
            Drop the depth term (recency only).

        Returns
        -------
        head : Head
            The top-of-stack head.
        opens : tuple of int
            ``opens[i]`` is the word position of key ``i``.

        Raises
        ------
        InvalidInputError
            If the word or ``t`` is bad, or no open survives the knockout.

        Examples
        --------
        >>> head, opens = DyckModel(2, 2, 6).layer2_head((1, 2, -2, 1, -1, -1), 5)   # lam = 6, mu = 1
        >>> opens, head.keys[0], head.offsets[0]                   # open 0 at depth 1: key (12, 0), offset -6
        ((0, 1, 3), (Fraction(12, 1), Fraction(0, 1)), Fraction(-6, 1))
        """
        w = self._word(w, t)
        D = depths(w)
        opens = tuple(j for j in range(t) if w[j] > 0 and j not in set(knockout))
        if not opens:
            raise InvalidInputError(f"no open bracket before t = {t} survives the knockout; "
                                    "layer 2 needs at least one key")
        lam = 0 if ablate_depth else self.lam
        keys = [(2 * lam * D[j], self.mu * j) for j in opens]
        offsets = [-lam * D[j] ** 2 for j in opens]
        values = [tuple(int(c == w[j] - 1) for c in range(self.k)) for j in opens]
        return Head(keys, offsets, values), opens

    @fill_doc(**_DOC)
    def transformer(self, w, t, knockout=(), ablate_depth=False) -> tuple:
        """``(Transformer, opens)``: the two layers for the query at position ``t``.

        Parameters
        ----------
        %(w)s
        %(t)s
        %(knockout)s
        %(ablate_depth)s

        Returns
        -------
        model : Transformer
            Two layers without residual, evaluated at :attr:`query`.
        opens : tuple of int
            Word positions of layer 2's keys.

        Raises
        ------
        InvalidInputError
            As :meth:`layer2_head`.

        Examples
        --------
        >>> T, opens = DyckModel(2, 2, 6).transformer((1, 2, -2, 1, -1, -1), 5)
        >>> T.evaluate(DyckModel.query)                  # layer 1 picks token 4; layer 2 key 0 = position 0
        ((Fraction(1, 1), Fraction(0, 1)), (((4,), ()), ((0,), ())))
        """
        h1 = self.layer1_head(w, t, ablate_depth)
        h2, opens = self.layer2_head(w, t, knockout, ablate_depth)
        return Transformer((Layer([h1], residual=False), Layer([h2], residual=False))), opens

    @fill_doc(**_DOC)
    def layer2_query(self, w, t, ablate_depth=False) -> tuple:
        """``x1 = (d_t, 1)``, computed exactly by layer 1.

        Parameters
        ----------
        %(w)s
        %(t)s
        ablate_depth : bool, optional
            Depth ablation (then ``d_t`` reads 0).

        Returns
        -------
        tuple of Fraction
            ``(d_t, 1)``.

        Raises
        ------
        InvalidInputError
            If the word or ``t`` is bad.

        Examples
        --------
        >>> DyckModel(2, 2, 6).layer2_query((1, 2, -2, 1, -1, -1), 5)     # depth after token 4
        (Fraction(1, 1), Fraction(1, 1))
        """
        return Layer([self.layer1_head(w, t, ablate_depth)], residual=False).evaluate(self.query)[0]

    @fill_doc(**_DOC)
    def attend(self, w, t, knockout=(), ablate_depth=False) -> int:
        """The position layer 2 attends to at query ``t`` (exact).

        Parameters
        ----------
        %(w)s
        %(t)s
        %(knockout)s
        %(ablate_depth)s

        Returns
        -------
        int
            A word position (an open before ``t``).

        Raises
        ------
        InvalidInputError
            As :meth:`layer2_head`.

        Examples
        --------
        >>> model, w = DyckModel(2, 2, 6), (1, 2, -2, 1, -1, -1)
        >>> model.attend(w, 5), model.attend(w, 5, ablate_depth=True)   # the true top 0; without depth the latest open
        (0, 3)
        """
        T, opens = self.transformer(w, t, knockout, ablate_depth)
        _, pattern = T.evaluate(self.query)
        return opens[pattern[1][0][0]]

    @fill_doc(**_DOC)
    def predict(self, w, t, knockout=(), ablate_depth=False) -> int:
        """The predicted type of the close at ``t``: the argmax of the exact output.

        If the knockout leaves no open before ``t``, attention has nothing to read: the
        output is the zero vector and its first argmax, type 0, is returned.

        Parameters
        ----------
        %(w)s
        t : int
            Query position (a close, for the prediction to be scored).
        %(knockout)s
        %(ablate_depth)s

        Returns
        -------
        int
            The predicted bracket type ``c`` (``0 <= c < k``).

        Raises
        ------
        InvalidInputError
            If the word or ``t`` is bad.

        Examples
        --------
        >>> DyckModel(2, 2, 6).predict((1, 2, -2, 1, -1, -1), 2)        # ']' closes '[' (type 1)
        1
        """
        w = self._word(w, t)
        if all(w[j] < 0 or j in set(knockout) for j in range(t)):
            return 0
        T, _ = self.transformer(w, t, knockout, ablate_depth)
        out = T.evaluate(self.query)[0]
        return max(range(self.k), key=lambda c: out[c])


@fill_doc(**_DOC)
def hard_accuracy(model, words, knockout=False, ablate_depth=False) -> dict:
    """Exact closing-type accuracy: over all closes and over long-distance ones (distance >= 3).

    ``knockout=True`` masks the true top-of-stack edge at every query.

    Parameters
    ----------
    model : DyckModel
        The model.
    words : iterable of sequence of int
        Balanced words the model reads.
    knockout : bool, optional
        Mask the true top-of-stack edge.
    %(ablate_depth)s

    Returns
    -------
    dict
        ``all`` and ``long`` accuracies (nan without such closes), ``n_all`` and ``n_long`` counts.

    Raises
    ------
    InvalidInputError
        If a word is not balanced or does not fit the model.

    Examples
    --------
    >>> model = DyckModel(2, 3, 10)
    >>> hard_accuracy(model, generate(5, 10, 2, 3))["all"]
    1.0
    """
    hits = {"all": [0, 0], "long": [0, 0]}
    for w in words:
        top, mt = top_of_stack(w), matches(w)
        for t in closing_positions(w):
            pred = model.predict(w, t, (top[t],) if knockout else (), ablate_depth)
            ok = pred == -w[t] - 1
            for key in ("all", "long") if t - mt[t] >= 3 else ("all",):
                hits[key][0] += ok
                hits[key][1] += 1
    out = {key: (h / n if n else math.nan) for key, (h, n) in hits.items()}
    out.update(n_all=hits["all"][1], n_long=hits["long"][1])
    return out


@dataclass(frozen=True)
class SoftRow:
    """Soft attention at one inverse temperature ``beta`` (floats, simulation).

    ``failures`` closes were mispredicted; ``outside_band`` of them had a score gap
    ``Delta >= tau log((n-1)/eps)`` (``tau = 1/beta``, ``n`` keys, ``eps = 1/2``): by
    :func:`tropattn.soft.weight_bounds` such a failure is impossible, so it is 0.
    ``max_failing_gap`` is the largest gap among failures, ``band`` the largest bound.
    """

    beta: float
    accuracy: float
    accuracy_long: float
    failures: int
    outside_band: int
    max_failing_gap: float
    band: float


def soft_sweep(model, words, betas, eps=0.5) -> list:
    """Accuracy of softmax attention ``softmax(beta s(x1))`` in layer 2, per ``beta``.

    The prediction is the argmax of ``sum_j p_j v_j``.  If ``1 - p* < 1/2`` the top's type
    holds more than half the mass and wins, so a failure needs ``1 - p* >= eps = 1/2``, and
    ``1 - p* <= (n-1) e^{-beta Delta}`` (docs/THEORY.md §5) puts it inside ``Delta < log((n-1)/eps)/beta``.
    Layer 1 stays hard (it only copies ``d_t``).

    Parameters
    ----------
    model : DyckModel
        The model.
    words : iterable of sequence of int
        Balanced words.
    betas : sequence of float
        Inverse temperatures (> 0).
    eps : float, optional
        The failure threshold on ``1 - p*`` (``0 < eps <= 1/2``).

    Returns
    -------
    list of SoftRow
        One row per ``beta``.

    Raises
    ------
    InvalidInputError
        If a ``beta`` is not positive and finite, ``eps`` is out of range, or a word is bad.

    Examples
    --------
    >>> rows = soft_sweep(DyckModel(2, 2, 8), generate(4, 8, 2, 2), [0.1, 100.0])
    >>> rows[-1].accuracy, [r.outside_band for r in rows]
    (1.0, [0, 0])
    """
    betas = [positive_float(b, "beta", rule="the inverse temperature must be a positive finite number")
             for b in betas]
    eps = bounded_float(eps, "eps", 0, 0.5, open_lo=True,
                        meaning="the failure threshold (a failure needs 1 - p* >= 1/2)")
    queries = []
    for w in words:
        mt = matches(w)
        for t in closing_positions(w):
            head, opens = model.layer2_head(w, t)
            x1 = np.array([[float(v) for v in model.layer2_query(w, t)]])
            label = head.label(model.layer2_query(w, t))
            h = head_arrays(head)
            gap = float(margin(h, x1, [label])[0])
            queries.append((h, x1, gap, -w[t] - 1, t - mt[t] >= 3))
    rows = []
    for beta in betas:
        tau = 1.0 / beta
        ok_all = ok_long = n_long = fails = outside = 0
        worst, band = -math.inf, 0.0
        for h, x1, gap, truth, long in queries:
            out = soft_weights(h, x1, tau)[0] @ h.V
            ok = bool(int(np.argmax(out)) == truth and np.sum(out == out.max()) == 1)
            upper = weight_bounds(gap, tau, h.N)[1]
            if h.N > 1:
                band = max(band, tau * math.log((h.N - 1) / eps))
            ok_all += ok
            n_long += long
            ok_long += ok and long
            if not ok:
                fails += 1
                worst = max(worst, gap)
                outside += bool(upper < eps)
        n = len(queries)
        rows.append(SoftRow(beta, ok_all / n if n else math.nan, ok_long / n_long if n_long else math.nan,
                            fails, outside, worst, band))
    return rows
