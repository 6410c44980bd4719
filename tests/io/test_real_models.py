"""Real models: PyTorch modules and GPT-2-style checkpoints against their exact skeletons on slices."""

import copy
import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from tropattn.attention import slice_model, slice_through, token_points
from tropattn.errors import InvalidInputError, ModelFileError, QuadraticWallError, TieError
from tropattn.io import from_torch, load_gpt2
from tropattn.io._gpt2 import gpt2_blocks
from tropattn.io._skeleton import context_forward, query_path, slice_grid
from tropattn.regions import brute_force_regions, enumerate_regions

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_spec = importlib.util.spec_from_file_location(
    "real_model_example", Path(__file__).resolve().parents[2] / "scripts" / "real_model_example.py")
example = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(example)

SHARP = 1e4      # one-hot attention for the query: softmax(SHARP * scores)
MARGIN = 0.05    # grid points whose best two scores differ by less are skipped (near a wall)


def _slice(d, seed):
    rng = np.random.default_rng(seed)
    return rng.normal(size=d), rng.normal(size=(2, d)) * 0.7


def _exact(S, t):
    """Exact hard forward of the sliced model at the float grid point ``t`` (None on a wall)."""
    try:
        y, pattern = S.evaluate([float(v) for v in t])
    except TieError:
        return None
    return np.array([float(v) for v in y]), pattern


def _margins(skeleton, X):
    """Smallest gap between the best two scores over all heads and layers (floats, the skeleton's path)."""
    gaps = np.full(len(X), np.inf)
    for l, (blk, Y) in enumerate(zip(skeleton.blocks, skeleton.Ys)):
        Z = query_path(skeleton.blocks[:l], skeleton.Ys[:l], X)[0] if l else np.array(X, dtype=float)
        for h, (K, _) in enumerate(blk.attn.keys_values(Y)):
            S = (Z @ blk.attn.W_Q[h].T + blk.attn.b_Q[h]) @ K.T / math.sqrt(K.shape[1])
            top = np.sort(S, axis=1)
            gaps = np.minimum(gaps, top[:, -1] - top[:, -2])
    return gaps


def _sharpen(mha, factor):
    """Multiply the query projection (weight and bias) by ``factor``: the query's scores scale by it."""
    E = mha.embed_dim
    with torch.no_grad():
        mha.in_proj_weight[:E] *= factor
        if mha.in_proj_bias is not None:
            mha.in_proj_bias[:E] *= factor


def _causal_mask(n):
    m = torch.triu(torch.full((n, n), float("-inf"), dtype=torch.float64), 1)
    m[-1, -1] = float("-inf")                  # self_key="exclude": the query does not see itself
    return m


# ------------------------------------------------------------------ nn.MultiheadAttention
@pytest.mark.parametrize("batch_first", [True, False])
def test_multihead_attention_labels_and_outputs(batch_first):
    torch.manual_seed(1)
    mha = torch.nn.MultiheadAttention(16, 4, batch_first=batch_first).double().eval()
    C = np.random.default_rng(2).normal(size=(7, 16))
    S = slice_model(from_torch(mha, C), *_slice(16, 3))
    x0, U = _slice(16, 3)
    T, X = slice_grid(x0, U, 1.5, 9)
    kv = torch.as_tensor(C)[None] if batch_first else torch.as_tensor(C)[:, None]
    sharp = copy.deepcopy(mha)
    _sharpen(sharp, SHARP)
    checked = 0
    with torch.no_grad():
        for t, x in zip(T, X):
            q = torch.as_tensor(x)[None, None]
            out, w = mha(q, kv, kv, need_weights=True, average_attn_weights=False)
            hard, _ = sharp(q, kv, kv)
            ex = _exact(S, t)
            if ex is None:
                continue
            y, pattern = ex
            assert tuple(pattern[0][0]) == tuple(int(j) for j in w[0, :, 0].argmax(-1))   # softmax keeps the order
            gap = np.sort(w[0, :, 0].numpy(), axis=-1)
            if np.all(np.log(gap[:, -1]) - np.log(gap[:, -2]) > MARGIN):
                np.testing.assert_allclose(y, hard.reshape(-1).numpy(), rtol=1e-7, atol=1e-7)
                checked += 1
    assert checked > len(T) // 2


# ------------------------------------------------------------------ encoder layers and stacks
def _encoder(norm_first, batch_first, layers, seed, d=16, heads=2, ff=4, identity_norms=True, bias=True):
    torch.manual_seed(seed)
    layer = torch.nn.TransformerEncoderLayer(d, heads, dim_feedforward=ff, dropout=0.0, batch_first=batch_first,
                                             norm_first=norm_first, bias=bias)
    enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
    if identity_norms:                       # the LayerNorm-free model: the skeleton with layernorm="drop" is it
        for lay in enc.layers:
            lay.norm1, lay.norm2 = torch.nn.Identity(), torch.nn.Identity()
    return enc.double().eval()


