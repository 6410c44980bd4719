"""What every picture shares: the Agg backend (imported lazily), saving, colours, boxes, labels.

matplotlib is imported inside :func:`pyplot` only, so ``import tropattn`` never needs
a display or matplotlib at all.  Pictures are drawn in floats from exact cells; only
the placement of labels is approximate (a label is drawn only where it fits inside
its cell, so labels of distinct cells never overlap).
"""

from __future__ import annotations

import os

import numpy as np

from .._lazy import lazy_import
from ..attention import head_arrays, resolve_box
from ..errors import InvalidInputError
from ..geometry import PowerDiagram

__all__ = ["pyplot", "save", "check_dim", "colors", "box_of", "as_diagram", "as_head", "head_palettes",
           "mix_colors", "axis_titles", "label_size", "label_sites"]


matplotlib = lazy_import("matplotlib")
#: matplotlib.pyplot with the non-interactive Agg backend, imported on first use.
plt = lazy_import("matplotlib.pyplot", setup=lambda: matplotlib.use("Agg", force=False))


def pyplot():
    """matplotlib.pyplot with the Agg backend (imported on first use).

    Returns
    -------
    module
        ``matplotlib.pyplot``, with a non-interactive backend.

    Examples
    --------
    >>> plt = pyplot()
    >>> fig, ax = plt.subplots(); plt.close(fig)
    """
    return plt


def save(fig, path, dpi):
    """Write a figure; an unknown file type or an unwritable path is an InvalidInputError.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure (closed afterwards, also on error).
    path : str or Path
        The file; its suffix picks the format (``.png``, ``.svg``, ``.pdf``, ...).
    dpi : int
        Resolution of raster formats.

    Returns
    -------
    None

    Raises
    ------
    InvalidInputError
        If the suffix is not a picture type matplotlib writes, or the file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> fig, ax = pyplot().subplots()
    >>> path = os.path.join(tempfile.mkdtemp(), "empty.png")
    >>> save(fig, path, 50); os.path.exists(path)
    True
    """
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
    """Refuse ``d > 2`` (no picture) with a hint on projecting.

    Parameters
    ----------
    d : int
        The query dimension.
    what : str
        What is drawn, for the message.

    Returns
    -------
    None

    Raises
    ------
    InvalidInputError
        If ``d`` is not 1 or 2.

    Examples
    --------
    >>> check_dim(2, "the head")                      # a plane picture: fine
    >>> check_dim(3, "the head")                      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: the head lives in R^3; pictures exist for d = 1 or 2 only. ...
    """
    if d not in (1, 2):
        raise InvalidInputError(
            f"{what} lives in R^{d}; pictures exist for d = 1 or 2 only. Project the queries to two "
            "coordinates first, e.g. keys[:, [0, 1]] (with the matching offsets), or pick a 2-D slice "
            "x = x0 + s u + t v and draw the head with keys (a_j . u, a_j . v), offsets b_j + a_j . x0")


def as_diagram(obj):
    """A PowerDiagram from a diagram, a Head (its power_diagram()) or any head form.

    Parameters
    ----------
    obj : PowerDiagram, Head or head form
        Anything :func:`tropattn.attention.head_arrays` reads (e.g. ``(keys, offsets)``).

    Returns
    -------
    PowerDiagram
        The exact diagram of the argmax.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> as_diagram(Head([[0, 0], [1, 0], [0, 1]])).nonempty     # three cones around the origin
    (0, 1, 2)
    """
    if hasattr(obj, "clip_to_box") and hasattr(obj, "cells"):
        return obj
    make = getattr(obj, "power_diagram", None)
    if callable(make):
        return make()

    h = head_arrays(obj)
    return PowerDiagram.from_max_affine(h.keys, h.offsets)


def as_head(obj):
    """Keys and offsets of a head or a diagram (a diagram's sites with score offsets).

    Parameters
    ----------
    obj : Head, PowerDiagram or head form
        The head to read.

    Returns
    -------
    HeadArrays
        Float keys, offsets and values.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> h = Head([[0, 0], [1, 0], [0, 1]])
    >>> as_head(h).N, as_head(as_diagram(h)).N
    (3, 3)
    """
    if hasattr(obj, "clip_to_box") and hasattr(obj, "cells") and not hasattr(obj, "keys"):
        return head_arrays((obj.sites, obj.offsets))
    return head_arrays(obj)


