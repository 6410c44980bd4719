"""Symbolic heads: every symbolic answer, at rational parameter values, equals the numeric answer.

The numeric answers come from independent code: ``TropicalPolynomial.redundant_terms``
(certified upper hull), ``PowerDiagram.adjacency_graph`` (certified cells) and
``count_dual`` (Minkowski sums of lifted polytopes).
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from tropattn.attention import Head, SymbolicHead, count_dual, product_polynomial, symbolic_product
from tropattn.errors import InvalidInputError
from tropattn.tropical import (adjacency_condition, parameter_regions, parse_polynomial, redundancy_condition,
                               type_condition)

sympy = pytest.importorskip("sympy")
t = sympy.Symbol("t", real=True)
s = sympy.Symbol("s", real=True)


def numeric_type(head, values):
    h = head.evaluate_at(values)
    red = h.numeric_polynomial().redundant_terms()
    edges = tuple(sorted(tuple(sorted(e)) for e in h.numeric_diagram().adjacency_graph().edges))
    return red, edges


def check_against_numbers(head, extra=()):
    """The pieces' types and the raw conditions agree with the numeric code at many rationals."""
    pieces = head.parameter_regions()
    samples = [p.sample for p in pieces if p.sample.is_Rational]
    cuts = [b for p in pieces for b in p.set.boundary if b.is_Rational]
    conds = [head.redundancy_condition(j) for j in range(head.N)]
    for q in samples + cuts + [sympy.Rational(v) for v in extra]:
        red, edges = numeric_type(head, {t: q})
        (piece,) = [p for p in pieces if p.set.contains(q) is sympy.true]
        assert (piece.redundant, piece.edges) == (red, edges), q
        for j in range(head.N):
            assert (conds[j].subs(t, q) is sympy.true) == (j in red)
    return pieces


def test_middle_key_hidden_exactly_when_offset_nonpositive():
    head = SymbolicHead([[0], [1], [2]], [0, t, 0])
    assert head.redundancy_condition(1) == (t <= 0)
    pieces = check_against_numbers(head, extra=["-1/3", "1/1000", 5])
    assert [(p.redundant, p.edges) for p in pieces] == [((1,), ((0, 2),)), ((), ((0, 1), (1, 2)))]


def test_irrational_boundary_is_exact():
    # x + (t^2 - 2) competes with 0 and 2x: hidden iff t^2 <= 2, so the cuts are ±sqrt(2)
    head = SymbolicHead([[0], [1], [2]], [0, t * t - 2, 0])
    pieces = check_against_numbers(head, extra=["7/5", "-141/100", "3/2"])
    bounds = sorted({b for p in pieces for b in p.set.boundary}, key=float)
    assert [sympy.simplify(b ** 2) for b in bounds] == [2, 2]
    assert pieces[1].redundant == (1,) and pieces[1].set.contains(0) is sympy.true


@pytest.mark.slow
def test_planar_head_with_coinciding_keys():
    head = SymbolicHead([[0, 0], [1, t], [t, 1]], [0, t, -1])
    pieces = check_against_numbers(head, extra=[-2, "1/3", 3])
    at_one = [p for p in pieces if p.set.contains(1) is sympy.true][0]
    assert at_one.redundant == (2,)          # keys 1 and 2 coincide at t = 1; the larger offset wins


@settings(max_examples=4, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 2), st.integers(-1, 1), st.integers(-2, 2), st.integers(-1, 1),
                          st.integers(-1, 1)), min_size=3, max_size=3),
       st.lists(st.fractions(-3, 3, max_denominator=4), min_size=2, max_size=2))
@pytest.mark.slow
def test_random_line_heads_agree_with_numeric_code(coefs, extra):
    keys = [[a + b * t] for a, b, _, _, _ in coefs]
    offsets = [c + e * t + f * t * t for _, _, c, e, f in coefs]
    if not any(sympy.sympify(v).has(t) for v in [k[0] for k in keys] + offsets):
        offsets[0] = offsets[0] + t
    check_against_numbers(SymbolicHead(keys, offsets), extra=[str(v) for v in extra])


