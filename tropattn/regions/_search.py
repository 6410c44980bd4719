"""Exact activation and linear regions of small hard-attention transformers.

With a fixed context, every layer of a zero-temperature transformer is piecewise
affine in the query ``x``: on the set where head ``h`` of layer ``l`` picks key
``j`` (and each ReLU of the FFN is on or off) the layer is one affine map.  The
*activation pattern* -- the argmax label of every head of every layer plus the ReLU
bits -- therefore cuts ``R^d`` into convex polyhedra, the **activation regions**.
Adjacent regions whose affine maps coincide merge into **linear regions**.

The enumeration is output sensitive (docs/ALGORITHMS.md §4): it never loops over label
tuples.  It refines one sub-layer at a time (:mod:`._refine`): inside a region ``R`` of
the layers before, the heads of the next layer (pulled back through ``R``'s affine map)
cut ``R`` into a *face-to-face* subdivision, so a search that crosses every certified
facet of every piece reaches every piece, and each facet has one piece on the other
side.  The sub-layers are refined depth first and the final regions collected with their
adjacency and linear regions (:mod:`._collect`).  Every region is certified by a rational
point where the full pattern is evaluated exactly with no ties; every facet by a rational
point in its relative interior (see :func:`tropattn.exact.region_facets`).

>>> from tropattn.attention import Head, Layer, Transformer
>>> grid = [Head([[0, 0], [1, 0], [2, 0]], [0, "-1/2", -2]),      # head 0 reads x
...         Head([[0, 0], [0, 1], [0, 2]], [0, "-1/2", -2])]      # head 1 reads y
>>> result = enumerate_regions(Transformer([Layer(grid)]))
>>> len(result.activation_regions)                                  # 3 x 3 grid
9
"""

from __future__ import annotations

import functools
import time

from .._progress import Progress
from .._validate import choice, positive_int
from ..attention import Layer, Transformer
from ..backends import get_executor
from ..errors import Interrupted, InvalidInputError
from ..exact import counting
from ._collect import Collector, adjacency_edges, fewer_collections, run
from ._refine import region_of, root_piece
from ._results import LazyGraph, RegionSet
from ._steps import model_steps

__all__ = ["enumerate_regions", "overlay_regions", "check_keep", "check_progress"]


def check_keep(keep):
    """``keep`` if it is ``"all"``, ``"counts"`` or a function of ``(id, region)``, else an InvalidInputError.

    >>> check_keep("counts")
    'counts'
    """
    return keep if callable(keep) else choice(keep, "keep", ("all", "counts"),
                                              meaning="or give a function called with (id, region)")


def check_progress(progress):
    """``progress`` if it is None, a bool or a function ``(done, total, found)``, else an InvalidInputError.

    >>> check_progress(None), check_progress(False)
    (None, False)
    """
    if not (progress is None or isinstance(progress, bool) or callable(progress)):
        raise InvalidInputError(f"progress = {progress!r}; use None (a bar on a terminal), True, False or a function "
                                "called as progress(done, total, found)")
    return progress


def enumerate_regions(model, box=None, progress=None, workers: int | None = None,
                      executor="serial", keep="all", scheduler=None, graph: bool = False) -> RegionSet:
    """All activation regions of ``model`` over ``R^d`` (or inside ``box``), exactly.

    The sub-layers are refined depth first: a parent's pieces are refined to the last
    sub-layer before the next parent is started, so with ``keep="counts"`` or a
    callback only one parent's pieces per depth are in memory (plus one integer per
    region for the linear-region union-find and the facets that wait on a wall of an
    earlier sub-layer).  The first sub-layers are refined breadth first until there are
    enough parents to keep every worker busy (``tropattn.config.search_frontier``);
    chunks of those parents are the units of work of the executor.

    Parameters
    ----------
    model : Transformer
        Layers of heads in score form, with residuals and optional ReLU FFNs.
    box : (lo, hi), optional
        Restrict to the box ``[lo, hi]^d`` (scalars or per-coordinate sequences).
    progress : bool, callable or None, optional
        Show a counter on stderr (default: only when stderr is a terminal); a function is
        called as ``progress(done, total, found)`` (parents refined, parents in all, regions
        found) when the chunked stage starts and after every chunk; raising
        KeyboardInterrupt there stops the search as Ctrl-C does.
    workers : int, optional
        With ``executor="serial"`` (the default), ``workers > 1`` means
        ``executor="processes"`` with that many processes; with ``"processes"`` or
        ``"dask"`` and no scheduler, the number of local processes (default 2).
    executor : str or executor object, optional
        Where the chunks of parents are refined (:mod:`tropattn.backends`):
        ``"serial"``, ``"processes"``, ``"dask"``, or any object with
        ``map(fn, chunks)``.  The result does not depend on it.
    keep : {"all", "counts"} or callable, optional
        ``"all"``: every region, the full adjacency graph and the linear regions as
        sets; ``"counts"``: only the numbers; a callable ``keep(id, region)`` is called
        with every :class:`ActivationRegion` as it is found (ids 0, 1, ... in order)
        and the regions are not kept; if the callable has a ``done(result)`` method it
        is called with the RegionSet at the end, also after Ctrl-C (see
        :class:`RegionWriter`).  Every keep fills ``n_activation``, ``n_linear`` and
        ``linear_ids``.
    scheduler : str, optional
        For ``executor="dask"``: ``None`` or ``"local"`` (a LocalCluster here) or a
        ``"tcp://host:port"`` address.
    graph : bool, optional
        Build the facet-adjacency ``graph`` during the search (``keep="all"`` only; the
        progress bar shows it as its own stage).  By default it is built when
        ``result.graph`` is first read: in d >= 3 it costs a certified LP per pair of
        facets on a wall of an earlier sub-layer, work that counts never need.

    Returns
    -------
    RegionSet
        The counts ``n_activation`` and ``n_linear`` and ``linear_ids``, and with
        ``keep="all"`` the ``activation_regions``, ``linear_regions`` and the adjacency
        ``graph``; ``counters`` holds the exact-path counts of this call.

    Raises
    ------
    Interrupted
        On Ctrl-C; its ``partial`` holds the regions of the completed chunks
        (``complete=False``): every one of them is a certified region.
    InvalidInputError
        A bad ``workers``, ``executor``, ``keep``, ``progress`` or ``box``, or
        ``graph=True`` without ``keep="all"``.

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> one = Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])])])   # max(0, x, 2x - 1)
    >>> len(enumerate_regions(one).activation_regions)
    3
    >>> from tropattn.attention import sawtooth_model
    >>> enumerate_regions(sawtooth_model(2, 3, 2), keep="counts").n_activation    # 3^(2*2), none held
    81
    """
    if workers is not None:
        workers = positive_int(workers, "workers", meaning="the number of worker processes")
    check_keep(keep)
    check_progress(progress)
    if graph and keep != "all":
        raise InvalidInputError(f"graph=True needs keep='all' (got keep={keep!r}): the adjacency graph is "
                                "built on the regions it keeps")
    kind = executor
    if executor == "serial":
        kind = "dask" if scheduler is not None else "processes" if (workers or 1) > 1 else "serial"
    runner = get_executor(kind, workers, scheduler=scheduler)
    t0 = time.perf_counter()
    callback = keep if callable(keep) else None
    mode = "counts" if keep == "counts" else "all" if keep == "all" else "regions"
    with counting() as scope, fewer_collections():
        d = model.dim
        sink = Collector(mode, callback, d)
        try:
            root = root_piece(box, d)
            steps = model_steps(model)
            bar = Progress(progress, max(len(steps), 1))
            try:
                with _closing(runner if isinstance(kind, str) else None):
                    if steps:
                        run(root, steps, sink, runner, bar)
                    else:
                        sink.family([(root, (), ())], (), 0)
            finally:
                bar.close()
        except KeyboardInterrupt:
            partial = _result(sink, t0, scope, complete=False)
            _done(callback, partial)
            raise Interrupted(f"interrupted; the partial result holds the {partial.n_activation} regions "
                              "certified so far (a lower bound on the count)", partial) from None
        result = _result(sink, t0, scope, complete=True, graph=graph, progress=progress)
        _done(callback, result)
        return result


