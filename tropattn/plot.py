"""Pictures of zero- and finite-temperature attention (d = 1 or 2 only).

Three pictures, each saved as a PNG with matplotlib's Agg backend (imported lazily,
inside the functions, so ``import tropattn`` never needs a display):

* :func:`plot_power_diagram` -- one head's power diagram: the cells where each key
  wins the argmax, coloured by key, with the sites ``a_j`` marked and labelled;
* :func:`plot_overlay` -- each head's diagram and their common refinement, the
  zero-temperature regions of the layer (THEORY §3).  The overlay is itself a power
  diagram: ``sum_h max_j (a_hj . x + b_hj) = max over tuples (j_1, ..., j_H)`` of the
  summed affine functions, so its cells are computed exactly by
  :class:`tropattn.power.PowerDiagram` on the summed keys (pruned to non-hidden tuples
  one head at a time) and labelled by tuples;
* :func:`plot_soft_weights` -- soft attention at several temperatures over the exact
  cell boundaries: each pixel mixes the key colours with the soft weights, and a
  second row shows ``log10(1 - p*)``, the weight defect, which decays
  exponentially with the distance to the walls (THEORY §5).

The cell geometry is exact (rational clipping in :mod:`tropattn.power`); only the
drawing is in floats.  Queries in ``d > 2`` have no picture: project them or pick two
coordinates first (:class:`~tropattn.errors.InvalidInputError` says so).

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "overlay.png")
>>> heads = [([[0], [1]], [0, 0]), ([[0], [1]], [0, -1])]    # walls at x = 0 and x = 1
>>> str(plot_overlay(heads, (-2, 2), path)) == path and os.path.getsize(path) > 0
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .errors import InvalidInputError
from .attention.soft import as_heads, head_arrays, soft_weights
from .geometry import PowerDiagram
from .temperature import pointwise_defects, resolve_box

__all__ = ["plot_power_diagram", "plot_overlay", "plot_soft_weights"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    return plt


def _save(fig, path, dpi):
    """Write a figure; an unknown file type or an unwritable path is an InvalidInputError."""
    import os

    plt = _pyplot()
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


def _check_dim(d: int, what: str):
    if d not in (1, 2):
        raise InvalidInputError(
            f"{what} lives in R^{d}; pictures exist for d = 1 or 2 only. Project the queries to two "
            "coordinates first, e.g. keys[:, [0, 1]] (with the matching offsets), or pick a 2-D slice "
            "x = x0 + s u + t v and draw the head with keys (a_j . u, a_j . v), offsets b_j + a_j . x0")


def _as_diagram(obj):
    """A PowerDiagram from a diagram, a Head (its power_diagram()) or any head form."""
    if hasattr(obj, "clip_to_box") and hasattr(obj, "cells"):
        return obj
    make = getattr(obj, "power_diagram", None)
    if callable(make):
        return make()

    h = head_arrays(obj)
    return PowerDiagram.from_max_affine(h.keys, h.offsets)


def _as_head(obj):
    """Keys and offsets of a head or a diagram (a diagram's sites with score offsets)."""
    if hasattr(obj, "clip_to_box") and hasattr(obj, "cells") and not hasattr(obj, "keys"):
        return head_arrays((obj.sites, obj.offsets))
    return head_arrays(obj)


def _colors(n: int):
    """n distinct RGB colours (tab20, then evenly spaced hues)."""
    plt = _pyplot()
    if n <= 20:
        cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
        return np.array([cmap(i)[:3] for i in range(n)])
    return np.array([plt.get_cmap("hsv")(i / n)[:3] for i in range(n)])


def _box_of(obj, box):
    return resolve_box(box, [_as_head(obj)])


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
    diagram = _as_diagram(diagram_or_head)
    _check_dim(diagram.dim, "this diagram")
    lo, hi = _box_of(diagram_or_head, box)
    if ax is None:
        _, ax = _pyplot().subplots(figsize=(4.5, 4.5 if diagram.dim == 2 else 1.2))
    n = _draw_cells(ax, diagram, lo, hi, _colors(diagram.N))
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
    _check_dim(hs[0].dim, "this layer's query space")
    lo, hi = resolve_box(box, hs)
    plt = _pyplot()
    d = hs[0].dim
    panels = len(hs) + 1
    size = (4.2 * panels, 4.4) if d == 2 else (4.2 * panels, 1.6)
    fig, axes = plt.subplots(1, panels, figsize=size, squeeze=False)
    axes = axes[0]
    for i, h in enumerate(hs):
        diagram = _as_diagram(h.source if h.source is not None else h)
        n = _draw_cells(axes[i], diagram, lo, hi, _colors(h.N))
        axes[i].set_title(f"head {i}: {h.N} keys, {n} cells", fontsize=9)
    overlay, tuples = _overlay_diagram(hs)
    palette = _colors(max(len(tuples), 1))
    n = _draw_cells(axes[-1], overlay, lo, hi, palette, labels=tuples, sites=False)
    axes[-1].set_title(f"overlay of {len(hs)} heads: {n} regions in the box", fontsize=9)
    fig.tight_layout(w_pad=2.5)
    path = Path(path)
    _save(fig, path, 110)
    return path


def plot_soft_weights(head, taus, box, path, resolution: int = 200):
    """Soft attention weights at several temperatures over the exact cells, saved as a PNG.

    Top row: each pixel is the soft-weighted mixture ``sum_j p_j(x) colour_j``, so
    a cell is a flat colour at small ``tau`` and the colours bleed across the walls
    (black lines: the exact cell boundaries) as ``tau`` grows.  Bottom row:
    ``log10(1 - p*)``, the weight defect, linear in the distance to the nearest wall
    with slope ``-||a_j - a_{j*}|| / (tau ln 10)``.  In ``d = 1`` the weights are drawn
    as curves ``p_j(x)`` with the walls as vertical lines.

    Parameters
    ----------
    head : a Head or a head as ``(keys, offsets[, values])``
    taus : sequence of float > 0
    box : None, R, or (lo, hi)
    path : str or Path
    resolution : int
        Pixels per side (2-D) or sample points (1-D).

    Returns
    -------
    pathlib.Path

    >>> import tempfile, os
    >>> p = plot_soft_weights(([[0, 0], [2, 0], [0, 2]], [0, -2, -2]), [0.1, 1], 3,
    ...                       os.path.join(tempfile.mkdtemp(), "soft.png"), resolution=40)
    >>> p.stat().st_size > 0
    True
    """
    h = head_arrays(head)
    _check_dim(h.dim, "this head's query space")
    taus = [float(t) for t in np.atleast_1d(taus)]
    if not taus:
        raise InvalidInputError("taus is empty; give at least one temperature, e.g. [0.05, 0.2, 1]")
    lo, hi = resolve_box(box, [h])
    diagram = _as_diagram(h.source if h.source is not None else h)
    colors = _colors(h.N)
    plt = _pyplot()
    cols = len(taus)
    if h.dim == 1:
        fig, axes = plt.subplots(1, cols, figsize=(4.2 * cols, 3.2), squeeze=False)
        xs = np.linspace(lo[0], hi[0], max(int(resolution), 2))[:, None]
        walls = sorted({float(v) for iv in diagram.clip_to_box(list(lo), list(hi)).values() for v in iv}
                       - {float(lo[0]), float(hi[0])})
        for ax, tau in zip(axes[0], taus):
            W = soft_weights(h, xs, tau)
            for j in range(h.N):
                ax.plot(xs[:, 0], W[:, j], color=colors[j], lw=1.5, label=f"key {j}")
            for w in walls:
                ax.axvline(w, color="k", lw=0.6, ls="--")
            ax.set_ylim(-0.02, 1.02)
            ax.set_title(f"soft weights, tau = {tau:g}", fontsize=9)
        axes[0][0].legend(fontsize=7, loc="best")
    else:
        fig, axes = plt.subplots(2, cols, figsize=(4.2 * cols, 8.2), squeeze=False)
        r = max(int(resolution), 2)
        gx, gy = np.meshgrid(np.linspace(lo[0], hi[0], r), np.linspace(lo[1], hi[1], r))
        X = np.column_stack([gx.ravel(), gy.ravel()])
        polys = diagram.clip_to_box(list(lo), list(hi))
        extent = (lo[0], hi[0], lo[1], hi[1])
        for i, tau in enumerate(taus):
            W = soft_weights(h, X, tau)
            img = np.clip(W @ colors, 0, 1).reshape(r, r, 3)
            axes[0][i].imshow(img, origin="lower", extent=extent, interpolation="nearest")
            axes[0][i].set_title(f"soft weights (colour mix), tau = {tau:g}", fontsize=9)
            with np.errstate(divide="ignore"):
                defect = pointwise_defects(h, X, tau).log_weight[0] / np.log(10)
            im = axes[1][i].imshow(np.maximum(defect, -30).reshape(r, r), origin="lower", extent=extent,
                                   cmap="viridis", vmin=-30, vmax=0, interpolation="nearest")
            axes[1][i].set_title(f"log10(1 - p*), tau = {tau:g}", fontsize=9)
            fig.colorbar(im, ax=axes[1][i], shrink=0.8)
            for ax in (axes[0][i], axes[1][i]):
                for poly in polys.values():
                    ax.plot(*poly.exterior.xy, color="k", lw=0.7)
                S = np.array(diagram.sites, dtype=float)
                inside = np.all((S >= lo) & (S <= hi), axis=1)
                ax.scatter(S[inside, 0], S[inside, 1], c="w", edgecolors="k", s=16, zorder=3)
                ax.set_xlim(lo[0], hi[0])
                ax.set_ylim(lo[1], hi[1])
    fig.tight_layout()
    path = Path(path)
    _save(fig, path, 100)
    return path

