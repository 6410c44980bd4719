"""``tropattn regions``: a tropical polynomial's regions, redundant terms and dual subdivision."""

from __future__ import annotations

from pathlib import Path

from ..exact import load_json
from ..tropical import parse_polynomial, polynomial_from_json
from ._common import add_command, emit, format_point as _point, format_rational as _fmt, registers

__all__ = ["DEMO_POLYNOMIAL", "polynomial_report", "register"]

DEMO_POLYNOMIAL = "max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)"  # the conic 3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y²


def _load_polynomial(text):

    if text.endswith(".json") or _is_file(text):
        return polynomial_from_json(load_json(text))
    return parse_polynomial(text)


def _is_file(text) -> bool:
    """Whether ``text`` names an existing file (a polynomial longer than a file name never does)."""
    try:
        return Path(text).is_file()
    except (OSError, ValueError):
        return False


def polynomial_report(poly) -> tuple[dict, list]:
    """What ``tropattn regions`` prints: terms, linear regions, redundant terms, dual subdivision.

    Parameters
    ----------
    poly : TropicalPolynomial
        The polynomial.

    Returns
    -------
    obj : dict
        The ``--json`` object (exact numbers as ``"p/q"`` strings).
    lines : list of str
        The text form.

    Examples
    --------
    >>> from tropattn.tropical import parse_polynomial
    >>> obj, lines = polynomial_report(parse_polynomial("max(0, x, 2*x - 1)"))     # 2x - 1 wins for x > 1
    >>> obj["linear_regions"], obj["redundant_terms"], lines[0]
    (3, [], 'tropical polynomial  max(0, x, 2*x - 1)')
    """
    regions = poly.linear_regions()
    redundant = list(poly.redundant_terms())
    cells = [sorted(c) for c in poly.dual_subdivision()]
    terms = [{"index": i, "exponent": [_fmt(v) for v in e], "coefficient": _fmt(c)}
             for i, (e, c) in enumerate(zip(poly.exponents, poly.coefficients))]
    obj = {"polynomial": str(poly), "variables": list(poly.variables), "terms": terms,
           "linear_regions": len(regions),
           "regions": [{"term": r.term, "interior_point": [_fmt(v) for v in r.interior_point],
                        "inequalities": [{"normal": [_fmt(v) for v in a], "offset": _fmt(b)}
                                         for a, b in zip(r.A, r.b)]} for r in regions],
           "redundant_terms": redundant, "dual_subdivision": cells}
    names = poly.variables
    lines = [f"tropical polynomial  {poly}", "", "terms c ⊙ x^α (the affine function c + α·x):"]
    for t, e, c in zip(terms, poly.exponents, poly.coefficients):
        mark = "   (redundant: attains the max on no open set)" if t["index"] in redundant else ""
        lines.append(f"  [{t['index']}] {_monomial(c, e, names)}{mark}")
    lines += ["", f"linear regions: {len(regions)} (one per non-redundant term; exact interior points)"]
    for r in regions:
        lines.append(f"  term {r.term}: interior point {_point(r.interior_point)}, {len(r.A)} facets")
    lines += ["", f"dual subdivision of the Newton polytope: {len(cells)} maximal cells (term indices)"]
    lines += [f"  {{{', '.join(map(str, c))}}}" for c in cells]
    return obj, lines


def _monomial(coefficient, exponent, names) -> str:
    """``3 ⊙ x ⊙ y²``: a tropical monomial in the usual notation."""
    sup = str.maketrans("0123456789-/", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᐟ")
    factors = [_fmt(coefficient)]
    for name, e in zip(names, exponent):
        if e != 0:
            factors.append(name if e == 1 else name + _fmt(e).translate(sup))
    return " ⊙ ".join(factors)


def cmd_regions(args):
    poly = _load_polynomial(args.poly)
    obj, lines = polynomial_report(poly)
    emit(obj, args.json, lines)


@registers("``regions``", "regions")
def register(sub):
    s = add_command(sub, "regions", cmd_regions, "linear regions of a tropical polynomial", examples=(
        'tropattn regions "max(0, x + 1, 2*y - 1/2)"', "tropattn regions examples/poly.json --json"))
    s.add_argument("poly", help='a string such as "max(0, x + 1, 2*y - 1/2)" or a JSON file')
