"""Benchmark: exact region enumeration -- regions per CPU-second, peak memory, before/after, Dask scaling.

Every measurement runs in a fresh Python process (so its peak resident memory, from
``getrusage``, belongs to that one search) and prints one row:

1. **before / after**: the same models counted by the reference search of commit
   ``--baseline`` (default ``c2518f7``, the breadth-first search that held every
   region; extracted with ``git archive`` into a temporary directory) and by this tree,
   with ``keep="all"`` (every region, graph and linear region kept) and
   ``keep="counts"`` (streamed: nothing kept but the union-find); the counts must agree;
2. **cost and memory against the number of regions** on the sawtooth
   ``sawtooth_model(2, N, 2)`` (N^4 regions): regions per CPU-second, peak RSS, the
   least-squares slope of log(CPU) on log(R) and the extra bytes per region;
3. **Dask**: wall time with a LocalCluster of 1 and of 2 worker processes (started, with
   tropattn imported on every worker, before the clock), beside ``workers=2`` (a process pool);
4. **the facet step, d = 2 and 3** (issue 23): regions per CPU-second with ``keep="counts"``
   on the sawtooth 10^4 (d = 2), ``sawtooth_model(3, N, 2)`` for N = 3..5 and
   ``random_model(3, 4, 8, 2)``, this tree against ``--facets-baseline`` (default ``6f894ef``,
   the tree before the issue-23 work), the same run; and the **distance to the floor**: the
   search's CPU over that of its facet step alone (one certified facet enumeration per region,
   replayed on the recorded inputs), a bare float ``HalfspaceIntersection`` per region beside it
   for scale, and the peak memory per region.

    python scripts/bench_regions.py                 # about two minutes
    python scripts/bench_regions.py --sizes 10,18,32 --no-baseline      # adds 10^6 regions (minutes)
    python scripts/bench_regions.py --only-facets   # section 4 alone (about a minute)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from benchlib import tree_of

ROOT = Path(__file__).resolve().parent.parent

MODELS = {  # name -> constructor call (evaluated in the child, with tropattn.attention imported)
    "sawtooth": "sawtooth_model(2, {N}, 2)",
    "random": "random_model(2, 6, 12, 2, seed=1)",
    "random deep": "random_model(2, 4, 8, 3, seed=1)",
}

CHILD = r"""
import json, resource, sys, time
from tropattn.attention import random_model, sawtooth_model
from tropattn.regions import enumerate_regions
spec = json.loads(sys.argv[1])
model = eval(spec["model"])
enumerate_regions(random_model(2, 2, 3, 1, seed=0), progress=False)   # imports (scipy) and first-use caches
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kwargs = {"progress": False}
if spec["keep"] != "old":
    kwargs["keep"] = spec["keep"]
if spec.get("processes"):
    kwargs["workers"] = spec["processes"]
if spec.get("scheduler"):
    from tropattn.backends import DaskExecutor
    ex = DaskExecutor("local", workers=spec["workers"])
    ex.client.run(__import__, "tropattn.regions._search")             # start the cluster and import on every
    enumerate_regions(random_model(2, 2, 3, 1, seed=0), progress=False, executor=ex)  # worker before the clock
    kwargs["executor"] = ex
calls = []
if spec.get("floor"):          # start-up first (the model's steps are cached on it), then the search alone
    from tropattn.regions._steps import model_steps
    t = time.process_time()
    model_steps(model)
    steps_cpu = time.process_time() - t
    # record the facet step's inputs (a bench may wrap what a test may not)
    import tropattn.regions._refine as refine_module
    facets = refine_module.region_facets
    def recorded(rows, X, D, entry=None):
        calls.append((rows, X, D, entry))
        return facets(rows, X, D, entry)
    refine_module.region_facets = recorded
