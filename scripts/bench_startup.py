"""Benchmark: start-up of the command line, in CPU seconds (issue 23, item 4: under 0.25).

Run:  python scripts/bench_startup.py [--baseline COMMIT] [--repeat 7]

Each command runs in a fresh process, ``python -m tropattn ARGS`` with the tree first on
``PYTHONPATH``, its output discarded; its CPU is user + system time of that child
(``resource.getrusage(RUSAGE_CHILDREN)``, before and after), so a second core's BLAS threads
count too.  The children get the environment as a new user's shell has it: no
``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS``.  Both trees are byte-compiled first (an
installed package is), and with ``--baseline`` the runs of the two trees alternate, so that
a busy moment of the machine falls on both.  Printed: best and median CPU per command and
tree, the baseline's over this tree's, and the floors (the bare interpreter, ``import numpy``).
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import statistics
import subprocess
import sys

from benchlib import ROOT, tree_of

COMMANDS = [
    ("tropattn --version", ["-m", "tropattn", "--version"]),
    ('tropattn regions "max(0, x)"', ["-m", "tropattn", "regions", "max(0, x)"]),
    ("tropattn regions (the conic)", ["-m", "tropattn", "regions", "max(3, x + 2, y + 2, x + y + 3, 2*x, 2*y)"]),
]
#: The commands with the issue's target (the conic's regions are work, not start-up: shown for scale).
TARGETED = {"tropattn --version", 'tropattn regions "max(0, x)"'}
FLOORS = [("python -c pass", ["-c", "pass"]), ("python -c 'import numpy'", ["-c", "import numpy"])]
TARGET = 0.25


def child_cpu(tree, args) -> float:
    """CPU seconds (user + system) of one ``python ARGS`` run with ``tree`` first on the path."""
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                                             "MKL_NUM_THREADS")}
    env["PYTHONPATH"] = str(tree) + os.pathsep + env.get("PYTHONPATH", "")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = subprocess.run([sys.executable, *args], cwd=tree, env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed in {tree}:\n{run.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="also the tree of this commit, runs alternating (e.g. b7fbd03)")
    ap.add_argument("--repeat", type=int, default=7, help="runs of each command per tree (default 7)")
    args = ap.parse_args()
    compileall.compile_dir(str(ROOT / "tropattn"), quiet=1)
    trees = [("this tree", ROOT)] + ([(f"baseline {args.baseline}", tree_of(args.baseline))] if args.baseline else [])
    rows = []
    for label, argv in COMMANDS + FLOORS:
        runs = {name: [] for name, _ in trees}
        for _ in range(args.repeat):
            for name, tree in trees:
                runs[name].append(child_cpu(tree, argv))
        rows.append((label, runs))
    print(f"start-up CPU seconds (user + system of a fresh process), best / median of {args.repeat}, "
          f"load average {os.getloadavg()[0]:.1f}")
    head = "".join(f"{name:>26}" for name, _ in trees)
    print(f"{'command':<34}{head}" + ("   baseline / this (median)" if len(trees) > 1 else ""))
    for label, runs in rows:
        cells = "".join(f"{min(r):>13.3f} / {statistics.median(r):<10.3f}" for r in runs.values())
        line = f"{label:<34}{cells}"
        if len(trees) > 1:
            this, base = (statistics.median(r) for r in runs.values())
            line += f"   {base / this:5.2f}x"
        if label in TARGETED:
            line += f"   target <= {TARGET}: {'PASS' if statistics.median(runs['this tree']) <= TARGET else 'FAIL'}"
        print(line)


if __name__ == "__main__":
    main()
