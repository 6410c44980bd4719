"""Clustered configurations: the overlap gap and the inter-cluster attention mass.

Let tokens carry cluster labels, ``C_a`` the cluster of token ``i`` with ``n_a`` members, and
``s_ij = <x_i, M x_j>`` the overlaps (``M = I`` by default).  The **overlap gap** is

    Delta = min_{i, j same cluster} s_ij  -  max_{i, j different clusters} s_ij

(``i = j`` included in the first minimum, so singletons count).  If ``Delta > 0`` the SA weight
that token ``i`` sends outside its cluster obeys the exact bound

    mass_i = sum_{j not in C_a} p_ij  <=  odds_i = sum_{j not in C_a} e^{beta s_ij} / sum_{j in C_a} e^{beta s_ij}
           <=  ((n - n_a) / n_a) e^{-beta Delta},

because every inter-cluster term is at most ``e^{beta max_inter}`` and every intra term at least
``e^{beta min_intra}``.  The second inequality is an equality when all intra overlaps equal the
minimum and all inter overlaps the maximum (clusters of coincident tokens at equal mutual
overlap): then ``mass_i = r/(1+r)`` with ``r`` the bound, so ``mass/r -> 1`` as ``r -> 0``.
For random cluster centres in ``R^d`` the inter overlaps are ``N(0, 1/d)``, so with
``beta = c d`` the mean mass behaves like ``((n-n_a)/n_a) e^{-c d + c^2 d / 2}``: its log falls
linearly in ``d`` with slope ``-c (1 - c/2)``.

>>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
>>> labels = np.array([0, 0, 1])
>>> overlap_gap(X, labels)
1.0
>>> m, b = inter_cluster_mass(X, labels, 2.0), mass_bound(X, labels, 2.0)
>>> bool(np.all(m <= b))
True
"""

from __future__ import annotations

import numpy as np

from .._doc import fill_doc
from .._lazy import lazy_import
from ..errors import DegenerateInputError, InvalidInputError
from ..soft import softmax
from ._sphere import check_beta

__all__ = ["overlaps", "overlap_gap", "inter_cluster_mass", "inter_cluster_odds", "mass_bound", "detect_clusters",
           "cluster_sizes", "clustered_tokens"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "X": """X : (n, d) array_like
    Tokens.""",
    "M": """M : (d, d) array_like, optional
    Score matrix (default the identity).""",
    "labels": """labels : (n,) array_like
    Cluster labels.""",
    "beta": """beta : float
    Inverse temperature (> 0).""",
}

csgraph = lazy_import("scipy.sparse.csgraph")


@fill_doc(**_DOC)
def overlaps(X, M=None):
    """The overlap matrix ``s_ij = <x_i, M x_j>`` (``M = I`` if omitted).

    Parameters
    ----------
    %(X)s
    %(M)s

    Returns
    -------
    numpy.ndarray
        ``s``, shape ``(n, n)``.

    Examples
    --------
    >>> overlaps([[1.0, 0.0], [0.6, 0.8]]).round(2).tolist()     # cosines of unit tokens
    [[1.0, 0.6], [0.6, 1.0]]
    """
    X = np.asarray(X, dtype=float)
    return X @ X.T if M is None else X @ np.asarray(M, dtype=float) @ X.T


def _labels(labels, n):
    lab = np.asarray(labels)
    if lab.shape != (n,):
        raise InvalidInputError(f"labels have shape {lab.shape}; give one cluster label per token ({n})")
    return lab


@fill_doc(**_DOC)
def overlap_gap(X, labels, M=None):
    """``Delta`` = least intra-cluster overlap minus largest inter-cluster overlap.

    Parameters
    ----------
    %(X)s
    labels : (n,) array_like
        One cluster label per token.
    %(M)s

    Returns
    -------
    float
        ``Delta``; positive when every cluster is tighter than its distance to the others.

    Raises
    ------
    DegenerateInputError
        With a single cluster there is no inter-cluster overlap.

    Examples
    --------
    >>> overlap_gap(np.eye(3), [0, 1, 2])       # orthonormal singletons: 1 - 0
    1.0
    """
    S = overlaps(X, M)
    lab = _labels(labels, len(S))
    same = lab[:, None] == lab[None, :]
    if same.all():
        raise DegenerateInputError("all tokens are in one cluster; the overlap gap needs at least two clusters")
    return float(S[same].min() - S[~same].max())


@fill_doc(**_DOC)
def inter_cluster_odds(X, labels, beta, M=None):
    """Per token: softmax weight outside its cluster divided by the weight inside it.

    Parameters
    ----------
    %(X)s
    %(labels)s
    %(beta)s
    %(M)s

    Returns
    -------
    numpy.ndarray
        ``odds_i``, shape ``(n,)``.

    Raises
    ------
    InvalidInputError
        If ``beta`` is not positive and finite or ``labels`` has the wrong shape.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> odds = inter_cluster_odds(X, [0, 0, 1], 1.0)            # token 0: e^0 / (2 e^1)
    >>> bool(np.isclose(odds[0], np.exp(-1) / 2))
    True
    """
    beta = check_beta(beta)
    S = beta * overlaps(X, M)
    lab = _labels(labels, len(S))
    same = lab[:, None] == lab[None, :]
    W = softmax(S, axis=1)
    return np.where(~same, W, 0).sum(axis=1) / np.where(same, W, 0).sum(axis=1)


