"""Benchmark: exact planar power diagrams against CGAL and Qhull; dual vs brute-force overlay counts.

Run:  python scripts/bench_power.py          (about a minute on 2 cores)

1. Power diagrams of n weighted random sites in the unit square (n = 200, 2000), weights chosen
   so that many sites are hidden.  Coordinates are dyadic rationals (k / 2^20, weights k / 2^40), so
   the float inputs CGAL and Qhull see are *exactly* the rationals tropattn sees and the three
   answers must agree combinatorially.  Timed (best of 5):
   - tropattn: PowerDiagram(...) + cells() + adjacency_graph(): exact, certified (ALGORITHMS §2);
   - CGAL Regular_triangulation_2 (exact predicates): insert, and insert + reading the hidden set
     and the edges back into Python;
   - scipy ConvexHull of the lifted points (floats, no certificate): hull + lower facets -> edges.
   The hidden sets and adjacency are checked equal to CGAL's.
2. One layer of H heads: count_dual (Minkowski sum, pruned) against a loop over all N^H label
   tuples with a certified LP each (exact.interior_point), for growing N.
3. The other fast paths: d = 1 (exact integer upper hull of the lifted points) and d = 3 (certified
   lifted upper hull in R^4, cells read off combinatorially) against the per-cell certified LPs on
   all N - 1 bisector rows; the cells are checked equal.
4. 3-D power diagrams (n = 500 ... 5000, dyadic inputs as in 1.): tropattn (exact, certified; best of
   3) against CGAL Regular_triangulation_3 -- insert, and insert + reading the hidden sites and the
   sorted edge list back into Python -- and pyvoro2 (voro++, floats, cells in a box).  The hidden
   sets and edges are checked equal to CGAL's; the ratio is against insert + readback.
   ``python scripts/bench_power.py 3d`` runs this section alone (and 0. in 3-D).
0. The counting path at n = 10^3, 10^4, 10^5 (2-D; 3-D with ``3d``): the diagram, its hidden
   sites and its edges as integer arrays (no cell objects), in CPU seconds against CGAL's
   insertion (Regular_triangulation_2/3), checked equal to CGAL's hidden sites and edges up to
   10^4, with the time of the Qhull proposal alone (the floor of this design); and the peak memory (RSS)
   of a 2-D diagram against CGAL's triangulation.
   ``python scripts/bench_power.py counting`` runs these alone.
"""

import random
import sys
import time
from fractions import Fraction

import numpy as np
from benchlib import best_of

from tropattn.attention import Head, Layer, Transformer, count_dual
from tropattn.exact import counting
from tropattn.geometry import PowerDiagram
from tropattn.geometry._power_cells import _cells_by_lp
from tropattn.regions import brute_force_regions


def instance(n, seed):
    rng = random.Random(seed)
    sites = [(Fraction(rng.randrange(1 << 20), 1 << 20), Fraction(rng.randrange(1 << 20), 1 << 20))
             for _ in range(n)]
    # weights up to ~ (2 / sqrt(n))^2 * 0.3: radii comparable to the spacing, so many sites are hidden
    wmax = int((1 << 40) * 1.2 / n)
    weights = [Fraction(rng.randrange(wmax), 1 << 40) for _ in range(n)]
    return sites, weights


def tropattn_run(sites, weights):
    pd = PowerDiagram(sites, weights)
    pd.cells()
    g = pd.adjacency_graph()
    return pd, g


def cgal_run(pts):
    from CGAL.CGAL_Kernel import Point_2, Weighted_point_2
    from CGAL.CGAL_Triangulation_2 import Regular_triangulation_2

    rt = Regular_triangulation_2()
    rt.insert([Weighted_point_2(Point_2(x, y), w) for x, y, w in pts])
    return rt


def cgal_readback(rt, idx):
    key = lambda wp: (wp.x(), wp.y(), wp.weight())
    hidden = sorted(idx[key(v.point())] for v in rt.hidden_vertices())
    edges = sorted(tuple(sorted((idx[key(f.vertex(rt.cw(i)).point())], idx[key(f.vertex(rt.ccw(i)).point())])))
                   for f, i in rt.finite_edges())
    return hidden, edges


def scipy_run(pts):
    from scipy.spatial import ConvexHull

    P = np.array(pts)
    lifted = np.column_stack([P[:, 0], P[:, 1], P[:, 0] ** 2 + P[:, 1] ** 2 - P[:, 2]])
    hull = ConvexHull(lifted)
    low = hull.simplices[hull.equations[:, 2] < 0]
    e = np.sort(np.concatenate([low[:, [0, 1]], low[:, [1, 2]], low[:, [0, 2]]]), axis=1)
    edges = np.unique(e, axis=0)
    hidden = np.setdiff1d(np.arange(len(P)), np.unique(low))
    return hidden, edges


