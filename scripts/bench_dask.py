"""Benchmark: does Dask scale?  Serial, a process pool of 2, Dask with 1 and 2 local workers (issue 23, item 5).

The targets: Dask with one local worker no slower than serial (wall ratio <= 1.10), with two
local workers at least 1.8x faster than serial (wall), on ``sawtooth_model(2, N, 2)`` with
N = 18 (104,976 regions, ``keep="counts"``) on an idle 2-core machine.

Every run is a fresh Python process.  For Dask the cluster's start-up (LocalCluster, tropattn
imported on every worker, a first tiny search) is timed apart from the run.  Printed per run:
wall seconds; CPU seconds of the caller (whose process also hosts the local scheduler and the
nannies) and of each worker process; each worker's time in tasks (Dask's task stream); the
tasks and how many chunks each held (sized from the measured CPU cost per chunk,
``DaskExecutor.task_sizes``); the scheduler's overhead per task (400 empty tasks through
``client.map``) and one task's round trip.

On a loaded machine wall ratios are noise, so a CPU-bound estimate is printed beside them:
``serial CPU / max(the busiest process's CPU, all CPU / cores)`` (the best wall time these CPU
seconds allow on an idle machine with ``cores`` cores).  PASS/FAIL is printed for both.

    python scripts/bench_dask.py                        # about 2 minutes on an idle machine
    python scripts/bench_dask.py --N 14 --repeat 1      # 38,416 regions, quick
    python scripts/bench_dask.py --baseline main        # also the tree of a commit, the same run
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchlib import tree_of

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time
from tropattn.attention import random_model, sawtooth_model
from tropattn.regions import enumerate_regions

def main():
    spec = json.loads(sys.argv[1])
    model = sawtooth_model(2, spec["N"], 2)
    enumerate_regions(random_model(2, 2, 3, 1, seed=0), progress=False)   # imports and first-use caches
    kwargs, out = {"progress": False, "keep": "counts"}, {}
    if spec["mode"] == "processes":
        kwargs["workers"] = spec["workers"]
    if spec["mode"] == "dask":
        import distributed
        from tropattn.backends import DaskExecutor
        cpu, wall = time.process_time(), time.perf_counter()
        ex = DaskExecutor("local", workers=spec["workers"])
        ex.client.run(__import__, "tropattn.regions._search")          # start the cluster, import on every worker
        enumerate_regions(random_model(2, 2, 3, 1, seed=0), progress=False, executor=ex)
        out["startup_wall"], out["startup_cpu"] = time.perf_counter() - wall, time.process_time() - cpu
        kwargs["executor"] = ex
        client = ex.client
        w0 = client.run(time.process_time)
        stream = distributed.get_task_stream(client)
        stream.__enter__()
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, wall = time.process_time(), time.perf_counter()
    r = enumerate_regions(model, **kwargs)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    out.update(n=r.n_activation, linear=r.n_linear, wall=wall, cpu=cpu, workers=[])
    if spec["mode"] == "processes":                          # the pool's processes, reaped when it shut down
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out["workers"] = [after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime]
        out["pool"] = spec["workers"]
    if spec["mode"] == "dask":
        stream.__exit__(None, None, None)
        w1 = client.run(time.process_time)
        out["workers"] = [w1[k] - w0[k] for k in sorted(w1)]
        spans = {}
        for task in stream.data:
            if str(task.get("key", "")).startswith(("run_batch", "run_chunk")):
                for ss in task["startstops"]:
                    if ss["action"] == "compute":
                        spans.setdefault(task["worker"], []).append((ss["start"], ss["stop"]))
        out["compute"] = [sum(b - a for a, b in spans[k]) for k in sorted(spans)]
        gaps = [b[0] - a[1] for k in spans for a, b in zip(sorted(spans[k]), sorted(spans[k])[1:])]
        out["gap_ms"] = 1e3 * sum(gaps) / max(1, len(gaps))        # a worker idle between two of its tasks
        out["task_sizes"] = getattr(ex, "task_sizes", None)
        out["chunk_seconds"] = getattr(ex, "chunk_seconds", None)
        t = time.perf_counter()
        client.gather(client.map(abs, range(-400, 0), pure=False))
        out["per_task_ms"] = (time.perf_counter() - t) / 400 * 1e3
        t = time.perf_counter()
        for i in range(20):
            client.submit(abs, -i, pure=False).result()
        out["round_trip_ms"] = (time.perf_counter() - t) / 20 * 1e3
        ex.close()
    print(json.dumps(out))

if __name__ == "__main__":
    main()
"""


