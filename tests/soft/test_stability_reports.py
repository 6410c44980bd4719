"""The soft-attention reports of the command line (tropattn.cli._stability): JSON-ready dicts."""

import json
import math

from test_soft import SLACK, random_head

from tropattn.attention import Head
from tropattn.cli._stability import convention_check, stability_report
from tropattn.soft import compare_conventions


def test_stability_report_is_json_ready_for_heads_and_layers():
    heads = [Head(*random_head(s, 3, 2, 2)) for s in (4, 5)]
    for model in (heads[0], heads):
        rep = stability_report(model, taus=[0.05, 0.2, 1.0], box=(-2, 2), n_samples=400)
        json.dumps(rep, allow_nan=False)
        assert rep["within_bounds"] and len(rep["rows"]) == 3
        for r in rep["rows"]:
            assert {"tau", "max_defect", "bound", "ratio", "fraction_below_eps"} <= set(r)
            assert r["ratio"] <= SLACK and r["max_defect"] <= r["bound"] * SLACK
        assert rep["rows"][0]["max_defect"] < rep["rows"][2]["max_defect"]


def test_convention_check_is_the_comparison_as_a_dict(capsys):
    c = convention_check(raw_margin=2.0, d_k=64, verbose=True)
    assert math.isclose(c["paper"]["e_exponent"], math.exp(-16)) and c["sharpness"] == 64
    assert math.isclose(c["standard"]["e_exponent"], math.exp(-0.25))
    record = compare_conventions(2.0, 64)
    assert c["paper"]["weight_defect"] == record.paper.weight_defect and c["d_k"] == record.d_k == 64
    json.dumps(c, allow_nan=False)
    assert "64 times sharper" in capsys.readouterr().out
