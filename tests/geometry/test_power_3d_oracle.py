"""Power diagrams in R^2 and R^3 against an exact brute force that shares no code with tropattn.

The oracle (:mod:`oracles.reference`) decides, by Fourier-Motzkin elimination over Fractions,
whether a site's cell ``{x : (a_k - a_j) . x <= b_j - b_k}`` has interior points and whether two
cells share a facet.  The inputs are small and degenerate on purpose: sites on a coarse grid
(many cospherical and coplanar sets), equal weights, exact duplicates, and light sites that hide.
The counting path (:attr:`PowerDiagram.hidden`, :attr:`PowerDiagram.edges`), whichever kernel
answers, must be the oracle's; and the simplicial certificate, whenever it accepts a proposal,
must give exactly the oracle's upper hull, also for proposals that are not Qhull's.
"""

import itertools
from fractions import Fraction as F

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.reference import full_dimensional, shares_facet
from scipy.spatial import ConvexHull

from tropattn.exact import _lifted as lifted
from tropattn.geometry import PowerDiagram


def _offsets(sites, weights):
    return [(F(w) - sum(F(v) * F(v) for v in a)) / 2 for a, w in zip(sites, weights)]


def _rows(sites, b, j):
    """The bisector rows of site ``j``; an equal site that wins (larger offset, or equal and earlier) is
    no row but hides ``j``, an equal site that loses is no row at all."""
    rows, hidden = [], False
    for k in range(len(sites)):
        if k == j:
            continue
        if sites[k] == sites[j]:
            hidden |= b[k] > b[j] or (b[k] == b[j] and k < j)
            continue
        rows.append((tuple(F(u) - F(v) for u, v in zip(sites[k], sites[j])), b[j] - b[k]))
    return rows, hidden


def oracle(sites, weights):
    """``(hidden, edges)`` by brute force: Fourier-Motzkin on every cell and every pair of cells."""
    d, b = len(sites[0]), _offsets(sites, weights)
    rows = {}
    for j in range(len(sites)):
        r, dup = _rows(sites, b, j)
        if not dup and full_dimensional(r, d):
            rows[j] = r
    edges = [(j, k) for j, k in itertools.combinations(sorted(rows), 2) if shares_facet(rows[j], rows[k], d)]
    return tuple(j for j in range(len(sites)) if j not in rows), edges


@st.composite
def degenerate_diagrams(draw, d):
    """Up to 9 sites on the grid {0, 1, 2}^d (scaled by 1/2): duplicates, cospherical and coplanar
    sets everywhere; weights from a few values (ties), some very light (hidden sites)."""
    n = draw(st.integers(d + 1, 9))
    sites = draw(st.lists(st.tuples(*[st.integers(0, 2)] * d), min_size=n, max_size=n))
    sites = [[F(v, 2) for v in s] for s in sites]
    weights = draw(st.lists(st.sampled_from([0, 0, F(1, 4), F(1, 2), 1, -3]), min_size=n, max_size=n))
    return sites, weights


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([2, 3]).flatmap(degenerate_diagrams))
def test_counting_path_equals_the_brute_force(case):
    sites, weights = case
    pd = PowerDiagram(sites, weights)
    hidden, edges = oracle(sites, weights)
    assert pd.hidden == hidden
    assert pd.edges.tolist() == [list(e) for e in edges]


@settings(max_examples=40, deadline=None)
@given(st.integers(5, 9), st.integers(0, 10 ** 6), st.booleans())
def test_generic_3d_diagrams_equal_the_brute_force(n, seed, light):
    """Random dyadic sites (the simplicial kernel answers), some of them light enough to hide."""
    rng = np.random.default_rng(seed)
    sites = [[F(int(v), 8) for v in row] for row in rng.integers(-16, 17, size=(n, 3))]
    weights = [F(int(v), 4) - (40 if light and i % 3 == 0 else 0) for i, v in enumerate(rng.integers(0, 9, size=n))]
    pd = PowerDiagram(sites, weights)
    hidden, edges = oracle(sites, weights)
    assert pd.hidden == hidden and pd.edges.tolist() == [list(e) for e in edges]


def _upper(X, idx):
    qh = ConvexHull(X[idx])
    up = qh.equations[:, -2] > 0
    return np.asarray(idx)[qh.simplices[up]], qh.equations[up]


