"""The descent through the sub-layers and what it keeps: ids, counts, adjacency, linear regions.

The sub-layers are refined depth first (:func:`descend`): a parent's pieces are refined
to the last sub-layer before the next parent is started, so only one parent's pieces per
depth are held.  A :class:`Collector` takes the final regions: it numbers them, joins
pieces across the facets crossed inside a parent, and keeps the facets that lie on a wall
of an *earlier* sub-layer waiting (the two sides of such a wall were cut differently)
until every piece inside their common ancestor is done, then matches them across the wall
only where their maps are equal (the linear regions, an :class:`~tropattn.exact.UnionFind`
on the ids, 8 bytes per region).  The facet-adjacency graph is work a count never needs
(one certified LP per pair of facets on a wall in d >= 3): with ``keep="all"`` the matched
walls are kept and :func:`adjacency_edges` pairs them with
:func:`tropattn.exact.overlapping_pairs` only when the graph is asked for.

:func:`run` refines the first sub-layers breadth first until there are enough parents to
keep every worker busy (``tropattn.config.search_frontier``), then hands chunks of them to
an executor (:mod:`tropattn.backends`); each chunk comes back as a :class:`ChunkOut` and is
absorbed in chunk order, so every executor gives the same ids.  A count's chunk hands its
waiting facets back packed (:class:`_Packed`: the hashes of their maps and their ids, the
facets themselves pickled only when the chunk travels), opened by the caller only where the
other side of the wall holds an equal hash.

>>> from tropattn.attention import sawtooth_model
>>> from ._refine import root_piece
>>> from ._steps import model_steps
>>> sink = Collector("counts", None, 1)
>>> descend(root_piece(None, 1), model_steps(sawtooth_model(1, 3, 2)), 0, sink); sink.close(0)
>>> sink.n, sink.linear                                     # 3^2 regions, every map different
(9, 9)
"""

from __future__ import annotations

import contextlib
import functools
import gc
import pickle
from dataclasses import dataclass

import numpy as np

from .._config import config
from ..backends import chunk_size
from ..exact import UnionFind, WallFacet, facets_overlap, overlapping_pairs
from ._affine import AffineMap
from ._refine import refine, region_of, row_key

__all__ = ["Collector", "ChunkOut", "descend", "descend_chunk", "run", "adjacency_edges", "fewer_collections"]

#: Allocations between two young-generation collections during a search (CPython's default is 700).
_GC_YOUNG = 100_000


@contextlib.contextmanager
def fewer_collections():
    """Run the block with the cyclic garbage collector's thresholds raised, restored after.

    A search allocates millions of small acyclic objects (rows, points, pieces); with the
    default thresholds CPython's collector re-scans the young ones every 700 allocations and
    the whole live set every so often, about 20% of a 2-D search's CPU (sawtooth 10^5 regions:
    13-15k regions per CPU-second, 20-21k with these thresholds).  Nothing is left uncollected:
    collections still run, 140 times less often, and cyclic garbage is freed at the next one.

    >>> import gc
    >>> before = gc.get_threshold()
    >>> with fewer_collections():
    ...     gc.get_threshold()[0] >= 100_000
    True
    >>> gc.get_threshold() == before
    True
    """
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], _GC_YOUNG), max(old[1], 50), max(old[2], 1000))
    try:
        yield
    finally:
        gc.set_threshold(*old)


@dataclass(slots=True)
class _Pending(WallFacet):
    """A facet of a final region on a wall of an earlier sub-layer, waiting for the other side.

    It shares the region's rows (``all_rows``, the facet is row ``k``) and map; ``point``
    (a homogeneous point in the facet's relative interior) is kept only for d >= 3.
    """

    id: int = 0
    map: AffineMap = None


