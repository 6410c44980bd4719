"""Benchmark: the vectorised attention velocity field against a per-token Python loop.

Usage::

    python scripts/bench_dynamics.py [--configs 100:3:1,1000:16:4,...] [--subset 100] [--full]

For each ``n:d:H`` (tokens, dimension, heads) it times one evaluation of
:func:`tropattn.dynamics.velocity` (SA, random symmetric heads, ``beta = 2``; einsum/matmul over
tokens and heads, blocked over query rows for large ``n``) -- one evaluation is one step of the
Euler scheme, so ``n / time`` is *token-steps per second* -- and, in the same run, a
straightforward loop (numpy on one token at a time: its scores against every token for every
head, a softmax, the weighted sum of values, the tangent projection) on ``subset`` tokens,
extrapolated per token.  Both results are compared on the subset.  ``--full`` runs the grid
n = 1e2, 1e3, 1e4 x d = 3, 16, 64 x H = 1, 4, 16 (several minutes); the default list finishes
in well under a minute.  BLAS runs on one thread (set ``OPENBLAS_NUM_THREADS`` to override): on a
shared machine a multi-threaded BLAS is slower and noisier, and both sides use the same BLAS.
"""

from __future__ import annotations

import argparse
import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
from benchlib import best_of  # noqa: E402

from tropattn.dynamics import random_symmetric, random_tokens, velocity  # noqa: E402

DEFAULT = "100:3:1,100:64:16,1000:3:1,1000:16:4,1000:64:16,10000:3:1,10000:64:1"


def loop_velocity(X, M, beta, tokens):
    """SA velocity of the given tokens, one token and one head at a time."""
    out = []
    for i in tokens:
        x = X[i]
        v = np.zeros_like(x)
        for Mh in M:
            values = X @ Mh.T                      # M_h x_j for every j
            s = beta * (values @ x)
            p = np.exp(s - s.max())
            v += (p / p.sum()) @ values
        out.append(v - (v @ x) * x)
    return np.array(out)


def run(n, d, H, subset, beta=2.0, seed=0):
    rng = np.random.default_rng(seed)
    X, M = random_tokens(n, d, rng), random_symmetric(d, rng, H)
    t_vec, V = best_of(lambda: velocity(X, M, beta), repeat=3 if n * n * H * d < 1e9 else 1)
    m = min(n, subset)
    t_loop, L = best_of(lambda: loop_velocity(X, M, beta, range(m)), repeat=2)
    err = float(np.abs(V[:m] - L).max())
    return n / t_vec, m / t_loop, err


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--configs", default=DEFAULT, help="comma-separated n:d:H triples")
    ap.add_argument("--subset", type=int, default=100, help="tokens timed in the per-token loop")
    ap.add_argument("--full", action="store_true", help="the whole grid n in 1e2..1e4, d in 3..64, H in 1..16")
    args = ap.parse_args(argv)
    if args.full:
        configs = [(n, d, H) for n in (100, 1000, 10000) for d in (3, 16, 64) for H in (1, 4, 16)]
    else:
        configs = [tuple(int(v) for v in c.split(":")) for c in args.configs.split(",")]
    print(f"{'n':>6} {'d':>4} {'H':>3} {'vectorised tok-steps/s':>23} {'loop tok-steps/s':>17} {'ratio':>8} "
          f"{'max |diff|':>11}")
    for n, d, H in configs:
        vec, loop, err = run(n, d, H, args.subset)
        print(f"{n:>6} {d:>4} {H:>3} {vec:>23,.0f} {loop:>17,.0f} {vec / loop:>8.1f} {err:>11.1e}", flush=True)


if __name__ == "__main__":
    main()
