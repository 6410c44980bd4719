"""Sub-commands on model files and shapes: ``count``, ``power``, ``diagram``, ``bounds``, ``table``,
``stability`` and ``conventions``."""

from __future__ import annotations

import math
import sys
import warnings
from fractions import Fraction
from pathlib import Path

from .._validate import nonnegative_int
from ..errors import Interrupted, InvalidInputError
from ..geometry import PowerDiagram
from ..io import load
from ..plot import plot_overlay, plot_soft_weights
from ..region_bounds import bounds
from ..regions import count_regions
from ..table import write_region_table
from ._checkpoint import add_checkpoint_arguments, draw_slice, is_checkpoint, model_from_args
from ._common import (BOX_HELP, add_command, add_progress_argument, as_flags, emit, format_point as _point,
                     format_rational as _fmt, output_path, parse_float_pair, parse_pair, progress_from_args,
                     registers)
from ._run_options import add_run_arguments, run_kwargs
from ._stability import convention_check, stability_report

__all__ = ["bounds_lines", "parse_taus", "register", "MODEL_HELP"]


def _model_summary(model):
    return {"dim": model.dim, "layers": len(model.layers),
            "heads": [len(l.heads) for l in model.layers],
            "keys": [[len(h.keys) for h in l.heads] for l in model.layers]}


def cmd_count(args):
    model = model_from_args(args)
    box = parse_pair(args.box, "--box") if args.box else None
    if args.graph and args.regions:
        raise InvalidInputError("--graph counts the adjacency of regions held in memory, --regions FILE streams "
                                "them out; give one of the two")
    try:
        c = count_regions(model, args.method, box, args.ties, progress=progress_from_args(args), graph=args.graph,
                          **run_kwargs(args))
    except Interrupted as exc:
        _print_partial(model, exc.partial, args.json)
        exc.reported = True
        raise
    except InvalidInputError as exc:  # worded for the library: name the flags instead
        raise InvalidInputError(as_flags(str(exc))) from None
    out = _model_summary(model)
    out.update(activation_regions=c.n_activation, linear_regions=c.n_linear, method=c.method)
    if args.graph:
        out["adjacency_edges"] = c.n_edges
    if c.method == "primal":
        out["certificates"] = c.counters
    out["box"] = None if box is None else [_fmt(box[0]), _fmt(box[1])]
    out["ties"] = c.ties
    out["seconds"] = round(c.seconds, 4)
    lines = [f"model: d = {out['dim']}, {out['layers']} layer(s), heads per layer {out['heads']}",
             f"method: {out['method']}" + (f", box {out['box']}" if out["box"] else ", all of R^d")
             + (f", ties: {out['ties']}" if out["ties"] != "refuse" else ""),
             f"activation regions: {out['activation_regions']}"]
    lines.append(f"linear regions:     {out['linear_regions']}" if out["linear_regions"] is not None
                 else "linear regions:     not computed by the dual method (use --method primal)")
    if args.graph:
        lines.append(f"adjacency edges:    {out['adjacency_edges']} (pairs of regions sharing a facet)")
    lines.append(f"time: {out['seconds']} s")
    emit(out, args.json, lines)


def _print_partial(model, partial, as_json):
    """After Ctrl-C: how many activation regions were complete (certified, with every sub-layer).

    The search refines depth first, so what it has finished are whole regions of the model:
    their number is an exact lower bound on the count, never a count of an unfinished step.
    """
    n = partial.n_activation if partial is not None else 0
    obj = {"interrupted": True, "complete": False, "activation_regions_found": n,
           "sub_layers": sum(1 + (layer.ffn is not None) for layer in model.layers)}
    if n == 0:
        text = "interrupted before any region was complete, so there is no count yet"
    else:
        text = (f"interrupted: {n} activation regions were complete (each certified exactly); "
                "the full model has at least as many")
    emit(obj, as_json, [text])


