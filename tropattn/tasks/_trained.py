"""Small transformers trained on Dyck-(k, m) by steps, with hooks for probes and interventions (THEORY §9).

Optional: needs torch (imported on first use: ``pip install 'tropattn[torch]'``).  The model is the
paper's shape: ``layers`` (default 2) pre-norm residual blocks of causal multi-head attention
(default 1 head) and a ReLU MLP, learned token and position embeddings.  It reads a Dyck word and,
at position ``t - 1``, predicts the type of the close at ``t`` (cross-entropy on those positions).

Training is by **steps, never by the clock**: Adam for ``steps`` steps on a seeded stream of words
from :func:`tropattn.tasks.generate`, on the CPU with ``torch.use_deterministic_algorithms(True)``
and one thread, so a seed and a step count fix every number (the loss log included).

The forward pass takes an :class:`Edit`: per layer, a function applied to the residual stream after
that layer (layer 0 = the embeddings; probes read these, ablations and patches write them),
attention edges to mask (score ``-inf``; a row left without keys reads nothing), and edges whose key
and value are replaced by those of another run (the "restore only this edge" patch).
Everything here is a float simulation.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._lazy import lazy_import
from .._validate import positive_float, positive_int
from ..errors import InvalidInputError
from ._dyck import check_shape, generate, matches, top_of_stack

__all__ = ["TrainedDyck", "Edit", "train_dyck", "measure_trained", "encode", "close_rows", "run_model"]

torch = lazy_import("torch", extra="torch")


def encode(words, k) -> np.ndarray:
    """Token ids of equal-length words: open type ``c`` -> ``c``, close type ``c`` -> ``k + c``.

    Parameters
    ----------
    words : sequence of sequence of int
        Dyck words of one length.
    k : int
        Bracket types.

    Returns
    -------
    numpy.ndarray
        Shape ``(len(words), length)``, int64.

    Examples
    --------
    >>> encode([(1, 2, -2, -1)], 2).tolist()
    [[0, 1, 3, 2]]
    """
    return np.array([[x - 1 if x > 0 else k - x - 1 for x in w] for w in words], dtype=np.int64)


def close_rows(words) -> np.ndarray:
    """One row per close: ``(word, query position t - 1, close type, top[t], distance t - top[t])``.

    Parameters
    ----------
    words : sequence of sequence of int
        Dyck words.

    Returns
    -------
    numpy.ndarray
        Shape ``(closes, 5)``, int64.

    Examples
    --------
    >>> close_rows([(1, 2, -2, -1)]).tolist()         # ']' at 2 reads '[' at 1; ')' at 3 reads '(' at 0
    [[0, 1, 1, 1, 1], [0, 2, 0, 0, 3]]
    """
    rows = []
    for b, w in enumerate(words):
        top, mt = top_of_stack(w), matches(w)
        for t, x in enumerate(w):
            if x < 0:
                rows.append((b, t - 1, -x - 1, top[t], t - mt[t]))
    return np.array(rows, dtype=np.int64).reshape(-1, 5)


@dataclass
class Edit:
    """What a forward pass changes: ``resid[l](x)`` after layer ``l`` (0 = embeddings), ``mask[l]`` (a bool
    ``(batch, n, n)`` tensor of masked edges) and ``restore[l] = (rows, cols, keys, values)``: the edges
    ``(b, rows[b]) -> cols[b]`` of layer ``l`` read the given keys and values ``(batch, heads, d_head)``."""

    resid: dict = field(default_factory=dict)
    mask: dict = field(default_factory=dict)
    restore: dict = field(default_factory=dict)


def _attention(x, qkv, heads, mask, restore):
    """Causal multi-head attention of ``x`` (batch, n, d); returns the output, weights, keys and values."""
    b, n, d = x.shape
    q, kk, v = (f(x).view(b, n, heads, d // heads).transpose(1, 2) for f in qkv)
    S = q @ kk.transpose(-1, -2) / (d // heads) ** 0.5
    if restore is not None:
        rows, cols, k_new, v_new = restore
        idx = torch.arange(b)
        S[idx, :, rows, cols] = (q[idx, :, rows] * k_new).sum(-1) / (d // heads) ** 0.5
    causal = torch.ones(n, n, dtype=torch.bool).triu(1)
    S = S.masked_fill(causal, float("-inf"))
    if mask is not None:
        S = S.masked_fill(mask[:, None], float("-inf"))
    A = torch.nan_to_num(torch.softmax(S, dim=-1), nan=0.0)
    out = A @ v
    if restore is not None:
        out[idx, :, rows] += A[idx, :, rows, cols][..., None] * (v_new - v[idx, :, cols])
    return out.transpose(1, 2).reshape(b, n, d), A, kk, v


def _build(k, length, d_model, heads, layers, seed):
    nn = torch.nn
    torch.manual_seed(seed)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
            self.q, self.k, self.v, self.o = (nn.Linear(d_model, d_model) for _ in range(4))
            self.mlp = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.ReLU(), nn.Linear(2 * d_model, d_model))

        def forward(self, x, mask=None, restore=None):
            a, A, kk, v = _attention(self.ln1(x), (self.q, self.k, self.v), heads, mask, restore)
            x = x + self.o(a)
            return x + self.mlp(self.ln2(x)), A, kk, v

    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(2 * k, d_model)
            self.pos = nn.Embedding(length, d_model)
            self.blocks = nn.ModuleList([Block() for _ in range(layers)])
            self.head = nn.Linear(d_model, k)

        def forward(self, ids, edit=None):
            edit = edit or Edit()
            x = self.tok(ids) + self.pos(torch.arange(ids.shape[1]))[None]
            x = edit.resid[0](x) if 0 in edit.resid else x
            trace = {"resid": [x], "attn": [], "keys": [], "values": []}
            for i, blk in enumerate(self.blocks, start=1):
                x, A, kk, v = blk(x, edit.mask.get(i), edit.restore.get(i))
                x = edit.resid[i](x) if i in edit.resid else x
                for name, val in (("resid", x), ("attn", A), ("keys", kk), ("values", v)):
                    trace[name].append(val)
            return self.head(x), trace

    return Model()


@dataclass
class TrainedDyck:
    """A trained model, its shape and its training log ``(step, loss, held-out accuracy)`` rows."""

    model: object
    k: int
    m: int
    length: int
    d_model: int
    heads: int
    layers: int
    seed: int
    steps: int
    log: tuple
    final_loss: float


def _deterministic():
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)


def run_model(trained, words, edit=None):
    """Logits and trace of ``trained`` on equal-length ``words`` (no gradients).

    Parameters
    ----------
    trained : TrainedDyck
        A model from :func:`train_dyck`.
    words : sequence of sequence of int
        Words of one length ``<= trained.length``.
    edit : Edit, optional
        The intervention (default: none).

    Returns
    -------
    logits : torch.Tensor
        Shape ``(batch, n, k)``.
    trace : dict
        Per layer: ``resid`` (``layers + 1`` tensors, embeddings first), ``attn``, ``keys``, ``values``.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> t = train_dyck(k=2, m=2, length=6, steps=2, batch=4, d_model=8)
    >>> logits, trace = run_model(t, generate(3, 6, 2, 2))
    >>> tuple(logits.shape), len(trace["resid"])
    ((3, 6, 2), 3)
    """
    _deterministic()
    with torch.no_grad():
        return trained.model(torch.from_numpy(encode(words, trained.k)), edit)


def _accuracy(trained, words) -> float:
    rows = close_rows(words)
    logits, _ = run_model(trained, words)
    pred = logits[rows[:, 0], rows[:, 1]].argmax(-1).numpy()
    return float((pred == rows[:, 2]).mean())


def _check_width(d_model, heads, layers):
    d_model = positive_int(d_model, "d_model", meaning="the model width")
    heads = positive_int(heads, "heads", meaning="the number of attention heads")
    layers = positive_int(layers, "layers", meaning="the number of layers")
    if d_model % heads:
        raise InvalidInputError(f"d_model = {d_model} is not divisible by heads = {heads}; each head needs "
                                f"d_model / heads dimensions (e.g. d_model = {heads * max(1, d_model // heads)})")
    return d_model, heads, layers


def train_dyck(k=2, m=3, length=16, steps=1500, batch=64, d_model=32, heads=1, layers=2, lr=3e-3, seed=0,
               log_every=None, eval_words=200) -> TrainedDyck:
    """Train with Adam for exactly ``steps`` steps (seeded, deterministic on the CPU; never a clock).

    Parameters
    ----------
    k, m, length : int, optional
        Bracket types (default 2), maximal depth (default 3), word length (even; default 16).
    steps : int, optional
        Adam steps (default 1500).
    batch : int, optional
        Words per step (default 64).
    d_model, heads, layers : int, optional
        Width (default 32; divisible by ``heads``), heads (default 1), layers (default 2).
    lr : float, optional
        Adam learning rate (default 3e-3).
    seed : int, optional
        Seeds the weights and the training words (default 0).
    log_every : int, optional
        Log ``(step, loss, accuracy on eval_words held-out words)`` every so many steps (default:
        ``steps // 10``) and at the last step.
    eval_words : int, optional
        Held-out words of the log's accuracy (default 200; their seed differs from every training seed).

    Returns
    -------
    TrainedDyck
        The model, its shape, the step count and the log.

    Raises
    ------
    MissingDependencyError
        If torch is missing.
    InvalidInputError
        If the shape is invalid, ``d_model`` is not divisible by ``heads``, or a count or ``lr`` is not positive.

    Examples
    --------
    >>> import pytest; _ = pytest.importorskip("torch")
    >>> t = train_dyck(k=2, m=2, length=6, steps=3, batch=8, d_model=8)   # a few steps: barely trained
    >>> t.steps, [row[0] for row in t.log], t.final_loss > 0
    (3, [1, 2, 3], True)
    """
    length, k, m = check_shape(length, k, m)
    steps = positive_int(steps, "steps", meaning="the number of Adam steps")
    batch = positive_int(batch, "batch", meaning="the number of words per step")
    d_model, heads, layers = _check_width(d_model, heads, layers)
    lr = positive_float(lr, "lr", meaning="the learning rate")
    every = positive_int(log_every or max(1, steps // 10), "log_every", meaning="the steps between log rows")
    held_out = generate(positive_int(eval_words, "eval_words", meaning="the held-out words"), length, k, m,
                        seed=2 ** 31 - 1 - seed)
    _deterministic()
    model = _build(k, length, d_model, heads, layers, seed)
    trained = TrainedDyck(model, k, m, length, d_model, heads, layers, int(seed), steps, (), float("nan"))
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    log = []
    for step in range(1, steps + 1):
        words = generate(batch, length, k, m, seed=seed * 100003 + step)
        rows = torch.from_numpy(close_rows(words))
        logits, _ = model(torch.from_numpy(encode(words, k)))
        out = torch.nn.functional.cross_entropy(logits[rows[:, 0], rows[:, 1]], rows[:, 2])
        opt.zero_grad()
        out.backward()
        opt.step()
        if step % every == 0 or step == steps:
            log.append((step, float(out.detach()), _accuracy(trained, held_out)))
    trained.log, trained.final_loss = tuple(log), log[-1][1]
    return trained


def measure_trained(trained, n_words=200, seed=12345) -> dict:
    """Accuracy, per-layer top-of-stack attention mass, and the knockout of that edge in the layer with most mass.

    Returns a dict with ``accuracy`` and ``accuracy_long`` (closes at distance >= 3), ``top_mass``
    (per layer, mean attention from ``t-1`` to ``top[t]``, averaged over heads; ``top_mass_long``),
    ``knockout_layer``, the accuracies with that edge masked in that layer, ``knockout_top_mass``
    (the largest weight left on the masked edge: 0), ``chance``, ``steps`` and ``final_train_loss``.
    :func:`tropattn.tasks.intervene` measures every layer, both layers and the controls.

    Parameters
    ----------
    trained : TrainedDyck
        A model from :func:`train_dyck`.
    n_words : int, optional
        Fresh test words (default 200).
    seed : int, optional
        Seed of the test words (default 12345).

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
    words = generate(n_words, trained.length, trained.k, trained.m, seed=seed)
    rows = close_rows(words)
    b, q, y, top, dist = rows.T
    long = dist >= 3
    logits, trace = run_model(trained, words)
    ok = logits[b, q].argmax(-1).numpy() == y
    mass = [A.mean(1)[b, q, top].numpy() for A in trace["attn"]]
    layer = int(np.argmax([x[long].mean() if long.any() else x.mean() for x in mass]))
    edges = torch.zeros(len(words), trained.length, trained.length, dtype=torch.bool)
    edges[b, q, top] = True
    ko_logits, ko_trace = run_model(trained, words, Edit(mask={layer + 1: edges}))
    ko_ok = ko_logits[b, q].argmax(-1).numpy() == y
    return {"closes": int(len(rows)), "long_closes": int(long.sum()),
            "accuracy": float(ok.mean()), "accuracy_long": float(ok[long].mean()),
            "top_mass": [float(x.mean()) for x in mass], "top_mass_long": [float(x[long].mean()) for x in mass],
            "knockout_layer": layer + 1, "knockout_top_mass": float(ko_trace["attn"][layer][b, :, q, top].max()),
            "knockout_accuracy": float(ko_ok.mean()), "knockout_accuracy_long": float(ko_ok[long].mean()),
            "chance": 1 / trained.k, "steps": trained.steps, "final_train_loss": trained.final_loss}
