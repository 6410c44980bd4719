"""``PreparedPoints.of`` against the definition of each field, on every input path.

The hull kernels read ``max_abs`` and ``l1`` to size their float filters and ``P64`` to choose
the int64 path, so each field is checked against a plain-Python computation here (a mutation run
of ``PreparedPoints.*`` found most of ``of``'s mutants unseen by the predicate tests).
"""

from fractions import Fraction

import numpy as np
import pytest

from tropattn.exact._predicates import PreparedPoints

SAFE = 1 << 62

ROWS = [
    [(1, 2, 2), (3, 0, 1)],                                  # small, int64 path
    [(-5, 7, 3), (0, -1, 1), (4, 4, 9)],                     # negative entries
    [(SAFE // 3 - 1, 1, 1), (2, -3, 1)],                     # row sum near 2^62: the row-L1 fallback
    [(SAFE - 1, 0, 1), (-(SAFE - 1), 5, 2)],                 # int64 entries at the safe edge
    [(SAFE, 1, 1), (1, 1, 1)],                               # one entry reaches 2^62: no int64 copy
    [(-SAFE, 1, 1), (1, 1, 1)],                              # ... or -2^62
    [(10 ** 30, -(10 ** 29), 7), (-3, 2, 1)],                # beyond int64
    [(-(10 ** 400), 1, 3), (2, 10 ** 400, 1)],               # beyond the float range
]


def _expect(rows):
    max_abs = max(abs(v) for r in rows for v in r)
    l1 = max(sum(abs(v) for v in r) for r in rows)
    fits = max_abs < SAFE
    return max_abs, l1, fits


@pytest.mark.parametrize("rows", ROWS)
@pytest.mark.parametrize("as_array", [False, True])
def test_fields_match_their_definitions(rows, as_array):
    if as_array and max(abs(v) for r in rows for v in r) >= 1 << 63:
        pytest.skip("an int64 array cannot hold these rows")
    p = PreparedPoints.of(np.array(rows, dtype=np.int64) if as_array else rows)
    max_abs, l1, fits = _expect(rows)
    assert (p.max_abs, p.l1) == (max_abs, l1)
    assert [tuple(int(v) for v in r) for r in p.P] == rows
    assert type(p.P) is list and all(type(r) is tuple and all(type(v) is int for v in r) for r in p.P)
    assert p.Pa.dtype == object and p.Pa.tolist() == [list(r) for r in rows]
    if fits:
        assert p.P64 is not None and p.P64.dtype == np.int64 and p.P64.tolist() == [list(r) for r in rows]
    else:
        assert p.P64 is None
    expect_x = [[float(Fraction(v, r[-1])) if abs(Fraction(v, r[-1])) < 2.0 ** 1023 else
                 (np.inf if v > 0 else -np.inf) for v in r[:-1]] for r in rows]
    assert p.X.tolist() == expect_x


def test_random_rows_agree_with_the_definitions():
    rng = np.random.default_rng(11)
    for _ in range(200):
        m, n = int(rng.integers(1, 6)), int(rng.integers(1, 5))
        scale = 1 << int(rng.integers(0, 70))
        rows = [tuple(int(v) * scale // 7 for v in rng.integers(-50, 51, size=n)) + (int(rng.integers(1, 9)),)
                for _ in range(m)]
        p = PreparedPoints.of(rows)
        max_abs, l1, fits = _expect(rows)
        assert (p.max_abs, p.l1, p.P64 is not None) == (max_abs, l1, fits), rows
