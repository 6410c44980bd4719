"""Magnitudes 1e-400 ... 1e400 (exact strings, Fractions, floats at the edge) in every kernel: no traceback, exact answers.

The float kernels (planar and simplicial upper hulls, the batched facets, the float
vertices of wall facets) may only decline for such numbers; the exact path answers.
"""

import json
from fractions import Fraction as F

from hypothesis import HealthCheck, given, settings, strategies as st

from tropattn import upper_hull
from tropattn.cli import main
from tropattn.io import model_from_json
from tropattn.regions import enumerate_regions

A_KEYS = [[1, -7], [0, 0], [0, "-1e200"], [4, 1]]
A_OFFSETS = [-1, 4, 0, 0]


def _cli(tmp_path, capsys, args, obj):
    path = tmp_path / "in.json"
    path.write_text(json.dumps(obj))
    capsys.readouterr()
    code = main([*args[:1], str(path), *args[1:]])
    out, err = capsys.readouterr()
    assert code == 0 and "Traceback" not in err, err
    return json.loads(out)


def test_planar_hull_far_apart_sites_issue_22a(tmp_path, capsys):
    hull = upper_hull([[1, -7, -1], [0, 0, 4], [0, "-1e200", 0], [4, 1, 0]])
    assert hull.vertices == (1, 2, 3)
    obj = {"format": "tropattn.model/1", "dim": 2, "layers": [{"heads": [{"keys": A_KEYS, "offsets": A_OFFSETS}]}]}
    for extra in ([], ["--method", "dual"]):
        out = _cli(tmp_path, capsys, ["count", "--json", "--progress", "never", *extra], obj)
        assert out["activation_regions"] == 3
    out = _cli(tmp_path, capsys, ["power", "--json"], {"sites": A_KEYS, "weights": [48, 8, "1e400", 17]})
    assert out["hidden"] == [0] and len(out["nonempty"]) == 3


def test_tiny_key_beside_three_with_a_relu_in_3d_issue_22b():
    obj = {"format": "tropattn.model/1", "dim": 3, "ties": "first", "layers": [{
        "residual": True, "heads": [{"keys": [[3, 1e-300, 1e-300], [-3, 1, 1e-300]],
                                     "values": [[0, -1, 0], [0, 1, 1]]}],
        "ffn": {"W1": [[1, -1, 0]], "b1": [0], "W2": [[1], [1], [-1]], "b2": [0, 0, 0]}}]}
    res = enumerate_regions(model_from_json(obj))
    assert res.n_activation >= 2


MAG = st.sampled_from(["1e-400", "-1e-400", "1e400", "-1e400", "1e-300", "1e200", "-1e200", 1e-300, 5e-324,
                       1.7976931348623157e308, str(F(1, 3 ** 200)), "3/" + "7" * 40])
NUM = st.one_of(st.integers(-3, 3), st.integers(-3, 3), MAG)


@settings(max_examples=30, deadline=None)
@given(d=st.integers(1, 3), n=st.integers(2, 5), data=st.data())
def test_upper_hull_kernels_with_extreme_magnitudes(d, n, data):
    pts = [[data.draw(NUM) for _ in range(d + 1)] for _ in range(n)]
    try:
        fast = upper_hull(pts)
    except Exception as e:                 # only a clear refusal (distinct projections needed, ...)
        assert type(e).__module__.startswith("tropattn"), repr(e)
        return
    assert fast.vertices == upper_hull(pts, method="exact").vertices


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(d=st.integers(1, 3), data=st.data())
def test_search_with_ffn_and_extreme_magnitudes(d, data):
    keys = [[data.draw(NUM) for _ in range(d)] for _ in range(data.draw(st.integers(2, 3)))]
    obj = {"format": "tropattn.model/1", "dim": d, "ties": "first", "layers": [{
        "residual": True, "heads": [{"keys": keys, "values": [[data.draw(st.integers(-1, 1)) for _ in range(d)]
                                                              for _ in keys]}],
        "ffn": {"W1": [[data.draw(st.integers(-1, 1)) for _ in range(d)]], "b1": [data.draw(st.integers(-1, 1))],
                "W2": [[data.draw(st.integers(-1, 1))] for _ in range(d)], "b2": [0] * d}}]}
    res = enumerate_regions(model_from_json(obj))
    assert res.n_activation >= 1
    assert len(res.graph.edges) >= res.n_activation - 1     # the regions tile R^d: the graph is connected
