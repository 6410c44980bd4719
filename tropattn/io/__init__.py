"""Model files in and results out: ``tropattn.model/1`` JSON (score or weight form) and ``.npz``;
real models (PyTorch modules, GPT-2-style ``.safetensors`` checkpoints) as exact skeletons.

>>> from tropattn.attention import sawtooth_model
>>> model_to_json(model_from_json(model_to_json(sawtooth_model(1, 2, 1)))) == model_to_json(sawtooth_model(1, 2, 1))
True
"""

from ._files import load_model, save_model
from ._gpt2 import gpt2_blocks, load_gpt2, read_state_dict
from ..exact import load_json
from ._model_file import FIELDS, FORMAT, check_fields, load_sites, model_from_json, model_to_json
from ._npz import load_npz, save_npz
from ._skeleton import Skeleton
from ._torch_modules import from_torch

__all__ = ["FORMAT", "FIELDS", "check_fields", "load_json", "load_model", "save_model", "model_from_json",
           "model_to_json", "load_npz", "save_npz", "load_sites", "from_torch", "load_gpt2", "gpt2_blocks",
           "read_state_dict", "Skeleton"]
