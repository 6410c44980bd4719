"""The exercise checkers accept the answers, reject wrong ones, and agree with independent code."""

from hypothesis import given, settings, strategies as st

from tropattn.attention import grid_model, random_model, sawtooth_model
from tropattn.exercises import ANSWERS, check_hidden_head, check_lower_bound_model, check_weighted_edge
from tropattn.tropical import TropicalPolynomial


def test_answers_are_right():
    assert check_hidden_head(**ANSWERS["hidden_head"])
    assert check_lower_bound_model(**ANSWERS["lower_bound_model"])
    assert check_weighted_edge(**ANSWERS["weighted_edge"])


def test_wrong_answers_are_rejected_with_a_reason():
    v = check_hidden_head([[0], [1]], [0, 0])
    assert not v and "3 keys" in v.reason
    assert "repeated" in check_hidden_head([[0], [0], [1]], [0, -1, 0]).reason
    v = check_hidden_head([[0, 0], [2, 0], [1, 1]], [0, 0, -1])    # key 1 = (2, 0) is extreme: it has a cell
    assert not v and "wins around" in v.reason
    assert "layers" in check_lower_bound_model(grid_model(2, 2, 2), 2, 2, 2, 2).reason
    v = check_lower_bound_model(random_model(1, 1, 2, layers=2, seed=3), 1, 1, 2, 2)
    assert v.correct == ("right" in v.reason)
    assert "heads" in check_lower_bound_model(sawtooth_model(2, 2, 1), 2, 3, 2, 1).reason
    assert not check_weighted_edge("max(0, x, y)")
    assert not check_weighted_edge("max(0, x)")
    assert not check_weighted_edge("max(0, x")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=3, max_size=3, unique=True),
       st.lists(st.integers(-4, 4), min_size=3, max_size=3))
def test_hidden_head_checker_agrees_with_redundant_terms(keys, offsets):
    verdict = check_hidden_head([[k] for k in keys], offsets, head=1)
    redundant = TropicalPolynomial([[k] for k in keys], offsets).redundant_terms()
    assert verdict.correct == (redundant == (1,))