cpu, wall = time.process_time(), time.perf_counter()
r = enumerate_regions(model, **kwargs)
cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
n = getattr(r, "n_activation", 0) or len(r.activation_regions)
lin = getattr(r, "n_linear", 0) or len(r.linear_regions)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
row = {"n": n, "linear": lin, "cpu": cpu, "wall": wall, "rss_kb": peak, "base_kb": base}
if calls:
    refine_module.region_facets = facets
    t = time.process_time()
    for c in calls:            # the facet step alone: one certified enumeration per region, replayed
        facets(*c)
    row["facet_cpu"] = time.process_time() - t
    import numpy as np
    from scipy.spatial import HalfspaceIntersection
    t = time.process_time()
    for rows, X, D, entry in calls:   # one float halfspace intersection per region (no certificate), for scale
        H = np.array([[float(v) for v in q[:-1]] + [-float(q[-1])] for q in rows if any(q[:-1])])
        try:
            HalfspaceIntersection(np.vstack([H, np.hstack([np.vstack([np.eye(len(X)), -np.eye(len(X))]),
                                  -np.full((2 * len(X), 1), 1e6)])]), np.array([x / D for x in X]))
        except Exception:
            pass
    row["qhull_cpu"] = time.process_time() - t
    row["calls"] = len(calls)
    row["steps_cpu"] = steps_cpu
