"""One function that counts regions: :func:`count_regions`, by the primal search or the dual count.

* ``"primal"``: the exact region search (:func:`~tropattn.regions.enumerate_regions`): any
  model, any box, activation and linear regions;
* ``"dual"``: the upper vertices of a Minkowski sum (:func:`~tropattn.attention.count_dual`):
  one layer without FFN over all of ``R^d``, activation regions only; anything else is
  refused with the reason, never answered wrongly;
* ``"auto"``: the dual where it applies and nothing but the number of activation regions is
  asked for (``keep="counts"``, the default), else the primal search.

>>> from tropattn.attention import random_model, sawtooth_model
>>> count_regions(sawtooth_model(1, 3, 2))                  # doctest: +ELLIPSIS
RegionCount(n_activation=9, n_linear=9, method='primal', box=None, ties='refuse', ...)
>>> one = random_model(2, 3, 3, seed=5)                     # one layer, no FFN: the dual applies
>>> count_regions(one).method, count_regions(one).n_activation == count_regions(one, "primal").n_activation
('dual', True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from .._validate import choice
from ..errors import InvalidInputError
from ._search import check_keep, enumerate_regions

__all__ = ["RegionCount", "count_regions", "METHODS", "dual_refusal"]

#: The methods of :func:`count_regions`.
METHODS = ("auto", "primal", "dual")
#: Tie rules a count may impose on every head (None keeps each head's own).
TIE_RULES = (None, "refuse", "first")


@dataclass(frozen=True)
class RegionCount:
    """How many regions a model has, and how that was found.

    Attributes
    ----------
    n_activation : int
        Activation regions (certified exactly).
    n_linear : int or None
        Linear regions (adjacent regions with equal maps merged); None when the dual count
        was used (it counts activation regions only).
    method : str
        ``"primal"`` or ``"dual"``: what ran.
    box : tuple or None
        The counting box ``(lo, hi)``, or None for all of ``R^d``.
    ties : str or None
        The tie rule of every head (``"refuse"`` or ``"first"``), None if the heads' rules differ.
    seconds : float
        Wall time.
    counters : dict
        The exact-path counts of the primal search (empty for the dual).
    complete : bool
        Always True (an interrupted count raises :class:`~tropattn.errors.Interrupted`).
    n_edges : int or None
        Pairs of activation regions that share a facet (with ``graph=True``), else None.
    """

    n_activation: int
    n_linear: int | None
    method: str
    box: tuple | None
    ties: str | None
    seconds: float = 0.0
    counters: dict = field(default_factory=dict, repr=False)
    complete: bool = True
    n_edges: int | None = None


def dual_refusal(model, box=None) -> str | None:
    """Why the dual count cannot count ``model`` (in ``box``), or None if it can.

    The dual counts the overlay of one layer's heads over all of ``R^d``: that is the
    layer's activation regions whatever its residual and projection, but not with a
    ReLU FFN, a second layer, or a box.

    Parameters
    ----------
    model : Transformer
        The model.
    box : (lo, hi), optional
        A counting box, if any.

    Returns
    -------
    str or None
        The reason, or None when the dual count applies.

    Examples
    --------
    >>> from tropattn.attention import sawtooth_model
    >>> dual_refusal(sawtooth_model(1, 3, 2))
    'the model has 2 layers and the dual counts one'
    """
    if len(model.layers) != 1:
        return f"the model has {len(model.layers)} layers and the dual counts one"
    if model.layers[0].ffn is not None:
        return "the layer has a ReLU FFN, which cuts the head overlay further and which the dual does not model"
    if box is not None:
        return "the dual counts all of R^d, not a box"
    return None


def count_regions(model, method="auto", box=None, ties=None, *, keep="counts", progress=None, workers=None,
                  executor="serial", scheduler=None, graph=False) -> RegionCount:
    """The number of activation (and linear) regions of ``model``, exactly.

    Parameters
    ----------
    model : Transformer
        The model.
    method : {"auto", "primal", "dual"}, optional
        ``"primal"``: the region search (any model, any box; also the linear regions);
        ``"dual"``: the upper vertices of a Minkowski sum (one layer without FFN, all of
        ``R^d``; activation regions only); ``"auto"`` (default): the dual where it applies
        and ``keep="counts"``, else the primal search.
    box : (lo, hi), optional
        Count inside the box ``[lo, hi]^d`` (scalars or per-coordinate sequences; primal only).
    ties : {"refuse", "first"}, optional
        A tie rule for every head, overriding the model's (see
        :meth:`~tropattn.attention.Transformer.with_ties`); default: each head's own.
    keep : {"counts", "all"} or callable, optional
        What the primal search keeps besides the counts (see
        :func:`~tropattn.regions.enumerate_regions`; a callable receives every region, e.g. a
        :class:`~tropattn.regions.RegionWriter`).  Anything but ``"counts"`` needs the primal.
    progress, workers, executor, scheduler
        Where and how the primal search runs (see :func:`~tropattn.regions.enumerate_regions`).
    graph : bool, optional
        Also count the facet-adjacency edges (``n_edges``): the primal search then keeps
        the regions and builds their graph, in d >= 3 one certified LP per pair of facets
        on a wall (a count without it does none of that work).

    Returns
    -------
    RegionCount
        ``n_activation``, ``n_linear`` (None for the dual), the ``method`` that ran, the
        ``box``, the tie rule, the time and the exact-path counters.

    Raises
    ------
    InvalidInputError
        An unknown ``method`` or ``ties``, ``method="dual"`` for a model it cannot count
        (several layers, an FFN, a box) or with a ``keep`` other than ``"counts"`` or ``graph``,
        ``graph`` with a ``keep`` other than ``"counts"``, or a bad argument of the search.
    TieError
        A whole-region tie at a head with ``ties="refuse"``.
    Interrupted
        On Ctrl-C during the primal search; ``partial`` holds the regions certified so far.

    Examples
    --------
    >>> from tropattn.attention import sawtooth_model
    >>> c = count_regions(sawtooth_model(2, 3, 2), box=(0, 1))
    >>> c.n_activation, c.n_linear, c.method                 # N^(dL) = 3^4, also inside the unit box
    (81, 81, 'primal')
    >>> count_regions(sawtooth_model(1, 3, 1), graph=True).n_edges       # 3 intervals in a row
    2
    >>> count_regions(sawtooth_model(2, 3, 2), method="dual")
    Traceback (most recent call last):
    ...
    tropattn.errors.InvalidInputError: method='dual' cannot count this model: the model has 2 layers and the dual counts one; use method='primal' (or 'auto')
    """
    choice(method, "method", METHODS, meaning="'primal' is the region search, 'dual' the Minkowski-sum count")
    choice(ties, "ties", TIE_RULES, meaning="'refuse' raises where distinct keys tie on a whole region, 'first' "
           "lets the lowest index win")
    check_keep(keep)
    if graph and keep != "counts":
        raise InvalidInputError(f"graph=True keeps the regions to count their adjacency edges; leave keep='counts' "
                                f"(got keep={keep!r}) or call enumerate_regions(keep='all', graph=True)")
    if ties is not None:
        model = model.with_ties(ties)
    t0 = time.perf_counter()
    refused = dual_refusal(model, box)
    if method == "dual":
        if refused:
            raise InvalidInputError(f"method='dual' cannot count this model: {refused}; use method='primal' "
                                    "(or 'auto')")
        if graph:
            raise InvalidInputError("the adjacency graph (graph=True) needs the regions of the primal search; "
                                    "method='dual' only counts them; use method='primal' (or 'auto')")
        if keep != "counts":
            raise InvalidInputError(f"keep = {keep!r} needs the regions of the primal search, and method='dual' only "
                                    "counts them; use method='primal' (or 'auto')")
    use_dual = method == "dual" or (method == "auto" and refused is None and keep == "counts" and not graph)
    if use_dual:
        n = model.layers[0].count_dual()
        return RegionCount(n, None, "dual", None, model.ties, time.perf_counter() - t0)
    result = enumerate_regions(model, box=box, progress=progress, workers=workers, executor=executor,
                               keep="all" if graph else keep, scheduler=scheduler, graph=graph)
    return RegionCount(result.n_activation, result.n_linear, "primal", None if box is None else tuple(box),
                       model.ties, time.perf_counter() - t0, result.counters,
                       n_edges=result.graph.number_of_edges() if graph else None)
