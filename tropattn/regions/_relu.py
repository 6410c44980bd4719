"""The ReLU FFN of a layer as a step of the region search (:class:`ReluStep`).

Inside a parent region with map ``f`` the pre-activations are one exact integer product;
a parent polygon in the plane fixes the units whose lines miss it (:meth:`ReluStep.restrict`),
and each piece is cut by the crossing units nearest its point first
(:meth:`ReluStep.near_units`, certified by :meth:`ReluStep.far_units`).  The pieces' output
maps come from the flipped units' terms (:class:`_PieceMaps`), deferred in a count.
"""

from __future__ import annotations

import math

import numpy as np

from .._config import config
from ..exact import PreparedRows, int_bits, int_limbs, int_matmul, record
from ._affine import _HASHED, _P, AffineMap, augmented, residue_hash

__all__ = ["Bits", "ReluStep"]


class Bits(tuple):
    """The on/off bits of many ReLU units: a tuple that hashes once and keeps its int8 array.

    The search keys its dicts by the pieces' bits; a tuple of thousands of ints would be
    hashed (and turned into an array) again at every lookup.  Equal to, and hashing as,
    the plain tuple.

    >>> b = Bits.of([0, 1] * 40)
    >>> b == tuple(b), hash(b) == hash(tuple(b)), b.flipped(0)[:3], int(b.flipped(0).array()[0])
    (True, True, (1, 1, 0), 1)
    """

    #: Fewer bits than this stay a plain tuple (hashing those is cheaper than a Python-level hash).
    SHORT = 64

    @classmethod
    def of(cls, bits):
        """``bits`` as :class:`Bits` when long, else as a plain tuple."""
        return cls(bits) if len(bits) >= cls.SHORT else tuple(bits)

    def __hash__(self):
        state = self.__dict__
        h = state.get("_h")
        if h is None:
            h = state["_h"] = tuple.__hash__(self)
        return h

    def array(self) -> np.ndarray:
        """The bits as an int8 array (made once; do not write to it)."""
        a = self.__dict__.get("_a")
        if a is None:
            a = self.__dict__["_a"] = np.frombuffer(bytes(self), dtype=np.int8)
        return a

    def flipped(self, i) -> "Bits":
        """The bits with unit ``i`` flipped."""
        out = Bits(self[:i] + (1 - self[i],) + self[i + 1:])
        a = self.__dict__.get("_a")
        if a is not None:
            b = a.copy()
            b[i] = 1 - b[i]
            out.__dict__["_a"] = b
        return out

    def __reduce__(self):
        return Bits, (tuple(self),)