def test_adjacency_condition_matches_adjacency_graph_with_two_symbols():
    head = SymbolicHead([[0, 0], [1, 0], [0, 1], [s, t]], [0, 0, 0, -1])
    for j, k in [(0, 3), (1, 2), (0, 1)]:
        cond = head.adjacency_condition(j, k)
        for a, b in [(1, 1), (2, 2), ("1/2", "1/2"), (-1, 2), (3, "1/3")]:
            vals = {s: sympy.Rational(a), t: sympy.Rational(b)}
            _, edges = numeric_type(head, vals)
            assert (cond.subs(vals) is sympy.true) == ((j, k) in edges), (j, k, a, b)


@pytest.mark.slow
def test_two_parameter_type_regions_match_the_numeric_type():
    head = SymbolicHead([[0], [1], [2], [s]], [0, t, 0, -1])
    grid = [(sympy.Rational(a, 2), sympy.Rational(b, 2)) for a in range(-2, 6) for b in range(-3, 3)]
    types = {(a, b): numeric_type(head, {s: a, t: b}) for a, b in grid}
    regions = {ty: head.type_condition(*ty) for ty in set(types.values())}
    assert len(regions) >= 3
    for (a, b), ty in types.items():
        for other, cond in regions.items():
            assert (cond.subs({s: a, t: b}) is sympy.true) == (other == ty), ((a, b), ty, other)
    one = SymbolicHead([[0], [1], [2]], [0, t, 0])
    assert type_condition(one.lifted_points(), [0, 1, 2], []) is sympy.false      # never every key hidden


def test_weight_form_gives_sites_weights_and_polynomial():
    head = SymbolicHead.from_weights([[1, 0], [0, t]], [[1, 0], [0, 1]], [[1, 0], [0, 1], [1, 1]], b_Q=[0, 1])
    assert head.keys == ((1, 0), (0, t), (1, t))
    assert head.offsets == (0, 1, 1)
    assert head.weights == (1, t ** 2 + 2, t ** 2 + 3)
    x, y = head.query_symbols()
    G = head.tropical_polynomial()
    assert G.subs({x: 2, y: 3, t: 5}) == 2 + 15 + 1
    numeric = Head.from_weights([[1, 0], [0, 5]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], None, [[1, 0], [0, 1], [1, 1]],
                                b_Q=[0, 1])
    keys, offsets = head.evaluate_at({t: 5}).numeric_keys()
    assert (keys, offsets) == (numeric.keys, numeric.offsets)
    assert "\\max" in head.to_latex()
    valued = SymbolicHead.from_weights([[t]], [[1]], [[1], [2]], W_V=[[t]], W_O=[[2]], b_V=[1])
    assert valued.values == ((2 * t + 2,), (4 * t + 2,)) and valued.keys == ((t,), (2 * t,))


def test_rational_map_is_the_log_lifted_limit():
    head = SymbolicHead([[0], [1]], [0, t])
    F = head.rational_map([[0, s], [-1, 0]])
    (x,) = head.query_symbols()
    numeric = Head([[0], [1]], [0, 2]).tropical_rational_map([[0, 3], [-1, 0]])
    for xv in (-3, 0, "1/2", 4):
        got = F.subs({t: 2, s: 3, x: sympy.Rational(xv)})
        assert tuple(got) == tuple(sympy.Rational(v.numerator, v.denominator) for v in numeric([Fraction(xv)]))


