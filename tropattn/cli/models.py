"""Sub-commands on model files and shapes: ``count``, ``power``, ``diagram``, ``bounds``, ``table``,
``stability`` and ``conventions``."""

from __future__ import annotations

import json
import math
import time
from fractions import Fraction

from ..attention import count_dual
from ..errors import Interrupted, InvalidInputError
from ..geometry import PowerDiagram
from ..io import load_model, load_sites
from ..plot import plot_overlay, plot_soft_weights
from ..region_bounds import bounds
from ..regions import enumerate_regions
from ..table import write_region_table
from ..temperature import convention_check, stability_report
from .common import add_command, emit, format_point as _point, format_rational as _fmt, parse_pair
from .run_options import add_run_arguments, run_kwargs

__all__ = ["count_model", "register"]


def _model_summary(model):
    return {"dim": model.dim, "layers": len(model.layers),
            "heads": [len(l.heads) for l in model.layers],
            "keys": [[len(h.keys) for h in l.heads] for l in model.layers]}


def count_model(model, method="primal", box=None, progress=None, workers=1, **run) -> dict:
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
        result = enumerate_regions(model, box=box, progress=progress, workers=workers, **run)
        out.update(activation_regions=result.n_activation, linear_regions=result.n_linear, method="primal",
                   certificates=result.counters)
    out["box"] = None if box is None else [_fmt(box[0]), _fmt(box[1])]
    out["seconds"] = round(time.perf_counter() - t0, 4)
    return out


def cmd_count(args):

    model = load_model(args.model)
    box = parse_pair(args.box, "--box") if args.box else None
    try:
        out = count_model(model, args.method, box, **run_kwargs(args))
    except Interrupted as exc:
        partial = exc.partial
        print(json.dumps({"interrupted": True, "activation_regions_so_far": partial.n_activation}))
        raise
    lines = [f"model: d = {out['dim']}, {out['layers']} layer(s), heads per layer {out['heads']}",
             f"method: {out['method']}" + (f", box {out['box']}" if out["box"] else ", all of R^d"),
             f"activation regions: {out['activation_regions']}"]
    lines.append(f"linear regions:     {out['linear_regions']}" if out["linear_regions"] is not None
                 else "linear regions:     not computed by the dual method (use --method primal)")
    lines.append(f"time: {out['seconds']} s")
    emit(out, args.json, lines)


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
    emit(obj, args.json, lines)


def cmd_diagram(args):

    model = load_model(args.model)
    if len(model.layers) != 1:
        raise InvalidInputError(f"diagram draws one layer; the model has {len(model.layers)} layers")
    box = parse_pair(args.box, "--box") if args.box else None
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
    emit(obj, args.json, lines)


def cmd_table(args):

    if args.seeds < 0:
        raise InvalidInputError(f"--seeds must be 0 or more; got {args.seeds}")

    path = write_region_table(args.output, quick=args.quick, seeds=args.seeds, **run_kwargs(args, reuse=True))
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
    box = parse_pair(args.box, "--box") if args.box else None
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
    emit(report, args.json, lines)


def cmd_conventions(args):
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
    emit(c, args.json, lines)


def register(sub):
    """Add the model, shape and temperature sub-commands."""
    s = add_command(sub, "count", cmd_count, "exact region count of a model file")
    s.add_argument("model")
    s.add_argument("--method", choices=("primal", "dual"), default="primal")
    s.add_argument("--box", help="LO,HI: count inside [LO, HI]^d")
    add_run_arguments(s, regions=True)
    s = add_command(sub, "power", cmd_power, "power diagram of weighted sites")
    s.add_argument("sites")
    s = add_command(sub, "diagram", cmd_diagram, "draw each head's power cells and their overlay (d <= 2)",
                    json_output=False)
    s.add_argument("model")
    s.add_argument("-o", "--output", required=True)
    s.add_argument("--box", help="LO,HI")
    s = add_command(sub, "bounds", cmd_bounds, "upper and lower bounds for a shape")
    for flag in ("--dim", "--heads", "--keys"):
        s.add_argument(flag, type=int, required=True)
    s.add_argument("--layers", type=int, default=1)
    s = add_command(sub, "table", cmd_table, "regenerate data/region_counts.csv", json_output=False)
    s.add_argument("-o", "--output", default="data/region_counts.csv")
    s.add_argument("--seeds", type=int, default=3)
    s.add_argument("--quick", action="store_true", help="a smaller grid (for tests)")
    add_run_arguments(s)
    s = add_command(sub, "conventions", cmd_conventions,
                    "the paper's temperature convention against standard attention")
    s.add_argument("--margin", type=float, default=2.0, help="raw score margin on q.k (default 2)")
    s.add_argument("--dk", type=int, default=64, help="key dimension d_k (default 64)")
    s.add_argument("--keys", type=int, default=2, help="number of keys N (default 2)")
    s = add_command(sub, "stability", cmd_stability, "soft attention against the hard skeleton")
    s.add_argument("model")
    s.add_argument("--taus", default="0.05,0.2,1")
    s.add_argument("--delta", type=float, default=None, help="keep points this far from every wall "
                   "(default: 2%% of the box side)")
    s.add_argument("--box", help="LO,HI")
    s.add_argument("--plot", help="draw the soft weights of the first head (d <= 2) to this PNG")
