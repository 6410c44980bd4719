"""Progress of long computations: a bar on a terminal, quiet otherwise.

>>> bar = Progress(enabled=False, steps=1)
>>> bar.start_step(0, 10); bar.advance(10, found=3); bar.found
3
"""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """A progress bar on a terminal, silent otherwise.

    The search refines one sub-layer at a time; the number of parent regions of a
    sub-layer is known, so the bar counts parents done, and the line also shows the
    regions found so far and their rate.
    """

    def __init__(self, enabled=None, steps=1):
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.steps, self.last = steps, 0.0
        self.start_step(0, 1)

    def start_step(self, index, parents):
        self.index, self.parents, self.done, self.found = index, parents, 0, 0
        self.start = time.perf_counter()

    def advance(self, parents=1, found=0):
        self.done += parents
        self.found += found
        now = time.perf_counter()
        if self.enabled and (now - self.last > 0.2 or self.done == self.parents):
            self.last = now
            filled = int(30 * self.done / max(self.parents, 1))
            rate = self.found / max(now - self.start, 1e-9)
            end = "\n" if self.done == self.parents else ""
            sys.stderr.write(f"\rsub-layer {self.index + 1}/{self.steps} [{'#' * filled}{'.' * (30 - filled)}] "
                             f"{self.done}/{self.parents} parents, {self.found} regions ({rate:,.0f}/s){end}")
            sys.stderr.flush()

    def close(self):
        if self.enabled and self.done != self.parents:
            sys.stderr.write("\n")
