"""A reference evaluator and brute-force region enumerator, written from the model file's definition.

Nothing here imports tropattn: the model is a plain JSON dict (``tropattn.model/1``, score form)::

    layer output  y = (x if residual else 0) + P . sum_h values_h[j*_h]      (P the projection, or I)
    FFN           z = y + W2 relu(W1 y + b1) + b2                           (optional)

with ``j*_h`` the argmax of the scores ``keys[j] . x + offsets[j]``.  Keys whose scores are the
same function on a whole region (equal keys and offsets, or equal after the maps of the layers
before) tie there; the lower index wins (``ties = "first"``, and equal keys under ``"refuse"``).
A ReLU unit whose pre-activation is identically 0 on a region is off there.

A region's polyhedron is kept as a list of rows ``(a, b)`` meaning ``a . x <= b`` over Fractions.
Non-emptiness of the interior is decided by Fourier-Motzkin elimination of a strict system.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["Model", "load_model", "evaluate", "pattern_at", "brute_force", "adjacency",
           "full_dimensional", "region_polyhedron", "strictly_feasible"]


def _q(v):
    if isinstance(v, str):
        return Fraction(v)
    if isinstance(v, float):
        return Fraction(v)            # exact binary value, as the file format reads floats
    return Fraction(v)


@dataclass
class Model:
    dim: int
    layers: list            # dicts: residual, heads [(keys, offsets, values)], projection, ffn
    box: tuple = None       # ((lo...), (hi...)) or None


def load_model(obj, box=None) -> Model:
    """Parse a score-form dict into Fractions (no validation beyond what the reference needs)."""
    d = int(obj["dim"])
    layers = []
    for L in obj["layers"]:
        heads = []
        for h in L["heads"]:
            keys = [tuple(_q(v) for v in k) for k in h["keys"]]
            n = len(keys)
            offs = [_q(v) for v in h.get("offsets", [0] * n)]
            vals = h.get("values")
            # no "values": the values are the keys (score form, as the model file format defines it)
            vals = [tuple(_q(v) for v in row) for row in vals] if vals is not None else list(keys)
            heads.append((keys, offs, vals))
        proj = L.get("projection")
        proj = [tuple(_q(v) for v in r) for r in proj] if proj is not None else None
        ffn = L.get("ffn")
        if ffn is not None:
            ffn = {"W1": [tuple(_q(v) for v in r) for r in ffn["W1"]], "b1": [_q(v) for v in ffn["b1"]],
                   "W2": [tuple(_q(v) for v in r) for r in ffn["W2"]], "b2": [_q(v) for v in ffn["b2"]]}
        layers.append({"residual": bool(L.get("residual", True)), "heads": heads, "projection": proj,
                       "ffn": ffn})
    if box is not None:
        lo, hi = box
        lo = [_q(lo)] * d if not isinstance(lo, (list, tuple)) else [_q(v) for v in lo]
        hi = [_q(hi)] * d if not isinstance(hi, (list, tuple)) else [_q(v) for v in hi]
        box = (tuple(lo), tuple(hi))
    return Model(d, layers, box)


# ---------------------------------------------------------------- vectors and affine maps

def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), Fraction(0))


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b))


def _scale(s, a):
    return tuple(s * x for x in a)


def _matvec(M, v):
    return tuple(_dot(r, v) for r in M)


class Aff:
    """x -> M x + c with M a tuple of rows (out_dim x d)."""

    def __init__(self, M, c):
        self.M, self.c = tuple(tuple(r) for r in M), tuple(c)

    @staticmethod
    def identity(d):
        return Aff([[Fraction(int(i == j)) for j in range(d)] for i in range(d)], [Fraction(0)] * d)

    def __call__(self, x):
        return _add(_matvec(self.M, x), self.c)

    def functional(self, w, beta=Fraction(0)):
        """The affine function x -> w . (M x + c) + beta as (a, a0)."""
        d = len(self.M[0]) if self.M else 0
        a = tuple(sum((w[i] * self.M[i][k] for i in range(len(w))), Fraction(0)) for k in range(d))
        return a, _dot(w, self.c) + beta

    def add_const(self, t):
        return Aff(self.M, _add(self.c, t))

    def plus(self, other):
        return Aff([_add(r, s) for r, s in zip(self.M, other.M)], _add(self.c, other.c))

    def left(self, W):
        """x -> W (M x + c)."""
        d = len(self.M[0]) if self.M else 0
        M = [tuple(sum((w[i] * self.M[i][k] for i in range(len(w))), Fraction(0)) for k in range(d)) for w in W]
        return Aff(M, _matvec(W, self.c))

    def key(self):
        return (self.M, self.c)


def _attention_sum(layer, labels, d):
    total = None
    for (keys, offs, vals), j in zip(layer["heads"], labels):
        total = vals[j] if total is None else _add(total, vals[j])
    if layer["projection"] is not None:
        total = _matvec(layer["projection"], total)
    return total


# ---------------------------------------------------------------- pointwise evaluation

def _argmax_first(keys, offs, z):
    scores = [_dot(k, z) + o for k, o in zip(keys, offs)]
    best = max(scores)
    return scores.index(best), scores.count(best) > 1


def evaluate(model: Model, x, with_pattern=False):
    """The model's output at the point ``x`` (Fractions), and optionally its pattern.

    At a point where distinct scores tie (a wall) the lowest index is taken; use interior points.
    """
    z = tuple(_q(v) for v in x)
    pattern = []
    for layer in model.layers:
        labels = tuple(_argmax_first(keys, offs, z)[0] for keys, offs, _ in layer["heads"])
        att = _attention_sum(layer, labels, model.dim)
        y = _add(z, att) if layer["residual"] else att
        bits = ()
        ffn = layer["ffn"]
        if ffn is not None:
            pre = [_dot(w, y) + b for w, b in zip(ffn["W1"], ffn["b1"])]
            bits = tuple(int(p > 0) for p in pre)
            h = [p if p > 0 else Fraction(0) for p in pre]
            y = _add(_add(y, _matvec(ffn["W2"], h)), ffn["b2"])
        pattern.append((labels, bits))
        z = y
    return (z, tuple(pattern)) if with_pattern else z


def pattern_at(model: Model, x):
    return evaluate(model, x, with_pattern=True)[1]


# ---------------------------------------------------------------- the brute force

def _layer_rows(model, layer, labels, bits, f: Aff):
    """Rows (a, b) of ``a . x <= b`` for one layer's labels and bits given the map f into the layer,
    and the map out of the layer; None if the labels/bits are impossible (a tie lost by rule)."""
    rows = []
    for (keys, offs, vals), j in zip(layer["heads"], labels):
        for k in range(len(keys)):
            if k == j:
                continue
            w = tuple(p - q for p, q in zip(keys[j], keys[k]))
            a, a0 = f.functional(w, offs[j] - offs[k])         # score_j - score_k = a . x + a0 >= 0
            if all(v == 0 for v in a) and a0 == 0:            # the same function: lower index wins
                if k < j:
                    return None
                continue
            rows.append((tuple(-v for v in a), a0))
    att = _attention_sum(layer, labels, model.dim)
    y = f.add_const(att) if layer["residual"] else Aff([[Fraction(0)] * model.dim for _ in att], att)
    ffn = layer["ffn"]
    if ffn is None:
        return rows, y
    out = y
    hidden_M, hidden_c = [], []
    for w, b, bit in zip(ffn["W1"], ffn["b1"], bits):
        a, a0 = y.functional(w, b)                            # pre-activation a . x + a0
        if all(v == 0 for v in a) and a0 == 0:
            if bit:
                return None                                   # identically 0: off by convention
            hidden_M.append(tuple(Fraction(0) for _ in a))
            hidden_c.append(Fraction(0))
            continue
        if bit:
            rows.append((tuple(-v for v in a), a0))           # a.x + a0 >= 0
            hidden_M.append(a)
            hidden_c.append(a0)
        else:
            rows.append((a, -a0))                             # a.x + a0 <= 0
            hidden_M.append(tuple(Fraction(0) for _ in a))
            hidden_c.append(Fraction(0))
    hidden = Aff(hidden_M, hidden_c)
    out = y.plus(hidden.left(ffn["W2"])).add_const(ffn["b2"])
    return rows, out


def _box_rows(model):
    rows = []
    if model.box is None:
        return rows
    lo, hi = model.box
    for i in range(model.dim):
        e = tuple(Fraction(int(i == k)) for k in range(model.dim))
        rows.append((e, hi[i]))
        rows.append((tuple(-v for v in e), -lo[i]))
    return rows


def _layer_choices(layer):
    labels = itertools.product(*[range(len(h[0])) for h in layer["heads"]])
    m = len(layer["ffn"]["b1"]) if layer["ffn"] is not None else 0
    return [(lab, bits) for lab in labels for bits in itertools.product((0, 1), repeat=m)]


def region_polyhedron(model: Model, pattern):
    """(rows, final map) of the closure of the pattern's region (or None if the rule forbids it)."""
    rows = _box_rows(model)
    f = Aff.identity(model.dim)
    for layer, (labels, bits) in zip(model.layers, pattern):
        got = _layer_rows(model, layer, labels, bits, f)
        if got is None:
            return None
        more, f = got
        rows = rows + more
    return rows, f


