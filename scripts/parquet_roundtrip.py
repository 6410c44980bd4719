"""Parquet against JSON lines on one sawtooth: the same rows read back in pandas, and the peak memory.

    python scripts/parquet_roundtrip.py            # sawtooth_model(1, 10, 5): 10^5 regions, ~4 minutes
    python scripts/parquet_roundtrip.py 10 4       # 10^4 regions

Each export runs in its own process (``/usr/bin/time -v`` style peak RSS from ``resource``), then the
two files are compared row by row (the nested Parquet columns are the JSON text of the CSV form).
"""

import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import resource, sys, time
from tropattn.attention import sawtooth_model
from tropattn.regions import RegionWriter, enumerate_regions
N, L, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
t = time.process_time()
r = enumerate_regions(sawtooth_model(1, N, L), keep=RegionWriter(path), progress=False)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(r.n_activation, round(time.process_time() - t, 1), round(peak))
"""
NESTED = ("pattern", "interior_point", "inequalities", "map")


def export(N, L, path):
    out = subprocess.run([sys.executable, "-c", CHILD, str(N), str(L), str(path)], check=True,
                         capture_output=True, text=True).stdout.split()
    return int(out[0]), float(out[1]), int(out[2])


def main(N=10, L=5):
    pd = __import__("pandas")
    pq = __import__("pyarrow.parquet", fromlist=["ParquetFile"])
    with tempfile.TemporaryDirectory() as tmp:
        jsonl, parquet = Path(tmp, "r.jsonl"), Path(tmp, "r.parquet")
        for path in (jsonl, parquet):
            n, cpu, peak = export(N, L, path)
            print(f"{path.suffix:8s} {n} regions, {cpu} CPU-s, peak RSS {peak} MB, {path.stat().st_size / 1e6:.1f} MB")
        with jsonl.open() as fh:
            rows = [json.loads(line) for line in fh]
        rows = [{k: v for k, v in r.items() if k != "type"} for r in rows if r["type"] == "region"]
        frame = pd.read_parquet(parquet)
        back = [{k: (json.loads(v) if k in NESTED else int(v)) for k, v in r.items()}
                for r in frame.to_dict(orient="records")]
        groups = pq.ParquetFile(parquet).metadata.num_row_groups
        print(f"rows: jsonl {len(rows)}, parquet {len(back)}, equal {rows == back}, row groups {groups}")
        return 0 if rows == back else 1


if __name__ == "__main__":
    sys.exit(main(*map(int, sys.argv[1:3])))
