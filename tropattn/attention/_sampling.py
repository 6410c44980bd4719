"""Boxes and samples of query space, exact labels and distances to the walls: what pictures and numerics share.

A head's cells are the power cells of its keys (docs/THEORY.md §2).  :func:`default_box`
is a window that shows every wall, :func:`resolve_box` reads a box given as ``R`` or
``(lo, hi)``, :func:`sample_points` draws uniform points of a box with their exact labels
(:func:`~tropattn.attention.hard_labels`) and their float distance to the walls of their
cells (:func:`cell_walls`, :func:`wall_distance`): the δ-regions of docs/THEORY.md §5 and the
windows of the pictures in :mod:`tropattn.plot`.

>>> X, labels, dist, keep = sample_points(([[1], [-1]],), (-1, 1), 50, seed=0, delta=0.25)
>>> bool(np.all(np.abs(X[keep, 0]) >= 0.25)), resolve_box(2, ([[1, 0]],))[1].tolist()
(True, [2.0, 2.0])
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import bounded_float, positive_int
from ..errors import DegenerateInputError, InvalidInputError
from ..exact import facets, interior_point, to_float_array, to_rational
from ..geometry import PowerDiagram
from ._arrays import HeadArrays, as_heads, hard_labels, head_arrays
from .._doc import fill_doc

__all__ = ["cell_walls", "wall_distance", "default_box", "resolve_box", "sample_points"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "heads": """heads : head, list of heads, Layer or one-layer Transformer
    Anything :func:`as_heads` reads; several heads have
    their outputs summed.""",
    "head": """head : Head, HeadArrays, mapping or tuple
    Anything :func:`head_arrays` reads.""",
}


@fill_doc(**_DOC)
def cell_walls(head, method: str = "diagram") -> tuple:
    """The facet rows ``(A, b)`` (``A x <= b``) of each exact cell, ``None`` for hidden sites.

    ``method="diagram"`` reads them from the power diagram (``head.power_diagram()``
    when the head has one, else :class:`tropattn.geometry.PowerDiagram` of its keys and
    offsets); ``method="walls"`` reduces the wall rows ``(a_k - a_j) . x <= b_j - b_k``
    of each cell to facets with :func:`tropattn.exact.interior_point` and
    :func:`tropattn.exact.facets` (an independent route).  Rows are returned as float
    arrays: they are used for distances only.

    Parameters
    ----------
    %(head)s
    method : {"diagram", "walls"}, optional
        Which exact route finds the facets (default ``"diagram"``).

    Returns
    -------
    tuple
        One entry per key: ``None`` if its cell is empty, else ``(A, b)`` with ``A`` a
        float array of shape ``(m, d)`` and ``b`` of shape ``(m,)`` (``m = 0`` when the
        cell is all of ``R^d``).

    Raises
    ------
    InvalidInputError
        A head that cannot be read, or ``method`` not ``"diagram"`` or ``"walls"``.

    Examples
    --------
    >>> walls = cell_walls(([[0], [1], [2]], [0, 0, -2]), method="walls")   # (-inf,0], [0,2], [2,inf)
    >>> [w[0].ravel().tolist() for w in walls]
    [[1.0], [-1.0, 1.0], [-1.0]]
    >>> diagram = cell_walls(([[0], [1], [2]], [0, 0, -2]))
    >>> all(np.array_equal(u[0], v[0]) and np.array_equal(u[1], v[1]) for u, v in zip(walls, diagram))
    True
    """
    h = head_arrays(head)
    if method == "diagram":
        return tuple(None if c is None else (to_float_array(c.A).reshape(len(c.A), h.dim), to_float_array(c.b))
                     for c in _diagram(h).cells())
    if method != "walls":
        raise InvalidInputError(f"method = {method!r}; use 'diagram' or 'walls'")
    out = []
    for j in range(h.N):
        rows = [(tuple(ak - aj for ak, aj in zip(h.keys[k], h.keys[j])), h.offsets[j] - h.offsets[k])
                for k in range(h.N) if k != j]
        A, b = [r for r, _ in rows], [c for _, c in rows]
        cert = interior_point(A, b) if rows else None
        if cert is not None and not cert.feasible:
            out.append(None)
            continue
        keep = [i for i in facets(A, b, cert.point).rows if any(A[i])] if rows else []
        out.append((to_float_array([A[i] for i in keep]).reshape(len(keep), h.dim),
                    to_float_array([b[i] for i in keep])))
    return tuple(out)


def _diagram(h: HeadArrays):
    """The head's own power diagram, or one built from its keys and offsets."""
    make = getattr(h.source, "power_diagram", None)
    if callable(make):
        return make()

    return PowerDiagram.from_max_affine(h.keys, h.offsets)


