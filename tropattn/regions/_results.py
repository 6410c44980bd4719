"""What a region search gives back: :class:`ActivationRegion`, :class:`RegionSet`, linear regions, boxes.

>>> from tropattn.attention import sawtooth_model
>>> from tropattn.regions import enumerate_regions
>>> counted = enumerate_regions(sawtooth_model(1, 3, 2), keep="counts")
>>> counted.n_activation, counted.n_linear                  # a count is a count under every keep
(9, 9)
>>> counted.activation_regions                              # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tropattn.errors.InvalidInputError: the activation regions were not kept (keep='counts'): ... pass keep='all' ...
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Sequence

from .._lazy import lazy_import
from ..errors import InvalidInputError
from ..exact import to_rational_vector
from ._affine import AffineMap
from ._export import regions_frame, regions_html, regions_svg

nx = lazy_import("networkx")

__all__ = ["ActivationRegion", "RegionSet", "LazyGraph", "group_linear_regions", "box_rows"]


@dataclass(frozen=True)
class ActivationRegion:
    """One activation region: a pattern, its polyhedron, a certificate and its map.

    The search keeps integers (primitive rows, homogeneous points); the Fraction views
    ``A``, ``b``, ``interior_point`` and ``facet_points`` are built on first access.

    Attributes
    ----------
    pattern : tuple
        One entry per layer: ``(head labels, relu bits)``.
    walls : tuple
        For each row, what it is: ``("box",)``, ``("head", layer, h, j, k)`` (head h of
        layer ``layer`` prefers j over k) or ``("relu", layer, i, bit)``.
    map : AffineMap
        The model's output on the region.
    integer_rows : tuple
        The facet rows ``(a, b)`` of ``a . x <= b`` as primitive integer tuples
        (certified irredundant).
    homogeneous_point : tuple
        ``(X, D)``: the interior point ``X / D`` in integers.
    homogeneous_facet_points : tuple
        For each row, ``(N, E)``: a point ``N / E`` in the relative interior of that facet.
    A, b : tuple
        The facet rows as Fractions, ``A x <= b``.
    interior_point : tuple of Fraction
        A point strictly inside, where the pattern was evaluated exactly.
    facet_points : tuple
        The facet points as Fractions.
    """

    pattern: tuple
    walls: tuple
    map: AffineMap
    integer_rows: tuple
    homogeneous_point: tuple
    homogeneous_facet_points: tuple = ()

    @cached_property
    def A(self) -> tuple:
        return tuple(tuple(Fraction(v) for v in r[:-1]) for r in self.integer_rows)

    @cached_property
    def b(self) -> tuple:
        return tuple(Fraction(r[-1]) for r in self.integer_rows)

    @cached_property
    def interior_point(self) -> tuple:
        X, D = self.homogeneous_point
        return tuple(Fraction(x, D) for x in X)

    @cached_property
    def facet_points(self) -> tuple:
        return tuple(tuple(Fraction(v, E) for v in N) for N, E in self.homogeneous_facet_points)


@dataclass(frozen=True)
class RegionSet:
    """The result of an enumeration: counts always, the regions themselves when they were kept.

    Attributes
    ----------
    n_activation : int
        The number of activation regions (certified), under every ``keep``.
    n_linear : int
        The number of linear regions (adjacent regions with the same map merged), under every ``keep``.
    linear_ids : array of int
        ``linear_ids[i]``: the linear region of region ``i`` (regions numbered in discovery
        order; linear regions in the order of their first region), under every ``keep``.
    complete : bool
        False when the search was interrupted (then the counts are lower bounds).
    seconds : float
        Wall time of the search.
    counters : dict
        The exact-path counts of this call (:func:`tropattn.exact.counting`).
    keep : str
        What was kept: ``"all"``, ``"counts"`` or ``"callback"`` (the regions went to a function).
    activation_regions : tuple of ActivationRegion
        In discovery order (only with ``keep="all"``; reading it otherwise is an error).
    linear_regions : tuple of frozenset of int
        One set of region indices per linear region (only with ``keep="all"``).
    graph : networkx.Graph
        On the region indices, an edge for every pair of regions that share a facet (a
        (d-1)-dimensional piece of boundary), across walls of every sub-layer (only with
        ``keep="all"``).  Built on first read unless the search was asked for it
        (``graph=True``): in d >= 3 it costs a certified LP per pair of facets on a wall.
    """

    n_activation: int
    n_linear: int
    linear_ids: Sequence[int]
    complete: bool = True
    seconds: float = 0.0
    counters: dict = field(default_factory=dict)
    keep: str = "all"
    kept: tuple = field(default=None, repr=False)   # (regions, linear regions, graph) under keep="all"

    def _kept(self, what: str, i: int):
        if self.kept is None:
            raise InvalidInputError(
                f"the {what} were not kept (keep={self.keep!r}): the search counted them without holding them "
                f"(n_activation = {self.n_activation}, n_linear = {self.n_linear}); pass keep='all' to "
                "enumerate_regions to keep the regions, their adjacency graph and the linear regions")
        return self.kept[i]

    @property
    def activation_regions(self) -> tuple:
        """The regions, in discovery order (``keep="all"`` only)."""
        return self._kept("activation regions", 0)

    @property
    def linear_regions(self) -> tuple:
        """One frozenset of region indices per linear region (``keep="all"`` only)."""
        return self._kept("linear regions", 1)

    @property
    def graph(self):
        """The facet-adjacency graph on region indices (``keep="all"`` only; built when first read)."""
        graph = self._kept("adjacency graph of the regions", 2)
        return graph.get() if isinstance(graph, LazyGraph) else graph

    def to_pandas(self):
        """The regions as a pandas DataFrame, one row each, in the schema of the JSONL/CSV/Parquet export.

        See :func:`tropattn.regions._export.regions_frame` (``keep="all"`` only; needs pandas).

        >>> from tropattn.attention import sawtooth_model
        >>> from tropattn.regions import enumerate_regions
        >>> enumerate_regions(sawtooth_model(1, 3, 2)).to_pandas().shape
        (9, 6)
        """
        return regions_frame(self)

    def _repr_html_(self) -> str:
        """Jupyter's summary: the counts, the first regions and (d = 2) their picture."""
        return regions_html(self)

    def _repr_svg_(self):
        """Jupyter's picture of the kept regions in the plane (None otherwise)."""
        return regions_svg(self)


