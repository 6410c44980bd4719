"""Reading and writing tropical polynomials: the max form, the ⊕/⊙ form and JSON.

>>> parse_polynomial("3 ⊕ 2x ⊕ x²")
TropicalPolynomial('max(3, x + 2, 2*x)', variables=('x',))
"""

from __future__ import annotations

from fractions import Fraction


import json
import re

from .. import exact
from .._validate import choice
from ..errors import InvalidInputError, ModelFileError
from ._export import polynomial_to_json  # noqa: F401  (the JSON writer lives with the other output forms)
from ._polynomial import _IDENT, TropicalPolynomial
from ._rational import TropicalRationalFunction


__all__ = ["polynomial_from_json", "parse_polynomial", "parse_rational_function"]


def _json_number(value, path, allow_neg_inf=False):
    if isinstance(value, (list, dict)) or value is None:
        raise ModelFileError(f"expected a number such as 1, 0.5 or \"1/2\", got {json.dumps(value)[:60]}", path)
    try:
        return exact.to_rational(value, "the value", allow_neg_inf=allow_neg_inf)
    except InvalidInputError as exc:
        raise ModelFileError(str(exc), path) from None


def polynomial_from_json(obj) -> TropicalPolynomial:
    """Read a polynomial from its JSON form (a dict, or a JSON string).

    Parameters
    ----------
    obj : dict or str
        ``{"variables": ["x", "y"], "terms": [{"exponent": [1, 0], "coefficient": "1/2"}, ...]}``;
        ``variables`` is optional; ``"-inf"`` coefficients are dropped.

    Returns
    -------
    TropicalPolynomial
        ``max_j (c_j + alpha_j . x)`` over the terms read, exactly.

    Raises
    ------
    ModelFileError
        With ``path`` naming the offending entry, such as ``terms[2].exponent``.

    Examples
    --------
    >>> polynomial_from_json({"terms": [{"exponent": [0], "coefficient": 0},
    ...                                 {"exponent": [1], "coefficient": "1/2"}]})
    TropicalPolynomial('max(0, x + 1/2)', variables=('x',))
    >>> polynomial_from_json({"terms": [{"exponent": [0], "coefficient": "one"}]})
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: terms[0].coefficient: the value = 'one' is not a number; ...
    """
    if isinstance(obj, str):
        try:
            obj = json.loads(obj)
        except json.JSONDecodeError as exc:
            raise ModelFileError(f"not valid JSON: {exc}", "") from None
    if not isinstance(obj, dict):
        raise ModelFileError(f"expected an object with a \"terms\" list, got {type(obj).__name__}", "$")
    terms = obj.get("terms")
    if not isinstance(terms, list) or not terms:
        raise ModelFileError("expected a non-empty list of {\"exponent\": [...], \"coefficient\": ...} objects",
                             "terms")
    exps, coefs, d = [], [], None
    for i, t in enumerate(terms):
        p = f"terms[{i}]"
        if not isinstance(t, dict):
            raise ModelFileError("expected an object {\"exponent\": [...], \"coefficient\": ...}", p)
        for key in ("exponent", "coefficient"):
            if key not in t:
                raise ModelFileError(f"missing \"{key}\"", p)
        extra = sorted(set(t) - {"exponent", "coefficient"})
        if extra:
            raise ModelFileError(f"unknown keys {extra}; a term has only \"exponent\" and \"coefficient\"", p)
        e = t["exponent"]
        if not isinstance(e, list):
            raise ModelFileError("expected a list of numbers, one per variable, e.g. [1, 0]", p + ".exponent")
        if d is None:
            d = len(e)
        elif len(e) != d:
            raise ModelFileError(f"has {len(e)} entries but terms[0].exponent has {d}; "
                                 "every exponent needs one entry per variable", p + ".exponent")
        exps.append([_json_number(v, f"{p}.exponent[{k}]") for k, v in enumerate(e)])
        coefs.append(_json_number(t["coefficient"], p + ".coefficient", allow_neg_inf=True))
    variables = obj.get("variables")
    if variables is not None:
        if not isinstance(variables, list) or len(variables) != d:
            raise ModelFileError(f"expected a list of {d} variable names (one per exponent entry)", "variables")
        for k, v in enumerate(variables):
            if not isinstance(v, str) or not _IDENT.match(v):
                raise ModelFileError(f"{v!r} is not a valid name; use e.g. \"x\" or \"x1\"", f"variables[{k}]")
    try:
        return TropicalPolynomial(exps, coefs, variables)
    except InvalidInputError as exc:
        raise ModelFileError(str(exc), "terms") from None