def best_cpu(fn, repeat=3):
    """(best CPU seconds over ``repeat`` runs, the last result): the machine may be loaded."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def counting_run(sites, weights):
    """The counting path: the diagram, its hidden sites and its edges (integer arrays, no cells)."""
    pd = PowerDiagram(sites, weights)
    return pd, pd.hidden, pd.edges


def qhull_proposal(pd):
    """The float proposal alone (Qhull on the lifted points, as the certificate asks for it): the floor."""
    from tropattn.exact._lifted import PROPOSAL_OPTIONS, _pow2_scaled, _proposal

    A, B, _ = pd._int_scores()
    lifted = np.array([a + (b,) for a, b in zip(A, B)], dtype=float)
    return _proposal(_pow2_scaled(lifted), PROPOSAL_OPTIONS[0])


def bench_counting(d, sizes=(1000, 10000, 100000)):
    """CPU seconds of the counting path against CGAL's insertion (Regular_triangulation_2/3)."""
    print(f"== {d}-D power diagrams, counting path (hidden + edges, CPU s) against CGAL insertion ==")
    try:
        import CGAL  # noqa: F401
    except ImportError:
        print("   (CGAL not installed: pip install cgal)")
        return
    insert = cgal_run if d == 2 else cgal_3d
    for n in sizes:
        sites, weights = instance(n, 1) if d == 2 else instance_d(3, n, 7 * n)
        pts = [tuple(float(v) for v in (*s, w)) for s, w in zip(sites, weights)]
        reps = 3 if n <= 10000 else 1
        t_ex, (pd, hidden, edges) = best_cpu(lambda: counting_run(sites, weights), reps)
        t_ins, _ = best_cpu(lambda: insert(pts), reps)
        t_qh, _ = best_cpu(lambda: qhull_proposal(pd), reps)
        line = (f"n = {n:6d}: hidden {len(hidden):5d}, edges {len(edges):6d} | tropattn {t_ex:7.3f} CPU-s, "
                f"CGAL insert {t_ins:7.3f} CPU-s, ratio {t_ex / t_ins:5.1f}x (target <= 4x; of it the Qhull "
                f"proposal alone {t_qh / t_ins:4.1f}x)")
        if n <= 10000:
            idx = {p: i for i, p in enumerate(pts)}
            h_cg, e_cg = (cgal_readback(cgal_run(pts), idx) if d == 2 else cgal_3d_readback(cgal_3d(pts), idx))
            same = h_cg == list(hidden) and e_cg == [tuple(e) for e in edges.tolist()]
            line += f", agrees with CGAL: {same}"
            if not same:
                print("   MISMATCH with CGAL", file=sys.stderr)
        print(line)


def held_mib(build):
    """MiB of resident memory that the result of ``build()`` holds (RSS after minus before, in
    this process; CGAL's C++ heap is invisible to tracemalloc, RSS sees both)."""
    import gc

    def rss():
        gc.collect()
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * 4096 / 2 ** 20

    r0 = rss()
    keep = build()
    held = rss() - r0
    del keep
    return held


def bench_memory(sizes=(10000, 100000)):
    """Resident memory held by one 2-D diagram after its counting path, and by CGAL's triangulation,
    each measured in a fresh process."""
    import subprocess

    print("== 2-D power diagrams: memory held after the counting path (RSS, MiB) ==")
    child = ("import sys; sys.path.insert(0, 'scripts'); import bench_power as b; n, what = int(sys.argv[1]), "
             "sys.argv[2]; s, w = b.instance(n, 1); pts = [tuple(float(v) for v in (*p, q)) for p, q in zip(s, w)]; "
             "b.counting_run(*b.instance(50, 2)); b.cgal_run(pts[:50]); "
             "print(b.held_mib((lambda: b.counting_run(s, w)) if what == 'tropattn' else (lambda: b.cgal_run(pts))))")
    for n in sizes:
        out = {}
        for what in ("tropattn", "cgal"):
            res = subprocess.run([sys.executable, "-c", child, str(n), what], capture_output=True, text=True)
            out[what] = float(res.stdout.strip() or "nan")
        print(f"n = {n:6d}: tropattn {out['tropattn']:7.1f} MiB, CGAL {out['cgal']:7.1f} MiB, "
              f"ratio {out['tropattn'] / max(out['cgal'], 1e-9):4.1f}x")


