"""The hardmax (``beta -> infinity``) limit: a Frank-Wolfe step whose cells are a power diagram.

As ``beta -> infinity`` the softmax of ``beta <B x_i, x_j>`` concentrates on the maximisers, and
one discrete attention step ``x_i <- x_i + gamma (sum_j p_ij x_j - x_i)`` becomes

    x_i <- x_i + gamma (s_i - x_i),    s_i = argmax_{y in conv X} <B x_i, y>,

a **Frank-Wolfe step** towards a vertex of ``conv X`` (a linear function on a polytope is
maximised at a vertex, hence at a token).  The *dominance cell* of a vertex ``v_j`` is
``{z : <Bz, v_j> >= <Bz, y> for all y in conv X}``; these cells are the linear regions of the
tropical polynomial ``F(z) = max_j <B^T v_j, z>`` -- a power diagram with keys ``B^T v_j`` and
zero offsets (a fan of cones from the origin, the normal fan of ``conv{B^T v_j}``).  They are
computed exactly by :class:`tropattn.geometry.PowerDiagram` (floats converted exactly), and
each token's label is decided exactly by :meth:`PowerDiagram.locate` (a tie raises
:class:`~tropattn.errors.TieError`).  Nonempty cells = vertices of ``conv{B^T v_j}``
(= vertices of ``conv X`` when ``B`` is invertible).

*Fixed points.*  A vertex ``v`` is fixed iff it lies in its own cell, ``<Bv, v> >= <Bv, y>``;
this holds for every vertex when they all lie on the ``B``-ellipsoid ``<Bv, v> = 1`` with ``B``
positive definite (Cauchy-Schwarz in the ``B`` inner product).  Then ``conv X`` never changes, each
cell is a convex cone containing ``z`` and ``v_j``, so a token keeps its label and moves on the
straight segment to its vertex: ``x(k) = v + (1 - gamma)^k (x(0) - v)``.

*Finite beta.*  The soft step with the same ``gamma`` leaks ``O(n e^{-beta g})`` per step
(``g`` the least score margin at the vertices), so it stays within ``delta`` of the hardmax
trajectory for a number of steps growing like ``e^{beta g}``: :func:`deviation_time`.

>>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [0.2, 0.1]])
>>> cells = dominance_diagram(X, np.eye(2))
>>> cells.nonempty, hardmax_targets(X, np.eye(2)).tolist()     # the interior token heads for x_0
((0, 1, 2, 3), [0, 1, 2, 3, 0])
"""

from __future__ import annotations

import numpy as np

from .._doc import fill_doc
from .._validate import bounded_float, float_array
from ..geometry import PowerDiagram, convex_hull
from ..soft import attend
from ..tropical import TropicalPolynomial
from ._sphere import check_beta, check_heads

__all__ = ["dominance_polynomial", "dominance_diagram", "hardmax_targets", "hardmax_step", "soft_step",
           "hardmax_flow", "soft_flow", "self_dominant", "vertex_count", "collinearity_residual",
           "deviation_time", "least_margin", "exponential_rate"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "X": """X : (n, d) array_like
    Tokens.""",
    "B": """B : (d, d) array_like
    The score matrix.""",
    "gamma": """gamma : float
    Step size in ``(0, 1]``.""",
    "diagram": """diagram : PowerDiagram, optional
    A precomputed :func:`dominance_diagram` of ``X``.""",
}


def _tokens(X):
    return float_array(X, "tokens", ndim=2)


def _gamma(gamma):
    return bounded_float(gamma, "gamma", 0, 1, meaning="the Frank-Wolfe step size", open_lo=True)


def dominance_polynomial(X, B):
    """The tropical polynomial ``F(z) = max_j <B^T x_j, z>`` (exact rationals of the floats).

    Parameters
    ----------
    X : (n, d) array_like
        Tokens (finite floats, converted exactly).
    B : (d, d) array_like
        The score matrix (need not be symmetric).

    Returns
    -------
    TropicalPolynomial
        One monomial ``<B^T x_j, z>`` per token, coefficient 0.

    Raises
    ------
    InvalidInputError
        If ``X`` is empty or not finite, or ``B`` is not ``(d, d)``.

    Examples
    --------
    >>> str(dominance_polynomial([[1.0, 0.0], [0.0, 2.0]], np.eye(2)))
    'max(x, 2*y)'
    """
    X = _tokens(X)
    B = check_heads(B, X.shape[1], symmetric=False, what="the score matrix B")[0]
    keys = X @ B           # row j is (B^T x_j)^T
    return TropicalPolynomial(keys, [0] * len(X))


