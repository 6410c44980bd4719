"""Model files by name: ``.json`` (``tropattn.model/1``) or ``.npz``, chosen by the suffix.

``load_model(path)`` after ``save_model(model, path)`` gives back a model equal to
``model`` (every key, offset, value, ``d_k``, residual flag, projection, FFN and tie
rule); ``.npz`` refuses a number that float64 cannot hold exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..exact import unlimited_int_digits
from ..exact import load_json
from ._model_file import model_from_json, model_to_json
from ._npz import load_npz, save_npz

__all__ = ["save_model", "load_model"]


def save_model(model, path):
    """Write ``model`` as ``tropattn.model/1`` JSON (or ``.npz`` if the name ends so).

    Parameters
    ----------
    model : Transformer
        Any model (score or weight form: the score form is written, with each head's ``d_k``).
    path : str or Path
        The file; its suffix ``.npz`` selects the array format, anything else JSON.

    Returns
    -------
    None
        The model is written to ``path``.

    Raises
    ------
    ModelFileError
        For ``.npz``: a number float64 cannot hold exactly.
    OSError
        The file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.attention import sawtooth_model
    >>> path = os.path.join(tempfile.mkdtemp(), "m.json")
    >>> save_model(sawtooth_model(1, 3, 2), path)
    >>> load_model(path) == sawtooth_model(1, 3, 2)
    True
    """
    if str(path).endswith(".npz"):
        return save_npz(model, path)
    with unlimited_int_digits():
        text = json.dumps(model_to_json(model), indent=1)
    Path(path).write_text(text + "\n", encoding="utf-8")


def load_model(path):
    """Read a model file: ``tropattn.model/1`` JSON or ``.npz`` arrays.

    Parameters
    ----------
    path : str or Path
        A ``.json`` file (score or weight form) or an ``.npz`` archive.

    Returns
    -------
    Transformer
        The model, every number exact.

    Raises
    ------
    ModelFileError
        A missing, unreadable or malformed file; the message names the JSON path (or
        array name) of the problem.

    Examples
    --------
    >>> load_model("missing.json")
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: no such file: missing.json
    """
    if str(path).endswith(".npz"):
        return load_npz(path)
    return model_from_json(load_json(path))
