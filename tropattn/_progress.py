"""Progress of long computations: a bar on stderr, shown on a terminal unless told otherwise, or a callback.

The bar is drawn by tqdm when it is installed (``bar="auto"``, the default; tqdm formats the
line, its elapsed time and the time left) and by the plain writer below otherwise (or with
``bar="plain"``); both draw the same line, ``stage [####......] done/total unit, N regions
(R/s)``, at the same moments, so what a caller or a test sees does not depend on which.

``--progress auto|always|never`` on the command line maps to ``enabled`` = None (only
when stderr is a terminal), True, False.  The bar counts units of work of one stage (the
parent regions of a sub-layer, the models of a table) and shows the regions found so far
and their rate.  It is drawn when a stage starts and after its first unit, then at most
every 0.2 s, and when the stage ends.

A function given as ``enabled`` (``progress=`` of :func:`tropattn.regions.enumerate_regions`)
is called as ``progress(done, total, found)`` when a stage starts and after every unit,
instead of drawing; an exception it raises stops the computation there (KeyboardInterrupt
is then the same as Ctrl-C: the partial result is kept).

>>> bar = Progress(enabled=False, steps=1)
>>> bar.start_step(0, 10); bar.advance(10, found=3); bar.found
3
>>> seen = []
>>> bar = Progress(enabled=lambda done, total, found: seen.append((done, total, found)))
>>> bar.start_step(0, 2); bar.advance(1, found=5); bar.advance(1); seen
[(0, 2, 0), (1, 2, 5), (2, 2, 5)]
"""

from __future__ import annotations

import sys
import time

from ._lazy import is_available, lazy_import
from ._validate import choice

tqdm = lazy_import("tqdm")

__all__ = ["Progress", "PROGRESS_CHOICES", "BARS"]

#: The values of ``--progress``.
PROGRESS_CHOICES = ("auto", "always", "never")
#: Who draws: tqdm if installed ("auto"), tqdm, or the plain writer.
BARS = ("auto", "tqdm", "plain")


class Progress:
    """A progress bar on stderr: on a terminal by default, or always / never.

    Parameters
    ----------
    enabled : bool, None or callable
        None: only when stderr is a terminal; a callable is called as ``enabled(done, total,
        found)`` at the start of a stage and after every unit, instead of drawing.
    steps : int
        Number of stages (sub-layers); each has a known number of units.
    stage, unit : str
        How the line names a stage and a unit (``"sub-layer"`` and ``"parents"``).
    bar : {"auto", "tqdm", "plain"}, optional
        Who draws: tqdm when it is installed (default), tqdm, or the plain writer.
    regions : bool, optional
        Whether the line shows the regions found (False for work that finds none: words, runs).
    """

    def __init__(self, enabled=None, steps=1, stage="sub-layer", unit="parents", bar="auto", regions=True):
        self.callback = enabled if callable(enabled) else None
        self.enabled = sys.stderr.isatty() if enabled is None else bool(enabled) and self.callback is None
        self.steps, self.stage, self.unit = steps, stage, unit
        self.regions = bool(regions)   # False: work that finds no regions (the line shows no region count)
        self.index, self.parents, self.done, self.found = 0, 1, 0, 0
        self.start = self.last = 0.0
        bar = choice(bar, "bar", BARS, "tqdm draws the bar when it is installed; plain is the built-in writer")
        self.tqdm = bar == "tqdm" or (bar == "auto" and is_available("tqdm"))
        self._bar = None

    def start_step(self, index, parents):
        """Start stage ``index`` with ``parents`` units of work (the counters restart at 0).

        Parameters
        ----------
        index : int
            The stage, counted from 0 (shown as ``index + 1``).
        parents : int
            How many units the stage has.

        Returns
        -------
        None

        Examples
        --------
        >>> bar = Progress(enabled=False, steps=2)
        >>> bar.start_step(1, 8); bar.index, bar.parents, bar.done
        (1, 8, 0)
        """
        self.index, self.parents, self.done, self.found = index, parents, 0, 0
        self.start = time.perf_counter()
        self._show(self.start)
        self.last = 0.0            # the first unit of a stage is always shown

    def advance(self, parents=1, found=0):
        """``parents`` more units done, ``found`` more regions found; redraw at most every 0.2 s.

        Parameters
        ----------
        parents : int, optional
            Units finished since the last call.
        found : int, optional
            Regions found since the last call.

        Returns
        -------
        None

        Examples
        --------
        >>> bar = Progress(enabled=False)
        >>> bar.start_step(0, 4); bar.advance(); bar.advance(3, found=5); bar.done, bar.found
        (4, 5)
        """
        self.done += parents
        self.found += found
        now = time.perf_counter()
        if now - self.last > 0.2 or self.done == self.parents or self.callback is not None:
            self.last = now
            self._show(now)

    def _show(self, now):
        if self.callback is not None:
            self.callback(self.done, self.parents, self.found)
        if not self.enabled:
            return
        rate = self.found / max(now - self.start, 1e-9)
        where = f"{self.stage} {self.index + 1}/{self.steps}" if self.steps > 1 else self.stage
        regions = f"{self.found} regions ({rate:,.0f}/s)" if self.regions else ""
        if self.tqdm:
            self._draw_tqdm(where, regions)
            return
        filled = int(30 * self.done / max(self.parents, 1))
        end = "\n" if self.done == self.parents else ""
        sys.stderr.write(f"\r{where} [{'#' * filled}{'.' * (30 - filled)}] "
                         f"{self.done}/{self.parents} {self.unit}{', ' + regions if regions else ''}{end}")
        sys.stderr.flush()

    def _draw_tqdm(self, where, regions):
        """One drawing by tqdm (made at a stage's first drawing, closed when the stage is done)."""
        if self._bar is None:          # tqdm draws once when it is made; its own timer never redraws
            self._bar = tqdm.tqdm(total=self.parents, initial=self.done, desc=where, file=sys.stderr, ascii=".#",
                                  bar_format="{desc} [{bar:30}] {n_fmt}/{total_fmt} " + self.unit + "{postfix} "
                                  "[{elapsed}<{remaining}]", postfix=regions or None, mininterval=0, miniters=1,
                                  leave=True)
            made = True
        else:
            self._bar.n = self.done
            if regions:
                self._bar.set_postfix_str(regions, refresh=False)
            made = False
        if self.done == self.parents:
            self._bar.close()          # draws the finished line (once) and ends it
            self._bar = None
        elif not made:
            self._bar.refresh()

    def close(self):
        """End the line if the stage did not finish (an interruption).

        Returns
        -------
        None

        Examples
        --------
        >>> bar = Progress(enabled=False)
        >>> bar.start_step(0, 3); bar.advance(1); bar.close()      # nothing is written when disabled
        """
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self.enabled and self.done != self.parents:
            sys.stderr.write("\n")