class _Packed:
    """Facets waiting on one side of one wall, as a count's chunk hands them back: map hashes and ids.

    Only facets with equal maps can join linear regions across a wall, and equal maps hash
    equal (:meth:`AffineMap.__hash__` is a function of the map), so the caller needs a
    facet itself only when the other side holds a facet of the same hash.  The facets are
    kept as one pickle (``tropattn.config.search_sealed``, :meth:`of`; facets with deferred
    maps stay as they are, and no deferred map is made in the process that found it); sent
    to another process they travel as one pickle, which the caller loads (:meth:`open`) only
    for an equal hash.  So a count neither rebuilds nor holds the facets of walls where every
    map differs.

    >>> from ._affine import AffineMap
    >>> f = AffineMap.from_integers([[1]], [0], 1)
    >>> packed = pickle.loads(pickle.dumps(_Packed.of([_Pending(((1, 0),), 0, None, id=4, map=f)])))
    >>> packed.facets is None                              # travelled: the facets are bytes until opened
    True
    >>> packed.ids += 10                                   # absorbed after 10 regions
    >>> [(e.id, e.map == f) for e in packed.open()], packed.hashes.tolist() == [hash(f)]
    ([(14, True)], True)
    """

    __slots__ = ("hashes", "ids", "facets", "blob")

    def __init__(self, hashes, ids, facets=None, blob=None):
        self.hashes, self.ids, self.facets, self.blob = hashes, ids, facets, blob

    @staticmethod
    def of(entries, sealed=False) -> "_Packed":
        """The pack of ``entries``; ``sealed``: as one pickle at once, unless a map is deferred.

        A pickle of a wall side's facets is about a third of their objects' memory (the
        2-D sawtooth count holds 64 bytes per region instead of 179).  Deferred maps (a
        ReLU step's piece maps, recipes holding their parent's integers) stay objects:
        each pack's pickle would copy the parent's integers that the objects share.
        """
        n = len(entries)
        hashes = np.fromiter((hash(e.map) for e in entries), np.int64, n)
        ids = np.fromiter((e.id for e in entries), np.int64, n)
        if sealed and not any("_make" in e.map.__dict__ for e in entries):
            return _Packed(hashes, ids, None, pickle.dumps(list(entries), protocol=5))
        return _Packed(hashes, ids, list(entries))

    def __getstate__(self):
        blob = self.blob if self.facets is None else pickle.dumps(self.facets, protocol=5)
        return self.hashes, self.ids, blob

    def __setstate__(self, state):
        self.hashes, self.ids, self.blob = state
        self.facets = None

    def open(self) -> list:
        """The facets, with their ids as shifted since they were packed."""
        entries = pickle.loads(self.blob) if self.facets is None else self.facets
        for e, i in zip(entries, self.ids.tolist()):
            e.id = i
        return entries


def _side_hashes(side) -> set:
    """The map hashes of one side of a wall (facets and packed facets)."""
    out = set()
    for e in side:
        if isinstance(e, _Packed):
            out.update(e.hashes.tolist())
        else:
            out.add(hash(e.map))
    return out


def _side_facets(side, wanted) -> list:
    """The facets of one side whose map hash is in ``wanted`` (packs holding none stay shut)."""
    out = []
    for e in side:
        if isinstance(e, _Packed):
            if not wanted.isdisjoint(e.hashes.tolist()):
                out.extend(f for f in e.open() if hash(f.map) in wanted)
        elif hash(e.map) in wanted:
            out.append(e)
    return out


