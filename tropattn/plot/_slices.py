"""The exact partition of a 1- or 2-dimensional slice of a (deep) model, labelled by attended tokens.

The regions come from :func:`tropattn.regions.enumerate_regions` on the sliced model (exact,
certified); each is the polygon ``A t <= b`` inside the box, drawn in floats.  A region's
label lists, layer by layer, the context token each head attends to.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..errors import InvalidInputError
from ..regions import enumerate_regions
from ._common import check_dim, colors, pyplot, save

__all__ = ["plot_slice", "region_polygon", "pattern_label"]


def region_polygon(A, b, lo, hi):
    """Vertices (floats) of ``{t in [lo, hi]^2 : A t <= b}`` by clipping the box (Sutherland-Hodgman).

    Parameters
    ----------
    A : (m, 2) array_like
        Row normals.
    b : (m,) array_like
        Right-hand sides.
    lo, hi : float
        The square ``[lo, hi]^2``.

    Returns
    -------
    numpy.ndarray
        Shape ``(k, 2)``: the polygon's vertices in order (``k = 0`` if empty).

    Examples
    --------
    >>> np.round(region_polygon([[1, 0]], [0], -1, 1), 6).tolist()          # the half x <= 0
    [[-1.0, -1.0], [0.0, -1.0], [0.0, 1.0], [-1.0, 1.0]]
    """
    poly = [(lo, lo), (hi, lo), (hi, hi), (lo, hi)]
    for (a1, a2), beta in zip(np.asarray(A, dtype=float), np.asarray(b, dtype=float)):
        out = []
        for i, p in enumerate(poly):
            q = poly[(i + 1) % len(poly)]
            fp, fq = a1 * p[0] + a2 * p[1] - beta, a1 * q[0] + a2 * q[1] - beta
            if fp <= 0:
                out.append(p)
            if (fp < 0 < fq) or (fq < 0 < fp):
                s = fp / (fp - fq)
                out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
        poly = out
        if not poly:
            break
    return np.array(poly, dtype=float).reshape(-1, 2)


def pattern_label(pattern, names=None) -> str:
    """``"a,b | c"``: per layer, the token each head attends to (``names[j]`` or ``j``).

    Parameters
    ----------
    pattern : tuple
        An activation pattern: per layer ``(head labels, relu bits)``.
    names : sequence of str, optional
        Token names (default: the indices).

    Returns
    -------
    str
        Layers separated by ``" | "``, heads by ``","``.

    Examples
    --------
    >>> pattern_label((((1, 0), ()), ((2,), (1,))), ["x", "y", "z"])
    'y,x | z'
    """
    name = (lambda j: str(j)) if names is None else (lambda j: str(names[j]))
    return " | ".join(",".join(name(j) for j in labels) for labels, _ in pattern)


def plot_slice(model, box, path, names=None, title=None, axis_names=None, regions=None, marks=None):
    """Draw the exact activation regions of a sliced model (``k = 1`` or ``2``) in ``[lo, hi]^k``.

    Parameters
    ----------
    model : Transformer
        Of dimension 1 or 2 (e.g. :func:`tropattn.attention._slicing.slice_model`).
    box : (lo, hi)
        Scalars: the window ``[lo, hi]^k`` in slice coordinates ``t``.
    path : str or Path
    names : sequence of str, optional
        Names of the context tokens (default: their positions).
    title : str, optional
    axis_names : (str, str), optional
        Names of the slice directions (default ``t1``, ``t2``).
    regions : RegionSet, optional
        Reuse an enumeration of ``model`` in this box.
    marks : list of (t, str), optional
        Points to mark (e.g. the tokens the slice passes through).

    Regions with the same attention labels (differing in ReLU bits only) share a colour;
    each such group is labelled once, in its largest region; thin lines are all region walls.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidInputError
        If the slice is not 1- or 2-dimensional, the box is not ``(lo, hi)`` with ``lo < hi``,
        or the file cannot be written.

    Examples
    --------
    >>> import tempfile, os
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> T = Transformer([Layer([Head([[0, 0], [1, 0], [0, 1]], [0, 0, 0])])])
    >>> plot_slice(T, (-1, 1), os.path.join(tempfile.mkdtemp(), "s.png")).stat().st_size > 0
    True
    """
    k = model.dim
    check_dim(k, "the slice")
    lo, hi = float(box[0]), float(box[1])
    if not lo < hi:
        raise InvalidInputError(f"box = {box}; give (lo, hi) with lo < hi")
    result = regions if regions is not None else enumerate_regions(model, box=box, progress=False)
    R = result.activation_regions
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.6, 7.0) if k == 2 else (8, 2.6))
    groups = sorted({tuple(labels for labels, _ in r.pattern) for r in R})   # attention labels, ReLU bits aside
    palette = colors(max(len(groups), 1))
    axis_names = axis_names or ("t1", "t2")
    best = {}
    for r in R:
        g = groups.index(tuple(labels for labels, _ in r.pattern))
        if k == 2:
            P = region_polygon(r.A, r.b, lo, hi)
            if len(P) < 3:
                continue
            ax.fill(P[:, 0], P[:, 1], color=palette[g], alpha=0.6, lw=0)
            ax.plot(np.append(P[:, 0], P[0, 0]), np.append(P[:, 1], P[0, 1]), color="k", lw=0.4)
            x, y = P[:, 0], P[:, 1]
            size = 0.5 * abs(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))
            where = P.mean(axis=0)
        else:
            left = max([lo] + [float(bb / a[0]) for a, bb in zip(r.A, r.b) if a[0] < 0])
            right = min([hi] + [float(bb / a[0]) for a, bb in zip(r.A, r.b) if a[0] > 0])
            ax.axvspan(left, right, color=palette[g], alpha=0.6, lw=0)
            ax.axvline(left, color="k", lw=0.4)
            size, where = right - left, ((left + right) / 2, 0.5)
        if size > best.get(g, (0, None))[0]:
            best[g] = (size, where, r.pattern)
    for g, (_, where, pattern) in best.items():
        ax.text(where[0], where[1], pattern_label(pattern, names), ha="center", va="center", fontsize=7,
                rotation=0 if k == 2 else 90, bbox=dict(boxstyle="round,pad=0.15", fc="white", alpha=0.7, lw=0))
    for t, text in marks or ():
        ax.plot(t[0], t[1] if k == 2 else 0.15, "k*", ms=9)
        ax.annotate(text, (t[0], t[1] if k == 2 else 0.15), textcoords="offset points", xytext=(5, 5), fontsize=9)
    ax.set_xlim(lo, hi)
    ax.set_xlabel(f"{axis_names[0]} (slice coordinate)")
    if k == 2:
        ax.set_ylim(lo, hi)
        ax.set_ylabel(f"{axis_names[1]} (slice coordinate)")
        ax.set_aspect("equal")
    else:
        ax.set_yticks([])
    layers = len(model.layers)
    ax.set_title(title or f"{len(R)} exact activation regions ({len(groups)} attention pattern(s)) on a {k}-D "
                 f"slice, {layers} layer(s)\ncolour and label: token attended by each head (layers separated by |); "
                 "thin lines: all walls, ReLU ones included", fontsize=9)
    fig.tight_layout()
    path = Path(path)
    save(fig, path, 130)
    return path
