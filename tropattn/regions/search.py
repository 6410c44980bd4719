"""Exact activation and linear regions of small hard-attention transformers.

With a fixed context, every layer of a zero-temperature transformer is piecewise
affine in the query ``x``: on the set where head ``h`` of layer ``l`` picks key
``j`` (and each ReLU of the FFN is on or off) the layer is one affine map.  The
*activation pattern* -- the argmax label of every head of every layer plus the ReLU
bits -- therefore cuts ``R^d`` into convex polyhedra, the **activation regions**.
Adjacent regions whose affine maps coincide merge into **linear regions**.

The enumeration is output sensitive (docs/ALGORITHMS.md §4): it never loops over label
tuples.  It refines one sub-layer at a time.  Inside a region ``R`` of the layers
before, the heads of the next layer (pulled back through ``R``'s affine map) cut
``R`` into a *face-to-face* subdivision, so a breadth-first search that crosses
every certified facet of every piece reaches every piece, and each facet has one
piece on the other side.  Every region is certified by a rational point where the
full pattern is evaluated exactly with no ties; every facet by a rational point in
its relative interior (see :func:`tropattn.exact.facets`).

>>> from tropattn.attention import Head, Layer, Transformer
>>> grid = [Head([[0, 0], [1, 0], [2, 0]], [0, "-1/2", -2]),      # head 0 reads x
...         Head([[0, 0], [0, 1], [0, 2]], [0, "-1/2", -2])]      # head 1 reads y
>>> result = enumerate_regions(Transformer([Layer(grid)]))
>>> len(result.activation_regions)                                  # 3 x 3 grid
9
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Sequence


import functools
import time
from itertools import product

import networkx as nx

from ..errors import DegenerateInputError, Interrupted, InvalidInputError, TieError
from ..backends import get_executor
from ..progress import Progress
from ..exact import (counting, format_point, homogeneous_point, integer_facets, integer_row, interior_point,
                     relative_interior_point, to_rational_vector)
from ..attention import Layer, Transformer
from .affine import AffineMap
from .steps import append_pattern, AttentionStep, model_steps


__all__ = ["ActivationRegion", "RegionSet", "box_rows", "enumerate_regions", "group_linear_regions", "overlay_regions"]


@dataclass(frozen=True)
class ActivationRegion:
    """One activation region: a pattern, its polyhedron, a certificate and its map.

    Attributes
    ----------
    pattern : tuple
        One entry per layer: ``(head labels, relu bits)``.
    A, b : tuple
        The facet rows of the region, ``A x <= b`` (certified irredundant).
    walls : tuple
        For each row, what it is: ``("box",)``, ``("head", layer, h, j, k)`` (head h of
        layer ``layer`` prefers j over k) or ``("relu", layer, i, bit)``.
    interior_point : tuple of Fraction
        A point strictly inside, where the pattern was evaluated exactly.
    map : AffineMap
        The model's output on the region.
    facet_points : tuple
        For each row, a rational point in the relative interior of that facet.
    integer_rows : tuple
        The same rows ``(a, b)`` as primitive integer tuples (positive multiples).
    """

    pattern: tuple
    A: tuple
    b: tuple
    walls: tuple
    interior_point: tuple
    map: AffineMap
    facet_points: tuple = ()
    integer_rows: tuple = ()


@dataclass(frozen=True)
class RegionSet:
    """The result of an enumeration.

    ``activation_regions`` in discovery order; ``graph`` is a networkx graph on
    their indices with an edge for every certified shared facet found by crossing;
    ``linear_regions`` is a tuple of frozensets of region indices (one per linear
    region); ``complete`` is False when the search was interrupted.
    """

    activation_regions: tuple
    linear_regions: tuple
    graph: object
    complete: bool = True
    seconds: float = 0.0
    counters: dict = field(default_factory=dict)


def box_rows(box, d: int):
    """Rows of the box ``[lo, hi]^d`` (or per-coordinate bounds) as ``(A, b)``.

    >>> A, b = box_rows((-1, 1), 1)
    >>> A, b
    (((Fraction(1, 1),), (Fraction(-1, 1),)), (Fraction(1, 1), Fraction(1, 1)))
    """
    lo, hi = box
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


@dataclass(frozen=True)
class _Piece:
    """A region during refinement: rows, tags, a point and the map of its output."""

    pattern: tuple
    A: tuple
    b: tuple
    walls: tuple
    point: tuple
    map: AffineMap

    integer_rows: tuple = ()  # the rows (a, b) as primitive integer tuples, same order as A, b

    def contains_strictly(self, X, D) -> bool:
        """Is ``X / D`` (integers) strictly inside every row?"""
        return all(sum(a * x for a, x in zip(r, X)) < r[-1] * D for r in self.integer_rows)


def _nudge_directions(d):
    """Deterministic, generic-looking rational directions."""
    primes = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for k in range(1, 6):
        yield tuple(Fraction((-1) ** i * (i + k), primes[(i + k) % len(primes)]) for i in range(d))


def _tie_free_point(parent: _Piece, step):
    """A point strictly inside ``parent`` where ``step`` has no tie."""
    x = parent.point
    labels = step.labels_at(parent.map, *homogeneous_point(x))
    if labels is not None:
        return x, labels
    for direction in _nudge_directions(len(x)):
        for K in _shrinking(2):
            y = tuple(xi + Fraction(di) / K for xi, di in zip(x, direction))
            Y, E = homogeneous_point(y)
            if parent.contains_strictly(Y, E):
                labels = step.labels_at(parent.map, Y, E)
                if labels is not None:
                    return y, labels
    kind = "heads" if isinstance(step, AttentionStep) else "FFN"
    raise _whole_region_tie(x, TieError(
        f"the {kind} of layer {step.index} tie on a whole region around {tuple(map(str, x))}: their scores "
        "(or pre-activations) do not depend on x there, e.g. because a layer without residual feeds a "
        "constant into the next layer; hard attention is undefined on a full-dimensional set. Break the tie "
        "(change an offset or a value) or enable the residual"))


def _whole_region_tie(point, error):
    error.point = point  # where the tie was found: callers and tests can check it
    return error


def _refine(parent: _Piece, step, regions_out, edges_out):
    """Breadth-first search of the pieces of ``parent`` cut by ``step``."""
    start, labels = _tie_free_point(parent, step)
    seen = {labels: start}
    known = {}  # labels -> {hyperplane key: labels of the piece across it}, from crossings into it
    rows = {}   # labels -> the step's rows, computed once
    queue = [labels]
    while queue:
        labels = queue.pop()
        point = seen[labels]
        A, b, walls, R = rows.pop(labels, None) or _step_rows(step, labels, parent.map)
        A, b, walls = list(parent.A) + A, list(parent.b) + b, list(parent.walls) + walls
        R = parent.integer_rows + R
        fs = integer_facets(R, point)
        keep = fs.rows
        piece = _Piece(append_pattern(parent.pattern, step, labels), tuple(A[i] for i in keep),
                       tuple(b[i] for i in keep), tuple(walls[i] for i in keep), point,
                       step.output_map(labels, parent.map), tuple(R[i] for i in keep))
        regions_out.append((piece, tuple(fs.points[i] for i in keep)))
        here = known.pop(labels, {})
        for i in keep:
            if i < len(parent.A):  # a wall of an earlier sub-layer: stay inside the parent
                continue
            key = _row_key(R[i])[0]
            if key in here:  # face to face: the piece that crossed into us is the one across
                continue
            nxt, across, nxt_rows = _cross(parent, step, R[i][:-1], key, fs.points[i])
            if nxt is None:
                continue
            if nxt not in seen:
                seen[nxt] = across
                queue.append(nxt)
                known.setdefault(nxt, {})[key] = labels
                rows[nxt] = nxt_rows
            edges_out.append((piece.pattern, append_pattern(parent.pattern, step, nxt)))


def _cross(parent, step, normal, key, facet_point):
    """The piece across a facet: its labels, a point strictly inside it, its rows.

    Steps from the facet point ``p`` along the outer normal, by ``1 / (256 |a|^2)`` and
    then smaller, to a point strictly inside the parent with no tie; its labels name a
    piece.  That piece is accepted only if ``p`` lies in its closure with every row
    strict except those on the crossed hyperplane (``key``): then it is the piece on
    the other side of this facet at ``p``, however thin.  All checks are exact
    integer arithmetic on homogeneous coordinates.
    """
    P, D = homogeneous_point(facet_point)
    a = normal
    K = 256 * sum(v * v for v in a)
    Mi, ci, m = parent.map._integers
    size = max(abs(v).bit_length() for v in (*P, D, *a, m, *ci, *(x for row in Mi for x in row)))
    for K in _shrinking(K, _MAX_BITS + 8 * size):
        Y, E = tuple(p * K + ai * D for p, ai in zip(P, a)), D * K  # facet point + a / K
        if parent.contains_strictly(Y, E):
            labels = step.labels_at(parent.map, Y, E)
            if labels is not None and step.realisable(labels):
                nxt_rows = _step_rows(step, labels, parent.map)
                if _touches_at(nxt_rows[3], P, D, key):
                    return labels, tuple(Fraction(v, E) for v in Y), nxt_rows
    raise DegenerateInputError(
        f"could not step across the facet {key} at {format_point(facet_point)}: the piece beyond is thinner "
        f"than 2^-{_MAX_BITS + 8 * size} times the first step, far below the size of the model's own numbers; "
        "the search stops here rather than guess a region count")

#: How far (in bits, beyond 8x the bit size of the data) a crossing step may shrink.
_MAX_BITS = 1 << 16


def _shrinking(K: int, bits: int = _MAX_BITS):
    """Step denominators: K, 4K, 16K, ... then 2^64 times larger each time, ``bits`` bits at most.

    Regions can be arbitrarily thin (offsets like 10^-200); a geometric step that
    accelerates reaches any exact scale in few tries, and every candidate is verified.
    """
    start = K.bit_length()
    for i in range(12):
        yield K
        K *= 4
    while K.bit_length() - start < bits:
        yield K
        K <<= 64


def _step_rows(step, labels, f):
    """A step's rows for ``labels`` and, last, the same rows as primitive integer tuples."""
    A, b, walls = step.rows(labels, f)
    return A, b, walls, tuple(integer_row(list(a) + [bi]) for a, bi in zip(A, b))