@pytest.fixture(autouse=True)
def _plain_torch_path():
    """torch's fused eval path needs real LayerNorms: use its plain path (as from_torch does)."""
    was = torch.backends.mha.get_fastpath_enabled()
    torch.backends.mha.set_fastpath_enabled(False)
    yield
    torch.backends.mha.set_fastpath_enabled(was)


def _torch_query_path(enc, C, x, sharp):
    """Torch's own layers with the query last; the query's scores multiplied by ``sharp``; context soft."""
    ctx = torch.as_tensor(C)
    q = torch.as_tensor(x)[None]
    n = len(C) + 1
    labels = []
    for layer in enc.layers:
        bf = layer.self_attn.batch_first
        sharp_layer = copy.deepcopy(layer)
        _sharpen(sharp_layer.self_attn, sharp)
        seq = torch.cat([ctx, q])
        z = sharp_layer.norm1(seq) if layer.norm_first else seq
        zb = z[None] if bf else z[:, None]
        _, w = layer.self_attn(zb, zb, zb, attn_mask=_causal_mask(n), need_weights=True, average_attn_weights=False)
        labels.append(tuple(int(j) for j in w[0, :, -1].argmax(-1)))
        out = sharp_layer(seq[None] if bf else seq[:, None], src_mask=_causal_mask(n))
        q = (out[0] if bf else out[:, 0])[-1:]
        causal = torch.triu(torch.full((len(C), len(C)), float("-inf"), dtype=torch.float64), 1)
        ctx_out = layer(ctx[None] if bf else ctx[:, None], src_mask=causal)
        ctx = ctx_out[0] if bf else ctx_out[:, 0]
    return q[0].detach().numpy(), labels


@pytest.mark.parametrize("norm_first,batch_first,bias", [(True, True, True), (False, False, True),
                                                         (True, False, True), (True, True, False)])
def test_encoder_matches_torch_on_a_slice(norm_first, batch_first, bias):
    enc = _encoder(norm_first, batch_first, 2, seed=4, bias=bias)
    C = np.random.default_rng(5).normal(size=(6, 16))
    skeleton = from_torch(enc, C, layernorm="drop", self_key="exclude")
    x0, U = _slice(16, 6)
    S = slice_model(skeleton, x0, U)
    T, X = slice_grid(x0, U, 1.0, 5)
    checked = 0
    for t, x in zip(T, X):     # grad stays enabled: torch then takes its plain (not fused) path
        ex = _exact(S, t)
        if ex is None:
            continue
        y, pattern = ex
        y_torch, labels = _torch_query_path(enc, C, x, SHARP)
        assert tuple(pattern[0][0]) == labels[0]            # layer 1: torch's own attention argmax
        if all(tuple(p[0]) == lab for p, lab in zip(pattern, labels)) and _margins(skeleton, x[None])[0] > MARGIN:
            np.testing.assert_allclose(y, y_torch, rtol=1e-6, atol=1e-6)
            checked += 1
    assert checked >= len(T) // 3


def test_frozen_layernorm_is_exact_at_the_reference_point():
    enc = _encoder(False, True, 2, seed=7, identity_norms=False)     # post-norm with real LayerNorms
    C = np.random.default_rng(8).normal(size=(5, 16))
    x0, U = _slice(16, 9)
    skeleton = from_torch(enc, C, layernorm="freeze", self_key="exclude", reference=x0)
    S = slice_model(skeleton, x0, U)
    y_torch, labels = _torch_query_path(enc, C, x0, SHARP)
    y, pattern = _exact(S, [0, 0])
    assert [tuple(p[0]) for p in pattern[:2]] == labels
    np.testing.assert_allclose(y, y_torch, rtol=1e-6, atol=1e-6)
    agree = skeleton.label_agreement(x0, U, box=0.5, resolution=9)
    assert 0 <= agree["all_layers"] <= 1 and agree["points"] == 81
    assert agree["per_layer"][0] >= agree["all_layers"]


def test_region_count_on_a_slice_matches_brute_force_and_the_grid():
    enc = _encoder(True, True, 1, seed=10, ff=2)
    C = np.random.default_rng(11).normal(size=(4, 16))
    x0, U = _slice(16, 12)
    S = slice_model(from_torch(enc, C, layernorm="drop", self_key="exclude"), x0, U)
    box = (-1, 1)
    regions = enumerate_regions(S, box=box, progress=False)
    assert len(regions.activation_regions) == len(brute_force_regions(S, box=box))
    T, _ = slice_grid(x0, U, 1.0, 25)
    seen = {ex[1] for t in T if (ex := _exact(S, t)) is not None}
    assert len(regions.activation_regions) >= len(seen) > 1


