"""The tropattn command line: a thin shell over the public functions.

Every sub-command prints a readable table, or one JSON object with ``--json``.  Bad
input prints one line ``tropattn: error: ...`` naming the problem (for model files,
its JSON path) and exits with status 2; Ctrl-C exits with status 130 after printing
what was found so far.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from fractions import Fraction
from pathlib import Path

from .attention import count_dual, random_model, sawtooth_model
from .errors import Interrupted, InvalidInputError, TropattnError
from .exact import format_point as _point, format_rational as _fmt, to_rational
from .geometry import PowerDiagram
from .io import load_json, load_model, load_sites
from .plot import plot_overlay, plot_soft_weights
from .region_bounds import bounds
from .regions import enumerate_regions
from .table import write_region_table
from .temperature import convention_check, stability_report
from .tropical import parse_polynomial, polynomial_from_json

__all__ = ["main", "build_parser"]

DEMO_POLYNOMIAL = "max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)"  # the conic 3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y²


def _emit(obj, as_json: bool, text_lines):
    if as_json:
        print(json.dumps(obj, indent=1, default=_json_default))
    else:
        print("\n".join(text_lines))


def _json_default(x):
    if isinstance(x, Fraction):
        return _fmt(x)
    if isinstance(x, (set, frozenset, tuple)):
        return sorted(x) if isinstance(x, (set, frozenset)) else list(x)
    raise TypeError(f"not JSON serialisable: {type(x).__name__}")


def _parse_pair(text, what):

    parts = text.split(",")
    if len(parts) != 2:
        raise InvalidInputError(f"{what} must look like LO,HI (e.g. -2,2 or -1/2,3/2); got {text!r}")
    lo, hi = (to_rational(t, what) for t in parts)
    if not lo < hi:
        raise InvalidInputError(f"{what} needs LO < HI; got {_fmt(lo)},{_fmt(hi)}")
    return lo, hi


# ------------------------------------------------------------------ polynomials
def _load_polynomial(text):

    if text.endswith(".json") or Path(text).is_file():
        return polynomial_from_json(load_json(text))
    return parse_polynomial(text)


def _polynomial_report(poly) -> tuple[dict, list]:
    regions = poly.linear_regions()
    redundant = list(poly.redundant_terms())
    cells = [sorted(c) for c in poly.dual_subdivision()]
    terms = [{"index": i, "exponent": [_fmt(v) for v in e], "coefficient": _fmt(c)}
             for i, (e, c) in enumerate(zip(poly.exponents, poly.coefficients))]
    obj = {"polynomial": str(poly.to_sympy()), "variables": list(poly.variables), "terms": terms,
           "linear_regions": len(regions),
           "regions": [{"term": r.term, "interior_point": [_fmt(v) for v in r.interior_point],
                        "inequalities": [{"normal": [_fmt(v) for v in a], "offset": _fmt(b)}
                                         for a, b in zip(r.A, r.b)]} for r in regions],
           "redundant_terms": redundant, "dual_subdivision": cells}
    names = poly.variables
    lines = [f"tropical polynomial  {poly.to_sympy()}", "", "terms c ⊙ x^α (the affine function c + α·x):"]
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
    obj, lines = _polynomial_report(poly)
    _emit(obj, args.json, lines)


# ------------------------------------------------------------------ models
def _model_summary(model):
    return {"dim": model.dim, "layers": len(model.layers),
            "heads": [len(l.heads) for l in model.layers],
            "keys": [[len(h.keys) for h in l.heads] for l in model.layers]}


def count_model(model, method="primal", box=None, progress=None, workers=1) -> dict:
    """Exact region counts of a model as a JSON-ready dict (what ``tropattn count`` prints).

    >>> from tropattn.attention import sawtooth_model
    >>> out = count_model(sawtooth_model(1, 3, 2))
    >>> out["activation_regions"], out["linear_regions"], out["method"]
    (9, 9, 'primal')
    """

    t0 = time.perf_counter()
    out = _model_summary(model)
    if method == "dual":
        if len(model.layers) != 1 or box is not None:
            raise InvalidInputError("--method dual counts one layer over all of R^d; use --method primal for "
                                    "several layers or a box")

        n = count_dual(model.layers[0].heads)
        out.update(activation_regions=n, linear_regions=None, method="dual")
    else:
        result = enumerate_regions(model, box=box, progress=progress, workers=workers)
        out.update(activation_regions=len(result.activation_regions),
                   linear_regions=len(result.linear_regions), method="primal",
                   certificates=result.counters)
    out["box"] = None if box is None else [_fmt(box[0]), _fmt(box[1])]
    out["seconds"] = round(time.perf_counter() - t0, 4)
    return out


def cmd_count(args):

    model = load_model(args.model)
    box = _parse_pair(args.box, "--box") if args.box else None
    try:
        out = count_model(model, args.method, box, workers=args.workers)
    except Interrupted as exc:
        partial = exc.partial
        print(json.dumps({"interrupted": True, "activation_regions_so_far": len(partial.activation_regions)}))
        raise
    lines = [f"model: d = {out['dim']}, {out['layers']} layer(s), heads per layer {out['heads']}",
             f"method: {out['method']}" + (f", box {out['box']}" if out["box"] else ", all of R^d"),
             f"activation regions: {out['activation_regions']}"]
    lines.append(f"linear regions:     {out['linear_regions']}" if out["linear_regions"] is not None
                 else "linear regions:     not computed by the dual method (use --method primal)")
    lines.append(f"time: {out['seconds']} s")
    _emit(out, args.json, lines)


def cmd_power(args):

    sites, weights = load_sites(args.sites)
    diagram = PowerDiagram(sites, weights)
    cells = diagram.cells()
    adjacency = sorted(tuple(sorted(e)) for e in diagram.adjacency_graph().edges)
    obj = {"sites": len(sites), "dim": len(sites[0]), "nonempty": list(diagram.nonempty),
           "hidden": list(diagram.hidden), "adjacency": [list(e) for e in adjacency],
           "cells": [None if c is None else {"site": c.site, "interior_point": [_fmt(v) for v in c.interior_point],
                                             "neighbors": list(c.neighbors)} for c in cells]}
    lines = [f"power diagram of {len(sites)} sites in R^{len(sites[0])}",
             f"nonempty cells: {len(diagram.nonempty)}   hidden: {list(diagram.hidden)}",
             f"adjacent pairs: {len(adjacency)}"]
    for c in cells:
        if c is not None:
            lines.append(f"  site {c.site}: neighbours {list(c.neighbors)}, interior point {_point(c.interior_point)}")
    _emit(obj, args.json, lines)


def cmd_diagram(args):

    model = load_model(args.model)
    if len(model.layers) != 1:
        raise InvalidInputError(f"diagram draws one layer; the model has {len(model.layers)} layers")
    box = _parse_pair(args.box, "--box") if args.box else None
    plot_overlay(model.layers[0].heads, box, args.output)
    print(f"wrote {args.output}")


def cmd_bounds(args):

    b = bounds(args.dim, args.heads, args.keys, args.layers)
    obj = b.as_dict()
    lines = [f"d = {b.dim}, H = {b.heads}, N = {b.keys}, L = {b.layers}",
             f"  single head (per layer):        {b.single_head}",
             f"  product N^H (per layer):        {b.product}" +
             ("" if b.product_attainable else "   (not attainable: H > d)"),
             f"  hyperplane arrangement bound:   {b.arrangement}"]
    if b.line is not None:
        lines.append(f"  line bound H(N-1)+1:            {b.line}")
    lines += [f"  per-layer upper bound (min):    {b.per_layer}",
              f"  deep upper bound (per-layer^L): {b.deep}",
              f"  deep product (N^H)^L:           {b.deep_product}",
              f"  lower bound (construction):     {b.lower}  = N^(min(H,d)·L)"]
    _emit(obj, args.json, lines)


def cmd_table(args):

    if args.seeds < 0:
        raise InvalidInputError(f"--seeds must be 0 or more; got {args.seeds}")

    path = write_region_table(args.output, quick=args.quick, seeds=args.seeds)
    print(f"wrote {path}")


def cmd_stability(args):

    model = load_model(args.model)
    if len(model.layers) != 1:
        raise InvalidInputError(f"stability measures one attention layer; the model has {len(model.layers)} "
                                "layers (save the layer you want as a one-layer model)")
    layer = model.layers[0]
    try:
        taus = [float(Fraction(t)) for t in args.taus.split(",")]
    except (ValueError, ZeroDivisionError):
        raise InvalidInputError(f"--taus must be comma-separated numbers such as 0.05,0.2,1; got {args.taus!r}") from None
    box = _parse_pair(args.box, "--box") if args.box else None
    report = stability_report(layer, taus=taus, delta=args.delta, box=box)
    lines = [f"soft vs hard attention ({report['scope']}), delta = {report['delta']:.4g}, "
             f"{report['n_samples']} samples in the box",
             f"{'tau':>8} {'max defect':>12} {'bound':>12} {'ratio':>8} {'below eps':>10} {'band':>9} {'pred.':>9}"]
    def num(v, spec, width):
        return f"{'inf' if v is None else format(v, spec):>{width}}"

    for r in report["rows"]:
        lines.append(" ".join([num(r["tau"], ".4g", 8), num(r["max_defect"], ".4e", 12), num(r["bound"], ".4e", 12),
                               num(r["ratio"], ".4f", 8), num(r["fraction_below_eps"], ".3f", 10),
                               num(r["band_width"], ".4f", 9), num(r["band_width_predicted"], ".4f", 9)]))
    lines.append("every measured defect is within its bound" if report["within_bounds"]
                 else "WARNING: a measured defect exceeds its bound")
    if args.plot:

        plot_soft_weights(layer.heads[0], taus, box, args.plot)
        lines.append(f"wrote {args.plot}")
    _emit(report, args.json, lines)


def cmd_conventions(args):
    import math

    if not (math.isfinite(args.margin) and args.margin > 0):
        raise InvalidInputError(f"--margin must be a positive finite score margin; got {args.margin}")
    if args.dk < 1 or args.keys < 2:
        raise InvalidInputError(f"--dk must be >= 1 and --keys >= 2; got --dk {args.dk} --keys {args.keys}")

    c = convention_check(args.margin, args.dk, args.keys)
    lines = [f"raw score margin Delta = {c['raw_margin']:g} on q.k, d_k = {c['d_k']}, {c['n_keys']} keys "
             "(the other keys tied at the margin: the worst case)"]
    for name, label in (("paper", "paper's convention (tau = 1/sqrt(d_k))"),
                        ("standard", "standard attention (tau = sqrt(d_k))")):
        r = c[name]
        lines.append(f"  {label:<42} tau = {r['tau']:<6g} e^(-Delta/tau) = e^({r['exponent']:g}) = "
                     f"{r['e_exponent']:.3e}   1 - p* = {r['weight_defect']:.3e}")
    lines.append(f"the paper's softmax is {c['sharpness']:g} times sharper than the one transformers use")
    _emit(c, args.json, lines)


def cmd_demo(args):

    _, lines = _polynomial_report(parse_polynomial(DEMO_POLYNOMIAL))
    print("== 1. A tropical polynomial: the plane conic 3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y² ==")
    print("\n".join(lines))
    print()
    print("== 2. A small hard-attention transformer: exact regions beside the bounds ==")
    d, n, L = 2, 3, 2
    model = sawtooth_model(d, n, L)
    out = count_model(model)
    b = bounds(d, d, n, L)
    print(f"sawtooth model (THEORY §4): d = {d}, H = {d} heads/layer, N = {n} keys, L = {L} layers")
    print(f"  exact activation regions: {out['activation_regions']}   linear regions: {out['linear_regions']}"
          f"   ({out['seconds']} s)")
    print(f"  lower bound N^(dL) = {b.lower}   upper bound (per-layer bound)^L = {b.deep}"
          f"   paper's (N^H)^L = {b.deep_product}")

    model = random_model(1, 3, 3, seed=0)
    out = count_model(model)
    b = bounds(1, 3, 3, 1)
    print(f"random 1-layer model, d = 1, H = 3 heads > d, N = 3: exact {out['activation_regions']} regions;"
          f" N^H = {b.product} is not attainable, H(N-1)+1 = {b.line}")


def _command(sub, name, func, help_text, json_output=True):
    """One sub-command: its parser, its handler, and ``--json`` where it prints a result."""
    parser = sub.add_parser(name, help=help_text)
    parser.set_defaults(func=func)
    if json_output:
        parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tropattn", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    _command(sub, "demo", cmd_demo, "run the main job on a built-in example", json_output=False)
    s = _command(sub, "regions", cmd_regions, "linear regions of a tropical polynomial")
    s.add_argument("poly", help='a string such as "max(0, x + 1, 2*y - 1/2)" or a JSON file')
    s = _command(sub, "count", cmd_count, "exact region count of a model file")
    s.add_argument("model")
    s.add_argument("--method", choices=("primal", "dual"), default="primal")
    s.add_argument("--box", help="LO,HI: count inside [LO, HI]^d")
    s.add_argument("--workers", type=int, default=1, help="processes for the primal search (default 1)")
    s = _command(sub, "power", cmd_power, "power diagram of weighted sites")
    s.add_argument("sites")
    s = _command(sub, "diagram", cmd_diagram, "draw each head's power cells and their overlay (d <= 2)",
                 json_output=False)
    s.add_argument("model")
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--box", help="LO,HI")
    s = _command(sub, "bounds", cmd_bounds, "upper and lower bounds for a shape")
    for flag in ("--dim", "--heads", "--keys"):
        s.add_argument(flag, type=int, required=True)
    s.add_argument("--layers", type=int, default=1)
    s = _command(sub, "table", cmd_table, "regenerate data/region_counts.csv", json_output=False)
    s.add_argument("-o", "--output", default="data/region_counts.csv")
    s.add_argument("--seeds", type=int, default=3)
    s.add_argument("--quick", action="store_true", help="a smaller grid (for tests)")
    s = _command(sub, "conventions", cmd_conventions,
                 "the paper's temperature convention against standard attention")
    s.add_argument("--margin", type=float, default=2.0, help="raw score margin on q.k (default 2)")
    s.add_argument("--dk", type=int, default=64, help="key dimension d_k (default 64)")
    s.add_argument("--keys", type=int, default=2, help="number of keys N (default 2)")
    s = _command(sub, "stability", cmd_stability, "soft attention against the hard skeleton")
    s.add_argument("model")
    s.add_argument("--taus", default="0.05,0.2,1")
    s.add_argument("--delta", type=float, default=None, help="keep points this far from every wall "
                   "(default: 2%% of the box side)")
    s.add_argument("--box", help="LO,HI")
    s.add_argument("--plot", help="draw the soft weights of the first head (d <= 2) to this PNG")
    return p


def main(argv=None) -> int:
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)  # exact answers may have more than 4,300 digits; print them all
    args = build_parser().parse_args(argv)
    try:
        args.func(args)
    except Interrupted as exc:
        print(f"tropattn: interrupted: {exc}", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("tropattn: interrupted", file=sys.stderr)
        return 130
    except TropattnError as exc:
        print(f"tropattn: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # unreadable model, unwritable output path
        where = f": {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"tropattn: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
