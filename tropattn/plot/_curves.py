"""Tropical curves beside their dual subdivisions, tropical surfaces, and two heads as a Minkowski sum.

The geometry is exact: regions are clipped to the window in rationals
(:meth:`tropattn.geometry.PowerDiagram.clip_to_box`), walls and vertices are the
certified cells of :func:`tropattn.tropical.hypersurface_cells` clipped exactly, the
subdivision is :func:`tropattn.tropical.dual_subdivision`, and the Minkowski sum's upper
faces are :func:`tropattn.geometry.upper_hull` of the summed lifted points.  Only the
drawing uses floats.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "line.png")
>>> str(plot_tropical_curve("max(0, x, y)", path)) == path and os.path.getsize(path) > 0
True
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from pathlib import Path

import numpy as np

from .._lazy import lazy_import
from ..attention import as_heads, resolve_box
from ..errors import InvalidInputError
from ..geometry import PowerDiagram, clip_polygon, convex_hull, upper_hull
from ..tropical import TropicalPolynomial, curve_edges, parse_polynomial
from ._common import colors, pyplot, save
from ._power import draw_cells, overlay_diagram

patches = lazy_import("matplotlib.patches")
art3d = lazy_import("mpl_toolkits.mplot3d.art3d")

__all__ = ["curve_box", "plot_tropical_curve", "plot_minkowski_heads"]


def _polynomial(f):
    if isinstance(f, str):
        return parse_polynomial(f)
    if not isinstance(f, TropicalPolynomial):
        raise InvalidInputError(f"expected a TropicalPolynomial or a string such as 'max(0, x, y)', got "
                                f"{type(f).__name__}")
    return f


def curve_box(f, box=None) -> tuple:
    """The window ``(lo, hi)`` (exact): ``box`` as ``R`` or ``(lo, hi)``, or one around every vertex.

    By default the window holds every vertex of the hypersurface and a point of every
    cell that has no vertex (a line without a corner), with a margin of half the span (at least 1) so that rays are visible.

    Parameters
    ----------
    f : TropicalPolynomial
        The polynomial.
    box : None, R or (lo, hi), optional
        A positive half-width ``R`` (the cube ``[-R, R]^d``) or corners with ``lo < hi``.

    Returns
    -------
    lo, hi : tuple of Fraction
        The window corners, shape ``(d,)``.

    Raises
    ------
    InvalidInputError
        If ``R <= 0`` or ``lo >= hi`` in some coordinate.

    Examples
    --------
    >>> lo, hi = curve_box(parse_polynomial("max(0, x, y)"))     # the tropical line: vertex at 0
    >>> all(l < 0 < h for l, h in zip(lo, hi)), lo == tuple(-h for h in hi)
    (True, True)
    """
    d = f.dim
    if box is not None:
        if np.isscalar(box) or isinstance(box, (Fraction, str)):
            r = Fraction(box)
            if r <= 0:
                raise InvalidInputError(f"box = {box!r}; a half-width must be positive")
            return (-r,) * d, (r,) * d
        lo, hi = box
        lo = tuple(Fraction(v) for v in (lo if np.ndim(lo) else [lo] * d))
        hi = tuple(Fraction(v) for v in (hi if np.ndim(hi) else [hi] * d))
        if any(a >= b for a, b in zip(lo, hi)):
            raise InvalidInputError(f"box needs lo < hi in every coordinate; got {lo}, {hi}")
        return lo, hi
    cells = f.hypersurface_cells()
    # the smallest cells (vertices; a wall or edge only where it has no vertex): the rest reach them
    pts = [c.point for c in cells if not any(c.terms < o.terms for o in cells)] or [(Fraction(0),) * d]
    lo = [min(p[i] for p in pts) for i in range(d)]
    hi = [max(p[i] for p in pts) for i in range(d)]
    pad = max([Fraction(1)] + [(h - l) / 2 for l, h in zip(lo, hi)])
    return tuple(l - pad for l in lo), tuple(h + pad for h in hi)


def _wall_segment(cell, lo, hi):
    """The closed wall ``E x = f, A x <= b`` inside the box, as two exact end points (d = 2)."""
    (e,) = cell.E
    p, u = cell.point, (-e[1], e[0])
    rows = list(zip(cell.A, cell.b)) + [((1, 0), hi[0]), ((0, 1), hi[1]), ((-1, 0), -lo[0]), ((0, -1), -lo[1])]
    smin, smax = None, None
    for a, b in rows:
        au, ap = a[0] * u[0] + a[1] * u[1], a[0] * p[0] + a[1] * p[1]
        if au > 0:
            smax = (b - ap) / au if smax is None else min(smax, (b - ap) / au)
        elif au < 0:
            smin = (b - ap) / au if smin is None else max(smin, (b - ap) / au)
        elif ap > b:
            return None
    if smin is None or smax is None or smin >= smax:
        return None
    return [tuple(pi + s * ui for pi, ui in zip(p, u)) for s in (smin, smax)]


def _wall_width(weight) -> float:
    """The line width of a wall of weight ``weight``: ``1.2 * weight`` points, at most 6 (the label says the rest).

    >>> _wall_width(1), _wall_width(2), _wall_width(100000)
    (1.2, 2.4, 6.0)
    """
    return min(1.2 * float(weight), 6.0)


def _ordered(points):
    """The vertices of the convex hull of plane points, counter-clockwise (exact hull, floats out)."""
    P = np.array(convex_hull(list(points)).vertices, dtype=float)
    c = P.mean(axis=0)
    return P[np.argsort(np.arctan2(P[:, 1] - c[1], P[:, 0] - c[0]))]


def _draw_curve(ax, f, lo, hi, palette):
    regions = PowerDiagram.from_max_affine(f.exponents, f.coefficients).clip_to_box(list(lo), list(hi))
    for j, poly in regions.items():
        xs, ys = poly.exterior.xy
        ax.fill(xs, ys, color=palette[j], alpha=0.35, lw=0)
        p = poly.representative_point()
        ax.text(p.x, p.y, str(j), ha="center", va="center", fontsize=10, color="k",
                bbox=dict(boxstyle="circle,pad=0.2", fc=palette[j], ec="k", lw=0.5))
    edges = curve_edges(f)
    for e in edges:
        seg = _wall_segment(e.cell, lo, hi)
        if seg is None:
            continue
        (x0, y0), (x1, y1) = np.array(seg, dtype=float)
        ax.plot([x0, x1], [y0, y1], color="k", lw=_wall_width(e.weight))
        if e.weight != 1:
            ax.text((x0 + x1) / 2, (y0 + y1) / 2, f"w={e.weight}", fontsize=8, color="darkred",
                    ha="left", va="bottom", bbox=dict(fc="white", ec="none", alpha=0.8, pad=0.5))
    vertices = [c for c in f.hypersurface_cells() if c.dim == 0]
    names = _vertex_names(f, vertices)
    for c in vertices:
        x, y = (float(v) for v in c.point)
        if lo[0] <= c.point[0] <= hi[0] and lo[1] <= c.point[1] <= hi[1]:
            ax.plot([x], [y], "o", color="k", ms=5, zorder=4)
            ax.annotate(names[c.terms], (x, y), xytext=(5, -11), textcoords="offset points", fontsize=9,
                        color="navy", fontweight="bold")
    ax.set_xlim(float(lo[0]), float(hi[0]))
    ax.set_ylim(float(lo[1]), float(hi[1]))
    ax.set_aspect("equal")
    ax.set_xlabel(f.variables[0])
    ax.set_ylabel(f.variables[1])
    return edges, vertices


def _vertex_names(f, vertices):
    """``V1, V2, ...`` for the vertices, in the order of the subdivision's maximal cells."""
    order = {S: i for i, S in enumerate(f.dual_subdivision())}
    ranked = sorted(vertices, key=lambda c: order.get(c.terms, len(order)))
    return {c.terms: f"V{i + 1}" for i, c in enumerate(ranked)}