def cmd_power(args):

    sites, weights = load(args.sites, kind="sites")
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
    model = model_from_args(args)
    if is_checkpoint(args):
        return print(draw_slice(model, args))
    if len(model.layers) != 1:
        raise InvalidInputError(f"diagram draws one layer; the model has {len(model.layers)} layers")
    box = parse_float_pair(args.box, "--box") if args.box else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plot_overlay(model.layers[0], box, output_path(args.output, "--output"), title=Path(args.model).name)
    for w in caught:
        print(f"tropattn: warning: {w.message}", file=sys.stderr)
    print(f"wrote {args.output}")


def cmd_bounds(args):

    b = bounds(args.dim, args.heads, args.keys, args.layers)
    emit(b.as_dict(), args.json, bounds_lines(b))


def bounds_lines(b) -> list:
    """The text of ``tropattn bounds``: upper bounds, the attainable order, the construction.

    Parameters
    ----------
    b : RegionBounds
        The result of :func:`tropattn.region_bounds.bounds`.

    Returns
    -------
    list of str
        The lines, without newlines.

    Examples
    --------
    >>> for line in bounds_lines(bounds(2, 3, 3)):
    ...     print(line)
    d = 2, H = 3, N = 3, L = 1
      single head (per layer):         3
      product N^H (per layer):         27   (an upper bound; for H > d its order N^H is not attained as N grows)
      hyperplane arrangement bound:    46
      per-layer upper bound (min):     27
      attainable order per layer:      Theta(N^2) = Theta(N^min(H,d)), since H > d
      deep upper bound (per-layer^L):  27
      deep product (N^H)^L:            27
      lower bound (construction):      9 = N^(min(H,d)*L), attained by the sawtooth model
    """
    lines = [f"d = {b.dim}, H = {b.heads}, N = {b.keys}, L = {b.layers}",
             f"  single head (per layer):         {b.single_head}",
             f"  product N^H (per layer):         {b.product}" +
             ("" if b.product_attainable else "   (an upper bound; for H > d its order N^H is not attained as N grows)"),
             f"  hyperplane arrangement bound:    {b.arrangement}"]
    if b.line is not None:
        lines.append(f"  line bound H(N-1)+1:             {b.line}")
    lines.append(f"  per-layer upper bound (min):     {b.per_layer}")
    if not b.product_attainable:
        lines.append(f"  attainable order per layer:      Theta(N^{b.order_exponent}) = Theta(N^min(H,d)), since H > d")
    lines += [f"  deep upper bound (per-layer^L):  {b.deep}",
              f"  deep product (N^H)^L:            {b.deep_product}",
              f"  lower bound (construction):      {b.lower} = N^(min(H,d)*L), attained by the {b.construction} model"]
    return lines


def cmd_table(args):

    nonnegative_int(args.seeds, "--seeds", meaning="the number of random models per shape")

    path = write_region_table(output_path(args.output, "--output"), quick=args.quick, seeds=args.seeds,
                              progress=progress_from_args(args), **run_kwargs(args, reuse=True))
    print(f"wrote {path}")


def cmd_stability(args):

    model = load(args.model, kind="model")
    if len(model.layers) != 1:
        raise InvalidInputError(f"stability measures one attention layer; the model has {len(model.layers)} "
                                "layers (save the layer you want as a one-layer model)")
    layer = model.layers[0]
    taus = parse_taus(args.taus)
    box = parse_float_pair(args.box, "--box") if args.box else None
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

        plot_soft_weights(layer.heads[0], taus, box, output_path(args.plot, "--plot"),
                          title=f"{Path(args.model).name}, head 0")
        lines.append(f"wrote {args.plot}")
    emit(report, args.json, lines)


