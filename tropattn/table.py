"""Tables of exact region counts beside their bounds (``tropattn table``).

For a grid of small shapes ``(d, H, N, L)`` the table holds the exact counts of the
constructions (grid heads for ``H <= d`` and one layer; the sawtooth model on
``min(H, d)`` coordinates, which attains ``N^{min(H, d) L}``) and of
random models with fixed seeds, next to every bound of :mod:`tropattn.region_bounds`.  The
column ``product_attainable`` marks the shapes where the paper's per-layer ``N^H``
cannot be reached (``H > d``); ``attains_product`` says whether that row's model
reaches ``(N^H)^L``.  Regenerate ``data/region_counts.csv`` with::

    tropattn table            # or: python -m tropattn.cli table

>>> rows = region_rows(shapes=[(1, 1, 3, 2)], seeds=0)      # the sawtooth attains N^(dL) = 9
>>> [(r["model"], r["activation_regions"], r["lower_bound"]) for r in rows]
[('sawtooth', 9, 9)]
"""

from __future__ import annotations

import csv
import time
from pathlib import Path

from ._display import html_table
from ._progress import Progress
from ._validate import nonnegative_int
from .attention import grid_model, random_model, sawtooth_model
from .region_bounds import bounds, deep_bound
from .regions import count_regions

__all__ = ["DEFAULT_SHAPES", "QUICK_SHAPES", "region_rows", "write_region_table", "COLUMNS", "RegionTable"]

#: (d, H, N, L) of the committed table: every small shape whose deep upper bound is at most 2,000.
DEFAULT_SHAPES = [(d, H, N, L) for d in (1, 2, 3) for H in (1, 2, 3, 4, 5) for N in (2, 3, 4, 5)
                  for L in (1, 2, 3) if deep_bound(d, H, N, L) <= 2000]
#: A small grid for tests.
QUICK_SHAPES = [(1, 2, 3, 1), (1, 3, 3, 1), (2, 2, 2, 1), (2, 3, 2, 1)]

COLUMNS = ["dim", "heads", "keys", "layers", "model", "activation_regions", "linear_regions",
           "product_bound", "per_layer_bound", "deep_bound", "lower_bound", "product_attainable",
           "attains_product", "seconds"]


class RegionTable(list):
    """The rows of :func:`region_rows`: a list of dicts that a notebook shows as an HTML table.

    >>> t = RegionTable([dict.fromkeys(COLUMNS, 1)])
    >>> t._repr_html_().count("<tr>"), len(t)                  # the header and one row
    (2, 1)
    """

    def _repr_html_(self) -> str:
        """Jupyter's table: one ``<tr>`` per row, the columns of :data:`COLUMNS`."""
        return html_table(COLUMNS, [[row[c] for c in COLUMNS] for row in self],
                          caption=f"exact region counts beside their bounds ({len(self)} models)")


def _constructions(d, H, N, L):
    """The models that attain ``lower_bound``: grid heads (one layer, H <= d) and the sawtooth."""
    if L == 1 and H <= d:
        yield "grid", grid_model(d, H, N)
    yield "sawtooth", sawtooth_model(d, N, L, heads=H)


def region_rows(shapes=None, seeds: int = 3, progress=None, **run):
    """One row (a dict with :data:`COLUMNS`) per model of every shape.

    Parameters
    ----------
    shapes : list of tuple (d, H, N, L) or None, optional
        Input dimension, heads per layer, keys per head and layers of each shape;
        None means :data:`DEFAULT_SHAPES`.
    seeds : int, optional
        Random models per shape (seeds ``0 .. seeds - 1``), beside the constructions.
    progress : bool or None, optional
        One bar over all the models of the table (None: only on a terminal).
    **run
        ``workers``, ``executor``, ... passed to :func:`tropattn.regions.count_regions` (the
        primal search: it also counts the linear regions).

    Returns
    -------
    RegionTable
        A list of dicts (an HTML table in a notebook) with keys :data:`COLUMNS`: the shape, the model name, the exact activation and
        linear region counts, the bounds of :func:`tropattn.region_bounds.bounds` and
        the seconds taken.

    Raises
    ------
    Interrupted
        On Ctrl-C (from :func:`~tropattn.regions.count_regions`).
    InvalidInputError
        A bad ``seeds``, ``workers`` or ``executor``.

    Examples
    --------
    >>> rows = region_rows(shapes=[(1, 2, 2, 1)], seeds=1)
    >>> [(r["model"], r["activation_regions"], r["product_bound"], r["product_attainable"]) for r in rows]
    [('sawtooth', 2, 4, False), ('random seed 0', 2, 4, False)]
    """
    seeds = nonnegative_int(seeds, "seeds", meaning="the number of random models per shape")
    jobs = []
    for d, H, N, L in shapes if shapes is not None else DEFAULT_SHAPES:
        models = list(_constructions(d, H, N, L))
        models += [(f"random seed {s}", random_model(d, H, N, L, seed=s)) for s in range(seeds)]
        jobs += [((d, H, N, L), name, model) for name, model in models]
    bar = Progress(progress, 1, stage="table", unit="models")
    bar.start_step(0, len(jobs))
    rows = RegionTable()
    try:
        for (d, H, N, L), name, model in jobs:
            b = bounds(d, H, N, L)
            t0 = time.perf_counter()
            result = count_regions(model, "primal", progress=False, **run)  # run: workers, executor
            n = result.n_activation
            rows.append(dict(dim=d, heads=H, keys=N, layers=L, model=name, activation_regions=n,
                             linear_regions=result.n_linear, product_bound=b.deep_product,
                             per_layer_bound=b.per_layer, deep_bound=b.deep, lower_bound=b.lower,
                             product_attainable=b.product_attainable, attains_product=n == b.deep_product,
                             seconds=round(time.perf_counter() - t0, 3)))
            bar.advance(1, n)
    finally:
        bar.close()
    return rows


def write_region_table(path="data/region_counts.csv", quick: bool = False, seeds: int = 3, progress=None,
                       **run) -> Path:
    """Compute the table and write it as CSV; returns the path (its directory must exist).

    Parameters
    ----------
    path : str or pathlib.Path, optional
        Where to write the CSV.
    quick : bool, optional
        Use the small :data:`QUICK_SHAPES` instead of :data:`DEFAULT_SHAPES`.
    seeds : int, optional
        Random models per shape.
    progress : bool or None, optional
        Show a bar (None: only on a terminal).
    **run
        Passed to :func:`region_rows`.

    Returns
    -------
    pathlib.Path
        The file written (header :data:`COLUMNS`, one line per model).

    Raises
    ------
    Interrupted
        On Ctrl-C; nothing is written then.
    OSError
        When the file cannot be written.

    Examples
    --------
    >>> import csv, tempfile, pathlib
    >>> out = write_region_table(pathlib.Path(tempfile.mkdtemp()) / "t.csv", quick=True, seeds=0, progress=False)
    >>> rows = list(csv.DictReader(out.open()))
    >>> len(rows), all(int(r["activation_regions"]) <= int(r["deep_bound"]) for r in rows)   # 4 shapes, 5 models
    (5, True)
    """
    rows = region_rows(QUICK_SHAPES if quick else None, seeds=seeds, progress=progress, **run)
    path = Path(path)
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
    return path