print(json.dumps(row))
"""


def run(tree, model, keep, **extra):
    """One search in a fresh process on the tropattn of ``tree``; its JSON row."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    spec = json.dumps(dict(model=model, keep=keep, **extra))
    out = subprocess.run([sys.executable, "-c", CHILD, spec], env=env, cwd=tree, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"child failed ({tree}, {model}, {keep}):\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def fmt(name, keep, row):
    mb = row["rss_kb"] / 1024
    return (f"{name:<26} {keep:<7} {row['n']:>9} {row['linear']:>9} {row['cpu']:>8.2f} {row['n'] / row['cpu']:>9.0f} "
            f"{mb:>8.1f}")


HEADER = f"{'model':<26} {'keep':<7} {'regions':>9} {'linear':>9} {'cpu s':>8} {'reg/cpu-s':>9} {'peak MB':>8}"


def fit(xs, ys):
    """Least-squares slope of ys on xs."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", default="c2518f7", help="commit of the reference search (default c2518f7)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the before/after rows")
    ap.add_argument("--compare-N", type=int, default=10, help="sawtooth N for before/after (N^4 regions)")
    ap.add_argument("--sizes", default="6,10,14,18", help="sawtooth N for the cost and memory curve")
    ap.add_argument("--dask-N", type=int, default=14, help="sawtooth N for the Dask rows (0: skip)")
    ap.add_argument("--facets-baseline", default="6f894ef", help="commit for section 4 (default 6f894ef)")
    ap.add_argument("--only-facets", action="store_true", help="run section 4 only")
    args = ap.parse_args()
    if args.only_facets:
        facets_section(args.facets_baseline)
        return
    main_sections(args)
    facets_section(args.facets_baseline)


FACET_MODELS = ("sawtooth_model(2, 10, 2)", "sawtooth_model(2, 18, 2)", "sawtooth_model(3, 3, 2)",
                "sawtooth_model(3, 4, 2)", "sawtooth_model(3, 5, 2)", "random_model(3, 4, 8, 2)")


def facets_section(commit):
    """Section 4: keep="counts" regions per CPU-second, the baseline tree and this one; the distance to the floor.

    ``floor``: the whole search's CPU over that of its facet step alone (every call of the
    certified facet enumeration replayed on the same inputs: one per region reached, and the
    search cannot do less than find each region's facets); ``qhull``: the CPU of one bare
    scipy ``HalfspaceIntersection`` per call (floats only, no certificate), over the facet
    step's, for scale.  ``net``: this tree's rate with the start-up (the model's steps: power
    diagrams, pulled-back maps) done before the clock.  ``MB``: peak RSS; below the table, the
    extra bytes per region between two sizes of one family (keep="counts" holds 8 per region).
    """
    print(f"\n4. the facet step: regions per CPU-second, keep=counts, {commit} against this tree (same run)")
    print(f"{'model':<26} {'regions':>9} {'before':>10} {'after':>10} {'speedup':>8} {'net':>8} {'floor':>7} "
          f"{'qhull':>7} {'MB':>6}")
    old = tree_of(commit)
    rows = {}
    for model in FACET_MODELS:
        before, after = run(old, model, "counts"), run(ROOT, model, "counts")
        assert (before["n"], before["linear"]) == (after["n"], after["linear"]), (model, before, after)
        floor = run(ROOT, model, "counts", floor=True)
        rows[model] = after
        rb, ra = before["n"] / before["cpu"], after["n"] / after["cpu"]
        print(f"{model:<26} {after['n']:>9} {rb:>10.0f} {ra:>10.0f} {ra / rb:>7.2f}x {floor['n'] / floor['cpu']:>8.0f} "
              f"{floor['cpu'] / floor['facet_cpu']:>6.2f}x {floor['qhull_cpu'] / floor['facet_cpu']:>6.2f}x "
              f"{after['rss_kb'] / 1024:>6.1f}", flush=True)
    for small, large in (("sawtooth_model(2, 10, 2)", "sawtooth_model(2, 18, 2)"),
                         ("sawtooth_model(3, 4, 2)", "sawtooth_model(3, 5, 2)")):
        a, b = rows[small], rows[large]
        print(f"  {large}: peak RSS grows {(b['rss_kb'] - a['rss_kb']) * 1024 / (b['n'] - a['n']):,.0f} bytes "
              f"per region over {small}")


def main_sections(args):
    print("1. before / after (same models, fresh process each; counts must agree)")
    print(HEADER + f" {'speedup':>8}")
    old_tree = None if args.no_baseline else tree_of(args.baseline)
    for name, call in MODELS.items():
        model = call.format(N=args.compare_N)
        label = f"{name} {model.split('(')[1].rstrip(')')}"
        before = run(old_tree, model, "old") if old_tree else None
        if before:
            print(fmt(label, "before", before), flush=True)
        for keep in ("all", "counts"):
            after = run(ROOT, model, keep)
            if before:
                assert (after["n"], after["linear"]) == (before["n"], before["linear"]), (label, before, after)
                speed = (after["n"] / after["cpu"]) / (before["n"] / before["cpu"])
                print(fmt(label, keep, after) + f" {speed:>7.1f}x", flush=True)
            else:
                print(fmt(label, keep, after), flush=True)

    print("\n2. sawtooth(2, N, 2): cost and peak memory against the number of regions R = N^4")
    print(HEADER)
    curve = {"all": [], "counts": []}
    for N in map(int, args.sizes.split(",")):
        for keep in ("counts", "all"):
            if keep == "all" and N ** 4 > 200_000:
                continue  # every region kept: memory grows with R (that is the point of keep="counts")
            row = run(ROOT, f"sawtooth_model(2, {N}, 2)", keep)
            curve[keep].append(row)
            print(fmt(f"sawtooth N={N}", keep, row), flush=True)
    for keep, rows in curve.items():
        if len(rows) >= 2:
            slope = fit([math.log(r["n"]) for r in rows], [math.log(r["cpu"]) for r in rows])
            per_region = (rows[-1]["rss_kb"] - rows[0]["rss_kb"]) * 1024 / (rows[-1]["n"] - rows[0]["n"])
            print(f"  keep={keep:<6}: CPU ~ R^{slope:.2f};  peak RSS grows {per_region:,.0f} bytes per region "
                  f"({rows[0]['rss_kb'] / 1024:.0f} MB at R = {rows[0]['n']:,}, "
                  f"{rows[-1]['rss_kb'] / 1024:.0f} MB at R = {rows[-1]['n']:,})")

    if args.dask_N:
        print(f"\n3. Dask LocalCluster, sawtooth(2, {args.dask_N}, 2), keep=counts (wall seconds; cluster started and "
              "warmed before the clock), beside the process pool of --workers 2")
        serial = run(ROOT, f"sawtooth_model(2, {args.dask_N}, 2)", "counts")
        print(f"  serial          : {serial['n']:>8} regions in {serial['wall']:6.2f} s wall")
        pool = run(ROOT, f"sawtooth_model(2, {args.dask_N}, 2)", "counts", processes=2)
        print(f"  processes, 2    : {pool['n']:>8} regions in {pool['wall']:6.2f} s wall "
              f"({serial['wall'] / pool['wall']:.2f}x serial)")
        for w in (1, 2):
            row = run(ROOT, f"sawtooth_model(2, {args.dask_N}, 2)", "counts", scheduler="local", workers=w)
            assert row["n"] == serial["n"]
            print(f"  dask, {w} worker{'s' if w > 1 else ' '}: {row['n']:>8} regions in {row['wall']:6.2f} s wall "
                  f"({serial['wall'] / row['wall']:.2f}x serial)", flush=True)


if __name__ == "__main__":
    main()