@fill_doc(**_DOC)
def dominance_diagram(X, B):
    """The dominance cells of the tokens as an exact :class:`PowerDiagram` (keys ``B^T x_j``, offsets 0).

    The diagram is built from :func:`dominance_polynomial`'s exact terms, so its cells are
    that tropical polynomial's linear regions.

    Parameters
    ----------
    %(X)s
    %(B)s

    Returns
    -------
    PowerDiagram
        Cell ``j`` is the dominance cell of token ``j``; ``nonempty`` lists the vertices of ``conv{B^T x_j}``.

    Raises
    ------
    InvalidInputError
        If ``X`` or ``B`` is malformed.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.2, 0.1]])   # the last token is inside the hull
    >>> dominance_diagram(X, np.eye(2)).nonempty                           # so its cell is empty
    (0, 1, 2)
    """
    F = dominance_polynomial(X, B)
    return PowerDiagram.from_max_affine(F.exponents, F.coefficients)


@fill_doc(**_DOC)
def hardmax_targets(X, B, diagram=None):
    """Per token, the index of its Frank-Wolfe vertex ``s_i`` (decided exactly by the diagram).

    Parameters
    ----------
    %(X)s
    %(B)s
    %(diagram)s

    Returns
    -------
    numpy.ndarray
        Shape ``(n,)`` of int: ``argmax_j <B x_i, x_j>``.

    Raises
    ------
    InvalidInputError
        If ``X`` or ``B`` is malformed.
    TieError
        If a token lies on a wall between two dominance cells.

    Examples
    --------
    >>> hardmax_targets([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]], np.eye(2)).tolist()   # 0.2 > 0.1: vertex 0
    [0, 1, 0]
    """
    X = _tokens(X)
    diagram = dominance_diagram(X, B) if diagram is None else diagram
    return np.array([diagram.locate(x.tolist()) for x in X])


@fill_doc(**_DOC)
def hardmax_step(X, B, gamma, diagram=None):
    """One Frank-Wolfe step ``x_i + gamma (s_i - x_i)``; returns (new tokens, target indices).

    Parameters
    ----------
    %(X)s
    %(B)s
    %(gamma)s
    %(diagram)s

    Returns
    -------
    tokens : numpy.ndarray
        Shape ``(n, d)``.
    targets : numpy.ndarray
        Shape ``(n,)``: each token's vertex.

    Raises
    ------
    InvalidInputError
        If ``gamma`` is outside ``(0, 1]`` or ``X``/``B`` is malformed.
    TieError
        If a token lies on a wall.

    Examples
    --------
    >>> Y, t = hardmax_step([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]], np.eye(2), 0.5)
    >>> Y[2].round(3).tolist(), t.tolist()                  # halfway from (0.2, 0.1) to (1, 0)
    ([0.6, 0.05], [0, 1, 0])
    """
    X, gamma = _tokens(X), _gamma(gamma)
    t = hardmax_targets(X, B, diagram)
    return X + gamma * (X[t] - X), t


@fill_doc(**_DOC)
def soft_step(X, B, beta, gamma):
    """One finite-``beta`` step ``x_i + gamma (sum_j softmax_j(beta <B x_i, x_j>) x_j - x_i)`` (floats).

    Parameters
    ----------
    X : (n, d) ndarray
        Tokens.
    %(B)s
    beta : float
        Inverse temperature.
    gamma : float
        Step size.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]])
    >>> soft_step(X, np.eye(2), 50.0, 0.5)[2].round(3).tolist()    # close to the hardmax (0.6, 0.05)
    [0.596, 0.053]
    """
    return X + gamma * (attend(X @ np.asarray(B, dtype=float).T, X, X, beta) - X)


