"""Files in and out: one :func:`load` and one :func:`save` for every tropattn file; real models as exact skeletons.

* :func:`load` / :func:`save` -- ``tropattn.model/1`` JSON (score or weight form) and ``.npz`` models,
  sites, tropical polynomials and slices as JSON, GPT-2-style ``.safetensors`` checkpoints (read only);
* :func:`model_from_json` / :func:`model_to_json` -- the JSON form of a model in memory (a dict);
* :func:`from_torch`, :func:`load_gpt2`, :func:`slice_checkpoint` -- a PyTorch module or a GPT-2 state dict
  with a fixed context as the exact :class:`Skeleton` of the query's path, and its slice through tokens.

A model file holds exact numbers, so a model survives the trip unchanged; a head's scores
``a_j . x + b_j`` are read exactly even when written as decimals (``"0.1"`` is 1/10):

>>> from tropattn.attention import sawtooth_model
>>> model_from_json(model_to_json(sawtooth_model(1, 2, 1))) == sawtooth_model(1, 2, 1)
True
>>> model_from_json({"format": "tropattn.model/1", "dim": 1,
...                  "layers": [{"heads": [{"keys": [[0], [1]], "offsets": [0, "0.1"]}]}]}).layers[0].heads[0].offsets
(Fraction(0, 1), Fraction(1, 10))
"""

from .._face import face
from ._checkpoint import slice_checkpoint
from ._files import is_checkpoint_path, load, save
from ._gpt2 import load_gpt2
from ._model_file import model_from_json, model_to_json
from ._skeleton import Skeleton
from ._torch_modules import from_torch

__all__ = ["load", "save", "is_checkpoint_path", "model_from_json", "model_to_json", "from_torch", "load_gpt2", "slice_checkpoint",
           "Skeleton"]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "load_model": "tropattn.io.load (a .json or .npz model file; load(path, kind='model') insists on a model)",
    "save_model": "tropattn.io.save (the suffix .npz selects the array format)",
    "load_npz": "tropattn.io.load (it reads .npz files by the suffix)",
    "save_npz": "tropattn.io.save(model, 'file.npz')",
    "load_sites": "tropattn.io.load(path, kind='sites')",
    "load_json": "tropattn.exact.load_json (any JSON, numbers exact) or tropattn.io.load (tropattn files)",
    "read_state_dict": "internal; tropattn.io.load(path, context=ids) or tropattn.io.load_gpt2(path, ids)",
    "gpt2_blocks": "internal; tropattn.io.load_gpt2 builds the skeleton from a GPT-2 state dict",
    "check_fields": "internal; tropattn.io.load checks every field and names the closest valid one",
    "FIELDS": "internal; an unknown field in a file is an error that names the valid fields",
    "FORMAT": "internal; a model file declares \"format\": \"tropattn.model/1\"",
})