def _draw_subdivision(ax, f, palette, edges, vertices):
    names = _vertex_names(f, vertices)
    E = np.array(f.exponents, dtype=float)
    for S in f.dual_subdivision():
        poly = _ordered({f.exponents[k] for k in S})
        if len(poly) >= 3:
            ax.fill(poly[:, 0], poly[:, 1], color="lightsteelblue", alpha=0.35, lw=0)
            c = poly.mean(axis=0)
            ax.text(c[0], c[1], names.get(S, ""), ha="center", va="center", fontsize=9, color="navy",
                    fontweight="bold")
    for e in edges:
        j, k = e.ends
        ax.plot(E[[j, k], 0], E[[j, k], 1], color="k", lw=_wall_width(e.weight))
        if e.weight != 1:
            m = E[[j, k]].mean(axis=0)
            ax.text(m[0], m[1], f"w={e.weight}", fontsize=8, color="darkred", ha="left", va="bottom")
    live = {r.term for r in f.linear_regions()}
    for j, (x, y) in enumerate(E):
        alive = j in live
        ax.plot([x], [y], "o", ms=13 if alive else 7, color=palette[j] if alive else "white", mec="k", zorder=3)
        if alive:
            ax.text(x, y, str(j), ha="center", va="center", fontsize=8, zorder=4)
    pad = 0.4
    ax.set_xlim(E[:, 0].min() - pad, E[:, 0].max() + pad)
    ax.set_ylim(E[:, 1].min() - pad, E[:, 1].max() + pad)
    ax.set_aspect("equal")
    ax.set_xlabel(f"exponent of {f.variables[0]}")
    ax.set_ylabel(f"exponent of {f.variables[1]}")


