r"""The soft-attention kernel in floats: one stable softmax, the float forward, and the head maps.

**Softmax.**  :func:`logsumexp`, :func:`log_softmax` and :func:`softmax` are the one stable
implementation in tropattn (shift by the row maximum, exponentiate once, normalise), along
any axis of any array; a row of only ``-inf`` (a query left without keys) has log-sum-exp
``-inf`` and weights 0.  :func:`attend` is the one float forward of attention,
``softmax(beta * scale * Q K^T) V`` batched by ``numpy.matmul`` (heads, blocks of queries):
the simulators of :mod:`tropattn.dynamics` and :mod:`tropattn.tasks` and the soft forward of
real checkpoints in :mod:`tropattn.io` all call it.

**Heads.**  A head scores the query ``x`` by ``s_j(x) = a_j . x + b_j``; its ``score_scale``
(``1/sqrt(d_k)`` for heads built from weights) multiplies the scores, so the temperature on
the raw scores is ``tau / score_scale``.  :func:`scores`, :func:`margin`,
:func:`log_soft_weights`, :func:`soft_weights`, :func:`soft_output` and :func:`soft_jacobian`
are vectorised over query points.  Outputs and Jacobians are computed in log space around
the winner ``j*`` (``y_tau = v_{j*} + (1 - p*) w``; docs/ALGORITHMS.md §8), which keeps the
tiny defects of a cold softmax accurate long after ``e^{-Delta/tau}`` underflows.

>>> softmax(np.array([[0.0, np.log(3.0)], [-np.inf, 0.0]])).round(12).tolist()
[[0.25, 0.75], [0.0, 1.0]]
>>> w = soft_weights(([[1], [-1]],), [[0.0], [100.0]], 1.0)
>>> w[0].tolist(), w[1].round(12).tolist()
([0.5, 0.5], [1.0, 0.0])
"""

from __future__ import annotations

import numpy as np

from .._config import config
from .._doc import fill_doc
from .._validate import positive_float
from ..attention import HeadArrays, head_arrays
from ..errors import InvalidInputError

__all__ = ["TAU_MIN", "check_tau", "raw_temperature", "logsumexp", "log_softmax", "softmax", "attend", "scores", "margin", "log_soft_weights",
           "soft_weights", "soft_output", "soft_jacobian"]

#: The smallest temperature the vectorised (float64, log-space) measurements accept.
TAU_MIN = 1e-9

#: Parameter descriptions shared by the functions of tropattn.soft (see tropattn._doc).
DOC = {
    "head": """head : Head, HeadArrays, mapping or tuple
    Any form :func:`tropattn.attention.head_arrays` reads: keys ``(N, d)``, offsets
    ``(N,)``, values ``(N, d_out)``.""",
    "heads": """heads : head, list of heads, Layer or one-layer Transformer
    Anything :func:`tropattn.attention.as_heads` reads; several heads have their outputs
    summed.""",
    "X": """X : array_like, shape (n, d) or (d,)
    Finite float query points (one point may be given as a vector).""",
    "tau": """tau : float
    Temperature ``>= TAU_MIN`` on the head's scaled scores (divided by ``score_scale``
    for the raw scores).""",
    "raises": """InvalidInputError
    The head cannot be read (:func:`tropattn.attention.head_arrays`), ``X`` has the
    wrong shape or a NaN or infinite coordinate, or ``tau`` is not a finite number
    ``>= TAU_MIN``.""",
    "axis": """axis : int, optional
    The axis of the entries to normalise (default the last).""",
}


def check_tau(tau, name: str = "tau") -> float:
    """The one temperature validator of the soft kernels: a finite float ``>= TAU_MIN``.

    Parameters
    ----------
    tau : object
        The temperature given.
    name : str, optional
        Its name in the message (default ``"tau"``).

    Returns
    -------
    float

    Raises
    ------
    InvalidInputError
        Not a number, NaN, infinite, ``<= 0`` or below :data:`TAU_MIN`.

    Examples
    --------
    >>> check_tau("0.5")
    0.5
    >>> check_tau(0)
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: tau = 0; the temperature must be a finite number > 0 (tau -> 0 is the hard skeleton: use the head's label/hard instead)
    """
    t = positive_float(tau, name, rule="the temperature must be a finite number > 0 (tau -> 0 is the hard "
                                       "skeleton: use the head's label/hard instead)")
    if t < TAU_MIN:
        raise InvalidInputError(
            f"{name} = {tau!r} is below {TAU_MIN:g}: margins/tau then exceed what float64 log-space can resolve, "
            "so measured/bound ratios would be noise. Use reference_defects (mpmath) at single points, or "
            "rescale the scores")
    return t


