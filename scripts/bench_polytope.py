"""Benchmark tropattn's exact, certified hulls against scipy's float Qhull (and PPL / CGAL).

Run:  python scripts/bench_polytope.py [--repeat 3] [--big] [--only NAME ...] [--without ppl cgal]

Every figure is CPU time (``time.process_time``, best of ``--repeat`` runs), so the
ratios hold on a loaded machine; ``ours/scipy`` is the figure to watch (goal: <= 3x).
Run it on another tree for a "before" column in the same units, e.g.
``PYTHONPATH=/work/main python scripts/bench_polytope.py``; a case that raises (a
MemoryError, say) is reported as such.

Cases (the inputs are exact; scipy gets their float images)
  cube d=4/5/6      1,000 random integer points in [-10^6, 10^6]^d
  cube/q d=3..6     1,000 random rational points in [-1, 1]^d, denominators 900..1100 per coordinate
  sphere n          n rational points exactly on the unit sphere (every one a vertex)
  minkowski 200+200 two 200-vertex polytopes on spheres (40,000 pairwise sums)
  minkowski 4x50    four 50-vertex polytopes on spheres (scipy: one summand at a time,
                    each partial sum pruned to Qhull's vertices, like ours)
  sphere200, minkowski 50+50, regions d=4 60 terms: the small cases of earlier runs
  --big adds: sphere 100000, cube d=6 n=5000

The exact counts (ours, PPL, CGAL) must agree; scipy's float counts are printed as
they come.  PPL (``pip install passagemath-ppl``) and CGAL's Python bindings
(``pip install cgal``) are optional: their columns read '-' without them.
"""

from __future__ import annotations

import argparse
import time
from fractions import Fraction as F
from math import lcm

import numpy as np
from scipy.spatial import ConvexHull

from tropattn import exact
from tropattn.geometry import convex_hull, minkowski_sum, rational_sphere_points, upper_hull

try:
    import ppl
except ImportError:  # optional exact baseline
    ppl = None
try:
    from CGAL.CGAL_Convex_hull_3 import convex_hull_3
    from CGAL.CGAL_Kernel import Point_3
    from CGAL.CGAL_Polyhedron_3 import Polyhedron_3
except ImportError:  # optional baseline (3-D only, float kernel of the bindings)
    convex_hull_3 = None


# ---------------------------------------------------------------- inputs
def cube(n, d, seed=0):
    return np.random.default_rng(seed).integers(-10**6, 10**6, size=(n, d)).tolist()


def rational_cube(n, d, seed=0):
    """n random points of [-1, 1]^d, each coordinate k / q with its own denominator q in [900, 1100]."""
    rng = np.random.default_rng(seed)
    den = rng.integers(900, 1100, size=(n, d), endpoint=True)
    num = rng.integers(-den, den, endpoint=True)
    return [[F(int(a), int(b)) for a, b in zip(r, s)] for r, s in zip(num, den)]


def sphere(n, seed=0, q=None):
    """Distinct rational points exactly on the unit sphere (inverse stereographic projection)."""
    rng = np.random.default_rng(seed)
    q = q or max(50, int(4 * n ** 0.5))
    out = {}
    while len(out) < n:
        for u, v in rng.integers(-4 * q, 4 * q, size=(n, 2)).tolist():
            s = u * u + v * v + q * q
            out.setdefault((F(2 * u * q, s), F(2 * v * q, s), F(u * u + v * v - q * q, s)), None)
            if len(out) == n:
                break
    return list(out)


