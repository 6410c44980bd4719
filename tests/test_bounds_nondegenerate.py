"""Every bound of tropattn.region_bounds at non-degenerate shapes (N >= 3, H >= 2, d >= 2),
against closed forms written out here from docs/THEORY.md §3-4, and the attained constructions
against exact brute-force counts of the independent reference (tests/oracles)."""

import random

import pytest

from oracles import brute_force, load_model
from oracles.compare import random_model_json
from tropattn.attention import grid_model, sawtooth_model
from tropattn.io import model_to_json
from tropattn.region_bounds import (arrangement_bound, bounds, deep_bound, ffn_factor, layer_bound, line_bound,
                                    product_bound, single_head_bound)

SHAPES = [(d, H, N) for d in (1, 2, 3, 4) for H in (2, 3, 5) for N in (3, 4, 7)]


def binom(n, k):
    """n choose k by the product formula (0 for k > n)."""
    if k < 0 or k > n:
        return 0
    out = 1
    for i in range(k):
        out = out * (n - i) // (i + 1)
    return out


def arrangement(d, H, N):
    """Regions of H * C(N, 2) hyperplanes in R^d in general position (Zaslavsky)."""
    n = H * N * (N - 1) // 2
    return sum(binom(n, i) for i in range(d + 1))


def per_layer(d, H, N):
    cands = [N**H, arrangement(d, H, N)]
    if d == 1:
        cands.append(H * (N - 1) + 1)
    return min(cands)


def test_arrangement_by_hand():
    # d = 2, H = 2, N = 3: 6 bisectors in the plane, 1 + 6 + 15 = 22
    assert arrangement_bound(2, 2, 3) == 22
    # d = 3, H = 3, N = 4: 18 planes, 1 + 18 + 153 + 816
    assert arrangement_bound(3, 3, 4) == 988
    # d = 2, H = 5, N = 3: 15 lines, 1 + 15 + 105
    assert arrangement_bound(2, 5, 3) == 121
    assert layer_bound(2, 5, 3) == 121 < 3**5


@pytest.mark.parametrize("d,H,N", SHAPES)
def test_formulas(d, H, N):
    assert single_head_bound(N) == N
    assert product_bound([N] * H) == N**H
    assert product_bound([N, N + 1, 2]) == N * (N + 1) * 2
    assert arrangement_bound(d, H, N) == arrangement(d, H, N)
    assert line_bound(H, N) == H * (N - 1) + 1
    assert layer_bound(d, H, N) == per_layer(d, H, N)
    for m in (1, 2, 5):
        assert ffn_factor(d, m) == sum(binom(m, i) for i in range(d + 1))
        for L in (1, 2, 3):
            assert deep_bound(d, H, N, L, ffn_hidden=m) == (per_layer(d, H, N) * ffn_factor(d, m)) ** L
    for L in (1, 2, 3):
        assert deep_bound(d, H, N, L) == per_layer(d, H, N) ** L
        b = bounds(d, H, N, L)
        assert (b.dim, b.heads, b.keys, b.layers) == (d, H, N, L)
        assert b.as_dict() == {k: getattr(b, k) for k in b.__dataclass_fields__}
        assert (b.single_head, b.product, b.arrangement) == (N, N**H, arrangement(d, H, N))
        assert b.line == (H * (N - 1) + 1 if d == 1 else None)
        assert (b.per_layer, b.deep_product, b.deep) == (per_layer(d, H, N), N**(H * L), per_layer(d, H, N)**L)
        assert b.lower == N**(min(H, d) * L) and b.order_exponent == min(H, d)
        assert b.product_attainable == (H <= d)
        assert b.construction == ("grid" if L == 1 and H <= d else "sawtooth")
        assert b.lower <= b.deep <= b.deep_product


def test_where_the_bounds_differ():
    # shapes where C(N, 2) and N - 1 differ decide the arrangement bound (they agree at N = 2)
    assert layer_bound(3, 8, 3) == arrangement(3, 8, 3) == 1 + 24 + 276 + 2024 < 3**8
    assert layer_bound(2, 6, 3) == arrangement(2, 6, 3) == 1 + 18 + 153 < 3**6
    assert layer_bound(1, 3, 4) == 10 and layer_bound(1, 2, 3) == 5


def _count(model, box=None):
    return len(brute_force(load_model(model_to_json(model), box)))


@pytest.mark.parametrize("d,N,L", [(1, 3, 2), (1, 4, 1), (2, 3, 1), (2, 2, 2), (3, 2, 1)])
def test_sawtooth_attains_N_to_the_dL(d, N, L):
    assert _count(sawtooth_model(d, N, L)) == N**(d * L) == bounds(d, d, N, L).lower


@pytest.mark.slow
@pytest.mark.parametrize("d,N,L", [(1, 3, 3), (2, 3, 2)])
def test_sawtooth_attains_N_to_the_dL_slow(d, N, L):
    assert _count(sawtooth_model(d, N, L)) == N**(d * L)


