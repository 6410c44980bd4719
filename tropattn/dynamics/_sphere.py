"""Self-attention as a flow of tokens on the unit sphere ``S^{d-1}`` (floats: a simulation).

Tokens ``x_1..x_n`` are unit vectors, heads ``h`` have symmetric score matrices ``M_h``
and the inverse temperature is ``beta``.  With the scores ``S^h_ij = <x_i, M_h x_j>``:

* **SA** (softmax-normalised):  ``dx_i/dt = P_i( sum_h sum_j softmax_j(beta S^h_i.) M_h x_j )``;
* **USA** (unnormalised):       ``dx_i/dt = P_i( sum_h (1/n) sum_j exp(beta S^h_ij) M_h x_j )``,

where ``P_i = I - x_i x_i^T`` projects onto the tangent space at ``x_i`` (so the exact flow
stays on the sphere).  Values are ``M_h x_j`` and the score carries ``beta`` (a head
average instead of a sum only rescales time).  The *interaction energy*

    E(X) = sum_h 1/(2 beta n^2) sum_{i,j} exp(beta S^h_ij)

has tangent gradient ``P_i grad_i E = (1/n^2) sum_h sum_j e^{beta S^h_ij} P_i M_h x_j``, so USA is
``n`` times its projected gradient *ascent* (``dE/dt = (1/n) sum_i |v_i|^2 >= 0`` for any heads),
and single-head SA is the same ascent in the token-wise metric ``n^2/Z_i`` with
``Z_i = sum_j e^{beta S_ij}`` (``dE/dt = sum_i Z_i |v_i|^2 / n^2 >= 0``).  With several heads the
SA normalisers ``Z^h_i`` differ between heads and ``dE/dt`` can be negative.

Everything is vectorised over tokens and heads (``numpy.einsum``).  :func:`simulate` integrates
with a fixed-step scheme (Euler or RK4) followed by renormalisation onto the sphere, or with
``scipy.integrate.solve_ivp``; a step that is too large for the speed of the field is
detected and reported (:class:`~tropattn.errors.DegenerateInputError`).

>>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
>>> V = velocity(X, np.eye(2), beta=1.0)          # the two tokens attract each other
>>> bool(V[0, 1] > 0 and V[1, 0] > 0), float(abs((V * X).sum()))   # tangent: <v_i, x_i> = 0
(True, 0.0)
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from .._config import config
from .._doc import fill_doc
from .._lazy import lazy_import
from .._validate import choice, float_array, positive_float
from ..errors import DegenerateInputError, InternalError, InvalidInputError
from ..soft import attend, logsumexp, softmax

__all__ = ["MODES", "SCHEMES", "MAX_ANGLE_STEP", "check_beta", "check_positive", "check_tokens", "check_heads",
           "scores", "attention_weights", "head_velocities", "velocity", "log_energy", "energy", "energy_rate", "is_monotone",
           "random_tokens", "random_symmetric", "Trajectory", "simulate"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "X": """X : (n, d) ndarray
    Tokens.""",
    "M": """M : (H, d, d) or (d, d) ndarray
    Score matrices (one matrix is one head).""",
    "M_scores": """M : (H, d, d) or (d, d) ndarray
    Score matrices.""",
    "beta": """beta : float
    Inverse temperature.""",
}

integrate = lazy_import("scipy.integrate")

#: The two attention normalisations.
MODES = ("sa", "usa")
#: Integrators of :func:`simulate`.
SCHEMES = ("euler", "rk4", "solve_ivp")
#: A fixed step that moves a token by more than this (radians, before renormalisation) is a blow-up.
MAX_ANGLE_STEP = 0.5
_SPHERE_TOL = 1e-9
_LOG_FLOAT_MAX = math.log(np.finfo(float).max)
#: USA weights ``e^{beta S}`` with ``beta S`` above this overflow a float (``e^709.78`` is the largest).
USA_MAX_EXPONENT = 700.0


def check_beta(beta, name="beta"):
    """``beta`` as a positive finite float: the inverse temperature (or another one of its kind).

    Examples
    --------
    >>> check_beta(2)
    2.0
    >>> check_beta(0)
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: beta = 0; the inverse temperature must be a positive finite number
    """
    return positive_float(beta, name, rule="the inverse temperature must be a positive finite number")


def check_positive(value, name, meaning):
    """``value`` as a positive finite float, the message naming ``name`` and its ``meaning``.

    Examples
    --------
    >>> check_positive(0, "dt", "the time step")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: dt = 0; the time step must be a positive finite number
    """
    return positive_float(value, name, rule=f"{meaning} must be a positive finite number")


def check_tokens(X, normalize=False):
    """Tokens as an ``(n, d)`` float array on the unit sphere.

    Parameters
    ----------
    X : (n, d) array-like
    normalize : bool
        Tokens off the sphere (``| |x_i| - 1 | > 1e-9``) are refused unless ``normalize=True``,
        which divides them by their norms and warns (``UserWarning``).

    Returns
    -------
    numpy.ndarray
        The tokens, shape ``(n, d)``, with unit rows.

    Raises
    ------
    InvalidInputError
        NaN, wrong shape, a zero token, or a token off the sphere without ``normalize``.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     X = check_tokens([[3.0, 4.0]], normalize=True)
    >>> X.tolist(), len(caught)
    ([[0.6, 0.8]], 1)
    """
    X = float_array(X, "tokens", ndim=2)
    norms = np.linalg.norm(X, axis=1)
    off = np.abs(norms - 1.0) > _SPHERE_TOL
    if not off.any():
        return X
    i = int(np.argmax(off))
    if np.any(norms == 0):
        raise InvalidInputError(f"token {int(np.argmin(norms))} is the zero vector; tokens live on the unit sphere")
    if not normalize:
        raise InvalidInputError(f"token {i} has norm {norms[i]:.12g}, not 1; tokens live on the unit sphere "
                                "(pass normalize=True, or --normalize, to project them onto it)")
    warnings.warn(f"{int(off.sum())} token(s) off the unit sphere (token {i} has norm {norms[i]:.6g}); "
                  "normalised onto it", UserWarning, stacklevel=2)
    return X / norms[:, None]


def check_heads(M, d, symmetric=True, what="score matrices"):
    """Head matrices as an ``(H, d, d)`` float array (a single ``(d, d)`` matrix is one head).

    Parameters
    ----------
    M : (H, d, d) or (d, d) array_like
        The score matrices.
    d : int
        The token dimension.
    symmetric : bool, optional
        Require ``M_h = M_h^T`` (default True).
    what : str, optional
        Their name in the error message.

    Returns
    -------
    numpy.ndarray
        Shape ``(H, d, d)``, floats.

    Raises
    ------
    InvalidInputError
        Wrong shape, NaN, or (``symmetric=True``) a matrix with ``|M - M^T| > 1e-12 (1 + |M|)``.

    Examples
    --------
    >>> check_heads(np.eye(2), 2).shape
    (1, 2, 2)
    """
    M = float_array(M, what)
    if M.ndim == 2:
        M = M[None]
    if M.ndim != 3:
        raise InvalidInputError(f"{what} must have 3 axes (H, d, d) or 2 (d, d); got shape {M.shape}")
    if M.shape[1:] != (d, d):
        raise InvalidInputError(f"{what} have shape {M.shape[1:]}; tokens in R^{d} need {d}x{d} matrices")
    if symmetric:
        asym = np.abs(M - M.transpose(0, 2, 1)).max(axis=(1, 2))
        bad = asym > 1e-12 * (1 + np.abs(M).max(axis=(1, 2)))
        if bad.any():
            h = int(np.argmax(bad))
            raise InvalidInputError(f"head {h} is not symmetric (max |M - M^T| = {asym[h]:.3g}); the flow is an "
                                    "energy flow only for symmetric score matrices: use (M + M^T)/2")
    return M


def _stack(M):
    """Score matrices as an ``(H, d, d)`` array: one ``(d, d)`` matrix is one head."""
    M = np.asarray(M, dtype=float)
    return M[None] if M.ndim == 2 else M


def _values(X, M):
    """``MX[h, j] = M_h x_j``, shape ``(H, n, d)``."""
    return np.matmul(X, np.swapaxes(M, 1, 2))


def _row_blocks(n, H):
    """Slices of query rows with about ``config.dynamics_block_entries`` score entries each (``H * rows * n``),
    at least 8 rows."""
    step = max(8, config.dynamics_block_entries // (H * n))
    return [slice(a, a + step) for a in range(0, n, step)]


@fill_doc(**_DOC)
def scores(X, M):
    """``S[h, i, j] = <x_i, M_h x_j>`` for all heads at once, shape ``(H, n, n)``.

    Parameters
    ----------
    X : (n, d) ndarray
        Tokens (unit rows; not checked).
    %(M)s

    Returns
    -------
    numpy.ndarray
        ``S``, shape ``(H, n, n)``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> scores(X, np.eye(2)[None]).tolist()            # M = I: the Gram matrix of the tokens
    [[[1.0, 0.0], [0.0, 1.0]]]
    """
    return np.matmul(X, np.swapaxes(_values(X, _stack(M)), 1, 2))


@fill_doc(**_DOC)
def attention_weights(X, M, beta, mode="sa"):
    """Attention weights ``W[h, i, j]``: softmax rows (SA) or ``exp(beta S)/n`` (USA).

    Parameters
    ----------
    %(X)s
    %(M)s
    %(beta)s
    mode : {"sa", "usa"}, optional
        Softmax-normalised (rows sum to 1) or unnormalised.

    Returns
    -------
    numpy.ndarray
        ``W``, shape ``(H, n, n)``.

    Raises
    ------
    InvalidInputError
        If ``mode`` is not ``"sa"`` or ``"usa"``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> np.round(attention_weights(X, np.eye(2)[None], 1.0), 3).tolist()    # e / (e + 1) on the diagonal
    [[[0.731, 0.269], [0.269, 0.731]]]
    """
    return _weights(X, _values(X, _stack(M)), beta, mode, X.shape[0])


def _weights(Xq, MX, beta, mode, n):
    """Weights of the query rows ``Xq`` against all tokens (``MX = M_h x_j``), shape ``(H, q, n)``."""
    S = beta * np.matmul(Xq, np.swapaxes(MX, 1, 2))
    if mode == "sa":
        return softmax(S, axis=2)
    if mode == "usa":
        _usa_range(S)
        return np.exp(S) / n
    choice(mode, "mode", MODES)
    raise InternalError(f"mode {mode!r} passed the check but has no weights")


def _usa_range(S):
    """Refuse USA weights ``e^{beta S}`` beyond the float range: the field itself is that large."""
    top = float(S.max()) if S.size else 0.0
    if not top <= USA_MAX_EXPONENT:
        raise DegenerateInputError(
            f"mode 'usa' at beta * max score = {top:.4g}: the unnormalised weights e^(beta S) exceed e^"
            f"{USA_MAX_EXPONENT:g}, beyond floats (the USA field itself is that large); use mode 'sa' or a smaller beta")


def _project(X, V):
    return V - np.einsum("id,id->i", V, X)[:, None] * X


@fill_doc(**_DOC)
def head_velocities(X, M, beta, mode="sa"):
    """Per-head tangent velocities ``P_i(sum_j W[h,i,j] M_h x_j)``, shape ``(H, n, d)``.

    Parameters
    ----------
    %(X)s
    M : (H, d, d) or (d, d) ndarray
        Score matrices (also the value maps; one matrix is one head).
    %(beta)s
    mode : {"sa", "usa"}, optional
        The normalisation.

    Returns
    -------
    numpy.ndarray
        Shape ``(H, n, d)``; their sum over ``h`` is :func:`velocity`.

    Raises
    ------
    InvalidInputError
        If ``mode`` is unknown.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> V = head_velocities(X, np.stack([np.eye(2), -np.eye(2)]), 1.0)
    >>> np.round(V[:, 0], 3).tolist()            # head +I pulls token 0 toward token 1, head -I pushes it away
    [[0.0, 0.269], [0.0, -0.731]]
    """
    M = _stack(M)
    U = np.matmul(attention_weights(X, M, beta, mode), _values(X, M))
    return U - np.einsum("hid,id->hi", U, X)[:, :, None] * X[None]


def velocity(X, M, beta, mode="sa"):
    """The SA or USA velocity field at the tokens ``X``, shape ``(n, d)`` (sum over heads).

    Parameters
    ----------
    X : (n, d) array of unit vectors
    M : (H, d, d) or (d, d) symmetric score (and value) matrices
    beta : float, the inverse temperature
    mode : {"sa", "usa"}

    Returns
    -------
    (n, d) ndarray, tangent to the sphere at each token.

    >>> X = np.array([[1.0, 0.0], [0.6, 0.8]])
    >>> V = velocity(X, np.eye(2), 1.0, mode="usa")
    >>> np.allclose((V * X).sum(axis=1), 0)
    True
    """
    M = _stack(M)
    MX = _values(X, M)
    U = np.empty_like(X)
    for rows in _row_blocks(len(X), len(M)):
        if mode == "sa":                                   # the float forward of soft attention, summed over heads
            U[rows] = attend(X[rows], MX, MX, beta).sum(axis=0)
        else:
            U[rows] = np.matmul(_weights(X[rows], MX, beta, mode, len(X)), MX).sum(axis=0)
    return _project(X, U)


def _log_sum_exp_scores(X, MX, beta):
    """``ln sum_{h,i,j} e^{beta S^h_ij}`` block by block (never overflows)."""
    parts = [float(logsumexp((beta * np.matmul(X[r], np.swapaxes(MX, 1, 2))).ravel()))
             for r in _row_blocks(X.shape[0], MX.shape[0])]
    return float(logsumexp(np.array(parts)))


@fill_doc(**_DOC)
def log_energy(X, M, beta):
    """``ln E(X)``, with ``E = sum_h 1/(2 beta n^2) sum_{i,j} exp(beta <x_i, M_h x_j>)`` (log-sum-exp: finite
    for every finite ``beta``, where ``E`` itself overflows past ``beta ~ 709``).

    Parameters
    ----------
    %(X)s
    %(M_scores)s
    %(beta)s

    Returns
    -------
    float
        ``ln E(X)``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0]])        # two equal tokens: E = e^beta / (2 beta)
    >>> bool(np.isclose(log_energy(X, np.eye(2), 1e6), 1e6 - np.log(2e6)))
    True
    """
    M = _stack(M)
    n = X.shape[0]
    return _log_sum_exp_scores(X, _values(X, M), beta) - math.log(2 * beta * n * n)


def _exp_or_inf(log_value):
    return math.exp(log_value) if log_value < _LOG_FLOAT_MAX else math.inf


@fill_doc(**_DOC)
def energy(X, M, beta):
    """``E(X) = sum_h 1/(2 beta n^2) sum_{i,j} exp(beta <x_i, M_h x_j>)`` (``inf`` past the float range: use
    :func:`log_energy` there).

    Parameters
    ----------
    %(X)s
    %(M_scores)s
    %(beta)s

    Returns
    -------
    float
        The interaction energy (maximal when all tokens coincide, for ``M = I``).

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0]])        # two equal tokens: E = e^beta / (2 beta)
    >>> bool(np.isclose(energy(X, np.eye(2), 2.0), np.exp(2.0) / 4))
    True
    >>> energy(X, np.eye(2), 1000.0)                   # e^1000 is not a float
    inf
    """
    return _exp_or_inf(log_energy(X, M, beta))


def is_monotone(rates, rel_tol: float = 1e-12) -> bool:
    """Is a sampled ``dE/dt`` non-negative up to float round-off (``rel_tol`` times its largest size)?

    Parameters
    ----------
    rates : array_like
        ``dE/dt`` along a trajectory (:func:`energy_rate` at each state).
    rel_tol : float, optional
        Relative round-off allowance.

    Returns
    -------
    bool

    Examples
    --------
    >>> is_monotone([0.5, 0.0, 1e-20]), is_monotone([0.5, -0.1])
    (True, False)
    """
    r = np.asarray(rates, dtype=float)
    return bool(r.size == 0 or r.min() >= -rel_tol * max(float(np.abs(r).max()), 1e-300))


def _shifted_rate(X, M, beta, mode):
    """``(c, r, e)`` with ``dE/dt = e^c r`` and ``E = e^c e``: every exponential shifted by ``c = max beta S``."""
    M = _stack(M)
    n, MX = X.shape[0], _values(X, M)
    S = [beta * np.matmul(X[r], np.swapaxes(MX, 1, 2)) for r in _row_blocks(n, len(M))]
    c = max(float(b.max()) for b in S)
    G = np.concatenate([np.matmul(np.exp(b - c), MX).sum(axis=0) for b in S]) / n ** 2
    e = sum(float(np.exp(b - c).sum()) for b in S) / (2 * beta * n * n)
    return c, float(np.einsum("id,id->", _project(X, G), velocity(X, M, beta, mode))), e


@fill_doc(**_DOC)
def energy_rate(X, M, beta, mode="sa", relative=False):
    """``dE/dt`` along the flow at ``X``: ``sum_i <grad_i E, v_i>`` (exact chain rule, floats).

    For USA it is ``(1/n) sum_i |v_i|^2``; for one SA head ``sum_i Z_i |v_i|^2 / n^2``; for
    several SA heads it can be negative (see the module docstring).  Every exponential is
    shifted by ``max beta S``, so ``relative=True`` (``d ln E / dt``, the same sign) is finite
    for every finite ``beta``; ``dE/dt`` itself is ``+-inf`` where it leaves the float range.

    Parameters
    ----------
    %(X)s
    %(M_scores)s
    %(beta)s
    mode : {"sa", "usa"}, optional
        The flow along which ``E`` is differentiated.
    relative : bool, optional
        Return ``(dE/dt) / E = d ln E / dt`` instead (default False).

    Returns
    -------
    float
        ``dE/dt`` (or ``d ln E/dt``) at ``X``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = random_tokens(6, 3, rng)
    >>> energy_rate(X, np.eye(3), 1.0) >= 0
    True
    >>> bool(np.isfinite(energy_rate(X, np.eye(3), 1e6, relative=True)))
    True
    """
    c, r, e = _shifted_rate(X, M, beta, mode)
    if relative:
        return r / e
    if r == 0:
        return 0.0
    return math.copysign(_exp_or_inf(c + math.log(abs(r))), r)


def random_tokens(n, d, rng):
    """``n`` tokens uniform on ``S^{d-1}`` (normalised Gaussians) from a numpy Generator.

    Parameters
    ----------
    n : int
        Number of tokens.
    d : int
        Dimension of the ambient space.
    rng : numpy.random.Generator
        The random source.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, d)``, unit rows.

    Examples
    --------
    >>> X = random_tokens(4, 3, np.random.default_rng(0))
    >>> X.shape, np.allclose(np.linalg.norm(X, axis=1), 1)
    ((4, 3), True)
    """
    X = rng.standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def random_symmetric(d, rng, heads=None):
    """A random symmetric matrix ``(G + G^T)/2`` (or ``heads`` of them, shape ``(H, d, d)``).

    Parameters
    ----------
    d : int
        Matrix size.
    rng : numpy.random.Generator
        The random source.
    heads : int, optional
        Number of matrices (default: one ``(d, d)`` matrix).

    Returns
    -------
    numpy.ndarray
        Shape ``(d, d)`` or ``(heads, d, d)``, symmetric in the last two axes.

    Examples
    --------
    >>> G = random_symmetric(3, np.random.default_rng(0), heads=2)
    >>> G.shape, bool(np.allclose(G, G.transpose(0, 2, 1)))
    ((2, 3, 3), True)
    """
    G = rng.standard_normal((d, d) if heads is None else (heads, d, d))
    return (G + np.swapaxes(G, -1, -2)) / 2


@dataclass(frozen=True)
class Trajectory:
    """A sampled token flow: ``times (K,)``, ``states (K, n, d)`` and ``log_energies (K,)`` (``ln E``, finite at
    every ``beta``; ``energies`` is ``E`` itself, ``inf`` where it overflows)."""

    times: np.ndarray
    states: np.ndarray
    log_energies: np.ndarray

    @property
    def energies(self):
        return np.array([_exp_or_inf(v) for v in self.log_energies])

    @property
    def final(self):
        return self.states[-1]


def _blowup(dt, V, t):
    speed = float(np.abs(V).max()) if np.all(np.isfinite(V)) else math.inf
    if not speed * dt <= MAX_ANGLE_STEP:
        raise DegenerateInputError(
            f"dt = {dt:g} is too large at t = {t:.4g}: the field has speed {speed:.3g}, so one step moves a token "
            f"{speed * dt:.3g} rad (> {MAX_ANGLE_STEP}); the fixed-step scheme blows up. Use dt < "
            f"{MAX_ANGLE_STEP / speed if speed < math.inf else 0:.3g}, a smaller beta, or scheme='solve_ivp'")


def _step(X, M, beta, mode, dt, scheme, t):
    f = lambda Y: velocity(Y, M, beta, mode)    # noqa: E731
    k1 = f(X)
    _blowup(dt, k1, t)
    if scheme == "euler":
        Y = X + dt * k1
    else:
        k2 = f(X + dt / 2 * k1)
        k3 = f(X + dt / 2 * k2)
        k4 = f(X + dt * k3)
        Y = X + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    if not np.all(np.isfinite(Y)):
        _blowup(dt, np.full(1, np.inf), t)
    return Y / np.linalg.norm(Y, axis=1, keepdims=True)


def simulate(X0, M, beta, T, dt=0.01, mode="sa", scheme="rk4", record_every=1, normalize=False,
             rtol=1e-9, atol=1e-11, progress=None):
    """Integrate the SA / USA flow from ``X0`` up to time ``T``.

    Parameters
    ----------
    X0 : (n, d) tokens on the unit sphere (see :func:`check_tokens` and ``normalize``)
    M : (H, d, d) or (d, d) symmetric matrices
    beta : float > 0
    T : float > 0, the final time
    dt : float > 0, the fixed step (``euler``/``rk4``) or the sampling step (``solve_ivp``)
    mode : {"sa", "usa"}
    scheme : {"euler", "rk4", "solve_ivp"}
        ``euler`` and ``rk4`` take fixed steps and renormalise every token onto the sphere
        after each step; ``solve_ivp`` integrates the projected field in ``R^{nd}`` with
        scipy's adaptive RK45 (``rtol``, ``atol``) and renormalises the samples.
    record_every : int, keep every ``record_every``-th step
    progress : callable or None, called as ``progress(step, steps)``

    Returns
    -------
    Trajectory

    Raises
    ------
    InvalidInputError
        Bad tokens, matrices, ``beta``, ``T``, ``dt`` or names.
    DegenerateInputError
        A fixed step too large for the field's speed (blow-up), or ``solve_ivp`` failed.

    >>> X0 = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> tr = simulate(X0, np.eye(2), beta=1.0, T=5.0, dt=0.05)
    >>> bool(tr.final[0] @ tr.final[1] > 0.99)      # the two tokens merge
    True
    """
    X = check_tokens(X0, normalize=normalize)
    n, d = X.shape
    M = check_heads(M, d)
    beta = check_beta(beta)
    T, dt = check_positive(T, "T", "the time horizon"), check_positive(dt, "dt", "the time step")
    choice(mode, "mode", MODES)
    choice(scheme, "scheme", SCHEMES)
    steps = max(1, int(round(T / dt)))
    dt = T / steps
    if scheme == "solve_ivp":
        return _simulate_ivp(X, M, beta, T, steps, mode, rtol, atol)
    times, states = [0.0], [X]
    for k in range(1, steps + 1):
        X = _step(X, M, beta, mode, dt, scheme, (k - 1) * dt)
        if k % record_every == 0 or k == steps:
            times.append(k * dt)
            states.append(X)
        if progress is not None:
            progress(k, steps)
    states = np.array(states)
    return Trajectory(np.array(times), states, np.array([log_energy(S, M, beta) for S in states]))


def _simulate_ivp(X, M, beta, T, steps, mode, rtol, atol):
    n, d = X.shape

    def rhs(_, y):
        return velocity(y.reshape(n, d), M, beta, mode).ravel()

    t_eval = np.linspace(0.0, T, steps + 1)
    sol = integrate.solve_ivp(rhs, (0.0, T), X.ravel(), t_eval=t_eval, rtol=rtol, atol=atol)
    if not sol.success or not np.all(np.isfinite(sol.y)):
        raise DegenerateInputError(f"solve_ivp failed at t <= {T:g}: {sol.message}; try a smaller beta or T")
    states = sol.y.T.reshape(-1, n, d)
    states = states / np.linalg.norm(states, axis=2, keepdims=True)
    return Trajectory(sol.t, states, np.array([log_energy(S, M, beta) for S in states]))
