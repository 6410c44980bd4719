"""Activation regions out of the process, streamed: JSON lines, CSV or Parquet (schema ``tropattn.regions/1``);
and the same records as a pandas table, an HTML summary and an SVG picture in a notebook.

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

Parquet (``FILE.parquet``, needs the ``parquet`` extra: pyarrow) has the columns of the CSV
form: ``id`` and ``linear_region`` as int64, the nested fields ``pattern``,
``interior_point``, ``inequalities`` and ``map`` as the same JSON text as in the CSV (a wall
tag mixes words and integers, which no one Arrow type holds; the text keeps every exact
rational as written).  The header and the summary go in the file's key-value metadata under
``tropattn`` (a JSON object).  The second pass writes one row group per
:data:`PARQUET_ROW_GROUP` regions, so memory stays bounded however many regions there are.
``pandas.read_parquet(FILE)`` reads it; :func:`read_regions` reads any of the three forms back
into the records of :meth:`RegionSet.to_pandas`, the nested fields parsed.

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

from typing import TYPE_CHECKING

from .._display import html_fields, html_table, svg_picture
from .._lazy import lazy_import
from .._validate import positive_int
from ..errors import InvalidInputError
from ..exact import format_rational
from ..geometry import clip_polygon

if TYPE_CHECKING:
    from ._results import ActivationRegion

pa = lazy_import("pyarrow", extra="parquet")
pq = lazy_import("pyarrow.parquet", extra="parquet")
pd = lazy_import("pandas", extra="parquet")

__all__ = ["RegionWriter", "region_record", "REGION_SCHEMA", "CSV_COLUMNS", "PARQUET_ROW_GROUP", "read_regions",
           "regions_frame", "regions_html", "regions_svg"]

#: The schema name written in every header.
REGION_SCHEMA = "tropattn.regions/1"
#: The columns of the CSV form.
CSV_COLUMNS = ("id", "pattern", "interior_point", "inequalities", "map", "linear_region")
#: The nested columns, JSON text in the CSV and Parquet forms.
JSON_COLUMNS = ("pattern", "interior_point", "inequalities", "map")
#: Regions per Parquet row group (what the second pass holds at once).
PARQUET_ROW_GROUP = 8192
#: Regions listed in a notebook's HTML summary.
HTML_ROWS = 10


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
        The output file; its directory must exist.  The format follows the suffix
        (``.jsonl``/``.json``, ``.csv``, ``.parquet``).
    row_group : int, optional
        Regions per Parquet row group (default :data:`PARQUET_ROW_GROUP`): what the second
        pass holds in memory at once.

    Raises
    ------
    InvalidInputError
        An unknown suffix or a missing directory.
    """

    def __init__(self, path, row_group: int = PARQUET_ROW_GROUP):
        self.path = Path(path)
        self.row_group = positive_int(row_group, "row_group")
        suffix = self.path.suffix.lower()
        if suffix not in (".jsonl", ".json", ".csv", ".parquet"):
            raise InvalidInputError(f"--regions {path}: write regions to a .jsonl, .csv or .parquet file")
        if not self.path.parent.is_dir():
            raise InvalidInputError(f"--regions {path}: the directory {self.path.parent} does not exist")
        self.csv = suffix == ".csv"
        self.parquet = suffix == ".parquet"
        if self.parquet:
            pa.schema                     # a missing pyarrow is said now, before the search starts
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
        if self.parquet:
            self._write_parquet(ids, result)
        else:
            self._write_text(ids, result)
        os.remove(self.part)

    def _write_text(self, ids, result) -> None:
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
                out.write(json.dumps(_summary(result)) + "\n")

    def _write_parquet(self, ids, result) -> None:
        """Stream ``FILE.part`` (JSON lines) into row groups of at most ``row_group`` regions."""
        meta = {"header": {"type": "header", "schema": REGION_SCHEMA, "dim": self.dim}, "summary": _summary(result)}
        schema = pa.schema([("id", pa.int64())] + [(c, pa.string()) for c in JSON_COLUMNS]
                           + [("linear_region", pa.int64())], metadata={"tropattn": json.dumps(meta)})
        with self.part.open(encoding="utf-8") as src, pq.ParquetWriter(str(self.path), schema) as out:
            batch = []
            for line in src:
                batch.append(json.loads(line))
                if len(batch) == self.row_group:
                    out.write_table(_parquet_group(batch, ids, schema))
                    batch = []
            if batch or not ids:
                out.write_table(_parquet_group(batch, ids, schema))


def _summary(result) -> dict:
    return {"type": "summary", "activation_regions": result.n_activation, "linear_regions": result.n_linear,
            "complete": result.complete}


def _parquet_group(records, ids, schema):
    columns = {"id": [r["id"] for r in records]}
    columns.update({c: [json.dumps(r[c]) for r in records] for c in JSON_COLUMNS})
    columns["linear_region"] = [ids[r["id"]] for r in records]
    return pa.table(columns, schema=schema)


def _records(result):
    """Every region of a kept result as a record with its linear region."""
    ids = result.linear_ids
    for i, region in enumerate(result.activation_regions):
        record = region_record(i, region)
        record["linear_region"] = int(ids[i])
        yield record


