"""Slices of multi-layer GPT-2 checkpoints (written by ``transformers``) against HF's own forward and the brute force.

The oracle for the exact sliced model is Hugging Face's ``GPT2Model`` itself (a ReLU config):
the context runs through the real model (LayerNorms and softmax as they are) and leaves its
keys and values in HF's cache; the query is then a one-token forward at position ``N`` of
the model as the skeleton reads the query's path (``layernorm="drop"``: LayerNorms replaced
by the identity; the query projection scaled by ``SHARP``: softmax one-hot; its own key
masked: ``self_key="exclude"``; ``ln_f`` the identity: it lies outside the skeleton).  Heads of the
first block read the slice's 2 coordinates; every later head reads all ``d`` coordinates of
the residual state (``d`` = 4: a power diagram exists; ``d`` >= 16: none, every key a rival).
"""

import copy
import re

import numpy as np
import pytest

from tropattn.attention import slice_through, token_points
from tropattn.cli import main
from tropattn.io import slice_checkpoint
from tropattn.regions import brute_force_regions, enumerate_regions

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.torch

SHARP = 1e5
IDS = [3, 1, 4]


def _model(folder, d, L, heads, inner, seed):
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(vocab_size=8, n_positions=8, n_embd=d, n_layer=L, n_head=heads, n_inner=inner,
                                  activation_function="relu", bos_token_id=0, eos_token_id=0)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "ln_" not in name:
                p.normal_(0, 1.0 / np.sqrt(d) if name.endswith("weight") and "wte" not in name else 0.5)
    model.save_pretrained(folder)
    context = transformers.GPT2Model.from_pretrained(folder, dtype=torch.float64).eval()
    return context, _query_model(folder)


def _query_model(folder, drop_norms=True):
    """HF's GPT2Model from ``folder`` as the query sees it: no LayerNorm, queries scaled by ``SHARP``."""
    hf = transformers.GPT2Model.from_pretrained(folder, attn_implementation="eager", dtype=torch.float64).eval()
    with torch.no_grad():
        for blk in hf.h:
            if drop_norms:
                blk.ln_1, blk.ln_2 = torch.nn.Identity(), torch.nn.Identity()
            d = blk.attn.c_attn.weight.shape[0]
            blk.attn.c_attn.weight[:, :d] *= SHARP
            blk.attn.c_attn.bias[:d] *= SHARP
    hf.ln_f = torch.nn.Identity()                      # ln_f lies outside the skeleton
    return hf


def _context_cache(hf):
    with torch.no_grad():
        return hf(torch.tensor([IDS]), use_cache=True).past_key_values        # the context, unsharpened


def _query_state(cache, sharp, x):
    """HF at the query state ``x``: its output (ln_f is the identity), argmax per block, least top weight."""
    n = len(IDS)
    with torch.no_grad():
        emb = (torch.as_tensor(x) - sharp.wpe.weight[n])[None, None]
        out = sharp(inputs_embeds=emb, past_key_values=copy.deepcopy(cache), attention_mask=torch.tensor([[1] * n + [0]]),
                    position_ids=torch.tensor([[n]]), output_attentions=True, use_cache=True)
    one_hot = min(float(a[0, :, -1].max(-1).values.min()) for a in out.attentions)
    return (out.last_hidden_state[0, -1].numpy(), [tuple(a[0, :, -1, :n].argmax(-1).tolist()) for a in out.attentions],
            one_hot)


def _check(tmp_path, d, L, heads, inner, seed, box, brute):
    hf, sharp = _model(tmp_path, d, L, heads, inner, seed)
    cut = slice_checkpoint(tmp_path, IDS, tokens=[0, 1, 2], layernorm="drop", self_key="exclude")
    S = cut.model
    assert S.dim == 2 and len(S.layers) == L
    result = enumerate_regions(S, box=box, progress=False)
    patterns = {r.pattern for r in result.activation_regions}
    if brute:
        assert sorted(patterns) == brute_force_regions(S, box=box)
    x0 = np.array([float(v) for v in cut.x0])
    U = np.array([[float(v) for v in u] for u in cut.directions])
    cache = _context_cache(hf)
    sharp_points = 0
    for r in result.activation_regions:                 # HF at each region's exact interior point
        t = np.array([float(v) for v in r.interior_point])
        y, labels, one_hot = _query_state(cache, sharp, x0 + t @ U)
        assert labels == [p[0] for p in r.pattern]
        if one_hot > 1 - 1e-9:                          # HF's softmax is one-hot there: the outputs agree
            exact = np.array([float(v) for v in S.evaluate(r.interior_point)[0]])
            np.testing.assert_allclose(exact, y, rtol=1e-6, atol=1e-6 * np.abs(exact).max())
            sharp_points += 1
    assert sharp_points >= len(result.activation_regions) / 2
    seen = set()
    for a in np.linspace(box[0], box[1], 5):            # every grid point's HF labels are those of a region
        for b in np.linspace(box[0], box[1], 5):
            seen.add(tuple(_query_state(cache, sharp, x0 + np.array([a, b]) @ U)[1]))
    assert seen <= {tuple(p[0] for p in pattern) for pattern in patterns}
    return result