@fill_doc(**_DOC)
def inter_cluster_mass(X, labels, beta, M=None):
    """Per token: the SA (softmax) attention mass on tokens outside its cluster.

    Parameters
    ----------
    %(X)s
    %(labels)s
    %(beta)s
    %(M)s

    Returns
    -------
    numpy.ndarray
        ``mass_i = odds_i / (1 + odds_i)``, shape ``(n,)``, in ``[0, 1)``.

    Raises
    ------
    InvalidInputError
        If ``beta`` is not positive and finite or ``labels`` has the wrong shape.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> m = inter_cluster_mass(X, [0, 0, 1], 1.0)
    >>> bool(np.isclose(m[0], 1 / (1 + 2 * np.e)))             # 1 outside vs 2e inside
    True
    """
    odds = inter_cluster_odds(X, labels, beta, M)
    return odds / (1 + odds)


@fill_doc(**_DOC)
def cluster_sizes(labels):
    """Per token, the size ``n_a`` of its cluster.

    Parameters
    ----------
    %(labels)s

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)`` of ints.

    Examples
    --------
    >>> cluster_sizes([0, 0, 1]).tolist()
    [2, 2, 1]
    """
    lab = np.asarray(labels)
    _, inverse, counts = np.unique(lab, return_inverse=True, return_counts=True)
    return counts[inverse]


@fill_doc(**_DOC)
def mass_bound(X, labels, beta, M=None):
    """The bound ``((n - n_a)/n_a) e^{-beta Delta}`` per token (on the mass and on the odds).

    Parameters
    ----------
    %(X)s
    labels : (n,) array_like
        Cluster labels (at least two clusters).
    %(beta)s
    %(M)s

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)``; bounds :func:`inter_cluster_mass` and :func:`inter_cluster_odds` when ``Delta > 0``.

    Raises
    ------
    InvalidInputError
        If ``beta`` is bad or ``labels`` has the wrong shape.
    DegenerateInputError
        With a single cluster.

    Examples
    --------
    >>> float(mass_bound(np.eye(2), [0, 1], 1.0)[0]) == float(np.exp(-1.0))
    True
    """
    beta = check_beta(beta)
    n = len(np.asarray(X))
    na = cluster_sizes(_labels(labels, n))
    return (n - na) / na * np.exp(-beta * overlap_gap(X, labels, M))


def detect_clusters(X, threshold=0.999):
    """Cluster labels: connected components of the graph ``<x_i, x_j> >= threshold``.

    Labels are numbered by first appearance.

    Parameters
    ----------
    X : (n, d) array_like
        Unit tokens.
    threshold : float, optional
        Overlap at or above which two tokens are joined (default 0.999).

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)`` of int labels.

    Examples
    --------
    >>> detect_clusters([[1.0, 0.0], [0.0, 1.0], [1.0, 1e-4]]).tolist()
    [0, 1, 0]
    """
    S = overlaps(X)
    _, lab = csgraph.connected_components(S >= threshold, directed=False)
    _, first = np.unique(lab, return_index=True)
    order = np.argsort(np.argsort(first))
    return order[lab]


def clustered_tokens(centers, sizes, spread, rng):
    """Tokens around unit ``centers``: ``sizes[a]`` per centre, Gaussian tangent noise ``spread``, normalised.

    Returns (tokens, labels).

    Parameters
    ----------
    centers : (k, d) array_like
        Cluster centres (normalised here).
    sizes : (k,) sequence of int
        Tokens per centre.
    spread : float
        Standard deviation of the Gaussian noise added before renormalising.
    rng : numpy.random.Generator
        The random source.

    Returns
    -------
    tokens : numpy.ndarray
        Shape ``(sum(sizes), d)``, unit rows.
    labels : numpy.ndarray
        Shape ``(sum(sizes),)``: the centre of each token.

    Examples
    --------
    >>> X, lab = clustered_tokens([[1, 0], [0, 2]], [2, 1], 0.0, np.random.default_rng(0))
    >>> X.tolist(), lab.tolist()                             # no spread: copies of the unit centres
    ([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [0, 0, 1])
    """
    C = np.asarray(centers, dtype=float)
    C = C / np.linalg.norm(C, axis=1, keepdims=True)
    lab = np.repeat(np.arange(len(C)), sizes)
    X = C[lab] + spread * rng.standard_normal((len(lab), C.shape[1]))
    return X / np.linalg.norm(X, axis=1, keepdims=True), lab