class Collector:
    """Takes the final regions of a descent: ids, counts, adjacency, linear regions.

    ``keep``: ``"all"`` stores every region, the edges crossed inside a parent and the
    walls matched across (``walls``: the graph's other edges, paired only when asked for,
    :func:`adjacency_edges`); ``"regions"`` and ``"counts"`` store neither.  ``callback``
    (optional) is called with ``(id, region)`` as each region is found.  Facets on walls of
    an earlier sub-layer wait in ``pending[s]`` until every piece inside their common
    ancestor is done (:meth:`close`), then are matched across the wall.
    """

    def __init__(self, keep="all", callback=None, d=0):
        self.keep, self.callback, self.d = keep, callback, d
        self.n = 0
        self.found = []     # (piece, facet points), when regions are kept
        self.edges = []     # (id, id) crossed inside a parent, when keep == "all"
        self.walls = []     # (key, plus, minus) matched across a wall of an earlier sub-layer, when keep == "all"
        self.uf = UnionFind()
        self.unions = 0
        self.pending = {}   # sub-layer -> {hyperplane key: ([+ side], [- side])}

    def family(self, pieces, label_edges, last):
        """The final pieces of one parent (sub-layer ``last``) and the crossings between them."""
        ids, maps = {}, {}
        for piece, fpoints, labels in pieces:
            i = self.uf.add()
            self.n += 1
            ids[labels], maps[i] = i, piece.map
            if self.keep == "all":
                self.found.append((piece, fpoints))
            if self.callback is not None:
                self.callback(i, region_of(piece, fpoints))
            for k, (row, s) in enumerate(zip(piece.rows, piece.origin)):
                if 0 <= s < last:
                    key, positive = row_key(row)
                    sides = self.pending.setdefault(s, {}).setdefault(key, ([], []))
                    point = fpoints[k] if self.d > 2 else None
                    sides[0 if positive else 1].append(_Pending(piece.rows, k, point, id=i, map=piece.map))
        for u, v in label_edges:
            i, j = ids[u], ids[v]
            self.join(i, j, maps[i] == maps[j])

    def absorb(self, out: "ChunkOut"):
        """Append a chunk's regions (its ids shifted after ours), edges, unions and waiting facets."""
        off = self.n
        self.uf.extend(out.uf, off)
        self.n += out.n
        self.unions += out.unions
        for i, (piece, fpoints) in enumerate(out.found):
            if self.keep == "all":
                self.found.append((piece, fpoints))
            if self.callback is not None:
                self.callback(off + i, region_of(piece, fpoints))
        if self.keep == "all":
            self.edges.extend((off + i, off + j) for i, j in out.edges)
            for wall in out.walls:
                for side in wall[1:]:
                    for e in side:
                        e.id += off
                self.walls.append(wall)
        for level, keys in out.pending.items():
            mine = self.pending.setdefault(level, {})
            for key, sides in keys.items():
                both = mine.setdefault(key, ([], []))
                for side, entries in zip(both, sides):
                    for e in entries:       # facets, or packs of them (a chunk from another process)
                        if isinstance(e, _Packed):
                            e.ids += off
                        else:
                            e.id += off
                    side.extend(entries)

    def join(self, i, j, same_map):
        if self.keep == "all":
            self.edges.append((i, j) if i < j else (j, i))
        if same_map and self.uf.union(i, j):
            self.unions += 1

    def close(self, s):
        """Every piece inside the current ancestor of sub-layer ``s`` is done: match its wall facets."""
        for key, (plus, minus) in self.pending.pop(s, {}).items():
            self.match(key, plus, minus)

    def close_all(self):
        """Match every facet still waiting (the end of a search, or of an interrupted one)."""
        for level in sorted(self.pending):
            self.close(level)

    def match(self, key, plus, minus):
        """Join the linear regions across a wall: only equal maps can merge, paired through a dict."""
        if not plus or not minus:
            return
        if self.keep == "all":
            self.walls.append((key, plus, minus))
        else:                               # only equal hashes can be equal maps: open only those
            common = _side_hashes(plus) & _side_hashes(minus)
            if not common:
                return
            plus, minus = _side_facets(plus, common), _side_facets(minus, common)
        by_map = {}
        for v in minus:
            by_map.setdefault(v.map, []).append(v)
        for u in plus:
            for v in by_map.get(u.map, ()):
                if self.uf.find(u.id) != self.uf.find(v.id) and facets_overlap(u, v, key, self.d):
                    if self.uf.union(u.id, v.id):
                        self.unions += 1

    @property
    def linear(self) -> int:
        return self.n - self.unions


