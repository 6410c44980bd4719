"""The ReLU FFN of a layer as a step of the region search (:class:`ReluStep`).

Inside a parent region with map ``f`` the pre-activations are one exact integer product;
a parent polygon in the plane fixes the units whose lines miss it (:meth:`ReluStep.restrict`),
and each piece is cut by the crossing units nearest its point first
(:meth:`ReluStep.near_units`, certified by :meth:`ReluStep.far_units`).  The pieces' output
maps come from the flipped units' terms (:class:`_PieceMaps`), deferred in a count.
"""

from __future__ import annotations

import math
import uuid
import weakref

import numpy as np

from .._config import config
from ..errors import InvalidInputError
from ..exact import PreparedRows, as_small_ints, int_bits, int_limbs, int_matmul, record, residue_matmul, residues
from ._affine import _HASHED, _PRIMES, _Q, AffineMap, augmented, hashable, residues_hash

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
        bits = list(self)                  # one copy (slices and concatenations make three)
        bits[i] = 1 - bits[i]
        out = Bits(bits)
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
    polygon; their signs are then fixed on it (the exact signs of ``[W1n | b1n]`` at the
    images ``f(v)`` of its vertices, by the filtered signs of :class:`tropattn.exact.PreparedRows`),
    their rows are strictly redundant there and are left out, and only the units crossing
    it are evaluated: their rows ``(H_i, h_i)`` are the only exact products the parent needs
    for its pieces' facets.  A count hashes its pieces' maps from residues modulo the hash's
    primes (:class:`_PieceMaps`), so the whole ``H`` is made only for maps that are read.
    """

    def __init__(self, ffn, index):
        self.ffn, self.index = ffn, index
        W1, self._t1, W2, self._t2 = ffn.integer_form()
        # the weights as int64 when they fit (float weights do): limbs, residues and signs read them in numpy;
        # the biases stay Python ints (they are multiplied by the parents' big denominators)
        self._W1, self._b1 = as_small_ints(W1[:, :-1]), W1[:, -1]
        self._W2, self._b2 = as_small_ints(W2[:, :-1]), W2[:, -1]
        self._W2_bits = int_bits(self._W2)
        self._W1L, self._W2L = int_limbs(self._W1), int_limbs(self._W2)
        self._last = None  # [f, H, h, _PieceMaps, rows made] of the last parent (H, h: None until needed)
        self._linear = None  # (Mi, m, W1n Mi) of the last parent that needed the whole product
        self._view = None  # the parent polygon of restrict(): _ParentView
        self._bits = None  # (bits, as int8): rows and output_map of one piece read the same tuple
        self._units = None  # [W1n | b1n] as PreparedRows: every unit's sign at a point of the FFN's input
        self._mod = None    # per prime of the hash: residues of W1n, b1n and the hashed rows of W2n
        self._sums = []     # recent on-sets: [(bits as int8, per prime (G, g))], :meth:`on_sums`
        self.token = uuid.uuid4().hex       # names this step (and its copies in workers) in a pickled map recipe
        _STEPS[self.token] = self

    def __getstate__(self):
        state = dict(self.__dict__)
        for k in ("_last", "_view", "_bits", "_linear", "_units", "_mod"):   # made again where needed
            state[k] = None
        state["_sums"] = []
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        _STEPS.setdefault(self.token, self)     # a worker's copy makes the maps it finds; the caller's, what comes back

    def _unit_rows(self) -> PreparedRows:
        """``[W1n | b1n]``, prepared once for the filtered signs of every unit at exact points."""
        if self._units is None:
            self._units = PreparedRows(np.concatenate([self._W1, self._b1.reshape(-1, 1)], axis=1))
        return self._units

    def residues(self):
        """Per prime of the hash: ``(W1n, b1n, W2n[:_HASHED])`` modulo it, as float64 (made once)."""
        if self._mod is None:
            self._mod = [(residues(self._W1, p), residues(self._b1, p), residues(self._W2[:_HASHED], p))
                         for p in _PRIMES]
        return self._mod

    def on_sums(self, on):
        """Per prime of the hash, ``(G, g) = (W2n[:_HASHED, on] W1n[on], W2n[:_HASHED, on] b1n[on])`` modulo it.

        ``on`` is an int8 array of every unit's bit.  The hashed numerators of a piece are
        ``G [Mi | ci] + g m`` (plus the skip and ``b2`` terms): the parent's map enters only
        through a ``(_HASHED, d_model)`` product, never through ``W1n``'s rows.  Neighbouring
        parents have nearly the same on-set, so the sums are updated from the nearest recent
        one by the units that differ (their rows of ``W1n`` only), else made from scratch.
        """
        recent, mod = self._sums, self.residues()
        ref = min(recent, key=lambda e: np.count_nonzero(e[0] != on), default=None)
        if ref is not None:
            add, drop = np.flatnonzero(on > ref[0]), np.flatnonzero(on < ref[0])
            if len(add) + len(drop) > np.count_nonzero(on):       # far from it: from scratch is cheaper
                ref = None
        if ref is None:
            rows, width = mod[0][2].shape[0], mod[0][0].shape[1]
            add, drop, sums = np.flatnonzero(on), (), [(np.zeros((rows, width)), np.zeros(rows))] * len(_PRIMES)
        else:
            sums = ref[1]
        out = []
        for p, (W1p, b1p, W2p), (G, g) in zip(_PRIMES, mod, sums):
            for units, sign in ((add, 1), (drop, -1)):
                if len(units):
                    Wu = W2p[:, units]
                    G = G + sign * residue_matmul(Wu, W1p[units], p)
                    g = g + sign * residue_matmul(Wu, b1p[units].reshape(-1, 1), p)[:, 0]
            out.append((np.mod(G, p), np.mod(g, p)))
        recent.append((on.copy(), out))
        if len(recent) > _RECENT_ON_SETS:
            del recent[0]
        return out

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
        last = self._parent(f)
        # H v + h D = [W1n | b1n] . [Mi v + ci D ; m D] at a vertex (v, D): every unit's sign there
        V = np.array(V, dtype=object)
        images = np.concatenate([f._augmented.dot(V.T), (f._integers[2] * V[:, 2]).reshape(1, -1)])
        S = self._unit_rows().signs(images.T)
        pos, neg = (S > 0).all(axis=1), (S < 0).all(axis=1)
        cross = np.flatnonzero(~(pos | neg))
        fixed = pos.astype(np.int8)
        record("certified", len(fixed) - len(cross), where="relu.parent_filter")
        HH = np.empty((len(cross), 3), dtype=object)          # the crossing units' exact rows only
        HH[:, :2], HH[:, 2] = self._unit_products(f, cross)
        self._view = _ParentView(f, tuple(rows), cross.tolist(), np.flatnonzero(pos | neg), fixed,
                                 fixed.tolist(), PreparedRows(HH))
        last[3].vary = self._view.cross_array

    def _view_of(self, f):
        view = self._view
        return view if view is not None and view.f is f else None

    def _parent(self, f: AffineMap):
        """``[f, H, h, maps, rows]`` of the parent with map ``f``: entered on first use, ``H`` made when needed."""
        last = self._last
        if last is None or last[0] is not f:
            last = self._last = [f, None, None, _PieceMaps(self, f._integers, hidden=lambda: self._hidden(f),
                                                           columns=lambda: f._augmented), {}]
        return last

    def _hidden(self, f: AffineMap):
        """``(H, h)``: integer arrays with ``t1 m (W1 f(x) + b1) = H x + h`` (one product per parent).

        Parents whose maps share their linear part (every cell of a first layer: hard
        attention adds a constant) share ``H`` up to the factor of their denominators: then
        only the offset column is a new product.
        """
        last = self._parent(f)
        if last[1] is None:
            integers = f._integers
            shared = self._shared_linear(integers[0], integers[2])
            last[1], last[2] = self._pre_activations(integers, shared)
            if shared is None:
                self._linear = (integers[0], integers[2], last[1])
        return last[1], last[2]

    def _unit_products(self, f: AffineMap, units):
        """``(H[units], h[units])`` exactly: rows of the whole product when it was made, else their own product."""
        last = self._parent(f)
        if last[1] is not None:
            return last[1][units], last[2][units]
        Mi, _, m = f._integers
        P = int_matmul(self._W1L.take_rows(units), f._augmented)
        return P[:, :len(Mi[0])], P[:, -1] + self._b1[units] * m

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
        return _PieceMaps(self, integers, *self._pre_activations(integers)).full(bits)

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
        view = self._view_of(f)
        if view is not None and view.holds(X, D):    # in the closed parent: the fixed signs hold
            bits, units = list(view.bits), view.cross
            H, h = view.lines.R[:, :-1], view.lines.R[:, -1]
        else:
            H, h = self._hidden(f)
            bits, units = [0] * len(h), range(len(h))
        for k, i in enumerate(units):
            row = H[k]
            p = sum(int(a) * x for a, x in zip(row, X)) + int(h[k]) * D   # same sign as the pre-activation
            if p == 0 and (h[k] != 0 or any(row)):
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
        A, b, walls = [], [], []
        view = self._view_of(f)
        if units is None:
            units = range(len(bits))
            if view is not None and np.array_equal(self._bits_array(bits)[view.kept], view.fixed[view.kept]):
                units = view.cross      # the other units keep their parent's sign: strictly redundant rows
        made = self._parent(f)[4]      # this parent's rows, each made once: (unit, bit) -> row
        for i in units:
            bit = bits[i]
            row = made.get((i, bit))
            if row is None:
                k = view.where.get(i) if view is not None else None
                if k is not None:      # a crossing unit: its exact row is in the view
                    hi, ci = view.lines.R[k, :-1], view.lines.R[k, -1]
                else:
                    H, h = self._hidden(f)
                    hi, ci = H[i], h[i]
                row = made[i, bit] = self._row(hi, ci, i, bit)
            if row:
                A.append(row[0])
                b.append(row[1])
                walls.append(row[2])
        return A, b, walls

    def _row(self, Hi, hi, i, bit):
        """``(a, beta, wall)`` of unit ``i`` (pre-activation ``Hi x + hi``) with this bit, or ``()`` where it is no constraint."""
        sign = -1 if bit else 1  # on: -(H x + h) <= 0 ; off: H x + h <= 0
        a, beta = tuple(sign * int(v) for v in Hi), sign * -int(hi)
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
        maps = self._parent(f)[3]
        return maps.deferred(bits) if lazy else maps.full(bits)


#: Products over at most this many units take Python integers (object arrays) instead of float64 limbs.
_FEW_UNITS = 24


class _PieceMaps:
    """The output maps of the pieces of one parent, as integer numerators over ``t1 t2 m``.

    ``N = t1 t2 [Mi | ci] + W2n diag(bits) [H | h] + [0 | t1 m b2n]`` (:meth:`ReluStep.output_map`).
    A piece near one computed before (few flipped units) costs only the flipped units'
    columns of ``W2n``.  :meth:`deferred` hashes a map from the *residues* of the entries the
    hash reads (:func:`tropattn.regions._affine.residue_hash`), computed modulo each prime of
    the hash by exact float64 products (:func:`tropattn.exact.residue_matmul`) without ``H``;
    the whole numerator is made only when the map is compared with one of equal hash, read or
    pickled.  ``H, h`` (exact) are made when a whole numerator is (``hidden()``).
    """

    def __init__(self, step, integers, H=None, h=None, hidden=None, columns=None):
        self.step, self._Hh, self._make_Hh = step, (None if H is None else (H, h)), hidden
        self._columns = columns or (lambda: augmented(integers))   # [Mi | ci] as one object array
        self.Mi, self.ci, self.m = integers
        self.t = step._t1 * step._t2
        self.recent = {False: [], True: []}   # residues? -> [(bits as int8, numerators or residues)]
        self.vary = None                      # the units whose bits can differ here (None: all)
        self.terms = {}                       # unit -> its residues of the hashed rows
        self._mod = None                      # per prime: the residues of the parent's [Mi | ci]

    @property
    def Hh(self):
        """``(H, h)`` of the parent, exact (made on first use)."""
        if self._Hh is None:
            self._Hh = self._make_Hh()
        return self._Hh

    def full(self, bits) -> AffineMap:
        """The map of the piece with these bits, now."""
        N, d = self.numerators(bits), len(self.Mi[0])
        return AffineMap.from_integers(N[:, :d], N[:, d], self.t * self.m)

    def deferred(self, bits) -> AffineMap:
        """The map of the piece with these bits: its hash now (from residues), its entries when needed."""
        den = self.t * self.m
        if not hashable(den):
            return self.full(bits)
        R, d = self.head_residues(bits), len(self.Mi[0])
        # residue_hash reads the offsets, then row 0's linear part: over den, modulo each prime
        h = residues_hash([np.mod(np.concatenate([r[d:], r[:d]]) * pow(den % p, -1, p), p)
                           for r, p in zip(R, _PRIMES)])
        return AffineMap.deferred(_MapRecipe(self.step, bits, (self.Mi, self.ci, self.m)), h)   # not self

    def _nearest(self, recent, bits):
        """``(key, ref, add, drop)``: the bits' key, the nearest recent piece (or None) and the units flipped from it."""
        whole = self.step._bits_array(bits)
        key = whole if self.vary is None else whole[self.vary]
        ref = min(recent, key=lambda e: np.count_nonzero(e[0] != key), default=None)
        if ref is None:
            return key, None, (), ()
        add, drop = np.flatnonzero(key > ref[0]), np.flatnonzero(key < ref[0])
        if self.vary is not None:
            add, drop = self.vary[add], self.vary[drop]
        if 2 * (len(add) + len(drop)) > int(whole.sum()):       # far from it: from scratch is cheaper
            return key, None, (), ()
        return key, ref, add.tolist(), drop.tolist()

    @staticmethod
    def _remember(recent, key, value):
        recent.append((key, value))
        if len(recent) > _RECENT_PIECES:
            del recent[0]

    def numerators(self, bits):
        """``N``, exactly, from the nearest recent piece when cheaper (the flipped units' columns of ``W2n``)."""
        step, d = self.step, len(self.Mi[0])
        H, h = self.Hh
        key, ref, add, drop = self._nearest(self.recent[False], bits)
        if ref is not None:
            N = ref[1]
            if add:
                N = N + _units_product(step._W2, step._W2L, step._W2_bits, add, H, h)
            if drop:
                N = N - _units_product(step._W2, step._W2L, step._W2_bits, drop, H, h)
        else:
            N = np.empty((step._W2.shape[0], d + 1), dtype=object)
            t, m, t1 = self.t, self.m, step._t1
            for r in range(len(N)):
                N[r, :d] = [v * t for v in self.Mi[r]]
                N[r, d] = self.ci[r] * t + int(step._b2[r]) * t1 * m
            on = np.flatnonzero(step._bits_array(bits)).tolist()
            if on:
                N = N + _units_product(step._W2, step._W2L, step._W2_bits, on, H, h)
        self._remember(self.recent[False], key, N)
        return N

    def head_residues(self, bits):
        """Per prime of the hash, the residues of what the hash reads: ``N[0, :d] ++ N[:_HASHED, d]``.

        From the nearest recent piece (the flipped units' terms), else from scratch: the
        residues of ``t1 t2 [Mi | ci]`` and ``t1 m b2n`` plus ``W2n[:_HASHED, on] [H | h][on]``
        modulo each prime, that is ``G [Mi | ci] + g m`` with the on-set's sums ``(G, g)``
        (:meth:`ReluStep.on_sums`): no product with every row of ``W1n``.
        """
        key, ref, add, drop = self._nearest(self.recent[True], bits)
        if ref is not None:
            R, terms = ref[1], self._head_terms(add + drop)
            for i in add:
                R = [np.mod(r + t, p) for r, t, p in zip(R, terms[i], _PRIMES)]
            for i in drop:
                R = [np.mod(r - t, p) for r, t, p in zip(R, terms[i], _PRIMES)]
        else:
            step, d = self.step, len(self.Mi[0])
            rows = min(_HASHED, len(self.Mi))
            t, m, t1 = self.t, self.m, step._t1
            base = [v * t for v in self.Mi[0]] + [self.ci[r] * t + int(step._b2[r]) * t1 * m for r in range(rows)]
            R = []
            sums = step.on_sums(step._bits_array(bits))
            for p, (G, g), MC in zip(_PRIMES, sums, self.map_residues()):
                S = residue_matmul(G, MC, p)                            # (rows, d + 1)
                S[:, d] += g * (self.m % p)
                r = np.array([v % p for v in base], dtype=np.float64)
                R.append(np.mod(r + np.concatenate([S[0, :d], S[:, d]]), p))
        self._remember(self.recent[True], key, R)
        return R

    def map_residues(self):
        """Per prime of the hash, the residues of the parent's ``[Mi | ci]`` (made once)."""
        if self._mod is None:
            MC = (self._columns() % _Q).astype(np.int64)     # below 2^61: then each prime in int64
            self._mod = [residues(MC, p) for p in _PRIMES]
        return self._mod

    def _head_terms(self, units):
        """``{unit: its residues of the hashed numerators}``, ``W2n[0, i] H_i ++ W2n[:_HASHED, i] h_i`` per prime.

        ``(H_i, h_i)`` modulo a prime is the unit's row of ``W1n`` times the parent's
        ``[Mi | ci]``, plus ``b1n_i m``: one residue product for the units not met before in
        this parent, kept for its other pieces.
        """
        new = [u for u in units if u not in self.terms]
        if new:
            d, m, rows = len(self.Mi[0]), self.m, np.array(new)
            per_prime = []
            for p, (W1p, b1p, W2p), MC in zip(_PRIMES, self.step.residues(), self.map_residues()):
                U = residue_matmul(W1p[rows], MC, p)
                U[:, d] = np.mod(U[:, d] + b1p[rows] * (m % p), p)
                per_prime.append((p, W2p, U))
            for k, u in enumerate(new):
                self.terms[u] = [np.mod(np.concatenate([W2p[0, u] * U[k, :d], W2p[:, u] * U[k, d]]), p)
                                 for p, W2p, U in per_prime]
        return self.terms


