"""The local certificate checks its rows: each must vanish exactly at the points of its simplices.

The rows come from modular or float-checked minors; the local certificate used to take them
on trust, and with a broken zero-pivot branch of the modular elimination it accepted a wrong
facet (only the global certificate, which tests every point against every row, refused it).
Here wrong rows are handed to the certificate (``_certify_boundary(..., normals=...)``) -- a
tilted row for two simplices of a cube, a facet row given to the wrong simplex -- and it must
refuse them (counted as ``declined`` at ``"hull.local_rows"``); hulls of inputs with zero
pivots must equal a brute-force oracle.  The oracle shares no code with tropattn.exact: Fractions and cross products, in 3-D.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from tropattn import config
from tropattn.exact._counters import counting
from tropattn.exact._hull import _boundary
from tropattn.exact._hull._boundary import _certify_boundary
from tropattn.exact._hull._qhull import qhull_simplices
from tropattn.exact._predicates import PreparedPoints
from tropattn.geometry import convex_hull

FIRST_PRIME = 536870909  # the first modulus of modular_minors: denominators divisible by it are zero pivots
LOCAL = {"hull_local_entries": 0, "hull_inside_filter_entries": -1}  # the local certificate, always
PLACE = "declined:hull.local_rows"


# ------------------------------------------------------------------ an oracle of its own
def oracle_facets(points):
    """``{(normal, offset)}`` with ``normal . x <= offset`` and a primitive integer normal, for
    full-dimensional points of R^3: every plane through three points with all points on one side."""
    pts = [tuple(map(Fraction, p)) for p in dict.fromkeys(points)]
    out = set()
    for a, b, c in itertools.combinations(pts, 3):
        u = [y - x for x, y in zip(a, b)]
        v = [y - x for x, y in zip(a, c)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        if not any(n):
            continue
        side = [sum(x * y for x, y in zip(n, p)) - sum(x * y for x, y in zip(n, a)) for p in pts]
        if all(s >= 0 for s in side):
            n = [-x for x in n]
        elif not all(s <= 0 for s in side):
            continue
        den = math.lcm(*(x.denominator for x in n))
        ints = [int(x * den) for x in n]
        g = math.gcd(*ints)
        ints = tuple(x // g for x in ints)
        out.add((ints, sum(x * y for x, y in zip(ints, a))))
    return out


def zero_pivot_points():
    """A tetrahedron (one point repeated) whose denominators send a pivot to zero modulo the first prime."""
    F = Fraction
    return [(F(1), F(0), F(1)), (F(1, FIRST_PRIME), F(-1, 4096), F(0)), (F(0), F(0), F(0)), (F(0), F(0), F(0)),
            (F(1, 4096), F(0), F(0))]


# ------------------------------------------------------------------ planted rows
def test_zero_pivot_points_are_certified():
    """A tetrahedron whose denominators send a modular pivot to zero: the local certificate proves it."""
    pts = zero_pivot_points()
    with config.override(**LOCAL), counting() as c:
        P = convex_hull(pts)
    assert set(P.facets) == oracle_facets(pts)
    assert c.certified == 1 and c.fallbacks == 0 and c.by_place[PLACE] == 0


#: Tetrahedra found by a random search (seed 0, 300 clouds) on which the local certificate, without
#: check 0 and with zero residues planted in the zero-pivot branch of the modular elimination,
#: accepted a wrong facet (3 of 300): each coordinate (numerator, denominator).
FOOLED = [
    [((-193, 230), (0, 1), (-66439504, 536870909)), ((378762912, 536870909), (-1006, 3413), (-4252, 5565)),
     ((-11398, 14387), (1, 1), (-2527, 4096)), ((-1523, 1589), (1, 1), (795235891, 1073741818))],
    [((-199, 3185), (-121, 3249), (7607, 10787)), ((281, 649), (-1, 1), (1153, 13379)),
     ((-63, 256), (406823976, 536870909), (-19, 350)), ((2209, 14405), (42808760, 536870909), (0, 1))],
    [((-1, 2), (1, 1), (-911, 2381)), ((665, 1024), (204675627, 536870909), (-377, 698)),
     ((1405, 7894), (-431, 1024), (404365234, 536870909)), ((-395, 999), (5495, 6673), (4282, 10123))],
]


@pytest.mark.parametrize("cloud", range(len(FOOLED)))
@pytest.mark.parametrize("knobs", [LOCAL, {}], ids=["local", "default"])
def test_tetrahedra_with_zero_pivots_match_the_oracle(cloud, knobs):
    pts = [tuple(Fraction(a, b) for a, b in p) for p in FOOLED[cloud]]
    want = oracle_facets(pts)
    with config.override(**knobs):
        P = convex_hull(pts)
    assert set(P.facets) == want and len(want) == 4


def _claim(pts):
    """The cube's points prepared, Qhull's triangulation of its boundary and the true rows of its simplices."""
    prepared = PreparedPoints.of([p + (1,) for p in pts])
    simplices = qhull_simplices(prepared.X_scaled, "Qt")[0]
    raw, floats = _boundary._primitive_normals(prepared, simplices)
    return prepared, simplices, raw.copy(), floats


def _cube():
    return [tuple(c) for c in itertools.product([0, 1], repeat=3)]


def _tilted(pts, raw, simplices):
    """The row ``x + z <= 2`` (a supporting plane through the edge b = (1, 0, 1), c = (1, 1, 1),
    not the plane of either triangle holding that edge) for both triangles on the edge, with the
    orientation of their true normals; the other simplices keep their true rows."""
    b, c = pts.index((1, 0, 1)), pts.index((1, 1, 1))
    inner = np.array([1, 1, 1, 2])  # the centre, homogeneous
    for s in np.flatnonzero(np.isin(simplices, [b, c]).sum(axis=1) == 2):
        outward = 1 if int(np.dot(raw[s].astype(object), inner)) < 0 else -1
        raw[s] = [outward * v for v in (1, 0, 1, -2)]
    return raw


@pytest.mark.parametrize("knobs", [LOCAL, {}], ids=["local", "default"])
def test_a_tilted_row_is_refused(knobs):
    """Without check 0 the local certificate accepts 7 'facets' of the cube, ``x + z <= 2`` among them:
    the tilted row supports the cube, every ridge is convex, and the ray through a triangle of
    the fewest-simplex row (``z <= 1`` or ``x <= 1``, now one triangle each) meets nothing else.
    The global certificate refuses it as well."""
    pts = _cube()
    prepared, simplices, raw, _ = _claim(pts)
    assert _certify_boundary(prepared, simplices, (1, 1, 1, 2))[0] is not None           # the true rows pass
    planted = _tilted(pts, raw, simplices)
    with config.override(**knobs), counting() as c:
        assert _certify_boundary(prepared, simplices, (1, 1, 1, 2), normals=(planted, None)) == (None, None, None)
    if knobs:
        assert c.by_place[PLACE] == 1          # refused by check 0, not by luck further on


@pytest.mark.parametrize("knobs", [LOCAL, {}], ids=["local", "default"])
def test_a_row_given_to_the_wrong_simplex_is_refused(knobs):
    """A simplex handed the row of another facet (what a broken modular branch produces: a true facet
    row, the wrong simplex) is refused; every row is still a true facet of the cube."""
    pts = _cube()
    prepared, simplices, raw, _ = _claim(pts)
    for s in range(1, len(simplices)):
        if tuple(raw[s]) != tuple(raw[0]):
            break
    raw[0] = raw[s]
    with config.override(**knobs):
        assert _certify_boundary(prepared, simplices, (1, 1, 1, 2), normals=(raw, None)) == (None, None, None)


# ------------------------------------------------------------------ check 0 itself, on each integer path
def _triangle(scale):
    return PreparedPoints.of([(0, 0, 1), (scale, 0, 1), (0, scale, 1)])


@pytest.mark.parametrize("scale, rows_dtype", [(1, np.int64), (2 ** 40, np.int64), (2 ** 40, object),
                                               (2 ** 70, object)], ids=["int64", "wrapped", "object", "huge"])
def test_rows_vanish_exactly_or_not(scale, rows_dtype):
    """int64 (bound proved), wrapped int64 images (products beyond 2^62), Python integers
    (object rows; points beyond int64): right rows pass, a row off by one in one entry or
    given to the wrong edge fails, and so does a zero row."""
    from tropattn.exact._hull._local import rows_vanish_on_simplices

    pts = _triangle(scale)
    edges = np.array([[0, 1], [1, 2], [2, 0]])
    U = np.array([[0, -1, 0], [1, 1, -scale], [-1, 0, 0]], dtype=object).astype(rows_dtype)
    assert rows_vanish_on_simplices(pts, edges, U, np.arange(3))
    off = U.copy()
    off[1, 2] += 1
    assert not rows_vanish_on_simplices(pts, edges, off, np.arange(3))
    assert not rows_vanish_on_simplices(pts, edges, U, np.array([0, 1, 1]))
    zero = U.copy()
    zero[2] = 0
    assert not rows_vanish_on_simplices(pts, edges, zero, np.arange(3))
