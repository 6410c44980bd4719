"""Pulled-back scores through wide maps (one product per parent) against Fraction scores from the definition."""

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from tropattn.attention import Head, Layer
from tropattn.regions._affine import AffineMap
from tropattn.regions._steps import WIDE_MAP, AttentionStep, PulledBackScores

big = st.one_of(st.integers(-9, 9), st.integers(-2 ** 200, 2 ** 200))
rational = st.builds(Fraction, big, st.sampled_from([1, 3, 2 ** 70, 10 ** 30 + 7]))


@st.composite
def cases(draw):
    d = draw(st.sampled_from([WIDE_MAP - 1, WIDE_MAP, WIDE_MAP + 9]))      # both sides of the threshold
    heads = []
    for _ in range(draw(st.integers(1, 3))):
        n = draw(st.integers(2, 5))
        keys = [[draw(rational) for _ in range(d)] for _ in range(n)]
        if draw(st.booleans()):
            keys[-1] = list(keys[0])                                         # a repeated key
        heads.append(Head(keys, [draw(rational) for _ in range(n)]))
    M = [[draw(rational) for _ in range(2)] for _ in range(d)]
    c = [draw(rational) for _ in range(d)]
    X, D = (draw(st.integers(-50, 50)), draw(st.integers(-50, 50))), draw(st.integers(1, 9))
    return heads, M, c, X, D


def scores_at(head, M, c, x):
    """Every key's score at ``M x + c``, in Fractions (keys and offsets as given)."""
    y = [sum(Mij * xj for Mij, xj in zip(row, x)) + ci for row, ci in zip(M, c)]
    return [sum(Fraction(k) * v for k, v in zip(key, y)) + Fraction(b) for key, b in zip(head.keys, head.offsets)]


@settings(max_examples=25, deadline=None)
@given(cases())
def test_wide_and_narrow_pull_backs_are_the_scores(case):
    heads, M, c, X, D = case
    f = AffineMap(M, c)
    step = AttentionStep(Layer(heads), 0)
    pulled = step.pulled_back(f)
    assert step.pulled_back(f) is pulled                        # kept for the parent
    x = (Fraction(X[0], D), Fraction(X[1], D))
    Mi, ci, m = f._integers
    for head, scores in zip(heads, pulled):
        narrow = PulledBackScores(head, f)                      # key by key
        ref = scores_at(head, M, c, x)
        ratio = None
        for k in range(head.N):
            assert scores[k] == narrow[k]
            a, s = scores[k]
            value = Fraction(a[0] * X[0] + a[1] * X[1] + s * D)
            if ref[k] != 0 or value != 0:                       # one positive factor for every key
                r = value / ref[k] if ref[k] else None
                assert r is not None and r > 0 and (ratio is None or r == ratio)
                ratio = r
        best = max(ref)
        assert scores.argmax(X, D) == tuple(k for k, v in enumerate(ref) if v == best)
