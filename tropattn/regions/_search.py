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
from functools import cached_property
from fractions import Fraction
from typing import Sequence


import functools
import math
import time
from array import array
from itertools import combinations

import networkx as nx
import numpy as np

from ..errors import DegenerateInputError, Interrupted, InvalidInputError, TieError
from ..backends import get_executor
from .._progress import Progress
from ..exact import (counting, format_point, homogeneous_point, integer_facets, integer_row, interior_point,
                     relative_interior_point, to_rational_vector)
from ..exact._facets_batch import planar_facets, small_facets
from ..exact._numbers import primitive_row
from ..attention import Layer, Transformer
from ._affine import AffineMap
from ._steps import append_pattern, AttentionStep, model_steps, pulled_back_scores, wall_rows


__all__ = ["ActivationRegion", "RegionSet", "box_rows", "enumerate_regions", "group_linear_regions", "overlay_regions"]


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
    """The result of an enumeration.

    ``activation_regions`` in discovery order; ``graph`` is a networkx graph on
    their indices with an edge for every pair of regions that share a facet (a
    (d-1)-dimensional piece of boundary), across walls of every sub-layer;
    ``linear_regions`` is a tuple of frozensets of region indices (one per linear
    region); ``complete`` is False when the search was interrupted.  ``n_activation``
    and ``n_linear`` are the counts (also when the regions were not kept, see
    ``keep`` in :func:`enumerate_regions`); with a callback, ``linear_ids[i]`` is the
    linear region of region ``i``.
    """

    activation_regions: tuple
    linear_regions: tuple
    graph: object
    complete: bool = True
    seconds: float = 0.0
    counters: dict = field(default_factory=dict)
    n_activation: int = 0
    n_linear: int = 0
    linear_ids: object = None


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
    """A region during refinement: integer rows, their tags and steps, a homogeneous point, the map.

    ``rows`` are primitive integer rows ``(a, b)`` for ``a.x <= b`` (certified facets);
    ``origin`` says which sub-layer each row came from (-1 for the box); the point is
    ``X / D``.  Fractions are built only when an :class:`ActivationRegion` is made.
    """

    pattern: tuple
    rows: tuple
    walls: tuple
    origin: tuple
    X: tuple
    D: int
    map: AffineMap

    def contains_strictly(self, X, D) -> bool:
        """Is ``X / D`` (integers) strictly inside every row?"""
        return all(sum(a * x for a, x in zip(r, X)) < r[-1] * D for r in self.rows)

    @property
    def point(self):
        return tuple(Fraction(x, self.D) for x in self.X)


def _region(piece, fpoints) -> ActivationRegion:
    """The public region of a final piece (its Fraction views are built when first read)."""
    return ActivationRegion(piece.pattern, piece.walls, piece.map, piece.rows, (piece.X, piece.D), tuple(fpoints))


def _nudge_directions(d):
    """Deterministic, generic-looking rational directions."""
    primes = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for k in range(1, 6):
        yield tuple(Fraction((-1) ** i * (i + k), primes[(i + k) % len(primes)]) for i in range(d))


def _tie_free_point(parent: _Piece, step):
    """A point ``(X, D)`` strictly inside ``parent`` where ``step`` has no tie, and its labels."""
    labels = step.labels_at(parent.map, parent.X, parent.D)
    if labels is not None:
        return (parent.X, parent.D), labels
    x = parent.point
    for direction in _nudge_directions(len(x)):
        for K in _shrinking(2):
            Y, E = homogeneous_point(tuple(xi + Fraction(di) / K for xi, di in zip(x, direction)))
            if parent.contains_strictly(Y, E):
                labels = step.labels_at(parent.map, Y, E)
                if labels is not None:
                    return (Y, E), labels
    kind = "heads" if isinstance(step, AttentionStep) else "FFN"
    raise _whole_region_tie(x, TieError(
        f"the {kind} of layer {step.index} tie on a whole region around {tuple(map(str, x))}: their scores "
        "(or pre-activations) do not depend on x there, e.g. because a layer without residual feeds a "
        "constant into the next layer; hard attention is undefined on a full-dimensional set. Break the tie "
        "(change an offset or a value), enable the residual, or let the lowest index win with ties='first' "
        "(Transformer.with_ties, \"ties\": \"first\" in the model file, --ties first)"))


def _whole_region_tie(point, error):
    error.point = point  # where the tie was found: callers and tests can check it
    return error