_TOKEN = re.compile(r"""\s*(?:
    (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
   |(?P<name>[A-Za-z_][A-Za-z_0-9]*)
   |(?P<sup>[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+)
   |(?P<op>\*\*|[-+*/^(),⊕⊙·−])
)""", re.X)

_SUP = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")


def _tokenize(text):
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            bad = text[pos:].lstrip()[:10]
            raise InvalidInputError(
                f"cannot read {bad!r} at position {pos} of {text!r}; write terms like 'max(0, x + 1, 2*y - 1/2)' "
                "or '3 ⊕ 2x ⊕ x²'")
        kind = m.lastgroup
        val = m.group(kind)
        if kind == "op":
            val = {"−": "-", "·": "*", "**": "^"}.get(val, val)
        elif kind == "sup":
            val = val.translate(_SUP)
        if val.lower() in ("nan", "inf", "infinity"):
            raise InvalidInputError(
                f"{val!r} at position {m.start(kind)} of {text!r} is not a number a tropical polynomial can hold: "
                "coefficients must be finite (leave a term out instead of giving it -inf)")
        toks.append((kind, val, m.start(kind), m.end()))
        pos = m.end()
    toks.append(("end", "", len(text), len(text)))
    return toks


class _Affine:
    """lin: dict name -> Fraction, const: Fraction (classical parser values)."""

    __slots__ = ("lin", "const")

    def __init__(self, lin=None, const=Fraction(0)):
        self.lin = {k: v for k, v in (lin or {}).items() if v != 0}
        self.const = const

    def is_const(self):
        return not self.lin

    def __add__(self, o):
        lin = dict(self.lin)
        for k, v in o.lin.items():
            lin[k] = lin.get(k, 0) + v
        return _Affine(lin, self.const + o.const)

    def scale(self, s):
        return _Affine({k: v * s for k, v in self.lin.items()}, self.const * s)


