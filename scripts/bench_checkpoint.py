"""Benchmark: a GPT-2-small-shaped checkpoint on a 2-D slice -- load, exact skeleton, exact region count.

Every case runs in a fresh Python process and prints one row: the model (``d`` = n_embd,
12 heads, ``L`` blocks, MLP ``4 d``, random weights from ``transformers``' own GPT-2
initialisation, seeded, written by ``save_pretrained``), the context length ``N``, and per
phase the CPU seconds of that process:

* ``load``: reading the safetensors file and config.json, the context's float forward, the
  exact skeleton on the query's ``d``-dimensional state and its slice, the plane through the
  embeddings of tokens 0, 1, 2 at the query's position (``tropattn.io.slice_checkpoint`` with
  ``layernorm="drop"`` or ``--layernorm freeze``, ``self_key="exclude", activation="relu"``);
* ``count``: the exact count of activation and linear regions in the box ``[-B, B]^2``
  (``count_regions(keep="counts")``), its CPU seconds (every thread of the process) and wall
  seconds, and the regions per CPU-second;

BLAS runs on one thread, as in ``tropattn count`` (``OPENBLAS_NUM_THREADS=1`` unless the
environment names a count; ``--threaded-blas`` keeps numpy's default, whose spinning threads
gave the same wall time for 1.3-1.8x the CPU at d = 768);

with the peak resident memory of the process after each phase and, for scale, the number
of distinct label patterns a float grid of 61 x 61 points sees (a lower bound, floats).

The budget is a wall-clock allowance for the *benchmark*, not for an answer: a case whose
process is still running when its share is spent is stopped and reported as "did not finish
in S s" with the phases it completed; once the whole budget is spent the remaining cases
are skipped.  Counts that are printed are exact.

    python scripts/bench_checkpoint.py --quick              # d = 768, L = 1, N = 8 (the target: <= 60 s)
    python scripts/bench_checkpoint.py                       # L = 1, 2 and N = 8, 16
    python scripts/bench_checkpoint.py --contexts 8 --largest-L 6 --case-budget 600   # the largest L in 10 min

``--largest-L K`` then tries L = 1, 2, ... K (N = the first context) and prints the largest L
whose count finished within ``--case-budget`` seconds (stopping at the first that did not).
The float grid is only a lower bound: at d = 768, N = 8 in ``[-1, 1]^2`` it sees 177
patterns where the exact count is 53,210 regions.
    python scripts/bench_checkpoint.py --dims 64,128,256 --layers 1 --contexts 8 --budget 600
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r'''
import json, resource, sys, time
import numpy as np
spec = json.loads(sys.argv[1])

def mem():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024       # MiB (Linux: KiB)

def report(**kw):
    print(json.dumps(kw), flush=True)

import torch, transformers
from tropattn.io import slice_checkpoint
from tropattn.regions import count_regions
from tropattn.io._skeleton import slice_grid, query_path

torch.manual_seed(spec["seed"])
cfg = transformers.GPT2Config(n_embd=spec["d"], n_head=spec["heads"], n_layer=spec["L"], n_positions=64,
                              vocab_size=64, bos_token_id=0, eos_token_id=0)
transformers.GPT2LMHeadModel(cfg).save_pretrained(spec["dir"])
ids = list(range(3, 3 + spec["N"]))
report(phase="start", mem=mem())
t = time.process_time()
cut = slice_checkpoint(spec["dir"], ids, tokens=[0, 1, 2], layernorm=spec["layernorm"], self_key="exclude",
                       activation="relu")
report(phase="load", cpu=time.process_time() - t, mem=mem())
sk, S, x0, U = cut.skeleton, cut.model, cut.x0, cut.directions
B = spec["box"]
_, X = slice_grid([float(v) for v in x0], [[float(v) for v in u] for u in U], B, 61)
labels = query_path(sk.blocks, sk.Ys, X)[1]
report(phase="grid", patterns=len({r.tobytes() for r in labels.reshape(len(X), -1)}))
if spec["count"]:
    t, w = time.process_time(), time.perf_counter()
    c = count_regions(S, box=(-B, B), keep="counts", progress=False)
    report(phase="count", cpu=time.process_time() - t, wall=time.perf_counter() - w, mem=mem(),
           activation=c.n_activation, linear=c.n_linear)
'''


#: What names a BLAS thread count; without one the child runs BLAS on one thread, as ``tropattn count`` does.
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def run_case(spec, allowance, threaded_blas=False):
    """Run one case in a child process; returns the dict of its phases (and ``"stopped"`` on timeout)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if not threaded_blas and not any(os.environ.get(name) for name in BLAS_THREAD_VARIABLES):
        env["OPENBLAS_NUM_THREADS"] = "1"
    out = {}
    with tempfile.TemporaryDirectory() as folder:
        spec = dict(spec, dir=folder)
        proc = subprocess.Popen([sys.executable, "-c", CHILD, json.dumps(spec)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        try:
            stdout, stderr = proc.communicate(timeout=allowance)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            out["stopped"] = allowance
        for line in stdout.splitlines():
            if line.startswith("{"):
                row = json.loads(line)
                out[row.pop("phase")] = row
        if proc.returncode not in (0, None) and "stopped" not in out:
            out["error"] = (stderr.strip().splitlines() or ["?"])[-1]
    return out


def describe(spec, res) -> str:
    head = f"d={spec['d']:4d} H={spec['heads']:2d} L={spec['L']} N={spec['N']:2d} {spec['layernorm']:6s}"
    parts = []
    for phase in ("load",):
        if phase in res:
            parts.append(f"{phase} {res[phase]['cpu']:7.2f} s")
    if "grid" in res:
        parts.append(f"grid patterns {res['grid']['patterns']:5d}")
    if "count" in res:
        c = res["count"]
        rate = c["activation"] / c["cpu"] if c["cpu"] > 0 else float("inf")
        parts.append(f"count {c['cpu']:8.2f} CPU-s ({c['wall']:.2f} s wall)  regions {c['activation']} (linear {c['linear']})  "
                     f"{rate:8.1f} regions/CPU-s")
    peak = max((r["mem"] for r in res.values() if isinstance(r, dict) and "mem" in r), default=None)
    if peak is not None:
        base = res.get("start", {}).get("mem", 0)
        parts.append(f"peak {peak:6.0f} MiB ({peak - base:+.0f} over the imports and the model build)")
    if "stopped" in res:
        parts.append(f"did not finish in {res['stopped']:.0f} s")
    if "error" in res:
        parts.append(f"error: {res['error']}")
    return head + "  " + "  ".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="one case: d = 768, L = 1, N = 8")
    ap.add_argument("--dims", default="768", help="n_embd values (comma-separated; 12 heads each)")
    ap.add_argument("--layers", default="1,2", help="numbers of blocks L")
    ap.add_argument("--contexts", default="8,16", help="context lengths N")
    ap.add_argument("--box", type=float, default=1.0, help="half-width B of the slice box [-B, B]^2")
    ap.add_argument("--budget", type=float, default=600.0, help="wall seconds for the whole benchmark")
    ap.add_argument("--case-budget", type=float, default=600.0, help="wall seconds for one case")
    ap.add_argument("--no-count", action="store_true", help="load and slice only (no region count)")
    ap.add_argument("--layernorm", choices=("drop", "freeze"), default="drop", help="the skeleton's LayerNorm option")
    ap.add_argument("--json", action="store_true", help="one JSON object per case")
    ap.add_argument("--threaded-blas", action="store_true",
                    help="numpy's own BLAS threads (default: one thread, as `tropattn count` runs)")
    ap.add_argument("--largest-L", type=int, default=0, metavar="K",
                    help="then try L = 1..K and report the largest L counted within --case-budget")
    args = ap.parse_args(argv)
    dims, layers, contexts = ([768], [1], [8]) if args.quick else (
        [int(v) for v in args.dims.split(",")], [int(v) for v in args.layers.split(",")],
        [int(v) for v in args.contexts.split(",")])
    start = time.monotonic()
    for d in dims:
        for L in layers:
            for N in contexts:
                spec = {"d": d, "heads": 12 if d % 12 == 0 else 4, "L": L, "N": N, "seed": 0, "box": args.box,
                        "count": not args.no_count, "layernorm": args.layernorm}
                left = args.budget - (time.monotonic() - start)
                if left <= 1:
                    print(f"d={d:4d} L={L} N={N:2d}  skipped: the budget of {args.budget:.0f} s is spent", flush=True)
                    continue
                res = run_case(spec, min(left, args.case_budget), args.threaded_blas)
                print(json.dumps({"case": spec, **res}) if args.json else describe(spec, res), flush=True)
    if args.largest_L:
        N, largest = contexts[0], 0
        for L in range(1, args.largest_L + 1):
            spec = {"d": dims[0], "heads": 12 if dims[0] % 12 == 0 else 4, "L": L, "N": N, "seed": 0,
                    "box": args.box, "count": True, "layernorm": args.layernorm}
            res = run_case(spec, args.case_budget, args.threaded_blas)
            print(json.dumps({"case": spec, **res}) if args.json else describe(spec, res), flush=True)
            if "count" not in res:
                break
            largest = L
        print(f"largest L counted within {args.case_budget:.0f} s (d={dims[0]}, N={N}, box [-{args.box}, {args.box}]^2): "
              f"{largest}", flush=True)


if __name__ == "__main__":
    main()