def raw_temperature(h: HeadArrays, tau) -> float:
    """The temperature on the raw scores ``a_j . x + b_j``: ``tau / score_scale``.

    ``softmax(score_scale * s / tau) = softmax(s / (tau / score_scale))``.

    Examples
    --------
    A head built from weights with ``d_k = 4`` scales its scores by ``1/2``, so ``tau = 1``
    on the scaled scores is ``tau = 2`` on the raw ones:

    >>> raw_temperature(head_arrays({"keys": [[1], [-1]], "score_scale": 0.5}), 1.0)
    2.0
    """
    return check_tau(tau) / h.score_scale


# --------------------------------------------------------------------------- the one softmax
def _normalise(Z, axis, inplace=False, lse=True):
    """``(lse, P)``: log-sum-exp along ``axis`` (kept as a length-1 axis) and the softmax weights.

    One shift by the maximum, one ``exp``, one sum; rows of only ``-inf`` give ``lse = -inf``
    and weights 0.  With ``inplace`` the weights overwrite ``Z`` (a float array); with
    ``lse=False`` only the weights are computed (``lse`` is returned as None).
    """
    m = np.max(Z, axis=axis, keepdims=True)
    finite = np.isfinite(m)
    if not finite.all():
        m = np.where(finite, m, 0.0)
    P = np.subtract(Z, m, out=Z if inplace else None)
    np.exp(P, out=P)
    s = P.sum(axis=axis, keepdims=True)
    empty = s == 0
    if empty.any():
        s[empty] = 1.0
        P /= s
        if not lse:
            return None, P
        with np.errstate(divide="ignore"):
            return np.where(empty, -np.inf, m + np.log(s)), P
    P /= s
    return (m + np.log(s) if lse else None), P


@fill_doc(**DOC)
def logsumexp(Z, axis: int = -1, keepdims: bool = False) -> np.ndarray:
    """``ln sum_j e^{Z_j}`` along an axis, without overflow or underflow.

    Parameters
    ----------
    Z : array_like
        Log-weights (``-inf`` allowed: a weight 0).
    %(axis)s
    keepdims : bool, optional
        Keep the reduced axis with length 1 (default False).

    Returns
    -------
    numpy.ndarray
        ``max Z + ln sum e^{Z - max Z}``; ``-inf`` for a row of only ``-inf``.

    Examples
    --------
    >>> float(logsumexp([1000.0, 1000.0])) == 1000.0 + float(np.log(2.0))
    True
    """
    Z = np.asarray(Z, dtype=float)
    lse, _ = _normalise(Z, axis)
    return lse if keepdims else np.squeeze(lse, axis=axis)


@fill_doc(**DOC)
def log_softmax(Z, axis: int = -1) -> np.ndarray:
    """``Z_j - ln sum_k e^{Z_k}`` along an axis: logarithms of softmax weights, never underflowing.

    Parameters
    ----------
    Z : array_like
        Scores (``-inf``: a masked entry).
    %(axis)s

    Returns
    -------
    numpy.ndarray
        Of the shape of ``Z``.

    Examples
    --------
    >>> log_softmax([0.0, -2000.0]).tolist()                 # p_1 = e^{-2000}: only its log is a float
    [0.0, -2000.0]
    """
    Z = np.asarray(Z, dtype=float)
    lse, _ = _normalise(Z, axis)
    return Z - lse


@fill_doc(**DOC)
def softmax(Z, axis: int = -1) -> np.ndarray:
    """``e^{Z_j} / sum_k e^{Z_k}`` along an axis (stable: shifted by the maximum first).

    Parameters
    ----------
    Z : array_like
        Scores (``-inf``: a masked entry, weight 0).
    %(axis)s

    Returns
    -------
    numpy.ndarray
        Weights of the shape of ``Z``, summing to 1 along ``axis`` (0 on a row of only ``-inf``).

    Examples
    --------
    >>> softmax([[1000.0, 1000.0, -np.inf]]).tolist()
    [[0.5, 0.5, 0.0]]
    """
    Z = np.array(Z, dtype=float)
    return _normalise(Z, axis, inplace=True, lse=False)[1]