class ReluStep:
    """The ReLU FFN of one layer: ``y -> y + W2 relu(W1 y + b1) + b2``.

    The weights are kept as integer matrices over one denominator each (a power of two for
    float weights, :meth:`tropattn.attention.FFN.integer_form`); inside a parent with map
    ``f = (Mi x + ci) / m`` the pre-activations ``t1 m (W1 f(x) + b1) = H x + h`` are one
    exact integer product (:func:`tropattn.exact.int_matmul`, on float64 limbs of the weights
    split once, :func:`tropattn.exact.int_limbs`), computed once per parent and shared by the
    labels, the rows and the output maps of its pieces.

    **Parents in the plane** (:meth:`restrict`): most units' lines miss a small parent
    polygon; their signs are then fixed on it (the exact signs of ``H x + h`` at its
    vertices, by the filtered signs of :class:`tropattn.exact.PreparedRows`), their rows are strictly
    redundant there and are left out, and only the units crossing it are evaluated.
    """

    def __init__(self, ffn, index):
        self.ffn, self.index = ffn, index
        W1, self._t1, W2, self._t2 = ffn.integer_form()
        self._W1, self._b1 = W1[:, :-1], W1[:, -1]
        self._W2, self._b2 = W2[:, :-1], W2[:, -1]
        self._W2_bits = int_bits(self._W2)
        self._W1L, self._W2L = int_limbs(self._W1), int_limbs(self._W2)
        self._W2headL = int_limbs(self._W2[:_HASHED])   # the rows an output map's hash reads
        self._last = None  # (f, H, h, _PieceMaps, rows made) of the last parent
        self._linear = None  # (Mi, m, W1n Mi) of the last parent that needed the whole product
        self._view = None  # the parent polygon of restrict(): _ParentView
        self._bits = None  # (bits, as int8): rows and output_map of one piece read the same tuple

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_last"], state["_view"], state["_bits"], state["_linear"] = None, None, None, None
        return state

    def _bits_array(self, bits):
        if isinstance(bits, Bits):
            return bits.array()
        last = self._bits
        if last is None or last[0] is not bits or not isinstance(bits, tuple):   # a list may change
            last = self._bits = (bits, np.asarray(bits, dtype=np.int8))
        return last[1]

    def restrict(self, f: AffineMap, rows) -> None:
        """Enter a parent region: later calls with this ``f`` may use its polygon ``rows``.

        In the plane, with ``rows`` the parent's facet rows ``(a1, a2, b)`` of a bounded
        polygon, a unit whose pre-activation has the same strict sign at every vertex keeps
        that sign on the whole closed polygon: :meth:`labels_at` takes it from there (for
        points in the closed polygon), and :meth:`rows` leaves its row out (strictly
        redundant inside the parent, so never a facet of a piece) when the bits agree with
        it.  Elsewhere (other dimensions, unbounded parents, ``tropattn.config``
        ``relu_parent_filter=0``) nothing changes.

        Parameters
        ----------
        f : AffineMap
            The parent's map.
        rows : sequence of tuple of int
            The parent's facet rows (non-redundant, as the search certifies them).

        Examples
        --------
        >>> from tropattn.attention import FFN
        >>> step = ReluStep(FFN([[1, 0], [0, 1]], [-5, 0], [[1, 1], [1, 1]], [0, 0]), 0)   # x - 5, y
        >>> f, square = AffineMap.identity(2), [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)]
        >>> step.restrict(f, square)
        >>> step.rows((0, 1), f)            # x - 5 < 0 on the square: only the row of y
        ([(0, -1)], [0], [('relu', 0, 1, 1)])
        """
        self._view = None
        Mi = f._integers[0]
        if not config.relu_parent_filter or not Mi or len(Mi[0]) != 2:
            return
        V = _polygon_vertices(rows)
        if V is None:
            return
        H, h = self._hidden(f)
        HH = np.empty((len(h), 3), dtype=object)
        HH[:, :2], HH[:, 2] = H, h
        lines = PreparedRows(HH)             # the floats made once: for these signs and the pieces' later
        S = lines.signs(V)
        pos, neg = (S > 0).all(axis=1), (S < 0).all(axis=1)
        cross = np.flatnonzero(~(pos | neg))
        fixed = pos.astype(np.int8)
        record("certified", len(h) - len(cross), where="relu.parent_filter")
        self._view = _ParentView(f, tuple(rows), cross.tolist(), np.flatnonzero(pos | neg), fixed,
                                 fixed.tolist(), lines.take(cross))
        self._last[3].vary = self._view.cross_array

    def _view_of(self, f):
        view = self._view
        return view if view is not None and view.f is f else None

    def _hidden(self, f: AffineMap):
        """``(H, h)``: integer arrays with ``t1 m (W1 f(x) + b1) = H x + h`` (one product per parent)."""
        last = self._last
        if last is not None and last[0] is f:
            return last[1], last[2]
        return self._enter(f)[1:3]

    def _enter(self, f: AffineMap):
        """``(f, H, h, maps, rows)`` of a new parent: one exact product; its pieces' maps and rows to come.

        Parents whose maps share their linear part (every cell of a first layer: hard
        attention adds a constant) share ``H`` up to the factor of their denominators: then
        only the offset column is a new product.
        """
        integers = f._integers
        shared = self._shared_linear(integers[0], integers[2])
        H, h = self._pre_activations(integers, shared)
        if shared is None:
            self._linear = (integers[0], integers[2], H)
        self._last = (f, H, h, _PieceMaps(self, integers, H, h), {})
        return self._last

    def _pre_activations(self, integers, H=None):
        """``(H, h)`` of :meth:`_hidden` for the map ``integers = (Mi, ci, m)``; ``H`` given when shared."""
        Mi, ci, m = integers
        d = len(Mi[0])                  # a parent map has a row per model coordinate
        if H is None:
            P = int_matmul(self._W1L, augmented(integers))
            H, hc = P[:, :d], P[:, d]
        else:
            hc = int_matmul(self._W1L, np.array(ci, dtype=object).reshape(-1, 1))[:, 0]
        return H, hc + self._b1 * m

    def _made_map(self, bits, integers) -> AffineMap:
        """The output map on the piece ``bits`` of the parent map ``integers``, from scratch.

        A deferred map (:meth:`_PieceMaps.deferred`) is made by this when first needed: it
        holds the parent's integers and the bits only, not the parent's products (``H``, the
        units' terms, the recent numerators), which would otherwise live as long as any of its
        pieces' maps.  No cache of the step is touched.
        """
        H, h = self._pre_activations(integers)
        return _PieceMaps(self, integers, H, h).full(bits)

    def _shared_linear(self, Mi, m):
        """``W1n Mi`` from the last parent whose linear part ``Mi / m`` was the same, or None."""
        if self._linear is None:
            return None
        Mr, mr, Hr = self._linear
        if Mr is Mi and mr == m:
            return Hr
        if len(Mr) != len(Mi) or any(a * mr != b * m for ra, rb in zip(Mi, Mr) for a, b in zip(ra, rb)):
            return None
        return Hr if mr == m else Hr * m // mr     # exact: W1n Mi is an integer matrix

    def labels_at(self, f: AffineMap, X, D):
        """On/off bit of every unit at ``f(X / D)``, or None where a pre-activation is 0.

        A unit whose pre-activation is identically 0 on the parent region (its row
        pulls back to zero) is off there, as in :meth:`tropattn.attention.FFN.evaluate`:
        both bits give the same map, so it is no wall and no tie.

        Parameters
        ----------
        f : AffineMap
            The parent region's map from the input space to the FFN's input.
        X : tuple of int
            Numerator of the input point.
        D : int
            Positive denominator of the input point.

        Returns
        -------
        tuple of int or None
            One bit per hidden unit, or None where a pre-activation is 0 on a wall.

        Examples
        --------
        >>> from tropattn.attention import FFN
        >>> step = ReluStep(FFN([[1]], [-1], [[1]], [0]), 0)           # unit relu(y - 1)
        >>> step.labels_at(AffineMap.identity(1), (3,), 1), step.labels_at(AffineMap.identity(1), (1,), 1)
        ((1,), None)
        """
        H, h = self._hidden(f)
        view = self._view_of(f)
        if view is not None and view.holds(X, D):    # in the closed parent: the fixed signs hold
            bits, units = list(view.bits), view.cross
        else:
            bits, units = [0] * len(h), range(len(h))
        for i in units:
            row = H[i]
            p = sum(int(a) * x for a, x in zip(row, X)) + int(h[i]) * D   # same sign as the pre-activation
            if p == 0 and (h[i] != 0 or any(row)):
                return None
            bits[i] = int(p > 0)
        return Bits.of(bits)

    def rows(self, bits, f: AffineMap, units=None):
        """Pulled-back rows of the piece where the units have the given bits (integers).

        Parameters
        ----------
        bits : tuple of int
            One on/off bit per hidden unit.
        f : AffineMap
            The parent region's map.
        units : sequence of int, optional
            Only these units' rows (:meth:`near_units`); by default every unit that can bound
            the piece.

        Returns
        -------
        A : list of tuple of int
            Row normals of ``a . x <= beta``.
        b : list of int
            Right-hand sides.
        walls : list of tuple
            One tag per row: ``("relu", layer, unit, bit)``.

        Examples
        --------
        >>> from tropattn.attention import FFN
        >>> ReluStep(FFN([[1]], [-1], [[1]], [0]), 0).rows((1,), AffineMap.identity(1))   # on: -x <= -1
        ([(-1,)], [-1], [('relu', 0, 0, 1)])
        """
        H, h = self._hidden(f)
        A, b, walls = [], [], []
        if units is None:
            view = self._view_of(f)
            units = range(len(bits))
            if view is not None and np.array_equal(self._bits_array(bits)[view.kept], view.fixed[view.kept]):
                units = view.cross      # the other units keep their parent's sign: strictly redundant rows
        made = self._last[4]           # this parent's rows, each made once: (unit, bit) -> row
        for i in units:
            bit = bits[i]
            row = made.get((i, bit))
            if row is None:
                row = made[i, bit] = self._row(H, h, i, bit)
            if row:
                A.append(row[0])
                b.append(row[1])
                walls.append(row[2])
        return A, b, walls

    def _row(self, H, h, i, bit):
        """``(a, beta, wall)`` of unit ``i`` with this bit, or ``()`` where it is no constraint."""
        sign = -1 if bit else 1  # on: -(H x + h) <= 0 ; off: H x + h <= 0
        a, beta = tuple(sign * int(v) for v in H[i]), sign * -int(h[i])
        if beta == 0 and not any(a):  # identically 0 here: off by convention
            if not bit:
                return ()
            beta = -1                 # "on" is then impossible: 0 <= -1
        return a, beta, ("relu", self.index, i, bit)

    def near_units(self, bits, f: AffineMap, X, D, count=None):
        """The ``count`` crossing units whose lines pass nearest ``X / D``, or None.

        A proposal (float distances): :meth:`far_units` certifies that the others' rows are
        strictly redundant on the piece, or names those that are not.  None when the
        parent has no polygon view (:meth:`restrict`) or the bits leave it.

        >>> from tropattn.attention import FFN
        >>> ffn = FFN([[1, 0], [0, 1], [1, 1]], [0, 0, "-1/2"], [[1, 1, 1], [1, 1, 1]], [0, 0])  # x, y, x + y - 1/2
        >>> step, f = ReluStep(ffn, 0), AffineMap.identity(2)
        >>> step.restrict(f, [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)])       # the square [-1, 1]^2
        >>> bits = step.labels_at(f, (1, 2), 4)                                   # at (1/4, 1/2): all on
        >>> bits, step.near_units(bits, f, (1, 2), 4, count=1)                    # x + y = 1/2 is nearest
        ((1, 1, 1), [2])
        """
        view, count = self._view_of(f), config.relu_near_units if count is None else count
        if view is None or not count or len(view.cross) <= count:
            return None
        if not np.array_equal(self._bits_array(bits)[view.kept], view.fixed[view.kept]):
            return None
        L = view.unit_lines
        dist = np.abs(L[:, 0] * (X[0] / D) + L[:, 1] * (X[1] / D) + L[:, 2])
        near = np.argpartition(dist, count)[:count]
        return sorted(view.cross[k] for k in near.tolist())

    def far_units(self, bits, f: AffineMap, units, vertices):
        """The crossing units outside ``units`` whose rows are not strict at every vertex (exact).

        ``vertices``: the homogeneous vertices ``(X1, X2, D)``, ``D > 0``, of the polygon cut
        from the parent by the rows of ``units``.  An empty answer certifies that every other
        unit has its sign strictly on the whole closed polygon: their rows are strictly
        redundant there, so the polygon is the piece and none of them is a facet.

        >>> from tropattn.attention import FFN
        >>> ffn = FFN([[1, 0], [0, 1], [1, 1]], [0, 0, "-1/2"], [[1, 1, 1], [1, 1, 1]], [0, 0])
        >>> step, f = ReluStep(ffn, 0), AffineMap.identity(2)
        >>> step.restrict(f, [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)])
        >>> triangle = [(-1, 2, 2), (1, 1, 1), (2, -1, 2)]      # the square cut by x + y >= 1/2 alone
        >>> step.far_units((1, 1, 1), f, [2], triangle)         # x < 0 at (-1/2, 1), y < 0 at (1, -1/2)
        [0, 1]
        """
        view = self._view_of(f)
        where = view.where
        inside = np.ones(len(view.cross), dtype=bool)
        inside[[where[u] for u in units]] = False
        rest = np.flatnonzero(inside)
        S = view.lines.signs(vertices, rest)
        want = np.where(self._bits_array(bits)[view.cross_array[rest]] > 0, 1, -1)
        bad = (S != want[:, None]).any(axis=1)
        return [view.cross[k] for k in rest[bad].tolist()]

    def realisable(self, bits) -> bool:
        """Every bit pattern is a candidate (the rows decide which are empty).

        Parameters
        ----------
        bits : tuple of int
            One bit per hidden unit.

        Returns
        -------
        bool
            Always True.

        Examples
        --------
        >>> from tropattn.attention import FFN
        >>> ReluStep(FFN([[1]], [-1], [[1]], [0]), 0).realisable((0,))
        True
        """
        return True

    def output_map(self, bits, f: AffineMap, lazy: bool = False) -> AffineMap:
        """The affine map of the FFN's output on the piece of the given bits.

        With ``W1 = W1n / t1``, ``W2 = W2n / t2`` (and the biases over the same
        denominators) and ``f = (Mi x + ci) / m``, the output is
        ``(t1 t2 (Mi x + ci) + W2n diag(bits) (H x + h) + t1 m b2n) / (t1 t2 m)``: integer
        products only.

        Parameters
        ----------
        bits : tuple of int
            One bit per hidden unit.
        f : AffineMap
            The parent region's map.
        lazy : bool, optional
            Compute only the few entries the map's hash reads, now; the rest when the map is
            compared with one of equal hash, read, or pickled (the last sub-layer of a count:
            most maps are only hashed).

        Returns
        -------
        AffineMap
            ``x -> f(x) + W2 diag(bits) (W1 f(x) + b1) + b2``.

        Examples
        --------
        >>> from tropattn.attention import FFN
        >>> ReluStep(FFN([[1]], [-1], [[1]], [0]), 0).output_map((1,), AffineMap.identity(1))   # x + (x - 1)
        AffineMap(M=((Fraction(2, 1),),), c=(Fraction(-1, 1),))
        """
        self._hidden(f)
        maps = self._last[3]
        return maps.deferred(bits) if lazy else maps.full(bits)


