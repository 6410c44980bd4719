"""Refining one region by one sub-layer: a search across every certified facet of every piece.

Inside a region ``R`` of the sub-layers before (its integer rows, an interior point and its
affine map), the next sub-layer -- a layer's heads pulled back through ``R``'s map, or its
ReLU FFN -- cuts ``R`` into a *face-to-face* subdivision.  :func:`refine` finds every piece:
it starts at a tie-free point, asks :func:`tropattn.exact.region_facets` for the certified
facets of the piece there, and crosses each facet that lies on a wall of this sub-layer
(:func:`_cross`: a verified step along the outer normal, shrinking geometrically to any
exact scale), so each facet has one piece on the other side.  Every piece is certified by
a rational point where its labels are evaluated exactly with no ties; everything here is
integer arithmetic on homogeneous coordinates.

>>> from tropattn.attention import Head, Layer, Transformer
>>> from ._steps import model_steps
>>> step = model_steps(Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])])]))[0]   # max(0, x, 2x - 1)
>>> pieces, edges = [], []
>>> refine(root_piece(None, 1), step, pieces, edges)
>>> sorted(labels for _, _, labels in pieces), len(edges)       # three pieces, two walls crossed
([(0,), (1,), (2,)], 2)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from ..errors import DegenerateInputError, TieError
from ..exact import format_point, homogeneous_point, integer_row, interior_point, record, region_facets
from ._affine import AffineMap
from ._results import ActivationRegion, box_rows
from ._relu import Bits
from ._steps import AttentionStep, append_pattern, wall_rows

__all__ = ["Piece", "root_piece", "region_of", "refine", "row_key"]


@dataclass(frozen=True)
class Piece:
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


def root_piece(box, d) -> Piece:
    """The region before any sub-layer: all of ``R^d`` (no rows), or the box ``[lo, hi]^d``."""
    if box is None:
        return Piece((), (), (), (), (0,) * d, 1, AffineMap.identity(d))
    A, b = box_rows(box, d)
    X, D = homogeneous_point(interior_point(A, b).point)
    rows = tuple(integer_row(list(a) + [bi]) for a, bi in zip(A, b))
    return Piece((), rows, tuple(("box",) for _ in A), (-1,) * len(rows), X, D, AffineMap.identity(d))


def region_of(piece, fpoints) -> ActivationRegion:
    """The public region of a final piece (its Fraction views are built when first read)."""
    return ActivationRegion(piece.pattern, piece.walls, piece.map, piece.rows, (piece.X, piece.D), tuple(fpoints))


def _nudge_directions(d):
    """Deterministic, generic-looking rational directions."""
    primes = (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for k in range(1, 6):
        yield tuple(Fraction((-1) ** i * (i + k), primes[(i + k) % len(primes)]) for i in range(d))


def _tie_free_point(parent: Piece, step):
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
    so each ``(h, j)`` is pulled back through the parent's map and made primitive once; a
    ReLU step's row is made primitive once per wall tag (unit and bit).
    """

    def __init__(self, step, f):
        self.step, self.f, self.cache, self.prim = step, f, {}, {}

    def __call__(self, labels):
        """``(rows, walls)`` of the piece with these labels: primitive integer rows and their tags."""
        step = self.step
        if not isinstance(step, AttentionStep):
            if labels not in self.cache:
                self.cache[labels] = self._primitive(*step.rows(labels, self.f))
            return self.cache[labels]
        rows, walls = (), ()
        for h, j in enumerate(labels):
            part = self.cache.get((h, j))
            if part is None:
                A, b, tags = [], [], []
                scores = step.pulled_back(self.f)[h]
                wall_rows(step.heads[h], j, step.rivals(h, j), self.f, ("head", step.index, h), A, b, tags,
                          scores)
                part = self.cache[(h, j)] = (tuple(integer_row(a + (bi,)) for a, bi in zip(A, b)), tuple(tags))
            rows += part[0]
            walls += part[1]
        return rows, walls

    def of_units(self, labels, units):
        """``(rows, walls)`` of only these ReLU units (:meth:`~._relu.ReluStep.near_units`)."""
        return self._primitive(*self.step.rows(labels, self.f, units))

    def _primitive(self, A, b, walls):
        prim = self.prim            # a wall's tag fixes its row inside the parent: primitive once
        rows = []
        for a, bi, tag in zip(A, b, walls):
            row = prim.get(tag)
            if row is None:
                row = prim[tag] = integer_row(a + (bi,))
            rows.append(row)
        return tuple(rows), tuple(walls)



def _opens_onto(rows, N, E, row):
    """The reversed ``row`` if ``N / E`` (on ``row``'s line) satisfies ``rows`` and only copies of it tightly.

    Then, near that point, the region of ``rows`` is exactly the half-plane beyond ``row``:
    it has interior and the reversed row is one of its facets (no point needs to be found).
    """
    n0, n1 = N
    back = (-row[0], -row[1], -row[2])
    for r in rows:
        t = r[0] * n0 + r[1] * n1 - r[2] * E
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


