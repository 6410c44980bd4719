"""Benchmark: vectorised soft attention + Jacobians against a per-point Python loop.

Usage::

    python scripts/bench_soft.py [--n 1000000] [--subset 2000] [--keys 16] [--dim 4] [--tau 0.5]

Times :func:`tropattn.soft.soft_jacobian` (``return_output=True``: outputs and
Jacobians in one pass) on ``n`` random query points, then a plain
loop (numpy on one point at a time: softmax, ``y = sum_j p_j v_j``,
``J = (1/tau) sum_j p_j (v_j - y) a_j^T``) on ``subset`` of them, extrapolated to ``n``
points, in the same run.  Both results are compared on the subset.  For reference it
also times a naive vectorised version (``softmax @ V`` and an einsum Jacobian)
without the log-space decomposition that keeps tiny defects accurate.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tropattn.attention import head_arrays
from tropattn.soft import soft_jacobian


def loop_point(A, b, V, x, tau):
    s = A @ x + b
    z = (s - s.max()) / tau
    p = np.exp(z)
    p /= p.sum()
    y = p @ V
    J = np.zeros((V.shape[1], A.shape[1]))
    for j in range(len(p)):
        J += p[j] * np.outer(V[j] - y, A[j])
    return y, J / tau


def naive_vectorised(A, b, V, X, tau):
    Z = (X @ A.T + b) / tau
    Z -= Z.max(axis=1, keepdims=True)
    P = np.exp(Z)
    P /= P.sum(axis=1, keepdims=True)
    Y = P @ V
    abar = P @ A
    J = (np.einsum("nj,jm,jd->nmd", P, V, A, optimize=True) - Y[:, :, None] * abar[:, None, :]) / tau
    return Y, J


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--subset", type=int, default=2000)
    ap.add_argument("--keys", type=int, default=16)
    ap.add_argument("--dim", type=int, default=4)
    ap.add_argument("--dim-out", type=int, default=4)
    ap.add_argument("--tau", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    rng = np.random.default_rng(args.seed)
    head = (rng.normal(size=(args.keys, args.dim)), rng.normal(size=args.keys),
            rng.normal(size=(args.keys, args.dim_out)))
    h = head_arrays(head)
    X = rng.uniform(-3, 3, (args.n, args.dim))
    print(f"N = {args.keys} keys, d = {args.dim}, d_out = {args.dim_out}, tau = {args.tau}, n = {args.n:,} points")

    t0 = time.perf_counter()
    Y, J = soft_jacobian(h, X, args.tau, return_output=True)
    t_vec = time.perf_counter() - t0

    t0 = time.perf_counter()
    naive_vectorised(h.A, h.b, h.V, X, args.tau)
    t_naive = time.perf_counter() - t0

    sub = X[: args.subset]
    t0 = time.perf_counter()
    loop = [loop_point(h.A, h.b, h.V, x, args.tau) for x in sub]
    t_loop = time.perf_counter() - t0
    per_point = t_loop / len(sub)
    t_loop_full = per_point * args.n

    err_y = max(np.abs(Y[i] - y).max() for i, (y, _) in enumerate(loop))
    err_j = max(np.abs(J[i] - jl).max() for i, (_, jl) in enumerate(loop))
    print(f"vectorised (log-space, tropattn): {t_vec:8.3f} s   {t_vec / args.n * 1e6:8.3f} us/point")
    print(f"naive vectorised (softmax @ V):   {t_naive:8.3f} s   {t_naive / args.n * 1e6:8.3f} us/point")
    print(f"per-point loop on {len(sub):,} points:  {t_loop:8.3f} s   {per_point * 1e6:8.3f} us/point"
          f"   -> {t_loop_full:,.1f} s extrapolated to {args.n:,}")
    print(f"agreement on the subset: max |dy| = {err_y:.2e}, max |dJ| = {err_j:.2e}")
    print(f"speed-up of the vectorised route over the loop: {t_loop_full / t_vec:,.0f}x")


if __name__ == "__main__":
    main()
