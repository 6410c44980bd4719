"""Zero-temperature pictures: one head's power diagram, and the overlay of a layer's heads.

The overlay of the heads' diagrams is the layer's activation regions; it is itself a
power diagram on summed keys, so its cells are exact.  The automatic box grows until
exact clipping shows every cell, so no region that ``tropattn count`` finds is hidden;
with a box given by the user, hidden regions are reported in a warning and in the
caption.
"""

from __future__ import annotations

import warnings
from pathlib import Path


from .._lazy import lazy_import
from ..attention import as_heads, default_box, resolve_box
from ..geometry import PowerDiagram
from ._common import (as_diagram, axis_titles, box_of, check_dim, colors, head_palettes, label_size, label_sites,
                     mix_colors, pyplot, save)

shapely_geometry = lazy_import("shapely.geometry")
shapely_ops = lazy_import("shapely.ops")

__all__ = ["plot_power_diagram", "plot_overlay", "overlay_box", "draw_cells", "overlay_diagram"]


def _fill_cells(ax, cells, dim, color_of):
    """Fill the clipped cells (exact, drawn in floats); returns the cells for labelling."""
    if dim == 2:
        for j, poly in cells.items():
            xs, ys = poly.exterior.xy
            ax.fill(xs, ys, color=color_of(j), alpha=0.6, lw=0)
            ax.plot(xs, ys, color="k", lw=0.8)
    else:
        for j, (left, right) in cells.items():
            ax.axvspan(float(left), float(right), color=color_of(j), alpha=0.6, lw=0)
            ax.axvline(float(left), color="k", lw=0.8)
    return cells


def _set_window(ax, lo, hi, dim):
    ax.set_xlim(lo[0], hi[0])
    if dim == 2:
        ax.set_ylim(lo[1], hi[1])
        ax.set_aspect("equal")
    else:
        ax.set_ylim(0, 1)
        ax.set_yticks([])
    axis_titles(ax, dim)


def _label_cells(ax, cells, dim, name_of, fontsize=8) -> int:
    """Label each cell where its name fits inside it; returns how many were too small."""
    dropped = 0
    for j, cell in cells.items():
        text = name_of(j)
        w, h = label_size(ax, text, fontsize)
        if dim == 2:
            p = shapely_ops.polylabel(cell, tolerance=max(w, h) / 20) if cell.area > 0 else cell.representative_point()
            if not cell.buffer(1e-12 * max(w, h)).contains(shapely_geometry.box(p.x - w / 2, p.y - h / 2, p.x + w / 2, p.y + h / 2)):
                dropped += 1
                continue
            ax.text(p.x, p.y, text, ha="center", va="center", fontsize=fontsize)
        else:
            left, right = float(cell[0]), float(cell[1])
            if right - left < w:
                dropped += 1
                continue
            ax.text((left + right) / 2, 0.55, text, ha="center", va="center", fontsize=fontsize)
    return dropped


def draw_cells(ax, diagram, lo, hi, colors, labels=None, sites=True):
    """Fill, frame and label the clipped cells of a diagram (labels only where they fit); returns the count.

    ``labels[j]`` (a tuple) names cell ``j`` (default: its index); ``sites`` marks the keys.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes to draw on.
    diagram : PowerDiagram
        The exact diagram (``d`` = 1 or 2).
    lo, hi : (d,) sequence
        The window.
    colors : (k, 3) array_like
        Cell colours (cell ``j`` gets ``colors[j % k]``).
    labels : sequence of tuple, optional
        Cell names.
    sites : bool, optional
        Mark the keys (default True).

    Returns
    -------
    int
        The number of cells meeting the window.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> from tropattn.plot._common import colors, pyplot
    >>> fig, ax = pyplot().subplots()
    >>> draw_cells(ax, Head([[0, 0], [1, 0], [0, 1]]).power_diagram(), (-1, -1), (1, 1), colors(3))   # three cones
    3
    >>> pyplot().close(fig)
    """
    cells = _fill_cells(ax, diagram.clip_to_box(list(lo), list(hi)), diagram.dim, lambda j: colors[j % len(colors)])
    _set_window(ax, lo, hi, diagram.dim)
    if sites:
        label_sites(ax, diagram.sites, lo, hi)
    _label_cells(ax, cells, diagram.dim, str if labels is None else (lambda j: ",".join(map(str, labels[j]))))
    return len(cells)


