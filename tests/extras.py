"""Which optional extras (torch, dask, safetensors) this test run can import."""

import importlib


def importable(name) -> bool:
    """Whether an optional extra can be imported here."""
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True