def parse_taus(text) -> list:
    """``--taus``: comma-separated temperatures, each a finite float ``> 0`` (fractions allowed).

    Parameters
    ----------
    text : str
        ``"0.05,0.2,1"`` or ``"1/10,1"``.

    Returns
    -------
    list of float

    Raises
    ------
    InvalidInputError
        Naming ``--taus`` and the entry, if an entry is not a number, is not ``> 0``, or does
        not fit a float (``1e400`` overflows, ``1e-400`` rounds to 0).

    Examples
    --------
    >>> parse_taus("0.05,1/2")
    [0.05, 0.5]
    >>> parse_taus("0.1,1e400")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: --taus = '0.1,1e400': the entry '1e400' overflows a float; each temperature must be a finite number > 0 such as 0.05,0.2,1
    """
    taus = []
    for t in text.split(","):
        why = None
        try:
            v = float(Fraction(t.strip()))
        except (ValueError, ZeroDivisionError):
            why, v = "is not a number", 0.0
        except OverflowError:
            why, v = "overflows a float", 0.0
        if why is None and not v > 0:
            why = "rounds to 0 in floating point" if Fraction(t.strip()) > 0 else "is not > 0"
        if why is not None:
            raise InvalidInputError(f"--taus = {text!r}: the entry {t.strip()!r} {why}; each temperature must be "
                                    "a finite number > 0 such as 0.05,0.2,1")
        taus.append(v)
    return taus


def cmd_conventions(args):
    if not (math.isfinite(args.margin) and args.margin > 0):
        raise InvalidInputError(f"--margin must be a positive finite score margin; got {args.margin}")
    if args.dk < 1 or args.keys < 2:
        raise InvalidInputError(f"--dk must be >= 1 and --keys >= 2; got --dk {args.dk} --keys {args.keys}")

    try:
        c = convention_check(args.margin, args.dk, args.keys)
    except InvalidInputError as exc:  # the library names tau = 1/sqrt(d_k): name the flag that set it
        raise InvalidInputError(f"--dk = {args.dk}: {exc}") from None
    lines = [f"raw score margin Delta = {c['raw_margin']:g} on q.k, d_k = {c['d_k']}, {c['n_keys']} keys "
             "(the other keys tied at the margin: the worst case)"]
    for name, label in (("paper", "paper's convention (tau = 1/sqrt(d_k))"),
                        ("standard", "standard attention (tau = sqrt(d_k))")):
        r = c[name]
        lines.append(f"  {label:<42} tau = {r['tau']:<6g} e^(-Delta/tau) = e^({r['exponent']:g}) = "
                     f"{r['e_exponent']:.3e}   1 - p* = {r['weight_defect']:.3e}")
    lines.append(f"the paper's softmax is {c['sharpness']:g} times sharper than the one transformers use")
    emit(c, args.json, lines)


MODEL_HELP = ("a model file: tropattn.model/1 JSON (score form with keys/offsets/values per head, or weight "
              "form with W_Q/W_K/W_V/W_O and a context) or .npz arrays of the same names")


@registers("the model, shape and temperature sub-commands", "bounds", "conventions", "count", "diagram", "power",
           "stability", "table")