def brute_force(model: Model):
    """{pattern: (rows, map)} for every pattern whose region has an interior, by brute force over
    label and bit tuples (a prefix with an empty interior is not extended: rows only add)."""
    out = {}

    def go(i, prefix, rows, f):
        if not full_dimensional(rows, model.dim):
            return
        if i == len(model.layers):
            out[tuple(prefix)] = (rows, f)
            return
        layer = model.layers[i]
        for labels, bits in _layer_choices(layer):
            got = _layer_rows(model, layer, labels, bits, f)
            if got is None:
                continue
            more, g = got
            go(i + 1, prefix + [(labels, bits)], rows + more, g)

    go(0, [], _box_rows(model), Aff.identity(model.dim))
    return out


# ---------------------------------------------------------------- exact feasibility

def _normalise(a, b, strict):
    """Scale (a, b) so the first nonzero |a_i| is 1; a zero row stays as it is."""
    for v in a:
        if v != 0:
            s = abs(v)
            return tuple(x / s for x in a), b / s, strict
    return a, b, strict


def strictly_feasible(rows, n):
    """Is there x in Q^n with a . x < b for every row (a, b)?  Fourier-Motzkin, exact."""
    system = {}
    for a, b in rows:
        a, b, _ = _normalise(tuple(a), b, True)
        if all(v == 0 for v in a):
            if not b > 0:
                return False
            continue
        if a not in system or b < system[a]:
            system[a] = b
    for var in range(n):
        pos, neg, rest = [], [], {}
        for a, b in system.items():
            if a[var] > 0:
                pos.append((a, b))
            elif a[var] < 0:
                neg.append((a, b))
            else:
                rest[a] = b
        for (ap, bp), (an, bn) in itertools.product(pos, neg):
            sp, sn = 1 / ap[var], -1 / an[var]
            a = tuple(sp * x + sn * y for x, y in zip(ap, an))
            b = sp * bp + sn * bn
            a, b, _ = _normalise(a, b, True)
            if all(v == 0 for v in a):
                if not b > 0:
                    return False
                continue
            if a not in rest or b < rest[a]:
                rest[a] = b
        system = rest
    return all(b > 0 for b in system.values())