def _surface(ax, f, lo, hi, palette):
    """The 2-dimensional walls of a tropical surface in R^3, clipped exactly to the box."""
    count = 0
    for e in curve_edges(f):
        (n,), (c,) = e.cell.E, e.cell.f
        i = max(range(3), key=lambda k: abs(n[k]))          # solve the plane for coordinate i
        u, v = [k for k in range(3) if k != i]
        # x_i = (c - n_u x_u - n_v x_v) / n_i; every row a . x <= b becomes a half-plane in (x_u, x_v)
        def plane_row(a, b):
            return ((a[u] - a[i] * n[u] / n[i], a[v] - a[i] * n[v] / n[i]), b - a[i] * c / n[i])
        poly = [(lo[u], lo[v]), (hi[u], lo[v]), (hi[u], hi[v]), (lo[u], hi[v])]
        rows = [plane_row(a, b) for a, b in zip(e.cell.A, e.cell.b)]
        unit = [tuple(Fraction(int(k == i)) for k in range(3))]
        rows += [plane_row(unit[0], hi[i]), plane_row(tuple(-x for x in unit[0]), -lo[i])]
        for a, b in rows:
            poly = clip_polygon(poly, a, b)
            if len(poly) < 3:
                break
        if len(poly) < 3:
            continue
        pts = []
        for pu, pv in poly:
            x = [None] * 3
            x[u], x[v] = pu, pv
            x[i] = (c - n[u] * pu - n[v] * pv) / n[i]
            pts.append([float(t) for t in x])
        j, k = e.ends
        tint = (np.asarray(palette[j]) + np.asarray(palette[k])) / 2
        ax.add_collection3d(art3d.Poly3DCollection([pts], facecolor=tint, edgecolor="k", lw=0.4, alpha=0.6))
        count += 1
    for axis, name, a, b in zip("xyz", f.variables, lo, hi):
        getattr(ax, f"set_{axis}lim")(float(a), float(b))
        getattr(ax, f"set_{axis}label")(name)
    return count