@fill_doc(**_DOC)
def wall_distance(head, X, labels=None, walls=None) -> np.ndarray:
    """Euclidean distance from each point to the boundary of its own cell, ``(n,)``.

    For ``x`` inside the convex cell of ``j``, the distance to the boundary is the
    smallest distance to a facet hyperplane, and also to any wall hyperplane
    ``s_j = s_k`` (a redundant wall lies outside the cell), so this is
    ``min_{k: a_k != a_j} (s_j(x) - s_k(x)) / ||a_k - a_j||`` unless ``walls``
    (from :func:`cell_walls`) is given.  Labels default to :func:`hard_labels`;
    points on ties get distance 0.

    Parameters
    ----------
    %(head)s
    X : array_like, shape (n, d) or (d,)
        Finite float query points.
    labels : array_like of int, shape (n,), optional
        The cell of each point, ``-1`` for a tie (default: :func:`hard_labels`, exact).
    walls : tuple, optional
        The facets of every cell from :func:`cell_walls` (then only facets count).

    Returns
    -------
    numpy.ndarray, shape (n,)
        Distance from each point to the boundary of its cell (floats); ``inf`` for a
        cell that is all of ``R^d``, ``0`` on a tie.

    Raises
    ------
    InvalidInputError
        A head that cannot be read, or ``X`` of the wrong shape or not finite.

    Examples
    --------
    >>> wall_distance(([[1], [-1]],), [[0.5], [-2.0]]).tolist()
    [0.5, 2.0]
    >>> head = ([[0], [1], [2]], [0, 0, -2])            # cells (-inf, 0], [0, 2], [2, inf)
    >>> wall_distance(head, [[1.5]]).tolist(), wall_distance(head, [[1.5]], walls=cell_walls(head)).tolist()
    ([0.5], [0.5])
    """
    h = head_arrays(head)
    X = h.points(X)
    labels = hard_labels(h, X) if labels is None else np.asarray(labels, dtype=np.intp)
    dist = np.zeros(X.shape[0])
    ok = labels >= 0
    if walls is None:
        S = X[ok] @ h.A.T + h.b
        lab = labels[ok]
        rows = np.arange(len(lab))
        gaps = np.linalg.norm(h.A[lab][:, None, :] - h.A[None, :, :], axis=2)
        same = np.array([[h.keys[j] == h.keys[k] for k in range(h.N)] for j in range(h.N)])[lab]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(same, np.inf, (S[rows, lab][:, None] - S) / np.where(same, 1.0, gaps))
        dist[ok] = ratio.min(axis=1) if h.N > 1 else np.inf
        return dist
    for j in np.unique(labels[ok]):
        idx = np.flatnonzero(labels == j)
        A, b = walls[j]
        if len(A) == 0:
            dist[idx] = np.inf
            continue
        norms = np.linalg.norm(A, axis=1)
        dist[idx] = ((b - X[idx] @ A.T) / norms).min(axis=1)
    return dist


@fill_doc(**_DOC)
def default_box(heads) -> tuple:
    """A box ``[-R, R]^d`` that shows every wall of every head.

    ``R = 1.5 max(1, max_{a_j != a_k} |b_j - b_k| / ||a_j - a_k||)``: the point of each
    wall ``s_j = s_k`` nearest the origin lies well inside.  (The keys' own size does
    not matter: the query space is where the walls are.)

    Parameters
    ----------
    %(heads)s

    Returns
    -------
    tuple of numpy.ndarray
        ``(lo, hi)``, each of shape ``(d,)``: ``(-R, ..., -R)`` and ``(R, ..., R)``.

    Raises
    ------
    InvalidInputError
        A head :func:`as_heads` cannot read.

    Examples
    --------
    >>> default_box(([[1, 0], [-1, 0]], [3, -3]))[1].tolist()    # wall x = 3
    [4.5, 4.5]
    >>> default_box(([[1], [-1]],))[1].tolist()                   # wall x = 0: R = 1.5 * 1
    [1.5]
    """
    hs = as_heads(heads)
    R = 1.0
    for h in hs:
        for j, k in h._pairs:
            gap = np.linalg.norm(h.A[j] - h.A[k])
            if gap > 0:
                R = max(R, abs(h.b[j] - h.b[k]) / gap)
    R *= 1.5
    d = hs[0].dim
    return np.full(d, -R), np.full(d, R)