def _touches_at(int_rows, P, D, key) -> bool:
    """Every row holds at ``P / D``, strictly unless it lies on the hyperplane ``key``."""
    for r in int_rows:
        s = sum(ai * x for ai, x in zip(r, P)) - r[-1] * D
        if s > 0 or (s == 0 and (not any(r[:-1]) or _row_key(r)[0] != key)):
            return False
    return True


def enumerate_regions(model, box=None, progress: bool | None = None, workers: int = 1,
                      executor="serial") -> RegionSet:
    """All activation regions of ``model`` over ``R^d`` (or inside ``box``), exactly.

    Parameters
    ----------
    model : Transformer
        Layers of heads in score form, with residuals and optional ReLU FFNs.
    box : (lo, hi), optional
        Restrict to the box ``[lo, hi]^d`` (scalars or per-coordinate sequences).
    progress : bool, optional
        Show a counter on stderr (default: only when stderr is a terminal).
    workers : int, optional
        With ``executor="serial"`` (the default), ``workers > 1`` means
        ``executor="processes"`` with that many processes.
    executor : str or executor object, optional
        Where the parents of each sub-layer are refined (:mod:`tropattn.backends`):
        ``"serial"``, ``"processes"``, or any object with ``map(fn, chunks)``.  The
        result does not depend on it.

    Returns
    -------
    RegionSet
        With ``activation_regions``, ``linear_regions`` and the adjacency ``graph``;
        ``counters`` holds the exact-path counts of this call.

    Raises
    ------
    Interrupted
        On Ctrl-C; its ``partial`` is the RegionSet of the last completed sub-layer
        (``complete=False``).
    InvalidInputError
        A bad ``workers`` or ``executor``.

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> one = Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])])])   # max(0, x, 2x - 1)
    >>> len(enumerate_regions(one).activation_regions)
    3
    """
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InvalidInputError(f"workers must be a positive integer; got {workers!r}")
    runner = get_executor("processes" if executor == "serial" and workers > 1 else executor, workers)
    t0 = time.perf_counter()
    with counting() as scope:
        d = model.dim
        if box is None:
            root = _Piece((), (), (), (), (Fraction(0),) * d, AffineMap.identity(d), ())
        else:
            A, b = box_rows(box, d)
            cert = interior_point(A, b)
            root = _Piece((), A, b, tuple(("box",) for _ in A), cert.point, AffineMap.identity(d),
                          tuple(integer_row(list(a) + [bi]) for a, bi in zip(A, b)))
        done, edges = [(root, ())], []           # the last complete sub-layer
        steps = model_steps(model)
        bar = Progress(progress, len(steps))
        s = 0
        try:
            for s, step in enumerate(steps):
                bar.start_step(s, len(done))
                found, found_edges = _refine_all([p for p, _ in done], step, bar.advance, runner)
                done, edges = found, found_edges
        except KeyboardInterrupt:
            bar.close()
            partial = _finish(done, edges, t0, scope, complete=s == len(steps))
            raise Interrupted(f"interrupted in sub-layer {s + 1} of {len(steps)}; the partial result holds the "
                              f"{len(partial.activation_regions)} regions of the last complete sub-layer "
                              f"({s} of {len(steps)})", partial) from None
        bar.close()
        return _finish(done, edges, t0, scope, complete=True)


