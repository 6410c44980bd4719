"""Tuning knobs, read at call time: ``tropattn.config``.

The sizes at which a kernel switches strategy (blocked float filters, the local or the global
hull certificate, a float pre-filter of Minkowski pairs) change only speed and memory, never an
answer: every strategy is certified.  They live here, in one object that every kernel reads
when it is called (the pattern of ``networkx.utils.configs``), so that a caller -- or a test
that wants the rarely taken path -- sets a knob for one block of code instead of patching a
module's constant::

    with tropattn.config.override(hull_local_entries=0):   # force the global hull certificate
        tropattn.convex_hull(points)

>>> from tropattn import config
>>> config.minkowski_prefilter_pairs
400
>>> with config.override(minkowski_prefilter_pairs=0):
...     config.minkowski_prefilter_pairs
0
>>> config.minkowski_prefilter_pairs                 # restored on leaving the block
400
>>> with config.override(no_such_knob=1):            # doctest: +ELLIPSIS
...     pass
Traceback (most recent call last):
...
tropattn.errors.InvalidInputError: no_such_knob is not a tropattn.config knob; ...
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses

from .errors import InvalidInputError
from ._lazy import lazy_import

difflib = lazy_import("difflib")  # read on first use: only a misspelt name's suggestion needs it

__all__ = ["Config", "config"]


@dataclasses.dataclass(frozen=True)
class _Knobs:
    """The knob values (one frozen record per context: threads and tasks do not share overrides)."""

    #: Float-filter blocks: entries of a product computed at once (memory ~ 8 bytes each).
    predicate_block_entries: int = 1 << 22
    #: Float-filter blocks that stay in the CPU cache: entries of one block of filtered signs.
    predicate_cache_entries: int = 1 << 15
    #: Hull certificate: at most this many (facet, point) entries take the local certificate.
    hull_local_entries: int = 1 << 15
    #: Hull certificate: 1 decides the local certificate's signs from the points (float-filtered orientation
    #: determinants; the exact facet rows are built when first read), 0 from the exact facet rows.
    hull_filtered: int = 1
    #: Hull certificate from the points: 1 lets the float filter decide the orientation signs it can, 0 makes
    #: every one an exact integer determinant (counted; a check of the filter, much slower).
    hull_filter_signs: int = 1
    #: Hull certificate: the interior-point float filter runs up to this many entries (-1: never).
    hull_inside_filter_entries: int = 1 << 23
    #: Hull certificate: the dense global check runs up to this many entries.
    hull_dense_entries: int = 1 << 25
    #: Minkowski sums: summand pairs above which a float pre-filter proposes the vertex pairs.
    minkowski_prefilter_pairs: int = 400
    #: Minkowski sums: sums of fewer points than this are hulled directly.
    minkowski_small_sum: int = 100
    #: Facets of small polyhedra: at most this many row subsets are enumerated in floats (above, one Qhull
    #: halfspace intersection certified in integers is faster: random_model(3, 4, 8, 2) 151 -> 432 regions/CPU-s).
    facets_max_subsets: int = 1500
    #: Facets of small polyhedra past facets_max_subsets: 1 proposes them by one Qhull run on the polar (certified
    #: in integers), 0 leaves them to the exact path (integer_facets).
    facets_hull: int = 1
    #: Qhull: 1 drives scipy's private runner (no volume or neighbour arrays), 0 the public ConvexHull.
    qhull_private_runner: int = 1
    #: Upper hulls of lifted points: from this many points on Qhull sees them in Morton order (-1: never).
    qhull_sort_from: int = 20_000
    #: ReLU steps in the plane: 1 drops, per parent polygon, the units whose line misses it (their signs
    #: are fixed there, decided by a filtered sign at its vertices); 0 keeps every unit (the plain path).
    relu_parent_filter: int = 1
    #: ReLU steps in the plane: a piece of a parent crossed by more units is first cut by the rows of
    #: this many units nearest its point, the others certified strictly redundant (0: every unit's row).
    relu_near_units: int = 16
    #: Region search: parents refined breadth first before the work is split into chunks.
    search_frontier: int = 64
    #: Region counts: 1 keeps the facets waiting on walls of earlier sub-layers as one pickle per wall side
    #: and chunk (opened only where the other side holds an equal map hash), 0 as objects (more memory).
    search_sealed: int = 1
    #: Soft attention and exact labels of float points: query points per vectorised block (memory ~ N d_out d).
    soft_block_points: int = 1 << 15
    #: Token flows (dynamics): score entries per block of query rows in the velocity field (~1 MiB of floats).
    dynamics_block_entries: int = 1 << 17


class Config:
    """The tuning knobs of tropattn; attributes read the current value, ``override`` sets some for a block.

    Every knob changes speed or memory only: the answers are certified whatever their values.
    The defaults are those the benchmarks in ``scripts/`` were tuned with.
    """

    _state = contextvars.ContextVar("tropattn_config", default=_Knobs())

    def __getattr__(self, name):
        knobs = self._state.get()
        try:
            return getattr(knobs, name)
        except AttributeError:
            raise AttributeError(f"tropattn.config has no knob {name!r}; knobs: {', '.join(self.knobs())}") from None

    def __setattr__(self, name, value):
        raise InvalidInputError(f"set tropattn.config.{name} with 'with tropattn.config.override({name}=...)'")

    def __dir__(self):
        return list(self.knobs())

    def __repr__(self):
        knobs = self._state.get()
        return "tropattn.config(" + ", ".join(f"{k}={getattr(knobs, k)!r}" for k in self.knobs()) + ")"

    @staticmethod
    def knobs() -> tuple:
        """The names of the knobs."""
        return tuple(f.name for f in dataclasses.fields(_Knobs))

    @contextlib.contextmanager
    def override(self, **values):
        """Set some knobs for the duration of a ``with`` block (per thread and per task).

        Raises
        ------
        InvalidInputError
            A name that is not a knob, or a value that is not an integer.
        """
        names = self.knobs()
        for name, value in values.items():
            if name not in names:
                close = difflib.get_close_matches(name, names, n=1)
                hint = f"did you mean {close[0]!r}?" if close else f"knobs: {', '.join(names)}"
                raise InvalidInputError(f"{name} is not a tropattn.config knob; {hint}")
            if not isinstance(value, int) or isinstance(value, bool):
                raise InvalidInputError(f"tropattn.config.{name} takes an integer; got {value!r}")
        token = self._state.set(dataclasses.replace(self._state.get(), **values))
        try:
            yield self
        finally:
            self._state.reset(token)


#: The one configuration object (``tropattn.config``).
config = Config()
