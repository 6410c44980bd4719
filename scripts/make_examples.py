"""Write examples/: one small model file of each form the command line reads, made by tropattn's own writers.

    python scripts/make_examples.py            # (re)writes the files below
    python scripts/make_examples.py --check    # exits 1 if a committed file differs from what this writes

* ``model.json``         score form, ``tropattn.model/1`` (``tropattn.save``): the sawtooth
                         model of dimension 2, 3 keys, one layer (9 regions);
* ``model_weights.json`` weight form (``"form": "weights"``): a fixed context of three tokens and two
                         heads given by ``W_Q``, ``W_K``, ``W_V`` (tropattn has no weight-form writer,
                         so the dict is written here and read back with ``tropattn.load``);
* ``model.npz``          score form as float arrays (``tropattn.save``; dyadic numbers only);
* ``sites.json``         weighted sites for ``tropattn power`` (read back with ``tropattn.load``);
* ``poly.json``          a tropical polynomial (``tropattn.tropical.polynomial_to_json``).

Each file is read back and checked before this script finishes; tests/test_examples.py runs every
``--help`` example of the command line on them.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from pathlib import Path

from tropattn.attention import Head, Layer, Transformer, sawtooth_model
from tropattn.io import load, save
from tropattn.tropical import parse_polynomial, polynomial_from_json, polynomial_to_json

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

#: The polynomial of ``poly.json``: the first ``tropattn regions --help`` example's.
POLYNOMIAL = "max(0, x + 1, 2*y - 1/2)"

WEIGHTS_MODEL = {
    "format": "tropattn.model/1",
    "form": "weights",
    "dim": 2,
    "context": [[1, 0], [0, 1], [-1, -1]],
    "layers": [{
        "heads": [
            {"W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]]},
            {"W_Q": [[0, 1], [1, 0]], "W_K": [[2, 0], [0, 1]], "W_V": [[0, 1], [1, 0]], "b_K": [0, 1]},
        ],
        "d_k": 4,
    }],
}

SITES = {"sites": [[0, 0], [1, 0], [0, 1], [1, 1]], "weights": [0, "1/2", 0, "-1/4"]}


def npz_model():
    """A one-layer, two-head model in dimension 2 whose numbers are all dyadic (float64-exact)."""
    return Transformer([Layer([Head([[0, 0], [2, 0], [0, 2]], [0, -1, "-1/2"], [[0, 0], ["1/2", 0], [0, "1/2"]]),
                               Head([[0, 0], [1, 1], [-1, 1]], [0, "-1/4", 0])])])


def _json_text(obj):
    return json.dumps(obj, indent=1) + "\n"


def files():
    """``{name: bytes}`` of every example file, written through tropattn's writers into a scratch folder."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        model = sawtooth_model(2, 3, 1)
        save(model, tmp / "model.json")
        assert load(tmp / "model.json") == model
        out["model.json"] = (tmp / "model.json").read_bytes()

        out["model_weights.json"] = _json_text(WEIGHTS_MODEL).encode()
        (tmp / "model_weights.json").write_bytes(out["model_weights.json"])
        assert len(load(tmp / "model_weights.json").layers[0].heads) == 2

        save(npz_model(), tmp / "model.npz")
        assert load(tmp / "model.npz") == npz_model()
        out["model.npz"] = _deterministic_npz(tmp / "model.npz")

        out["sites.json"] = _json_text(SITES).encode()
        (tmp / "sites.json").write_bytes(out["sites.json"])
        assert len(load(tmp / "sites.json", "sites")[0]) == 4

        poly = polynomial_to_json(parse_polynomial(POLYNOMIAL))
        assert polynomial_from_json(poly) == parse_polynomial(POLYNOMIAL)
        out["poly.json"] = _json_text(poly).encode()
    return out


def _deterministic_npz(path):
    """The ``.npz`` bytes with every zip member's timestamp fixed, so a rerun writes the same file."""
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as dst:
        for info in sorted(src.infolist(), key=lambda i: i.filename):
            fixed = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            fixed.external_attr = 0o644 << 16
            dst.writestr(fixed, src.read(info.filename))
    return buffer.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed example differs")
    args = parser.parse_args(argv)
    stale = []
    for name, data in files().items():
        target = EXAMPLES / name
        if args.check:
            if not target.exists() or target.read_bytes() != data:
                stale.append(name)
            continue
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(data)
        print(f"wrote examples/{name}")
    if stale:
        print("stale: " + ", ".join(stale) + " (run python scripts/make_examples.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