@pytest.mark.parametrize("d,H,N", [(2, 2, 3), (3, 2, 3), (3, 3, 2), (2, 1, 4)])
def test_grid_attains_N_to_the_H(d, H, N):
    assert _count(grid_model(d, H, N)) == N**H == bounds(d, H, N).lower


def test_line_bound_is_attained():
    # two heads of three keys on a line, breakpoints 0, 1 and -1/2, 3/2: H (N - 1) + 1 = 5
    obj = {"format": "tropattn.model/1", "dim": 1, "layers": [{"heads": [
        {"keys": [[0], [1], [2]], "offsets": [0, 0, -1], "values": [[0], [0], [0]]},
        {"keys": [[0], [1], [2]], "offsets": [0, "1/2", -1], "values": [[0], [0], [0]]}]}]}
    assert len(brute_force(load_model(obj))) == 5 == line_bound(2, 3) < 3**2


def test_random_models_respect_the_bounds():
    rnd = random.Random(7)
    for _ in range(12):
        d, H, N, m = rnd.randint(1, 3), rnd.randint(1, 2), rnd.randint(2, 3), rnd.randint(0, 2)
        L = 1 if d == 3 else rnd.randint(1, 2)
        obj = random_model_json(rnd, d, L, H, N, m)
        assert len(brute_force(load_model(obj))) <= deep_bound(d, H, N, L, ffn_hidden=m)


# ---------------------------------------------------------------- bad arguments name the parameter

BAD = [
    (single_head_bound, (0,), 0, "keys"),
    (product_bound, ([3, 0],), None, "keys"),
    (arrangement_bound, (0, 2, 3), 0, "dim"),
    (arrangement_bound, (2, 0, 3), 1, "heads"),
    (arrangement_bound, (2, 2, 0), 2, "keys"),
    (line_bound, (0, 3), 0, "heads"),
    (line_bound, (2, 0), 1, "keys"),
    (layer_bound, (2, 0, 3), 1, "heads"),
    (layer_bound, (2, 2, 0), 2, "keys"),
    (ffn_factor, (0, 2), 0, "dim"),
    (ffn_factor, (2, -1), 1, "hidden"),
    (deep_bound, (2, 2, 3, 0), 3, "layers"),
    (deep_bound, (2, 2, 3, 1, -1), 4, "hidden"),
    (bounds, (0, 2, 3), 0, "dim"),
    (bounds, (2, 0, 3), 1, "heads"),
    (bounds, (2, 2, 0), 2, "keys"),
    (bounds, (2, 2, 3, 0), 3, "layers"),
]


@pytest.mark.parametrize("fn,args,pos,name", BAD, ids=lambda v: getattr(v, "__name__", None))
def test_bad_arguments_name_the_parameter(fn, args, pos, name):
    from tropattn.errors import InvalidInputError
    with pytest.raises(InvalidInputError, match=rf"^{name} = .*; it must be an integer >= [01]$"):
        fn(*args)
    if pos is not None:                              # a boolean or a float in the same place is refused too
        for bad in (True, 2.0):
            with pytest.raises(InvalidInputError, match=rf"^{name} = .*must be an integer"):
                fn(*(args[:pos] + (bad,) + args[pos + 1:]))


def test_no_hidden_units():
    for d in (1, 2, 3):
        assert ffn_factor(d, 0) == 1
        assert deep_bound(d, 3, 3, 2, ffn_hidden=0) == deep_bound(d, 3, 3, 2) == per_layer(d, 3, 3) ** 2


def test_too_many_digits_is_refused():
    from tropattn.errors import InvalidInputError
    with pytest.raises(InvalidInputError, match="digits"):
        bounds(1, 10**6, 10, 1)
    assert bounds(1, 2, 3, 1000).deep == 5**1000


@pytest.mark.parametrize("args, refused", [
    ((1, 1, 100, 499_998), False), ((1, 1, 100, 499_999), True),      # about 2 L + 4 digits: N^(H L) dominates
    ((499_999, 1, 10, 1), False), ((500_000, 1, 10, 1), True),        # about 2 d + 1 digits: (H N^2)^d dominates
])
def test_the_digit_guard_refuses_just_past_a_million_digits(args, refused):
    """The guard's estimate is H L log10 N + d log10(H N^2) digits; exactly 10^6 is still computed."""
    from tropattn.errors import InvalidInputError
    if not refused:
        assert bounds(*args).lower == args[2] ** (min(args[0], args[1]) * args[3])
        return
    with pytest.raises(InvalidInputError) as info:
        bounds(*args)
    d, h, n, L = args
    assert str(info.value) == (f"the bounds for d={d}, H={h}, N={n}, L={L} have about 1e+06 digits; exact integers "
                               "that large are not useful (use logarithms)")
