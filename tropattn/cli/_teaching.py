"""``tropattn curve``: draw a tropical curve beside its dual subdivision (or a tropical surface)."""

from __future__ import annotations

from ..plot import plot_tropical_curve
from ..tropical import curve_edges
from ._common import BOX_HELP, add_command, emit, format_point as _point, format_rational as _fmt, parse_pair, registers
from ._polynomials import _load_polynomial

__all__ = ["curve_report", "register"]


def curve_report(poly, path) -> tuple[dict, list]:
    """The JSON object and text lines of ``tropattn curve``: walls with weights, vertices, the file.

    Parameters
    ----------
    poly : TropicalPolynomial
        A polynomial in two (or three) variables.
    path : str or Path
        The picture file (only named here; the caller draws it).

    Returns
    -------
    obj : dict
        The ``--json`` object: regions, walls (terms, weight, a point), vertices, picture.
    lines : list of str
        The text form.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> obj, _ = curve_report(parse_polynomial("max(0, x, y)"), "line.png")      # the tropical line
    >>> obj["regions"], [w["weight"] for w in obj["walls"]], obj["vertices"][0]["point"]
    (3, ['1', '1', '1'], ['0', '0'])
    """
    edges = curve_edges(poly)
    vertices = [c for c in poly.hypersurface_cells() if c.dim == 0]
    obj = {"polynomial": str(poly), "variables": list(poly.variables),
           "regions": len(poly.linear_regions()),
           "walls": [{"terms": list(e.ends), "weight": _fmt(e.weight),
                      "point": [_fmt(v) for v in e.cell.point]} for e in edges],
           "vertices": [{"terms": sorted(c.terms), "point": [_fmt(v) for v in c.point]} for c in vertices],
           "picture": str(path)}
    lines = [f"tropical {'curve' if poly.dim == 2 else 'surface'} of  {poly}",
             f"{obj['regions']} regions, {len(edges)} walls, {len(vertices)} vertices", "",
             "walls (terms on either side, weight = lattice length of the dual edge, a point on the wall):"]
    lines += [f"  {e.ends[0]} | {e.ends[1]}   weight {_fmt(e.weight)}   at {_point(e.cell.point)}" for e in edges]
    lines += ["", "vertices (terms tying there = a maximal cell of the subdivision):"]
    lines += [f"  {{{', '.join(map(str, sorted(c.terms)))}}}   at {_point(c.point)}" for c in vertices]
    lines += ["", f"wrote {path}"]
    return obj, lines


def cmd_curve(args):
    poly = _load_polynomial(args.poly)
    box = None if args.box is None else parse_pair(args.box, "--box")
    path = plot_tropical_curve(poly, args.output, box=box)
    obj, lines = curve_report(poly, path)
    emit(obj, args.json, lines)


@registers("``curve``", "curve")
def register(sub):
    s = add_command(sub, "curve", cmd_curve, "draw a tropical curve beside its dual subdivision (d = 2), "
                    "or a tropical surface (d = 3)", examples=(
                        'tropattn curve "max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)" -o conic.png',
                        'tropattn curve "max(0, x, y, z)" -o plane.svg --box -3 3 --json'))
    s.add_argument("poly", help='a string such as "max(0, x, y)" or a JSON file')
    s.add_argument("-o", "--output", required=True, help="picture file: FILE.png, FILE.svg, FILE.pdf")
    s.add_argument("--box", default=None, help=BOX_HELP + " (default: around the vertices)")
