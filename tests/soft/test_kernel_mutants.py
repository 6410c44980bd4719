"""The soft kernel where mutation testing found it unwatched (scripts/mutation.py soft).

Each test compares with a softmax written out here (numpy, no tropattn code): the scale and
its default in ``attend``, one-key heads (margin ``inf``, weight defect 0), caller-given labels
that are not the float argmax, and inputs longer than one vectorised block.
"""

import numpy as np
import pytest

from tropattn import config
from tropattn.errors import InvalidInputError
from tropattn.soft import (attend, log_softmax, logsumexp, margin, pointwise_defects, soft_jacobian, soft_output,
                           soft_weights, softmax as ta_softmax)


def softmax(Z):
    Z = Z - Z.max(axis=-1, keepdims=True)
    E = np.exp(Z)
    return E / E.sum(axis=-1, keepdims=True)


Q = np.array([[1.0, 0.0], [0.0, 1.0], [0.5, -0.5]])
K = np.array([[1.0, 1.0], [2.0, -1.0], [0.0, 0.5]])
V = np.array([[1.0, 0.0, 2.0], [0.0, 1.0, -1.0], [3.0, 1.0, 0.0]])


@pytest.mark.parametrize("scale", [None, 1.0, 2.0, 0.25])
def test_attend_scales_the_scores(scale):
    out = attend(Q, K, V) if scale is None else attend(Q, K, V, scale)
    expected = softmax((1.0 if scale is None else scale) * Q @ K.T) @ V
    np.testing.assert_allclose(out, expected, rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("beta", [1.0, 3.0])
def test_attend_returns_the_scaled_scores_and_leaves_the_inputs(beta):
    Qc, Kc = Q.copy(), K.copy()
    out, S = attend(Q, K, V, 2.0, beta=beta, return_scores=True)
    np.testing.assert_allclose(S, 2.0 * Q @ K.T, rtol=1e-14)
    np.testing.assert_allclose(out, softmax(beta * 2.0 * Q @ K.T) @ V, rtol=1e-13)
    assert (Q == Qc).all() and (K == Kc).all()


ONE_KEY = ([[1.0, -2.0]], [0.5], [[3.0, 1.0]])
X = np.array([[0.0, 0.0], [1.0, 2.0], [-3.0, 0.5]])


def test_a_one_key_head_has_infinite_margin_and_no_defect():
    assert margin(ONE_KEY, X).tolist() == [np.inf] * 3
    pd = pointwise_defects(ONE_KEY, X, 0.5)
    assert pd.margin.shape == (1, 3) and pd.margin.dtype == float and np.all(pd.margin == np.inf)
    assert np.all(pd.log_weight == -np.inf) and pd.labels.tolist() == [[0, 0, 0]]
    np.testing.assert_array_equal(soft_output(ONE_KEY, X, 0.5), [[3.0, 1.0]] * 3)
    np.testing.assert_array_equal(soft_jacobian(ONE_KEY, X, 0.5), np.zeros((3, 2, 2)))


def test_labels_given_by_the_caller_are_used_not_the_argmax():
    keys, offsets = np.array([[1.0], [-1.0]]), np.array([0.0, 0.0])
    x = np.array([[0.3], [-2.0]])                           # key 0 wins at 0.3, key 1 at -2
    labels = np.array([[1, 0]])                             # the losers, as a caller may ask
    pd = pointwise_defects((keys.tolist(), offsets.tolist()), x, 0.5, labels)
    p = softmax((x @ keys.T + offsets) / 0.5)
    assert pd.labels.tolist() == [[1, 0]]
    np.testing.assert_allclose(pd.log_weight[0], np.log(1 - p[[0, 1], [1, 0]]), rtol=1e-12)
    np.testing.assert_allclose(pd.margin[0], [-0.6, -4.0], rtol=1e-12)


def test_more_points_than_one_block_are_all_computed():
    rng = np.random.default_rng(3)
    keys, offsets, values = rng.normal(size=(4, 2)), rng.normal(size=4), rng.normal(size=(4, 3))
    head = (keys.tolist(), offsets.tolist(), values.tolist())
    X = rng.normal(size=(11, 2))
    expected = softmax((X @ keys.T + offsets) / 0.7) @ values
    with config.override(soft_block_points=4):            # three blocks: 4 + 4 + 3 points
        out = soft_output(head, X, 0.7)
        jac = soft_jacobian(head, X, 0.7)
    np.testing.assert_allclose(out, expected, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(jac, soft_jacobian(head, X, 0.7), rtol=1e-12, atol=1e-13)
    P = softmax((X @ keys.T + offsets) / 0.7)               # J = (1/tau) sum_j p_j (v_j - y)(a_j - abar)^T
    y, abar = P @ values, P @ keys
    J = np.einsum("nj,njm,njd->nmd", P, values[None] - y[:, None], keys[None] - abar[:, None]) / 0.7
    np.testing.assert_allclose(jac, J, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("labels", [[-1, 0], [0, -1], [2, 0], [0, 7], [-1, 2]])
def test_labels_outside_the_keys_are_refused(labels):
    head = ([[1.0], [-1.0]], [0.0, 0.0])
    x = [[0.3], [-2.0]]
    with pytest.raises(InvalidInputError, match="label"):
        pointwise_defects(head, x, 0.5, [labels])
    with pytest.raises(InvalidInputError, match="label"):
        margin(head, x, labels)


def test_labels_of_the_wrong_length_are_refused():
    with pytest.raises(InvalidInputError, match="label"):
        margin(([[1.0], [-1.0]], [0.0, 0.0]), [[0.3], [-2.0]], [0, 1, 0])


TAU_ZERO = ("tau = 0; the temperature must be a finite number > 0 (tau -> 0 is the hard skeleton: use the head's "
            "label/hard instead)")
TAU_SMALL = ("tau = 1e-10 is below 1e-09: margins/tau then exceed what float64 log-space can resolve, so "
             "measured/bound ratios would be noise. Use reference_defects (mpmath) at single points, or rescale "
             "the scores")
BAD_LABELS = ("labels must be one key index in range(N) per point (ties, labelled -1, have no margin); "
              "drop tied points first")


def test_the_messages_name_tau_and_say_what_to_do():
    head = ([[1.0], [-1.0]],)
    for tau, message in ((0, TAU_ZERO), (1e-10, TAU_SMALL)):
        with pytest.raises(InvalidInputError) as info:
            soft_weights(head, [[0.5]], tau)
        assert str(info.value) == message
    with pytest.raises(InvalidInputError) as info:
        margin(head, [[0.5]], [-1])
    assert str(info.value) == BAD_LABELS
    assert soft_weights(head, [[0.5]], 1e-9).tolist() == [[1.0, 0.0]]   # the smallest tau allowed


@pytest.mark.parametrize("top", [0.0, 1000.0, -1000.0])
def test_rows_of_minus_infinity_beside_ordinary_rows(top):
    """A row of only -inf has weights 0 and log-sum-exp -inf; the other rows are unchanged by it."""
    Z = np.array([[top, top], [-np.inf, -np.inf], [top, top - np.log(3.0)]])
    np.testing.assert_allclose(ta_softmax(Z), [[0.5, 0.5], [0.0, 0.0], [0.75, 0.25]], rtol=1e-12)
    np.testing.assert_allclose(logsumexp(Z), [top + np.log(2.0), -np.inf, top + np.log(4.0 / 3.0)], rtol=1e-12)
    np.testing.assert_allclose(log_softmax(Z[[0, 2]]), np.log([[0.5, 0.5], [0.75, 0.25]]), rtol=1e-12)
