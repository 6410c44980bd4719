"""Benchmark: exact linear regions of tropical polynomials against the float upper hull (and PPL).

Run:  python scripts/bench_tropical.py [--repeat 3] [--big]

A tropical polynomial's linear regions are the upper vertices of its lifted points, and each
region's facets are its neighbours in the regular subdivision (docs/THEORY.md §12): the work is
one certified upper hull, output sensitive.  Cases (CPU time, best of ``--repeat``; the anchor is
scipy's float Qhull of the same lifted points, which certifies nothing; PPL is exact):

  circle 201        200 rational points of the unit circle plus the centre, all coefficients 0:
                    ``tropattn regions FILE --json`` end to end in a fresh process (wall time,
                    the issue's target is 0.5 s), ``linear_regions()``, ``to_sympy()``
  plane 10^4        10^4 terms in 2-D on a paraboloid (every term is a region: a Delaunay triangulation)
  d=4 500           500 random terms in 4-D (``regions``: all facets; ``count``: vertices only)
  --big adds d=6 5000 (5,000 terms in 6-D: scipy itself needs about 100 s there) and PPL on the
  10^4 terms (about 3 minutes; it agrees: 10,000 regions, where scipy's joggled hull finds 5,075)

Each row prints the number of regions found by every method (they must agree; scipy's float
count may differ on degenerate input and is printed as it comes).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np
from bench_polytope import cpu_best, floats, ppl, ppl_vertices, scipy_upper

from tropattn.geometry import upper_vertex_count
from tropattn.tropical import TropicalPolynomial

ROOT = Path(__file__).resolve().parent.parent


def circle():
    ts = [F(k, 50) for k in range(-100, 100)]         # t in [-2, 2): most of the circle, centre inside
    pts = [(F(1 - t * t, 1 + t * t), F(2 * t, 1 + t * t)) for t in ts]
    return TropicalPolynomial(pts + [(F(0), F(0))], [0] * 201)


def random_polynomial(n, d, seed=0, top=6, heights=100):
    rng = np.random.default_rng(seed)
    return TropicalPolynomial(rng.integers(0, top, size=(n, d)).tolist(), rng.integers(0, heights, size=n).tolist())


def paraboloid(n, seed=0):
    """n distinct integer exponents a in [0, 10^4)^2 with coefficient -|a|^2: every term is a region."""
    rng = np.random.default_rng(seed)
    pts = np.unique(rng.integers(0, 10**4, size=(2 * n, 2)), axis=0)[:n]
    rng.shuffle(pts)
    return TropicalPolynomial(pts.tolist(), (-(pts ** 2).sum(axis=1)).tolist())


def cli_wall(f, repeat):
    """Best wall time of ``tropattn regions FILE --json`` in a fresh interpreter (import included)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "poly.json"
        path.write_text(json.dumps(f.to_json()))
        best = float("inf")
        for _ in range(repeat):
            t = time.perf_counter()
            out = subprocess.run([sys.executable, "-m", "tropattn", "regions", str(path), "--json"],
                                 capture_output=True, text=True, check=True, cwd=ROOT).stdout
            best = min(best, time.perf_counter() - t)
        return best, json.loads(out)["linear_regions"]


def row(name, f, repeat, count=False, cli=False, sympy=False, with_ppl=True):
    lifted = [list(a) + [c] for a, c in zip(f.exponents, f.coefficients)]
    times, counts = {}, {}
    # a new polynomial for every run (a polynomial keeps its regions once computed)
    times["regions"], regions = cpu_best(lambda: TropicalPolynomial(f.exponents, f.coefficients).linear_regions(),
                                         repeat)
    counts["regions"] = len(regions) if isinstance(regions, tuple) else regions
    if count:
        times["count"], counts["count"] = cpu_best(lambda: upper_vertex_count(lifted), repeat)
    times["scipy"], counts["scipy"] = cpu_best(lambda: scipy_upper(floats(lifted)), repeat)
    if ppl is not None and with_ppl:
        times["ppl"], counts["ppl"] = cpu_best(lambda: ppl_vertices(lifted, down_ray=True), 1)
    if cli:
        times["cli wall"], counts["cli wall"] = cli_wall(f, repeat)
    if sympy:
        times["to_sympy"], _ = cpu_best(lambda: TropicalPolynomial(f.exponents, f.coefficients).to_sympy(), repeat)
    cols = " | ".join(f"{k} {t:8.4f} s" for k, t in times.items())
    ratios = ", ".join(f"{k}/scipy {times[k] / times['scipy']:5.1f}x" for k in ("regions", "count") if k in times)
    print(f"{name:14s} {cols} | {ratios} | regions {counts}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing; the best counts (default 3)")
    ap.add_argument("--big", action="store_true", help="add d = 6 with 5,000 terms, and PPL on 10^4 terms (minutes)")
    args = ap.parse_args()
    row("circle 201", circle(), args.repeat, cli=True, sympy=True)
    row("plane 10^4", paraboloid(10_000), args.repeat, with_ppl=args.big)     # PPL: about 3 minutes
    row("d=4 500", random_polynomial(500, 4), args.repeat, count=True)
    if args.big:
        row("d=6 5000", random_polynomial(5000, 6), 1, count=True)


if __name__ == "__main__":
    main()