def bench_diagrams():
    print("== 1. exact planar power diagrams (all cells + adjacency) ==")
    try:
        import CGAL  # noqa: F401
        have_cgal = True
    except ImportError:
        have_cgal = False
        print("   (CGAL not installed: pip install cgal)")
    for n, seed in ((200, 0), (2000, 1)):
        sites, weights = instance(n, seed)
        pts = [(float(x), float(y), float(w)) for (x, y), w in zip(sites, weights)]
        assert all(Fraction(v) == r for p, (s, w) in zip(pts, zip(sites, weights)) for v, r in zip(p, (*s, w)))
        with counting() as c:
            t_ex, (pd, g) = best_of(lambda: tropattn_run(sites, weights))
        hidden = list(pd.hidden)
        edges = sorted(tuple(sorted(e)) for e in g.edges)
        line = (f"n = {n:5d}: hidden {len(hidden):4d}, edges {len(edges):5d} | tropattn exact {t_ex * 1e3:7.1f} ms "
                f"(LP fallbacks {c.fallbacks}, exact LPs {c.exact_lps}, filter failures {c.filter_failures // 5})")
        print(line)
        t_sp, (h_sp, e_sp) = best_of(lambda: scipy_run(pts))
        same_sp = list(h_sp) == hidden and [tuple(e) for e in e_sp.tolist()] == edges
        print(f"   scipy lifted ConvexHull (float): {t_sp * 1e3:7.2f} ms, agrees: {same_sp}; "
              f"ratio exact/scipy = {t_ex / t_sp:5.1f}x")
        if have_cgal:
            idx = {p: i for i, p in enumerate(pts)}
            t_ins, _ = best_of(lambda: cgal_run(pts))
            t_all, (h_cg, e_cg) = best_of(lambda: cgal_readback(cgal_run(pts), idx))
            same = h_cg == hidden and e_cg == edges
            print(f"   CGAL Regular_triangulation_2: insert {t_ins * 1e3:6.2f} ms, insert + readback "
                  f"{t_all * 1e3:6.2f} ms, agrees: {same}")
            print(f"   ratio exact / CGAL(insert + readback) = {t_ex / t_all:5.1f}x, "
                  f"exact / CGAL(insert) = {t_ex / t_ins:5.1f}x  (target <= 5x)")
            if not same:
                print("   MISMATCH with CGAL", file=sys.stderr)


def brute_force(hs):
    """Every one of the N^H label tuples, one certified LP each (tropattn.regions.brute_force_regions)."""
    return len(brute_force_regions(Transformer([Layer(list(hs))])))


def bench_overlay():
    print("== 2. one layer of H heads in d = 2: dual count vs brute force over N^H label tuples ==")
    rng = random.Random(5)
    for H in (2, 3):
        for N in ((3, 5, 8, 12) if H == 2 else (3, 5, 7)):
            hs = [Head([[Fraction(rng.randint(-99, 99), 17) for _ in range(2)] for _ in range(N)],
                       [Fraction(rng.randint(-99, 99), 13) for _ in range(N)]) for _ in range(H)]
            t_d, nd = best_of(lambda: count_dual(hs), 1)
            if N ** H <= 400:
                t_b, nb = best_of(lambda: brute_force(hs), 1)
                tail = f"brute force {nb:5d} in {t_b:7.3f} s  -> {'agree' if nb == nd else 'DISAGREE'}, " \
                       f"speed-up {t_b / t_d:6.1f}x"
            else:
                tail = "brute force skipped (N^H > 400)"
            print(f"H = {H}, N = {N:2d} (N^H = {N ** H:5d}): dual {nd:5d} in {t_d:7.3f} s | {tail}")


def instance_d(d, n, seed):
    """n dyadic sites in the unit cube of R^d, weights of the order of the squared spacing."""
    rng = random.Random(seed)
    sites = [[Fraction(rng.randrange(1 << 20), 1 << 20) for _ in range(d)] for _ in range(n)]
    wmax = int((1 << 40) * 1.2 / n ** (2 / d))
    return sites, [Fraction(rng.randrange(wmax), 1 << 40) for _ in range(n)]


def bench_fast_paths():
    print("== 3. d = 1 and d = 3: hull fast paths vs per-cell certified LPs (all cells) ==")
    for d, n, with_lp in ((1, 200, True), (1, 2000, False), (3, 60, True), (3, 200, False), (3, 1000, False)):
        sites, weights = instance_d(d, n, d * n)
        with counting() as c:
            t_fast, cells = best_of(lambda: PowerDiagram(sites, weights).cells(), 3)
        line = (f"d = {d}, n = {n:5d}: hidden {sum(x is None for x in cells):4d} | fast {t_fast * 1e3:8.1f} ms "
                f"(fallbacks {c.fallbacks}, exact LPs {c.exact_lps})")
        if with_lp:
            pd = PowerDiagram(sites, weights)
            t_lp, slow = best_of(lambda: _cells_by_lp(pd, [j for j in range(n) if j not in pd.duplicates]), 1)
            same = [x and (x.A, x.b, x.neighbors) for x in cells] == [x and (x.A, x.b, x.neighbors) for x in slow]
            line += f" | per-cell LPs {t_lp * 1e3:8.1f} ms, agree: {same}, speed-up {t_lp / t_fast:6.1f}x"
        print(line)


