"""A GPT-2 checkpoint slice counted with the FFN step's parent filter and without it: the same regions.

The model is written by ``transformers`` (random weights, a ReLU MLP of 4 d units); the plain
path (``relu_parent_filter=0``) evaluates and bounds every unit in every parent, the filtered one
only the units whose lines cross the parent.  The counters show that the filter did the work.
"""

import pytest

from tropattn import config
from tropattn.exact import counting
from tropattn.io import slice_checkpoint
from tropattn.regions import enumerate_regions

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
pytestmark = pytest.mark.torch


@pytest.mark.slow
@pytest.mark.parametrize("d,L", [(24, 1), (16, 2)])
def test_checkpoint_slice_regions_with_and_without_the_filter(tmp_path, d, L):
    torch.manual_seed(d + L)
    cfg = transformers.GPT2Config(vocab_size=8, n_positions=8, n_embd=d, n_layer=L, n_head=2,
                                  activation_function="relu", bos_token_id=0, eos_token_id=0)
    transformers.GPT2LMHeadModel(cfg).save_pretrained(tmp_path)
    cut = slice_checkpoint(tmp_path, [3, 1, 4], tokens=[0, 1, 2], layernorm="drop", self_key="exclude",
                           activation="relu")
    found = {}
    for filtered in (1, 0):
        with config.override(relu_parent_filter=filtered), counting() as scope:
            rs = enumerate_regions(cut.model, box=(-2, 2), progress=False)
        found[filtered] = (sorted((r.pattern, tuple(sorted(r.integer_rows)), r.map._integers)
                                  for r in rs.activation_regions), rs.n_linear,
                           scope.snapshot()["by_place"].get("certified:relu.parent_filter", 0))
    assert found[1][:2] == found[0][:2]
    assert found[1][2] > 0 and found[0][2] == 0
