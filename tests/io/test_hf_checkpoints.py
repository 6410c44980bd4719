"""GPT-2 checkpoints written by Hugging Face ``transformers`` against HF's own forward (random configs, seeded).

The oracle is ``GPT2LMHeadModel`` itself (float64): its hidden states, its attention
probabilities (``attn_implementation="eager"``), its own LayerNorm epsilon, activation and
score scale.  The query's own key is masked with HF's padding mask (the query is the last
position, the only one that reads it), which is ``self_key="exclude"``; ``ln_f`` is replaced
by the identity, since it lies outside the skeleton.
"""

import json

import numpy as np
import pytest

from tropattn.attention import slice_through, token_points
from tropattn.cli import main
from tropattn.errors import InvalidInputError, ModelFileError
from tropattn.io import load, load_gpt2, slice_checkpoint
from tropattn.io._gpt2 import read_state_dict
from tropattn.io._skeleton import query_path, slice_grid
from tropattn.regions import enumerate_regions

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.torch

IDS = [3, 1, 4, 1, 5]


def _hf(tmp_path, seed=0, n_layer=2, n_embd=16, n_head=2, save=True, dtype=None, shard=None, **config):
    """A random GPT-2 saved by ``save_pretrained`` in ``tmp_path`` (and the float64 model)."""
    torch.manual_seed(seed)
    cfg = transformers.GPT2Config(vocab_size=10, n_positions=16, bos_token_id=0, eos_token_id=0, n_embd=n_embd, n_layer=n_layer, n_head=n_head,
                                  **config)
    model = transformers.GPT2LMHeadModel(cfg).eval()
    with torch.no_grad():               # larger weights than GPT-2's init: attention patterns vary on the slice
        for name, p in model.named_parameters():
            if name.endswith("weight") and "ln_" not in name:
                p.normal_(0, 0.5)
            elif name.endswith("bias") or "ln_" in name:
                p.add_(torch.randn_like(p) * 0.2)
    if save:
        saved = model if dtype is None else model.to(dtype)
        saved.save_pretrained(tmp_path, **({} if shard is None else {"max_shard_size": shard}))
    return transformers.GPT2LMHeadModel.from_pretrained(tmp_path, attn_implementation="eager",
                                                        dtype=torch.float64).eval()


def _hf_query(model, ids, X):
    """HF's forward with the query state ``x`` at position N (rows of ``X``): final states before ln_f, labels."""
    n = len(ids)
    wte, wpe = model.transformer.wte.weight, model.transformer.wpe.weight
    model.transformer.ln_f = torch.nn.Identity()
    states, labels = [], []
    with torch.no_grad():
        for x in X:
            emb = torch.cat([wte[ids], torch.as_tensor(x)[None] - wpe[n]])[None]
            out = model.transformer(inputs_embeds=emb, attention_mask=torch.tensor([[1] * n + [0]]),
                                    position_ids=torch.arange(n + 1)[None], output_attentions=True)
            states.append(out.last_hidden_state[0, -1].numpy())
            labels.append([a[0, :, -1, :n].argmax(-1).tolist() for a in out.attentions])
    return np.array(states), np.array(labels)


def _grid(sk, n=5, box=1.0):
    x0, U = slice_through(token_points(sk.wte, sk.wpe, [0, 1, 2], len(sk.ids)))
    return slice_grid([float(v) for v in x0], [[float(v) for v in u] for u in U], box, n)[1]


SLOW = pytest.mark.slow


@pytest.mark.parametrize("n_layer,act", [(1, "relu"), (2, "gelu_new"), (3, "gelu"), (3, "relu"),
                                         pytest.param(1, "gelu", marks=SLOW), pytest.param(1, "gelu_new", marks=SLOW),
                                         pytest.param(2, "relu", marks=SLOW), pytest.param(2, "gelu", marks=SLOW),
                                         pytest.param(3, "gelu_new", marks=SLOW)])