# ------------------------------------------------------------------ GPT-2-shaped state dicts
def _gpt2_state(model):
    return {k: v.detach().double().numpy() for k, v in model.state_dict().items()}


def test_gpt2_state_dict_matches_a_torch_gpt2():
    model = example.tiny_gpt2(vocab=10, positions=16, d=16, n_head=2, n_layer=2, mlp=8, seed=13).double()
    ids = [3, 1, 4, 1, 5, 9, 2]
    blocks, wte, wpe = gpt2_blocks(_gpt2_state(model), 2)
    with torch.no_grad():
        _, hidden, weights = model(torch.as_tensor(ids))
    Ys = context_forward(blocks, wte[ids] + wpe[np.arange(len(ids))])
    for blk, Y, H in zip(model.h, Ys, hidden):                  # the context's soft forward, layer by layer
        np.testing.assert_allclose(Y, blk.ln_1(H).detach().numpy(), rtol=1e-9, atol=1e-9)
    points = token_points(wte, wpe, [0, 1, 2], len(ids))
    x0, U = slice_through(points)
    skeleton = load_gpt2(_gpt2_state(model), ids, n_head=2, layernorm="freeze", self_key="exclude",
                         activation="relu", reference=[float(v) for v in x0])
    S = slice_model(skeleton, x0, U)
    y, pattern = _exact(S, [0, 0])
    with torch.no_grad():                                        # torch, query one-hot, at the reference token "("
        _, hidden_q, w_q = model(torch.as_tensor(ids + [0]), sharp=SHARP, exclude_self_last=True)
    # layer 1 at the reference token: the frozen LayerNorm is exact there (later layers see GELU vs ReLU)
    assert tuple(pattern[0][0]) == tuple(int(j) for j in w_q[0][:, -1].argmax(-1))


