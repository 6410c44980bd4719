"""Benchmark: exact region enumeration against the brute-force product loop.

Baseline (same run): ``brute_force_regions``, which tries every label tuple of every
layer with a certified LP (the N^{H L} product loop), pruned layer by layer.

Prints, for growing models, the exact count, the enumeration time, regions per
second, and the brute-force time and ratio where the product loop is affordable;
then the largest sawtooth model (N^{dL} regions) counted exactly within a budget.

    python scripts/bench_regions.py [--budget 60] [--brute-limit 20000]
"""

from __future__ import annotations

import argparse

from benchlib import timed

from tropattn.attention import random_model, sawtooth_count, sawtooth_model
from tropattn.regions import brute_force_regions, enumerate_regions


def row(name, model, tuples, brute_limit):
    result, t = timed(lambda: enumerate_regions(model, progress=False))
    n = len(result.activation_regions)
    line = f"{name:<34} {n:>7} {len(result.linear_regions):>7} {t:>9.3f} {n / t:>9.0f}"
    if tuples <= brute_limit:
        patterns, tb = timed(lambda: brute_force_regions(model))
        assert len(patterns) == n, (name, len(patterns), n)
        line += f" {tuples:>9} {tb:>9.3f} {tb / t:>8.1f}x"
    else:
        line += f" {tuples:>9} {'-':>9} {'-':>9}"
    print(line, flush=True)
    return n, t


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=60.0, help="seconds for the largest sawtooth")
    ap.add_argument("--brute-limit", type=int, default=20000, help="largest label-tuple count to brute force")
    ap.add_argument("--workers", type=int, default=2, help="processes for the largest-sawtooth search")
    args = ap.parse_args()
    enumerate_regions(sawtooth_model(1, 2, 1), progress=False)  # warm up imports and caches
    print(f"{'model':<34} {'act.reg':>7} {'lin.reg':>7} {'enum s':>9} {'reg/s':>9} {'tuples':>9} "
          f"{'brute s':>9} {'brute/enum':>9}")
    for d, H, N, L in [(2, 2, 3, 1), (2, 3, 4, 1), (2, 3, 6, 1), (3, 3, 4, 1), (2, 2, 3, 2), (2, 2, 4, 2),
                       (2, 3, 3, 2), (3, 2, 3, 2), (2, 2, 5, 3)]:
        row(f"random d={d} H={H} N={N} L={L}", random_model(d, H, N, L, seed=1), N ** (H * L), args.brute_limit)
    for d, N, L in [(1, 4, 3), (2, 3, 2), (2, 4, 2), (2, 6, 2), (3, 3, 2), (2, 10, 2)]:
        row(f"sawtooth d={d} N={N} L={L}", sawtooth_model(d, N, L), N ** (d * L), args.brute_limit)
    print(f"\nlargest sawtooth within {args.budget:.0f} s (d = 2, L = 2, growing N, {args.workers} workers):")
    best = None
    N = 4
    while True:
        (result, t) = timed(lambda: enumerate_regions(sawtooth_model(2, N, 2), progress=False,
                                                      workers=args.workers))
        n = len(result.activation_regions)
        assert n == sawtooth_count(2, N, 2)
        print(f"  N = {N:>3}: {n:>8} regions (= N^4) in {t:7.2f} s, {n / t:8.0f} regions/s", flush=True)
        if t > args.budget:
            break
        best = (N, n, t)
        if t * 2.5 > args.budget:  # the next size would not fit
            break
        N = int(N * 1.5) + 1
    if best:
        print(f"largest counted exactly within {args.budget:.0f} s: N = {best[0]}, {best[1]} regions in {best[2]:.1f} s")


if __name__ == "__main__":
    main()