#: Products over at most this many units take Python integers (object arrays) instead of float64 limbs.
_FEW_UNITS = 24


class _PieceMaps:
    """The output maps of the pieces of one parent, as integer numerators over ``t1 t2 m``.

    ``N = t1 t2 [Mi | ci] + W2n diag(bits) [H | h] + [0 | t1 m b2n]`` (:meth:`ReluStep.output_map`).
    A piece near one computed before (few flipped units) costs only the flipped units'
    columns of ``W2n``.  :meth:`deferred` computes only the first rows, those whose residues
    are the map's hash (:func:`tropattn.regions._affine.residue_hash`), and the whole
    numerator only when the map is compared with one of equal hash, read or pickled.
    """

    def __init__(self, step, integers, H, h):
        self.step, self.H, self.h = step, H, h
        self.Mi, self.ci, self.m = integers
        self.t = step._t1 * step._t2
        self.recent = {False: [], True: []}   # head only? -> [(bits as int8, numerators)]
        self.vary = None                      # the units whose bits can differ here (None: all)
        self.terms = {}                       # unit -> its term of the hashed rows

    def full(self, bits) -> AffineMap:
        """The map of the piece with these bits, now."""
        N, d = self.numerators(bits), len(self.Mi[0])
        return AffineMap.from_integers(N[:, :d], N[:, d], self.t * self.m)

    def deferred(self, bits) -> AffineMap:
        """The map of the piece with these bits: its hash now, its entries when needed."""
        den, d = self.t * self.m, len(self.Mi[0])
        if den % _P == 0:
            return self.full(bits)
        head = self.numerators(bits, head=True)
        h = residue_hash(head[d:].tolist(), head[:d].tolist(), den)
        step, integers = self.step, (self.Mi, self.ci, self.m)     # not self: its products stay behind
        return AffineMap.deferred(lambda: step._made_map(bits, integers), h)

    def numerators(self, bits, head=False):
        """``N``, or with ``head`` only what the map's hash reads, from the nearest recent piece when cheaper.

        The hash (:func:`~tropattn.regions._affine.residue_hash`) reads row 0's linear part
        and the offsets of the first ``_HASHED`` rows: ``head`` gives those ``d + _HASHED``
        numerators as one vector ``N[0, :d] ++ N[:_HASHED, d]`` (a flipped unit costs that
        many products, not ``_HASHED (d + 1)``).  Inside a parent polygon only the crossing
        units' bits differ between pieces (``vary``, set by :meth:`ReluStep.restrict`):
        pieces are compared on those alone.
        """
        step, d = self.step, len(self.Mi[0])
        recent = self.recent[head]
        whole = step._bits_array(bits)
        key = whole if self.vary is None else whole[self.vary]
        ref = min(recent, key=lambda e: np.count_nonzero(e[0] != key), default=None)
        if ref is not None:
            add, drop = np.flatnonzero(key > ref[0]), np.flatnonzero(key < ref[0])
            if self.vary is not None:
                add, drop = self.vary[add], self.vary[drop]
            add, drop = add.tolist(), drop.tolist()
        if ref is not None and 2 * (len(add) + len(drop)) <= int(whole.sum()):   # a near piece: the flipped units
            N = ref[1]
            if head:
                for i in add:
                    N = N + self._head_term(i)
                for i in drop:
                    N = N - self._head_term(i)
            else:
                if add:
                    N = N + _units_product(step._W2, step._W2L, step._W2_bits, add, self.H, self.h)
                if drop:
                    N = N - _units_product(step._W2, step._W2L, step._W2_bits, drop, self.H, self.h)
        else:
            W2, W2L = (step._W2[:_HASHED], step._W2headL) if head else (step._W2, step._W2L)
            rows = range(W2.shape[0])
            t, m, t1 = self.t, self.m, step._t1
            N = np.empty((len(rows), d + 1), dtype=object)
            for r in rows:
                N[r, :d] = [v * t for v in self.Mi[r]]
                N[r, d] = self.ci[r] * t + int(step._b2[r]) * t1 * m
            on = np.flatnonzero(whole).tolist()
            if on:
                N = N + _units_product(W2, W2L, step._W2_bits, on, self.H, self.h)
            if head:
                N = np.concatenate([N[0, :d], N[:, d]])
        recent.append((key, N))
        if len(recent) > _RECENT_PIECES:
            del recent[0]
        return N

    def _head_term(self, i):
        """Unit ``i``'s term of the hashed numerators, ``W2n[0, i] H_i ++ W2n[:_HASHED, i] h_i`` (made once per parent)."""
        term = self.terms.get(i)
        if term is None:
            d, column = len(self.Mi[0]), self.step._W2[:_HASHED, i]
            term = np.empty(d + len(column), dtype=object)
            term[:d] = self.H[i] * column[0]
            term[d:] = column * self.h[i]
            self.terms[i] = term
        return term


