"""Benchmark tropattn.polytope (exact, certified) against scipy's float Qhull and PPL.

Run:  python scripts/bench_polytope.py [--repeat 5] [--against REV]

``--against REV`` also times ``tropattn/polytope.py`` as of git revision REV (loaded
from ``git show`` into a temporary module) in the same process: a before/after
column under the same machine load.

Cases
  sphere200    exact hull of 200 rational points exactly on the unit sphere
  minkowski    Minkowski sum of two 50-point sphere polytopes (2500 pairwise sums)
  regions      linear regions of a d=4 tropical polynomial with 60 random integer terms
               = upper vertices of 60 lifted points in R^5

Each timing is the best of several runs.  The exact counts (ours, our exact fallback,
PPL) must agree; float counts (scipy, linprog) are reported as they come.  PPL
(``pip install passagemath-ppl``) is optional: its columns are skipped without it.
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
from fractions import Fraction as F
from math import lcm
from pathlib import Path

import numpy as np
from benchlib import best_of
from scipy.optimize import linprog
from scipy.spatial import ConvexHull

from tropattn import exact
from tropattn.geometry import (
    convex_hull,
    minkowski_sum,
    rational_sphere_points,
    upper_hull,
)

try:
    import ppl
except ImportError:  # optional baseline
    ppl = None


# ---------------------------------------------------------------- inputs
def tropical_terms(n_terms=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    alphas = rng.integers(0, 6, size=(n_terms, d))
    coeffs = rng.integers(0, 100, size=(n_terms, 1))
    return np.hstack([alphas, coeffs]).tolist()


# ------------------------------------------------------------ baselines
def scipy_hull(points):
    h = ConvexHull(np.array(points, dtype=float))
    return len(h.vertices)


def scipy_upper(points):
    X = np.array(points, dtype=float)
    low = X.copy()
    low[:, -1] -= 1
    h = ConvexHull(np.vstack([X, low]), qhull_options="QJ")
    up = h.equations[:, -2] > 1e-12
    return len(set(h.simplices[up].ravel()) & set(range(len(X))))


def linprog_upper(points):
    P = np.array(points, dtype=float)
    A, c = P[:, :-1], P[:, -1]
    count = 0
    for j in range(len(P)):
        others = np.arange(len(P)) != j
        G = A[others] - A[j]
        # maximise t: (a_k - a_j).x + t <= c_j - c_k
        res = linprog(np.r_[np.zeros(A.shape[1]), -1.0], A_ub=np.hstack([G, np.ones((len(G), 1))]),
                      b_ub=c[j] - c[others], bounds=[(None, None)] * A.shape[1] + [(None, 1.0)],
                      method="highs")
        count += res.status == 0 and res.x[-1] > 1e-9
    return count


def ppl_polyhedron(points, down_ray=False):
    dim = len(points[0])
    X = [ppl.Variable(k) for k in range(dim)]
    gs = ppl.Generator_System()
    for p in points:
        fr = [F(v) for v in p]
        den = lcm(*(v.denominator for v in fr))
        expr = ppl.Linear_Expression(0)
        for var, v in zip(X, fr):
            expr += int(v * den) * var
        gs.insert(ppl.Generator.point(expr, den))
    if down_ray:
        gs.insert(ppl.Generator.ray(-X[-1]))
    return ppl.C_Polyhedron(gs)


def ppl_vertices(points, down_ray=False):
    P = ppl_polyhedron(points, down_ray)
    P.minimized_constraints()
    return sum(1 for g in P.minimized_generators() if g.is_point())


def ppl_minkowski(A, B):
    sums = [tuple(a + b for a, b in zip(v, w)) for v in A.vertices for w in B.vertices]
    return ppl_vertices(sums)


def polytope_at(rev):
    """``tropattn/polytope.py`` as of git revision ``rev``, imported as a sibling module."""
    root = Path(__file__).resolve().parent.parent
    text = subprocess.run(["git", "show", f"{rev}:tropattn/polytope.py"], cwd=root, check=True,
                          capture_output=True, text=True).stdout
    path = Path(tempfile.mkdtemp()) / "polytope_before.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location("tropattn._polytope_before", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--against", metavar="REV", help="also time polytope.py as of this git revision")
    args = ap.parse_args()
    r = args.repeat
    old = polytope_at(args.against) if args.against else None

    sphere = rational_sphere_points()
    A = convex_hull(sphere[::4])
    B = convex_hull(rational_sphere_points(5, 13, F(1, 3), (F(1, 2), 0, 0))[1::4])
    sums_float = [tuple(float(a + b) for a, b in zip(v, w)) for v in A.vertices for w in B.vertices]
    terms = tropical_terms()
    if old is not None:
        oA, oB = (old.convex_hull(P.vertices) for P in (A, B))

    cases = {
        "sphere200": dict(
            ours=lambda: convex_hull(sphere).vertex_count,
            exact=lambda: convex_hull(sphere, method="exact").vertex_count,
            scipy=lambda: scipy_hull([[float(x) for x in p] for p in sphere]),
            ppl=lambda: ppl_vertices(sphere)),
        "minkowski 50+50": dict(
            ours=lambda: minkowski_sum(A, B).vertex_count,
            exact=lambda: convex_hull([tuple(a + b for a, b in zip(v, w)) for v in A.vertices
                                       for w in B.vertices], method="exact").vertex_count,
            scipy=lambda: scipy_hull(sums_float),
            ppl=lambda: ppl_minkowski(A, B)),
        "regions d=4, 60 terms": dict(
            ours=lambda: len(upper_hull(terms).vertices),
            exact=lambda: len(upper_hull(terms, method="exact").vertices),
            scipy=lambda: scipy_upper(terms),
            linprog=lambda: linprog_upper(terms),
            ppl=lambda: ppl_vertices(terms, down_ray=True)),
    }
    if old is not None:
        cases["sphere200"]["before"] = lambda: old.convex_hull(sphere).vertex_count
        cases["minkowski 50+50"]["before"] = lambda: old.minkowski_sum(oA, oB).vertex_count
        cases["regions d=4, 60 terms"]["before"] = lambda: len(old.upper_hull(terms).vertices)
    convex_hull(sphere)  # warm up imports
    before = old is not None
    head = (f"{'case':24s} {'ours ms':>8s} {'before':>8s} {'exact-DD':>9s} {'scipy ms':>9s} {'linprog':>8s} "
            f"{'ppl ms':>8s} {'ours/scipy':>10s} {'ours/ppl':>9s}  counts (ours, exact, scipy, linprog, ppl)  "
            "certified/fallbacks")
    print(head)
    print("-" * len(head))
    for name, fns in cases.items():
        times, counts = {}, {}
        with exact.counting() as c:
            times["ours"], counts["ours"] = best_of(fns["ours"], r)
        for key in ("before", "exact", "scipy", "linprog", "ppl"):
            if key in fns and not (key == "ppl" and ppl is None):
                times[key], counts[key] = best_of(fns[key], r if key != "linprog" else 2)
        ok = {counts[k] for k in ("ours", "before", "exact", "ppl") if k in counts}
        assert len(ok) == 1, f"exact counts disagree on {name}: {counts}"
        ms = lambda k: f"{times[k] * 1e3:8.1f}" if k in times else f"{'-':>8s}"  # noqa: E731
        ratio = lambda k: f"{times['ours'] / times[k]:.2f}x" if k in times else "-"  # noqa: E731
        cnt = ", ".join(str(counts.get(k, "-")) for k in ("ours", "exact", "scipy", "linprog", "ppl"))
        print(f"{name:24s} {ms('ours')} {ms('before')} {ms('exact'):>9s} {ms('scipy'):>9s} {ms('linprog')} "
              f"{ms('ppl')} {ratio('scipy'):>10s} {ratio('ppl'):>9s}  {cnt:40s}  "
              f"{c.certified // r}/{c.fallbacks // r}")
    if not before:
        print("(add --against REV for a 'before' column: polytope.py as of a git revision)")
    if ppl is None:
        print("(PPL not importable: install passagemath-ppl for the exact baseline)")


if __name__ == "__main__":
    main()