@fill_doc(**_DOC)
def self_dominant(X, B, diagram=None):
    """Indices of the tokens that lie in their own dominance cell (the fixed points of the step).

    A token is its own target when ``locate`` returns its own index; a token equal to a winning
    vertex (a duplicate) counts as fixed too.

    Parameters
    ----------
    %(X)s
    %(B)s
    %(diagram)s

    Returns
    -------
    tuple of int
        The fixed tokens.

    Raises
    ------
    InvalidInputError
        If ``X`` or ``B`` is malformed.
    TieError
        If a token lies on a wall.

    Examples
    --------
    >>> self_dominant([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]], np.eye(2))   # vertices on the unit circle
    (0, 1)
    """
    X = _tokens(X)
    t = hardmax_targets(X, B, diagram)
    return tuple(int(i) for i in range(len(X)) if np.array_equal(X[t[i]], X[i]))


@fill_doc(**_DOC)
def hardmax_flow(X0, B, gamma, steps):
    """``steps`` Frank-Wolfe steps; returns (states ``(steps+1, n, d)``, labels ``(steps+1, n)``).

    The diagram is rebuilt only when ``conv X`` changes (a vertex moved).

    Parameters
    ----------
    X0 : (n, d) array_like
        Initial tokens.
    %(B)s
    %(gamma)s
    steps : int
        Number of steps.

    Returns
    -------
    states : numpy.ndarray
        Shape ``(steps + 1, n, d)``.
    labels : numpy.ndarray
        Shape ``(steps + 1, n)``: each token's vertex before each step (and at the end).

    Raises
    ------
    InvalidInputError
        If ``gamma`` is outside ``(0, 1]`` or ``X0``/``B`` is malformed.
    TieError
        If a token lands on a wall.

    Examples
    --------
    >>> S, L = hardmax_flow([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]], np.eye(2), 0.5, 3)
    >>> S[-1, 2].round(4).tolist(), L[:, 2].tolist()        # x(3) = v + (1/2)^3 (x(0) - v)
    ([0.9, 0.0125], [0, 0, 0, 0])
    """
    X, gamma = _tokens(X0), _gamma(gamma)
    diagram = dominance_diagram(X, B)
    vertices = set(diagram.nonempty)
    states, labels = [X], []
    for _ in range(int(steps)):
        Y, t = hardmax_step(X, B, gamma, diagram)
        labels.append(t)
        if any(not np.array_equal(Y[j], X[j]) for j in vertices):
            diagram = dominance_diagram(Y, B)
            vertices = set(diagram.nonempty)
        X = Y
        states.append(X)
    labels.append(hardmax_targets(X, B, diagram))
    return np.array(states), np.array(labels)


@fill_doc(**_DOC)
def soft_flow(X0, B, beta, gamma, steps):
    """``steps`` finite-``beta`` steps (floats); returns states ``(steps+1, n, d)``.

    Parameters
    ----------
    X0 : (n, d) array_like
        Initial tokens.
    %(B)s
    beta : float
        Inverse temperature (> 0).
    %(gamma)s
    steps : int
        Number of steps.

    Returns
    -------
    numpy.ndarray
        Shape ``(steps + 1, n, d)``.

    Raises
    ------
    InvalidInputError
        If ``beta``, ``gamma`` or ``X0`` is bad.

    Examples
    --------
    >>> soft_flow([[1.0, 0.0], [0.0, 1.0]], np.eye(2), 5.0, 0.5, 3).shape
    (4, 2, 2)
    """
    X, beta, gamma = _tokens(X0), check_beta(beta), _gamma(gamma)
    out = [X]
    for _ in range(int(steps)):
        X = soft_step(X, B, beta, gamma)
        out.append(X)
    return np.array(out)


@fill_doc(**_DOC)
def vertex_count(X):
    """Vertices of ``conv X`` by the exact convex hull (:func:`tropattn.geometry.convex_hull`).

    Parameters
    ----------
    %(X)s

    Returns
    -------
    int
        The number of vertices of ``conv X`` (exact).

    Raises
    ------
    InvalidInputError
        If ``X`` is empty or not finite.

    Examples
    --------
    >>> vertex_count([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [0.2, 0.1]])
    4
    """
    return convex_hull(_tokens(X)).vertex_count


