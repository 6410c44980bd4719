"""How often each exact path was taken: one recording function, scoped per call.

Every certified answer, declined fast path and exact fallback anywhere in tropattn
is recorded by :func:`record`, and nowhere else.  :func:`counting` opens a scope (a
:mod:`contextvars` variable, so threads, nested calls and worker processes each count
their own work) and yields the :class:`Counters` of that scope; the process-wide totals
are :data:`COUNTERS`.

Kinds
-----
``certified``
    a float computation gave the answer and an exact check confirmed it;
``declined``
    a fast path's certificate did not hold, so a slower exact path answered instead;
``fallbacks``
    an answer needed an exact computation (simplex, double description, LP per row);
``exact_lps``
    exact simplex runs;
``filter_failures``
    dot products the float filter could not decide (computed in integers).

>>> from tropattn.exact._lp import interior_point
>>> with counting() as c:
...     _ = interior_point([[1]], [1])
>>> c.certified, c.fallbacks
(1, 0)
"""

from __future__ import annotations

from collections import Counter
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from ..errors import InternalError

__all__ = ["KINDS", "Counters", "COUNTERS", "record", "merge", "counting"]

#: The kinds of event :func:`record` accepts.
KINDS = ("certified", "declined", "fallbacks", "exact_lps", "filter_failures")


@dataclass
class Counters:
    """Counts of each kind of exact event, and of each ``(kind, where)`` pair.

    ``where`` names the place that recorded, e.g. ``"power.planar"`` for the certified
    planar fast path of power diagrams; ``by_place`` counts them.
    """

    certified: int = 0
    declined: int = 0
    fallbacks: int = 0
    exact_lps: int = 0
    filter_failures: int = 0
    by_place: Counter = field(default_factory=Counter)

    def add(self, kind: str, n: int = 1, where: str | None = None) -> None:
        """Add ``n`` events of ``kind`` to this one set of counts (no other scope).

        Library code calls :func:`record`, which validates ``kind`` and adds to every
        open scope and to :data:`COUNTERS`; ``add`` is its per-object step.

        Parameters
        ----------
        kind : str
            One of :data:`KINDS` (not checked here: an unknown name raises
            ``AttributeError``).
        n : int, optional
            Number of events (default 1).
        where : str, optional
            Place that recorded; also counted in ``by_place["kind:where"]``.

        Returns
        -------
        None

        Examples
        --------
        >>> c = Counters()
        >>> c.add("declined", 2, where="power.planar")
        >>> c.declined, dict(c.by_place)
        (2, {'declined:power.planar': 2})
        """
        setattr(self, kind, getattr(self, kind) + n)
        if where is not None:
            self.by_place[f"{kind}:{where}"] += n

    def reset(self) -> None:
        """Set every count to zero.

        Returns
        -------
        None

        Examples
        --------
        >>> c = Counters(certified=3)
        >>> c.reset()
        >>> c.certified, len(c.by_place)
        (0, 0)
        """
        for k in KINDS:
            setattr(self, k, 0)
        self.by_place.clear()

    def snapshot(self) -> dict:
        """The counts as a plain dict (``by_place`` included), e.g. to send from a worker.

        Returns
        -------
        dict
            ``{kind: int}`` for every kind of :data:`KINDS`, plus ``"by_place"``: a
            plain dict ``{"kind:where": int}``.  :func:`merge` reads it back.

        Examples
        --------
        >>> c = Counters()
        >>> c.add("certified", where="lp")
        >>> snap = c.snapshot()
        >>> sorted(snap) == sorted(KINDS + ("by_place",)), snap["certified"], snap["by_place"]
        (True, 1, {'certified:lp': 1})
        """
        out = {k: getattr(self, k) for k in KINDS}
        out["by_place"] = dict(self.by_place)
        return out


#: Totals for the whole process (every scope adds here too).
COUNTERS = Counters()
_SCOPES: ContextVar[tuple] = ContextVar("tropattn_counter_scopes", default=())


def record(kind: str, n: int = 1, where: str | None = None) -> None:
    """Record ``n`` events of ``kind`` (see the module docstring) at place ``where``.

    The events count in :data:`COUNTERS` and in every :func:`counting` scope open in
    the current context.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    n : int, optional
        Number of events (default 1); ``0`` records nothing.
    where : str, optional
        Name of the place that recorded, e.g. ``"power.planar"``.

    Returns
    -------
    None

    Raises
    ------
    InternalError
        ``kind`` is not one of :data:`KINDS` (a programming error in tropattn).

    Examples
    --------
    >>> with counting() as c:
    ...     record("certified", where="example")
    >>> c.certified, c.by_place["certified:example"]
    (1, 1)
    >>> with counting() as outer:
    ...     with counting() as inner:
    ...         record("fallbacks", 2)
    >>> outer.fallbacks, inner.fallbacks                 # nested scopes both count
    (2, 2)
    """
    if kind not in KINDS:
        raise InternalError(f"unknown counter kind {kind!r}; expected one of {KINDS}")
    if n:
        COUNTERS.add(kind, n, where)
        for scope in _SCOPES.get():
            scope.add(kind, n, where)


def merge(snapshot: dict) -> None:
    """Record the counts of a :meth:`Counters.snapshot` (work done in another process).

    Each ``by_place`` entry is recorded at its place; the rest of each kind's total
    is recorded without a place, so the totals come out equal to the snapshot's.

    Parameters
    ----------
    snapshot : dict
        As returned by :meth:`Counters.snapshot`; missing kinds count as 0.

    Returns
    -------
    None

    Raises
    ------
    InternalError
        A kind (a key, or the part before ``:`` of a ``by_place`` key) that is not in
        :data:`KINDS`.  A ``by_place`` key without ``:`` raises ``ValueError``.

    Examples
    --------
    >>> with counting() as c:
    ...     merge({"certified": 2, "fallbacks": 1, "by_place": {"certified:power.line": 2}})
    >>> c.certified, c.fallbacks, c.by_place["certified:power.line"]
    (2, 1, 2)
    """
    places = snapshot.get("by_place", {})
    placed = Counter()
    for key, n in places.items():
        kind, where = key.split(":", 1)
        record(kind, n, where)
        placed[kind] += n
    for kind in KINDS:
        record(kind, snapshot.get(kind, 0) - placed[kind])


@contextmanager
def counting():
    """Count the events of a block (and of everything it calls) in a fresh :class:`Counters`.

    Scopes nest: an event counts in every open scope of the current context.

    Yields
    ------
    Counters
        The counts of this scope; they stay readable after the block ends.

    Examples
    --------
    >>> with counting() as c:
    ...     record("exact_lps", 3, where="example")
    >>> c.exact_lps, c.certified
    (3, 0)
    """
    scope = Counters()
    token = _SCOPES.set(_SCOPES.get() + (scope,))
    try:
        yield scope
    finally:
        _SCOPES.reset(token)