def _refine_all(parents, step, tick, runner):
    """Refine every parent through ``runner``: all pieces and all edges of the sub-layer."""
    workers = getattr(runner, "workers", 1)
    size = len(parents) if workers == 1 else max(1, len(parents) // (workers * 16))
    if workers > 1 and len(parents) < 4 * workers:
        size = len(parents)
    chunks = [parents[i:i + size] for i in range(0, len(parents), size)] if workers > 1 else [[p] for p in parents]
    out, edges = [], []
    results = runner.map(functools.partial(_refine_chunk, step), chunks)
    for chunk in chunks:
        found, found_edges = next(results).value
        out.extend(found)
        edges.extend(found_edges)
        tick(len(chunk), len(found))
    return out, edges


def _refine_chunk(step, parents):
    """The pieces and edges of a list of parents (one unit of work for an executor)."""
    out, edges = [], []
    for parent in parents:
        _refine(parent, step, out, edges)
    return out, edges


def _finish(pieces, edges, t0, scope, complete):
    regions = tuple(
        ActivationRegion(p.pattern, p.A, p.b, p.walls, p.point, p.map, fpts, p.integer_rows)
        for p, fpts in pieces)
    index = {r.pattern: i for i, r in enumerate(regions)}
    graph = nx.Graph()
    graph.add_nodes_from(range(len(regions)))
    for u, v in edges:
        if u in index and v in index:
            graph.add_edge(index[u], index[v])
    _add_cross_parent_edges(regions, graph)
    linear = group_linear_regions(regions, graph)
    return RegionSet(regions, linear, graph, complete, time.perf_counter() - t0, scope.snapshot())


def _row_key(row):
    """Canonical key of the hyperplane of a primitive integer row, and whether the row is on its + side."""
    first = next(v for v in row[:-1] if v != 0)
    return (row if first > 0 else tuple(-v for v in row)), (first > 0)


def _add_cross_parent_edges(regions, graph):
    """Adjacency across walls of earlier sub-layers, where the subdivision is not face-to-face.

    Crossing a facet finds every neighbour among the pieces of one parent region.
    Across a wall of an earlier sub-layer the two sides are cut differently, so two
    regions there are adjacent when facets on one hyperplane, on opposite sides,
    overlap in a (d-1)-dimensional set.  Only pairs with equal affine maps that are
    not yet joined can change the linear regions; each is decided by a certified LP
    in the hyperplane.  (The graph therefore has every adjacency between pieces of a
    common parent, and enough of the others to connect every linear region.)
    """
    joined = nx.utils.UnionFind(range(len(regions)))
    for u, v in graph.edges:
        if regions[u].map == regions[v].map:
            joined.union(u, v)
    sides = {}  # (hyperplane, map) -> facets on the + side, facets on the - side
    for idx, r in enumerate(regions):
        for row_i, (row, wall) in enumerate(zip(r.integer_rows, r.walls)):
            if wall[0] == "box":
                continue
            key, positive = _row_key(row)
            sides.setdefault((key, r.map), ([], []))[0 if positive else 1].append((idx, row_i))
    for (key, _), (plus, minus) in sides.items():
        for (i, ri), (j, rj) in product(plus, minus):
            if joined[i] == joined[j]:
                continue
            if _facets_overlap(regions[i], ri, regions[j], rj, key):
                graph.add_edge(i, j)
                joined.union(i, j)


def _facets_overlap(r1, i1, r2, i2, key) -> bool:
    rows = [(a, b) for k, (a, b) in enumerate(zip(r1.A, r1.b)) if k != i1]
    rows += [(a, b) for k, (a, b) in enumerate(zip(r2.A, r2.b)) if k != i2]
    A = [a for a, _ in rows]
    b = [bb for _, bb in rows]
    cert = relative_interior_point(A, b, [key[:-1]], [key[-1]])
    return cert.feasible


def group_linear_regions(regions: Sequence[ActivationRegion], graph) -> tuple:
    """Group adjacent activation regions with the same exact affine map.

    Returns one frozenset of region indices per linear region (connected components
    of the adjacency graph restricted to edges between equal maps).

    >>> from tropattn.attention import Head, Layer, Transformer
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


def overlay_regions(heads, box=None, progress=None) -> RegionSet:
    """The common refinement of the heads' power diagrams (one layer, no residual effect).

    >>> from tropattn.attention import Head
    >>> h = [Head([[0], [1]], [0, 0]), Head([[0], [1]], [0, -1])]     # walls x = 0 and x = 1
    >>> len(overlay_regions(h).activation_regions)
    3
    """

    return enumerate_regions(Transformer([Layer(list(heads))]), box=box, progress=progress)