def tropical_terms(n_terms=60, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return np.hstack([rng.integers(0, 6, size=(n_terms, d)), rng.integers(0, 100, size=(n_terms, 1))]).tolist()


def floats(points):
    return np.array([[float(x) for x in p] for p in points])


# ------------------------------------------------------------ baselines
def scipy_vertices(X):
    return len(ConvexHull(X).vertices)


def scipy_upper(X):
    low = X.copy()
    low[:, -1] -= 1
    h = ConvexHull(np.vstack([X, low]), qhull_options="QJ")
    up = h.equations[:, -2] > 1e-12
    return len(set(h.simplices[up].ravel()) & set(range(len(X))))


def ppl_vertices(points, down_ray=False):
    X = [ppl.Variable(k) for k in range(len(points[0]))]
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
    P = ppl.C_Polyhedron(gs)
    P.minimized_constraints()
    return sum(1 for g in P.minimized_generators() if g.is_point())


def cgal_vertices(X):
    P = Polyhedron_3()
    convex_hull_3([Point_3(*map(float, p)) for p in X], P)
    return P.size_of_vertices()


def scipy_minkowski(Xs):
    """Float Minkowski sum, one summand at a time, each partial sum pruned to Qhull's vertices."""
    X = Xs[0]
    for Y in Xs[1:]:
        S = (X[:, None, :] + Y[None, :, :]).reshape(-1, X.shape[1])
        X = S[ConvexHull(S).vertices]
    return len(X)


def last_sums(summands):
    """Exact points whose hull is the sum (the vertices of all but the last summand's sum,
    plus each vertex of the last): the input of the exact baselines, built untimed."""
    head = minkowski_sum(*summands[:-1]) if len(summands) > 2 else summands[0]
    return list({tuple(a + b for a, b in zip(v, w)) for v in head.vertices for w in summands[-1].vertices})


# ------------------------------------------------------------------ timing
def cpu_best(fn, repeat):
    """(best CPU time over ``repeat`` runs, last result); an exception is returned as its name."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        try:
            out = fn()
        except (MemoryError, Exception) as e:  # noqa: BLE001  (report, do not stop the run)
            return float("nan"), type(e).__name__
        best = min(best, time.process_time() - t)
    return best, out


def case(ours, X, pts, upper=False):
    """The timed functions of one case: ours, scipy on the floats ``X``, PPL / CGAL on ``pts``."""
    fns = dict(ours=ours, scipy=(lambda: scipy_upper(X)) if upper else (lambda: scipy_vertices(X)),
               ppl=lambda: ppl_vertices(pts, down_ray=upper))
    if X.shape[1] == 3 and not upper:
        fns["cgal"] = lambda: cgal_vertices(X)
    return fns


def hull_case(pts):
    return case(lambda: convex_hull(pts).vertex_count, floats(pts), pts)


def sum_case(summands):
    sums = last_sums(summands)
    fns = case(lambda: minkowski_sum(*summands).vertex_count, floats(sums), sums)
    Xs = [floats(P.vertices) for P in summands]
    fns["scipy"] = lambda: scipy_minkowski(Xs)
    return fns


def cases(big: bool):
    out = {f"cube d={d} n=1000": hull_case(cube(1000, d)) for d in (4, 5, 6)}
    out.update({f"cube/q d={d} n=1000": hull_case(rational_cube(1000, d)) for d in (3, 4, 5, 6)})
    for n in (1000, 10000) + ((100000,) if big else ()):
        out[f"sphere n={n}"] = hull_case(sphere(n))
    if big:
        out["cube d=6 n=5000"] = hull_case(cube(5000, 6))
    A, B = convex_hull(sphere(200, 1)), convex_hull([[x / 3 + 1 for x in p] for p in sphere(200, 2)])
    out["minkowski 200+200"] = sum_case([A, B])
    out["minkowski 4x50"] = sum_case([convex_hull([[x * (k + 1) + k for x in p] for p in sphere(50, 10 + k)])
                                      for k in range(4)])
    small = rational_sphere_points()
    out["sphere200"] = hull_case(small)
    out["minkowski 50+50"] = sum_case([convex_hull(small[::4]),
                                       convex_hull(rational_sphere_points(5, 13, F(1, 3), (F(1, 2), 0, 0))[1::4])])
    terms = tropical_terms()
    out["regions d=4, 60 terms"] = case(lambda: len(upper_hull(terms).vertices), floats(terms), terms, upper=True)
    return out


# ------------------------------------------------------------------- main
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=3, help="runs per timing; the best CPU time counts (default 3)")
    ap.add_argument("--big", action="store_true", help="add the big cases: sphere n=100000, cube d=6 n=5000")
    ap.add_argument("--only", nargs="*", metavar="NAME", help="run only cases whose name contains one of these")
    ap.add_argument("--without", nargs="*", default=(), choices=("ppl", "cgal"),
                    help="skip these optional baselines (PPL takes minutes on the d=6 cube)")
    args = ap.parse_args()
    baselines = [k for k, ok in (("ppl", ppl), ("cgal", convex_hull_3)) if ok is not None and k not in args.without]
    head = (f"{'case':24s} {'ours s':>9s} {'scipy s':>9s} " + "".join(f"{k + ' s':>9s} " for k in baselines)
            + f"{'ours/scipy':>10s} " + "".join(f"{'ours/' + k:>10s} " for k in baselines)
            + " counts (ours, scipy" + "".join(", " + k for k in baselines) + ")  certified/fallbacks")
    print(head)
    print("-" * len(head))
    for name, fns in cases(args.big).items():
        if args.only and not any(s in name for s in args.only):
            continue
        times, counts = {}, {}
        with exact.counting() as c:
            times["ours"], counts["ours"] = cpu_best(fns["ours"], args.repeat)
        for key in ["scipy"] + baselines:
            if key in fns:
                times[key], counts[key] = cpu_best(fns[key], args.repeat)
        exact_counts = {counts[k] for k in ["ours"] + baselines if k in counts and isinstance(counts[k], int)}
        flag = "" if len(exact_counts) <= 1 else "  EXACT COUNTS DISAGREE"
        sec = lambda k: f"{times[k]:9.3f}" if k in times else f"{'-':>9s}"  # noqa: E731
        ratio = lambda k: (f"{times['ours'] / times[k]:9.2f}x" if k in times and times[k] > 0  # noqa: E731
                           else f"{'-':>10s}")
        cnt = ", ".join(str(counts.get(k, "-")) for k in ["ours", "scipy"] + baselines)
        runs = max(args.repeat, 1)
        print(f"{name:24s} {sec('ours')} {sec('scipy')} " + "".join(f"{sec(k)} " for k in baselines)
              + f"{ratio('scipy')} " + "".join(f"{ratio(k)} " for k in baselines)
              + f" {cnt:28s}  {c.certified // runs}/{c.fallbacks // runs}{flag}", flush=True)
    if ppl is None:
        print("(PPL not importable: pip install passagemath-ppl for the exact baseline)")
    if convex_hull_3 is None:
        print("(CGAL bindings not importable: pip install cgal for the 3-D baseline)")


if __name__ == "__main__":
    main()