class _StepRows:
    """A step's pulled-back rows inside one parent, cached per head label (or per ReLU pattern).

    Every piece of a parent with head ``h`` on key ``j`` has the same rows for that head,
    so each ``(h, j)`` is pulled back through the parent's map and made primitive once.
    """

    def __init__(self, step, f):
        self.step, self.f, self.cache, self.scores = step, f, {}, {}

    def __call__(self, labels):
        """``(rows, walls)`` of the piece with these labels: primitive integer rows and their tags."""
        step = self.step
        if not isinstance(step, AttentionStep):
            if labels not in self.cache:
                A, b, walls = step.rows(labels, self.f)
                self.cache[labels] = (tuple(integer_row(list(a) + [bi]) for a, bi in zip(A, b)), tuple(walls))
            return self.cache[labels]
        rows, walls = (), ()
        for h, j in enumerate(labels):
            part = self.cache.get((h, j))
            if part is None:
                A, b, tags = [], [], []
                scores = self.scores.get(h)
                if scores is None:
                    scores = self.scores[h] = pulled_back_scores(step.heads[h], self.f)
                wall_rows(step.heads[h], j, step.cells[h][j].neighbors, self.f, ("head", step.index, h), A, b, tags,
                          scores)
                part = self.cache[(h, j)] = (tuple(primitive_row(a + (bi,)) for a, bi in zip(A, b)), tuple(tags))
            rows += part[0]
            walls += part[1]
        return rows, walls


def _facets(rows, X, D, entry=None):
    """Certified facets of ``{rows}`` seen from ``X / D``: kept indices and homogeneous facet points.

    In the plane, ``entry`` (a row known to be a facet of a region known to have interior,
    see :func:`_opens_onto`) replaces the point.
    """
    nonzero = [i for i, r in enumerate(rows) if any(r[:-1])]
    sub = [rows[i] for i in nonzero]
    fast = planar_facets(sub, X, D, entry) if len(X) == 2 else small_facets(sub, X, D)
    if fast is not None:
        keep, points = fast
    else:
        fs = integer_facets(sub, tuple(Fraction(x, D) for x in X))
        keep, points = fs.rows, {i: homogeneous_point(p) for i, p in fs.points.items()}
    return [nonzero[i] for i in keep], [points[i] for i in keep]


def _opens_onto(rows, N, E, row):
    """The reversed ``row`` if ``N / E`` (on ``row``'s line) satisfies ``rows`` and only copies of it tightly.

    Then, near that point, the region of ``rows`` is exactly the half-plane beyond ``row``:
    it has interior and the reversed row is one of its facets (no point needs to be found).
    """
    back = tuple(-v for v in row)
    for r in rows:
        t = r[0] * N[0] + r[1] * N[1] - r[2] * E
        if t > 0 or (t == 0 and r != back):
            return None
    return back


