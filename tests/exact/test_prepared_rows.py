"""``exact.PreparedRows``: a fixed integer matrix for many exact signs, against Python integer sums."""

from hypothesis import given, settings, strategies as st

from tropattn.exact import PreparedRows

_big = st.one_of(st.integers(-9, 9), st.integers(-(2 ** 200), 2 ** 200),
                 st.builds(lambda m, e: m << e, st.integers(-(2 ** 53), 2 ** 53), st.integers(0, 700)))


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(1, 4), r=st.integers(1, 6), c=st.integers(1, 4))
def test_signs_of_rows_and_of_taken_rows_are_the_integer_signs(data, n, r, c):
    R = [[data.draw(_big) for _ in range(n)] for _ in range(r)]
    C = [[data.draw(_big) for _ in range(n)] for _ in range(c)]
    if data.draw(st.booleans()):               # a cancelling row: exactly zero against the first column
        R[0] = [C[0][1], -C[0][0]] + [0] * (n - 2) if n >= 2 else [0]
    sign = lambda v: (v > 0) - (v < 0)          # noqa: E731
    want = [[sign(sum(a * b for a, b in zip(row, col))) for col in C] for row in R]
    rows = PreparedRows(R)
    assert rows.signs(C).tolist() == want
    subset = data.draw(st.lists(st.integers(0, r - 1), min_size=1, max_size=r))
    assert rows.take(subset).signs(C).tolist() == [want[i] for i in subset]
    assert rows.signs(C, subset).tolist() == [want[i] for i in subset]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), n=st.integers(2, 40), r=st.integers(1, 30), c=st.integers(1, 6))
def test_long_rows_against_columns_of_very_different_sizes(data, n, r, c):
    """Homogeneous points whose coordinates differ by 2^0 ... 2^600 from one column to the next
    (a parent polygon's vertices in a deep slice), against rows of weights; some values cancel."""
    R = [[data.draw(st.integers(-(2 ** 40), 2 ** 40)) for _ in range(n)] for _ in range(r)]
    C = []
    for _ in range(c):
        scale = 1 << data.draw(st.integers(0, 600))
        C.append([data.draw(st.integers(-(2 ** 30), 2 ** 30)) * scale for _ in range(n - 1)]
                 + [data.draw(st.integers(1, 2 ** 30)) * scale])
    if r > 1:                           # a row that vanishes at the first point: exactly zero there
        R[1] = [C[0][1], -C[0][0]] + [0] * (n - 2)
    sign = lambda v: (v > 0) - (v < 0)          # noqa: E731
    want = [[sign(sum(a * b for a, b in zip(row, col))) for col in C] for row in R]
    assert PreparedRows(R).signs(C).tolist() == want


@settings(max_examples=100, deadline=None)
@given(x=st.integers(1, 2 ** 30), y=st.integers(1, 2 ** 30), p=st.integers(2 ** 69, 2 ** 70),
       q=st.integers(2 ** 69, 2 ** 70), one=st.sampled_from([-1, 1]), scale=st.integers(0, 300))
def test_a_value_of_one_under_products_of_two_to_the_hundred(x, y, p, q, one, scale):
    """``r . c = +-1`` while the products are near 2^100: the float sum is rounding noise, so only
    a bound that covers it gives the right sign (a bound too small by any factor decides noise)."""
    rows = PreparedRows([[p, q, one - p * x - q * y], [1, 1, 1]])
    assert rows.signs([[x << scale, y << scale, 1 << scale]]).tolist() == [[one], [1]]
