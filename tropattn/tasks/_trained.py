"""A tiny trained transformer on Dyck-(k, m): top-of-stack attention mass and its knockout (docs/THEORY.md §9).

Optional: needs torch (imported on first use: ``pip install 'tropattn[torch]'``).  A two-layer, one-head causal
transformer (learned token and position embeddings, pre-norm residual blocks with a ReLU
MLP) reads a Dyck word and, at position ``t - 1``, predicts the type of the close at ``t``
(cross-entropy on those positions only).  Trained in floats on a seeded stream of words
from :func:`tropattn.tasks.generate`; everything here is a float simulation.

After training, :func:`measure_trained` reports for each layer the mean attention weight
from the query ``t - 1`` to the true top of the stack ``top[t]`` (from the oracle), the
accuracy against the oracle, and the accuracy with that one attention edge masked
(its score set to ``-inf`` before the softmax; a query left with no key reads nothing) in
the layer whose top-of-stack mass is largest.  Compare with the constructed model, where the knockout gives chance exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .._lazy import lazy_import
from .._validate import positive_float, positive_int
from ._dyck import check_shape, generate, matches, top_of_stack

__all__ = ["TrainedDyck", "train_dyck", "measure_trained"]

torch = lazy_import("torch", extra="torch")


def _encode(words, k):
    """Token ids: open type c -> c, close type c -> k + c."""
    return np.array([[x - 1 if x > 0 else k - x - 1 for x in w] for w in words], dtype=np.int64)


def _build(k, length, d_model, seed):
    nn = torch.nn
    torch.manual_seed(seed)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
            self.q, self.k, self.v, self.o = (nn.Linear(d_model, d_model) for _ in range(4))
            self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.ReLU(), nn.Linear(2 * d_model, d_model))

        def forward(self, x, mask_edges=None):
            h = self.ln1(x)
            S = self.q(h) @ self.k(h).transpose(1, 2) / d_model ** 0.5
            n = x.shape[1]
            causal = torch.ones(n, n, dtype=torch.bool).triu(1)
            S = S.masked_fill(causal, float("-inf"))
            if mask_edges is not None:
                S = S.masked_fill(mask_edges, float("-inf"))
            A = torch.nan_to_num(torch.softmax(S, dim=-1), nan=0.0)   # a row left without keys reads nothing
            x = x + self.o(A @ self.v(h))
            return x + self.mlp(self.ln2(x)), A

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(2 * k, d_model)
            self.pos = nn.Embedding(length, d_model)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.head = nn.Linear(d_model, k)

        def forward(self, ids, mask_layer=None, mask_edges=None):
            x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))[None]
            attn = []
            for i, b in enumerate(self.blocks):
                x, A = b(x, mask_edges if i == mask_layer else None)
                attn.append(A)
            return self.head(x), attn

    return Model()


@dataclass
class TrainedDyck:
    """A trained model with its shape, training time and final training loss."""

    model: object
    k: int
    m: int
    length: int
    seconds: float
    final_loss: float


def _targets(words, k):
    """Per word: positions t-1 (query) and the close type at t, for every close t."""
    rows = []
    for b, w in enumerate(words):
        for t, x in enumerate(w):
            if x < 0:
                rows.append((b, t - 1, -x - 1))
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def train_dyck(k=2, m=3, length=16, steps=1500, batch=64, d_model=32, lr=3e-3, seed=0, time_limit=None):
    """Train the tiny model with Adam for ``steps`` steps (seeded: the result never depends on the clock).

    ``time_limit`` (off by default) stops earlier after that many seconds, for interactive use; a
    run cut by it depends on the machine's speed.

    Parameters
    ----------
    k : int, optional
        Bracket types (default 2).
    m : int, optional
        Maximal depth (default 3).
    length : int, optional
        Word length (even; default 16).
    steps : int, optional
        Adam steps (default 1500).
    batch : int, optional
        Words per step (default 64).
    d_model : int, optional
        Width of the model (default 32).
    lr : float, optional
        Adam learning rate.
    seed : int, optional
        Seeds the weights and the training words.
    time_limit : float, optional
        Wall-clock budget in seconds (default None: train every step).

    Returns
    -------
    TrainedDyck
        The model, its shape, the training time and the last batch loss.

    Raises
    ------
    MissingDependencyError
        If torch is missing.
    InvalidInputError
        If the shape is invalid, or ``steps``, ``batch``, ``d_model``, ``lr`` or ``time_limit`` is not positive.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> t = train_dyck(k=2, m=2, length=6, steps=3, batch=8, d_model=8)   # a few steps: barely trained
    >>> t.k, t.length, t.final_loss > 0
    (2, 6, True)
    """
    length, k, m = check_shape(length, k, m)
    steps, batch = positive_int(steps, "steps", meaning="the number of Adam steps"), positive_int(
        batch, "batch", meaning="the number of words per step")
    d_model = positive_int(d_model, "d_model", meaning="the model width")
    lr = positive_float(lr, "lr", meaning="the learning rate")
    if time_limit is not None:
        time_limit = positive_float(time_limit, "time_limit", meaning="the wall-clock budget in seconds")
    torch.set_num_threads(1)
    model = _build(k, length, d_model, seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    start, loss = time.perf_counter(), float("nan")
    for step in range(steps):
        words = generate(batch, length, k, m, seed=seed * 100003 + step + 1)
        ids = torch.from_numpy(_encode(words, k))
        tg = torch.from_numpy(_targets(words, k))
        logits, _ = model(ids)
        out = torch.nn.functional.cross_entropy(logits[tg[:, 0], tg[:, 1]], tg[:, 2])
        opt.zero_grad()
        out.backward()
        opt.step()
        loss = float(out.detach())
        if time_limit is not None and time.perf_counter() - start > time_limit:
            break
    return TrainedDyck(model, k, m, length, time.perf_counter() - start, loss)


def measure_trained(trained, n_words=200, seed=12345) -> dict:
    """Accuracy, per-layer top-of-stack attention mass, and the top-of-stack knockout.

    Returns a dict with ``accuracy`` and ``accuracy_long`` (closes at distance >= 3),
    ``top_mass`` (per layer, mean attention from ``t-1`` to ``top[t]``; for long-distance
    closes ``top_mass_long``), ``knockout_layer``, the accuracies with that edge masked and
    ``knockout_top_mass`` (the largest weight left on the masked edge: 0).

    Parameters
    ----------
    trained : TrainedDyck
        A model from :func:`train_dyck`.
    n_words : int, optional
        Fresh test words (default 200).
    seed : int, optional
        Seed of the test words.

    Raises
    ------
    MissingDependencyError
        If torch is missing.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> r = measure_trained(train_dyck(k=2, m=2, length=6, steps=3, batch=8, d_model=8), n_words=10)
    >>> r["chance"], r["knockout_top_mass"]             # the masked edge carries no weight
    (0.5, 0.0)
    """
    k, length = trained.k, trained.length
    words = generate(n_words, length, k, trained.m, seed=seed)
    ids = torch.from_numpy(_encode(words, k))
    tg = _targets(words, k)
    tops = np.array([top_of_stack(words[b])[q + 1] for b, q, _ in tg])
    long = np.array([q + 1 - matches(words[b])[q + 1] >= 3 for b, q, _ in tg])
    with torch.no_grad():
        logits, attn = trained.model(ids)
        pred = logits[tg[:, 0], tg[:, 1]].argmax(-1).numpy()
        mass = [A[tg[:, 0], tg[:, 1], tops].numpy() for A in attn]
        layer = int(np.argmax([x[long].mean() if long.any() else x.mean() for x in mass]))
        edges = torch.zeros(len(words), length, length, dtype=torch.bool)
        edges[tg[:, 0], tg[:, 1], tops] = True
        ko_logits, ko_attn = trained.model(ids, mask_layer=layer, mask_edges=edges)
        ko = ko_logits[tg[:, 0], tg[:, 1]].argmax(-1).numpy()
        ko_mass = float(ko_attn[layer][tg[:, 0], tg[:, 1], tops].max())
    ok, ko_ok = pred == tg[:, 2], ko == tg[:, 2]
    return {"closes": int(len(tg)), "long_closes": int(long.sum()),
            "accuracy": float(ok.mean()), "accuracy_long": float(ok[long].mean()),
            "top_mass": [float(x.mean()) for x in mass], "top_mass_long": [float(x[long].mean()) for x in mass],
            "knockout_layer": layer, "knockout_top_mass": ko_mass, "knockout_accuracy": float(ko_ok.mean()),
            "knockout_accuracy_long": float(ko_ok[long].mean()), "chance": 1 / k,
            "train_seconds": trained.seconds, "final_train_loss": trained.final_loss}
