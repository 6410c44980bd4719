"""Rich display in Jupyter: the strings behind ``_repr_latex_``, ``_repr_svg_`` and ``_repr_html_``.

A notebook shows an object by the richest of its ``_repr_*_`` methods (sympy's LaTeX, shapely's
SVG, pandas' HTML).  The classes of tropattn draw themselves the same way, and this module is the
one place that writes the markup: plain strings from plain numbers, with the standard library
only (no matplotlib, no IPython), so that every class, whatever its rank, can call it.  A class
computes *what* is drawn with its own exact geometry (the cells of a power diagram clipped
exactly to a box that shows all of them, the regions of a search, the vertices of a polygon)
and hands the float copies of the corners here; only the drawing is in floats.

The forms, and how the tests read them:

* LaTeX: :func:`latex_math` wraps an object's ``to_latex()`` in ``$ ... $`` (tropical sums
  and products are written ``max`` and ``+``, as :meth:`~tropattn.tropical.TropicalPolynomial.to_latex`
  does: every reader parses them, and they are what ``max(...)`` in the text form means);
* SVG: :func:`svg_picture` draws one ``<polygon class="cell">`` per cell, so the number of
  filled polygons *is* the exact cell count, plus ``<circle class="site">`` marks and a title;
* HTML: :func:`html_table` is one ``<tr>`` per row of data (and one header row).

>>> svg = svg_picture([("cell 0", [(0, 0), (1, 0), (0, 1)])], ((0, 0), (1, 1)), title="one cell")
>>> svg.count('class="cell"'), svg.startswith("<svg")
(1, True)
>>> html_table(["n", "n^2"], [[1, 1], [2, 4]]).count("<tr>")
3
"""

from __future__ import annotations

import colorsys
import functools
from fractions import Fraction

from ._lazy import lazy_import

html = lazy_import("html")  # read on first use: only the HTML and SVG forms need it

__all__ = ["latex_math", "palette", "convex_order", "grow_box", "svg_picture", "html_table", "html_fields"]

#: Pixels of the longer side of an SVG picture.
SVG_SIZE = 320


def latex_math(body: str) -> str:
    """``$body$``: the form Jupyter typesets from ``_repr_latex_``.

    Parameters
    ----------
    body : str
        LaTeX math source (no delimiters).

    Returns
    -------
    str
        The source between single dollars.

    Examples
    --------
    >>> latex_math("x + 1")
    '$x + 1$'
    """
    return f"${body}$"


def palette(n: int) -> list:
    """``n`` distinct light colours (``#rrggbb``), hues spread by the golden angle.

    Parameters
    ----------
    n : int
        How many.

    Returns
    -------
    list of str

    Examples
    --------
    >>> colours = palette(5)
    >>> len(set(colours)), colours[0]
    (5, '#f5a8a8')
    """
    out = []
    for i in range(n):
        r, g, b = colorsys.hls_to_rgb((i * 0.6180339887) % 1.0, 0.81, 0.8)
        out.append("#" + "".join(f"{round(255 * v):02x}" for v in (r, g, b)))
    return out


def _turn(o, p, q):
    return (p[0] - o[0]) * (q[1] - o[1]) - (p[1] - o[1]) * (q[0] - o[0])


def convex_order(points) -> list:
    """The points of a convex polygon in counter-clockwise order, decided exactly.

    The centre is the exact mean of the points; points are ordered by half-plane, then by
    the sign of a cross product (rationals in, no angle is computed).

    Parameters
    ----------
    points : sequence of (x, y) rationals
        Vertices of a convex polygon, in any order.

    Returns
    -------
    list of (x, y)
        The same points, counter-clockwise.

    Examples
    --------
    >>> convex_order([(1, 1), (0, 0), (0, 1), (1, 0)])
    [(1, 1), (0, 1), (0, 0), (1, 0)]
    """
    pts = [tuple(Fraction(v) for v in p) for p in points]
    if len(pts) < 3:
        return [tuple(p) for p in points]
    c = (sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts))

    def upper(p):           # angle in [0, pi) around c
        return p[1] > c[1] or (p[1] == c[1] and p[0] > c[0])

    def cmp(i, j):
        p, q = pts[i], pts[j]
        if upper(p) != upper(q):
            return -1 if upper(p) else 1
        t = _turn(c, p, q)
        return -1 if t > 0 else (1 if t < 0 else 0)

    order = sorted(range(len(pts)), key=functools.cmp_to_key(cmp))
    return [tuple(points[i]) for i in order]


def grow_box(lo, hi, shows_all, steps: int = 64) -> tuple:
    """Double the box ``[lo, hi]`` about its centre until ``shows_all(lo, hi)`` (at most ``steps`` times).

    Parameters
    ----------
    lo, hi : sequence of rationals
        The first box (``lo < hi`` in every coordinate).
    shows_all : callable
        ``shows_all(lo, hi) -> bool``: does this box show everything (decided by the caller, exactly)?
    steps : int, optional
        The most doublings.

    Returns
    -------
    lo, hi : tuple of Fraction
        The first box that shows everything (or the last one tried).

    Examples
    --------
    >>> grow_box((0,), (1,), lambda lo, hi: hi[0] >= 5)        # [0, 1] -> [-1/2, 3/2] -> ... -> [-15/2, 17/2]
    ((Fraction(-15, 2),), (Fraction(17, 2),))
    """
    lo, hi = tuple(Fraction(v) for v in lo), tuple(Fraction(v) for v in hi)
    for _ in range(steps):
        if shows_all(lo, hi):
            break
        lo, hi = (tuple(l - (h - l) / 2 for l, h in zip(lo, hi)),
                  tuple(h + (h - l) / 2 for l, h in zip(lo, hi)))
    return lo, hi