def regions_frame(result):
    """The regions of a kept result as a pandas DataFrame: one row per region, the columns of the CSV form.

    The nested fields are Python lists and dicts (as ``json.loads`` gives them from the JSON
    lines file); numbers are exact rationals written as strings.

    Parameters
    ----------
    result : RegionSet
        A result with ``keep="all"``.

    Returns
    -------
    pandas.DataFrame
        Columns :data:`CSV_COLUMNS`, index 0, 1, ... (the region ids).

    Raises
    ------
    InvalidInputError
        If the regions were not kept.
    MissingDependencyError
        Without pandas (the ``parquet`` extra).

    Examples
    --------
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> from tropattn.regions import enumerate_regions
    >>> frame = regions_frame(enumerate_regions(Transformer([Layer([Head([[0], [1], [2]], [0, 0, -1])])])))
    >>> frame[["id", "interior_point", "linear_region"]].values.tolist()[0][0], len(frame)
    (0, 3)
    """
    regions = result.activation_regions
    rows = [[r[c] for c in CSV_COLUMNS] for r in _records(result)]
    return pd.DataFrame(rows, columns=list(CSV_COLUMNS)) if regions else pd.DataFrame(columns=list(CSV_COLUMNS))


def read_regions(path):
    """A region file (``.jsonl``, ``.csv`` or ``.parquet``) as the DataFrame of :func:`regions_frame`.

    Parameters
    ----------
    path : str or Path
        A file written by :class:`RegionWriter`.

    Returns
    -------
    pandas.DataFrame
        One row per region, columns :data:`CSV_COLUMNS`, nested fields parsed.

    Raises
    ------
    InvalidInputError
        An unknown suffix.

    Examples
    --------
    >>> import os, tempfile
    >>> from tropattn.attention import Head, Layer, Transformer
    >>> from tropattn.regions import enumerate_regions
    >>> path = os.path.join(tempfile.mkdtemp(), "regions.csv")
    >>> result = enumerate_regions(Transformer([Layer([Head([[0], [1]])])]), keep=RegionWriter(path))
    >>> read_regions(path)["inequalities"].tolist()       # x >= 0 (key 1 wins), x <= 0 (key 0 wins)
    [[{'a': ['-1'], 'b': '0', 'wall': ['head', 0, 0, 1, 0]}], [{'a': ['1'], 'b': '0', 'wall': ['head', 0, 0, 0, 1]}]]
    """
    suffix = Path(path).suffix.lower()
    if suffix == ".parquet":
        frame = pd.read_parquet(path)
    elif suffix == ".csv":
        frame = pd.read_csv(path, dtype={c: str for c in JSON_COLUMNS})
    elif suffix in (".jsonl", ".json"):
        with open(path, encoding="utf-8") as fh:
            rows = [r for r in map(json.loads, fh) if r.get("type") == "region"]
        return pd.DataFrame([[r[c] for c in CSV_COLUMNS] for r in rows], columns=list(CSV_COLUMNS))
    else:
        raise InvalidInputError(f"read_regions({path!s}): a region file ends in .jsonl, .csv or .parquet")
    for c in JSON_COLUMNS:
        frame[c] = frame[c].map(json.loads)
    return frame[list(CSV_COLUMNS)]


def regions_html(result) -> str:
    """The notebook summary of a RegionSet: its counts, the first regions, and a picture in the plane.

    Parameters
    ----------
    result : RegionSet
        Any result (counts only, or with its regions kept).

    Returns
    -------
    str
        HTML: a field table, then (regions kept) a table of the first :data:`HTML_ROWS`
        regions and, for ``d = 2``, the SVG of :func:`regions_svg`.

    Examples
    --------
    >>> from tropattn.attention import sawtooth_model
    >>> from tropattn.regions import enumerate_regions
    >>> html = regions_html(enumerate_regions(sawtooth_model(1, 3, 2)))
    >>> html.count("<tr>")                   # 5 fields + header, 9 regions + header
    16
    """
    fields = [("activation regions", result.n_activation), ("linear regions", result.n_linear),
              ("complete", result.complete), ("kept", result.keep), ("seconds", result.seconds)]
    out = [html_fields(fields, caption="RegionSet")]
    if result.kept is not None:
        rows = []
        for record in _records(result):
            if len(rows) == HTML_ROWS:
                break
            rows.append([record["id"], json.dumps(record["pattern"]), ", ".join(record["interior_point"]),
                         len(record["inequalities"]), record["linear_region"]])
        note = f"the first {len(rows)} of {result.n_activation} regions" if len(rows) < result.n_activation else None
        out.append(html_table(["id", "pattern", "interior point", "facets", "linear region"], rows, note=note))
        picture = regions_svg(result)
        if picture is not None:
            out.append(picture)
    return "\n".join(out)


def regions_svg(result):
    """The regions of a kept 2-D result, one filled polygon each, in a box that holds every interior point.

    The box is the interior points' box widened by 1, so every region has area in it; each
    region is cut from the box by its own certified facets (exactly), drawn in floats.

    Parameters
    ----------
    result : RegionSet
        A result with ``keep="all"``.

    Returns
    -------
    str or None
        The SVG, or None when the regions were not kept or do not live in the plane.

    Examples
    --------
    >>> from tropattn.attention import Head
    >>> from tropattn.regions import overlay_regions
    >>> heads = [Head([[1, 0], [-1, 0]]), Head([[0, 1], [0, -1]])]     # walls x = 0 and y = 0
    >>> regions_svg(overlay_regions(heads)).count('class="cell"')
    4
    """
    if result.kept is None or not result.activation_regions:
        return None
    regions = result.activation_regions
    if len(regions[0].interior_point) != 2:
        return None
    points = [r.interior_point for r in regions]
    lo = [min(p[i] for p in points) - 1 for i in range(2)]
    hi = [max(p[i] for p in points) + 1 for i in range(2)]

    shown = []
    for i, r in enumerate(regions):      # the interior point is strictly inside the box: area > 0
        poly = [(lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1])]
        for a, b in zip(r.A, r.b):
            poly = clip_polygon(poly, a, b)
        shown.append((f"region {i}: pattern {r.pattern}", poly))
    return svg_picture(shown, (lo, hi), points=points,
                       title=f"{result.n_activation} activation regions, {result.n_linear} linear regions "
                             "(dots: interior points)")