def collinearity_residual(states, targets):
    """Largest distance of ``x_i(k)`` from the line through ``x_i(0)`` and its vertex ``targets[i]``.

    Measured relative to ``|v - x_i(0)|``; tokens that are their own target are skipped.

    Parameters
    ----------
    states : (K, n, d) ndarray
        A trajectory.
    targets : (n,) sequence of int
        Each token's vertex (an index into ``states[0]``).

    Returns
    -------
    float
        0 (up to rounding) when every token moves on the straight segment to its vertex.

    Examples
    --------
    >>> S, L = hardmax_flow([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]], np.eye(2), 0.5, 5)
    >>> collinearity_residual(S, L[0]) < 1e-12
    True
    """
    X0 = states[0]
    worst = 0.0
    for i, j in enumerate(targets):
        u = X0[j] - X0[i]
        L = np.linalg.norm(u)
        if L == 0:
            continue
        w = states[:, i] - X0[i]
        perp = w - np.outer(w @ u / (L * L), u)
        worst = max(worst, float(np.linalg.norm(perp, axis=1).max() / L))
    return worst


@fill_doc(**_DOC)
def deviation_time(X0, B, beta, gamma, delta, max_steps):
    """First step at which the soft trajectory is more than ``delta`` from the hardmax one.

    Both are run in floats side by side from ``X0`` (the hardmax step with exact labels from the
    initial diagram; valid while ``conv X`` is fixed, i.e. the vertices are self-dominant).
    Returns ``max_steps`` if they never separate.

    Parameters
    ----------
    X0 : (n, d) array_like
        Initial tokens (self-dominant vertices for the comparison to be meaningful).
    %(B)s
    beta : float
        Inverse temperature of the soft step (> 0).
    %(gamma)s
    delta : float
        Tolerance (largest coordinate difference).
    max_steps : int
        Stop after this many steps.

    Returns
    -------
    int
        The first step ``k`` with ``max |soft - hard| > delta``, or ``max_steps``.

    Raises
    ------
    InvalidInputError
        If ``beta``, ``gamma`` or ``X0`` is bad.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]])
    >>> deviation_time(X, np.eye(2), 5.0, 0.5, 1e-3, 100), deviation_time(X, np.eye(2), 10.0, 0.5, 1e-3, 100)
    (1, 22)
    """
    X, beta, gamma = _tokens(X0), check_beta(beta), _gamma(gamma)
    diagram = dominance_diagram(X, B)
    t = hardmax_targets(X, B, diagram)
    H, S = X.copy(), X.copy()
    for k in range(1, int(max_steps) + 1):
        H = H + gamma * (H[t] - H)
        S = soft_step(S, B, beta, gamma)
        if np.abs(S - H).max() > delta:
            return k
    return int(max_steps)


@fill_doc(**_DOC)
def least_margin(X, B):
    """``min_i`` (largest minus second-largest of ``<B x_i, x_j>`` over distinct tokens ``x_j``), floats.

    The finite-``beta`` leak of token ``i`` is ``~ e^{-beta m_i}``, so this margin is the rate one
    expects for :func:`deviation_time` (self-attention counts: ``x_j = x_i`` is a candidate).

    Parameters
    ----------
    %(X)s
    %(B)s

    Returns
    -------
    float
        The least gap between the best and second-best score.

    Raises
    ------
    InvalidInputError
        If ``X`` is empty or not finite.

    Examples
    --------
    >>> least_margin(np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]), np.eye(2))
    1.0
    """
    X = _tokens(X)
    S = np.sort(X @ np.asarray(B, dtype=float).T @ X.T, axis=1)
    return float((S[:, -1] - S[:, -2]).min())


def exponential_rate(betas, times):
    """The slope ``a`` of the least-squares fit ``log T = a beta + c``; returns (a, c).

    Parameters
    ----------
    betas : (k,) array_like
        Inverse temperatures.
    times : (k,) array_like
        Positive times (e.g. :func:`deviation_time`).

    Returns
    -------
    a : float
        The slope of ``log T`` in ``beta`` (compare with :func:`least_margin`).
    c : float
        The intercept.

    Examples
    --------
    >>> a, c = exponential_rate([1, 2, 3], np.exp([2.0, 4.0, 6.0]))     # T = e^{2 beta}
    >>> round(a, 6), round(c, 6)
    (2.0, 0.0)
    """
    a, c = np.polyfit(np.asarray(betas, dtype=float), np.log(np.asarray(times, dtype=float)), 1)
    return float(a), float(c)