def register(sub):
    s = add_command(sub, "count", cmd_count, "exact region count of a model file", examples=(
        "tropattn count examples/model.json", "tropattn count examples/model.json --box -1 1 --json",
        "tropattn count examples/model.json --method dual      # one FFN-free layer, all of R^d",
        "tropattn count examples/model.json --ties first --workers 2 --progress always",
        "tropattn count examples/model_weights.json", "tropattn count examples/model.npz --json"))
    s.add_argument("model", help=MODEL_HELP)
    s.add_argument("--method", choices=("primal", "dual", "auto"), default="primal",
                   help="primal: the exact region search (any model, default); dual: upper vertices of a "
                        "Minkowski sum (one layer without FFN, all of R^d; other models are refused); auto: the "
                        "dual where it applies and no --regions file is asked for, else primal")
    s.add_argument("--box", help=BOX_HELP + " (default: all of R^d)")
    s.add_argument("--ties", choices=("refuse", "first"), default=None,
                   help="tie rule for every head, overriding the file's: refuse (an error where distinct keys tie "
                        "on a whole region) or first (the lowest index wins, as argmax); default: the file's rule")
    s.add_argument("--graph", action="store_true",
                   help="also count the pairs of regions that share a facet (the adjacency graph: in d >= 3 one "
                        "certified LP per pair of facets on a wall, work a plain count does not do)")
    add_run_arguments(s, regions=True)
    add_progress_argument(s)
    add_checkpoint_arguments(s)
    s = add_command(sub, "power", cmd_power, "power diagram of weighted sites", examples=(
        "tropattn power examples/sites.json      # {\"sites\": [[0, 0], [1, 0]], \"weights\": [0, \"1/2\"]}",))
    s.add_argument("sites", help='a JSON file {"sites": [[...], ...], "weights": [...]} (weights default to 0)')
    s = add_command(sub, "diagram", cmd_diagram, "draw each head's power cells and their overlay (d <= 2)",
                    json_output=False, examples=("tropattn diagram examples/model.json -o overlay.png",
                                                 "tropattn diagram examples/model.json -o overlay.png --box -2 2"))
    s.add_argument("model", help=MODEL_HELP + " (one layer, d <= 2)")
    s.add_argument("-o", "--output", required=True,
                   help="the picture file (.png, .pdf, .svg, in an existing directory)")
    s.add_argument("--box", help=BOX_HELP + " (default: a box showing every region)")
    add_checkpoint_arguments(s)
    s = add_command(sub, "bounds", cmd_bounds, "upper and lower bounds for a shape", examples=(
        "tropattn bounds --dim 2 --heads 3 --keys 3", "tropattn bounds --dim 1 --heads 2 --keys 4 --layers 3 --json"))
    s.add_argument("--dim", type=int, required=True, help="query dimension d")
    s.add_argument("--heads", type=int, required=True, help="heads per layer H")
    s.add_argument("--keys", type=int, required=True, help="keys (context tokens) per head N")
    s.add_argument("--layers", type=int, default=1, help="layers L (default 1)")
    s = add_command(sub, "table", cmd_table, "regenerate data/region_counts.csv", json_output=False, examples=(
        "tropattn table", "tropattn table --quick --seeds 1 -o /tmp/counts.csv --progress never"))
    s.add_argument("-o", "--output", default="data/region_counts.csv",
                   help="the CSV file (default data/region_counts.csv, in an existing directory)")
    s.add_argument("--seeds", type=int, default=3, help="random models per shape (default 3)")
    s.add_argument("--quick", action="store_true", help="a smaller grid (for tests)")
    add_progress_argument(s)
    add_run_arguments(s)
    s = add_command(sub, "conventions", cmd_conventions,
                    "the paper's temperature convention against standard attention",
                    examples=("tropattn conventions --margin 2 --dk 64",))
    s.add_argument("--margin", type=float, default=2.0, help="raw score margin on q.k (default 2)")
    s.add_argument("--dk", type=int, default=64, help="key dimension d_k (default 64)")
    s.add_argument("--keys", type=int, default=2, help="number of keys N (default 2)")
    s = add_command(sub, "stability", cmd_stability, "soft attention against the hard skeleton", examples=(
        "tropattn stability examples/model.json", "tropattn stability examples/model.json --taus 0.1,1 --box -2 2 --plot soft.png"))
    s.add_argument("model", help=MODEL_HELP + " (one layer)")
    s.add_argument("--taus", default="0.05,0.2,1", help="temperatures tau, comma-separated (default 0.05,0.2,1)")
    s.add_argument("--delta", type=float, default=None, help="keep points this far from every wall "
                   "(default: 2%% of the box side)")
    s.add_argument("--box", help=BOX_HELP + " (default: a cube [-R, R]^d showing every wall, "
                   "R = 1.5 max(1, wall distances))")
    s.add_argument("--plot", help="draw the soft weights of the first head (d <= 2) to this picture file "
                   "(in an existing directory; default: no picture)")
