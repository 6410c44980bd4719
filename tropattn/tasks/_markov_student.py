"""Students trained on samples of the Markov teacher: staged loss, restricted-teacher levels, head specialisation.

Optional: needs torch.  The teacher (:func:`tropattn.tasks.markov_teacher`) emits a chain whose next
token reads ``h`` lag blocks of importance ``m^{h-1}, ..., m, 1``.  A student reads the ``T`` previous
tokens and predicts the next one (cross-entropy, nats); two students:

* ``"minimal"`` -- the paper's minimal model, the surrogate's shape: ``H`` heads, each a position-only
  attention ``s_k = softmax(theta_k)`` over the ``T`` context positions and a value matrix ``W_k``;
  logits ``sum_k W_k sum_i s_k[i] x_i``.  Started at uniform attention and ``W`` near 0 (the surrogate's
  start);
* ``"attention"`` -- a standard 1-layer multi-head causal attention (token and position embeddings,
  ``H`` heads, residual, linear read-out) at the last position.

Training is full-batch Adam on ``samples`` windows of one seeded chain, for ``steps`` steps
(deterministic on the CPU).  The **restricted-teacher levels** ``l_j`` are the cross-entropies of the
best predictor that reads blocks ``0 .. j-1`` only (the teacher averaged over the other lags under its
stationary law, :func:`restricted_levels`; ``l_0`` about ``log vocab``, ``l_h`` the teacher itself):
the misspecified models the stages pass through.  (Zeroing the other blocks, :meth:`Teacher.restrict`,
is not such a model: it is over-confident and can be worse than uniform.)  Stage ``j``
(block ``j - 1`` learned) is detected when the held-out loss first falls below ``(l_{j-1} + l_j) / 2``.
Everything here is a float simulation.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from .._lazy import lazy_import
from .._validate import choice, positive_float, positive_int
from ..errors import InvalidInputError
from ._markov import Teacher

__all__ = ["StudentRun", "teacher_windows", "restricted_levels", "train_student", "stage_steps", "closest_passes",
           "STUDENTS"]

torch = lazy_import("torch", extra="torch")

#: The student models.
STUDENTS = ("minimal", "attention")


def teacher_windows(teacher, n, T, seed=0) -> tuple:
    """``n`` windows of one sampled chain: contexts ``X`` (``n x T``, oldest first) and next tokens ``y``.

    Parameters
    ----------
    teacher : Teacher
        The chain.
    n : int
        Number of windows.
    T : int
        Context length (at least the teacher's order).
    seed : int, optional
        Seed of the chain (default 0).

    Returns
    -------
    X : numpy.ndarray
        Shape ``(n, T)``, int64.
    y : numpy.ndarray
        Shape ``(n,)``.

    Raises
    ------
    InvalidInputError
        If ``T`` is shorter than the teacher's order or ``n < 1``.

    Examples
    --------
    >>> from tropattn.tasks import markov_teacher
    >>> X, y = teacher_windows(markov_teacher(2, 2.0), 5, 3)
    >>> X.shape, y.shape
    ((5, 3), (5,))
    """
    n = positive_int(n, "samples", meaning="the number of training windows")
    T = positive_int(T, "T", meaning="the context length")
    if T < teacher.order:
        raise InvalidInputError(f"T = {T} is shorter than the teacher's order {teacher.order}; the student must "
                                f"see every lag (use T >= {teacher.order})")
    x = teacher.sample(n + T - teacher.order, seed=seed)
    X = np.lib.stride_tricks.sliding_window_view(x[:-1], T)[:n]
    return np.ascontiguousarray(X, dtype=np.int64), x[T:T + n].astype(np.int64)


def _stationary(teacher):
    """The states (last ``order`` tokens, oldest first), their stationary law and next-token laws."""
    states = list(itertools.product(range(teacher.vocab), repeat=teacher.order))
    at = {st: i for i, st in enumerate(states)}
    P = np.array([teacher.probabilities(st) for st in states])                  # (states, vocab)
    M = np.zeros((len(states), len(states)))                                    # the transition matrix
    for i, st in enumerate(states):
        for y in range(teacher.vocab):
            M[i, at[st[1:] + (y,)]] += P[i, y]
    pi = np.full(len(states), 1.0 / len(states))
    for _ in range(10000):                                                       # power iteration
        nxt = pi @ M
        done = float(np.abs(nxt - pi).sum()) < 1e-14
        pi = nxt
        if done:
            break
    return states, pi, P


def restricted_levels(teacher, max_states=4096) -> list:
    """``l_j``, ``j = 0 .. h``: the cross-entropy (nats) of the best predictor that reads only blocks ``0 .. j-1``.

    The misspecified model of stage ``j``: the teacher's next-token law averaged, under the chain's
    stationary law, over the lags it does not read (exact over the ``vocab^order`` histories, in floats).
    ``l_0`` is the entropy of the stationary token law (about ``log vocab``), ``l_h`` the teacher's own
    conditional entropy, the least loss any student can reach.

    Parameters
    ----------
    teacher : Teacher
        The full teacher.
    max_states : int, optional
        Refuse teachers with more than this many histories (default 4096).

    Returns
    -------
    list of float
        Non-increasing in ``j``.

    Raises
    ------
    InvalidInputError
        If ``vocab^order`` exceeds ``max_states``.

    Examples
    --------
    >>> from tropattn.tasks import markov_teacher
    >>> lv = restricted_levels(markov_teacher(2, 2.0, vocab=3))
    >>> len(lv), lv[0] > lv[1] > lv[2], lv[0] <= float(np.log(3)) + 1e-12
    (3, True, True)
    """
    n = teacher.vocab ** teacher.order
    if n > max_states:
        raise InvalidInputError(f"the teacher has vocab^order = {n} histories; at most max_states = {max_states} "
                                "(use a smaller vocab or fewer lags)")
    states, pi, P = _stationary(teacher)
    out = []
    for j in range(len(teacher.lags) + 1):
        kept = [i for block in teacher.lags[:j] for i in block]
        keys = [tuple(st[-i] for i in kept) for st in states]
        num, den = {}, {}
        for key, w, p in zip(keys, pi, P):
            num[key] = num.get(key, 0.0) + w * p
            den[key] = den.get(key, 0.0) + w
        ce = 0.0
        for key, w, p in zip(keys, pi, P):
            q = num[key] / den[key]
            ce -= w * float(np.sum(p * np.log(q)))
        out.append(float(ce))
    return out


def _minimal(vocab, T, heads, noise):
    nn = torch.nn

    class Minimal(nn.Module):
        def __init__(self):
            super().__init__()
            self.theta = nn.Parameter(noise * torch.randn(heads, T))
            self.W = nn.Parameter(noise * torch.randn(heads, vocab, vocab))

        def forward(self, X):
            s = torch.softmax(self.theta, -1)                                     # (H, T)
            onehot = torch.nn.functional.one_hot(X, vocab).float()               # (n, T, V)
            read = torch.einsum("ht,ntv->nhv", s, onehot)
            return torch.einsum("hwv,nhv->nw", self.W, read), s.expand(len(X), -1, -1)

    return Minimal()


def _attention(vocab, T, heads, d_model):
    nn = torch.nn

    class OneLayer(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d_model), nn.Embedding(T, d_model)
            self.q, self.k, self.v = (nn.Linear(d_model, d_model) for _ in range(3))
            self.out = nn.Linear(d_model, vocab)

        def forward(self, X):
            n, dh = len(X), d_model // heads
            x = self.tok(X) + self.pos(torch.arange(T))[None]
            q = self.q(x[:, -1]).view(n, heads, 1, dh)
            k, v = (f(x).view(n, T, heads, dh).transpose(1, 2) for f in (self.k, self.v))
            A = torch.softmax(q @ k.transpose(-1, -2) / dh ** 0.5, -1)           # (n, H, 1, T)
            a = (A @ v).reshape(n, d_model)
            return self.out(x[:, -1] + a), A[:, :, 0]

    return OneLayer()


@dataclass
class StudentRun:
    """A trained student: ``log`` rows ``(step, train loss, held-out loss)`` from step 0 (the start, not a
    plateau), ``attention[i]`` the per-head
    attention over the context positions (``H x T``, mean over held-out windows) at log row ``i``,
    the restricted-teacher ``levels`` and the detected ``stage_steps`` (``None``: never)."""

    student: str
    samples: int
    steps: int
    seed: int
    log: tuple
    attention: np.ndarray
    levels: tuple
    stage_steps: tuple


def stage_steps(steps, losses, levels) -> tuple:
    """Stage ``j = 1 .. h``: the first step where the loss falls below ``(l_{j-1} + l_j) / 2`` (``None``: never).

    Parameters
    ----------
    steps, losses : sequence
        The loss curve.
    levels : sequence of float
        ``l_0 .. l_h`` (:func:`restricted_levels`).

    Returns
    -------
    tuple
        ``h`` steps (or ``None``), non-decreasing where found.

    Examples
    --------
    >>> stage_steps([0, 10, 20, 30], [1.0, 0.7, 0.45, 0.1], [1.0, 0.5, 0.0])
    (10, 30)
    """
    out = []
    for a, b in zip(levels, levels[1:]):
        below = [s for s, lo in zip(steps, losses) if lo < (a + b) / 2]
        out.append(below[0] if below else None)
    return tuple(out)


def train_student(teacher, student="minimal", samples=4000, T=None, heads=None, d_model=None, steps=2000, lr=1.0,
                  optimizer="sgd", noise=1e-3, seed=0, log_every=None, test_samples=4000) -> StudentRun:
    """Train a student on ``samples`` windows of the teacher's chain, full batch, for ``steps`` steps.

    Parameters
    ----------
    teacher : Teacher
        The chain (:func:`tropattn.tasks.markov_teacher`).
    student : {"minimal", "attention"}, optional
        The paper's minimal model (default) or a standard 1-layer multi-head attention.
    samples : int, optional
        Training windows (default 4000); fewer samples, fewer stages.
    T : int, optional
        Context length (default: the teacher's order + 2).
    heads : int, optional
        Heads (default: the teacher's blocks).
    d_model : int, optional
        Width of the ``attention`` student (default ``8 heads``; divisible by ``heads``).
    steps : int, optional
        Optimiser steps (default 2000).
    lr : float, optional
        Learning rate (default 1.0).
    optimizer : {"sgd", "adam"}, optional
        Plain gradient descent (default: the discretised gradient flow, whose plateaus the surrogate
        predicts) or Adam (which rescales small gradients and so shortens the plateaus).
    noise : float, optional
        Scale of the minimal model's initial weights (default 1e-3).
    seed : int, optional
        Seeds the chain, the held-out chain (``seed + 10^6``) and the weights (default 0).
    log_every : int, optional
        Steps between log rows (default ``steps // 200``); step 0 (the start) and the powers of 2 are
        logged too.
    test_samples : int, optional
        Held-out windows (default 4000).

    Returns
    -------
    StudentRun

    Raises
    ------
    InvalidInputError
        If a count is not positive, ``d_model`` is not divisible by ``heads`` or the student is unknown.
    MissingDependencyError
        If torch is missing.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> from tropattn.tasks import markov_teacher
    >>> r = train_student(markov_teacher(2, 2.0), samples=200, steps=4, test_samples=100)
    >>> [row[0] for row in r.log], r.attention.shape
    ([0, 1, 2, 3, 4], (5, 2, 4))
    """
    if not isinstance(teacher, Teacher):
        raise InvalidInputError(f"teacher must be a Teacher (tropattn.tasks.markov_teacher); got "
                                f"{type(teacher).__name__}")
    student = choice(student, "student", STUDENTS, meaning="the student model")
    T = teacher.order + 2 if T is None else T
    heads = positive_int(len(teacher.lags) if heads is None else heads, "heads", meaning="the number of heads")
    steps = positive_int(steps, "steps", meaning="the number of optimiser steps")
    lr, noise = positive_float(lr, "lr", meaning="the learning rate"), positive_float(noise, "noise")
    d_model = positive_int(8 * heads if d_model is None else d_model, "d_model", meaning="the model width")
    optimizer = choice(optimizer, "optimizer", ("sgd", "adam"), meaning="the optimiser")
    if student == "attention" and d_model % heads:
        raise InvalidInputError(f"d_model = {d_model} is not divisible by heads = {heads}; use a multiple of {heads}")
    every = positive_int(log_every or max(1, steps // 200), "log_every", meaning="the steps between log rows")
    X, y = teacher_windows(teacher, samples, T, seed=seed)
    Xt, yt = teacher_windows(teacher, test_samples, T, seed=seed + 10 ** 6)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    model = _minimal(teacher.vocab, T, heads, noise) if student == "minimal" else \
        _attention(teacher.vocab, T, heads, d_model)
    opt = (torch.optim.SGD if optimizer == "sgd" else torch.optim.Adam)(model.parameters(), lr=lr)
    X_, y_, Xt_, yt_ = (torch.from_numpy(a) for a in (X, y, Xt, yt))
    ce = torch.nn.functional.cross_entropy
    log, attn = [], []

    def record(step):
        with torch.no_grad():
            logits, A = model(Xt_)
            log.append((step, float(ce(model(X_)[0], y_)), float(ce(logits, yt_))))
            attn.append(A.mean(0).numpy())
    record(0)
    for step in range(1, steps + 1):
        out = ce(model(X_)[0], y_)
        opt.zero_grad()
        out.backward()
        opt.step()
        if step % every == 0 or step == steps or step & (step - 1) == 0:      # and at the powers of 2
            record(step)
    levels = tuple(restricted_levels(teacher))
    steps_, _, held = zip(*log)
    return StudentRun(student, int(samples), steps, int(seed), tuple(log), np.array(attn), levels,
                      stage_steps(steps_, held, levels))


def closest_passes(run) -> list:
    """Per intermediate level ``l_1 .. l_{h-1}``: ``(step, |loss - l_j|)`` of the held-out loss's closest pass."""
    steps_, _, held = zip(*run.log)
    held = np.array(held)
    out = []
    for lev in run.levels[1:-1]:
        i = int(np.argmin(np.abs(held - lev)))
        out.append((int(steps_[i]), float(abs(held[i] - lev))))
    return out