def full_dimensional(rows, d):
    """Does the closed polyhedron ``{a . x <= b}`` have an interior point?"""
    return strictly_feasible(rows, d)


def _restrict(rows, a, b):
    """The rows on the hyperplane a . x = b, in the coordinates other than a pivot i (a_i != 0)."""
    i = next(k for k, v in enumerate(a) if v != 0)
    # x_i = (b - sum_{k != i} a_k x_k) / a_i
    out = []
    for c, e in rows:
        t = c[i] / a[i]
        cc = tuple(c[k] - t * a[k] for k in range(len(a)) if k != i)
        ee = e - t * b
        if all(v == 0 for v in cc) and ee == 0:
            continue                                       # the hyperplane itself (either side)
        out.append((cc, ee))
    return out


def shares_facet(rows1, rows2, d):
    """Do the closures of two full-dimensional polyhedra with disjoint interiors meet in a
    (d-1)-dimensional set?  It then spans a hyperplane of a row of each, with opposite sides."""
    both = list(rows1) + list(rows2)
    tried = set()
    for a, b in rows1:
        if all(v == 0 for v in a):
            continue
        na, nb, _ = _normalise(tuple(a), b, False)
        if (na, nb) in tried:
            continue
        tried.add((na, nb))
        if strictly_feasible(_restrict(both, na, nb), d - 1):
            return True
    return False


def adjacency(regions: dict, d: int):
    """Set of frozenset({pattern, pattern}) of regions whose closures share a facet."""
    pats = list(regions)
    edges = set()
    for p, q in itertools.combinations(pats, 2):
        if shares_facet(regions[p][0], regions[q][0], d):
            edges.add(frozenset((p, q)))
    return edges