#: The ReLU steps of this process by token: a pickled piece map's recipe names its step (:class:`_MapRecipe`).
_STEPS = weakref.WeakValueDictionary()


class _MapRecipe:
    """How to make a deferred piece map: its ReLU step, the parent's integers and the bits.

    Pickled, it names the step by its token (a worker's copy and the caller's original share
    it), so a waiting wall facet's map travels as these integers and is made only where it is
    compared with a map of equal hash, never to be sent (:meth:`AffineMap.__getstate__`).
    """

    portable = True
    __slots__ = ("step", "token", "bits", "integers")

    def __init__(self, step, bits, integers, token=None):
        self.step, self.bits, self.integers = step, bits, integers
        self.token = step.token if step is not None else token

    def __call__(self) -> AffineMap:
        step = self.step if self.step is not None else _STEPS.get(self.token)
        if step is None:
            raise InvalidInputError(
                "a deferred piece map was unpickled in a process that does not hold its ReLU step; read its "
                "entries (or pickle it) where the count ran, or count with keep='all'")
        return step._made_map(self.bits, self.integers)

    def __reduce__(self):
        return _MapRecipe, (None, self.bits, self.integers, self.token)


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

#: On-sets of a ReLU step whose hashed sums are kept (:meth:`ReluStep.on_sums`).
_RECENT_ON_SETS = 4
