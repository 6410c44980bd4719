"""Columnar region exports: ``--regions FILE.parquet`` and ``RegionSet.to_pandas()`` against the JSON lines form.

The JSON lines file is read here with ``json`` alone (no tropattn reader), the Parquet file with pyarrow and
pandas, so the comparison shares no code with the writer's second pass.
"""

import json
import math
import subprocess
import sys

import pytest

from tropattn.attention import Head, Layer, Transformer, sawtooth_model
from tropattn.errors import Interrupted, InvalidInputError
from tropattn.io import save
from tropattn.regions import RegionWriter, enumerate_regions

pq = pytest.importorskip("pyarrow.parquet")
pd = pytest.importorskip("pandas")

NESTED = ("pattern", "interior_point", "inequalities", "map")


def jsonl_rows(path):
    lines = [json.loads(line) for line in open(path)]
    assert lines[0]["type"] == "header" and lines[-1]["type"] == "summary"
    return [{k: v for k, v in r.items() if k != "type"} for r in lines[1:-1]], lines[0], lines[-1]


def parquet_rows(path):
    frame = pd.read_parquet(path)
    return [{k: (json.loads(v) if k in NESTED else int(v)) for k, v in row.items()}
            for row in frame.to_dict(orient="records")]


def model():
    return Transformer([Layer([Head([[0, 0], [1, 0], [0, 1]], [0, 0, -1]), Head([[1, 1], [-1, 0]], [0, 1])])])


def test_parquet_and_jsonl_hold_the_same_rows(tmp_path):
    m = sawtooth_model(1, 5, 2)
    enumerate_regions(m, keep=RegionWriter(tmp_path / "r.jsonl"))
    result = enumerate_regions(m, keep=RegionWriter(tmp_path / "r.parquet", row_group=4))
    rows, header, summary = jsonl_rows(tmp_path / "r.jsonl")
    assert len(rows) == 25 == result.n_activation
    assert parquet_rows(tmp_path / "r.parquet") == rows
    meta = pq.ParquetFile(tmp_path / "r.parquet")
    assert meta.metadata.num_row_groups == math.ceil(25 / 4)        # streamed, 4 regions at a time
    stored = json.loads(meta.schema_arrow.metadata[b"tropattn"])
    assert stored == {"header": header, "summary": summary}
    assert not (tmp_path / "r.parquet.part").exists()


def test_to_pandas_has_the_rows_of_the_export(tmp_path):
    m = model()
    enumerate_regions(m, keep=RegionWriter(tmp_path / "r.jsonl"))
    frame = enumerate_regions(m).to_pandas()
    rows, _, _ = jsonl_rows(tmp_path / "r.jsonl")
    assert frame.to_dict(orient="records") == rows
    assert list(frame.columns) == ["id", "pattern", "interior_point", "inequalities", "map", "linear_region"]


def test_to_pandas_needs_the_regions():
    with pytest.raises(InvalidInputError, match="keep='all'"):
        enumerate_regions(model(), keep="counts").to_pandas()


def test_bad_suffix_and_row_group(tmp_path):
    with pytest.raises(InvalidInputError, match=r"\.jsonl, \.csv or \.parquet"):
        RegionWriter(tmp_path / "r.txt")
    with pytest.raises(InvalidInputError, match="row_group"):
        RegionWriter(tmp_path / "r.parquet", row_group=0)


def test_cli_writes_parquet(tmp_path):
    path = tmp_path / "m.json"
    save(sawtooth_model(1, 3, 1), path)
    out = tmp_path / "r.parquet"
    run = subprocess.run([sys.executable, "-m", "tropattn", "count", str(path), "--regions", str(out),
                          "--progress", "never"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert len(pd.read_parquet(out)) == 3


def test_ctrl_c_before_any_region_leaves_an_empty_table(tmp_path):
    def ctrl_c(done, total, found):
        raise KeyboardInterrupt

    path = tmp_path / "r.parquet"
    with pytest.raises(Interrupted):
        enumerate_regions(sawtooth_model(1, 3, 2), keep=RegionWriter(path), progress=ctrl_c)
    frame = pd.read_parquet(path)
    assert len(frame) == 0 and list(frame.columns) == ["id", "pattern", "interior_point", "inequalities", "map",
                                                       "linear_region"]
    summary = json.loads(pq.ParquetFile(path).schema_arrow.metadata[b"tropattn"])["summary"]
    assert summary == {"type": "summary", "activation_regions": 0, "linear_regions": 0, "complete": False}