def plot_tropical_curve(f, path, box=None, dpi=120):
    """The tropical curve of ``f`` beside its dual subdivision (d = 2), or the surface (d = 3).

    For ``d = 2`` the left panel shows the linear regions (coloured and labelled by
    their term ``j``), the walls drawn thicker and labelled ``w=...`` when their weight
    (the lattice length of the dual edge) exceeds 1, and the vertices ``V1, V2, ...``;
    the right panel shows the Newton polygon with the regular subdivision induced by the
    coefficients: each term's exponent in its region's colour, each maximal cell labelled
    by the vertex of the curve it is dual to, each edge dual to a wall (same weight).
    Redundant terms are white dots.  For ``d = 3`` a 3-D view of the walls of the
    tropical surface (each tinted by the two regions it separates).

    Parameters
    ----------
    f : TropicalPolynomial or str
    path : str or Path
        ``.png``, ``.svg``, ``.pdf``, ...
    box : None, R or (lo, hi), optional
        The window (default :func:`curve_box`).
    dpi : int

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidInputError
        ``d`` not 2 or 3, a bad box, or an unknown picture type.

    Examples
    --------
    >>> import os, tempfile
    >>> p = os.path.join(tempfile.mkdtemp(), "line.png")
    >>> os.path.getsize(plot_tropical_curve("max(0, x, y)", p)) > 0       # the tropical line and its triangle
    True
    """
    f = _polynomial(f)
    if f.dim not in (2, 3):
        raise InvalidInputError(f"plot_tropical_curve draws curves (d = 2) and surfaces (d = 3); this polynomial "
                                f"has d = {f.dim}. For d = 1 the 'curve' is the list of corner points: "
                                "use f.hypersurface_cells()")
    lo, hi = curve_box(f, box)
    plt = pyplot()
    palette = colors(len(f))
    if f.dim == 2:
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.8))
        edges, vertices = _draw_curve(left, f, lo, hi, palette)
        left.set_title(f"tropical curve: {len(f.linear_regions())} regions, {len(edges)} edges, "
                       f"{len(vertices)} vertices\n(edge weight 1 unless marked w=k)", fontsize=10)
        _draw_subdivision(right, f, palette, edges, vertices)
        right.set_title(f"Newton polygon: regular subdivision into {len(f.dual_subdivision())} cells\n"
                        "(cell Vi is dual to vertex Vi, point j to region j)", fontsize=10)
    else:
        fig = plt.figure(figsize=(6.5, 6))
        ax = fig.add_subplot(projection="3d")
        n = _surface(ax, f, lo, hi, palette)
        ax.set_title(f"{n} walls of the tropical surface in the box", fontsize=10)
    text = str(f)
    fig.suptitle(f"f = {text if len(text) <= 90 else text[:87] + '...'}", fontsize=11)
    fig.tight_layout()
    path = Path(path)
    save(fig, path, dpi)
    return path


def _exact_heads(heads):
    hs = as_heads(heads)
    if len(hs) < 2:
        raise InvalidInputError("plot_minkowski_heads needs at least two heads")
    if hs[0].dim not in (1, 2):
        raise InvalidInputError(f"the heads read R^{hs[0].dim}; the lifted polygons are drawn for d = 1 or 2 only")
    return hs


