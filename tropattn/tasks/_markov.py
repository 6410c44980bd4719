r"""Staged sparse attention: the surrogate gradient flow and its Markov teacher (docs/THEORY.md §9).

**The surrogate.**  ``h`` target rows, ``T`` positions, importance ratio ``m``: the target
``G in R^{h x T}`` has one entry per row, ``G[j, p_j] = m^{h-1-j}`` (row 0 most important,
``p_j = j``).  ``H`` heads (default ``H = h``) have values ``V_k in R^h`` and attention ``s_k``
on the simplex; the model is ``P = sum_k V_k s_k^T`` and the loss ``L = 1/2 ||G - P||_F^2``.
Gradient flow, with the replicator (natural simplex) metric on ``s_k``:

    dV_k/dt = (G - P) s_k,        ds_k/dt = (diag s_k - s_k s_k^T) (G - P)^T V_k .

Started near ``V = 0`` and uniform ``s`` (symmetry broken by small noise), the loss sits on
plateaus at the sum of the not-yet-learned terms, ``1/2 sum_{j >= i} m^{2(h-1-j)}``: for
``h = 3``, ``1/2 (m^4 + m^2 + 1) -> 1/2 (m^2 + 1) -> 1/2 -> 0`` (:func:`plateau_levels`).  Row
``i`` is learned in stage ``i`` (importance order).  In the first stage every head moves to
``p_0`` (competitive: one shared attention vector); later stages peel heads off to ``p_1``,
``p_2``, ... (cooperative: the heads differ).  Each plateau is a saddle near a *face* of the
simplex product, a sparse (hard) attention pattern; :func:`harden` snaps attention to that
face and :func:`hardening_gap` measures the loss it changes, at most a bound that vanishes
with the attention entropy.

Both integrators are floats (simulation, not exact): explicit Euler (error ``O(dt)``) and
:func:`scipy.integrate.solve_ivp`.

**The teacher.**  A chain on ``S`` one-hot tokens with ``x_t ~ softmax(sum_k A_k sum_{i in I(k)}
x_{t-i})``, disjoint lag blocks ``I(k)`` and ``A_k`` = ``m^{h-1-k}`` times a random orthogonal
matrix (equal singular values), so block ``k`` matters like row ``k`` of ``G``.  A
*restricted-context teacher* keeps some blocks only (:meth:`Teacher.restrict`): the models
the stages pass through.

>>> levels = plateau_levels(3, 1.7)
>>> [round(v, 5) for v in levels]
[6.12105, 1.945, 0.5, 0.0]
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .._doc import fill_doc
from .._lazy import lazy_import
from .._validate import bounded_float, choice, positive_float, positive_int
from ..errors import InvalidInputError
from ..soft import softmax

__all__ = ["target", "plateau_levels", "loss", "vector_field", "initial_state", "Trajectory", "simulate",
           "Plateau", "detect_plateaus", "stage_times", "head_distances", "attention_entropy", "harden",
           "hardening_gap", "hardening_bound", "sharpen", "StageRow", "stage_table", "Teacher", "markov_teacher"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "G": """G : (h, T) ndarray
    The target.""",
    "V": """V : (H, h) ndarray
    Head values.""",
    "S": """S : (H, T) ndarray
    Head attention.""",
    "rows": """S : (..., T) array_like
    Attention rows.""",
}

integrate = lazy_import("scipy.integrate")


def _ratio(m):
    return positive_float(m, "m", rule="the importance ratio must be a positive finite number (m = 1: equal "
                                        "importance)")


def target(h, T, m) -> np.ndarray:
    """``G``: shape ``(h, T)``, ``G[j, j] = m^{h-1-j}``, zero elsewhere.

    Parameters
    ----------
    h : int
        Number of target rows (>= 1).
    T : int
        Number of positions (>= h).
    m : float
        Importance ratio (> 0).

    Returns
    -------
    numpy.ndarray
        ``G``, shape ``(h, T)``.

    Raises
    ------
    InvalidInputError
        If ``m <= 0`` or ``T < h`` (each row needs its own position).

    Examples
    --------
    >>> target(2, 3, 2.0).tolist()
    [[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    h = positive_int(h, "h", meaning="the number of target rows")
    T = positive_int(T, "T", meaning="the number of positions")
    m = _ratio(m)
    if T < h:
        raise InvalidInputError(f"T = {T} < h = {h}; each of the h target rows needs its own position, use T >= h")
    G = np.zeros((h, T))
    G[np.arange(h), np.arange(h)] = m ** np.arange(h - 1, -1, -1, dtype=float)
    return G


def plateau_levels(h, m) -> list:
    """``1/2 sum_{j >= i} m^{2(h-1-j)}`` for ``i = 0..h``: the loss with rows ``< i`` learned.

    Parameters
    ----------
    h : int
        Number of target rows.
    m : float
        Importance ratio (> 0).

    Returns
    -------
    list of float
        ``h + 1`` decreasing levels, the last 0.

    Raises
    ------
    InvalidInputError
        If ``h < 1`` or ``m`` is not positive and finite.

    Examples
    --------
    >>> plateau_levels(2, 1.0)
    [1.0, 0.5, 0.0]
    """
    h = positive_int(h, "h", meaning="the number of target rows")
    m = _ratio(m)
    w = [m ** (2 * (h - 1 - j)) for j in range(h)]
    return [0.5 * sum(w[i:]) for i in range(h + 1)]


@fill_doc(**_DOC)
def loss(G, V, S) -> float:
    """``1/2 ||G - sum_k V_k s_k^T||_F^2`` (``V``: ``(H, h)``, ``S``: ``(H, T)``).

    Parameters
    ----------
    %(G)s
    %(V)s
    S : (H, T) ndarray
        Head attention (rows on the simplex).

    Returns
    -------
    float
        ``L >= 0``.

    Examples
    --------
    >>> loss(target(1, 2, 1.0), np.array([[1.0]]), np.array([[0.5, 0.5]]))
    0.25
    """
    R = G - V.T @ S
    return float(0.5 * np.sum(R * R))


@fill_doc(**_DOC)
def vector_field(G, V, S) -> tuple:
    """``(dV, dS)`` of the gradient flow (module docstring); ``dS`` sums to 0 per head.

    Parameters
    ----------
    %(G)s
    %(V)s
    %(S)s

    Returns
    -------
    dV : numpy.ndarray
        Shape ``(H, h)``.
    dS : numpy.ndarray
        Shape ``(H, T)``, tangent to the simplex.

    Examples
    --------
    >>> dV, dS = vector_field(target(1, 2, 1.0), np.zeros((1, 1)), np.array([[0.5, 0.5]]))
    >>> dV.tolist(), dS.tolist()                  # V grows along G s; s feels nothing while V = 0
    ([[0.5]], [[0.0, 0.0]])
    """
    R = G - V.T @ S
    dV = S @ R.T
    g = V @ R
    dS = S * (g - np.sum(S * g, axis=1, keepdims=True))
    return dV, dS


def initial_state(h, T, heads=None, noise=1e-6, seed=0) -> tuple:
    """``(V, S)`` near the symmetric saddle: ``V = noise N(0, 1)``, ``S`` uniform times ``(1 + noise N)``.

    Parameters
    ----------
    h : int
        Number of target rows.
    T : int
        Number of positions.
    heads : int, optional
        Number of heads ``H`` (default ``h``).
    noise : float, optional
        Symmetry-breaking noise in ``[0, 0.5)`` (default 1e-6).
    seed : int, optional
        Seed of the numpy Generator.

    Returns
    -------
    V : numpy.ndarray
        Shape ``(H, h)``.
    S : numpy.ndarray
        Shape ``(H, T)``, rows summing to 1.

    Raises
    ------
    InvalidInputError
        If a size is not a positive integer or ``noise`` is out of range.

    Examples
    --------
    >>> V, S = initial_state(3, 5, noise=1e-3)
    >>> V.shape, S.shape, bool(np.allclose(S.sum(axis=1), 1))
    ((3, 3), (3, 5), True)
    """
    h = positive_int(h, "h", meaning="the number of target rows")
    T = positive_int(T, "T", meaning="the number of positions")
    H = h if heads is None else positive_int(heads, "heads", meaning="the number of heads")
    noise = bounded_float(noise, "noise", 0, 0.5, open_hi=True, meaning="the symmetry-breaking noise")
    rng = np.random.default_rng(seed)
    V = noise * rng.standard_normal((H, h))
    S = np.full((H, T), 1.0 / T) * (1 + noise * rng.standard_normal((H, T)))
    return V, S / S.sum(axis=1, keepdims=True)


@dataclass(frozen=True)
class Trajectory:
    """A simulated flow: ``times (n,)``, ``V (n, H, h)``, ``S (n, H, T)``, ``losses (n,)``, ``G``."""

    times: np.ndarray
    V: np.ndarray
    S: np.ndarray
    losses: np.ndarray
    G: np.ndarray
    m: float
    method: str

    @property
    def h(self) -> int:
        return self.G.shape[0]


def simulate(m, h=3, T=40, heads=None, t_end=300.0, noise=1e-6, seed=0, method="ivp", dt=0.01,
             n_out=3001, rtol=1e-9, atol=1e-12) -> Trajectory:
    """Integrate the flow from :func:`initial_state` up to ``t_end``.

    ``method="euler"``: explicit Euler with step ``dt`` (output every step that lands on
    the ``n_out``-point grid, so ``t_end / (n_out - 1)`` must be a multiple of ``dt``);
    ``method="ivp"``: ``solve_ivp`` (RK45, ``rtol``, ``atol``) sampled on the same grid.

    Parameters
    ----------
    m : float
        Importance ratio (> 0).
    h : int, optional
        Number of target rows (default 3).
    T : int, optional
        Number of positions (default 40).
    heads : int, optional
        Number of heads (default ``h``).
    t_end : float, optional
        Final time (> 0).
    noise : float, optional
        Symmetry-breaking noise of :func:`initial_state`.
    seed : int, optional
        Seed of the noise.
    method : {"ivp", "euler"}, optional
        The integrator.
    dt : float, optional
        Euler step.
    n_out : int, optional
        Number of output times (>= 2).
    rtol, atol : float, optional
        Tolerances of ``solve_ivp``.

    Returns
    -------
    Trajectory
        ``n_out`` samples of ``V``, ``S`` and the loss.

    Raises
    ------
    InvalidInputError
        If a size or ``m`` is bad, ``t_end`` is not positive, ``dt`` does not divide the output
        spacing, ``method`` is unknown, or ``solve_ivp`` fails.

    Examples
    --------
    >>> tr = simulate(1.7, t_end=10.0, n_out=11, method="euler", dt=0.05)
    >>> tr.losses.shape, bool(tr.losses[-1] < tr.losses[0])
    ((11,), True)
    """
    G = target(h, T, m)
    V0, S0 = initial_state(h, T, heads, noise, seed)
    t_end = positive_float(t_end, "t_end", meaning="the integration time")
    n_out = positive_int(n_out, "n_out", minimum=2, meaning="the number of output times")
    choice(method, "method", ("euler", "ivp"), meaning="explicit Euler steps of dt, or scipy's solve_ivp")
    times = np.linspace(0.0, t_end, n_out)
    H, hh = V0.shape
    if method == "euler":
        dt = float(dt)
        stride = (t_end / (n_out - 1)) / dt if dt > 0 else math.nan
        if not (math.isfinite(stride) and stride >= 1 and abs(stride - round(stride)) < 1e-9):
            raise InvalidInputError(f"dt = {dt}; the Euler step must be > 0 and divide the output spacing "
                                    f"t_end / (n_out - 1) = {t_end / (n_out - 1):g}")
        stride = int(round(stride))
        Vs, Ss = [V0], [S0]
        V, S = V0.copy(), S0.copy()
        for _ in range(n_out - 1):
            for _ in range(stride):
                dV, dS = vector_field(G, V, S)
                V, S = V + dt * dV, S + dt * dS
            Vs.append(V)
            Ss.append(S)
        Vt, St = np.array(Vs), np.array(Ss)
    else:
        def rhs(_, y):
            dV, dS = vector_field(G, y[:H * hh].reshape(H, hh), y[H * hh:].reshape(H, T))
            return np.concatenate([dV.ravel(), dS.ravel()])

        sol = integrate.solve_ivp(rhs, (0.0, t_end), np.concatenate([V0.ravel(), S0.ravel()]), t_eval=times,
                        rtol=rtol, atol=atol)
        if not sol.success:
            raise InvalidInputError(f"solve_ivp failed: {sol.message}; try a shorter t_end or looser rtol")
        Y = sol.y.T
        Vt, St = Y[:, :H * hh].reshape(-1, H, hh), Y[:, H * hh:].reshape(-1, H, T)
    losses = np.array([loss(G, v, s) for v, s in zip(Vt, St)])
    return Trajectory(times, Vt, St, losses, G, float(m), method)


@dataclass(frozen=True)
class Plateau:
    """A stretch ``[start, end]`` where ``|dL/dt| < rate_tol``; ``level`` is the loss where
    ``|dL/dt|`` is smallest (the closest pass by the saddle), reached at ``time``."""

    start: float
    end: float
    time: float
    level: float


def detect_plateaus(traj, rel_rate=1e-3, min_duration=0.0) -> list:
    """The plateaus of a loss curve, found automatically.

    A plateau is a maximal run of output times where the relative rate
    ``|dL/dt| / (L + 10^-3 L(0)) < rel_rate`` (per unit time; ``dL/dt`` by central
    differences on the output grid; the floor ``10^-3 L(0)`` makes the slow final approach
    to 0 a plateau), lasting at least ``min_duration`` (default 0: every such run; only
    saddles slow the flow down that much) or touching the end of the run.  Its ``level`` is the loss where the rate is smallest (the last
    point for the final one).  The flow starts next to the saddle ``V = 0``, so the start
    is the first plateau: level ``L(0)``, ending when 1% of the total drop is done.

    Parameters
    ----------
    traj : Trajectory
        A simulated flow.
    rel_rate : float, optional
        Threshold on the relative rate (default 1e-3).
    min_duration : float, optional
        Least duration of an interior plateau (default 0).

    Returns
    -------
    list of Plateau
        In time order; the first is the start.

    Examples
    --------
    >>> tr = simulate(1.7, t_end=300.0, n_out=601)
    >>> [round(p.level, 2) for p in detect_plateaus(tr)]
    [6.12, 1.95, 0.5, 0.0]
    """
    t, L = traj.times, traj.losses
    rate = np.abs(np.gradient(L, t)) / (L + 1e-3 * L[0])
    tol = float(rel_rate)
    min_duration = float(min_duration)
    flat = rate < tol
    n = len(t)
    first = np.nonzero(L <= L[0] - 0.01 * (L[0] - L.min()))[0]
    i = int(first[0]) if len(first) else n
    out = [Plateau(float(t[0]), float(t[min(i, n - 1)]), float(t[0]), float(L[0]))]
    while i < n:
        if not flat[i]:
            i += 1
            continue
        j = i
        while j + 1 < n and flat[j + 1]:
            j += 1
        if t[j] - t[i] >= min_duration or j == n - 1:
            k = i + int(np.argmin(rate[i:j + 1])) if j < n - 1 else j
            out.append(Plateau(float(t[i]), float(t[j]), float(t[k]), float(L[k])))
        i = j + 1
    return out


def stage_times(traj) -> np.ndarray:
    """``t_i``: the first time row ``i``'s residual ``1/2 ||G_i - P_i||^2`` falls below half its
    initial value (``nan`` if never) -- when position ``p_i`` is learned.

    Parameters
    ----------
    traj : Trajectory
        A simulated flow.

    Returns
    -------
    numpy.ndarray
        Shape ``(h,)``: ``t_i`` per row (``nan`` if never learned).

    Examples
    --------
    >>> tr = simulate(1.7, t_end=300.0, n_out=601)
    >>> ts = stage_times(tr)
    >>> bool(ts[0] < ts[1] < ts[2])                 # importance order
    True
    """
    P = np.einsum("nkh,nkt->nht", traj.V, traj.S)
    R = 0.5 * np.sum((traj.G[None] - P) ** 2, axis=2)
    out = []
    for i in range(traj.h):
        below = np.nonzero(R[:, i] < 0.5 * R[0, i])[0]
        out.append(float(traj.times[below[0]]) if len(below) else math.nan)
    return np.array(out)


def head_distances(S) -> tuple:
    """``(smallest, largest)`` total-variation distance between two heads' attention.

    ``largest ~ 0``: all heads share one attention vector (competitive); ``smallest`` well
    above 0: every head differs (cooperative).  ``S`` is ``(H, T)`` or ``(n, H, T)``.

    Parameters
    ----------
    S : (H, T) or (n, H, T) array_like
        Attention of the heads (at one time or along a trajectory).

    Returns
    -------
    smallest, largest : float or numpy.ndarray
        The least and largest pairwise distance (arrays of shape ``(n,)`` for a trajectory; 0 for one head).

    Examples
    --------
    >>> head_distances(np.array([[1.0, 0.0], [0.5, 0.5]]))
    (0.5, 0.5)
    """
    S = np.asarray(S, dtype=float)
    single = S.ndim == 2
    S3 = S[None] if single else S
    H = S3.shape[1]
    if H < 2:
        z = np.zeros(len(S3))
        return (0.0, 0.0) if single else (z, z)
    d = np.array([0.5 * np.abs(S3[:, a] - S3[:, b]).sum(axis=1) for a, b in itertools.combinations(range(H), 2)])
    lo, hi = d.min(axis=0), d.max(axis=0)
    return (float(lo[0]), float(hi[0])) if single else (lo, hi)


def attention_entropy(S) -> np.ndarray:
    """Entropy (nats) of each head's attention, shape ``S.shape[:-1]``; 0 for one-hot.

    Parameters
    ----------
    S : (..., T) array_like
        Attention rows on the simplex.

    Returns
    -------
    numpy.ndarray
        Entropies in nats, in ``[0, log T]``.

    Examples
    --------
    >>> [round(float(e), 4) for e in attention_entropy(np.array([[1.0, 0.0], [0.5, 0.5]]))]
    [0.0, 0.6931]
    """
    S = np.asarray(S, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sum(np.where(S > 0, -S * np.log(S), 0.0), axis=-1) + 0.0


@fill_doc(**_DOC)
def harden(S) -> np.ndarray:
    """The hard skeleton: each head's attention snapped to its argmax vertex of the simplex.

    Parameters
    ----------
    %(rows)s

    Returns
    -------
    numpy.ndarray
        One-hot rows, same shape.

    Examples
    --------
    >>> harden(np.array([[0.2, 0.7, 0.1]])).tolist()
    [[0.0, 1.0, 0.0]]
    """
    S = np.asarray(S, dtype=float)
    out = np.zeros_like(S)
    np.put_along_axis(out, np.argmax(S, axis=-1)[..., None], 1.0, axis=-1)
    return out


@fill_doc(**_DOC)
def hardening_gap(G, V, S) -> float:
    """``L(V, harden(S)) - L(V, S)``: what the hard skeleton changes in the loss (same values).

    Parameters
    ----------
    %(G)s
    %(V)s
    %(S)s

    Returns
    -------
    float
        The signed loss change (negative: the skeleton fits better).

    Examples
    --------
    >>> G = target(1, 2, 1.0)
    >>> round(hardening_gap(G, np.array([[1.0]]), np.array([[0.9, 0.1]])), 12)   # 1/2 - 1/2 (0.01 + 0.01)
    -0.01
    """
    return loss(G, V, harden(S)) - loss(G, V, S)


@fill_doc(**_DOC)
def hardening_bound(G, V, S) -> float:
    """A bound on ``|hardening_gap|`` that vanishes with the attention entropy.

    ``||e_k - s_k|| <= sqrt(2) (1 - max s_k) <= sqrt(2) H(s_k)`` (``H >= -log max s >= 1 - max s``),
    so ``D = ||P_hard - P|| <= sqrt(2) sum_k ||V_k|| H(s_k)`` and
    ``|L_hard - L| <= D (||G - P|| + D / 2)``.

    Parameters
    ----------
    %(G)s
    %(V)s
    %(S)s

    Returns
    -------
    float
        A bound ``>= |hardening_gap(G, V, S)|``, 0 for one-hot attention.

    Examples
    --------
    >>> G, V, S = target(1, 2, 1.0), np.array([[1.0]]), np.array([[0.9, 0.1]])
    >>> abs(hardening_gap(G, V, S)) <= hardening_bound(G, V, S)
    True
    """
    D = math.sqrt(2) * float(np.sum(np.linalg.norm(V, axis=1) * attention_entropy(S)))
    return D * (math.sqrt(2 * loss(G, V, S)) + D / 2)


@fill_doc(**_DOC)
def sharpen(S, beta) -> np.ndarray:
    """``s^beta / sum s^beta`` per head: lower entropy, same argmax (``beta -> inf``: :func:`harden`).

    Parameters
    ----------
    %(rows)s
    beta : float
        Exponent (> 0; 1 keeps ``S``).

    Returns
    -------
    numpy.ndarray
        Rows on the simplex, same shape.

    Raises
    ------
    InvalidInputError
        If ``beta`` is not positive and finite.

    Examples
    --------
    >>> sharpen(np.array([[0.5, 0.25, 0.25]]), 2.0).tolist()
    [[0.6666666666666666, 0.16666666666666666, 0.16666666666666666]]
    """
    beta = positive_float(beta, "beta", meaning="the sharpening exponent")
    with np.errstate(divide="ignore"):
        Z = beta * np.log(np.asarray(S, dtype=float))
    return softmax(Z, axis=-1)


@dataclass(frozen=True)
class StageRow:
    """One run of the stage table: the stage times ``t_i`` and the plateau levels found."""

    m: float
    seed: int
    stage_times: tuple
    levels: tuple
    expected_levels: tuple


def stage_table(ms, h=3, T=40, seeds=(0, 1, 2), noise=1e-6, t_end=400.0, n_out=801) -> list:
    """Stage times against ``m`` (and the noise seed): one :class:`StageRow` per ``(m, seed)``.

    Parameters
    ----------
    ms : iterable of float
        Importance ratios.
    h, T : int, optional
        Target rows and positions.
    seeds : iterable of int, optional
        Noise seeds.
    noise : float, optional
        Symmetry-breaking noise.
    t_end : float, optional
        Final time of each run.
    n_out : int, optional
        Output samples per run.

    Returns
    -------
    list of StageRow
        One per ``(m, seed)``, ``m`` outer.

    Raises
    ------
    InvalidInputError
        As :func:`simulate`.

    Examples
    --------
    >>> rows = stage_table([1.7], seeds=(0,), t_end=300.0, n_out=601)
    >>> [round(v, 2) for v in rows[0].levels], [round(t) for t in rows[0].stage_times]
    ([6.12, 1.95, 0.5, 0.0], [5, 72, 204])
    """
    rows = []
    for m in ms:
        for seed in seeds:
            tr = simulate(m, h, T, t_end=t_end, noise=noise, seed=seed, n_out=n_out)
            rows.append(StageRow(float(m), int(seed), tuple(float(x) for x in stage_times(tr)),
                                 tuple(p.level for p in detect_plateaus(tr)), tuple(plateau_levels(h, m))))
    return rows


# ----------------------------------------------------------------- the teacher chain
@dataclass(frozen=True)
class Teacher:
    """``x_t ~ softmax(sum_k A_k sum_{i in lags[k]} x_{t-i})`` over ``vocab`` one-hot tokens.

    ``A`` has shape ``(blocks, vocab, vocab)``; ``lags[k]`` is the lag block ``I(k)``.
    """

    A: np.ndarray
    lags: tuple

    @property
    def vocab(self) -> int:
        return self.A.shape[1]

    @property
    def order(self) -> int:
        """The largest lag: how many past tokens the chain reads."""
        return max(max(b) for b in self.lags if b) if any(self.lags) else 0

    def logits(self, history) -> np.ndarray:
        """``sum_k A_k sum_{i in I(k)} x_{t-i}`` with ``history[-i] = x_{t-i}``.

        Parameters
        ----------
        history : sequence of int
            Past tokens, the latest last (at least :attr:`order` of them).

        Returns
        -------
        numpy.ndarray
            Shape ``(vocab,)``.

        Raises
        ------
        InvalidInputError
            If the history is shorter than the chain's order.

        Examples
        --------
        >>> t = markov_teacher(2, 2.0, vocab=3)                  # lag 1 through A_0, lag 2 through A_1
        >>> bool(np.allclose(t.logits([0, 1]), t.A[0][:, 1] + t.A[1][:, 0]))
        True
        """
        history = list(history)
        if len(history) < self.order:
            raise InvalidInputError(f"the history has {len(history)} tokens; the chain reads {self.order}")
        z = np.zeros(self.vocab)
        for A, lags in zip(self.A, self.lags):
            for i in lags:
                z += A[:, history[-i]]
        return z

    def probabilities(self, history) -> np.ndarray:
        """The next-token distribution after ``history``.

        Parameters
        ----------
        history : sequence of int
            Past tokens, the latest last.

        Returns
        -------
        numpy.ndarray
            ``softmax(logits(history))``, shape ``(vocab,)``.

        Raises
        ------
        InvalidInputError
            If the history is shorter than the chain's order.

        Examples
        --------
        >>> p = markov_teacher(2, 2.0, vocab=3).probabilities([0, 1])
        >>> p.shape, bool(np.isclose(p.sum(), 1))
        ((3,), True)
        """
        return softmax(self.logits(history))

    def restrict(self, blocks) -> "Teacher":
        """The restricted-context teacher that reads only the lag blocks in ``blocks``.

        Parameters
        ----------
        blocks : iterable of int
            The lag blocks kept (the others get ``A_k = 0``).

        Returns
        -------
        Teacher
            The same lags with the dropped blocks zeroed.

        Raises
        ------
        InvalidInputError
            If a block index does not exist.

        Examples
        --------
        >>> t = markov_teacher(2, 2.0, vocab=3)
        >>> bool(np.allclose(t.restrict([]).probabilities([0, 1]), 1 / 3))
        True
        """
        keep = set(blocks)
        bad = keep - set(range(len(self.lags)))
        if bad:
            raise InvalidInputError(f"blocks {sorted(bad)} do not exist; the teacher has blocks 0..{len(self.lags) - 1}")
        A = np.array([a if k in keep else np.zeros_like(a) for k, a in enumerate(self.A)])
        return Teacher(A, self.lags)

    def sample(self, n, seed=0) -> np.ndarray:
        """``n`` tokens of the chain after ``order`` uniform warm-up tokens (returned too).

        Parameters
        ----------
        n : int
            Number of sampled tokens (>= 1).
        seed : int, optional
            Seed of the numpy Generator.

        Returns
        -------
        numpy.ndarray
            Shape ``(order + n,)``: the warm-up tokens, then the chain.

        Raises
        ------
        InvalidInputError
            If ``n`` is not a positive integer.

        Examples
        --------
        >>> len(markov_teacher(2, 2.0, vocab=3).sample(5))        # 2 warm-up tokens + 5
        7
        """
        n = positive_int(n, "n", meaning="the number of tokens")
        rng = np.random.default_rng(seed)
        x = list(rng.integers(self.vocab, size=self.order))
        for _ in range(n):
            x.append(int(rng.choice(self.vocab, p=self.probabilities(x))))
        return np.array(x)

    def kl_from(self, other) -> float:
        """Mean ``KL(self || other)`` of the next-token laws over all ``vocab^order`` histories
        (uniform weights): how misspecified ``other`` is.

        Parameters
        ----------
        other : Teacher
            A chain on the same vocabulary and order (e.g. a restriction of this one).

        Returns
        -------
        float
            ``>= 0``; 0 for ``other = self``.

        Examples
        --------
        >>> t = markov_teacher(2, 2.0, vocab=3)
        >>> t.kl_from(t) == 0, t.kl_from(t.restrict([0])) < t.kl_from(t.restrict([1]))   # block 0 matters more
        (True, True)
        """
        total, count = 0.0, 0
        for hist in itertools.product(range(self.vocab), repeat=self.order):
            p, q = self.probabilities(hist), other.probabilities(hist)
            total += float(np.sum(p * (np.log(p) - np.log(q))))
            count += 1
        return total / count


def markov_teacher(h, m, vocab=3, block=1, scale=1.0, seed=0) -> Teacher:
    """``h`` disjoint lag blocks of size ``block``; ``A_k = scale m^{h-1-k} Q_k``, ``Q_k`` orthogonal.

    Parameters
    ----------
    h : int
        Number of lag blocks.
    m : float
        Importance ratio (> 0).
    vocab : int, optional
        Vocabulary size (>= 2).
    block : int, optional
        Lags per block.
    scale : float, optional
        Overall scale of the ``A_k``.
    seed : int, optional
        Seed of the orthogonal matrices.

    Returns
    -------
    Teacher
        Block ``k`` reads lags ``k*block + 1 .. (k+1)*block``.

    Raises
    ------
    InvalidInputError
        If a size is not a positive integer (``vocab >= 2``) or ``m`` is bad.

    Examples
    --------
    >>> t = markov_teacher(3, 1.7, vocab=3)
    >>> t.lags, [round(float(np.linalg.svd(a)[1].std()), 9) for a in t.A]   # equal singular values
    (((1,), (2,), (3,)), [0.0, 0.0, 0.0])
    """
    h = positive_int(h, "h", meaning="the number of lag blocks")
    m = _ratio(m)
    vocab = positive_int(vocab, "vocab", minimum=2, meaning="the vocabulary size")
    block = positive_int(block, "block", meaning="the lag block size")
    rng = np.random.default_rng(seed)
    A = []
    for k in range(h):
        Q, R = np.linalg.qr(rng.standard_normal((vocab, vocab)))
        A.append(float(scale) * m ** (h - 1 - k) * Q * np.sign(np.diag(R)))
    lags = tuple(tuple(range(k * block + 1, (k + 1) * block + 1)) for k in range(h))
    return Teacher(np.array(A), lags)