def refine(parent: Piece, step, regions_out, edges_out, s=0, lazy=False):
    """Search of the pieces of ``parent`` cut by ``step`` (sub-layer ``s``), across every facet.

    Appends ``(piece, facet points)`` to ``regions_out`` and ``(labels, labels)`` for every
    pair of pieces found on the two sides of a facet to ``edges_out``.  In the plane a
    piece reached across a facet is entered there (:func:`_opens_onto`): its facets come
    from that one known facet, and its interior point from its facet points.
    """
    if hasattr(step, "restrict"):  # a ReLU step drops the units whose lines miss the parent
        step.restrict(parent.map, parent.rows)
    start, labels = _tie_free_point(parent, step)
    step_rows = _StepRows(step, parent.map)
    planar = len(parent.X) == 2
    seen = {labels: (start[0], start[1], None)}
    known = {}  # labels -> hyperplane keys already crossed into it (the piece across is known)
    via = {}    # labels -> the ReLU unit crossed into the piece (its row must be among the piece's)
    queue, queued = [labels], {labels}
    n_parent = len(parent.rows)
    while queue:
        labels = queue.pop()
        queued.discard(labels)
        X, D, entry = seen[labels]
        R, W, keep, fpoints, units = _piece_facets(parent, step, step_rows, labels, X, D, entry, via.pop(labels, None))
        if entry is not None:
            X, D = _inside(keep, fpoints, R, entry, X, D)
        O = parent.origin + (s,) * (len(R) - n_parent)
        piece = Piece(append_pattern(parent.pattern, step, labels), tuple(R[i] for i in keep),
                       tuple(W[i] for i in keep), tuple(O[i] for i in keep), X, D,
                       step.output_map(labels, parent.map, lazy))
        regions_out.append((piece, fpoints, labels))
        here = known.pop(labels, ())
        for i, (N, E) in zip(keep, fpoints):
            if i < n_parent:  # a wall of an earlier sub-layer: stay inside the parent
                continue
            key = row_key(R[i])[0]
            if key in here:  # face to face: the piece that crossed into us is the one across
                continue
            guess = _guess_across(labels, W[i])
            back = None
            if planar and guess is not None and step.realisable(guess):
                back = _opens_onto((step_rows(guess) if units is None else step_rows.of_units(guess, units))[0],
                                   N, E, R[i])
            if back is not None:
                nxt, across = guess, (N, E, back)
                if W[i][0] == "relu" and nxt not in seen:
                    via[nxt] = W[i][2]       # the unit crossed: its row is the entry, so it must be used
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


def _piece_facets(parent, step, step_rows, labels, X, D, entry, unit=None):
    """``(R, W, keep, points, units)``: the piece's rows (the parent's, then the step's), tags and facets.

    A ReLU step crossed by many units in a plane parent first cuts the parent by the rows
    of the units nearest the point (:meth:`~._relu.ReluStep.near_units`, and ``unit``,
    the one crossed into the piece); the exact signs of every other unit at the vertices
    of that polygon (:meth:`~._relu.ReluStep.far_units`) certify that their rows are
    strictly redundant, or add those that are not, for at most ``_ROUNDS`` rounds.
    ``units`` is then the units used; else (None) every unit's row is taken.
    """
    near = getattr(step, "near_units", None)
    units = near(labels, parent.map, X, D) if near is not None else None
    if units is not None:
        if unit is not None and unit not in units:
            units = sorted(units + [unit])
        for _ in range(_ROUNDS):
            rows, walls = step_rows.of_units(labels, units)
            R = parent.rows + rows
            keep, fpoints, V = region_facets(R, X, D, entry, vertices=True)
            far = None if V is None else step.far_units(labels, parent.map, units, V)
            if far == []:
                record("certified", where="relu.near_units")
                return R, parent.walls + walls, keep, fpoints, units
            if far is None:
                break
            units = sorted(set(units).union(far))
        record("fallbacks", where="relu.near_units")
    rows, walls = step_rows(labels)
    R = parent.rows + rows
    keep, fpoints = region_facets(R, X, D, entry)
    return R, parent.walls + walls, keep, fpoints, None


#: Rounds of :func:`_piece_facets` before it takes every unit's row.
_ROUNDS = 3


def _guess_across(labels, wall):
    """The labels across a wall if only that wall's head (or unit) changes: j -> k, or the bit flips."""
    if wall[0] == "head" and labels[wall[2]] == wall[3]:
        return labels[:wall[2]] + (wall[4],) + labels[wall[2] + 1:]
    if wall[0] == "relu":
        if isinstance(labels, Bits):
            return labels.flipped(wall[2])
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
        if s > 0 or (s == 0 and (not any(r[:-1]) or row_key(r)[0] != key)):
            return False
    return True


def row_key(row):
    """Canonical key of the hyperplane of a primitive integer row, and whether the row is on its + side."""
    for v in row:
        if v:
            break
    return (row if v > 0 else tuple(-v for v in row)), (v > 0)