class _Parser:
    """Recursive descent over tokens; values are lists of terms (a max)."""

    def __init__(self, text, tropical):
        self.text, self.toks, self.i, self.tropical = text, _tokenize(text), 0, tropical

    def peek(self):
        return self.toks[self.i]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, val):
        t = self.take()
        if t[1] != val:
            self.fail(f"expected {val!r} but found {t[1] or 'the end'!r}", t)
        return t

    def fail(self, msg, tok=None):
        tok = tok or self.peek()
        raise InvalidInputError(f"{msg} at position {tok[2]} of {self.text!r}")

    # ---- classical: max(affine, ...) with + - * / and numbers
    def expr(self):
        val = self.product()
        while self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            rhs = self.product()
            val = _cadd(val, rhs if op == "+" else self._neg(rhs))
        return val

    def _neg(self, val):
        if len(val) > 1:
            self.fail("-max(...) is a min, not a tropical polynomial; move it to the other side "
                      "or use TropicalRationalFunction(numerator, denominator)")
        return [val[0].scale(-1)]

    def product(self):
        val = self.unary()
        while True:
            t = self.peek()
            if t[1] in ("*", "/"):
                self.take()
                val = self._cmul(val, self.unary(), divide=t[1] == "/", tok=t)
            elif t[0] in ("name", "num") or t[1] == "(":  # implicit product such as 2x or 2(x + 1)
                prev = self.toks[self.i - 1]
                if not (len(val) == 1 and val[0].is_const() and prev[0] == "num" and prev[3] == t[2]):
                    self.fail(f"missing ',' or operator before {t[1]!r}; separate the arguments of max "
                              "with ',' and write '*' between factors", t)
                val = self._cmul(val, self.power(), divide=False, tok=t)
            else:
                return val

    def unary(self):
        if self.peek()[1] in ("+", "-"):
            op = self.take()[1]
            val = self.unary()
            return self._neg(val) if op == "-" else val
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek()[1] == "^" or self.peek()[0] == "sup":
            t = self.take()
            exp = self.unary() if t[1] == "^" else [_Affine(const=Fraction(int(t[1])))]
            if not (len(exp) == 1 and exp[0].is_const() and len(base) == 1 and base[0].is_const()):
                self.fail("powers of variables are not affine; in max(...) notation write 2*x for the "
                          "tropical square x⊙x (or use tropical notation such as 'x²' with ⊕)", t)
            e = exp[0].const
            if e.denominator != 1:
                self.fail("only integer powers of numbers are allowed", t)
            b = base[0].const
            if b == 0 and e < 0:
                self.fail("0 to a negative power", t)
            return [_Affine(const=b ** int(e))]
        return base

    def atom(self):
        t = self.take()
        kind, val = t[0], t[1]
        if kind == "num":
            return [_Affine(const=Fraction(val))]
        if kind == "name":
            if self.peek()[1] == "(":
                return self.call(t)
            if val.lower() in ("inf", "oo"):
                self.fail("infinite constants are not terms; drop -inf terms (the tropical zero)", t)
            return [_Affine({val: Fraction(1)})]
        if val == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        self.fail(f"unexpected {val or 'end of input'!r}", t)

    def call(self, name_tok):
        name = name_tok[1]
        if name not in ("max", "Max"):
            hint = (" (a min of affine functions is concave; tropattn uses the max convention: "
                    "negate, or write max(...))") if name.lower() == "min" else ""
            self.fail(f"unknown function {name!r}; only max(...) is allowed{hint}", name_tok)
        self.expect("(")
        args = self.expr()
        while self.peek()[1] == ",":
            self.take()
            args = args + self.expr()
        self.expect(")")
        return args

    def _cmul(self, a, b, divide, tok):
        if len(b) == 1 and b[0].is_const():
            k = b[0].const
            if divide:
                if k == 0:
                    self.fail("division by zero", tok)
                k = 1 / k
            if k < 0 and len(a) > 1:
                self.fail("a negative multiple of max(...) is a min, not a tropical polynomial", tok)
            return [t.scale(k) for t in a]
        if not divide and len(a) == 1 and a[0].is_const():
            k = a[0].const
            if k < 0 and len(b) > 1:
                self.fail("a negative multiple of max(...) is a min, not a tropical polynomial", tok)
            return [t.scale(k) for t in b]
        what = "dividing by a variable" if divide else "a product of variables such as x*y"
        self.fail(f"{what} is not affine; each argument of max(...) must be affine, e.g. "
                  "'x + y' for the tropical monomial x⊙y or '2*x' for x⊙x", tok)

    # ---- tropical notation: ⊕ between monomials, ⊙ or juxtaposition inside
    def tsum(self):
        val = self.tprod()
        while self.peek()[1] in ("⊕", "+"):
            self.take()
            val = val + self.tprod()
        return val

    def tprod(self):
        val = self.tfactor()
        while True:
            t = self.peek()
            if t[1] in ("⊙", "*"):
                self.take()
                val = _cadd(val, self.tfactor())
            elif t[0] in ("name", "num") or t[1] in ("(", "-"):
                val = _cadd(val, self.tfactor())
            else:
                return val

    def tfactor(self):
        base = self.tatom()
        t = self.peek()
        if t[1] == "^" or t[0] == "sup":
            self.take()
            if t[0] == "sup":
                e = Fraction(int(t[1]))
            else:
                neg = self.peek()[1] == "-" and self.take()
                e = self._tnumber() if self.peek()[1] != "(" else self._paren_rational()
                e = -e if neg else e
            if len(base) > 1:
                if e.denominator != 1 or e < 0:
                    self.fail("a sum can only be raised to an integer power >= 0", t)
                out = [_Affine()]
                for _ in range(int(e)):
                    out = _cadd(out, base)
                return out
            return [base[0].scale(e)]
        return base

    def _tnumber(self):
        t = self.take()
        if t[0] != "num":
            self.fail(f"expected a number but found {t[1]!r}", t)
        q = Fraction(t[1])
        if self.peek()[1] == "/" and self.toks[self.i + 1][0] == "num":
            self.take()
            q /= Fraction(self.take()[1])
        return q

    def _paren_rational(self):
        self.expect("(")
        val = self.expr()
        self.expect(")")
        if len(val) != 1 or not val[0].is_const():
            self.fail("an exponent must be a number such as 2 or (1/2)")
        return val[0].const

    def tatom(self):
        t = self.peek()
        if t[1] == "-":
            self.take()
            return [_Affine(const=-self._tnumber())]
        if t[0] == "num":
            return [_Affine(const=self._tnumber())]
        if t[0] == "name":
            self.take()
            return [self._split_name(t)]
        if t[1] == "(":
            self.take()
            inner = self.tsum()
            self.expect(")")
            return inner
        self.fail(f"unexpected {t[1] or 'end of input'!r}", t)

    def _split_name(self, tok):
        """'xy' -> x ⊙ y: variables are a letter plus optional digits, or known names."""
        name, known = tok[1], getattr(self, "known", None)
        lin = {}
        pos = 0
        while pos < len(name):
            match = None
            if known:
                match = max((v for v in known if name.startswith(v, pos)), key=len, default=None)
            if match is None:
                m = re.compile(r"[A-Za-z](?:_?\d+)?").match(name, pos)
                if not m:
                    self.fail(f"cannot split {name!r} into variables", tok)
                match = m.group(0)
            lin[match] = lin.get(match, 0) + Fraction(1)
            pos += len(match)
        return _Affine(lin)