def _units_product(W2, W2L, W2_bits, units, H, h):
    """``W2[:, units] (H x + h)[units]`` as a ``(rows, d + 1)`` integer array (``W2L``: the limbs of ``W2``)."""
    d = H.shape[1]
    if len(units) <= _FEW_UNITS:     # a few flipped units: Python ints on a thin slice beat the limbs
        Hh = np.empty((len(units), d + 1), dtype=object)
        Hh[:, :d], Hh[:, d] = H[units], h[units]
        return int_matmul(W2[:, units], Hh, W2_bits)
    Hh = np.zeros((len(h), d + 1), dtype=object)       # the other units' rows are 0: all of W2's limbs
    Hh[units, :d], Hh[units, d] = H[units], h[units]
    return int_matmul(W2L, Hh)


class _ParentView:
    """A ReLU step inside one parent polygon (:meth:`ReluStep.restrict`).

    ``cross``: the units whose sign changes on the polygon (or is 0 somewhere on it);
    ``kept``: the others, whose bit on the whole closed polygon is ``fixed`` (``bits`` as a list).
    """

    def __init__(self, f, rows, cross, kept, fixed, bits, lines):
        self.f, self.rows, self.cross, self.kept, self.fixed, self.bits = f, rows, cross, kept, fixed, bits
        self.where, self.cross_array = {u: k for k, u in enumerate(cross)}, np.asarray(cross, dtype=np.intp)
        self.lines = lines                  # the crossing units' (H, h) as PreparedRows, for exact signs
        F = lines.Rf
        norms = np.hypot(F[:, 0], F[:, 1])
        self.unit_lines = F / np.where(norms > 0, norms, 1.0)[:, None]   # floats: only to order by distance

    def holds(self, X, D) -> bool:
        """Is ``X / D`` in the closed polygon?"""
        return all(r[0] * X[0] + r[1] * X[1] <= r[2] * D for r in self.rows)