def plot_power_diagram(diagram_or_head, box=None, ax=None, title=None):
    """Draw one power diagram (or a head's): cells coloured by key, keys marked and labelled.

    Parameters
    ----------
    diagram_or_head : PowerDiagram, Head, or a head as ``(keys, offsets[, values])``
    box : None, R, or (lo, hi)
        The window; default :func:`tropattn.attention.default_box`.
    ax : matplotlib Axes, optional
        Drawn into if given, else a new figure is made.
    title : str, optional
        The axes title (default: the number of keys and of cells in the box).

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
        _, ax = pyplot().subplots(figsize=(4.5, 4.5 if diagram.dim == 2 else 1.6))
    n = draw_cells(ax, diagram, lo, hi, colors(diagram.N))
    ax.set_title(title or f"{diagram.N} keys, {n} cells in the box", fontsize=9)
    return ax


def overlay_diagram(hs):
    """The common refinement of the heads' diagrams as a power diagram over key tuples.

    Parameters
    ----------
    hs : sequence of Head
        Exact heads reading the same dimension.

    Returns
    -------
    diagram : PowerDiagram
        Sites ``sum_h a^h_{j_h}`` and offsets ``sum_h b^h_{j_h}`` over the realised tuples.
    tuples : list of tuple of int
        ``tuples[i]`` is the key tuple ``(j_1, ..., j_H)`` of site ``i``.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> D, tuples = overlay_diagram([Head([[0], [1]], [0, 0]), Head([[0], [1]], [0, -1])])
    >>> tuples                                        # (0, 1) never happens: x < 0 and x > 1 at once
    [(0, 0), (1, 0), (1, 1)]
    """

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


def overlay_box(heads, box=None) -> tuple:
    """``(lo, hi, shown, total)``: the drawing box of a layer's overlay and how many regions it shows.

    With ``box=None`` the box starts at :func:`~tropattn.attention.default_box` (the
    walls nearest the origin) and grows by 1.5 until every overlay region meets it
    (decided by exact clipping), so ``shown == total``: every region ``tropattn count``
    finds is drawn.

    Parameters
    ----------
    heads : sequence of heads
        Any head forms of one layer.
    box : None, float or (lo, hi), optional
        The user's window (default: grown until every region shows).

    Returns
    -------
    lo, hi : numpy.ndarray
        The window.
    shown : int
        Overlay regions meeting the window.
    total : int
        All overlay regions.

    Examples
    --------
    >>> lo, hi, shown, total = overlay_box([([[0], [1]], [0, -10])])    # the wall is at x = 10
    >>> shown == total == 2 and bool(hi[0] > 10)
    True
    >>> overlay_box([([[0], [1]], [0, -10])], (-1, 1))[2:]              # the user's box hides one
    (1, 2)
    """
    hs = as_heads(heads)
    overlay, _ = overlay_diagram(hs)
    total = len(overlay.nonempty)
    if box is not None:
        lo, hi = resolve_box(box, hs)
        return lo, hi, len(overlay.clip_to_box(list(lo), list(hi))), total
    lo, hi = default_box(hs)
    for _ in range(80):                       # grow until every region meets the box (exact clipping)
        shown = len(overlay.clip_to_box(list(lo), list(hi)))
        if shown == total:
            break
        lo, hi = lo * 1.5, hi * 1.5
    return lo, hi, shown, total


def plot_overlay(heads, box, path, title=None):
    """Each head's power cells and their overlay (the layer's regions), saved as a picture.

    Head ``h``'s cells are coloured from its own block of colours, and each overlay
    region by the mean of its heads' colours, so a region's colour tells which keys win
    there.  Overlay regions are labelled by the tuple of winning keys ``(j_1, ..., j_H)``
    where the label fits (the caption counts the others); the cells are exact (a power
    diagram on summed keys), drawn in floats.  For ``d = 1`` cells are intervals.

    Parameters
    ----------
    heads : a head, a list of heads, or a layer (anything with ``heads``)
    box : None, R, or (lo, hi)
        None: a box that shows every region (:func:`overlay_box`).  A given box that
        hides regions gives a :class:`UserWarning` and a red caption.
    path : str or Path
        Where to write the picture.
    title : str, optional
        Names the model in the figure title (e.g. its file name).

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
    lo, hi, shown, total = overlay_box(hs, box)
    plt = pyplot()
    d = hs[0].dim
    panels = len(hs) + 1
    size = (4.3 * panels, 5.0) if d == 2 else (4.3 * panels, 2.4)
    fig, axes = plt.subplots(1, panels, figsize=size, squeeze=False)
    axes = axes[0]
    palettes = head_palettes([h.N for h in hs])
    pending = []
    for i, h in enumerate(hs):
        diagram = as_diagram(h.source if h.source is not None else h)
        cells = _fill_cells(axes[i], diagram.clip_to_box(list(lo), list(hi)), d, lambda j, p=palettes[i]: p[j])
        _set_window(axes[i], lo, hi, d)
        label_sites(axes[i], diagram.sites, lo, hi)
        axes[i].set_title(f"head {i}: {h.N} keys, {len(cells)} cells", fontsize=9)
        pending.append((axes[i], cells, str))
    overlay, tuples = overlay_diagram(hs)
    cells = _fill_cells(axes[-1], overlay.clip_to_box(list(lo), list(hi)), d,
                        lambda j: mix_colors(palettes, tuples[j]))
    _set_window(axes[-1], lo, hi, d)
    axes[-1].set_title(f"overlay: {shown} of {total} regions in the box", fontsize=9)
    pending.append((axes[-1], cells, lambda j: ",".join(map(str, tuples[j]))))
    name = f"{title}: " if title else ""
    fig.suptitle(f"{name}{len(hs)} head(s) and their overlay, the layer's {total} activation regions "
                 "(zero temperature)", fontsize=10)
    inch = 1 / size[1]                       # room below the axes for two caption lines
    fig.tight_layout(rect=(0, 0.5 * inch, 1, 1 - 0.3 * inch), w_pad=2.5)
    dropped = sum(_label_cells(ax, c, d, f) for ax, c, f in pending)
    notes = ["cells are exact (rational), drawn in floats; dots a<j> are the keys; "
             "overlay labels are the winning keys (j_1,...,j_H)"]
    if dropped:
        notes.append(f"{dropped} cell(s) too small to hold a label are left unlabelled")
    hidden = total - shown
    if hidden:
        message = (f"the box hides {hidden} of the {total} regions that count finds; widen the box "
                   "(or omit it: the automatic box shows every region)")
        warnings.warn(message, stacklevel=2)
        fig.text(0.5, 0.25 * inch, "WARNING: " + message, ha="center", fontsize=8, color="red")
    fig.text(0.5, 0.06 * inch, "; ".join(notes), ha="center", fontsize=7.5, color="0.25")
    path = Path(path)
    save(fig, path, 110)
    return path
