"""Model files by name: ``.json`` (``tropattn.model/1``) or ``.npz``, chosen by the suffix."""

from __future__ import annotations

import json
from pathlib import Path

from .model_file import load_json, model_from_json, model_to_json
from .npz import load_npz, save_npz

__all__ = ["save_model", "load_model"]


def save_model(model, path):
    """Write ``model`` as ``tropattn.model/1`` JSON (or ``.npz`` if the name ends so)."""
    if str(path).endswith(".npz"):
        return save_npz(model, path)
    Path(path).write_text(json.dumps(model_to_json(model), indent=1) + "\n", encoding="utf-8")


def load_model(path):
    """Read a model file: ``tropattn.model/1`` JSON or ``.npz`` arrays."""
    if str(path).endswith(".npz"):
        return load_npz(path)
    return model_from_json(load_json(path))