@pytest.mark.parametrize("d,L,heads,inner,seed", [(4, 1, 2, 2, 0), (4, 2, 2, 2, 1),
                                                  pytest.param(16, 3, 2, 1, 3, marks=pytest.mark.slow),
                                                  pytest.param(16, 2, 2, 2, 2, marks=pytest.mark.slow)])
def test_slices_match_hf_and_the_brute_force(tmp_path, d, L, heads, inner, seed):
    result = _check(tmp_path, d, L, heads, inner, seed, box=(-1, 1), brute=True)
    assert result.n_activation > 1


@pytest.mark.parametrize("d,L,heads", [(32, 4, 4), (64, 2, 4)])
def test_deeper_and_wider_slices_match_hf(tmp_path, d, L, heads):
    _check(tmp_path, d, L, heads, 2, seed=d + L, box=(-1 / 2, 1 / 2), brute=False)


@pytest.mark.slow
def test_a_gpt2_small_width_slice_matches_hf(tmp_path):
    _check(tmp_path, 768, 1, 12, 2, seed=7, box=(-1 / 4, 1 / 4), brute=False)


def test_slice_plane_is_the_three_tokens_at_the_query_position(tmp_path):
    hf, _ = _model(tmp_path, 16, 1, 2, 2, seed=9)
    cut = slice_checkpoint(tmp_path, IDS, tokens=[0, 1, 2], layernorm="drop", self_key="exclude")
    wte, wpe = hf.wte.weight.detach().numpy(), hf.wpe.weight.detach().numpy()
    P = [wte[t] + wpe[len(IDS)] for t in (0, 1, 2)]     # token + position embedding, position N
    x0, U = slice_through(token_points(wte, wpe, [0, 1, 2], len(IDS)))
    assert cut.x0 == tuple(x0)
    np.testing.assert_array_equal(np.array([float(v) for v in cut.x0]), P[0])
    np.testing.assert_array_equal(np.array([[float(v) for v in u] for u in cut.directions]),
                                  [P[1] - P[0], P[2] - P[0]])


def _svg_drawing(svg):
    """What an SVG written by matplotlib draws: its texts, and its markers in data coordinates (read off the ticks)."""
    texts = [t.replace("&gt;", ">").replace("\u2212", "-") for t in re.findall(r"<!-- (.*?) -->", svg)]
    fit, tick_marks = {}, set()
    for axis in "xy":
        pairs = []
        for m in re.finditer(rf'<g id="{axis}tick_\d+">', svg):
            chunk = svg[m.end():m.end() + 4000]
            href, x, y = re.search(r'<use xlink:href="#(\w+)" x="([-\d.]+)" y="([-\d.]+)"', chunk).groups()
            tick_marks.add(href)
            label = re.search(r"<!-- (.*?) -->", chunk).group(1).replace("\u2212", "-")
            pairs.append((float(x if axis == "x" else y), float(label)))
        fit[axis] = np.polyfit(*zip(*pairs), 1)
    marks = sorted((round(float(np.polyval(fit["x"], float(x))), 3), round(float(np.polyval(fit["y"], float(y))), 3))
                   for href, x, y in re.findall(r'<use xlink:href="#(\w+)" x="([-\d.]+)" y="([-\d.]+)"', svg)
                   if href not in tick_marks)
    return texts, marks


def test_checkpoint_diagram_marks_the_three_tokens_and_names_its_axes(tmp_path):
    _model(tmp_path / "ck", 16, 2, 2, 2, seed=2)
    svg = tmp_path / "slice.svg"
    assert main(["diagram", str(tmp_path / "ck"), "--context", "3,1,4", "--slice", "tokens:5,0,2", "--layernorm",
                 "drop", "--self-key", "exclude", "--box=-3/2,3/2", "-o", str(svg)]) == 0
    texts, marks = _svg_drawing(svg.read_text())
    assert "t1: token 5 -> token 0, at query position 3 (slice coordinate)" in texts
    assert "t2: token 5 -> token 2, at query position 3 (slice coordinate)" in texts
    assert {"token 5", "token 0", "token 2"} <= set(texts)
    assert marks == [(0.0, 0.0), (0.0, 1.0), (1.0, 0.0)]          # the stars at t = 0, e_2, e_1


@pytest.mark.parametrize("d,L", [(16, 2), (64, 3)])
def test_frozen_layernorm_slice_is_exact_at_its_origin(tmp_path, d, L):
    hf, _ = _model(tmp_path, d, L, 4, 4, seed=11 + L)
    true_norms = _query_model(tmp_path, drop_norms=False)          # HF with its real LayerNorms on the query
    cut = slice_checkpoint(tmp_path, IDS, tokens=[0, 1, 2], layernorm="freeze", self_key="exclude")
    y, labels, one_hot = _query_state(_context_cache(hf), true_norms, np.array([float(v) for v in cut.x0]))
    exact, pattern = cut.model.evaluate([0, 0])
    assert one_hot > 1 - 1e-9 and labels == [p[0] for p in pattern]
    np.testing.assert_allclose([float(v) for v in exact], y, rtol=1e-7, atol=1e-7)
