"""What every picture shares: the Agg backend (imported lazily), saving, colours, boxes, labels.

matplotlib is imported inside :func:`pyplot` only, so ``import tropattn`` never needs
a display or matplotlib at all.  Pictures are drawn in floats from exact cells; only
the placement of labels is approximate (a label is drawn only where it fits inside
its cell, so labels of distinct cells never overlap).
"""

from __future__ import annotations

import numpy as np

from ..attention.soft import head_arrays
from ..errors import InvalidInputError
from ..geometry import PowerDiagram
from ..temperature import resolve_box

__all__ = ["pyplot", "save", "check_dim", "colors", "box_of", "as_diagram", "as_head", "head_palettes",
           "mix_colors", "axis_titles", "label_size", "label_sites"]


def pyplot():
    """matplotlib.pyplot with the Agg backend (imported here only)."""
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
    """Refuse ``d > 2`` (no picture) with a hint on projecting."""
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


def head_palettes(sizes) -> list:
    """One block of distinct colours per head (head ``h`` gets ``sizes[h]`` of them).

    >>> [p.shape for p in head_palettes([3, 2])]
    [(3, 3), (2, 3)]
    """
    allc = colors(max(sum(sizes), 1))
    out, start = [], 0
    for n in sizes:
        out.append(allc[start:start + n])
        start += n
    return out


def mix_colors(palettes, labels):
    """The overlay colour of a label tuple: the mean of its heads' key colours.

    Two adjacent overlay regions differ in some head's key, so their colours differ.

    >>> mix_colors([np.array([[1., 0, 0]]), np.array([[0, 0, 1.], [0, 1., 0]])], (0, 1)).tolist()
    [0.5, 0.5, 0.0]
    """
    return np.mean([p[j] for p, j in zip(palettes, labels)], axis=0)


def axis_titles(ax, d):
    """Axis titles of the query space: ``x_1`` (and ``x_2``)."""
    ax.set_xlabel("query coordinate x_1" if d == 2 else "query x")
    if d == 2:
        ax.set_ylabel("query coordinate x_2")


def label_size(ax, text, fontsize):
    """Width and height of ``text`` in data units of ``ax`` (approximate, from the axes size)."""
    fig = ax.figure
    pos = ax.get_position()
    w_in, h_in = pos.width * fig.get_figwidth(), pos.height * fig.get_figheight()
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    sx, sy = (x1 - x0) / max(w_in, 1e-9), (y1 - y0) / max(h_in, 1e-9)
    if ax.get_aspect() == 1.0:
        sx = sy = max(sx, sy)
    char = fontsize / 72
    return 0.62 * char * len(text) * sx * 1.15, 1.25 * char * sy


def label_sites(ax, sites, lo, hi, prefix="a"):
    """Black dots at the keys ``a_j`` inside the box, each labelled with its index ``a<j>``.

    The labels are mathtext markers (not texts), so the axes' texts stay the cell labels;
    a key label that would overlap one already drawn is left out.
    """
    S = np.asarray(sites, dtype=float)
    if S.shape[1] == 1:
        S = np.column_stack([S[:, 0], np.full(len(S), 0.15)])
        inside = (S[:, 0] >= lo[0]) & (S[:, 0] <= hi[0])
    else:
        inside = np.all((S >= lo) & (S <= hi), axis=1)
    ax.scatter(S[inside, 0], S[inside, 1], c="k", s=14, marker="o", zorder=3, label="keys a_j")
    placed = []
    for j in np.flatnonzero(inside):
        text = f"{prefix}{j}"
        w, h = label_size(ax, text, 7)
        x, y = S[j, 0] + 0.6 * w + 0.01 * (hi[0] - lo[0]), S[j, 1] + 0.5 * h
        if any(abs(x - px) < w and abs(y - py) < h for px, py in placed):
            continue                          # a key label already sits there: keep the labels apart
        placed.append((x, y))
        ax.scatter([x], [y], marker=f"${prefix}_{{{j}}}$", s=36 * len(text), c="k", lw=0, zorder=4)
    return int(inside.sum())


def box_of(obj, box):
    """The drawing box of one head or diagram (see :func:`tropattn.temperature.resolve_box`)."""
    return resolve_box(box, [as_head(obj)])