def _fmt(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def svg_picture(polygons, box, *, points=(), segments=(), title=None, size: int = SVG_SIZE) -> str:
    """An SVG picture of labelled filled polygons in the window ``box`` (y upwards).

    Parameters
    ----------
    polygons : sequence of (label, corners)
        Each drawn as one ``<polygon class="cell">`` with a tooltip ``label``; corners are
        ``(x, y)`` numbers in order (at least 3), or 2 corners (a segment) or 1 (a point).
    box : (lo, hi)
        The window, two ``(x, y)`` corners.
    points : sequence of (x, y), optional
        Marks (``<circle class="site">``), e.g. the keys of a head; those outside the box are left out.
    segments : sequence of ((x, y), (x, y)), optional
        Extra lines (``<line class="edge">``).
    title : str, optional
        A caption above the picture.
    size : int, optional
        Pixels of the longer side.

    Returns
    -------
    str
        A standalone ``<svg>`` element (``xmlns`` set), valid XML.

    Examples
    --------
    >>> svg = svg_picture([("a", [(0, 0), (2, 0), (2, 1)]), ("b", [(0, 0), (2, 1), (0, 1)])], ((0, 0), (2, 1)),
    ...                   points=[(1, 0.5), (5, 5)])
    >>> svg.count("<polygon"), svg.count("<circle")              # (5, 5) is outside
    (2, 1)
    """
    (x0, y0), (x1, y1) = [tuple(float(v) for v in corner) for corner in box]
    scale = size / max(x1 - x0, y1 - y0)
    w, h = (x1 - x0) * scale, (y1 - y0) * scale
    top = 18 if title else 0

    def xy(p):
        return f"{_fmt((float(p[0]) - x0) * scale)},{_fmt(top + (y1 - float(p[1])) * scale)}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_fmt(w)}" height="{_fmt(h + top)}" '
           f'viewBox="0 0 {_fmt(w)} {_fmt(h + top)}" font-family="sans-serif">']
    if title:
        out.append(f'<text x="{_fmt(w / 2)}" y="13" font-size="12" text-anchor="middle">{html.escape(title)}</text>')
    out.append(f'<rect x="0" y="{top}" width="{_fmt(w)}" height="{_fmt(h)}" fill="white" stroke="#888"/>')
    for (label, corners), colour in zip(polygons, palette(len(polygons))):
        tip = f"<title>{html.escape(str(label))}</title>"
        coords = " ".join(xy(p) for p in corners)
        out.append(f'<polygon class="cell" points="{coords}" fill="{colour}" stroke="black" '
                   f'stroke-width="{1.5 if len(corners) < 3 else 0.8}">{tip}</polygon>')
    for p, q in segments:
        (a, b), (c, d) = xy(p).split(","), xy(q).split(",")
        out.append(f'<line class="edge" x1="{a}" y1="{b}" x2="{c}" y2="{d}" stroke="black" stroke-width="1.5"/>')
    for p in points:
        if x0 <= float(p[0]) <= x1 and y0 <= float(p[1]) <= y1:
            a, b = xy(p).split(",")
            out.append(f'<circle class="site" cx="{a}" cy="{b}" r="2.5" fill="black"/>')
    out.append("</svg>")
    return "\n".join(out)


def _cell(value) -> str:
    if isinstance(value, float):
        value = f"{value:.4g}"
    return html.escape(str(value))


def html_table(columns, rows, caption=None, note=None) -> str:
    """An HTML table: a header row, then one ``<tr>`` per row of ``rows``, cells escaped.

    Parameters
    ----------
    columns : sequence of str
        The header.
    rows : iterable of sequences
        The data, one value per column (floats shown to 4 significant digits).
    caption : str, optional
        A caption above the table.
    note : str, optional
        A line below the table (e.g. "first 10 of 1000 rows").

    Returns
    -------
    str

    Examples
    --------
    >>> print(html_table(["a"], [["<b>"]]))
    <table class="tropattn">
    <tr><th>a</th></tr>
    <tr><td>&lt;b&gt;</td></tr>
    </table>
    """
    out = ['<table class="tropattn">']
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th>{html.escape(str(c))}</th>" for c in columns) + "</tr>")
    out += ["<tr>" + "".join(f"<td>{_cell(v)}</td>" for v in row) + "</tr>" for row in rows]
    out.append("</table>")
    if note:
        out.append(f"<p>{html.escape(note)}</p>")
    return "\n".join(out)


def html_fields(pairs, caption=None) -> str:
    """A two-column ``field | value`` table of ``(name, value)`` pairs (:func:`html_table`).

    Parameters
    ----------
    pairs : iterable of (str, object)
        The fields.
    caption : str, optional
        The caption.

    Returns
    -------
    str

    Examples
    --------
    >>> html_fields([("regions", 9), ("complete", True)]).count("<td>")
    4
    """
    return html_table(("field", "value"), pairs, caption)
