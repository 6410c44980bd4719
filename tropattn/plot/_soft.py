"""Finite-temperature pictures: soft weights over the exact cells, and the weight defect."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..attention import head_arrays, resolve_box
from ..errors import InvalidInputError
from ..soft import pointwise_defects, soft_weights
from ._common import as_diagram, axis_titles, check_dim, colors, label_sites, pyplot, save

__all__ = ["plot_soft_weights"]


def _fitted_range(values):
    """A colour range fitted to the finite values: their min and max (floored at -300).

    >>> _fitted_range(np.array([-0.5, -0.1, -np.inf]))
    (-0.5, -0.1)
    """
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return -1.0, 0.0
    vmin, vmax = max(float(finite.min()), -300.0), float(finite.max())
    if vmax - vmin < 1e-9:
        vmin, vmax = vmin - 0.5, vmax + 0.5
    return vmin, vmax


def plot_soft_weights(head, taus, box, path, resolution: int = 200, title=None):
    """Soft attention weights at several temperatures over the exact cells, saved as a PNG.

    Top row: each pixel is the soft-weighted mixture ``sum_j p_j(x) colour_j``, so
    a cell is a flat colour at small ``tau`` and the colours bleed across the walls
    (black lines: the exact cell boundaries) as ``tau`` grows.  Bottom row:
    ``log10(1 - p*)``, the weight defect, linear in the distance to the nearest wall
    with slope ``-||a_j - a_{j*}|| / (tau ln 10)``; each panel's colour scale is fitted
    to its own defects (at ``tau = 1`` they may span a fraction of a decade, at
    ``tau = 0.05`` hundreds).  In ``d = 1`` the weights are drawn as curves ``p_j(x)``
    with the walls as vertical lines.  Soft weights are floats (a simulation); the walls
    are exact.

    Parameters
    ----------
    head : a Head or a head as ``(keys, offsets[, values])``
    taus : sequence of float > 0
    box : None, R, or (lo, hi)
    path : str or Path
    resolution : int
        Pixels per side (2-D) or sample points (1-D).
    title : str, optional
        Names the model in the figure title (e.g. its file name).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidInputError
        If the head's queries are not 1- or 2-dimensional, ``taus`` is empty or not positive,
        or the file cannot be written.

    Examples
    --------
    >>> import tempfile, os
    >>> p = plot_soft_weights(([[0, 0], [2, 0], [0, 2]], [0, -2, -2]), [0.1, 1], 3,
    ...                       os.path.join(tempfile.mkdtemp(), "soft.png"), resolution=40)
    >>> p.stat().st_size > 0
    True
    """
    h = head_arrays(head)
    check_dim(h.dim, "this head's query space")
    taus = [float(t) for t in np.atleast_1d(taus)]
    if not taus:
        raise InvalidInputError("taus is empty; give at least one temperature, e.g. [0.05, 0.2, 1]")
    lo, hi = resolve_box(box, [h])
    diagram = as_diagram(h.source if h.source is not None else h)
    palette = colors(h.N)
    plt = pyplot()
    cols = len(taus)
    if h.dim == 1:
        fig, axes = plt.subplots(1, cols, figsize=(4.2 * cols, 3.2), squeeze=False)
        xs = np.linspace(lo[0], hi[0], max(int(resolution), 2))[:, None]
        walls = sorted({float(v) for iv in diagram.clip_to_box(list(lo), list(hi)).values() for v in iv}
                       - {float(lo[0]), float(hi[0])})
        for ax, tau in zip(axes[0], taus):
            W = soft_weights(h, xs, tau)
            for j in range(h.N):
                ax.plot(xs[:, 0], W[:, j], color=palette[j], lw=1.5, label=f"key {j}")
            for w in walls:
                ax.axvline(w, color="k", lw=0.6, ls="--")
            ax.set_ylim(-0.02, 1.02)
            ax.set_title(f"soft weights, tau = {tau:g}", fontsize=9)
            axis_titles(ax, 1)
            ax.set_ylabel("attention weight p_j(x)")
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
            img = np.clip(W @ palette, 0, 1).reshape(r, r, 3)
            axes[0][i].imshow(img, origin="lower", extent=extent, interpolation="nearest")
            axes[0][i].set_title(f"soft weights (colour mix), tau = {tau:g}", fontsize=9)
            with np.errstate(divide="ignore"):
                defect = pointwise_defects(h, X, tau).log_weight[0] / np.log(10)
            vmin, vmax = _fitted_range(defect)
            im = axes[1][i].imshow(np.clip(defect, vmin, vmax).reshape(r, r), origin="lower", extent=extent,
                                   cmap="viridis", vmin=vmin, vmax=vmax, interpolation="nearest")
            axes[1][i].set_title(f"weight defect log10(1 - p*), tau = {tau:g}", fontsize=9)
            fig.colorbar(im, ax=axes[1][i], shrink=0.8, label="log10(1 - p*)")
            for ax in (axes[0][i], axes[1][i]):
                for poly in polys.values():
                    ax.plot(*poly.exterior.xy, color="k", lw=0.7)
                ax.set_xlim(lo[0], hi[0])
                ax.set_ylim(lo[1], hi[1])
                axis_titles(ax, 2)
                label_sites(ax, diagram.sites, lo, hi)
    name = f"{title}: " if title else ""
    fig.suptitle(f"{name}soft attention of one head ({h.N} keys) at {len(taus)} temperature(s); "
                 "black lines: the exact walls", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.96))
    path = Path(path)
    save(fig, path, 100)
    return path
