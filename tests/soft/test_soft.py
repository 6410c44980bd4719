"""Finite temperature (THEORY §5): soft attention against its hard skeleton (tropattn.soft)."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.attention import Head, cell_walls, hard_labels, head_arrays, sample_points, wall_distance
from tropattn.errors import DegenerateInputError, InvalidInputError, MovedError
from tropattn.soft import (
    attend,
    compare_conventions,
    delta_region_bounds,
    log_soft_weights,
    log_softmax,
    logsumexp,
    margin,
    measure,
    paper_temperature,
    pointwise_defects,
    predicted_band_width,
    raw_score_form,
    reference_defects,
    scores,
    soft_jacobian,
    soft_output,
    soft_weights,
    softmax,
    standard_temperature,
    weight_bounds,
)

SLACK = 1 + 1e-9  # "<= 1 up to rounding"


def random_head(seed, N, d, m, scale=4):
    rng = np.random.default_rng(seed)
    keys = rng.integers(-scale, scale + 1, (N, d)).tolist()
    offsets = [Fraction(int(v), 2) for v in rng.integers(-2 * scale, 2 * scale + 1, N)]
    values = rng.integers(-3, 4, (N, m)).tolist()
    return keys, offsets, values


def exact_label(keys, offsets, x):
    """Argmax of the exact scores at a float point (floats are rationals); -1 on a tie."""
    xq = [Fraction(v) for v in x]
    s = [sum(Fraction(a) * xi for a, xi in zip(row, xq)) + Fraction(b) for row, b in zip(keys, offsets)]
    best = max(s)
    win = [j for j, v in enumerate(s) if v == best]
    return win[0] if len(win) == 1 else -1


heads_strategy = st.tuples(st.integers(0, 10**6), st.integers(1, 5), st.integers(1, 3), st.integers(1, 3))
taus_strategy = st.floats(0.01, 10.0)


# ------------------------------------------------------------------ bounds hold pointwise
@settings(max_examples=60, deadline=None, derandomize=True)
@given(heads_strategy, taus_strategy)
def test_pointwise_defects_below_bounds(shape, tau):
    seed, N, d, m = shape
    head = random_head(seed, N, d, m)
    X = np.random.default_rng(seed + 1).uniform(-3, 3, (200, d))
    labels = hard_labels(head, X)
    X = X[labels >= 0]
    pd = pointwise_defects(head, X, tau, labels[labels >= 0][None, :])
    for measured, bound in [(pd.log_weight, pd.log_weight_upper), (pd.log_output, pd.log_output_bound),
                            (pd.log_jacobian, pd.log_jacobian_bound), (pd.log_output, pd.log_output_bound_p),
                            (pd.log_jacobian, pd.log_jacobian_bound_p), (pd.log_weight_lower, pd.log_weight)]:
        finite = np.isfinite(measured)
        assert np.all(np.exp(measured[finite] - bound[finite]) <= SLACK)
        assert np.all(np.isneginf(measured[~finite]))
    # the plain definitions agree with the log-space ones
    W = soft_weights(head, X, tau)
    hard = np.asarray(head[2], dtype=float)[pd.labels[0]]
    plain = np.linalg.norm(W @ np.asarray(head[2], dtype=float) - hard, axis=1)
    assert np.allclose(plain, np.exp(pd.log_output), rtol=1e-6, atol=1e-12)


@settings(max_examples=15, deadline=None, derandomize=True)
@given(heads_strategy, st.lists(taus_strategy, min_size=1, max_size=3), st.floats(0.0, 0.5))
def test_measure_ratio_at_most_one(shape, taus, delta):
    seed, N, d, m = shape
    head = random_head(seed, max(N, 2), d, m)
    try:
        rows = measure(head, taus, delta=delta, box=3, n_samples=300, seed=seed)
    except DegenerateInputError:  # no sample point that far from the walls: nothing to check
        return
    for r in rows:
        for st_ in (r.weights, r.output, r.jacobian):
            assert st_.ratio <= SLACK and st_.sup_ratio <= SLACK
            assert st_.defect <= st_.bound * SLACK
            assert st_.defect <= st_.uniform_bound * SLACK      # the δ-region statement of §5
        assert r.weight_lower_ratio >= 1 / SLACK
        assert r.band_width <= r.band_width_predicted * SLACK
        assert 0 <= r.fraction_below_eps <= 1


def test_layer_defect_below_sum_of_head_bounds():
    heads = [random_head(s, 4, 2, 2) for s in (1, 2, 3)]
    X = np.random.default_rng(0).uniform(-3, 3, (400, 2))
    labels = np.stack([hard_labels(h, X) for h in heads])
    ok = np.all(labels >= 0, axis=0)
    X, labels = X[ok], labels[:, ok]
    for tau in (0.05, 0.5, 3.0):
        pd = pointwise_defects(heads, X, tau, labels)
        soft = sum(soft_output(h, X, tau) for h in heads)
        hard = sum(np.asarray(h[2], dtype=float)[lab] for h, lab in zip(heads, labels))
        assert np.allclose(np.linalg.norm(soft - hard, axis=1), np.exp(pd.log_output), rtol=1e-7, atol=1e-12)
        J = sum(soft_jacobian(h, X, tau) for h in heads)
        assert np.allclose(np.linalg.norm(J, 2, axis=(1, 2)), np.exp(pd.log_jacobian), rtol=1e-7, atol=1e-12)
        single = [pointwise_defects(h, X, tau, lab[None, :]) for h, lab in zip(heads, labels)]
        total = sum(np.exp(s.log_output_bound) for s in single)
        assert np.all(np.exp(pd.log_output) <= total * SLACK)
        assert np.allclose(np.exp(pd.log_output_bound), total, rtol=1e-9)
    rows = measure(heads, [0.1, 1.0], delta=0.05, box=3, n_samples=500)
    assert all(r.output.ratio <= SLACK and r.jacobian.ratio <= SLACK for r in rows)


# ------------------------------------------------------------------ N = 2 is tight
def test_two_keys_attain_the_weight_bounds():
    head = ([[1], [-1]], [0, 0])              # Delta(x) = 2|x|
    tau = 0.5
    X = np.array([[0.1], [0.5], [1.0], [2.0], [5.0], [9.0]])
    delta = margin(head, X)
    assert np.allclose(delta, 2 * np.abs(X[:, 0]))
    exact = 1 / (1 + np.exp(delta / tau))      # 1 - p* for N = 2
    measured = np.exp(pointwise_defects(head, X, tau).log_weight[0])
    lower, upper = weight_bounds(delta, tau, 2)
    assert np.allclose(measured, exact, rtol=1e-12) and np.allclose(lower, exact, rtol=1e-12)
    ratio = measured / upper                   # = 1 / (1 + e^{-Delta/tau}) -> 1
    assert np.all(np.diff(ratio) > 0) and ratio[-1] > 1 - 1e-15 and np.all(ratio <= 1)
    assert np.allclose(ratio, 1 / (1 + np.exp(-delta / tau)), rtol=1e-12)


def test_sharp_upper_bound_attained_when_all_losers_tie():
    N = 5
    keys = [[0, 0]] + [[np.cos(2 * np.pi * k / 4), np.sin(2 * np.pi * k / 4)] for k in range(4)]
    head = (np.round(keys).tolist(), [0, -1, -1, -1, -1])   # at the origin every loser is 1 below
    for tau in (0.1, 1.0, 7.0):
        w = np.exp(pointwise_defects(head, [[0.0, 0.0]], tau).log_weight[0, 0])
        lo, hi = weight_bounds(1.0, tau, N, sharp=True)
        assert math.isclose(w, hi, rel_tol=1e-12) and w <= weight_bounds(1.0, tau, N)[1]
        assert lo <= w


# ------------------------------------------------------------------ Jacobian
@settings(max_examples=25, deadline=None, derandomize=True)
@given(heads_strategy, st.floats(0.2, 5.0))
def test_jacobian_matches_central_differences(shape, tau):
    seed, N, d, m = shape
    head = random_head(seed, N, d, m, scale=2)
    X = np.random.default_rng(seed).uniform(-2, 2, (6, d))
    J = soft_jacobian(head, X, tau)
    h = 1e-5
    fd = np.stack([(soft_output(head, X + h * e, tau) - soft_output(head, X - h * e, tau)) / (2 * h)
                   for e in np.eye(d)], axis=2)
    assert np.allclose(J, fd, rtol=1e-5, atol=1e-6 * (1 + np.abs(J).max()))
    # the textbook form (1/tau) sum_j p_j (v_j - y) a_j^T
    W, V, A = soft_weights(head, X, tau), np.asarray(head[2], float), np.asarray(head[0], float)
    Y = W @ V
    plain = np.einsum("nj,njm,jd->nmd", W, V[None] - Y[:, None], A) / tau
    assert np.allclose(J, plain, atol=1e-10 * (1 + np.abs(plain).max()))


# ------------------------------------------------------------------ mpmath reference
def test_reference_agrees_with_float64_where_both_are_valid():
    head = random_head(7, 4, 2, 2)
    X = np.random.default_rng(3).uniform(-2, 2, (5, 2))
    for x in X:
        for tau in (0.05, 0.3, 2.0):
            ref = reference_defects(head, x, tau)
            if float(ref["margin"]) / tau > 600:               # e^{-Delta/tau} < 1e-260: checked below
                continue
            pd = pointwise_defects(head, x[None, :], tau, [[ref["label"]]])
            naive = 1 - soft_weights(head, x[None, :], tau)[0, ref["label"]]
            assert math.isclose(np.exp(pd.log_weight[0, 0]), float(ref["weight"]), rel_tol=1e-10)
            assert math.isclose(np.exp(pd.log_output[0]), float(ref["output"]), rel_tol=1e-9)
            assert math.isclose(np.exp(pd.log_jacobian[0]), float(ref["jacobian"]), rel_tol=1e-9)
            if ref["weight"] > 1e-6:                          # naive 1 - p* keeps ~10 digits there
                assert math.isclose(naive, float(ref["weight"]), rel_tol=1e-8)


def test_reference_stays_positive_where_float64_underflows():
    head = ([[1, 0], [-1, 0], [0, 1]], [0, 0, -1], [[1, 0], [0, 1], [2, 2]])
    x = np.array([1.0, 0.25])                                 # label 0, margin 1.75 (over key 2)
    for tau in (1e-3, 1e-4):
        ref = reference_defects(head, x, tau, dps=30)
        naive = 1 - soft_weights(head, x[None, :], tau)[0, 0]
        pd = pointwise_defects(head, x[None, :], tau)
        assert naive == 0.0 and np.exp(pd.log_weight[0, 0]) == 0.0  # float64 underflows
        for k in ("weight", "output", "jacobian"):
            assert mpmath.isfinite(ref[k]) and ref[k] > 0
        assert math.isclose(pd.log_weight[0, 0], float(ref["log_weight"]), rel_tol=1e-12)
        assert math.isclose(pd.log_output[0], float(ref["log_output"]), rel_tol=1e-12)
        assert math.isclose(pd.log_jacobian[0], float(ref["log_jacobian"]), rel_tol=1e-12)
        # and the reference follows the exact margin law 1 - p* ~ e^{-Delta/tau}
        assert abs(float(ref["log_weight"]) + 1.75 / tau) < 1e-6


# ------------------------------------------------------------------ argmax is preserved
@settings(max_examples=30, deadline=None, derandomize=True)
@given(heads_strategy)
def test_soft_argmax_is_the_hard_label_at_every_tau(shape):
    seed, N, d, m = shape
    keys, offsets, values = random_head(seed, N, d, m)
    head = Head(keys, offsets, values)
    rng = np.random.default_rng(seed)
    X = rng.integers(-96, 97, (40, d)) / 32.0                 # dyadic: the floats are the rationals
    labels = []
    for x in X:
        labels.append(exact_label(keys, offsets, x))
        if labels[-1] >= 0:
            assert head.label([Fraction(v) for v in x]) == labels[-1]
    labels = np.array(labels)
    assert np.array_equal(hard_labels(head, X), labels)
    X, labels = X[labels >= 0], labels[labels >= 0]
    for tau in (1e-3, 0.1, 1.0, 10.0, 100.0):
        assert np.array_equal(np.argmax(soft_weights(head, X, tau), axis=1), labels)
        assert np.array_equal(np.argmax(log_soft_weights(head, X, tau), axis=1), labels)


def test_hard_labels_on_walls_are_ties():
    head = ([[1], [-1]], [0, 0])
    assert hard_labels(head, [[0.0], [2.0**-1000], [-(2.0**-1070)]]).tolist() == [-1, 0, 1]


# ------------------------------------------------------------------ δ-sampling
def test_delta_sampling_keeps_points_far_from_every_wall():
    keys, offsets, values = random_head(11, 6, 2, 1)
    head = Head(keys, offsets, values)
    delta = 0.3
    X, labels, dist, keep = sample_points(head, 3, 600, seed=2, delta=delta)
    assert keep.sum() > 50
    # three routes to the distance agree: all wall rows, diagram facets, exact.facets on the wall rows
    lab = labels[0, keep]
    d_walls = wall_distance(head, X[keep], lab)
    d_diagram = wall_distance(head, X[keep], lab, cell_walls(head))
    d_facets = wall_distance(head, X[keep], lab, cell_walls((keys, offsets), method="walls"))
    assert np.allclose(d_walls, d_diagram) and np.allclose(d_walls, d_facets)
    assert np.all(d_walls >= delta)
    # the δ-ball stays in the cell: points at radius 0.99 δ have the same exact label
    ring = 0.99 * delta * np.array([[np.cos(t), np.sin(t)] for t in np.linspace(0, 2 * np.pi, 16)])
    for x, j in zip(X[keep][:40], lab[:40]):
        assert np.all(hard_labels(head, x + ring) == j)
    # Delta >= delta * min_{j != j*} ||a_j - a_{j*}||
    h = head_arrays(head)
    assert np.all(margin(head, X[keep], lab) >= delta * h.key_gap[lab] * (1 - 1e-12))


def test_band_width_prediction_and_uniform_bounds():
    head = ([[1], [-1]], [0, 0], [[0], [1]])       # wall at 0, Delta = 2|x|
    eps = 1e-3
    for tau in (0.01, 0.1, 0.5):
        (row,) = measure(head, [tau], delta=0.0, box=(-4, 4), n_samples=4000, eps=eps, seed=1)
        exact_width = tau * math.log(1 / eps - 1) / 2   # defect 1/(1 + e^{2|x|/tau}) = eps
        assert row.band_width <= exact_width <= row.band_width_predicted
        assert row.band_width > 0.9 * exact_width       # the samples find the band
        assert math.isclose(row.fraction_below_eps, 1 - exact_width / 4, abs_tol=0.03)
    b = delta_region_bounds(head, 0.5, 1.0)
    assert math.isclose(b["weights"], math.exp(-4.0)) and math.isclose(b["output"], math.exp(-4.0))
    assert math.isclose(predicted_band_width(head, 0.1, eps), 0.1 * math.log(1000) / 2)


# ------------------------------------------------------------------ conventions
def test_standard_attention_is_tau_sqrt_dk_on_raw_scores():
    rng = np.random.default_rng(5)
    d, d_k, N = 3, 4, 5
    W_Q = rng.integers(-2, 3, (d_k, d))
    context_keys = rng.integers(-2, 3, (N, d_k))
    b_Q = rng.integers(-1, 2, d_k)
    keys, offsets, tau = raw_score_form(W_Q.tolist(), context_keys.tolist(), b_Q.tolist())
    x = rng.normal(size=d)
    q = W_Q @ x + b_Q
    logits = context_keys @ q / np.sqrt(d_k)
    standard = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert tau == standard_temperature(d_k) == 2.0
    assert np.allclose(soft_weights((keys, offsets), x, tau)[0], standard, rtol=1e-12)


def test_score_scale_is_read_like_head_soft():
    rng = np.random.default_rng(8)
    d, d_k, N = 2, 4, 5
    W_Q, W_K = rng.integers(-2, 3, (d_k, d)).tolist(), rng.integers(-2, 3, (d_k, 3)).tolist()
    W_V, context = rng.integers(-2, 3, (2, 3)).tolist(), rng.integers(-2, 3, (N, 3)).tolist()
    head = Head.from_weights(W_Q, W_K, W_V, None, context)      # score_scale = 1 / sqrt(d_k)
    X = rng.uniform(-2, 2, (50, d))
    V = np.asarray(head.values, dtype=float)
    for tau in (0.3, 1.0):
        # what Head.soft / Head.weights computed: softmax(score_scale * s(x) / tau), applied to the values
        plain = softmax(head.score_scale * scores(head, X) / tau)
        assert np.allclose(soft_output(head, X, tau), plain @ V, atol=1e-12)
        assert np.allclose(soft_weights(head, X, tau), plain, atol=1e-12)
    with pytest.raises(MovedError, match="soft_output"):
        head.soft(X, 1.0)
    with pytest.raises(MovedError, match="soft_weights"):
        head.weights(X, 1.0)
    # the same head in raw score form runs at tau = sqrt(d_k) for standard attention
    raw = (head.keys, head.offsets, head.values)
    assert np.allclose(soft_output(raw, X, standard_temperature(d_k)), soft_output(head, X, 1.0), atol=1e-12)
    rows = measure(head, [1.0], delta=0.05, box=2, n_samples=300)
    assert rows[0].output.ratio <= SLACK and rows[0].jacobian.ratio <= SLACK


def test_convention_example_paper_against_standard():
    c = compare_conventions(raw_margin=2.0, d_k=64)
    assert paper_temperature(64) == 0.125 and standard_temperature(64) == 8.0
    assert math.isclose(c.paper.e_exponent, math.exp(-16)) and c.sharpness == 64
    assert math.isclose(c.standard.e_exponent, math.exp(-0.25))
    # the two-key defect at each convention, measured on a real head with raw margin 2
    head = ([[1], [-1]], [0, 0])                   # raw scores +-x: margin 2 at x = 1
    for name in ("paper", "standard"):
        w = 1 - soft_weights(head, [[1.0]], getattr(c, name).tau)[0, 0]
        assert math.isclose(w, getattr(c, name).weight_defect, rel_tol=1e-8)
    assert c.standard.weight_defect / c.paper.weight_defect > 1e6


# ------------------------------------------------------------------ errors
def test_errors_are_clear():
    head = ([[1], [-1]],)
    with pytest.raises(InvalidInputError, match="temperature"):
        soft_weights(head, [[0.0]], 0.0)
    with pytest.raises(InvalidInputError, match="expected"):
        soft_weights(head, [[0.0, 1.0]], 1.0)
    with pytest.raises(InvalidInputError, match="lo < hi"):
        measure(head, [1.0], box=(1, -1))
    with pytest.raises(DegenerateInputError, match="tie everywhere"):
        measure(([[1], [1]], [0, 0]), [1.0])
    with pytest.raises(DegenerateInputError, match="lower delta"):
        measure(head, [1.0], delta=10.0, box=1, n_samples=50)


# ------------------------------------------------------------------ the one softmax and the float forward
def test_softmax_kernel_is_stable_and_agrees_with_scipy():
    special = pytest.importorskip("scipy.special")
    rng = np.random.default_rng(4)
    for shape, axis in (((7, 5), -1), ((3, 4, 6), 1), ((9,), 0)):
        Z = rng.normal(scale=300.0, size=shape)                 # e^Z overflows: the shift must happen first
        assert np.allclose(logsumexp(Z, axis=axis), special.logsumexp(Z, axis=axis), rtol=1e-13)
        assert np.allclose(softmax(Z, axis=axis), special.softmax(Z, axis=axis), rtol=1e-12, atol=1e-300)
        assert np.allclose(log_softmax(Z, axis=axis), special.log_softmax(Z, axis=axis), rtol=1e-12)
        assert np.allclose(softmax(Z, axis=axis).sum(axis=axis), 1.0)
    masked = np.array([[0.0, -np.inf, 1.0], [-np.inf, -np.inf, -np.inf]])
    assert np.array_equal(softmax(masked)[1], [0.0, 0.0, 0.0])      # a row without keys reads nothing
    assert logsumexp(masked)[1] == -np.inf and softmax(masked)[0, 1] == 0.0


def test_attend_is_the_float_forward():
    rng = np.random.default_rng(6)
    Q, K, V = rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 7, 3)), rng.normal(size=(2, 7, 4))
    S = np.einsum("hqd,hnd->hqn", Q, K) / np.sqrt(3)
    P = np.exp(S - S.max(axis=2, keepdims=True))
    P /= P.sum(axis=2, keepdims=True)
    out, scores_back = attend(Q, K, V, 1 / np.sqrt(3), return_scores=True)
    assert np.allclose(out, P @ V) and np.allclose(scores_back, S)
    assert np.allclose(attend(Q, K, V, 1 / np.sqrt(3), beta=2.0), softmax(2 * S) @ V)
    hard = attend(Q, K, V, 1 / np.sqrt(3), hard=True)
    assert np.allclose(hard, np.take_along_axis(V, S.argmax(axis=2)[..., None], axis=1))
    mask = np.triu(np.ones((5, 7), dtype=bool), 1)
    Sm = np.where(mask, -np.inf, S)
    assert np.allclose(attend(Q, K, V, 1 / np.sqrt(3), mask=mask), softmax(Sm) @ V)
