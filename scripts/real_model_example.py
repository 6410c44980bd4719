"""A real model end to end: train a tiny GPT-2-style transformer in seconds, save it as
``.safetensors``, load it **without torch**, and draw the exact regions of a 2-D slice.

Task ("copy the most recent bracket"): tokens ``( [ {`` are brackets, ``a b c d e`` fillers;
after a context of 6 tokens the model predicts the most recent bracket.

    python scripts/real_model_example.py            # writes docs/real_model_slice.png

``TinyGPT2`` is also the independent torch reference of ``tests/test_real_models.py``:
its parameter names are GPT-2's (``wte``, ``wpe``, ``h.{i}.ln_1``, ``attn.c_attn`` ...)
and its Conv1D weights are ``(in, out)``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

VOCAB = ["(", "[", "{", "a", "b", "c", "d", "e"]
BRACKETS = 3


def tiny_gpt2(vocab=8, positions=16, d=16, n_head=2, n_layer=1, mlp=32, seed=0):
    """A GPT-2-shaped torch module (pre-norm, GELU tanh, Conv1D ``x @ W + b``)."""
    import torch
    import torch.nn as nn

    torch.manual_seed(seed)

    class Conv1D(nn.Module):
        def __init__(self, n_in, n_out):
            super().__init__()
            self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.3)
            self.bias = nn.Parameter(torch.randn(n_out) * 0.1)

        def forward(self, x):
            return x @ self.weight + self.bias

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.Module()
            self.attn.c_attn, self.attn.c_proj = Conv1D(d, 3 * d), Conv1D(d, d)
            self.mlp = nn.Module()
            self.mlp.c_fc, self.mlp.c_proj = Conv1D(d, mlp), Conv1D(mlp, d)

        def attend(self, z, sharp, exclude_self_last):
            n, hd = z.shape[-2], d // n_head
            q, k, v = self.attn.c_attn(z).split(d, dim=-1)
            q, k, v = (t.reshape(*t.shape[:-1], n_head, hd).transpose(-2, -3) for t in (q, k, v))
            s = q @ k.transpose(-1, -2) / math.sqrt(hd)
            mask = torch.triu(torch.ones(n, n, dtype=torch.bool), 1)
            if exclude_self_last:
                mask[-1, -1] = True
            s = s.masked_fill(mask, float("-inf"))
            if sharp is not None:
                s = torch.cat([s[..., :-1, :], s[..., -1:, :] * sharp], dim=-2)
            p = s.softmax(-1)
            out = (p @ v).transpose(-2, -3)
            return self.attn.c_proj(out.reshape(*out.shape[:-2], d)), p

        def forward(self, x, sharp=None, exclude_self_last=False, plain_query=False):
            z = self.ln_1(x)
            if plain_query:                      # the last row: no LayerNorm (its path is the skeleton)
                z = torch.cat([z[..., :-1, :], x[..., -1:, :]], dim=-2)
            a, p = self.attend(z, sharp, exclude_self_last)
            x = x + a
            h = nn.functional.gelu(self.mlp.c_fc(self.ln_2(x)), approximate="tanh")
            if plain_query:                      # ... and ReLU in place of GELU
                h = torch.cat([h[..., :-1, :], torch.relu(self.mlp.c_fc(x[..., -1:, :]))], dim=-2)
            return x + self.mlp.c_proj(h), p

    class TinyGPT2(nn.Module):
        def __init__(self):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, d), nn.Embedding(positions, d)
            self.h = nn.ModuleList(Block() for _ in range(n_layer))
            self.ln_f = nn.LayerNorm(d)

        def forward(self, ids, sharp=None, exclude_self_last=False, plain_query=False, query_state=None):
            """``(logits, hidden states per block input + final, attention weights per block)``.

            ``sharp`` multiplies the last row's scores, ``exclude_self_last`` masks its own key,
            ``plain_query`` drops LayerNorm and uses ReLU on the last row (the context rows keep
            both), ``query_state`` replaces the last row's input embedding.
            """
            x = self.wte(ids) + self.wpe(torch.arange(ids.shape[-1]))
            if query_state is not None:
                x = torch.cat([x[..., :-1, :], torch.as_tensor(query_state, dtype=x.dtype)[None]], dim=-2)
            hidden, weights = [x], []
            for block in self.h:
                x, p = block(x, sharp, exclude_self_last, plain_query)
                hidden.append(x)
                weights.append(p)
            return self.ln_f(x) @ self.wte.weight.T, hidden, weights

    return TinyGPT2()


def bracket_batch(rng, n, length=7):
    """Sequences of ``length`` tokens (context + query filler) and the most recent bracket."""
    X = rng.integers(0, len(VOCAB), size=(n, length))
    X[:, -1] = rng.integers(BRACKETS, len(VOCAB), size=n)
    X[np.arange(n), rng.integers(0, length - 1, size=n)] = rng.integers(0, BRACKETS, size=n)  # >= 1 bracket
    y = np.array([row[:-1][row[:-1] < BRACKETS][-1] for row in X])
    return X, y


def train_brackets(steps=120, seed=0, n_layer=1):
    """Train :func:`tiny_gpt2` on the bracket task (a few seconds on a CPU); returns (model, accuracy)."""
    import torch

    model = tiny_gpt2(vocab=len(VOCAB), n_layer=n_layer, seed=seed)
    opt = torch.optim.Adam(model.parameters(), lr=0.02)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        X, y = bracket_batch(rng, 64)
        logits = model(torch.as_tensor(X))[0][:, -1]
        loss = torch.nn.functional.cross_entropy(logits, torch.as_tensor(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
    X, y = bracket_batch(np.random.default_rng(seed + 1), 200)
    with torch.no_grad():
        pred = model(torch.as_tensor(X))[0][:, -1].argmax(-1).numpy()
    return model, float((pred == y).mean())


def save_checkpoint(model, path):
    """The state dict as ``.safetensors`` (numpy arrays, GPT-2 names)."""
    from safetensors.numpy import save_file

    save_file({k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}, str(path))
    return Path(path)


def analyse(path, context, box=2, picture=None):
    """Load the checkpoint without torch and count the exact regions on the plane through ``( [ {``."""
    from tropattn.attention import slice_model, slice_through, token_points
    from tropattn.io import load_gpt2
    from tropattn.plot import plot_slice
    from tropattn.regions import enumerate_regions

    ids = [VOCAB.index(c) for c in context]
    skeleton = load_gpt2(path, ids, n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    points = token_points(skeleton.wte, skeleton.wpe, [0, 1, 2], len(ids))   # "(", "[", "{" at the query position
    x0, U = slice_through(points)
    sliced = slice_model(skeleton, x0, U)
    t0 = time.perf_counter()
    result = enumerate_regions(sliced, box=(-box, box), progress=False)
    seconds = time.perf_counter() - t0
    if picture is not None:
        names = [f"{i}:{c}" for i, c in enumerate(context)]
        groups = len({tuple(l for l, _ in r.pattern) for r in result.activation_regions})
        plot_slice(sliced, (-box, box), picture, names=names, regions=result,
                   axis_names=("t1: from '(' towards '['", "t2: from '(' towards '{'"),
                   marks=[((0, 0), "query = ("), ((1, 0), "query = ["), ((0, 1), "query = {")],
                   title=f"trained tiny GPT-2, context '{' '.join(context)}', query on the plane through ( [ {{\n"
                         f"{len(result.activation_regions)} exact regions, {groups} attention patterns (thin lines: ReLU walls); "
                         "label = position:token each head attends to")
    return len(result.activation_regions), len(result.linear_regions), seconds


def main(argv=None):
    out = Path(__file__).resolve().parents[1] / "docs" / "real_model_slice.png"
    t0 = time.perf_counter()
    model, acc = train_brackets()
    print(f"trained in {time.perf_counter() - t0:.1f} s, accuracy {acc:.2f}")
    ckpt = Path("/tmp/tiny_gpt2.safetensors")
    save_checkpoint(model, ckpt)
    context = ["a", "(", "b", "[", "c", "d"]
    n_act, n_lin, s = analyse(ckpt, context, box=1.5, picture=out)
    print(f"{n_act} activation regions, {n_lin} linear regions on the slice in {s:.1f} s; wrote {out}")


if __name__ == "__main__":
    sys.exit(main())