def run(tree, **spec):
    """One search in a fresh process on the tropattn of ``tree``; its JSON row."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:   # a file: Dask's workers spawn
        f.write(CHILD)
    try:
        out = subprocess.run([sys.executable, f.name, json.dumps(spec)], env=env, cwd=tree, capture_output=True,
                             text=True)
    finally:
        os.unlink(f.name)
    if out.returncode != 0:
        raise SystemExit(f"child failed ({tree}, {spec}):\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


CONFIGS = [("serial", "serial", 1), ("processes(2)", "processes", 2), ("dask(1)", "dask", 1), ("dask(2)", "dask", 2)]


def total_cpu(row):
    return row["cpu"] + sum(row["workers"])


def estimate(serial, row, cores):
    """Serial CPU over the best wall these CPU seconds allow on ``cores`` idle cores."""
    busiest = max(row["workers"], default=0.0) / row.get("pool", 1)        # a pool's processes: their mean
    return serial["cpu"] / max(row["cpu"], busiest, total_cpu(row) / cores)


def line(name, row, serial, cores):
    text = f"  {name:<13} {row['n']:>8} {row['wall']:7.2f} {row['cpu']:8.2f}"
    if "compute" in row:
        text += (f"  workers {' + '.join(f'{w:.2f}' for w in row['workers'])} (in tasks "
                 f"{' + '.join(f'{c:.2f}' for c in row['compute'])} s wall)")
    elif row["workers"]:
        text += f"  workers {row['workers'][0]:.2f} (all the pool's processes)"
    text += f"   {serial['wall'] / row['wall']:.2f}x serial wall, CPU-bound estimate {estimate(serial, row, cores):.2f}x"
    return text


def report(label, rows, cores):
    serial = rows["serial"]
    print(f"\n{label}: best wall of the repeats; CPU seconds of that run")
    print(f"  {'run':<13} {'regions':>8} {'wall s':>7} {'main cpu':>8}")
    for name, _, _ in CONFIGS:
        print(line(name, rows[name], serial, cores))
    for name in ("dask(1)", "dask(2)"):
        r = rows[name]
        sizes = r.get("task_sizes")
        if sizes is not None:
            print(f"  {name}: {len(sizes)} tasks holding {sizes} chunks (measured {r['chunk_seconds']:.3f} CPU-s "
                  f"per chunk, so about 0.2 s of work per task and at most a fair share of what remains)")
        print(f"  {name}: start-up {r['startup_wall']:.2f} s wall ({r['startup_cpu']:.2f} CPU-s here); scheduler "
              f"overhead {r['per_task_ms']:.2f} ms per task (400 empty tasks), round trip {r['round_trip_ms']:.2f} ms; "
              f"a worker idle {r['gap_ms']:.2f} ms between its tasks; all CPU {total_cpu(r):.2f} s against serial "
              f"{serial['cpu']:.2f}")
    one, two = rows["dask(1)"], rows["dask(2)"]
    r1, r2 = one["wall"] / serial["wall"], serial["wall"] / two["wall"]
    e1, e2 = estimate(serial, one, cores), estimate(serial, two, cores)
    print(f"  TARGET dask(1) wall / serial wall = {r1:.2f} (<= 1.10): {'PASS' if r1 <= 1.10 else 'FAIL'};  "
          f"CPU-bound estimate {1 / e1:.2f}: {'PASS' if 1 / e1 <= 1.10 else 'FAIL'}")
    print(f"  TARGET serial wall / dask(2) wall = {r2:.2f} (>= 1.8): {'PASS' if r2 >= 1.8 else 'FAIL'};  "
          f"CPU-bound estimate {e2:.2f}: {'PASS' if e2 >= 1.8 else 'FAIL'}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=18, help="sawtooth_model(2, N, 2): N^4 regions (default 18: 104,976)")
    ap.add_argument("--repeat", type=int, default=2, help="runs of each configuration, interleaved (default 2)")
    ap.add_argument("--cores", type=int, default=2, help="cores of the idle machine for the CPU-bound estimate")
    ap.add_argument("--baseline", help="also run the tree of this commit (e.g. main), the same run")
    args = ap.parse_args()
    trees = [("this tree", ROOT)] + ([(f"baseline {args.baseline}", tree_of(args.baseline))] if args.baseline else [])
    print(f"sawtooth_model(2, {args.N}, 2), keep='counts', {args.repeat} interleaved repeats; load average "
          f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores (wall ratios are only meaningful on an idle machine)")
    best = {label: {} for label, _ in trees}
    for _ in range(args.repeat):
        for label, tree in trees:
            for name, mode, workers in CONFIGS:
                row = run(tree, N=args.N, mode=mode, workers=workers)
                if name in best[label] and row["n"] != best[label][name]["n"]:
                    raise SystemExit(f"{label} {name}: {row['n']} regions, then {best[label][name]['n']}")
                if name not in best[label] or row["wall"] < best[label][name]["wall"]:
                    best[label][name] = row
        counts = {(r["n"], r["linear"]) for rows in best.values() for r in rows.values()}
        if len(counts) != 1:
            raise SystemExit(f"the executors disagree on the counts: {sorted(counts)}")
    for label, _ in trees:
        report(label, best[label], args.cores)


if __name__ == "__main__":
    main()
