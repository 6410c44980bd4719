"""Interactive 3-D pictures with Plotly: a self-contained HTML file a reader can turn (d = 3).

What is drawn, one ``Mesh3d`` trace per exact cell:

* a head or a :class:`~tropattn.geometry.PowerDiagram` in ``R^3``: its power cells;
* a :class:`~tropattn.tropical.TropicalPolynomial` in three variables: its linear regions, whose
  walls are the tropical surface;
* a :class:`~tropattn.geometry.Polytope` in ``R^3`` (e.g. a lifted Newton polytope,
  :func:`tropattn.tropical.lifted_polytope` of a polynomial in two variables): the polytope;
* a :class:`~tropattn.regions.RegionSet` of a 3-D model or slice (regions kept), or the model
  itself (searched here): its activation regions.

Each cell is cut to the box exactly (:meth:`tropattn.geometry.Polytope.from_inequalities`) and its
boundary triangulated exactly (the vertices of each facet ordered by cross products); only the
corners handed to Plotly are floats.  With no box given, the box grows until every cell has
interior in it, so the number of meshes is the number of cells.  Plotly is the optional extra
``plotly`` (imported on first use); the HTML embeds plotly.js, so it opens without a network.

>>> from tropattn.attention import Head
>>> fig = plotly_figure(Head([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]))   # four cones around the origin
>>> [t.type for t in fig.data]
['mesh3d', 'mesh3d', 'mesh3d', 'mesh3d']
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from .._display import convex_order, palette
from .._lazy import lazy_import
from .._validate import choice
from ..attention import default_box, resolve_box
from ..errors import InvalidInputError
from ..geometry import Polytope, PowerDiagram
from ..regions import enumerate_regions
from ._common import as_diagram, as_head, save
from ._curves import plot_tropical_curve
from ._power import plot_power_diagram

go = lazy_import("plotly.graph_objects", extra="plotly")

__all__ = ["plotly_figure", "plot_3d", "plot", "cell_polytopes", "mesh_triangles", "BACKENDS"]

#: The backends of :func:`plot`.
BACKENDS = ("matplotlib", "plotly")


def _box_rows(lo, hi):
    A, b = [], []
    for i in range(len(lo)):
        e = [Fraction(int(i == j)) for j in range(len(lo))]
        A += [e, [-v for v in e]]
        b += [Fraction(hi[i]), -Fraction(lo[i])]
    return A, b


def _cut(A, b, lo, hi):
    """The full-dimensional polytope ``{A x <= b} ∩ box``, or None when it has no interior there."""
    BA, Bb = _box_rows(lo, hi)
    try:
        P = Polytope.from_inequalities([list(r) for r in A] + BA, list(b) + Bb)
    except InvalidInputError:                 # certified empty
        return None
    return P if P.dim == len(lo) else None


def _diagram_cells(diagram, box):
    """(labels, polytopes, lo, hi) of the nonempty power cells, in a box that meets all of them."""
    cells = [c for c in diagram.cells() if c is not None]
    if box is not None:
        lo, hi = resolve_box(box, [as_head(diagram)])
    else:
        lo, hi = default_box([as_head(diagram)])
    for _ in range(60):
        lo_q, hi_q = [Fraction(float(v)) for v in lo], [Fraction(float(v)) for v in hi]
        cut = [(f"cell of site {c.site}", _cut(c.A, c.b, lo_q, hi_q)) for c in cells]
        if box is not None or all(P is not None for _, P in cut):
            break
        lo, hi = lo * 1.5, hi * 1.5
    return [(label, P) for label, P in cut if P is not None], lo_q, hi_q


def cell_polytopes(obj, box=None) -> tuple:
    """The exact cells of a 3-D object, cut to a box: ``(cells, lo, hi, title)``.

    Parameters
    ----------
    obj : Head, PowerDiagram, head form, TropicalPolynomial, Polytope, RegionSet or model
        Something in ``R^3`` (see the module docstring); a model (e.g. ``slice_model(T, x0, U)``
        with three directions) is searched with :func:`~tropattn.regions.enumerate_regions`.
    box : None, R or (lo, hi), optional
        The window; None grows a box until every cell has interior in it (a polytope is shown whole;
        a RegionSet is shown in the box around its interior points, widened by 1; a model is
        searched in this box).

    Returns
    -------
    cells : list of (str, Polytope)
        A label and the exact cut polytope of each cell.
    lo, hi : list of Fraction
        The box.
    title : str
        What is shown.

    Raises
    ------
    InvalidInputError
        If the object does not live in ``R^3``, or a RegionSet did not keep its regions.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> cells, lo, hi, title = cell_polytopes(parse_polynomial("max(0, x, y, z)"))   # a tropical plane
    >>> len(cells), title
    (4, 'tropical surface of max(0, x, y, z): 4 linear regions')
    """
    if isinstance(obj, Polytope):
        _need_3d(obj.ambient_dim, "this polytope")
        lo = [min(v[i] for v in obj.vertices) for i in range(3)]
        hi = [max(v[i] for v in obj.vertices) for i in range(3)]
        return [("polytope", obj)], lo, hi, f"{obj.dim}-dimensional polytope, {obj.vertex_count} vertices"
    if hasattr(obj, "layers") and hasattr(obj, "evaluate"):       # a model, e.g. a 3-D slice of a deep one
        _need_3d(obj.dim, "this model")
        obj = enumerate_regions(obj, box=None if box is None else _region_box(box))
    if hasattr(obj, "activation_regions") and hasattr(obj, "n_linear"):
        return _region_cells(obj, None if box is None else _region_box(box))
    if hasattr(obj, "exponents") and hasattr(obj, "coefficients"):
        _need_3d(obj.dim, "this polynomial")
        cells, lo, hi = _diagram_cells(PowerDiagram.from_max_affine(obj.exponents, obj.coefficients), box)
        return cells, lo, hi, f"tropical surface of {obj}: {len(cells)} linear regions"
    diagram = as_diagram(obj)
    _need_3d(diagram.dim, "this head")
    cells, lo, hi = _diagram_cells(diagram, box)
    return cells, lo, hi, f"power diagram: {len(cells)} cells of {diagram.N} sites"


def _region_box(box):
    """The box ``(lo, hi)`` of a plot box for regions in R^3: a number R is [-R, R]^3 (exact corners)."""
    if isinstance(box, (int, float, str, Fraction)):
        box = (-abs(Fraction(box)), abs(Fraction(box)))
    lo, hi = box
    return tuple([Fraction(c)] * 3 if not isinstance(c, (list, tuple)) else [Fraction(v) for v in c] for c in (lo, hi))


def _region_cells(result, box):
    regions = result.activation_regions
    if not regions:
        raise InvalidInputError("this RegionSet has no regions to draw")
    _need_3d(len(regions[0].interior_point), "these regions")
    points = [r.interior_point for r in regions]
    lo, hi = box if box is not None else ([min(p[i] for p in points) - 1 for i in range(3)],
                                          [max(p[i] for p in points) + 1 for i in range(3)])
    cells = [(f"region {i}: pattern {r.pattern}", _cut(r.A, r.b, lo, hi)) for i, r in enumerate(regions)]
    cells = [(label, P) for label, P in cells if P is not None]
    return cells, lo, hi, f"{result.n_activation} activation regions, {result.n_linear} linear regions"


def _need_3d(d, what):
    if d != 3:
        raise InvalidInputError(f"{what} lives in R^{d}; the interactive 3-D picture needs d = 3 "
                                "(for d = 1 or 2 use backend='matplotlib', or the notebook's SVG)")


def mesh_triangles(P) -> tuple:
    """The boundary of a 3-D polytope (or a polygon in ``R^3``) as triangles, exactly.

    The vertices on each facet are ordered by cross products in the facet's plane (projected
    along a coordinate its normal does not vanish on), turned counter-clockwise as seen from
    outside, and fanned from the first: the triangles of a 3-D polytope face outwards.

    Parameters
    ----------
    P : Polytope
        ``ambient_dim == 3`` and ``dim`` 2 or 3.

    Returns
    -------
    vertices : tuple of tuple of Fraction
        ``P.vertices``.
    triangles : list of (int, int, int)
        Indices into ``vertices``.

    Examples
    --------
    >>> cube = Polytope.from_points([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)])
    >>> len(mesh_triangles(cube)[1])              # 6 squares, 2 triangles each
    12
    """
    V = P.vertices
    planes = P.facets if P.dim == 3 else P.equations[:1] if P.dim == 2 else ()
    triangles = []
    for normal, offset in planes:
        on = [i for i, v in enumerate(V) if sum(a * x for a, x in zip(normal, v)) == offset]
        drop = max(range(3), key=lambda c: abs(normal[c]))
        where = {tuple(V[i][c] for c in range(3) if c != drop): i for i in on}
        ring = [where[p] for p in convex_order(list(where))]
        if len(ring) >= 3 and _dot(_cross(V[ring[0]], V[ring[1]], V[ring[2]]), normal) < 0:
            ring.reverse()                    # counter-clockwise seen from outside: outward triangles
        triangles += [(ring[0], ring[k], ring[k + 1]) for k in range(1, len(ring) - 1)]
    return V, triangles


def _cross(o, p, q):
    u = [p[c] - o[c] for c in range(3)]
    v = [q[c] - o[c] for c in range(3)]
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def plotly_figure(obj, box=None, title=None):
    """A Plotly figure with one ``Mesh3d`` per exact cell of a 3-D object (see :func:`cell_polytopes`).

    Parameters
    ----------
    obj : Head, PowerDiagram, head form, TropicalPolynomial, Polytope or RegionSet
        In ``R^3``.
    box : None, R or (lo, hi), optional
        The window (default: one that meets every cell).
    title : str, optional
        The figure title (default: what is shown and how many cells).

    Returns
    -------
    plotly.graph_objects.Figure

    Raises
    ------
    InvalidInputError
        Not in ``R^3``.
    MissingDependencyError
        Without plotly (``pip install 'tropattn[plotly]'``).

    Examples
    --------
    >>> from tropattn.geometry import Polytope
    >>> fig = plotly_figure(Polytope.from_points([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    >>> len(fig.data), len(fig.data[0].i)         # one mesh, four triangles
    (1, 4)
    """
    cells, lo, hi, what = cell_polytopes(obj, box)
    traces = []
    for (label, P), colour in zip(cells, palette(len(cells))):
        V, T = mesh_triangles(P)
        x, y, z = ([float(v[c]) for v in V] for c in range(3))
        traces.append(go.Mesh3d(x=x, y=y, z=z, i=[t[0] for t in T], j=[t[1] for t in T], k=[t[2] for t in T],
                                color=colour, opacity=0.55, flatshading=True, name=label, hovertext=label,
                                hoverinfo="text", showlegend=len(cells) <= 20))
    fig = go.Figure(traces)
    fig.update_layout(title=title or f"{what} (exact cells, drawn in floats)",
                      scene=dict(aspectmode="cube", xaxis_title="x_1", yaxis_title="x_2", zaxis_title="x_3",
                                 xaxis_range=[float(lo[0]), float(hi[0])], yaxis_range=[float(lo[1]), float(hi[1])],
                                 zaxis_range=[float(lo[2]), float(hi[2])]))
    return fig


def plot_3d(obj, path, box=None, title=None):
    """Write :func:`plotly_figure` as a self-contained HTML file (plotly.js embedded, no network needed).

    Parameters
    ----------
    obj : Head, PowerDiagram, head form, TropicalPolynomial, Polytope or RegionSet
        In ``R^3``.
    path : str or Path
        The ``.html`` file.
    box : None, R or (lo, hi), optional
        The window.
    title : str, optional
        The figure title.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidInputError
        Not in ``R^3``, a path not ending in ``.html``, or an unwritable path.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.tropical import parse_polynomial
    >>> path = plot_3d(parse_polynomial("max(0, x, y, z)"), os.path.join(tempfile.mkdtemp(), "plane.html"))
    >>> "plotly" in path.read_text()[:5000].lower()
    True
    """
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise InvalidInputError(f"cannot write {path}: the interactive picture is an HTML file; name it FILE.html")
    fig = plotly_figure(obj, box, title)
    try:
        fig.write_html(str(path), include_plotlyjs=True, full_html=True)
    except OSError as exc:
        raise InvalidInputError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def plot(obj, path, box=None, backend="matplotlib", title=None):
    """Draw a head, a diagram, a polynomial, a polytope or regions to a file, with either backend.

    ``backend="plotly"``: the interactive 3-D HTML of :func:`plot_3d` (d = 3).
    ``backend="matplotlib"``: the static picture (d = 1, 2; a polynomial also d = 3) of
    :func:`~tropattn.plot.plot_power_diagram` or :func:`~tropattn.plot.plot_tropical_curve`.

    Parameters
    ----------
    obj : Head, PowerDiagram, head form, TropicalPolynomial, Polytope or RegionSet
        What to draw.
    path : str or Path
        The file (``.html`` for plotly; ``.png``, ``.svg``, ... for matplotlib).
    box : None, R or (lo, hi), optional
        The window.
    backend : {"matplotlib", "plotly"}, optional
        Static picture or interactive 3-D page.
    title : str, optional
        The title.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    InvalidInputError
        An unknown backend, or an object the backend does not draw.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.attention import Head
    >>> folder = tempfile.mkdtemp()
    >>> plot(Head([[0, 0, 0], [1, 0, 0], [0, 1, 0]]), os.path.join(folder, "h.html"), backend="plotly").suffix
    '.html'
    >>> plot(Head([[0, 0], [1, 0], [0, 1]]), os.path.join(folder, "h.png")).suffix
    '.png'
    """
    choice(backend, "backend", BACKENDS, "plotly writes an interactive 3-D HTML page, matplotlib a static picture")
    if backend == "plotly":
        return plot_3d(obj, path, box, title)
    return _static(obj, path, box, title)


def _static(obj, path, box, title):
    if hasattr(obj, "exponents") and hasattr(obj, "coefficients"):
        return plot_tropical_curve(obj, path, box)
    if isinstance(obj, Polytope) or hasattr(obj, "activation_regions"):
        raise InvalidInputError("backend='matplotlib' draws heads, power diagrams and polynomials; draw a polytope "
                                "or regions in R^3 with backend='plotly' (in the plane a notebook shows them as SVG)")
    ax = plot_power_diagram(obj, box, title=title)
    save(ax.figure, path, 120)
    return Path(path)
