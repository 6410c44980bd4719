"""Timing helpers shared by the benchmark scripts (run them from the repository root)."""

import time


def best_of(fn, repeat=5):
    """(best wall time over ``repeat`` runs, the last result)."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def timed(fn):
    """(result, seconds) of one run."""
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t