def test_context_and_query_match_hf(tmp_path, act, n_layer):
    extra = {} if n_layer < 3 else {"scale_attn_by_inverse_layer_idx": True}
    model = _hf(tmp_path, seed=n_layer, n_layer=n_layer, activation_function=act, layer_norm_epsilon=1e-2, **extra)
    sk = load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude", activation=None if act == "relu" else "relu")
    assert [b.activation for b in sk.blocks] == [{"relu": "relu", "gelu_new": "gelu_tanh", "gelu": "gelu"}[act]] * n_layer
    assert {b.norm1.eps for b in sk.blocks} == {1e-2}
    with torch.no_grad():                                 # the context alone: its states do not see the query
        out = model.transformer(torch.tensor([IDS]), output_hidden_states=True)
    for blk, Y, H in zip(model.transformer.h, sk.Ys, out.hidden_states):
        with torch.no_grad():
            np.testing.assert_allclose(Y, blk.ln_1(H[0]).numpy(), rtol=1e-10, atol=1e-10)
    X = _grid(sk, n=4)
    states, labels = _hf_query(model, IDS, X)
    mine, my_labels, _ = query_path(sk.blocks, sk.Ys, X, "true", sharpness=1.0, activation=None)
    np.testing.assert_allclose(mine, states, rtol=1e-9, atol=1e-9)
    assert (my_labels == labels).all()
    assert len({tuple(r.ravel()) for r in labels}) > 1            # the grid sees more than one pattern


def test_unscaled_scores_match_hf(tmp_path):
    model = _hf(tmp_path, seed=5, n_layer=2, activation_function="relu", scale_attn_weights=False,
                scale_attn_by_inverse_layer_idx=True)
    sk = load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude")
    assert [b.attn.d_k for b in sk.blocks] == [1, 4]
    X = _grid(sk, n=4)
    states, labels = _hf_query(model, IDS, X)
    mine, my_labels, _ = query_path(sk.blocks, sk.Ys, X, "true", sharpness=1.0, activation=None)
    np.testing.assert_allclose(mine, states, rtol=1e-9, atol=1e-9)
    assert (my_labels == labels).all()
    _edit_config(tmp_path, reorder_and_upcast_attn=True)       # float32 rounding only (HF's float64 path refuses it)
    assert load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude").layers == sk.layers


def test_file_layout_of_save_pretrained(tmp_path):
    model = _hf(tmp_path, seed=1, tie_word_embeddings=False, activation_function="relu")
    state = read_state_dict(tmp_path / "model.safetensors")
    assert any(k.startswith("transformer.") for k in state) and "lm_head.weight" in state
    sk = load_gpt2(tmp_path / "model.safetensors", IDS, layernorm="drop", self_key="exclude")   # config beside it
    np.testing.assert_array_equal(sk.wte, model.transformer.wte.weight.detach().numpy())
    tied = tmp_path / "tied"
    _hf(tied, seed=1, activation_function="relu")
    assert "lm_head.weight" not in read_state_dict(tied / "model.safetensors")
    assert load_gpt2(tied, IDS, layernorm="drop", self_key="exclude").layers == sk.layers


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_weights_are_read_exactly(tmp_path, dtype):
    model = _hf(tmp_path, seed=2, dtype=getattr(torch, dtype), activation_function="relu")
    state = read_state_dict(tmp_path)
    for name, p in model.state_dict().items():
        if name in state:
            np.testing.assert_array_equal(state[name], p.double().numpy())   # widened, not rounded
    assert json.loads((tmp_path / "config.json").read_text()).get("dtype", dtype) == dtype
    sk = load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude")
    X = _grid(sk, n=3)
    np.testing.assert_allclose(query_path(sk.blocks, sk.Ys, X, "true", sharpness=1.0, activation=None)[0],
                               _hf_query(model, IDS, X)[0], rtol=1e-9, atol=1e-9)


def test_sharded_checkpoint_with_its_index(tmp_path):
    _hf(tmp_path, seed=3, n_layer=3, n_embd=32, shard="20KB", activation_function="relu")
    shards = sorted(p.name for p in tmp_path.glob("model-*.safetensors"))
    assert len(shards) > 1 and (tmp_path / "model.safetensors.index.json").is_file()
    one = tmp_path / "one"
    _hf(one, seed=3, n_layer=3, n_embd=32, activation_function="relu")
    a = load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude")
    b = load(tmp_path / "model.safetensors.index.json", context=IDS, layernorm="drop", self_key="exclude")
    assert a.layers == b.layers == load_gpt2(one, IDS, layernorm="drop", self_key="exclude").layers


