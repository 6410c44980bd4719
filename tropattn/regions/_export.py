"""Activation regions out of the process, streamed: JSON lines or CSV (schema ``tropattn.regions/1``).

A :class:`RegionWriter` is a callback for :func:`~tropattn.regions.enumerate_regions`
(``keep=writer``): each region is written the moment it is certified, so the file grows
while the search runs and memory does not.  Linear-region ids are known only when every
region has been seen (two regions far apart in the search order may merge), so the
regions go first to ``FILE.part``; at the end a second pass streams that file into
``FILE`` with the ``linear_region`` field filled in (one integer per region in memory).
After Ctrl-C the same pass writes what was found, with ``"complete": false``.

Schema (every number is an exact rational written as a string, ``"-3/2"``):

``header`` (JSON lines only, first line)
    ``{"type": "header", "schema": "tropattn.regions/1", "dim": d}``
``region`` (one per activation region; a CSV row has the same fields, lists as JSON)
    ``id`` (0, 1, ... in discovery order), ``pattern`` (per layer: head labels, ReLU
    bits), ``interior_point`` (a point strictly inside, where the pattern was evaluated
    exactly), ``inequalities`` (the certified facets ``a . x <= b`` as
    ``{"a": [...], "b": ..., "wall": [...]}``; ``wall`` is ``["head", layer, h, j, k]``
    (head h prefers key j over k), ``["relu", layer, unit, bit]`` or ``["box"]``),
    ``map`` (the model's output ``M x + c`` there: ``{"M": [[...]], "c": [...]}``) and
    ``linear_region`` (regions with the same id are joined by facets across which the
    map does not change).
``summary`` (JSON lines only, last line)
    ``{"type": "summary", "activation_regions": n, "linear_regions": m, "complete": true}``

>>> import json, os, tempfile
>>> from tropattn.attention import Head, Layer, Transformer
>>> from tropattn.regions import enumerate_regions
>>> model = Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1], [[0], [0], [1]])])])  # keys 0, 1 share v
>>> path = os.path.join(tempfile.mkdtemp(), "regions.jsonl")
>>> result = enumerate_regions(model, keep=RegionWriter(path))
>>> lines = [json.loads(line) for line in open(path)]
>>> sorted((r["pattern"][0][0], r["linear_region"]) for r in lines if r["type"] == "region")
[([0], 0), ([1], 0), ([2], 1)]
>>> lines[-1]
{'type': 'summary', 'activation_regions': 3, 'linear_regions': 2, 'complete': True}
"""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from ..errors import InvalidInputError
from ..exact import format_rational
from ._results import ActivationRegion

__all__ = ["RegionWriter", "region_record", "REGION_SCHEMA", "CSV_COLUMNS"]

#: The schema name written in every header.
REGION_SCHEMA = "tropattn.regions/1"
#: The columns of the CSV form.
CSV_COLUMNS = ("id", "pattern", "interior_point", "inequalities", "map", "linear_region")


def region_record(i: int, region: ActivationRegion) -> dict:
    """One region as a JSON-ready dict (``linear_region`` still None).

    Parameters
    ----------
    i : int
        The region's id.
    region : ActivationRegion
        The region: pattern, interior point, inequalities ``A x <= b`` with wall tags, map.

    Returns
    -------
    dict
        Keys ``type, id, pattern, interior_point, inequalities, map, linear_region``; numbers as
        exact rational strings (``format_rational``).

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> from tropattn.regions import enumerate_regions
    >>> found = enumerate_regions(Transformer([Layer([Head([[0], [1]], [0, 0])])])).activation_regions
    >>> r = next(r for r in found if r.pattern == (((0,), ()),))   # where key 0 wins
    >>> region_record(0, r)["inequalities"]                      # x <= 0: key 0 beats key 1
    [{'a': ['1'], 'b': '0', 'wall': ['head', 0, 0, 0, 1]}]
    """
    q = format_rational
    return {"type": "region", "id": i, "pattern": [[list(h), list(bits)] for h, bits in region.pattern],
            "interior_point": [q(v) for v in region.interior_point],
            "inequalities": [{"a": [q(v) for v in a], "b": q(b), "wall": list(w)}
                             for a, b, w in zip(region.A, region.b, region.walls)],
            "map": {"M": [[q(v) for v in row] for row in region.map.M], "c": [q(v) for v in region.map.c]},
            "linear_region": None}


class RegionWriter:
    """Stream every region to ``path`` (``.jsonl``/``.json`` lines or ``.csv``); a callback for ``keep``.

    Parameters
    ----------
    path : str or Path
        The output file; its directory must exist.  The format follows the suffix.

    Raises
    ------
    InvalidInputError
        An unknown suffix or a missing directory.
    """

    def __init__(self, path):
        self.path = Path(path)
        suffix = self.path.suffix.lower()
        if suffix not in (".jsonl", ".json", ".csv"):
            raise InvalidInputError(f"--regions {path}: write regions to a .jsonl or .csv file")
        if not self.path.parent.is_dir():
            raise InvalidInputError(f"--regions {path}: the directory {self.path.parent} does not exist")
        self.csv = suffix == ".csv"
        self.part = self.path.with_name(self.path.name + ".part")
        self.fh = self.part.open("w", newline="", encoding="utf-8")
        self.rows = csv.writer(self.fh) if self.csv else None
        self.dim = None

    def __call__(self, i: int, region: ActivationRegion) -> None:
        record = region_record(i, region)
        if self.dim is None:
            self.dim = len(region.interior_point)
        if self.csv:
            self.rows.writerow([json.dumps(record[c]) if c not in ("id", "linear_region") else record[c]
                                for c in CSV_COLUMNS[:-1]])
        else:
            self.fh.write(json.dumps(record) + "\n")

    def done(self, result) -> None:
        """The second pass: ``FILE.part`` -> ``FILE`` with linear-region ids, then a summary line.

        Parameters
        ----------
        result : RegionSet
            The finished (or interrupted) search; its ``linear_ids`` fill ``linear_region``.

        Returns
        -------
        None

        Examples
        --------
        >>> import json, os, tempfile
        >>> from tropattn.attention import Head, Layer, Transformer
        >>> from tropattn.regions import enumerate_regions
        >>> path = os.path.join(tempfile.mkdtemp(), "regions.jsonl")
        >>> _ = enumerate_regions(Transformer([Layer([Head([[0], [1]])])]), keep=RegionWriter(path))  # calls done
        >>> [json.loads(line)["type"] for line in open(path)]       # two half-lines split at x = 0
        ['header', 'region', 'region', 'summary']
        """
        self.fh.close()
        ids = result.linear_ids if result.linear_ids is not None else []
        with self.part.open(newline="", encoding="utf-8") as src, \
                self.path.open("w", newline="", encoding="utf-8") as out:
            if self.csv:
                rows = csv.writer(out)
                rows.writerow(CSV_COLUMNS)
                for row in csv.reader(src):
                    rows.writerow(row + [ids[int(row[0])]])
            else:
                out.write(json.dumps({"type": "header", "schema": REGION_SCHEMA, "dim": self.dim}) + "\n")
                for line in src:
                    record = json.loads(line)
                    record["linear_region"] = ids[record["id"]]
                    out.write(json.dumps(record) + "\n")
                out.write(json.dumps({"type": "summary", "activation_regions": result.n_activation,
                                      "linear_regions": result.n_linear, "complete": result.complete}) + "\n")
        os.remove(self.part)