def _done(callback, result):
    """A callback with a ``done`` method (a writer) hears the end: the RegionSet, complete or partial."""
    done = getattr(callback, "done", None)
    if done is not None:
        done(result)


class _closing:
    """Close an executor that holds resources (a cluster) when the search ends."""

    def __init__(self, runner):
        self.runner = runner

    def __enter__(self):
        return self.runner

    def __exit__(self, *exc):
        close = getattr(self.runner, "close", None)  # only executors made here, from a name
        if close is not None:
            close()
        return False


def _result(sink, t0, scope, complete, graph=False, progress=None) -> RegionSet:
    """The RegionSet of a search; with ``graph`` its adjacency graph is built now (a stage of the bar)."""
    sink.close_all()
    linear_ids = sink.uf.numbering()
    keep = {"all": "all", "counts": "counts", "regions": "callback"}[sink.keep]
    if sink.keep != "all":
        seconds, counters = time.perf_counter() - t0, scope.snapshot()
        return RegionSet(sink.n, sink.linear, linear_ids, complete, seconds, counters, keep)
    regions = tuple(region_of(p, f) for p, f in sink.found)
    lazy = LazyGraph(len(regions), functools.partial(adjacency_edges, sink.edges, sink.walls, sink.d))
    if graph:
        bar = Progress(progress, 1, stage="adjacency graph", unit="walls", regions=False)
        bar.start_step(0, len(sink.walls))
        try:
            lazy.get(bar)
        finally:
            bar.close()
    seconds, counters = time.perf_counter() - t0, scope.snapshot()
    groups = {}
    for i, lin in enumerate(linear_ids):  # the union-find joined exactly the graph's equal-map edges
        groups.setdefault(lin, []).append(i)
    linear = tuple(frozenset(g) for g in groups.values())  # ordered by smallest member (the roots)
    return RegionSet(len(regions), len(linear), linear_ids, complete, seconds, counters, keep,
                     (regions, linear, lazy))


def overlay_regions(heads, box=None, progress=None) -> RegionSet:
    """The common refinement of the heads' power diagrams (one layer, no residual effect).

    The heads form one layer without residual, so values of any common dimension are
    accepted (as :func:`~tropattn.attention.count_dual` does); linear regions join
    adjacent regions whose value sums agree.

    Parameters
    ----------
    heads : sequence of Head
        Heads reading the same dimension, with values of one common dimension.
    box : (lo, hi), optional
        Restrict to the box ``[lo, hi]^d``.
    progress : bool, optional
        Show a progress bar (terminal only).

    Returns
    -------
    RegionSet
        The overlay's activation regions, adjacency and linear regions.

    Raises
    ------
    InvalidInputError
        If the heads do not fit one layer (different dimensions), or the box is bad.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> h = [Head([[0], [1]], [0, 0]), Head([[0], [1]], [0, -1])]     # walls x = 0 and x = 1
    >>> len(overlay_regions(h).activation_regions)
    3
    """
    return enumerate_regions(Transformer([Layer(list(heads), residual=False)]), box=box, progress=progress)
