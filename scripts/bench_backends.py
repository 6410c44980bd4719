"""Benchmark: which rational backend for tropattn's exact kernels?

The exact work in tropattn is many *small* problems: a strictness check of one
rational point against ~10-50 rows, and exact solves of 3x3 to 6x6 systems (facet
points, redundancy certificates).  This compares, in one run, on the same inputs:

* ``ints``   -- what tropattn uses: rows as primitive Python integers, points as
  integer numerators over one denominator, fraction-free elimination;
* ``Fraction`` -- ``fractions.Fraction`` arithmetic;
* ``mpq``    -- ``gmpy2.mpq`` (when installed);
* ``flint``  -- ``flint.fmpq_mat.solve`` / ``fmpz`` dot products (when installed);
* ``sympy``  -- ``sympy.Matrix.LUsolve`` (the baseline the brief names).

    python scripts/bench_backends.py
"""

from __future__ import annotations

import random
from fractions import Fraction

from benchlib import best_of

from tropattn.exact import homogeneous_point, integer_row, solve


def instances(seed=0, count=300, dim=4, rows=30):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        A = [[Fraction(rng.randint(-50, 50), rng.randint(1, 9)) for _ in range(dim)] for _ in range(rows)]
        b = [Fraction(rng.randint(1, 500), rng.randint(1, 9)) for _ in range(rows)]
        x = [Fraction(rng.randint(-5, 5), rng.randint(1, 50)) for _ in range(dim)]
        out.append((A, b, x))
    return out


def check_ints(data):
    rows = [[integer_row(list(a) + [bi]) for a, bi in zip(A, b)] for A, b, _ in data]
    pts = [homogeneous_point(x) for _, _, x in data]

    def run():
        return sum(all(sum(r * v for r, v in zip(row, X)) < row[-1] * D for row in R)
                   for R, (X, D) in zip(rows, pts))
    return run


def check_fraction(data):
    def run():
        return sum(all(sum(a * v for a, v in zip(row, x)) < bi for row, bi in zip(A, b)) for A, b, x in data)
    return run


def check_mpq(data):
    import gmpy2

    conv = [([[gmpy2.mpq(v.numerator, v.denominator) for v in row] for row in A],
             [gmpy2.mpq(v.numerator, v.denominator) for v in b],
             [gmpy2.mpq(v.numerator, v.denominator) for v in x]) for A, b, x in data]

    def run():
        return sum(all(sum(a * v for a, v in zip(row, x)) < bi for row, bi in zip(A, b)) for A, b, x in conv)
    return run


def solve_ints(systems):
    return lambda: [solve(M, r) for M, r in systems]


def solve_flint(systems, convert=False):
    import flint

    def to_flint(M, r):
        return (flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in row] for row in M]),
                flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in r]))

    if convert:  # what tropattn would pay: Fractions in, Fractions out
        def run():
            out = []
            for M, r in systems:
                x = to_flint(M, r)[0].solve(to_flint(M, r)[1])
                out.append(tuple(Fraction(int(v.p), int(v.q)) for v in x.entries()))
            return out
        return run
    conv = [to_flint(M, r) for M, r in systems]
    return lambda: [M.solve(r) for M, r in conv]


def solve_sympy(systems):
    import sympy

    conv = [(sympy.Matrix(M), sympy.Matrix(r)) for M, r in systems]
    return lambda: [M.LUsolve(r) for M, r in conv]


def main():
    data = instances()
    print("== strictness of a rational point against 30 rows in R^4 (300 instances) ==")
    base, n0 = best_of(check_ints(data), 5)
    print(f"  ints (tropattn)  {base * 1e3:8.2f} ms")
    for name, make in (("Fraction", check_fraction), ("gmpy2.mpq", check_mpq)):
        try:
            t, n = best_of(make(data), 5)
        except ImportError:
            print(f"  {name:<16} not installed")
            continue
        assert n == n0
        print(f"  {name:<16} {t * 1e3:8.2f} ms   ({t / base:5.1f}x the ints time; conversion excluded)")
    for dim in (3, 5):
        systems = [([row[:dim] for row in A[:dim]], b[:dim]) for A, b, _ in instances(1, 300, dim, dim)]
        print(f"== exact solve of {len(systems)} random {dim}x{dim} rational systems ==")
        base, ref = best_of(solve_ints(systems), 3)
        print(f"  ints (tropattn)  {base * 1e3:8.2f} ms")
        flint_converting = lambda systems: solve_flint(systems, convert=True)  # noqa: E731
        for name, make in (("flint.fmpq_mat", solve_flint), ("flint + convert", flint_converting),
                           ("sympy.Matrix", solve_sympy)):
            try:
                t, _ = best_of(make(systems), 1 if name.startswith("sympy") else 3)
            except ImportError:
                print(f"  {name:<16} not installed")
                continue
            note = "conversion included" if "convert" in name else "conversion excluded"
            print(f"  {name:<16} {t * 1e3:8.2f} ms   ({t / base:5.2f}x the ints time; {note})")


if __name__ == "__main__":
    main()
