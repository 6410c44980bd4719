"""Slices of multi-layer models whose later heads read many coordinates (issue 23, the crash).

A head reading more than ``DIAGRAM_MAX_DIM`` coordinates has no power diagram: every distinct key
is a rival.  The search once read ``step.cells[h][j]`` there and crashed on the second layer of
every checkpoint slice.  Checked here against the reference brute force of tests/oracles (square
score-form models in d = 9), against tropattn's own brute force over label tuples, and against a
float forward written here from the layers' fields (no tropattn evaluation).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from oracles.compare import compare, random_model_json
from tropattn.attention import slice_model, slice_through, token_points
from tropattn.io import from_torch, load_gpt2, model_from_json
from tropattn.regions import brute_force_regions, enumerate_regions

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import real_model_example as example  # noqa: E402


def _float_pattern(model, t):
    """The activation pattern at ``t`` and the smallest score gap / |pre-activation| met, in floats."""
    x = np.asarray(t, dtype=float)
    pattern, margin = [], np.inf
    for layer in model.layers:
        labels, total = [], 0.0
        for head in layer.heads:
            s = np.array([[float(v) for v in k] for k in head.keys]) @ x + np.array([float(v) for v in head.offsets])
            j = int(np.argmax(s))
            top = np.sort(s)
            margin = min(margin, top[-1] - top[-2]) if len(s) > 1 else margin
            labels.append(j)
            total = total + np.array([float(v) for v in head.values[j]])
        if layer.projection is not None:
            total = np.array([[float(v) for v in r] for r in layer.projection]) @ total
        R = layer.residual
        skip = x if R is True else 0.0 if R is False else np.array([[float(v) for v in r] for r in R]) @ x
        y = skip + total
        bits = ()
        if layer.ffn is not None:
            W1 = np.array([[float(v) for v in r] for r in layer.ffn.W1])
            pre = W1 @ y + np.array([float(v) for v in layer.ffn.b1])
            margin = min(margin, float(np.min(np.abs(pre))))
            bits = tuple(int(p > 0) for p in pre)
            W2 = np.array([[float(v) for v in r] for r in layer.ffn.W2])
            y = y + W2 @ np.maximum(pre, 0) + np.array([float(v) for v in layer.ffn.b2])
        pattern.append((tuple(labels), bits))
        x = y
    return tuple(pattern), margin


def _check_slice(S, box, grid=15, brute=True):
    """Search == brute force; every region's point has its pattern; every clear grid point is a region."""
    result = enumerate_regions(S, box=box, progress=False)
    patterns = {r.pattern for r in result.activation_regions}
    assert len(patterns) == result.n_activation
    if brute:
        assert sorted(patterns) == brute_force_regions(S, box=box)
    for r in result.activation_regions:
        got, margin = _float_pattern(S, [float(v) for v in r.interior_point])
        if margin > 1e-9:
            assert got == r.pattern
    ts = np.linspace(box[0], box[1], grid)
    clear = 0
    for a in ts:
        for b in ts:
            got, margin = _float_pattern(S, (a, b))
            if margin > 1e-6:
                assert got in patterns, ((a, b), got)
                clear += 1
    assert clear > grid * grid // 2
    return result


def _issue_slice(tmp_path):
    path = example.save_checkpoint(example.tiny_gpt2(vocab=8, positions=8, d=16, n_head=2, n_layer=2, mlp=8, seed=3),
                                   tmp_path / "two.safetensors")
    ids = [3, 4, 5, 6]
    sk = load_gpt2(path, ids, n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    S = slice_model(sk, *slice_through(token_points(sk.wte, sk.wpe, [0, 1, 2], len(ids))))
    assert S.layers[1].heads[0].dim == 16                # the second layer reads the whole residual stream
    return S


def test_two_layer_gpt2_checkpoint_slice(tmp_path):
    """The issue's model: tiny_gpt2(vocab=8, positions=8, d=16, n_head=2, n_layer=2, mlp=8, seed=3)."""
    assert _check_slice(_issue_slice(tmp_path), (-1, 1), brute=False).n_activation == 26


@pytest.mark.slow
def test_two_layer_gpt2_checkpoint_slice_brute_force(tmp_path):
    """The same slice against the brute force over label tuples (about 50 CPU-s)."""
    assert _check_slice(_issue_slice(tmp_path), (-1, 1), grid=3).n_activation == 26


def test_small_two_layer_gpt2_slice_brute_force(tmp_path):
    path = example.save_checkpoint(example.tiny_gpt2(vocab=8, positions=8, d=16, n_head=2, n_layer=2, mlp=2, seed=5),
                                   tmp_path / "small.safetensors")
    sk = load_gpt2(path, [3, 4], n_head=2, layernorm="drop", self_key="exclude", activation="relu")
    S = slice_model(sk, *slice_through(token_points(sk.wte, sk.wpe, [0, 1, 2], 2)))
    _check_slice(S, (-1, 1))


@pytest.mark.parametrize("layers", [2, 3])
def test_torch_encoder_stack_sliced_to_a_plane(layers):
    torch.manual_seed(layers)
    layer = torch.nn.TransformerEncoderLayer(16, 2, dim_feedforward=3, dropout=0.0, batch_first=True)
    enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False).double().eval()
    for lay in enc.layers:
        lay.norm1, lay.norm2 = torch.nn.Identity(), torch.nn.Identity()
    C = np.random.default_rng(layers).normal(size=(3, 16))
    rng = np.random.default_rng(10 + layers)
    S = slice_model(from_torch(enc, C, layernorm="drop", self_key="exclude"),
                    [float(v) for v in rng.normal(size=16)], [[float(v) for v in u] for u in rng.normal(size=(2, 16))])
    _check_slice(S, (-1, 1), grid=11, brute=layers == 2)


def test_heads_reading_nine_coordinates_agree_with_the_oracle():
    """Square score-form models in d = 9 (no power diagram), against the independent brute force."""
    rnd = random.Random(23)
    for layers, heads, units in ((1, 2, 1), (2, 1, 0)):
        obj = random_model_json(rnd, 9, layers, heads, 3, units)
        found = compare(obj, enumerate_regions(model_from_json(obj)), edges=False)
        assert found == {}