def attend(Q, K, V, scale: float = 1.0, *, mask=None, beta: float = 1.0, hard: bool = False,
           return_scores: bool = False):
    """The float forward of attention: ``softmax(beta * S) V`` with ``S = scale * Q K^T``.

    Batched over leading axes by ``numpy.matmul`` (several heads, blocks of queries).
    ``hard=True`` is the zero-temperature skeleton: each query reads the value of its
    best-scoring key (the first among equal scores, as ``argmax``).

    Parameters
    ----------
    Q : array_like, shape (..., q, d)
        Queries.
    K : array_like, shape (..., n, d)
        Keys.
    V : array_like, shape (..., n, m)
        Values.
    scale : float, optional
        Factor on the scores (``1/sqrt(d_k)`` for scaled dot-product attention; default 1).
    mask : array_like of bool, shape broadcastable to (..., q, n), optional
        True where a query may not read a key (its score becomes ``-inf``).
    beta : float, optional
        Inverse temperature on the scaled scores (default 1).
    hard : bool, optional
        Argmax attention instead of softmax (default False).
    return_scores : bool, optional
        Also return ``S`` (default False).

    Returns
    -------
    numpy.ndarray, shape (..., q, m)
        The outputs; with ``return_scores=True`` the pair ``(outputs, S)``.

    Examples
    --------
    >>> Q, K, V = np.eye(2), np.eye(2), np.array([[1.0], [3.0]])
    >>> attend(Q, K, V, beta=np.log(3.0)).round(12).tolist()     # weights (3/4, 1/4) and (1/4, 3/4)
    [[1.5], [2.5]]
    >>> causal = np.triu(np.ones((2, 2), bool), 1)                # query 0 reads key 0 only
    >>> attend(Q, K, V, hard=True).tolist(), attend(Q, K, V, mask=causal).round(3).tolist()
    ([[1.0], [3.0]], [[1.0], [2.462]])
    """
    S = np.matmul(Q, np.swapaxes(K, -1, -2))
    if scale != 1.0:
        S *= scale
    if mask is not None:
        S = np.where(mask, -np.inf, S)
    if hard:
        W = np.zeros_like(S)
        np.put_along_axis(W, np.argmax(S, axis=-1)[..., None], 1.0, axis=-1)
    else:
        W = beta * S if beta != 1.0 else (np.array(S) if return_scores else S)
        _normalise(W, -1, inplace=True, lse=False)
    out = np.matmul(W, V)
    return (out, S) if return_scores else out


# --------------------------------------------------------------------------- heads at query points
@fill_doc(**DOC)
def scores(head, X) -> np.ndarray:
    """Scores ``s_j(x) = a_j . x + b_j`` of query points, shape ``(n, N)``.

    In floats, unscaled (``score_scale`` enters only the soft maps).

    Parameters
    ----------
    %(head)s
    %(X)s

    Returns
    -------
    numpy.ndarray, shape (n, N)
        ``S[i, j] = s_j(X[i])``.

    Raises
    ------
    InvalidInputError
        The head cannot be read, or ``X`` has the wrong shape or a NaN or infinite
        coordinate.

    Examples
    --------
    >>> scores(([[1, 0], [0, 1]], [0, 1]), [[2.0, 3.0]]).tolist()
    [[2.0, 4.0]]
    """
    h = head_arrays(head)
    return _mm(h.points(X), h.A.T) + h.b


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


@fill_doc(**DOC)
def margin(head, X, labels=None) -> np.ndarray:
    """Score margin ``Delta(x) = s_{j*}(x) - max_{j != j*} s_j(x)``, vectorised.

    ``j*`` is ``labels`` if given (e.g. the exact :func:`tropattn.attention.hard_labels`),
    else the float argmax.  ``Delta`` is ``inf`` for a head with one key.

    Parameters
    ----------
    %(head)s
    %(X)s
    labels : array_like of int, shape (n,), optional
        The winning key of each point, in ``range(N)`` (no ``-1``).

    Returns
    -------
    numpy.ndarray, shape (n,)
        ``Delta(x)``; negative where ``labels`` names a key that does not win.

    Raises
    ------
    InvalidInputError
        The head cannot be read, ``X`` has the wrong shape or a NaN or infinite
        coordinate, or ``labels`` has the wrong shape or an index outside ``range(N)``.

    Examples
    --------
    >>> margin(([[1], [-1]],), [[0.5], [-2.0]]).tolist()     # |2x|
    [1.0, 4.0]
    """
    S = scores(head, X)
    return _margin_from_scores(S, _labels_or_argmax(S, labels))


@fill_doc(**DOC)
def log_soft_weights(head, X, tau) -> np.ndarray:
    """``ln p_j(x)`` of ``p = softmax(s(x) / tau)``, shape ``(n, N)``; never underflows.

    :func:`log_softmax` of the raw scores at the raw temperature ``tau / score_scale``.

    Parameters
    ----------
    %(head)s
    %(X)s
    %(tau)s

    Returns
    -------
    numpy.ndarray, shape (n, N)
        ``ln p_j(X[i])``, finite even where ``p_j`` underflows to 0.

    Raises
    ------
    %(raises)s

    Examples
    --------
    >>> np.exp(log_soft_weights(([[1], [-1]],), [[0.0]], 1.0)).round(12).tolist()
    [[0.5, 0.5]]
    >>> log_soft_weights(([[1], [-1]],), [[1.0]], 1e-3)[0, 1]     # ln p_1 = -2000, p_1 = e^{-2000}
    np.float64(-2000.0)
    """
    h = head_arrays(head)
    return log_softmax(scores(h, X) / raw_temperature(h, tau), axis=1)