def _edit_config(folder, **fields):
    path = folder / "config.json"
    cfg = json.loads(path.read_text())
    cfg.update(fields)
    path.write_text(json.dumps(cfg))


@pytest.mark.parametrize("fields,message", [
    ({"activation_function": "tanh"}, r"\"activation_function\" is 'tanh'"),
    ({"n_inner": 24}, r"\"n_inner\" is 24 but the checkpoint's tensors have 64"),
    ({"n_embd": 32}, r"\"n_embd\" is 32 but the checkpoint's tensors have 16"),
    ({"add_cross_attention": True}, r"\"add_cross_attention\" is true"),
    ({"model_type": "gpt_neo"}, r"\"model_type\" is 'gpt_neo'"),
    ({"layer_norm_epsilon": "small"}, r"\"layer_norm_epsilon\" is 'small'; expected a number"),
])
def test_config_fields_the_skeleton_cannot_follow_are_refused(tmp_path, fields, message):
    _hf(tmp_path, seed=4, n_layer=1)
    _edit_config(tmp_path, **fields)
    with pytest.raises(ModelFileError, match=message):
        load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude", activation="relu")


def test_config_is_honoured_not_guessed(tmp_path):
    _hf(tmp_path, seed=6, n_layer=2, activation_function="relu", layer_norm_epsilon=1e-2)
    sk = load_gpt2(tmp_path, IDS, layernorm="drop", self_key="exclude")          # relu: no activation option
    ignored = load_gpt2(read_state_dict(tmp_path), IDS, n_head=2, layernorm="drop", self_key="exclude",
                        activation="relu")                                       # GPT-2 defaults: gelu, 1e-5
    assert sk.Ys[1].shape == ignored.Ys[1].shape and np.abs(sk.Ys[1] - ignored.Ys[1]).max() > 1e-3
    assert load_gpt2(read_state_dict(tmp_path), IDS, layernorm="drop", self_key="exclude",
                     config=json.loads((tmp_path / "config.json").read_text())).layers == sk.layers
    with pytest.raises(InvalidInputError, match="activation='relu'"):            # a GELU config needs the option
        _hf(tmp_path / "g", seed=6, n_layer=1)
        load_gpt2(tmp_path / "g", IDS, layernorm="drop", self_key="exclude")


def test_directory_errors_name_the_problem(tmp_path):
    with pytest.raises(ModelFileError, match="holds no model.safetensors"):
        load_gpt2(tmp_path, IDS)
    (tmp_path / "pytorch_model.bin").write_bytes(b"")
    with pytest.raises(ModelFileError, match="pytorch_model.bin: save the model with save_pretrained"):
        load_gpt2(tmp_path, IDS)
    (tmp_path / "model.safetensors.index.json").write_text(json.dumps({"weight_map": {"a": "gone.safetensors"}}))
    with pytest.raises(ModelFileError, match="gone.safetensors named by"):
        load_gpt2(tmp_path, IDS)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\x05\x00\x00\x00\x00\x00\x00\x00{oops")
    with pytest.raises(ModelFileError, match="header is not JSON"):
        load_gpt2(bad, IDS)


def test_cli_counts_a_model_directory(tmp_path, capsys):
    _hf(tmp_path, seed=7, n_layer=2, activation_function="relu", n_inner=4)
    args = ["count", str(tmp_path), "--context", "3,1,4", "--slice", "tokens:0,1,2", "--layernorm", "drop",
            "--self-key", "exclude", "--box=-1/2,1/2", "--json"]
    assert main(args) in (0, None)
    out = json.loads(capsys.readouterr().out)
    cut = slice_checkpoint(tmp_path, [3, 1, 4], tokens=[0, 1, 2], layernorm="drop", self_key="exclude")
    assert out["activation_regions"] == len(enumerate_regions(cut.model, box=("-1/2", "1/2"),
                                                              progress=False).activation_regions)
    _edit_config(tmp_path, activation_function="mish")
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "\"activation_function\" is 'mish'" in err