class LazyGraph:
    """A graph on ``range(n)`` whose edges ``build(bar)`` gives, built once, when first asked for.

    >>> g = LazyGraph(3, lambda bar=None: [(0, 1)])
    >>> g.built, sorted(g.get().edges), g.built
    (False, [(0, 1)], True)
    """

    def __init__(self, n, build):
        self.n, self._build, self._graph = n, build, None

    @property
    def built(self) -> bool:
        return self._graph is not None

    def get(self, bar=None):
        """The graph (``bar``: a progress bar for the build, advanced by ``build``)."""
        if self._graph is None:
            graph = nx.Graph()
            graph.add_nodes_from(range(self.n))
            graph.add_edges_from(self._build(bar=bar))
            self._graph, self._build = graph, None
        return self._graph


def box_rows(box, d: int):
    """Rows of the box ``[lo, hi]^d`` (or per-coordinate bounds) as ``(A, b)``.

    Parameters
    ----------
    box : (lo, hi)
        Two numbers (the cube ``[lo, hi]^d``) or two length-``d`` sequences, ``lo < hi``.
    d : int
        The dimension.

    Returns
    -------
    A : tuple of tuple of Fraction
        ``2d`` row normals (``e_i`` and ``-e_i``).
    b : tuple of Fraction
        Right-hand sides (``hi_i`` and ``-lo_i``): the box is ``A x <= b``.

    Raises
    ------
    InvalidInputError
        If the corners have the wrong length or ``lo >= hi`` in some coordinate.

    Examples
    --------
    >>> A, b = box_rows((-1, 1), 1)
    >>> A, b
    (((Fraction(1, 1),), (Fraction(-1, 1),)), (Fraction(1, 1), Fraction(1, 1)))
    """
    try:
        lo, hi = box
    except (TypeError, ValueError):
        raise InvalidInputError(f"box = {box!r}; give (lo, hi): two numbers or two length-{d} sequences") from None
    lo = to_rational_vector(lo if isinstance(lo, (list, tuple)) else [lo] * d, "box low corner", d)
    hi = to_rational_vector(hi if isinstance(hi, (list, tuple)) else [hi] * d, "box high corner", d)
    if any(h <= l for l, h in zip(lo, hi)):
        raise InvalidInputError(f"the box needs low < high in every coordinate; got low={lo}, high={hi}")
    A, b = [], []
    for i in range(d):
        e = tuple(Fraction(int(i == j)) for j in range(d))
        A += [e, tuple(-v for v in e)]
        b += [hi[i], -lo[i]]
    return tuple(A), tuple(b)


def group_linear_regions(regions: Sequence[ActivationRegion], graph) -> tuple:
    """Group adjacent activation regions with the same exact affine map.

    Returns one frozenset of region indices per linear region (connected components
    of the adjacency graph restricted to edges between equal maps).

    Parameters
    ----------
    regions : sequence of ActivationRegion
        The activation regions (with their exact affine maps).
    graph : networkx.Graph
        Their adjacency graph (nodes are indices into ``regions``).

    Returns
    -------
    tuple of frozenset of int
        One set of region indices per linear region.

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> from tropattn.regions import enumerate_regions
    >>> same_values = Head([[0], [1], [2]], [0, 0, -1], [[0], [0], [1]])      # keys 0 and 1 share v
    >>> result = enumerate_regions(Transformer([Layer([same_values])]))
    >>> groups = group_linear_regions(result.activation_regions, result.graph)
    >>> sorted(sorted(result.activation_regions[i].pattern[0][0][0] for i in g) for g in groups)  # by key
    [[0, 1], [2]]
    """
    same = nx.Graph()
    same.add_nodes_from(range(len(regions)))
    same.add_edges_from((u, v) for u, v in graph.edges if regions[u].map == regions[v].map)
    return tuple(frozenset(c) for c in sorted(nx.connected_components(same), key=min))