def _cadd(a, b):
    """Sum of two maxes = max of pairwise sums (the tropical product)."""
    return [s + t for s in a for t in b]


def _natural_key(name):
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def parse_polynomial(text: str, variables=None, *, notation=None) -> TropicalPolynomial:
    """Read a tropical polynomial from text.

    Two notations are understood:

    * **max form** (default): ``"max(0, x + 1, 2*y - 1/2)"``; each argument affine
      in the variables (``2x`` means ``2*x``); ``max`` may be ``Max`` (sympy's
      printing round-trips) and may nest; a sum of maxes is their tropical product
      and a bare affine expression is a one-term polynomial;
    * **tropical form** (chosen when the text contains ``⊕`` or ``⊙``, or with
      ``notation="tropical"``): ``"3 ⊕ 2x ⊕ 2y ⊕ 3xy ⊕ x² ⊕ y²"``, where
      juxtaposition, ``⊙`` and ``*`` are the tropical product, ``x²``, ``x^2``,
      ``x^(1/2)`` are powers and ``2x`` is ``2 ⊙ x = x + 2``.  A name such as ``xy``
      splits into the one-letter variables ``x``, ``y`` (a letter may carry digits:
      ``x1x2``), or into the given ``variables``.

    Parameters
    ----------
    text : str
        The polynomial, in either notation.
    variables : sequence of str, optional
        Variable order; by default the names found, sorted (``x2`` before ``x10``).
    notation : {"max", "tropical"}, optional
        Force a notation; by default tropical form iff the text has ``⊕`` or ``⊙``.

    Returns
    -------
    TropicalPolynomial
        One term ``(alpha_j, c_j)`` per affine argument, in the order written.

    Raises
    ------
    InvalidInputError
        Non-affine arguments such as ``x*y`` (the message says to write ``x + y``),
        unknown functions or names, syntax errors (with the position), empty text,
        a non-string ``text``, an unknown ``notation``, or names not in ``variables``.

    Examples
    --------
    >>> parse_polynomial("max(0, x + 1, 2*y - 1/2)")
    TropicalPolynomial('max(0, x + 1, 2*y - 1/2)', variables=('x', 'y'))
    >>> parse_polynomial("3 ⊕ 2x ⊕ x²")
    TropicalPolynomial('max(3, x + 2, 2*x)', variables=('x',))
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"parse_polynomial needs a string, got {type(text).__name__}")
    if notation is None:
        notation = "tropical" if ("⊕" in text or "⊙" in text) else "max"
    choice(notation, "notation", ("max", "tropical"), "'max' reads max(...) and +, 'tropical' reads ⊕ and ⊙")
    parser = _Parser(text, notation == "tropical")
    if variables is not None:
        variables = tuple(variables) if not isinstance(variables, str) else (variables,)
        parser.known = variables
    if parser.peek()[0] == "end":
        raise InvalidInputError("the text is empty; write a polynomial such as 'max(0, x + 1)'")
    terms = parser.tsum() if parser.tropical else parser.expr()
    if parser.peek()[0] != "end":
        tok = parser.peek()
        hint = " (use ',' between the arguments of max)" if not parser.tropical else ""
        parser.fail(f"unexpected {tok[1]!r}{hint}", tok)
    return _polynomials([terms], variables)[0]


def _polynomials(term_lists, variables):
    """Polynomials over one variable list from parsed term lists (names sorted naturally by default)."""
    names = sorted({v for terms in term_lists for t in terms for v in t.lin}, key=_natural_key)
    if variables is None:
        variables = tuple(names) or ("x",)
    else:
        unknown = [v for v in names if v not in variables]
        if unknown:
            raise InvalidInputError(f"the text uses {unknown} which are not among variables={variables}; "
                                    "add them or fix the spelling")
    return [TropicalPolynomial([[t.lin.get(v, Fraction(0)) for v in variables] for t in terms],
                               [t.const for t in terms], variables) for terms in term_lists]


def parse_rational_function(text: str, variables=None) -> TropicalRationalFunction:
    """Read a tropical rational function ``f ⊘ g = f - g`` from text.

    The text is a signed sum of tropical polynomials in max form: the terms with a
    ``+`` sign multiply (tropically) into the numerator, those with a ``-`` sign into
    the denominator, so ``"max(0, x) - max(0, x - 1)"`` is ``max(0, x) ⊘ max(0, x - 1)``
    (the clamp ``clip(x, 0, 1)``).  ``"f ⊘ g"`` with two polynomials in either
    notation of :func:`parse_polynomial` is read too.

    Parameters
    ----------
    text : str
        The polynomial, in either notation.
    variables : sequence of str, optional
        Variable order (default: the names found, sorted naturally).

    Returns
    -------
    TropicalRationalFunction

    Raises
    ------
    InvalidInputError
        As :func:`parse_polynomial`; a ``-`` inside a ``max`` argument is fine, but
        ``2*(max(...) - max(...))`` is not (expand it).

    Examples
    --------
    >>> clamp = parse_rational_function("max(0, x) - max(0, x - 1)")
    >>> clamp(-2), clamp("1/2"), clamp(5)
    (Fraction(0, 1), Fraction(1, 2), Fraction(1, 1))
    >>> parse_rational_function("max(0, x) - max(0, y) - 1").denominator
    TropicalPolynomial('max(1, y + 1)', variables=('x', 'y'))
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"parse_rational_function needs a string, got {type(text).__name__}")
    if variables is not None:
        variables = tuple(variables) if not isinstance(variables, str) else (variables,)
    if "⊘" in text:
        parts = text.split("⊘")
        if len(parts) != 2:
            raise InvalidInputError(f"{text!r} has {len(parts) - 1} signs ⊘; write one quotient 'f ⊘ g'")
        num, den = (parse_polynomial(p, variables) for p in parts)
        if variables is None:
            names = sorted(set(num.variables) | set(den.variables), key=_natural_key)
            num, den = (parse_polynomial(p, names) for p in parts)
        return TropicalRationalFunction(num, den)
    parser = _Parser(text, False)
    if parser.peek()[0] == "end":
        raise InvalidInputError("the text is empty; write a rational function such as 'max(0, x) - max(0, x - 1)'")
    num, den = [_Affine()], [_Affine()]
    sign = parser.take()[1] if parser.peek()[1] in ("+", "-") else "+"
    while True:
        val = parser.product()
        if sign == "+":
            num = _cadd(num, val)
        else:
            den = _cadd(den, val)
        if parser.peek()[1] not in ("+", "-"):
            break
        sign = parser.take()[1]
    if parser.peek()[0] != "end":
        tok = parser.peek()
        parser.fail(f"unexpected {tok[1]!r} (use ',' between the arguments of max)", tok)
    return TropicalRationalFunction(*_polynomials([num, den], variables))