@fill_doc(**DOC)
def soft_weights(head, X, tau) -> np.ndarray:
    """Soft attention weights ``softmax(s(x) / tau)``, shape ``(n, N)``.

    Parameters
    ----------
    %(head)s
    %(X)s
    %(tau)s

    Returns
    -------
    numpy.ndarray, shape (n, N)
        Rows sum to 1 (floats); :func:`softmax` of the scores at the raw temperature.

    Raises
    ------
    %(raises)s

    Examples
    --------
    On the wall ``x = 0`` the two keys share the weight; far from it the winner takes it:

    >>> w = soft_weights(([[1], [-1]],), [[0.0], [100.0]], 1.0)
    >>> w[0].tolist(), w[1].round(12).tolist()
    ([0.5, 0.5], [1.0, 0.0])
    """
    h = head_arrays(head)
    return softmax(scores(h, X) / raw_temperature(h, tau), axis=1)


def head_terms(h: HeadArrays, X, tau, labels, jacobian=True, with_margin=True):
    """Log-space pieces of one head at points ``X`` (raw temperature ``tau``), around the winner.

    Returns ``(margin, ln(1 - p*), labels, w, K)`` with ``q`` the softmax over the losers,
    ``w = sum_{j != j*} q_j (v_j - v_{j*})`` and ``K`` the Jacobian factor of the module
    docstring (``None`` unless ``jacobian``); the margin is ``None`` unless ``with_margin``.
    """
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
    lse, _ = _normalise(E, 1, inplace=True)             # E becomes q: the softmax over the losers
    log1mp = -np.logaddexp(0.0, -lse[:, 0])             # ln(e^u / (1 + e^u)), u = ln sum_{j != j*} e^{z_j - z*}
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
    chunk = config.soft_block_points
    for start in range(0, X.shape[0], chunk):
        yield start, head_terms(h, X[start:start + chunk], tau, None, jacobian, with_margin=False)


@fill_doc(**DOC)
def soft_output(head, X, tau) -> np.ndarray:
    """Soft attention output ``y_tau(x) = sum_j p_j v_j``, shape ``(n, d_out)``.

    Computed as ``v_{j*} + (1 - p*) w`` (module docstring), which keeps the small
    defect ``y_tau - v_{j*}`` accurate.

    Parameters
    ----------
    %(head)s
    %(X)s
    %(tau)s

    Returns
    -------
    numpy.ndarray, shape (n, d_out)
        ``y_tau(X[i])`` (floats).

    Raises
    ------
    %(raises)s

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
    X = h.points(X)
    tau = raw_temperature(h, tau)
    Y = np.empty((X.shape[0], h.dim_out))
    for start, (_, log1mp, labels, w, _) in _blocks(h, X, tau, jacobian=False):
        Y[start:start + len(labels)] = h.V[labels] + np.exp(log1mp)[:, None] * w
    return Y


@fill_doc(**DOC)
def soft_jacobian(head, X, tau, return_output: bool = False):
    """Jacobian ``J_tau(x) = (1/tau) sum_j p_j (v_j - y_tau)(a_j - a_{j*})^T``, shape ``(n, d_out, d)``.

    Any fixed index may replace ``j*`` (``sum_j p_j (v_j - y_tau) = 0``); using the
    argmax keeps the result accurate when it is tiny.  With ``return_output=True``
    returns ``(y_tau, J_tau)`` from one pass.

    Parameters
    ----------
    %(head)s
    %(X)s
    %(tau)s
    return_output : bool, optional
        Also return the soft output (default False).

    Returns
    -------
    numpy.ndarray, shape (n, d_out, d)
        ``J_tau(X[i])`` (floats); with ``return_output=True`` the pair
        ``(Y, J)`` with ``Y`` of shape ``(n, d_out)`` as :func:`soft_output`.

    Raises
    ------
    %(raises)s

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
    X = h.points(X)
    tau = raw_temperature(h, tau)
    J = np.empty((X.shape[0], h.dim_out, h.dim))
    Y = np.empty((X.shape[0], h.dim_out)) if return_output else None
    for start, (_, log1mp, labels, w, K) in _blocks(h, X, tau, jacobian=True):
        p1m = np.exp(log1mp)
        J[start:start + len(labels)] = (p1m / tau)[:, None, None] * K
        if return_output:
            Y[start:start + len(labels)] = h.V[labels] + p1m[:, None] * w
    return (Y, J) if return_output else J