@settings(max_examples=60, deadline=None)
@given(st.integers(6, 10), st.integers(0, 10 ** 6), st.integers(0, 3))
def test_an_accepted_proposal_is_the_brute_force_hull(n, seed, drop):
    """Proposals that are Qhull's upper hull of the points without ``drop`` of them (a corner, an
    upper vertex, a hidden point: wrong unless the dropped points are hidden): whenever the
    certificate accepts one, its vertices are the oracle's nonhidden sites and its edges the
    oracle's."""
    rng = np.random.default_rng(seed)
    P = np.unique(rng.integers(-6, 7, size=(n, 3)), axis=0)
    n = len(P)
    if n < 5:
        return
    sites = [[F(int(v)) for v in p] for p in P]
    weights = [F(int(w)) for w in rng.integers(-20, 30, size=n)]
    b2 = [2 * v for v in _offsets(sites, weights)]                  # the lifted heights, as integers
    lifted_pts = [tuple(int(v) for v in p) + (int(h),) for p, h in zip(P, b2)]
    keep = sorted(rng.permutation(n)[drop:].tolist())

    def proposal(X, options=None):
        try:
            return _upper(np.asarray(X), keep)
        except Exception:                                            # flat subsets: no proposal
            return None

    hull = lifted._certified_upper_simplices(lifted_pts, 3, propose=proposal)
    if hull is None:
        return
    hidden, edges = oracle(sites, weights)
    S = hull.simplices
    assert sorted(set(S.ravel().tolist())) == [j for j in range(n) if j not in hidden]
    pairs = {tuple(sorted((int(s[a]), int(s[c])))) for s in S for a, c in itertools.combinations(range(4), 2)}
    assert sorted(pairs) == edges


@settings(max_examples=30, deadline=None)
@given(st.integers(12, 30), st.integers(0, 10 ** 6))
def test_a_proposal_with_a_notch_in_its_boundary_is_refused(n, seed):
    """Qhull's upper hull without one simplex that has a ridge on the boundary of ``conv{a_j}``: every
    point still lies on a kept simplex (or below it), the surface is still concave and covers once,
    but the projection is no longer convex.  Only the boundary ridges' lines, checked at every vertex
    of every boundary ridge (step 2), see the notch."""
    rng = np.random.default_rng(seed)
    P = np.unique(rng.integers(-20, 21, size=(n, 3)), axis=0)
    pts = [tuple(int(v) for v in p) + (int(h),) for p, h in zip(P, rng.integers(0, 60, size=len(P)))]
    honest = lifted.certified_upper_simplices(pts, 3)
    if honest is None:
        return
    S = honest.simplices
    on_boundary = {tuple(sorted(r)) for r in honest.ridges.tolist()}
    notch = [f for f, s in enumerate(S.tolist())
             if any(tuple(sorted(s[:i] + s[i + 1:])) in on_boundary for i in range(4))][:3]
    for f in notch:
        keep = np.delete(S, f, axis=0)
        if set(keep.ravel().tolist()) != set(S.ravel().tolist()):
            continue                                                 # a vertex would go missing: other checks
        E = np.zeros((len(keep), 5))
        E[:, 3] = 1.0                                                # "upper"; the certificate reads no more

        def proposal(X, options=None, keep=keep, E=E):
            return keep, E

        assert lifted._certified_upper_simplices(pts, 3, propose=proposal) is None


@st.composite
def score_inputs(draw):
    """Up to 12 sites in R^1..R^3 from a pool of 4 (so duplicates come up), rationals of small to huge
    numerators and denominators (int64 scores and Python-int ones), weights with ties."""
    d = draw(st.integers(1, 3))
    den = st.sampled_from([1, 3, 7, 1 << 20, 1 << 40])
    big = 3 ** draw(st.integers(1, 45))                             # scores on both sides of 2^62
    q = st.builds(F, st.integers(-big, big), den)
    pool = draw(st.lists(st.lists(q, min_size=d, max_size=d), min_size=1, max_size=4))
    n = draw(st.integers(1, 12))
    sites = [list(draw(st.sampled_from(pool))) for _ in range(n)]
    weights = draw(st.lists(st.sampled_from([F(0), F(1, 3), F(-5, 7), F(big), F(big * big)]), min_size=n, max_size=n))
    return sites, weights


@settings(max_examples=150, deadline=None)
@given(score_inputs())
def test_integer_scores_and_duplicates_equal_the_fraction_formulas(case):
    """The integer scores (int64 when they fit, Python ints else) are ``L a_j`` and ``L b_j`` with
    ``b_j = (w_j - ||a_j||^2) / 2``, for one ``L > 0``; a duplicate is hidden by the equal site of the
    largest offset, then the first index."""
    sites, weights = case
    pd = PowerDiagram(sites, weights)
    A, B, L = pd._int_scores()
    b = _offsets(sites, weights)
    assert L > 0
    assert [list(r) for r in A] == [[v * L for v in a] for a in sites]
    assert B == [v * L for v in b]
    best = {}
    for j, a in enumerate(map(tuple, sites)):
        if a not in best or b[j] > b[best[a]]:
            best[a] = j
    assert pd.duplicates == {j: best[tuple(a)] for j, a in enumerate(sites) if best[tuple(a)] != j}