@fill_doc(**_DOC)
def resolve_box(box, heads) -> tuple:
    """The box ``(lo, hi)`` as float arrays of length d.

    ``box`` is None (:func:`default_box`), a number ``R`` (``[-R, R]^d``) or a pair
    ``(lo, hi)`` of numbers or length-d vectors (numbers may be strings like ``"1/2"``).

    Parameters
    ----------
    box : None, number or pair
        The box; a number ``R`` means ``[-|R|, |R|]^d``.
    %(heads)s

    Returns
    -------
    tuple of numpy.ndarray
        ``(lo, hi)``, float arrays of shape ``(d,)`` with ``lo < hi``.

    Raises
    ------
    InvalidInputError
        A box that is none of the forms above, not a number, infinite, of the wrong
        length, with ``lo >= hi`` in some coordinate (``R = 0`` included), or a head :func:`as_heads` cannot read.

    Examples
    --------
    >>> [v.tolist() for v in resolve_box((-1, "1/2"), ([[1, 0]],))]
    [[-1.0, -1.0], [0.5, 0.5]]
    >>> [v.tolist() for v in resolve_box(2, ([[1, 0]],))]
    [[-2.0, -2.0], [2.0, 2.0]]
    """
    d = as_heads(heads)[0].dim
    if box is None:
        return default_box(heads)
    if np.ndim(box) == 0:
        r = abs(float(to_rational(box, "box")))
        lo, hi = -r, r
    else:
        try:
            lo, hi = box
        except (TypeError, ValueError):
            raise InvalidInputError(
                f"box = {box!r}; expected R (for [-R, R]^d), a pair (lo, hi) of numbers, or of length-{d} vectors"
            ) from None
    try:
        lo, hi = (np.broadcast_to([float(to_rational(v, "box")) for v in np.ravel(np.asarray(side, dtype=object))],
                                  (d,)).astype(float) for side in (lo, hi))
    except ValueError:
        raise InvalidInputError(f"box = {box!r}; lo and hi must be numbers or vectors of length {d}") from None
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo < hi)):
        raise InvalidInputError(f"box has lo = {lo.tolist()}, hi = {hi.tolist()}; need finite lo < hi "
                                "in every coordinate")
    return lo, hi


@fill_doc(**_DOC)
def sample_points(heads, box=None, n_samples: int = 2000, seed: int = 0, delta: float = 0.0):
    """Uniform points of a box with their exact labels and their distance to the walls.

    The labels are exact (:func:`hard_labels`); the distances are floats
    (:func:`wall_distance` to the facets of :func:`cell_walls`).

    Parameters
    ----------
    %(heads)s
    box : None, number or pair, optional
        The sampling box, as :func:`resolve_box` reads it (default :func:`default_box`).
    n_samples : int, optional
        Number of points ``n >= 1`` (default 2000).
    seed : int, optional
        Seed of :func:`numpy.random.default_rng` (default 0).
    delta : float, optional
        Distance from the walls, finite and ``>= 0`` (default 0).

    Returns
    -------
    tuple
        ``(X, labels, distance, keep)``: ``X`` of shape ``(n, d)``; ``labels`` of shape
        ``(H, n)`` (exact; ``-1`` on a tie); ``distance`` of shape ``(n,)``, the distance
        to the nearest wall of the point's cell in any head (the cells of the overlay);
        ``keep``, boolean ``(n,)``, marks the untied points at distance ``>= delta`` from
        every wall: the δ-region of docs/THEORY.md §5.

    Raises
    ------
    InvalidInputError
        ``n_samples < 1``, a negative or non-finite ``delta``, a bad ``box``, or a head :func:`as_heads` cannot read.
    DegenerateInputError
        Two keys of one head are equal with equal offsets (their scores tie everywhere).

    Examples
    --------
    >>> X, labels, dist, keep = sample_points(([[1], [-1]],), (-1, 1), 100, seed=1, delta=0.5)
    >>> bool(np.all(np.abs(X[keep, 0]) >= 0.5)), bool(np.all(labels[0, keep] == (X[keep, 0] < 0)))
    (True, True)
    """
    hs = as_heads(heads)
    n_samples = positive_int(n_samples, "n_samples", meaning="the number of sample points")
    delta = bounded_float(delta, "delta", 0, math.inf, meaning="the distance to the walls", open_hi=True)
    for h in hs:
        same = [(j, k) for j, k in h._pairs if h.keys[j] == h.keys[k] and h.offsets[j] == h.offsets[k]]
        if same:
            raise DegenerateInputError(
                f"keys {same[0][0]} and {same[0][1]} are equal with equal offsets: their scores tie "
                "everywhere, so soft attention splits their weight and no hard label exists; "
                "merge the two keys (their values averaged is what soft attention computes)")
    lo, hi = resolve_box(box, hs)
    rng = np.random.default_rng(seed)
    X = lo + (hi - lo) * rng.random((n_samples, hs[0].dim))
    labels = np.stack([hard_labels(h, X) for h in hs])
    dist = np.full(X.shape[0], np.inf)
    for h, lab in zip(hs, labels):
        dist = np.minimum(dist, wall_distance(h, X, lab, walls=cell_walls(h)))
    keep = np.all(labels >= 0, axis=0) & (dist >= delta)
    return X, labels, dist, keep
