"""Zero-temperature pictures: one head's power diagram, and the overlay of a layer's heads."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..attention.soft import as_heads
from ..geometry import PowerDiagram
from ..temperature import resolve_box
from .common import as_diagram, box_of, check_dim, colors, pyplot, save

__all__ = ["plot_power_diagram", "plot_overlay"]


def _draw_cells(ax, diagram, lo, hi, colors, labels=None, sites=True):
    """Fill the clipped cells of a diagram; returns the number of cells drawn."""
    cells = diagram.clip_to_box(list(lo), list(hi))
    name = (lambda j: str(j)) if labels is None else (lambda j: ",".join(map(str, labels[j])))
    if diagram.dim == 2:
        for j, poly in cells.items():
            xs, ys = poly.exterior.xy
            ax.fill(xs, ys, color=colors[j % len(colors)], alpha=0.55, lw=0)
            ax.plot(xs, ys, color="k", lw=0.8)
            p = poly.representative_point()
            ax.text(p.x, p.y, name(j), ha="center", va="center", fontsize=8)
        if sites:
            S = np.array(diagram.sites, dtype=float)
            inside = np.all((S >= lo) & (S <= hi), axis=1)
            ax.scatter(S[inside, 0], S[inside, 1], c="k", s=14, marker="o", zorder=3, label="sites a_j")
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_aspect("equal")
    else:
        for j, (left, right) in cells.items():
            ax.axvspan(float(left), float(right), color=colors[j % len(colors)], alpha=0.55, lw=0)
            ax.axvline(float(left), color="k", lw=0.8)
            ax.text((float(left) + float(right)) / 2, 0.5, name(j), ha="center", va="center", fontsize=8)
        if sites:
            S = np.array(diagram.sites, dtype=float)[:, 0]
            S = S[(S >= lo[0]) & (S <= hi[0])]
            ax.scatter(S, np.full(len(S), 0.2), c="k", s=14, zorder=3)
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(0, 1)
        ax.set_yticks([])
    return len(cells)


def plot_power_diagram(diagram_or_head, box=None, ax=None):
    """Draw one power diagram (or a head's): cells coloured by key, sites marked.

    Parameters
    ----------
    diagram_or_head : PowerDiagram, Head, or a head as ``(keys, offsets[, values])``
    box : None, R, or (lo, hi)
        The window; default :func:`tropattn.temperature.default_box`.
    ax : matplotlib Axes, optional
        Drawn into if given, else a new figure is made.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    InvalidInputError
        If the queries live in ``R^d`` with ``d > 2``.

    >>> ax = plot_power_diagram(([[0, 0], [2, 0], [0, 2]], [0, -2, -2]), 3)
    >>> len(ax.texts)                      # three cells, each labelled with its key
    3
    """
    diagram = as_diagram(diagram_or_head)
    check_dim(diagram.dim, "this diagram")
    lo, hi = box_of(diagram_or_head, box)
    if ax is None:
        _, ax = pyplot().subplots(figsize=(4.5, 4.5 if diagram.dim == 2 else 1.2))
    n = _draw_cells(ax, diagram, lo, hi, colors(diagram.N))
    ax.set_title(f"{diagram.N} keys, {n} cells in the box", fontsize=9)
    return ax


def _overlay_diagram(hs):
    """The common refinement of the heads' diagrams as a power diagram over key tuples."""

    tuples = [()]
    keys = [tuple(0 for _ in range(hs[0].dim))]
    offsets = [0]
    for h in hs:
        tuples = [t + (j,) for t in tuples for j in range(h.N)]
        keys = [tuple(u + v for u, v in zip(k, h.keys[j])) for k in keys for j in range(h.N)]
        offsets = [o + h.offsets[j] for o in offsets for j in range(h.N)]
        diagram = PowerDiagram.from_max_affine(keys, offsets)
        alive = diagram.nonempty
        tuples = [tuples[i] for i in alive]
        keys = [keys[i] for i in alive]
        offsets = [offsets[i] for i in alive]
    return PowerDiagram.from_max_affine(keys, offsets), tuples


def plot_overlay(heads, box, path):
    """Each head's power cells and their overlay (the layer's regions), saved as a PNG.

    The overlay cells are labelled by the tuple of winning keys ``(j_1, ..., j_H)``;
    its cells are exact (a power diagram on summed keys).  For ``d = 1`` cells are
    intervals.

    Parameters
    ----------
    heads : a head, a list of heads, or a layer (anything with ``heads``)
    box : None, R, or (lo, hi)
    path : str or Path
        Where to write the PNG.

    Returns
    -------
    pathlib.Path

    >>> import tempfile, os
    >>> p = plot_overlay([([[1, 0], [-1, 0]],), ([[0, 1], [0, -1]],)], 1, os.path.join(tempfile.mkdtemp(), "o.png"))
    >>> p.stat().st_size > 0
    True
    """
    hs = as_heads(heads)
    check_dim(hs[0].dim, "this layer's query space")
    lo, hi = resolve_box(box, hs)
    plt = pyplot()
    d = hs[0].dim
    panels = len(hs) + 1
    size = (4.2 * panels, 4.4) if d == 2 else (4.2 * panels, 1.6)
    fig, axes = plt.subplots(1, panels, figsize=size, squeeze=False)
    axes = axes[0]
    for i, h in enumerate(hs):
        diagram = as_diagram(h.source if h.source is not None else h)
        n = _draw_cells(axes[i], diagram, lo, hi, colors(h.N))
        axes[i].set_title(f"head {i}: {h.N} keys, {n} cells", fontsize=9)
    overlay, tuples = _overlay_diagram(hs)
    palette = colors(max(len(tuples), 1))
    n = _draw_cells(axes[-1], overlay, lo, hi, palette, labels=tuples, sites=False)
    axes[-1].set_title(f"overlay of {len(hs)} heads: {n} regions in the box", fontsize=9)
    fig.tight_layout(w_pad=2.5)
    path = Path(path)
    save(fig, path, 110)
    return path