def plot_minkowski_heads(heads, path, box=None, dpi=120):
    """Two (or more) heads as a Minkowski sum beside the overlay of their power diagrams.

    Left: each head's lifted Newton polytope ``conv{(a_j, b_j)}`` with its upper faces;
    middle: their Minkowski sum (the lifted Newton polytope of ``G_1 ⊙ G_2``) with its
    upper faces, the upper vertices labelled by the tuple of keys ``(j_1, j_2, ...)``;
    right: the overlay of the heads' power diagrams, each region in the colour of its
    upper vertex and labelled by the same tuple (docs/THEORY.md §3).

    Parameters
    ----------
    heads : a list of heads (or a layer)
    path : str or Path
    box : None, R or (lo, hi)
        The window of the overlay (default :func:`tropattn.attention.default_box`).

    Returns
    -------
    pathlib.Path

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.attention import Head
    >>> heads = [Head([[0], [1]], [0, 0]), Head([[0], [1]], [0, -1])]       # walls x = 0 and x = 1
    >>> p = os.path.join(tempfile.mkdtemp(), "mink.png")
    >>> os.path.getsize(plot_minkowski_heads(heads, p)) > 0
    True
    """

    hs = _exact_heads(heads)
    d = hs[0].dim
    plt = pyplot()
    overlay, tuples = overlay_diagram(hs)
    palette = colors(max(len(tuples), 1))
    colour = {t: palette[i] for i, t in enumerate(tuples)}
    lifted = [[tuple(k) + (b,) for k, b in zip(h.keys, h.offsets)] for h in hs]
    labels = list(product(*[range(h.N) for h in hs]))
    sums = [tuple(sum(c) for c in zip(*[lifted[h][j] for h, j in enumerate(t)])) for t in labels]
    fig = plt.figure(figsize=(14, 4.8))
    proj = {"projection": "3d"} if d == 2 else {}
    ax0 = fig.add_subplot(1, 3, 1, **proj)
    ax1 = fig.add_subplot(1, 3, 2, **proj)
    ax2 = fig.add_subplot(1, 3, 3)
    head_colors = colors(len(hs))
    for h, pts in enumerate(lifted):
        _draw_upper(ax0, pts, [None] * len(pts), {}, d, face=head_colors[h],
                    names=[f"{h}:{j}" for j in range(len(pts))])
    ax0.legend(handles=[patches.Patch(color=head_colors[h], label=f"head {h} (points h:j)") for h in range(len(hs))],
               loc="upper left", fontsize=8)
    ax0.set_title("lifted Newton polytopes conv{(a_j, b_j)} of the heads", fontsize=10)
    n_up = _draw_upper(ax1, sums, labels, colour, d, face="lightgrey",
                       names=[",".join(map(str, t)) for t in labels])
    ax1.set_title(f"their Minkowski sum: {n_up} upper vertices", fontsize=10)
    for ax in (ax0, ax1):
        ax.set_xlabel("key coordinate a_1")
        if d == 2:
            ax.set_ylabel("key coordinate a_2")
            ax.set_zlabel("offset b")
        else:
            ax.set_ylabel("offset b")
    lo, hi = resolve_box(box, hs)
    n = draw_cells(ax2, overlay, lo, hi, [colour[t] for t in tuples], labels=tuples, sites=False)
    ax2.set_title(f"overlay of the {len(hs)} power diagrams: {n} regions in the box", fontsize=10)
    ax2.set_xlabel("query x_1")
    if d == 2:
        ax2.set_ylabel("query x_2")
    fig.suptitle("regions of a layer = upper vertices of the Minkowski sum of lifted Newton polytopes",
                 fontsize=11)
    fig.tight_layout()
    path = Path(path)
    save(fig, path, dpi)
    return path


def _draw_upper(ax, pts, labels, colour, d, face, names):
    """Draw the points, the upper faces of their hull, and label the upper vertices; returns their number."""
    hull = upper_hull(pts)
    P = np.array(pts, dtype=float)
    for cell in hull.cells:
        idx = sorted(cell)
        if d == 2 and len(idx) >= 3:
            order = _ordered([pts[i][:2] for i in idx])
            lookup = {tuple(np.array(pts[i][:2], dtype=float)): i for i in idx}
            poly = [P[lookup[tuple(q)]] for q in order]
            ax.add_collection3d(art3d.Poly3DCollection([poly], facecolor=face, edgecolor="k", lw=0.6, alpha=0.45))
        elif d == 1:
            seg = P[sorted(idx, key=lambda i: pts[i][0])]
            ax.plot(seg[[0, -1], 0], seg[[0, -1], 1], color="k" if isinstance(face, str) else face, lw=1.5)
    for i in hull.vertices:
        c = colour.get(labels[i], "k") if labels[i] is not None else "k"
        if d == 2:
            ax.scatter([P[i, 0]], [P[i, 1]], [P[i, 2]], color=[c], s=30, edgecolor="k", depthshade=False)
            ax.text(P[i, 0], P[i, 1], P[i, 2], " " + names[i], fontsize=7)
        else:
            ax.plot([P[i, 0]], [P[i, 1]], "o", color=c, mec="k", ms=8)
            ax.annotate(names[i], (P[i, 0], P[i, 1]), xytext=(4, 4), textcoords="offset points", fontsize=8)
    if d == 2:
        for k, name in enumerate(("x", "y", "z")):
            span = P[:, k].max() - P[:, k].min()
            getattr(ax, f"set_{name}lim")(P[:, k].min() - 0.1 * span - 0.1, P[:, k].max() + 0.1 * span + 0.1)
    else:
        ax.margins(0.15)
    return len(hull.vertices)
