"""Soft attention in floats: scores, weights, outputs and Jacobians of heads, vectorised.

The one soft-attention kernel of tropattn: :meth:`tropattn.attention.Head.soft` and the
finite-temperature measurements (:mod:`tropattn.temperature`) both call it.  A head's
``score_scale`` (``1/sqrt(d_k)`` for heads built from weights) multiplies the scores, so
the temperature on the raw scores is ``tau / score_scale``.  How the defects stay accurate
in log space: :mod:`tropattn.temperature` and docs/ALGORITHMS.md §8.

>>> w = soft_weights(([[1], [-1]],), [[0.0], [100.0]], 1.0)
>>> w[0].tolist(), w[1].round(12).tolist()
([0.5, 0.5], [1.0, 0.0])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from collections.abc import Mapping

from ..errors import InvalidInputError
from ..exact import common_denominator, dot_signs, homogeneous_point, to_float_array, to_rational_matrix
from ._score_form import score_form

__all__ = ["HeadArrays", "head_arrays", "as_heads", "TAU_MIN", "scores", "margin", "hard_labels", "log_soft_weights", "soft_weights", "soft_output", "soft_jacobian"]


_CHUNK = 1 << 15  # points per vectorised block: bounds memory at N * d_out * d floats per point


@dataclass(frozen=True, eq=False)
class HeadArrays:
    """A head as exact rationals plus the float arrays the soft computations use.

    Attributes
    ----------
    keys, offsets, values : tuples of Fraction
        ``(N, d)``, ``(N,)`` and ``(N, d_out)``, exact.
    A, b, V : numpy.ndarray
        The same as float64 arrays (read-only).
    score_scale : float
        Factor on the scores in the soft map, read from ``head.score_scale`` as in
        :meth:`tropattn.attention.Head.soft` (``Head.from_weights`` sets ``1/sqrt(d_k)``):
        the soft map at ``tau`` is softmax of the raw scores at ``tau / score_scale``.
    value_spread : (N,) array
        ``M_j = max_k ||v_k - v_j||``: the output bound's constant when ``j* = j``.
    value_diameter : float
        ``D_V = max_{j,l} ||v_j - v_l||``.
    key_spread : (N,) array
        ``D_A(j) = max_k ||a_k - a_j||``.
    key_gap : (N,) array
        ``g_j = min_{k: a_k != a_j} ||a_k - a_j||`` (``inf`` if there is no such k).
    tie_gap : (N,) array
        ``min_{k != j: a_k = a_j} (b_j - b_k)``: the constant margin over repeated keys
        (``inf`` if key ``j`` is not repeated).
    source : object or None
        The object read, if it has a ``power_diagram()`` method (a ``Head``): exact cells
        are then taken from it (:func:`tropattn.temperature.cell_walls`).
    """

    keys: tuple
    offsets: tuple
    values: tuple
    A: np.ndarray
    b: np.ndarray
    V: np.ndarray
    value_spread: np.ndarray
    value_diameter: float
    key_spread: np.ndarray
    key_gap: np.ndarray
    tie_gap: np.ndarray
    _pairs: tuple
    _pair_rows: tuple
    source: object = None
    score_scale: float = 1.0

    def temperature(self, tau) -> float:
        """The temperature on the raw scores ``a_j . x + b_j``: ``tau / score_scale``.

        ``softmax(score_scale * s / tau) = softmax(s / (tau / score_scale))``.

        Parameters
        ----------
        tau : float
            Temperature on the scaled scores, finite and ``>= TAU_MIN``.

        Returns
        -------
        float
            ``tau / score_scale``.

        Raises
        ------
        InvalidInputError
            ``tau`` is NaN, infinite, ``<= 0`` or below :data:`TAU_MIN`.  (A ``tau``
            that ``float()`` cannot read raises its ``TypeError`` or ``ValueError``.)

        Examples
        --------
        A head built from weights with ``d_k = 4`` scales its scores by ``1/2``, so
        ``tau = 1`` on the scaled scores is ``tau = 2`` on the raw ones:

        >>> head_arrays({"keys": [[1], [-1]], "score_scale": 0.5}).temperature(1.0)
        2.0
        """
        return _tau(tau) / self.score_scale

    @property
    def N(self) -> int:
        return len(self.keys)

    @property
    def dim(self) -> int:
        return self.A.shape[1]

    @property
    def dim_out(self) -> int:
        return self.V.shape[1]


def head_arrays(head) -> HeadArrays:
    """Read a head by duck typing and precompute what the bounds need.

    ``head`` is a :class:`HeadArrays`, an object with attributes ``keys``,
    ``offsets``, ``values`` (such as :class:`tropattn.attention.Head`), a mapping with
    those keys, or a tuple ``(keys[, offsets[, values]])``.  Offsets default to 0 and
    values to the keys, as for ``Head``.

    Parameters
    ----------
    head : HeadArrays, Head, mapping or tuple
        The head; a :class:`HeadArrays` is returned unchanged and a ``Head``'s arrays
        are cached on it.

    Returns
    -------
    HeadArrays
        The exact data (checked by :func:`~tropattn.attention._score_form.score_form`),
        its float64 copies and the spreads and gaps the bounds use.

    Raises
    ------
    InvalidInputError
        ``head`` is none of the forms above (a list is several heads: use
        :func:`as_heads`), or its keys, offsets, values or scale are invalid.

    Examples
    --------
    Two keys at distance ``sqrt(2)``, values 1 and 3:

    >>> h = head_arrays(([[1, 0], [0, 1]], None, [[1], [3]]))
    >>> h.N, h.dim, h.dim_out, h.value_diameter
    (2, 2, 1, 2.0)
    >>> round(float(h.key_gap[0]) ** 2, 12), h.tie_gap.tolist()       # no repeated key
    (2.0, [inf, inf])
    """
    if isinstance(head, HeadArrays):
        return head
    scale = 1.0
    if isinstance(head, Mapping):
        keys, offsets, values = head.get("keys"), head.get("offsets"), head.get("values")
        scale = head.get("score_scale", 1.0)
    elif hasattr(head, "keys") and not isinstance(head, (tuple, list)):
        keys, offsets, values = head.keys, getattr(head, "offsets", None), getattr(head, "values", None)
        scale = getattr(head, "score_scale", 1.0)
    elif isinstance(head, tuple) and 1 <= len(head) <= 3:
        keys, offsets, values = (tuple(head) + (None, None))[:3]
    else:
        raise InvalidInputError(
            f"cannot read a head from {type(head).__name__}; pass a Head, a mapping with 'keys' "
            "(and optionally 'offsets', 'values'), or a tuple (keys, offsets, values); "
            "a list means several heads")
    cache = getattr(head, "_cache", None)          # a Head: validated already, arrays cached on it
    if isinstance(cache, dict) and "arrays" in cache:
        return cache["arrays"]
    K, B, Vq, scale = score_form(keys, offsets, values, scale)
    n = len(K)
    A, b, V = (_readonly(to_float_array(M)) for M in (K, B, Vq))
    vdist = np.linalg.norm(V[:, None, :] - V[None, :, :], axis=2)
    adist = np.linalg.norm(A[:, None, :] - A[None, :, :], axis=2)
    same_key = np.array([[K[j] == K[k] for k in range(n)] for j in range(n)])
    gaps = np.where(same_key, np.inf, adist)
    tie = np.full(n, np.inf)
    for j in range(n):
        for k in range(n):
            if k != j and same_key[j, k]:
                tie[j] = min(tie[j], float(B[j] - B[k]))
    den = common_denominator([x for row in K for x in row] + list(B))
    rows = [tuple(int(v * den) for v in row) + (int(bj * den),) for row, bj in zip(K, B)]
    pairs = tuple((j, k) for j in range(n) for k in range(j + 1, n))
    pair_rows = tuple(tuple(x - y for x, y in zip(rows[j], rows[k])) for j, k in pairs)
    arrays = HeadArrays(keys=K, offsets=B, values=Vq, A=A, b=b, V=V,
                        value_spread=_readonly(vdist.max(axis=1)), value_diameter=float(vdist.max()),
                        key_spread=_readonly(adist.max(axis=1)), key_gap=_readonly(gaps.min(axis=1)),
                        tie_gap=_readonly(tie), _pairs=pairs, _pair_rows=pair_rows,
                        source=head if callable(getattr(head, "power_diagram", None)) else None,
                        score_scale=scale)
    if isinstance(cache, dict):
        cache["arrays"] = arrays
    return arrays


def _readonly(a):
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def as_heads(heads) -> list:
    """One head or several as a list of :class:`HeadArrays`.

    Accepts a head (any form :func:`head_arrays` reads), a list of heads, a layer
    (anything with ``heads``; its ``projection``, if any, is folded into the values)
    or a one-layer model (anything with ``layers``).  The heads of a layer must share
    the query and value dimensions (their outputs are summed).

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        What to read; a tuple counts as several heads only if every item is a head
        (a ``HeadArrays``, a mapping or has ``offsets``), else as one head ``(keys, ...)``.

    Returns
    -------
    list of HeadArrays
        At least one, all with the same ``dim`` and ``dim_out``.

    Raises
    ------
    InvalidInputError
        A model with more or fewer than one layer, no heads, heads whose query or
        value dimensions differ, a projection of the wrong shape, or a head
        :func:`head_arrays` cannot read.

    Examples
    --------
    >>> [h.N for h in as_heads([([[1], [-1]],), ([[0], [1], [2]],)])]
    [2, 3]
    >>> from tropattn.attention import Head, Layer
    >>> layer = Layer([Head([[1], [-1]], values=[[1], [2]])], projection=[[2]])
    >>> [v.tolist() for v in as_heads(layer)[0].V]        # values folded through P = 2
    [[2.0], [4.0]]
    """
    if hasattr(heads, "layers"):
        layers = heads.layers
        if len(layers) != 1:
            raise InvalidInputError(
                f"the model has {len(layers)} layers; the bounds of docs/THEORY.md §5 are for one attention layer. "
                "Pass one layer (model.layers[0]) or its heads")
        heads = layers[0]
    if hasattr(heads, "heads"):
        projection = getattr(heads, "projection", None)
        hs = [head_arrays(h) for h in heads.heads]
        if projection is not None:
            hs = [_project(h, projection) for h in hs]
        heads = hs
    if isinstance(heads, list) or (isinstance(heads, tuple) and heads and
                                   all(isinstance(h, (HeadArrays, Mapping)) or hasattr(h, "offsets")
                                       for h in heads)):
        out = [head_arrays(h) for h in heads]
    else:
        out = [head_arrays(heads)]
    if not out:
        raise InvalidInputError("no heads given; pass a head or a non-empty list of heads")
    if len({(h.dim, h.dim_out) for h in out}) != 1:
        raise InvalidInputError(
            "the heads differ in query or value dimension: "
            + ", ".join(f"(d={h.dim}, d_out={h.dim_out})" for h in out)
            + "; heads of one layer must share both to be summed")
    return out


def _project(h: HeadArrays, P) -> HeadArrays:
    """Fold an output projection into the values: y = P sum_h v_h."""
    P = to_rational_matrix(P, "projection", cols=len(h.values[0]))
    values = tuple(tuple(sum(p * v for p, v in zip(row, val)) for row in P) for val in h.values)
    projected = head_arrays((h.keys, h.offsets, values))
    return HeadArrays(**{**projected.__dict__, "source": h.source, "score_scale": h.score_scale})


def _points(X, d: int) -> np.ndarray:
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X[None, :]
    if X.ndim != 2 or X.shape[1] != d:
        raise InvalidInputError(f"X has shape {X.shape}; expected (n, {d}) or ({d},) query points")
    if not np.all(np.isfinite(X)):
        raise InvalidInputError("X contains NaN or infinite coordinates; query points must be finite")
    return X


def _tau(tau) -> float:
    """The one temperature validator: a finite float ``>= TAU_MIN``."""
    try:
        t = float(tau)
    except (TypeError, ValueError):
        raise InvalidInputError(f"tau = {tau!r} is not a number; give a temperature such as 0.1 or 1") from None
    if not (math.isfinite(t) and t > 0):
        raise InvalidInputError(f"tau = {tau!r}; the temperature must be a finite number > 0 "
                                "(tau -> 0 is the hard skeleton: use the head's label/hard instead)")
    if t < TAU_MIN:
        raise InvalidInputError(
            f"tau = {tau!r} is below {TAU_MIN:g}: margins/tau then exceed what float64 log-space can resolve, "
            "so measured/bound ratios would be noise. Use reference_defects (mpmath) at single points, or "
            "rescale the scores")
    return t

#: The smallest temperature the vectorised (float64, log-space) measurements accept.
TAU_MIN = 1e-9


def scores(head, X) -> np.ndarray:
    """Scores ``s_j(x) = a_j . x + b_j`` of query points, shape ``(n, N)``.

    In floats, unscaled (``score_scale`` enters only the soft maps).

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).

    Returns
    -------
    numpy.ndarray, shape (n, N)
        ``S[i, j] = s_j(X[i])``.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), or ``X`` has the wrong shape or a
        NaN or infinite coordinate.

    Examples
    --------
    >>> scores(([[1, 0], [0, 1]], [0, 1]), [[2.0, 3.0]]).tolist()
    [[2.0, 4.0]]
    """
    h = head_arrays(head)
    return _mm(_points(X, h.dim), h.A.T) + h.b


def _mm(P, M):
    """``P @ M`` for a tall ``P`` and a small ``M``: einsum's C loop, measured faster here
    than a multithreaded BLAS call on such skinny shapes (scripts/bench_soft.py)."""
    return np.einsum("nj,jm->nm", P, M)


def _labels_or_argmax(S, labels):
    if labels is None:
        return np.argmax(S, axis=1)
    labels = np.asarray(labels, dtype=np.intp)
    if labels.shape != S.shape[:1] or np.any(labels < 0) or np.any(labels >= S.shape[1]):
        raise InvalidInputError(
            "labels must be one key index in range(N) per point (ties, labelled -1, have no margin); "
            "drop tied points first")
    return labels


def _margin_from_scores(S, labels):
    n, N = S.shape
    if N == 1:
        return np.full(n, np.inf)
    rows = np.arange(n)
    others = S.copy()
    others[rows, labels] = -np.inf
    return S[rows, labels] - others.max(axis=1)


def margin(head, X, labels=None) -> np.ndarray:
    """Score margin ``Delta(x) = s_{j*}(x) - max_{j != j*} s_j(x)``, vectorised.

    ``j*`` is ``labels`` if given (e.g. the exact :func:`hard_labels`), else the float
    argmax.  ``Delta`` is ``inf`` for a head with one key.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).
    labels : array_like of int, shape (n,), optional
        The winning key of each point, in ``range(N)`` (no ``-1``).

    Returns
    -------
    numpy.ndarray, shape (n,)
        ``Delta(x)``; negative where ``labels`` names a key that does not win.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), ``X`` has the wrong shape or a
        NaN or infinite coordinate, or ``labels`` has the wrong shape or an index
        outside ``range(N)``.

    Examples
    --------
    >>> margin(([[1], [-1]],), [[0.5], [-2.0]]).tolist()     # |2x|
    [1.0, 4.0]
    """
    S = scores(head, X)
    return _margin_from_scores(S, _labels_or_argmax(S, labels))


def hard_labels(head, X) -> np.ndarray:
    """Exact argmax ``j*(x)`` of float query points; ``-1`` where scores tie.

    Every float is a rational, so the comparison ``s_j(x) > s_k(x)`` has an exact
    answer; :func:`tropattn.exact.dot_signs` gives it (float filter, integer
    fallback), for every pair of keys and every point at once.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).

    Returns
    -------
    numpy.ndarray of intp, shape (n,)
        The index of the key with the strictly largest score, ``-1`` on a tie (keys
        equal in ``a_j`` and ``b_j`` tie everywhere).  Exact.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), or ``X`` has the wrong shape or a
        NaN or infinite coordinate.

    Examples
    --------
    ``-1e-300`` is a nonzero rational, so key 1 wins there exactly:

    >>> hard_labels(([[1], [-1]],), [[0.5], [0.0], [-1e-300]]).tolist()
    [0, -1, 1]
    """
    h = head_arrays(head)
    X = _points(X, h.dim)
    n = X.shape[0]
    if h.N == 1:
        return np.zeros(n, dtype=np.intp)
    cols = [_homogeneous_int(x) for x in X.tolist()]
    wins = np.zeros((h.N, n), dtype=np.int32)
    for start in range(0, n, _CHUNK):
        block = dot_signs(list(h._pair_rows), cols[start:start + _CHUNK])
        for (j, k), sign in zip(h._pairs, block):
            wins[j, start:start + len(sign)] += sign > 0
            wins[k, start:start + len(sign)] += sign < 0
    best = wins.argmax(axis=0)
    return np.where(wins.max(axis=0) == h.N - 1, best, -1).astype(np.intp)


def _homogeneous_int(x):
    """A float point as integers ``(n_1, ..., n_d, den)`` with ``x_i = n_i / den``, exactly."""
    num, den = homogeneous_point([Fraction(*v.as_integer_ratio()) for v in x])
    return tuple(num) + (den,)


def log_soft_weights(head, X, tau) -> np.ndarray:
    """``ln p_j(x)`` of ``p = softmax(s(x) / tau)``, shape ``(n, N)``; never underflows.

    Computed as ``z_j - ln sum_k e^{z_k}`` with ``z = (s - max s) / tau`` (floats).

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).
    tau : float
        Temperature ``>= TAU_MIN`` on the head's scaled scores (divided by
        ``score_scale`` for the raw scores, :meth:`HeadArrays.temperature`).

    Returns
    -------
    numpy.ndarray, shape (n, N)
        ``ln p_j(X[i])``, finite even where ``p_j`` underflows to 0.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), ``X`` has the wrong shape or a
        NaN or infinite coordinate, or ``tau`` is not a finite number ``>= TAU_MIN``.

    Examples
    --------
    >>> np.exp(log_soft_weights(([[1], [-1]],), [[0.0]], 1.0)).round(12).tolist()
    [[0.5, 0.5]]
    >>> log_soft_weights(([[1], [-1]],), [[1.0]], 1e-3)[0, 1]     # ln p_1 = -2000, p_1 = e^{-2000}
    np.float64(-2000.0)
    """
    h = head_arrays(head)
    Z = scores(h, X) / h.temperature(tau)
    Z = Z - Z.max(axis=1, keepdims=True)
    return Z - np.log(np.exp(Z).sum(axis=1, keepdims=True))


def soft_weights(head, X, tau) -> np.ndarray:
    """Soft attention weights ``softmax(s(x) / tau)``, shape ``(n, N)``.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).
    tau : float
        Temperature ``>= TAU_MIN`` on the head's scaled scores (divided by
        ``score_scale`` for the raw scores, :meth:`HeadArrays.temperature`).

    Returns
    -------
    numpy.ndarray, shape (n, N)
        Rows sum to 1 (floats); ``exp`` of :func:`log_soft_weights`.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), ``X`` has the wrong shape or a
        NaN or infinite coordinate, or ``tau`` is not a finite number ``>= TAU_MIN``.

    Examples
    --------
    On the wall ``x = 0`` the two keys share the weight; far from it the winner takes it:

    >>> w = soft_weights(([[1], [-1]],), [[0.0], [100.0]], 1.0)
    >>> w[0].tolist(), w[1].round(12).tolist()
    ([0.5, 0.5], [1.0, 0.0])
    """
    return np.exp(log_soft_weights(head, X, tau))


def _head_terms(h: HeadArrays, X, tau, labels, jacobian=True, with_margin=True):
    """Log-space pieces of one head at points X: margin, ln(1 - p*), labels, w, K (module docstring)."""
    S = _mm(X, h.A.T) + h.b
    labels = _labels_or_argmax(S, labels)
    n, N = S.shape
    m, d = h.dim_out, h.dim
    K = np.zeros((n, m, d)) if jacobian else None
    if N == 1:
        return np.full(n, np.inf), np.full(n, -np.inf), labels, np.zeros((n, m)), K
    rows = np.arange(n)
    marg = _margin_from_scores(S, labels) if with_margin else None
    E = S - S[rows, labels][:, None]
    E *= 1.0 / tau
    E[rows, labels] = -np.inf
    zmax = E.max(axis=1)
    E -= zmax[:, None]
    np.exp(E, out=E)
    sE = E.sum(axis=1)
    log1mp = -np.logaddexp(0.0, -(zmax + np.log(sE)))  # ln(e^u / (1 + e^u)), u = ln sum_{j != j*} e^{z_j - z*}
    E /= sE[:, None]                                    # q: the softmax over the losers
    order = np.argsort(labels, kind="stable")
    q, p1m = E[order], np.exp(log1mp[order])
    w, Ks = np.empty((n, m)), np.empty((n, m, d)) if jacobian else None
    start = 0
    for j, count in enumerate(np.bincount(labels, minlength=N)):
        if count == 0:
            continue
        sl = slice(start, start + count)
        start += count
        Vd = h.V - h.V[j]
        w[sl] = _mm(q[sl], Vd)
        if jacobian:
            Ad = h.A - h.A[j]
            qa = _mm(q[sl], Ad)
            outer = (Vd[:, :, None] * Ad[:, None, :]).reshape(N, m * d)
            Ks[sl] = _mm(q[sl], outer).reshape(-1, m, d) - p1m[sl, None, None] * w[sl][:, :, None] * qa[:, None, :]
    W = np.empty((n, m))
    W[order] = w
    if jacobian:
        K[order] = Ks
    return marg, log1mp, labels, W, K


def _blocks(h, X, tau, jacobian):
    for start in range(0, X.shape[0], _CHUNK):
        yield start, _head_terms(h, X[start:start + _CHUNK], tau, None, jacobian, with_margin=False)


def soft_output(head, X, tau) -> np.ndarray:
    """Soft attention output ``y_tau(x) = sum_j p_j v_j``, shape ``(n, d_out)``.

    Computed as ``v_{j*} + (1 - p*) w`` (module docstring), which keeps the small
    defect ``y_tau - v_{j*}`` accurate.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).
    tau : float
        Temperature ``>= TAU_MIN`` on the head's scaled scores (divided by
        ``score_scale`` for the raw scores, :meth:`HeadArrays.temperature`).

    Returns
    -------
    numpy.ndarray, shape (n, d_out)
        ``y_tau(X[i])`` (floats).

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), ``X`` has the wrong shape or a
        NaN or infinite coordinate, or ``tau`` is not a finite number ``>= TAU_MIN``.

    Examples
    --------
    On the wall the output is the mean of the values; as ``tau -> 0`` it tends to the
    hard output ``v_{j*}``:

    >>> soft_output(([[1], [-1]], None, [[1.0], [3.0]]), [[0.0]], 1.0).tolist()
    [[2.0]]
    >>> soft_output(([[1], [-1]], None, [[1.0], [3.0]]), [[1.0]], 0.01).tolist()  # 1 + 2 e^{-200}
    [[1.0]]
    """
    h = head_arrays(head)
    X = _points(X, h.dim)
    tau = h.temperature(tau)
    Y = np.empty((X.shape[0], h.dim_out))
    for start, (_, log1mp, labels, w, _) in _blocks(h, X, tau, jacobian=False):
        Y[start:start + len(labels)] = h.V[labels] + np.exp(log1mp)[:, None] * w
    return Y


def soft_jacobian(head, X, tau, return_output: bool = False):
    """Jacobian ``J_tau(x) = (1/tau) sum_j p_j (v_j - y_tau)(a_j - a_{j*})^T``, shape ``(n, d_out, d)``.

    Any fixed index may replace ``j*`` (``sum_j p_j (v_j - y_tau) = 0``); using the
    argmax keeps the result accurate when it is tiny.  With ``return_output=True``
    returns ``(y_tau, J_tau)`` from one pass.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).
    tau : float
        Temperature ``>= TAU_MIN`` on the head's scaled scores (divided by
        ``score_scale`` for the raw scores, :meth:`HeadArrays.temperature`).
    return_output : bool, optional
        Also return the soft output (default False).

    Returns
    -------
    numpy.ndarray, shape (n, d_out, d)
        ``J_tau(X[i])`` (floats); with ``return_output=True`` the pair
        ``(Y, J)`` with ``Y`` of shape ``(n, d_out)`` as :func:`soft_output`.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), ``X`` has the wrong shape or a
        NaN or infinite coordinate, or ``tau`` is not a finite number ``>= TAU_MIN``.

    Examples
    --------
    >>> J = soft_jacobian(([[1], [-1]], None, [[1.0], [3.0]]), [[0.0]], 1.0)
    >>> J.shape, float(J[0, 0, 0])          # d/dx (1 + 2 sigmoid(-2x)) at 0 = -1
    ((1, 1, 1), -1.0)
    >>> Y, J = soft_jacobian(([[1], [-1]], None, [[1.0], [3.0]]), [[0.0]], 1.0, return_output=True)
    >>> Y.tolist()
    [[2.0]]
    """
    h = head_arrays(head)
    X = _points(X, h.dim)
    tau = h.temperature(tau)
    J = np.empty((X.shape[0], h.dim_out, h.dim))
    Y = np.empty((X.shape[0], h.dim_out)) if return_output else None
    for start, (_, log1mp, labels, w, K) in _blocks(h, X, tau, jacobian=True):
        p1m = np.exp(log1mp)
        J[start:start + len(labels)] = (p1m / tau)[:, None, None] * K
        if return_output:
            Y[start:start + len(labels)] = h.V[labels] + p1m[:, None] * w
    return (Y, J) if return_output else J