def descend(piece, steps, s, sink):
    """Refine ``piece`` by sub-layers ``s, s+1, ...`` to the last, depth first, into ``sink``.

    Only the pieces of one parent per depth are held: memory is depth x branching.
    """
    children, label_edges = [], []
    last = len(steps) - 1
    refine(piece, steps[s], children, label_edges, s, lazy=s == last and sink.keep == "counts")
    if s == last:
        sink.family(children, label_edges, last)
        return
    for child, _, _ in children:
        descend(child, steps, s + 1, sink)
        sink.close(s + 1)


@dataclass
class ChunkOut:
    """What refining a chunk of parents to the last sub-layer gives back to the caller."""

    n: int
    found: list
    edges: list
    unions: int
    uf: object
    pending: dict
    walls: list


def descend_chunk(steps, s, keep, d, parents):
    """One unit of work: refine ``parents`` (pieces of sub-layer ``s - 1``) to the end, ids from 0."""
    sink = Collector(keep, None, d)
    with fewer_collections():   # also in a worker process
        for parent in parents:
            descend(parent, steps, s, sink)
            sink.close(s)
    pending = sink.pending
    if keep == "counts":        # only an equal hash across the wall opens them (and unpickles them, if sent)
        pending = {level: {key: tuple([_Packed.of(side, config.search_sealed)] if side else [] for side in sides)
                           for key, sides in keys.items()} for level, keys in pending.items()}
    return ChunkOut(sink.n, sink.found, sink.edges, sink.unions, sink.uf.parent, pending, sink.walls)


def adjacency_edges(edges, walls, d, bar=None) -> list:
    """The facet-adjacency edges: those crossed inside a parent and every overlapping pair on a wall.

    Parameters
    ----------
    edges : list of (int, int)
        The pairs of regions found across a facet inside one parent (``Collector.edges``).
    walls : list of (key, plus, minus)
        The facets waiting on each wall of an earlier sub-layer, by side (``Collector.walls``).
    d : int
        The dimension.
    bar : Progress, optional
        Advanced by one unit per wall.

    Returns
    -------
    list of (int, int)
        Every edge once, ``i < j``, sorted.

    Examples
    --------
    >>> from tropattn.attention import sawtooth_model
    >>> from ._refine import root_piece
    >>> from ._steps import model_steps
    >>> sink = Collector("all", None, 1)
    >>> descend(root_piece(None, 1), model_steps(sawtooth_model(1, 2, 2)), 0, sink); sink.close(0)
    >>> adjacency_edges(sink.edges, sink.walls, 1)       # 4 intervals in a row
    [(0, 1), (1, 2), (2, 3)]
    """
    out = {(i, j) if i < j else (j, i) for i, j in edges}
    for key, plus, minus in walls:
        out.update((min(u.id, v.id), max(u.id, v.id)) for u, v in overlapping_pairs(plus, minus, key, d))
        if bar is not None:
            bar.advance(1)
    return sorted(out)


def run(root, steps, sink, runner, bar):
    """Breadth first to a frontier of enough parents, then chunks of it depth first on ``runner``.

    The frontier (``tropattn.config.search_frontier`` parents) is the same for every
    executor, so that serial, processes and Dask do exactly the same exact work.
    """
    frontier, s, last = [root], 0, len(steps) - 1
    target = config.search_frontier
    while s < last and len(frontier) < target:
        nxt = []
        for parent in frontier:
            out = []
            refine(parent, steps[s], out, [], s)
            nxt.extend(p for p, _, _ in out)
        frontier, s = nxt, s + 1
    size = chunk_size(runner, len(frontier))  # one parent each unless the chunks travel unbatched
    chunks = [frontier[i:i + size] for i in range(0, len(frontier), size)]
    del frontier
    bar.start_step(s, sum(map(len, chunks)))
    results = runner.map(functools.partial(descend_chunk, steps, s, "counts" if sink.keep == "counts" else "all",
                                           sink.d), chunks)
    try:
        for chunk, result in zip(chunks, results):
            sink.absorb(result.value)
            bar.advance(len(chunk), result.value.n)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # Ctrl-C or an error here: the executor cancels what is still pending, now
    sink.close_all()