@pytest.mark.slow
def test_symbolic_product_counts_the_overlay():
    h1 = SymbolicHead([[0], [1], [2]], [0, t, -1])
    h2 = SymbolicHead([[0], [1]], [0, -t])
    pts = symbolic_product([h1, h2])
    keys = list(pts)
    conds = [redundancy_condition(list(pts.values()), i) for i in range(len(keys))]
    for q in (-2, "-1/2", 0, "1/3", 1, 3):
        q = sympy.Rational(q)
        alive = {tuple(pts[keys[i]][c].subs(t, q) for c in range(2)) for i in range(len(keys))
                 if conds[i].subs(t, q) is sympy.false}
        numeric = [Head(*h.evaluate_at({t: q}).numeric_keys()) for h in (h1, h2)]
        assert len(alive) == count_dual(numeric)
    (x,) = h1.query_symbols()
    assert product_polynomial([h1, h2]).subs({x: 5, t: 1}) == max(0, 6, 9) + max(0, 4)


def test_to_sympy_is_fast_and_keeps_every_term():
    import time
    f = parse_polynomial("max(" + ", ".join(f"{i}*x + {(i * i) % 7}" for i in range(200)) + ")")
    start = time.perf_counter()
    expr = f.to_sympy()
    assert time.perf_counter() - start < 5
    assert len(expr.args) == 200 and expr.subs(sympy.Symbol("x", real=True), 2) == f(2)


def test_bad_input_is_refused():
    with pytest.raises(InvalidInputError, match="rational function"):
        SymbolicHead([[sympy.sin(t)]])
    with pytest.raises(InvalidInputError, match="not rational"):
        SymbolicHead([[sympy.sqrt(2) * t]])
    with pytest.raises(InvalidInputError, match="not rational"):
        SymbolicHead([[t]]).evaluate_at({t: sympy.pi})
    with pytest.raises(InvalidInputError, match="query variable"):
        SymbolicHead([[sympy.Symbol("x")]])
    with pytest.raises(InvalidInputError, match="exactly one parameter"):
        parameter_regions([(0, s), (1, t)])
    with pytest.raises(InvalidInputError, match="no value"):
        SymbolicHead([[t]]).evaluate_at({})
    with pytest.raises(InvalidInputError, match="different terms"):
        adjacency_condition([(0, 0), (1, t)], 1, 1)


# ----------------------------------------------------------------- rational functions: parsing and export
@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-2, 2), st.integers(-3, 3)), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(-2, 2), st.integers(-3, 3)), min_size=1, max_size=4),
       st.fractions(-4, 4, max_denominator=3))
def test_parse_rational_function_is_numerator_minus_denominator(num, den, x):
    from tropattn.tropical import TropicalPolynomial, parse_rational_function

    f = TropicalPolynomial([[a] for a, _ in num], [c for _, c in num])
    g = TropicalPolynomial([[a] for a, _ in den], [c for _, c in den])
    r = parse_rational_function(f"{f} - ({g})", variables=("x",))
    assert r(x) == f(x) - g(x)
    assert parse_rational_function(f"{f} ⊘ {g}", variables=("x",))(x) == f(x) - g(x)
    X = sympy.Symbol("x", real=True)
    assert r.to_sympy().subs(X, sympy.Rational(x.numerator, x.denominator)) == f(x) - g(x)


def test_rational_map_exports():
    from tropattn.tropical import TropicalRationalMap, parse_rational_function

    F = TropicalRationalMap([parse_rational_function("max(0, x) - max(0, x - 1)", variables=("x", "y")),
                             parse_rational_function("max(x, y) - y")])
    x, y = sympy.symbols("x y", real=True)
    M = F.to_sympy()
    assert M.shape == (2, 1) and tuple(M.subs({x: 3, y: 1})) == tuple(F([3, 1])) == (1, 2)
    assert F.to_latex() == (r"\begin{pmatrix} \max(0,\; x) - \max(0,\; x - 1) \\ \max(x,\; y) - y "
                            r"\end{pmatrix}")
    with pytest.raises(InvalidInputError):
        parse_rational_function("max(0, x) ⊘ max(0, y) ⊘ x")
    with pytest.raises(InvalidInputError):
        parse_rational_function("2*(max(0, x) - max(0, x - 1))")
