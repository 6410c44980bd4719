"""What every picture shares: the Agg backend (imported lazily), saving, colours, boxes.

matplotlib is imported inside :func:`pyplot` only, so ``import tropattn`` never needs
a display or matplotlib at all.
"""

from __future__ import annotations

import numpy as np

from ..attention.soft import head_arrays
from ..errors import InvalidInputError
from ..geometry import PowerDiagram
from ..temperature import resolve_box

__all__ = ["pyplot", "save", "check_dim", "colors", "box_of", "as_diagram", "as_head"]


def pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def save(fig, path, dpi):
    """Write a figure; an unknown file type or an unwritable path is an InvalidInputError."""
    import os

    plt = pyplot()
    kinds = fig.canvas.get_supported_filetypes()
    suffix = os.path.splitext(str(path))[1].lstrip(".").lower()
    try:
        if suffix not in kinds:
            raise InvalidInputError(f"cannot write {path!s}: unknown picture type {suffix!r}; use one of "
                                    f"{', '.join(sorted(kinds))} (for example FILE.png)")
        fig.savefig(path, dpi=dpi)
    except OSError as exc:
        raise InvalidInputError(f"cannot write {path!s}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)


def check_dim(d: int, what: str):
    if d not in (1, 2):
        raise InvalidInputError(
            f"{what} lives in R^{d}; pictures exist for d = 1 or 2 only. Project the queries to two "
            "coordinates first, e.g. keys[:, [0, 1]] (with the matching offsets), or pick a 2-D slice "
            "x = x0 + s u + t v and draw the head with keys (a_j . u, a_j . v), offsets b_j + a_j . x0")


def as_diagram(obj):
    """A PowerDiagram from a diagram, a Head (its power_diagram()) or any head form."""
    if hasattr(obj, "clip_to_box") and hasattr(obj, "cells"):
        return obj
    make = getattr(obj, "power_diagram", None)
    if callable(make):
        return make()

    h = head_arrays(obj)
    return PowerDiagram.from_max_affine(h.keys, h.offsets)


def as_head(obj):
    """Keys and offsets of a head or a diagram (a diagram's sites with score offsets)."""
    if hasattr(obj, "clip_to_box") and hasattr(obj, "cells") and not hasattr(obj, "keys"):
        return head_arrays((obj.sites, obj.offsets))
    return head_arrays(obj)


def colors(n: int):
    """n distinct RGB colours (tab20, then evenly spaced hues)."""
    plt = pyplot()
    if n <= 20:
        cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
        return np.array([cmap(i)[:3] for i in range(n)])
    return np.array([plt.get_cmap("hsv")(i / n)[:3] for i in range(n)])


def box_of(obj, box):
    return resolve_box(box, [as_head(obj)])