def _inside(keep, points, rows, entry, N, E):
    """A point strictly inside a polygon from its facet points: the midpoint of two on different facets.

    The open chord between relative-interior points of two different edges of a convex polygon
    lies in its interior; ``N / E`` is on the facet of ``entry``.  With one facet (a half-plane)
    the point one normal length inside.
    """
    for i, (M, F) in zip(keep, points):
        if rows[i] != entry:
            X, D = (N[0] * F + M[0] * E, N[1] * F + M[1] * E), 2 * E * F
            g = math.gcd(D, *X)
            return ((X[0] // g, X[1] // g), D // g) if g > 1 else (X, D)
    return (N[0] - E * entry[0], N[1] - E * entry[1]), E


def _refine(parent: _Piece, step, regions_out, edges_out, s=0):
    """Search of the pieces of ``parent`` cut by ``step`` (sub-layer ``s``), across every facet.

    Appends ``(piece, facet points)`` to ``regions_out`` and ``(labels, labels)`` for every
    pair of pieces found on the two sides of a facet to ``edges_out``.  In the plane a
    piece reached across a facet is entered there (:func:`_opens_onto`): its facets come
    from that one known facet, and its interior point from its facet points.
    """
    start, labels = _tie_free_point(parent, step)
    step_rows = _StepRows(step, parent.map)
    planar = len(parent.X) == 2
    seen = {labels: (start[0], start[1], None)}
    known = {}  # labels -> hyperplane keys already crossed into it (the piece across is known)
    queue, queued = [labels], {labels}
    n_parent = len(parent.rows)
    while queue:
        labels = queue.pop()
        queued.discard(labels)
        X, D, entry = seen[labels]
        rows, walls = step_rows(labels)
        R = parent.rows + rows
        keep, fpoints = _facets(R, X, D, entry)
        if entry is not None:
            X, D = _inside(keep, fpoints, R, entry, X, D)
        W = parent.walls + walls
        O = parent.origin + (s,) * len(rows)
        piece = _Piece(append_pattern(parent.pattern, step, labels), tuple(R[i] for i in keep),
                       tuple(W[i] for i in keep), tuple(O[i] for i in keep), X, D,
                       step.output_map(labels, parent.map))
        regions_out.append((piece, fpoints, labels))
        here = known.pop(labels, ())
        for i, (N, E) in zip(keep, fpoints):
            if i < n_parent:  # a wall of an earlier sub-layer: stay inside the parent
                continue
            key = _row_key(R[i])[0]
            if key in here:  # face to face: the piece that crossed into us is the one across
                continue
            guess = _guess_across(labels, W[i])
            back = None
            if planar and guess is not None and step.realisable(guess):
                back = _opens_onto(step_rows(guess)[0], N, E, R[i])
            if back is not None:
                nxt, across = guess, (N, E, back)
            else:
                nxt, across = _cross(parent, step, step_rows, R[i][:-1], key, N, E, None if planar else guess)
                if nxt is None:
                    continue
                across = across + (None,)
            if nxt not in seen:
                seen[nxt] = across
                queue.append(nxt)
                queued.add(nxt)
            if nxt in queued:  # not refined yet: it need not cross back over this hyperplane
                known.setdefault(nxt, set()).add(key)
            edges_out.append((labels, nxt))


def _guess_across(labels, wall):
    """The labels across a wall if only that wall's head (or unit) changes: j -> k, or the bit flips."""
    if wall[0] == "head" and labels[wall[2]] == wall[3]:
        return labels[:wall[2]] + (wall[4],) + labels[wall[2] + 1:]
    if wall[0] == "relu":
        return labels[:wall[2]] + (1 - labels[wall[2]],) + labels[wall[2] + 1:]
    return None


def _cross(parent, step, step_rows, normal, key, P, D, guess=None):
    """The piece across a facet: its labels and a point ``(Y, E)`` strictly inside it.

    Steps from the facet point ``p = P / D`` along the outer normal, by ``1 / (256 |a|^2)``
    and then smaller, to a point strictly inside the parent with no tie; its labels
    name a piece.  That piece is accepted only if ``p`` lies in its closure with every
    row strict except those on the crossed hyperplane (``key``): then it is the piece
    on the other side of this facet at ``p``, however thin.  All checks are exact
    integer arithmetic on homogeneous coordinates.

    ``guess`` (the labels with only the wall's own head or unit changed) is tried first
    without evaluating the model: it is accepted when ``p`` touches it as above and a
    stepped point lies strictly inside all of its rows and the parent's (the cells'
    rows describe them exactly, so that point has those labels).
    """
    a = normal
    K = 256 * sum(v * v for v in a)
    Mi, ci, m = parent.map._integers
    size = max(abs(v).bit_length() for v in (*P, D, *a, m, *ci, *(x for row in Mi for x in row)))
    if guess is not None and step.realisable(guess):
        rows = step_rows(guess)[0]
        if _touches_at(rows, P, D, key):
            for i, k in enumerate(_shrinking(K)):
                if i == 12:
                    break
                Y, E = tuple(p * k + ai * D for p, ai in zip(P, a)), D * k
                if parent.contains_strictly(Y, E) and all(sum(c * y for c, y in zip(r, Y)) < r[-1] * E for r in rows):
                    g = math.gcd(E, *Y)
                    return guess, ((tuple(v // g for v in Y), E // g) if g > 1 else (Y, E))
    for K in _shrinking(K, _MAX_BITS + 8 * size):
        Y, E = tuple(p * K + ai * D for p, ai in zip(P, a)), D * K  # facet point + a / K
        if parent.contains_strictly(Y, E):
            labels = step.labels_at(parent.map, Y, E)
            if labels is not None and step.realisable(labels):
                if _touches_at(step_rows(labels)[0], P, D, key):
                    g = math.gcd(E, *Y)
                    return labels, ((tuple(v // g for v in Y), E // g) if g > 1 else (Y, E))
    raise DegenerateInputError(
        f"could not step across the facet {key} at {format_point([Fraction(v, D) for v in P])}: the piece "
        f"beyond is thinner than 2^-{_MAX_BITS + 8 * size} times the first step, far below the size of the "
        "model's own numbers; the search stops here rather than guess a region count")

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


def _touches_at(int_rows, P, D, key) -> bool:
    """Every row holds at ``P / D``, strictly unless it lies on the hyperplane ``key``."""
    for r in int_rows:
        s = sum(ai * x for ai, x in zip(r, P)) - r[-1] * D
        if s > 0 or (s == 0 and (not any(r[:-1]) or _row_key(r)[0] != key)):
            return False
    return True


def _row_key(row):
    """Canonical key of the hyperplane of a primitive integer row, and whether the row is on its + side."""
    for v in row:
        if v:
            break
    return (row if v > 0 else tuple(-v for v in row)), (v > 0)


# ---------------------------------------------------------------------------------------------------------------
# Depth-first descent and what it keeps
# ---------------------------------------------------------------------------------------------------------------

class _UnionFind:
    """Union-find on region ids ``0, 1, ...``: one machine integer per region (``array('q')``)."""

    def __init__(self):
        self.parent = array("q")

    def add(self) -> int:
        self.parent.append(len(self.parent))
        return len(self.parent) - 1

    def find(self, i: int) -> int:
        p = self.parent
        root = i
        while p[root] != root:
            root = p[root]
        while p[i] != root:
            p[i], i = root, p[i]
        return root

    def union(self, i: int, j: int) -> bool:
        """Join the sets of i and j; True when they were apart."""
        ri, rj = self.find(i), self.find(j)
        if ri == rj:
            return False
        if ri < rj:
            ri, rj = rj, ri
        self.parent[ri] = rj  # the smaller id is the root: roots do not depend on the order of unions
        return True


@dataclass(slots=True)
class _Pending:
    """A facet of a final region on a wall of an earlier sub-layer, waiting for the other side.

    It shares the region's rows (``all_rows``, the facet is row ``k``) and map; ``point``
    (a homogeneous point in the facet's relative interior) is kept only for d >= 3.
    """

    id: int
    all_rows: tuple
    k: int
    point: tuple
    map: AffineMap
    box: list = None        # exact coordinate bounds of the facet, computed when needed (d >= 3)
    vertices: tuple = None  # (float vertices of the facet and their active rows,), when needed

    @property
    def rows(self) -> tuple:
        """The region's other rows."""
        return self.all_rows[:self.k] + self.all_rows[self.k + 1:]


class _Collector:
    """Takes the final regions of a descent: ids, counts, adjacency, linear regions.

    ``keep``: ``"all"`` stores every region and edge; ``"regions"`` stores regions but no
    edges beyond those linear regions need; ``"counts"`` stores neither.  ``callback``
    (optional) is called with ``(id, region)`` as each region is found.  Linear regions
    are a union-find on ids (8 bytes per region).  Facets on walls of an earlier
    sub-layer wait in ``pending[s]`` until every piece inside their common ancestor is
    done (:meth:`close`), then are matched across the wall.
    """

    def __init__(self, keep="all", callback=None, d=0):
        self.keep, self.callback, self.d = keep, callback, d
        self.n = 0
        self.found = []     # (piece, facet points), when regions are kept
        self.edges = []     # (id, id), when keep == "all"
        self.uf = _UnionFind()
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
                self.callback(i, _region(piece, fpoints))
            for k, (row, s) in enumerate(zip(piece.rows, piece.origin)):
                if 0 <= s < last:
                    key, positive = _row_key(row)
                    sides = self.pending.setdefault(s, {}).setdefault(key, ([], []))
                    point = fpoints[k] if self.d > 2 else None
                    sides[0 if positive else 1].append(_Pending(i, piece.rows, k, point, piece.map))
        for u, v in label_edges:
            i, j = ids[u], ids[v]
            self.join(i, j, maps[i] == maps[j])

    def absorb(self, out: "_ChunkOut"):
        """Append a chunk's regions (its ids shifted after ours), edges, unions and waiting facets."""
        off = self.n
        self.uf.parent.extend(off + p for p in out.uf)
        self.n += out.n
        self.unions += out.unions
        for i, (piece, fpoints) in enumerate(out.found):
            if self.keep == "all":
                self.found.append((piece, fpoints))
            if self.callback is not None:
                self.callback(off + i, _region(piece, fpoints))
        if self.keep == "all":
            self.edges.extend((off + i, off + j) for i, j in out.edges)
        for level, keys in out.pending.items():
            mine = self.pending.setdefault(level, {})
            for key, sides in keys.items():
                both = mine.setdefault(key, ([], []))
                for side, entries in zip(both, sides):
                    for e in entries:
                        e.id += off
                    side.extend(entries)

    def linear_ids(self):
        """For each region id, the number of its linear region (numbered in order of first region)."""
        out, number = array("q"), {}
        for i in range(self.n):
            root = self.uf.find(i)
            if root not in number:
                number[root] = len(number)
            out.append(number[root])
        return out

    def join(self, i, j, same_map):
        if self.keep == "all":
            self.edges.append((i, j) if i < j else (j, i))
        if same_map and self.uf.union(i, j):
            self.unions += 1

    def close(self, s):
        """Every piece inside the current ancestor of sub-layer ``s`` is done: match its wall facets."""
        for key, (plus, minus) in self.pending.pop(s, {}).items():
            self.match(key, plus, minus)

    def match(self, key, plus, minus):
        if not plus or not minus:
            return
        if self.keep != "all":  # only equal maps can merge linear regions: pair them through a dict
            by_map = {}
            for v in minus:
                by_map.setdefault(v.map, []).append(v)
            for u in plus:
                for v in by_map.get(u.map, ()):
                    if self.uf.find(u.id) != self.uf.find(v.id) and _overlap(u, v, key, self.d):
                        self.join(u.id, v.id, True)
            return
        for u, v in _overlapping_pairs(plus, minus, key, self.d):
            self.join(u.id, v.id, u.map == v.map)

    @property
    def linear(self) -> int:
        return self.n - self.unions


def _overlap(u: _Pending, v: _Pending, key, d) -> bool:
    """Do two facets on the hyperplane ``key`` share a (d-1)-dimensional piece?  Exact.

    A facet point of one strictly inside the other's rows proves it at once; in the
    plane the facets are intervals of the line (exact Fractions); above, a certified LP
    in the hyperplane decides.
    """
    if d == 1:
        return True
    for p, q in ((u, v), (v, u)) if d > 2 else ():
        N, E = p.point
        if all(sum(a * x for a, x in zip(r, N)) < r[-1] * E for r in q.rows):
            return True
    if d == 2:
        lo1, hi1 = _interval(u.rows, key)
        lo2, hi2 = _interval(v.rows, key)
        lo = lo1 if lo2 is None else lo2 if lo1 is None else max(lo1, lo2)
        hi = hi1 if hi2 is None else hi2 if hi1 is None else min(hi1, hi2)
        return lo is None or hi is None or lo < hi
    if _separated(_facet_box(u, key, d), _facet_box(v, key, d)) or _row_separates(u, v, key, d) \
            or _row_separates(v, u, key, d):
        return False
    if _common_point(u, v, key, d):
        return True
    rows = u.rows + v.rows
    cert = relative_interior_point([r[:-1] for r in rows], [r[-1] for r in rows], [key[:-1]], [key[-1]])
    return cert.feasible


def _row_separates(u: _Pending, v: _Pending, key, d) -> bool:
    """Some row ``q`` of ``v`` has all of ``u``'s facet on its far side (``q . x >= q_b``), proved by duality.

    In a plane (d = 3) two convex facets with no common open set are always separated by
    the line of an edge of one of them (separating axes), so this decides every bounded case.
    """
    found = _vertices_of(u, key, d)
    if found is None:
        return False
    subsets, V = found
    for q in v.rows:
        a = np.array([float(c) for c in q[:-1]])
        values = V @ a
        if values.min() < float(q[-1]) - 1e-9 * (1 + abs(float(q[-1]))):
            continue
        best = subsets[int(np.argmin(values))]
        bound = _dual_bound([u.rows[i] for i in best], key, [-c for c in q[:-1]], d)
        if bound is not None and bound <= -q[-1]:
            return True
    return False


def _vertices_of(u: _Pending, key, d):
    if u.vertices is None:
        u.vertices = (_hyperplane_vertices(u.rows, key, d),)
    return u.vertices[0]


def _separated(box1, box2) -> bool:
    """Two exact boxes (per coordinate: low, high; None = unbounded) meet in no open set."""
    for (lo1, hi1), (lo2, hi2) in zip(box1, box2):
        if (hi1 is not None and lo2 is not None and hi1 <= lo2) or (hi2 is not None and lo1 is not None and hi2 <= lo1):
            return True
    return False


def _facet_box(u: _Pending, key, d):
    """Exact bounds of every coordinate on the facet ``{x : key, u.rows}``, certified by duality.

    Floats find, for each direction ``+-e_j``, the facet's vertex where ``x_j`` is
    extreme and the ``d - 1`` rows active there; integer Cramer's rule then gives
    ``+-e_j = sum y_i a_i + mu h`` with ``y >= 0`` (``mu`` free), and so the exact bound
    ``+-x_j <= sum y_i b_i + mu beta`` on the whole facet (weak duality: any such ``y``
    proves it, the floats only choose it).  Unproved bounds are None.
    """
    if u.box is not None:
        return u.box
    box = [[None, None] for _ in range(d)]
    u.box = box
    rows = u.rows
    found = _vertices_of(u, key, d)
    if found is None:
        return box
    subsets, V = found
    for j in range(d):
        for sign, side in ((1, 1), (-1, 0)):
            best = subsets[int(np.argmax(sign * V[:, j]))]
            bound = _dual_bound([rows[i] for i in best], key, [sign * int(i == j) for i in range(d)], d)
            if bound is not None:
                box[j][side] = bound * sign
    return box


def _hyperplane_vertices(rows, key, d):
    """Float vertices of ``{x : key . x = beta, rows}``: (the d - 1 rows active at each, the vertices), or None."""
    if len(rows) < d - 1 or len(rows) > 24:
        return None
    G = np.array([[float(v) for v in r] for r in rows])
    h = np.array([float(v) for v in key])
    subsets = np.array(list(combinations(range(len(rows)), d - 1)), dtype=np.intp)
    M = np.concatenate([G[subsets][:, :, :-1], np.broadcast_to(h[:-1], (len(subsets), 1, d))], axis=1)
    rhs = np.concatenate([G[subsets][:, :, -1], np.full((len(subsets), 1), h[-1])], axis=1)
    with np.errstate(all="ignore"):
        scale = np.abs(M).max(axis=(1, 2))
        ok = np.abs(np.linalg.det(M / scale[:, None, None])) > 1e-10
        if not ok.any():
            return None
        V = np.linalg.solve(M[ok], rhs[ok][..., None])[..., 0]
        slack = V @ G[:, :-1].T - G[:, -1]
        tol = 1e-9 * (1 + np.abs(G[:, -1]))
        feasible = np.all(slack <= tol, axis=1) & np.all(np.isfinite(V), axis=1)
    if not feasible.any():
        return None
    return subsets[ok][feasible], V[feasible]


def _common_point(u: _Pending, v: _Pending, key, d) -> bool:
    """A rational point on ``key`` strictly inside both facets' rows, from the mean of float vertices."""
    rows = u.rows + v.rows
    found = _hyperplane_vertices(rows, key, d)
    if found is None or len(found[1]) < d:
        return False
    y = found[1].mean(axis=0)
    scale = 1 << 48
    num = [round(c * scale) for c in y]
    a, beta = key[:-1], key[-1]
    norm2 = sum(c * c for c in a)
    gap = beta * scale - sum(c * x for c, x in zip(a, num))
    N, E = [x * norm2 + gap * c for x, c in zip(num, a)], scale * norm2    # projected onto the hyperplane
    return all(sum(c * x for c, x in zip(r, N)) < r[-1] * E for r in rows)


def _dual_bound(active, key, target, d):
    """``target . x <= bound`` on ``{key: equality, active: <=}`` from ``target = sum y a + mu h``, or None."""
    cols = [list(r[:-1]) for r in active] + [list(key[:-1])]
    det = _int_det([[c[i] for c in cols] for i in range(d)])
    if det == 0:
        return None
    y = []
    for m in range(d):
        swapped = [target if k == m else c for k, c in enumerate(cols)]
        y.append(Fraction(_int_det([[c[i] for c in swapped] for i in range(d)]), det))
    if any(v < 0 for v in y[:-1]):
        return None
    return sum(v * r[-1] for v, r in zip(y[:-1], active)) + y[-1] * key[-1]


def _int_det(m) -> int:
    """Determinant of a small integer matrix by cofactor expansion (d <= 4 here)."""
    if len(m) == 1:
        return m[0][0]
    if len(m) == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    return sum((-1) ** c * m[0][c] * _int_det([row[:c] + row[c + 1:] for row in m[1:]])
               for c in range(len(m)) if m[0][c])


def _interval(rows, key):
    """The open interval ``(lo, hi)`` of the line ``key`` where every row holds strictly (None: unbounded).

    The line is ``x(t) = beta a / |a|^2 + t (-a_2, a_1)``; a row ``r`` holds at ``x(t)`` iff
    ``c t < K / |a|^2`` with ``c = r . (-a_2, a_1)`` and ``K = r_b |a|^2 - beta (r . a)``: the
    bounds ``K / (c |a|^2)`` are compared in integers, and the two ends made Fractions.
    """
    a0, a1, beta = key
    n2 = a0 * a0 + a1 * a1
    lo = hi = None  # as (numerator, positive denominator) of t |a|^2
    for r0, r1, rb in rows:
        c = r1 * a0 - r0 * a1
        if c == 0:
            continue
        K = rb * n2 - beta * (r0 * a0 + r1 * a1)
        if c > 0:
            if hi is None or K * hi[1] < hi[0] * c:
                hi = (K, c)
        elif lo is None or K * lo[1] < lo[0] * c:   # K / c > lo with c < 0: -K / -c against lo
            lo = (-K, -c)
    return (None if lo is None else Fraction(lo[0], lo[1] * n2)), (None if hi is None else Fraction(hi[0], hi[1] * n2))


def _overlapping_pairs(plus, minus, key, d):
    """Every pair (u on the + side, v on the - side) whose facets overlap (exact).

    In the plane the facets are open intervals of the line; the pieces on one side are
    disjoint, so are their intervals, and one merge of the two lists sorted by their left
    ends finds every overlapping pair.
    """
    if d != 2:
        return [(u, v) for u in plus for v in minus if _overlap(u, v, key, d)]
    a = sorted(((_interval(u.rows, key), u) for u in plus), key=_left_end)
    b = sorted(((_interval(v.rows, key), v) for v in minus), key=_left_end)
    out, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        (lo1, hi1), u = a[i]
        (lo2, hi2), v = b[j]
        lo = lo1 if lo2 is None else lo2 if lo1 is None else max(lo1, lo2)
        hi = hi1 if hi2 is None else hi2 if hi1 is None else min(hi1, hi2)
        if lo is None or hi is None or lo < hi:
            out.append((u, v))
        if hi2 is None or (hi1 is not None and hi1 <= hi2):   # the interval that ends first is done
            i += 1
        else:
            j += 1
    return out


def _left_end(item):
    lo = item[0][0]
    return (0, 0) if lo is None else (1, lo)


def _descend(piece, steps, s, sink):
    """Refine ``piece`` by sub-layers ``s, s+1, ...`` to the last, depth first, into ``sink``.

    Only the pieces of one parent per depth are held: memory is depth x branching.
    """
    children, label_edges = [], []
    _refine(piece, steps[s], children, label_edges, s)
    last = len(steps) - 1
    if s == last:
        sink.family(children, label_edges, last)
        return
    for child, _, _ in children:
        _descend(child, steps, s + 1, sink)
        sink.close(s + 1)


@dataclass
class _ChunkOut:
    """What refining a chunk of parents to the last sub-layer gives back to the caller."""

    n: int
    found: list
    edges: list
    unions: int
    uf: object
    pending: dict


def _descend_chunk(steps, s, keep, d, parents):
    """One unit of work: refine ``parents`` (pieces of sub-layer ``s - 1``) to the end, ids from 0."""
    sink = _Collector(keep, None, d)
    for parent in parents:
        _descend(parent, steps, s, sink)
        sink.close(s)
    return _ChunkOut(sink.n, sink.found, sink.edges, sink.unions, sink.uf.parent, sink.pending)


def enumerate_regions(model, box=None, progress: bool | None = None, workers: int = 1,
                      executor="serial", keep="all", scheduler=None) -> RegionSet:
    """All activation regions of ``model`` over ``R^d`` (or inside ``box``), exactly.

    The sub-layers are refined depth first: a parent's pieces are refined to the last
    sub-layer before the next parent is started, so with ``keep="counts"`` or a
    callback only one parent's pieces per depth are in memory (plus one integer per
    region for the linear-region union-find and the facets that wait on a wall of an
    earlier sub-layer, see :class:`_Collector`).  The first sub-layers are refined
    breadth first until there are enough parents to keep every worker busy; chunks of
    those parents are the units of work of the executor.

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
        ``executor="processes"`` with that many processes; with ``"dask"`` and no
        scheduler, the number of local workers.
    executor : str or executor object, optional
        Where the chunks of parents are refined (:mod:`tropattn.backends`):
        ``"serial"``, ``"processes"``, ``"dask"``, or any object with
        ``map(fn, chunks)``.  The result does not depend on it.
    keep : {"all", "counts"} or callable, optional
        ``"all"``: every region, the full adjacency graph and the linear regions as
        sets; ``"counts"``: only the numbers; a callable ``keep(id, region)`` is called
        with every :class:`ActivationRegion` as it is found (ids 0, 1, ... in order)
        and the regions are not kept; ``RegionSet.linear_ids`` then maps ids to linear
        regions, and if the callable has a ``done(result)`` method it is called with
        the RegionSet at the end, also after Ctrl-C (see :class:`RegionWriter`).
    scheduler : str, optional
        For ``executor="dask"``: ``None`` or ``"local"`` (a LocalCluster here) or a
        ``"tcp://host:port"`` address.

    Returns
    -------
    RegionSet
        With ``activation_regions``, ``linear_regions`` and the adjacency ``graph``
        (when kept), the counts ``n_activation`` and ``n_linear``; ``counters`` holds
        the exact-path counts of this call.

    Raises
    ------
    Interrupted
        On Ctrl-C; its ``partial`` holds the regions of the completed chunks
        (``complete=False``): every one of them is a certified region.
    InvalidInputError
        A bad ``workers``, ``executor`` or ``keep``.

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
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise InvalidInputError(f"workers must be a positive integer; got {workers!r}")
    if not (keep in ("all", "counts") or callable(keep)):
        raise InvalidInputError(f"keep = {keep!r}; use 'all', 'counts' or a function called with (id, region)")
    kind = executor
    if executor == "serial":
        kind = "dask" if scheduler is not None else "processes" if workers > 1 else "serial"
    runner = get_executor(kind, workers, scheduler=scheduler)
    t0 = time.perf_counter()
    callback = keep if callable(keep) else None
    mode = "counts" if keep == "counts" else "all" if keep == "all" else "regions"
    with counting() as scope:
        d = model.dim
        root = _root(box, d)
        steps = model_steps(model)
        sink = _Collector(mode, callback, d)
        bar = Progress(progress, max(len(steps), 1))
        try:
            with _closing(runner if isinstance(kind, str) else None):
                if steps:
                    _run(root, steps, sink, runner, bar)
                else:
                    sink.family([(root, (), ())], (), 0)
        except KeyboardInterrupt:
            bar.close()
            partial = _result(sink, t0, scope, complete=False)
            _done(callback, partial)
            raise Interrupted(f"interrupted; the partial result holds the {partial.n_activation} regions "
                              "certified so far (a lower bound on the count)", partial) from None
        bar.close()
        result = _result(sink, t0, scope, complete=True)
        _done(callback, result)
        return result


def _done(callback, result):
    """A callback with a ``done`` method (a writer) hears the end: the RegionSet, complete or partial."""
    done = getattr(callback, "done", None)
    if done is not None:
        done(result)


def _root(box, d) -> _Piece:
    if box is None:
        return _Piece((), (), (), (), (0,) * d, 1, AffineMap.identity(d))
    A, b = box_rows(box, d)
    X, D = homogeneous_point(interior_point(A, b).point)
    rows = tuple(integer_row(list(a) + [bi]) for a, bi in zip(A, b))
    return _Piece((), rows, tuple(("box",) for _ in A), (-1,) * len(rows), X, D, AffineMap.identity(d))


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


#: Parents before the work is split into chunks: enough to keep a few workers busy, and the same
#: for every executor, so that serial, processes and Dask do exactly the same exact work.
_FRONTIER = 64


def _run(root, steps, sink, runner, bar):
    """Breadth first to a frontier of enough parents, then chunks of it depth first on ``runner``."""
    workers = getattr(runner, "workers", 1)
    frontier, s, last = [root], 0, len(steps) - 1
    while s < last and len(frontier) < _FRONTIER:
        nxt = []
        for parent in frontier:
            out = []
            _refine(parent, steps[s], out, [], s)
            nxt.extend(p for p, _, _ in out)
        frontier, s = nxt, s + 1
    # in this process a chunk costs nothing, so one parent each (finest progress and Ctrl-C);
    # elsewhere every chunk travels, so about four per worker (busy workers, few transfers)
    size = 1 if getattr(runner, "in_process", False) else max(1, len(frontier) // (4 * workers))
    chunks = [frontier[i:i + size] for i in range(0, len(frontier), size)]
    del frontier
    bar.start_step(s, sum(map(len, chunks)))
    results = runner.map(functools.partial(_descend_chunk, steps, s, "counts" if sink.keep == "counts" else "all",
                                           sink.d), chunks)
    try:
        for chunk, result in zip(chunks, results):
            sink.absorb(result.value)
            bar.advance(len(chunk), result.value.n)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()  # Ctrl-C or an error here: the executor cancels what is still pending, now
    for level in sorted(sink.pending):
        sink.close(level)


def _result(sink, t0, scope, complete) -> RegionSet:
    for level in sorted(sink.pending):
        sink.close(level)
    linear_ids = sink.linear_ids() if sink.keep == "regions" else None
    if sink.keep != "all":
        return RegionSet((), (), None, complete, time.perf_counter() - t0, scope.snapshot(),
                         sink.n, sink.linear, linear_ids)
    regions = tuple(_region(p, f) for p, f in sink.found)
    graph = nx.Graph()
    graph.add_nodes_from(range(len(regions)))
    graph.add_edges_from(sink.edges)
    groups = {}
    for i in range(len(regions)):  # the union-find joined exactly the graph's equal-map edges
        groups.setdefault(sink.uf.find(i), []).append(i)
    linear = tuple(frozenset(g) for g in groups.values())  # ordered by smallest member (the roots)
    return RegionSet(regions, linear, graph, complete, time.perf_counter() - t0, scope.snapshot(),
                     len(regions), len(linear), None)


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

    The heads form one layer without residual, so values of any common dimension are
    accepted (as :func:`~tropattn.attention.count_dual` does); linear regions join
    adjacent regions whose value sums agree.

    Parameters
    ----------
    heads : sequence of Head
        Heads reading the same dimension, with values of one common dimension.
    box : (lo, hi), optional
        Restrict to this box (see :func:`box_rows`).
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