def cgal_3d(pts):
    """CGAL Regular_triangulation_3: insert the weighted points."""
    from CGAL.CGAL_Kernel import Point_3, Weighted_point_3
    from CGAL.CGAL_Triangulation_3 import Regular_triangulation_3

    rt = Regular_triangulation_3()
    rt.insert([Weighted_point_3(Point_3(x, y, z), w) for x, y, z, w in pts])
    return rt


def cgal_3d_readback(rt, idx):
    """The hidden sites and the sorted edge list (site-index pairs) of a CGAL regular triangulation."""
    vid = {}
    for v in rt.finite_vertices():
        wp = v.point()
        p = wp.point()
        vid[v] = idx[(p.x(), p.y(), p.z(), wp.weight())]
    hidden = sorted(set(range(len(idx))) - set(vid.values()))
    edges = []
    for e in rt.finite_edges():
        c = e.first
        a, b = vid[c.vertex(e.second)], vid[c.vertex(e.third)]
        edges.append((a, b) if a < b else (b, a))
    edges.sort()
    return hidden, edges


def pyvoro2_3d(pts):
    """pyvoro2 (voro++): the power cells of the sites in their bounding box (radii from the weights)."""
    import pyvoro2

    P = np.array(pts)
    box = pyvoro2.Box(((P[:, 0].min() - 1, P[:, 0].max() + 1), (P[:, 1].min() - 1, P[:, 1].max() + 1),
                       (P[:, 2].min() - 1, P[:, 2].max() + 1)))
    return pyvoro2.compute(P[:, :3], domain=box, mode="power", radii=np.sqrt(P[:, 3]))


def bench_3d(sizes=(500, 1000, 2000, 5000)):
    print("== 4. 3-D power diagrams: tropattn (exact, all cells + adjacency) against CGAL and pyvoro2 ==")
    try:
        import CGAL  # noqa: F401
        have_cgal = True
    except ImportError:
        have_cgal = False
        print("   (CGAL not installed: pip install cgal)")
    for n in sizes:
        sites, weights = instance_d(3, n, 7 * n)
        pts = [(float(x), float(y), float(z), float(w)) for (x, y, z), w in zip(sites, weights)]
        assert all(Fraction(v) == r for p, (s, w) in zip(pts, zip(sites, weights)) for v, r in zip(p, (*s, w)))
        with counting() as c:
            t_ex, (pd, g) = best_of(lambda: tropattn_run(sites, weights), 3)
        fast = c.by_place["certified:power.simplicial"] == 3
        line = (f"n = {n:5d}: hidden {len(pd.hidden):4d}, edges {g.number_of_edges():6d} | tropattn {t_ex:7.3f} s"
                f" (fast path: {fast})")
        if have_cgal:
            idx = {p: i for i, p in enumerate(pts)}
            t_ins, _ = best_of(lambda: cgal_3d(pts), 3)
            t_all, (h_cg, e_cg) = best_of(lambda: cgal_3d_readback(cgal_3d(pts), idx), 3)
            same = h_cg == list(pd.hidden) and e_cg == sorted(tuple(sorted(e)) for e in g.edges)
            line += (f" | CGAL RT3 insert {t_ins:6.3f} s, insert + readback {t_all:6.3f} s, agrees: {same};"
                     f" ratio {t_ex / t_all:5.1f}x (insert only {t_ex / t_ins:5.1f}x; target <= 3x)")
            if not same:
                print("   MISMATCH with CGAL", file=sys.stderr)
        try:
            t_pv, _ = best_of(lambda: pyvoro2_3d(pts), 3)
            line += f" | pyvoro2 {t_pv:7.3f} s ratio {t_ex / t_pv:5.1f}x"
        except Exception as exc:  # noqa: BLE001 - an optional baseline that may not accept the input
            line += f" | pyvoro2 unavailable ({type(exc).__name__})"
        print(line)


if __name__ == "__main__":
    t0 = time.perf_counter()
    if sys.argv[1:] == ["3d"]:                  # python scripts/bench_power.py 3d: section 4 only
        bench_3d()
        bench_counting(3)
        print(f"total {time.perf_counter() - t0:.1f} s")
        sys.exit()
    if sys.argv[1:] == ["counting"]:            # python scripts/bench_power.py counting: sections 0 and 0b
        bench_counting(2)
        bench_counting(3)
        bench_memory()
        sys.exit()
    bench_counting(2)
    bench_memory()
    bench_diagrams()
    bench_overlay()
    bench_fast_paths()
    bench_3d()
    print(f"total {time.perf_counter() - t0:.1f} s")
