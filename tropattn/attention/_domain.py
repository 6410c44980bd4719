"""The number domains of a head: exact rationals (QQ), exact expressions in parameters (EX).

One head type over several number domains, as sympy's ``construct_domain`` picks ``QQ`` or
``EX`` from the entries it is given: a :class:`~tropattn.attention.Head` whose keys, offsets
and values are numbers computes over ``QQ`` (Fractions, :func:`tropattn.exact.to_rational`);
one whose entries hold sympy symbols computes over ``EX`` (rational functions of the
parameters, :func:`tropattn.tropical.to_expression`), and
:class:`~tropattn.attention.SymbolicHead` asks questions of it.  The float view of a head
(``RR``) is :class:`~tropattn.attention.HeadArrays` (:func:`~tropattn.attention.head_arrays`).

Every construction that mixes entries (``Head.from_weights``: ``a_j = W_Q^T k_j``) is written
once, over :meth:`Domain.matrix`, :meth:`Domain.vector` and :meth:`Domain.matvec`.

>>> QQ.matvec(QQ.matrix([[1, "1/2"]], "M"), QQ.vector([2, 2], "x"))
(Fraction(3, 1),)
>>> import sympy
>>> t = sympy.Symbol("t", real=True)
>>> construct_domain([[1, t]]) is EX, construct_domain([[1, "1/2"]]) is QQ
(True, True)
>>> EX.matvec(EX.matrix([[t, 1]], "M"), EX.vector([t, -t], "x"))
(t**2 - t,)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._lazy import lazy_import
from ..errors import InvalidInputError
from ..exact import to_rational, to_rational_matrix, to_rational_vector
from ..tropical import to_expression

__all__ = ["Domain", "QQ", "EX", "construct_domain", "domain_of"]

sp = lazy_import("sympy")


@dataclass(frozen=True)
class Domain:
    """A number domain: how entries are converted, added and simplified.

    Attributes
    ----------
    name : str
        ``"QQ"`` (exact rationals, Fractions) or ``"EX"`` (sympy rational functions of
        parameters).
    """

    name: str

    def __repr__(self):
        return self.name

    @property
    def numeric(self) -> bool:
        """Whether the entries are numbers (``QQ``), so that scores can be compared."""
        return self.name == "QQ"

    def entry(self, value, name: str = "value"):
        """One entry converted exactly (a Fraction, or a cancelled sympy expression).

        >>> QQ.entry("2/4"), EX.entry("2/4")
        (Fraction(1, 2), 1/2)
        """
        if self.numeric:
            return to_rational(value, name)
        return to_expression(value, name)

    def zero(self):
        """The additive identity of the domain.

        >>> QQ.zero(), EX.zero()
        (Fraction(0, 1), 0)
        """
        return Fraction(0) if self.numeric else sp.Integer(0)

    def simplify(self, value):
        """``value`` in normal form (sympy's ``cancel`` over ``EX``; Fractions are already reduced)."""
        return value if self.numeric else sp.cancel(value)

    def vector(self, values, name: str = "vector", length: int | None = None) -> tuple:
        """A 1-D sequence as a tuple of entries, checking its length.

        >>> QQ.vector([1, "1/2"], "b"), EX.vector([1, "1/2"], "b")
        ((Fraction(1, 1), Fraction(1, 2)), (1, 1/2))
        """
        if self.numeric:
            return to_rational_vector(values, name, length)
        rows = _rows(values, name) if values is not None else None
        if rows is None or any(len(r) != 1 for r in rows) or _is_nested(values):
            raise InvalidInputError(f"{name} must be a flat list of numbers or expressions")
        if length is not None and len(rows) != length:
            raise InvalidInputError(f"{name} has {len(rows)} entries; expected {length}")
        return tuple(to_expression(r[0], f"{name}[{i}]") for i, r in enumerate(rows))

    def matrix(self, values, name: str = "matrix", rows: int | None = None, cols: int | None = None) -> tuple:
        """A non-empty 2-D nested sequence as a tuple of row tuples, checking its shape.

        Raises
        ------
        InvalidInputError
            Empty, ragged or of the wrong shape, or an entry the domain refuses.

        Examples
        --------
        >>> QQ.matrix([[1, 2]], "W", cols=2), EX.matrix([[1, 2]], "W", cols=2)
        (((Fraction(1, 1), Fraction(2, 1)),), ((1, 2),))
        >>> QQ.matrix([], "W_Q")
        Traceback (most recent call last):
        ...
        tropattn.errors.InvalidInputError: W_Q is empty; give at least one row
        """
        if self.numeric:
            out = to_rational_matrix(values, name, rows, cols)
            if not out:
                raise InvalidInputError(f"{name} is empty; give at least one row")
            return out
        lists = _rows(values, name)
        if lists is None:
            raise InvalidInputError(f"{name} is empty; give at least one row")
        if any(len(r) != len(lists[0]) for r in lists) or not lists[0]:
            raise InvalidInputError(f"{name} is ragged or has empty rows; every row needs the same length >= 1")
        if rows is not None and len(lists) != rows:
            raise InvalidInputError(f"{name} has {len(lists)} rows; expected {rows}")
        if cols is not None and len(lists[0]) != cols:
            raise InvalidInputError(f"{name} has {len(lists[0])} columns; expected {cols}")
        return tuple(tuple(to_expression(v, f"{name}[{i}][{c}]") for c, v in enumerate(r))
                     for i, r in enumerate(lists))

    def dot(self, u, v):
        """``sum_i u_i v_i`` in normal form.

        >>> QQ.dot((1, 2), (Fraction(1, 2), 3))
        Fraction(13, 2)
        """
        return self.simplify(sum((a * b for a, b in zip(u, v)), self.zero()))

    def matvec(self, M, x) -> tuple:
        """``M x`` for a matrix ``M`` (tuple of rows) and a vector ``x``."""
        return tuple(self.dot(row, x) for row in M)


#: Exact rationals (Fractions): every score is a number, so heads label points exactly.
QQ = Domain("QQ")
#: Exact rational functions of parameters (sympy): questions become conditions on the parameters.
EX = Domain("EX")


def domain_of(domain) -> Domain:
    """A :class:`Domain` from itself or its name (``"QQ"``, ``"EX"``).

    >>> domain_of("EX") is EX
    True
    """
    if isinstance(domain, Domain):
        return domain
    if domain in ("QQ", "EX"):
        return QQ if domain == "QQ" else EX
    raise InvalidInputError(f"domain = {domain!r}; use 'QQ' (exact rationals) or 'EX' (sympy expressions "
                            "in parameters); the float view of a head is head_arrays(head)")


def _is_symbolic(value) -> bool:
    """A sympy object with free symbols (tested without importing sympy)."""
    return type(value).__module__.startswith("sympy") and bool(getattr(value, "free_symbols", ()))


def _is_nested(values) -> bool:
    return any(hasattr(v, "__len__") and not isinstance(v, str) for v in values)


def _rows(values, name):
    """Nested rows as lists (a scalar row is a one-entry row), or None when empty."""
    if values is None or not hasattr(values, "__len__") or len(values) == 0:
        return None
    return [list(r) if hasattr(r, "__len__") and not isinstance(r, str) else [r] for r in values]


def construct_domain(*arrays) -> Domain:
    """The smallest domain holding every entry: ``EX`` if some entry is a sympy expression with
    symbols, else ``QQ`` (numbers, and strings such as ``"1/3"``).

    Parameters
    ----------
    *arrays : nested sequences, arrays or None
        The entries (keys, offsets, values, weights ...).

    Returns
    -------
    Domain
        :data:`QQ` or :data:`EX`.

    Examples
    --------
    >>> construct_domain([[0], [1]], None, [0, "1/2"])
    QQ
    """
    stack = [a for a in arrays if a is not None]
    while stack:
        a = stack.pop()
        if isinstance(a, np.ndarray) and a.dtype != object:
            continue
        if _is_symbolic(a):
            return EX
        if hasattr(a, "__len__") and not isinstance(a, (str, bytes)):
            stack.extend(a)
    return QQ