def _polygon_vertices(rows):
    """The vertices ``(X1, X2, D)`` (``D > 0``) of the bounded polygon of facet rows ``(a1, a2, b)``, or None.

    Exact: each pair of rows meets in one point (Cramer's rule in integers); the vertices
    are those that satisfy every row.  A polygon with ``k`` facets is bounded iff it has
    ``k`` vertices (an unbounded one has ``k - 1``); otherwise None.

    >>> _polygon_vertices([(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)])
    [(1, 1, 1), (1, -1, 1), (-1, 1, 1), (-1, -1, 1)]
    >>> _polygon_vertices([(1, 0, 1), (0, 1, 1)]) is None                 # a quadrant
    True
    """
    rows = [tuple(int(v) for v in r) for r in rows]
    k = len(rows)
    if k < 3:
        return None
    found = []
    for i in range(k):
        a0, a1, b = rows[i]
        for j in range(i + 1, k):
            c0, c1, e = rows[j]
            det = a0 * c1 - a1 * c0
            if det == 0:
                continue
            X0, X1 = b * c1 - a1 * e, a0 * e - b * c0
            if det < 0:
                X0, X1, det = -X0, -X1, -det
            if all(r0 * X0 + r1 * X1 <= rb * det for r0, r1, rb in rows):
                g = math.gcd(X0, X1, det)
                v = (X0 // g, X1 // g, det // g)
                if v not in found:
                    found.append(v)
    return found if len(found) == k else None


#: Output numerators of this many recent pieces (of one parent) are kept: a piece whose bits are
#: near one of them is computed from it through the flipped units only.
_RECENT_PIECES = 8
