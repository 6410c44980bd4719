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