def colors(n: int):
    """n distinct RGB colours (tab20, then evenly spaced hues).

    Parameters
    ----------
    n : int
        Number of colours.

    Returns
    -------
    numpy.ndarray
        Shape ``(n, 3)``, RGB in ``[0, 1]``.

    Examples
    --------
    >>> C = colors(3)
    >>> C.shape, len({tuple(c) for c in C})
    ((3, 3), 3)
    """
    plt = pyplot()
    if n <= 20:
        cmap = plt.get_cmap("tab20" if n > 10 else "tab10")
        return np.array([cmap(i)[:3] for i in range(n)])
    return np.array([plt.get_cmap("hsv")(i / n)[:3] for i in range(n)])


def head_palettes(sizes) -> list:
    """One block of distinct colours per head (head ``h`` gets ``sizes[h]`` of them).

    Parameters
    ----------
    sizes : sequence of int
        Keys per head.

    Returns
    -------
    list of numpy.ndarray
        ``sizes[h]`` distinct RGB rows per head, no colour shared between heads.

    Examples
    --------
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

    Parameters
    ----------
    palettes : sequence of (N_h, 3) ndarray
        One palette per head (:func:`head_palettes`).
    labels : sequence of int
        One key label per head.

    Returns
    -------
    numpy.ndarray
        Shape ``(3,)``: the mean colour.

    Examples
    --------
    >>> mix_colors([np.array([[1., 0, 0]]), np.array([[0, 0, 1.], [0, 1., 0]])], (0, 1)).tolist()
    [0.5, 0.5, 0.0]
    """
    return np.mean([p[j] for p, j in zip(palettes, labels)], axis=0)


def axis_titles(ax, d):
    """Axis titles of the query space: ``x_1`` (and ``x_2``).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    d : int
        The query dimension (1 or 2).

    Returns
    -------
    None

    Examples
    --------
    >>> fig, ax = pyplot().subplots()
    >>> axis_titles(ax, 2); ax.get_xlabel(), ax.get_ylabel()
    ('query coordinate x_1', 'query coordinate x_2')
    >>> pyplot().close(fig)
    """
    ax.set_xlabel("query coordinate x_1" if d == 2 else "query x")
    if d == 2:
        ax.set_ylabel("query coordinate x_2")


def label_size(ax, text, fontsize):
    """Width and height of ``text`` in data units of ``ax`` (approximate, from the axes size).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes (limits already set).
    text : str
        The label.
    fontsize : float
        Font size in points.

    Returns
    -------
    width, height : float
        In data units.

    Examples
    --------
    >>> fig, ax = pyplot().subplots()
    >>> _ = ax.set_xlim(0, 10), ax.set_ylim(0, 10)
    >>> w, h = label_size(ax, "abc", 10)
    >>> bool(w < label_size(ax, "abcdef", 10)[0])     # longer text, wider label
    True
    >>> pyplot().close(fig)
    """
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

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The axes.
    sites : (N, d) array_like
        The keys (``d`` = 1 or 2; 1-D keys are drawn at a fixed height).
    lo, hi : (d,) ndarray
        The drawing box.
    prefix : str, optional
        Label prefix (default ``"a"``).

    Returns
    -------
    int
        The number of keys inside the box (drawn).

    Examples
    --------
    >>> fig, ax = pyplot().subplots()
    >>> _ = ax.set_xlim(0, 10), ax.set_ylim(0, 10)
    >>> label_sites(ax, [[1, 1], [2, 2], [20, 20]], np.array([0, 0]), np.array([10, 10]))   # (20, 20) is outside
    2
    >>> pyplot().close(fig)
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
    """The drawing box of one head or diagram (see :func:`tropattn.attention.resolve_box`).

    Parameters
    ----------
    obj : Head, PowerDiagram or head form
        The head.
    box : None, float or (lo, hi)
        None: a box around the keys; otherwise as :func:`~tropattn.attention.resolve_box`.

    Returns
    -------
    lo, hi : numpy.ndarray
        The box corners, shape ``(d,)``.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> lo, hi = box_of(Head([[0, 0], [1, 0], [0, 1]]), (-2, 2))
    >>> lo.tolist(), hi.tolist()
    ([-2.0, -2.0], [2.0, 2.0])
    """
    return resolve_box(box, [as_head(obj)])
