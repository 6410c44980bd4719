"""Exact decisions along one parameter line: real roots, signs at real algebraic numbers, pieces.

A condition built from polynomial sign tests in one symbol ``t`` (a sympy Boolean of
relations ``p(t) rel 0``) is constant between consecutive real roots of the irreducible
factors of its polynomials.  :class:`ParameterLine` sorts those roots exactly (isolating
intervals refined until disjoint), samples each open interval at a rational point and
decides each root by exact signs of polynomials at a real algebraic number, so every
piece of the line gets an exact truth value, never a sampled one.

>>> import sympy
>>> t = sympy.Symbol("t", real=True)
>>> line = ParameterLine({0: sympy.And(t ** 2 > 2, t < 5)}, t)
>>> [(str(piece), line.truth(0, sample)) for piece, sample in line.pieces()][:3]
[('Interval.open(-oo, -sqrt(2))', True), ('{-sqrt(2)}', False), ('Interval.open(-sqrt(2), sqrt(2))', False)]
"""

from __future__ import annotations

from .._lazy import lazy_import
from ..errors import InternalError, InvalidInputError

__all__ = ["ParameterLine", "sample_value"]

sp = lazy_import("sympy")


class _Root:
    """A real root of an irreducible rational polynomial ``q``, isolated in ``[a, b]`` (exact)."""

    def __init__(self, q, index, a, b):
        self.q, self.index, self.a, self.b = q, index, a, b

    @property
    def rational(self) -> bool:
        return self.q.degree() == 1

    @property
    def value(self):
        """The root as a sympy number (a Rational or a ``CRootOf``)."""
        if self.rational:
            c1, c0 = self.q.all_coeffs()
            return sp.Rational(-c0, c1)
        return sp.CRootOf(self.q.as_expr(), self.index, radicals=self.q.degree() <= 2)

    def refine(self):
        if not self.rational:
            self.a, self.b = self.q.refine_root(self.a, self.b, eps=(self.b - self.a) / 4)

    def sign(self, p) -> int:
        """The exact sign of the polynomial ``p`` at this root."""
        if self.rational:
            return int(sp.sign(p.eval(self.value)))
        if p.rem(self.q).is_zero:
            return 0
        while p.count_roots(self.a, self.b):
            self.refine()
        return int(sp.sign(p.eval((self.a + self.b) / 2)))


def _less(r, u) -> bool:
    """Exact ``r < u`` for two different roots: refine until their intervals are disjoint."""
    while not (r.b < u.a or u.b < r.a):
        r.refine(), u.refine()
    return r.b < u.a


class ParameterLine:
    """The cylindrical decomposition of a line by the polynomials of some conditions in one symbol.

    Every relational atom ``lhs rel rhs`` of the conditions has a sign that is constant
    between consecutive real roots of the irreducible factors of ``lhs - rhs`` (numerator
    and denominator), so each condition is constant on the open intervals between the
    sorted roots and is decided there at one rational point, and at each root by exact
    signs of polynomials at a real algebraic number.
    """

    def __init__(self, conds, s):
        self.conds, self.s = conds, s
        self.atoms = set().union(*(c.atoms(sp.core.relational.Relational) for c in conds.values()))
        self.forms, factors, self.polynomial = {}, {}, True
        for atom in self.atoms:
            num, den = sp.fraction(sp.cancel(atom.lhs - atom.rhs))
            num, den = sp.Poly(num, s), sp.Poly(den, s)
            self.polynomial &= den.degree() == 0
            self.forms[atom] = (num, den)
            for poly in (num, den):
                for q, _ in poly.factor_list()[1]:
                    q = q.monic()
                    factors[q.as_expr()] = q
        roots = []
        for q in factors.values():
            if q.degree() == 1:
                roots.append(_Root(q, 0, None, None))
            else:
                roots += [_Root(q, i, a, b) for i, ((a, b), _) in enumerate(q.intervals())]
        for r in roots:
            if r.rational:
                r.a = r.b = r.value
        self.roots = _sorted_roots(roots)

    def pieces(self):
        """``(sympy set, sample)`` for every open interval and root, left to right."""
        out, rs = [], self.roots
        for i in range(len(rs) + 1):
            lo = rs[i - 1].value if i else -sp.oo
            hi = rs[i].value if i < len(rs) else sp.oo
            if i == 0:
                sample = sp.Integer(0) if not rs else sp.floor(rs[0].a) - 1
            elif i == len(rs):
                sample = sp.floor(rs[-1].b) + 1
            else:
                while not rs[i - 1].b < rs[i].a:
                    rs[i - 1].refine(), rs[i].refine()
                sample = (rs[i - 1].b + rs[i].a) / 2
            out.append((sp.Interval.open(lo, hi), sample))
            if i < len(rs):
                out.append((sp.FiniteSet(rs[i].value), rs[i]))
        return out

    def _atom_values(self, sample) -> dict:
        """``{atom: true/false}`` at a sample, computed once per sample (signs once per polynomial)."""
        cache = self.__dict__.setdefault("_values", {})
        if id(sample) in cache:
            return cache[id(sample)][1]
        signs, values = {}, {}

        def sign(poly):
            key = poly.as_expr()
            if key not in signs:
                signs[key] = sample.sign(poly) if isinstance(sample, _Root) else int(sp.sign(poly.eval(sample)))
            return signs[key]

        for atom in self.atoms:
            num, den = self.forms[atom]
            sd = sign(den)
            if sd == 0:
                raise InvalidInputError(f"an entry has a pole at {self.s} = {sample_value(sample)}; "
                                        "the head is undefined there")
            values[atom] = sp.true if _holds(atom, sign(num) * sd) else sp.false
        cache[id(sample)] = (sample, values)      # the sample is kept alive, so its id stays unique
        return values

    def truth(self, key, sample) -> bool:
        """The exact value of condition ``key`` at a rational sample or at a root."""
        out = self.conds[key].xreplace(self._atom_values(sample))
        if out not in (sp.true, sp.false):
            raise InternalError(f"condition {key} is undecided at {sample_value(sample)}; please report these points")
        return out is sp.true


def sample_value(sample):
    """The number a sample of :meth:`ParameterLine.pieces` stands for (a root's exact value)."""
    return sample.value if isinstance(sample, _Root) else sample


def _holds(atom, sgn) -> bool:
    op = atom.rel_op
    return {"==": sgn == 0, "!=": sgn != 0, ">=": sgn >= 0, ">": sgn > 0, "<=": sgn <= 0, "<": sgn < 0}[op]


def _sorted_roots(roots):
    """Insertion sort with exact comparisons (few roots)."""
    out = []
    for r in roots:
        i = len(out)
        while i and _less(r, out[i - 1]):
            i -= 1
        out.insert(i, r)
    return out
