"""``tropattn curve``: draw a tropical curve beside its dual subdivision (or a tropical surface)."""

from __future__ import annotations

from ..errors import InvalidInputError
from ..plot import curve_box, plot_tropical_curve
from ..tropical import curve_edges
from ._common import (BOX_HELP, FLOAT_LIMIT, add_command, emit, format_point as _point, format_rational as _fmt,
                      parse_float_pair, registers)
from ._polynomials import _load_polynomial

__all__ = ["curve_report", "check_drawable", "register"]


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


def check_drawable(poly) -> None:
    """Refuse a polynomial whose picture floats cannot draw: an exponent, coefficient or vertex beyond ±1e300.

    The regions and walls are exact (``tropattn regions`` prints them for any size); only
    the picture is drawn in floating point.

    Parameters
    ----------
    poly : TropicalPolynomial

    Returns
    -------
    None

    Raises
    ------
    InvalidInputError
        Naming the term (or the vertex) that is too large.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> check_drawable(parse_polynomial("max(0, x + 1e400, y)"))
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: poly: term [1] has an exponent or coefficient beyond ±1e300, which the picture (drawn in floating point) cannot show; tropattn regions gives its exact regions
    """
    for i, (e, c) in enumerate(zip(poly.exponents, poly.coefficients)):
        if max(abs(v) for v in (*e, c)) > FLOAT_LIMIT:
            raise InvalidInputError(f"poly: term [{i}] has an exponent or coefficient beyond ±1e300, which the picture "
                                    "(drawn in floating point) cannot show; tropattn regions gives its exact regions")
    for c in poly.hypersurface_cells():
        if max(abs(v) for v in c.point) > FLOAT_LIMIT:
            raise InvalidInputError(f"poly: the curve has a vertex or wall point beyond ±1e300 (where the terms "
                                    f"{sorted(c.terms)} tie), which the picture (drawn in floating point) cannot "
                                    "show; tropattn regions gives its exact regions")


def check_resolvable(box, what) -> None:
    """Refuse a window too narrow for its distance from 0 to be drawn in floats (``1e299 ± 1`` is one float).

    Parameters
    ----------
    box : (lo, hi)
        Exact corners.
    what : str
        The window's name for the message.

    Returns
    -------
    None

    Raises
    ------
    InvalidInputError
        If some side is shorter than ``1e-9`` of its largest coordinate.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> check_resolvable(((F(10) ** 20, F(0)), (F(10) ** 20 + 1, F(1))), "--box")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: --box: x-side 1 is too narrow for coordinates near 1e20 to be drawn in floating point; give --box LO,HI with HI - LO at least 1e-9 * max(|LO|, |HI|)
    """
    for i, (a, b) in enumerate(zip(*box)):
        size = max(abs(a), abs(b))
        if b - a < size / 10 ** 9:
            raise InvalidInputError(f"{what}: {'xyz'[i]}-side {_fmt(b - a)} is too narrow for coordinates near "
                                    f"1e{len(str(int(size))) - 1} to be drawn in floating point; give --box LO,HI "
                                    "with HI - LO at least 1e-9 * max(|LO|, |HI|)")


def cmd_curve(args):
    poly = _load_polynomial(args.poly)
    check_drawable(poly)
    box = None if args.box is None else parse_float_pair(args.box, "--box")
    check_resolvable(curve_box(poly, box), "--box" if box else "the default window (around the vertices)")
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
    s.add_argument("--box", default=None, help=BOX_HELP + " (default: the vertices and a margin of half their span, at least 1)")
