"""Compare tropattn's enumeration with the reference brute force (used by tests/test_oracles.py)."""

from __future__ import annotations

from fractions import Fraction

from .reference import adjacency, brute_force, evaluate, load_model, pattern_at

__all__ = ["random_model_json", "compare", "reference_counts"]


def random_model_json(rnd, d, layers, heads, keys, units, residual=True, projection=False, dup=False):
    """A small random score-form model dict (integers and halves), ties = "first"."""
    def num():
        return rnd.choice([-2, -1, 0, 1, 2, "1/2", "-1/2"])

    def small():
        return rnd.choice([-1, 0, 1])

    out = []
    for _ in range(layers):
        hs = []
        for _ in range(heads):
            K = [[rnd.randint(-2, 2) for _ in range(d)] for _ in range(keys)]
            off = [num() for _ in range(keys)]
            if dup and keys > 1:
                K[-1], off[-1] = list(K[0]), off[0]
            V = [[small() for _ in range(d)] for _ in range(keys)]
            hs.append({"keys": K, "offsets": off, "values": V})
        L = {"residual": residual if isinstance(residual, bool) else rnd.random() < 0.7, "heads": hs}
        if projection:
            L["projection"] = [[small() for _ in range(d)] for _ in range(d)]
        if units:
            L["ffn"] = {"W1": [[small() for _ in range(d)] for _ in range(units)],
                        "b1": [small() for _ in range(units)],
                        "W2": [[small() for _ in range(units)] for _ in range(d)],
                        "b2": [small() for _ in range(d)]}
        out.append(L)
    return {"format": "tropattn.model/1", "dim": d, "ties": "first", "layers": out}


def axis_walls(rnd, obj):
    """Make every head's keys differ in one coordinate only: its walls are coordinate hyperplanes.

    A coordinate hyperplane of an earlier sub-layer is where the graph missed edges (issue 22):
    the facets' exact bounds of the constant coordinate are equal and were read as separating.
    """
    d = obj["dim"]
    for layer in obj["layers"]:
        for head in layer["heads"]:
            axis, first = rnd.randrange(d), head["keys"][0]
            head["keys"] = [[k[c] if c == axis else first[c] for c in range(d)] for k in head["keys"]]
    return obj


def compare(obj, result, box=None, edges=True):
    """Check a tropattn RegionSet against the reference for the model dict ``obj``.

    Returns a dict of findings: ``missing_edges`` / ``extra_edges`` (pattern pairs), and raises
    AssertionError on any other disagreement (counts, patterns, maps, interior points).
    """
    model = load_model(obj, box)
    ref = brute_force(model)
    regions = result.activation_regions
    pats = [r.pattern for r in regions]
    assert len(set(pats)) == len(pats), "a pattern listed twice"
    assert set(pats) == set(ref), (f"patterns differ: only tropattn {set(pats) - set(ref)}, "
                                   f"only reference {set(ref) - set(pats)}")
    assert result.n_activation == len(ref)
    for r in regions:
        x = r.interior_point
        assert pattern_at(model, x) == r.pattern, (x, r.pattern)
        rows, f = ref[r.pattern]
        assert all(sum((a * v for a, v in zip(row, x)), Fraction(0)) < b for row, b in rows), \
            ("tropattn's interior point is not strictly inside the reference polyhedron", r.pattern, x)
        assert tuple(map(tuple, r.map.M)) == f.M and tuple(r.map.c) == f.c, ("maps differ", r.pattern)
        assert evaluate(model, x) == f(x)
    found = {}
    if edges:
        ref_edges = adjacency(ref, model.dim)
        got = {frozenset((pats[i], pats[j])) for i, j in result.graph.edges}
        found["missing_edges"] = ref_edges - got
        found["extra_edges"] = got - ref_edges
    return found


def reference_counts(obj, box=None):
    """``(activation, linear)`` regions of the model dict ``obj`` by the reference alone.

    A linear region joins regions that share a facet (the reference's own adjacency) and have
    equal maps, transitively.
    """
    model = load_model(obj, box)
    ref = brute_force(model)
    parent = {p: p for p in ref}

    def find(p):
        while parent[p] != p:
            parent[p] = parent[parent[p]]
            p = parent[p]
        return p

    for edge in adjacency(ref, model.dim):
        p, q = tuple(edge)
        if ref[p][1].key() == ref[q][1].key():
            parent[find(p)] = find(q)
    return len(ref), len({find(p) for p in ref})