def test_gpt2_hard_forward_matches_torch_at_every_layer():
    model = example.tiny_gpt2(vocab=10, positions=16, d=16, n_head=2, n_layer=2, mlp=8, seed=14).double()
    ids = [3, 1, 4, 1, 5]
    skeleton = load_gpt2(_gpt2_state(model), ids, n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    x0, U = slice_through(token_points(skeleton.wte, skeleton.wpe, [0, 1, 2], len(ids)))
    S = slice_model(skeleton, x0, U)
    T, X = slice_grid([float(v) for v in x0], [[float(v) for v in u] for u in U], 1.0, 5)
    gaps = _margins(skeleton, X)
    checked = 0
    with torch.no_grad():
        for t, x, gap in zip(T, X, gaps):
            ex = _exact(S, t)
            if ex is None:
                continue
            y, pattern = ex
            _, hidden, w = model(torch.as_tensor(ids + [0]), sharp=SHARP, exclude_self_last=True, plain_query=True,
                                 query_state=x)
            assert tuple(pattern[0][0]) == tuple(int(j) for j in w[0][:, -1].argmax(-1))   # layer 1: torch's argmax
            if gap > MARGIN:
                assert [tuple(p[0]) for p in pattern] == [tuple(int(j) for j in a[:, -1].argmax(-1)) for a in w]
                np.testing.assert_allclose(y, hidden[-1][-1].numpy(), rtol=1e-7, atol=1e-7)
                checked += 1
    assert checked >= len(T) // 3


def test_trained_model_saved_as_safetensors_loads_without_torch(tmp_path):
    model, acc = example.train_brackets(steps=40)
    assert acc > 0.4                                   # better than guessing among 8 tokens
    path = example.save_checkpoint(model, tmp_path / "tiny.safetensors")
    ids = [example.VOCAB.index(c) for c in "a(b[cd"]
    skeleton = load_gpt2(path, ids, n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    x0, U = slice_through(token_points(skeleton.wte, skeleton.wpe, [0, 1, 2], len(ids)))
    S = slice_model(skeleton, x0, U)
    regions = enumerate_regions(S, box=(-0.3, 0.3), progress=False)
    T, _ = slice_grid(x0, U, 0.3, 9)
    seen = {ex[1] for t in T if (ex := _exact(S, t)) is not None}
    assert len(regions.activation_regions) >= len(seen) >= 1


# ------------------------------------------------------------------ errors (point 6)
def test_errors_name_the_problem(tmp_path):
    with pytest.raises(InvalidInputError, match="does not know a Linear"):
        from_torch(torch.nn.Linear(4, 4), np.zeros((3, 4)))
    enc = _encoder(True, True, 1, seed=0, identity_norms=False)
    C = np.zeros((3, 16))
    with pytest.raises(QuadraticWallError, match="self_key='exclude'"):
        from_torch(enc, C, layernorm="drop")
    with pytest.raises(InvalidInputError, match="layernorm='drop'.*layernorm='freeze'"):
        from_torch(enc, C, self_key="exclude")
    model = example.tiny_gpt2(vocab=6, positions=8, d=8, n_head=2, n_layer=1, mlp=4, seed=0)
    state = _gpt2_state(model)
    with pytest.raises(InvalidInputError, match="activation='relu'"):
        load_gpt2(state, [1, 2], n_head=2, layernorm="drop", self_key="exclude")
    with pytest.raises(ModelFileError, match="missing tensor.*h.0.ln_1.bias"):
        load_gpt2({k: v for k, v in state.items() if k != "h.0.ln_1.bias"}, [1], n_head=2)
    with pytest.raises(ModelFileError, match="unexpected tensor.*h.0.extra"):
        load_gpt2(dict(state, **{"h.0.extra": np.zeros(2)}), [1], n_head=2)
    bad = dict(state, **{"h.0.attn.c_attn.weight": state["h.0.attn.c_attn.weight"].T})
    with pytest.raises(ModelFileError, match=r"h.0.attn.c_attn.weight has shape \(24, 8\); expected \(8, 24\)"):
        load_gpt2(bad, [1], n_head=2)
    with pytest.raises(InvalidInputError, match="n_head"):
        load_gpt2(state, [1])
    sk = load_gpt2(state, [1, 2], n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    with pytest.raises(InvalidInputError, match=r"directions\[0\] has 3 entries.*d = 8"):
        slice_model(sk, np.zeros(8), [[1, 0, 0]])
    with pytest.raises(InvalidInputError, match="rank 1 < 2"):
        slice_model(sk, np.zeros(8), [np.ones(8), 2 * np.ones(8)])
    with pytest.raises(InvalidInputError, match="x0 has length 2|x0"):
        slice_model(sk, np.zeros(2), [np.ones(8)])


def test_cli_counts_a_checkpoint_slice(tmp_path, capsys):
    import json

    from tropattn.cli import main

    model = example.tiny_gpt2(vocab=8, positions=8, d=8, n_head=2, n_layer=1, mlp=4, seed=3)
    path = example.save_checkpoint(model, tmp_path / "m.safetensors")
    common = ["--heads", "2", "--context", "3,0,4", "--slice", "tokens:0,1,2", "--self-key", "exclude",
              "--activation", "relu", "--box=-1/2,1/2"]
    assert main(["count", str(path), "--layernorm", "freeze", "--json"] + common) in (0, None)
    captured = capsys.readouterr()
    out = json.loads(captured.out)
    skeleton = load_gpt2(path, [3, 0, 4], n_head=2, layernorm="freeze", self_key="exclude", activation="relu",
                         reference=[float(v) for v in slice_through(token_points(
                             model.wte.weight.detach().numpy(), model.wpe.weight.detach().numpy(), [0, 1, 2], 3))[0]])
    x0, U = slice_through(token_points(skeleton.wte, skeleton.wpe, [0, 1, 2], 3))
    expected = enumerate_regions(slice_model(skeleton, x0, U), box=("-1/2", "1/2"), progress=False)
    assert out["activation_regions"] == len(expected.activation_regions) and out["dim"] == 2
    assert "layernorm=freeze: the frozen labels equal the true-LayerNorm labels at" in captured.err
    png = tmp_path / "slice.png"
    assert main(["diagram", str(path), "--layernorm", "drop", "-o", str(png)] + common) in (0, None)
    assert png.stat().st_size > 0
    assert main(["count", str(path)] + common) == 2            # no --layernorm: refused, exit 2
    assert "layernorm='drop'" in capsys.readouterr().err


def test_a_two_block_slice_counts_the_same_in_two_worker_processes():
    """A process pool's count of a checkpoint slice: the steps reach each worker once (their power
    diagrams' cell tables pickle), and the last ReLU step's waiting maps come back as recipes."""
    from tropattn.regions import count_regions

    model = example.tiny_gpt2(vocab=10, positions=16, d=16, n_head=2, n_layer=2, mlp=8, seed=14).double()
    ids = [3, 1, 4, 1, 5]
    skeleton = load_gpt2(_gpt2_state(model), ids, n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    S = slice_model(skeleton, *slice_through(token_points(skeleton.wte, skeleton.wpe, [0, 1, 2], len(ids))))
    serial = count_regions(S, box=(-1, 1), keep="counts", progress=False)
    pooled = count_regions(S, box=(-1, 1), keep="counts", progress=False, workers=2)
    assert (pooled.n_activation, pooled.n_linear) == (serial.n_activation, serial.n_linear)
    assert serial.n_activation == len(enumerate_regions(S, box=(-1, 1), progress=False).activation_regions)
