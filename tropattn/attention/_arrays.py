"""The float view of a head (``RR``): exact data plus the float arrays soft numerics and pictures use.

A head over ``QQ`` (:class:`~tropattn.attention.Head`) computes exactly; its float view
:class:`HeadArrays` keeps the exact keys, offsets and values beside float64 copies and the
spreads and gaps the bounds of docs/THEORY.md §5 use.  :func:`head_arrays` reads any head
form (a ``Head``, a mapping, a tuple), :func:`as_heads` one head or several (a layer, a
one-layer model), and :func:`hard_labels` decides the exact argmax of float points.

>>> h = head_arrays(([[1], [-1]],))                  # scores x and -x
>>> h.A.ravel().tolist(), hard_labels(h, [[0.5], [0.0], [-2.0]]).tolist()
([1.0, -1.0], [0, -1, 1])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._config import config
from .._validate import float_array
from ..errors import InvalidInputError, MovedError
from ..exact import common_denominator, dot_signs, homogeneous_point, to_float_array, to_rational_matrix
from ._score_form import score_form

__all__ = ["HeadArrays", "head_arrays", "as_heads", "hard_labels"]


@dataclass(frozen=True, eq=False)
class HeadArrays:
    """The float view of a head: exact rationals plus the float arrays the soft computations use.

    Attributes
    ----------
    keys, offsets, values : tuples of Fraction
        ``(N, d)``, ``(N,)`` and ``(N, d_out)``, exact.
    A, b, V : numpy.ndarray
        The same as float64 arrays (read-only).
    score_scale : float
        Factor on the scores in the soft map, read from ``head.score_scale``
        (``Head.from_weights`` sets ``1/sqrt(d_k)``): the soft map at ``tau`` is softmax of
        the raw scores at ``tau / score_scale`` (:mod:`tropattn.soft`).
    value_spread : (N,) array
        ``M_j = max_k ||v_k - v_j||``: the output bound's constant when ``j* = j``.
    value_diameter : float
        ``D_V = max_{j,l} ||v_j - v_l||``.
    key_spread : (N,) array
        ``D_A(j) = max_k ||a_k - a_j||``.
    key_gap : (N,) array
        ``g_j = min_{k: a_k != a_j} ||a_k - a_j||`` (``inf`` if there is no such k).
    tie_gap : (N,) array
        ``min_{k != j: a_k = a_j} (b_j - b_k)``: the constant margin over repeated keys
        (``inf`` if key ``j`` is not repeated).
    source : object or None
        The object read, if it has a ``power_diagram()`` method (a ``Head``): exact cells
        are then taken from it (:func:`cell_walls`).
    """

    keys: tuple
    offsets: tuple
    values: tuple
    A: np.ndarray
    b: np.ndarray
    V: np.ndarray
    value_spread: np.ndarray
    value_diameter: float
    key_spread: np.ndarray
    key_gap: np.ndarray
    tie_gap: np.ndarray
    _pairs: tuple
    _pair_rows: tuple
    source: object = None
    score_scale: float = 1.0

    def points(self, X) -> np.ndarray:
        """Query points for this head as a finite float array of shape ``(n, d)``.

        Parameters
        ----------
        X : array_like, shape (n, d) or (d,)
            Finite float query points (one point may be given as a vector).

        Returns
        -------
        numpy.ndarray, shape (n, d)

        Raises
        ------
        InvalidInputError
            ``X`` has the wrong shape, or a NaN or infinite coordinate.

        Examples
        --------
        >>> head_arrays(([[1, 0], [0, 1]],)).points([2.0, 3.0]).tolist()
        [[2.0, 3.0]]
        """
        X = float_array(X, "X", allow_empty=True)
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.dim:
            raise InvalidInputError(f"X has shape {X.shape}; expected (n, {self.dim}) or ({self.dim},) query points")
        return X

    def __getattr__(self, name):
        if name == "temperature":
            raise MovedError("HeadArrays.temperature was removed from the API; the soft kernels of tropattn.soft "
                             "validate tau and use tau / head.score_scale on the raw scores")
        raise AttributeError(f"'HeadArrays' object has no attribute {name!r}")

    @property
    def N(self) -> int:
        """Number of keys."""
        return len(self.keys)

    @property
    def dim(self) -> int:
        """Query dimension ``d``."""
        return self.A.shape[1]

    @property
    def dim_out(self) -> int:
        """Value dimension."""
        return self.V.shape[1]


def head_arrays(head) -> HeadArrays:
    """Read a head by duck typing and precompute what the bounds need.

    ``head`` is a :class:`HeadArrays`, an object with attributes ``keys``,
    ``offsets``, ``values`` (such as :class:`tropattn.attention.Head`), a mapping with
    those keys, or a tuple ``(keys[, offsets[, values]])``.  Offsets default to 0 and
    values to the keys, as for ``Head``.

    Parameters
    ----------
    head : HeadArrays, Head, mapping or tuple
        The head; a :class:`HeadArrays` is returned unchanged and a ``Head``'s arrays
        are cached on it.

    Returns
    -------
    HeadArrays
        The exact data (checked by :func:`~tropattn.attention._score_form.score_form`),
        its float64 copies and the spreads and gaps the bounds use.

    Raises
    ------
    InvalidInputError
        ``head`` is none of the forms above (a list is several heads: use
        :func:`as_heads`), or its keys, offsets, values or scale are invalid.

    Examples
    --------
    Two keys at distance ``sqrt(2)``, values 1 and 3:

    >>> h = head_arrays(([[1, 0], [0, 1]], None, [[1], [3]]))
    >>> h.N, h.dim, h.dim_out, h.value_diameter
    (2, 2, 1, 2.0)
    >>> round(float(h.key_gap[0]) ** 2, 12), h.tie_gap.tolist()       # no repeated key
    (2.0, [inf, inf])
    """
    if isinstance(head, HeadArrays):
        return head
    scale = 1.0
    if isinstance(head, Mapping):
        keys, offsets, values = head.get("keys"), head.get("offsets"), head.get("values")
        scale = head.get("score_scale", 1.0)
    elif hasattr(head, "keys") and not isinstance(head, (tuple, list)):
        keys, offsets, values = head.keys, getattr(head, "offsets", None), getattr(head, "values", None)
        scale = getattr(head, "score_scale", 1.0)
    elif isinstance(head, tuple) and 1 <= len(head) <= 3:
        keys, offsets, values = (tuple(head) + (None, None))[:3]
    else:
        raise InvalidInputError(
            f"cannot read a head from {type(head).__name__}; pass a Head, a mapping with 'keys' "
            "(and optionally 'offsets', 'values'), or a tuple (keys, offsets, values); "
            "a list means several heads")
    cache = getattr(head, "_cache", None)          # a Head: validated already, arrays cached on it
    if isinstance(cache, dict) and "arrays" in cache:
        return cache["arrays"]
    numbers = getattr(head, "_require_numbers", None)
    if callable(numbers):
        numbers("a float view (head_arrays)")
    K, B, Vq, scale = score_form(keys, offsets, values, scale)
    n = len(K)
    A, b, V = (_readonly(to_float_array(M)) for M in (K, B, Vq))
    vdist = np.linalg.norm(V[:, None, :] - V[None, :, :], axis=2)
    adist = np.linalg.norm(A[:, None, :] - A[None, :, :], axis=2)
    same_key = np.array([[K[j] == K[k] for k in range(n)] for j in range(n)])
    gaps = np.where(same_key, np.inf, adist)
    tie = np.full(n, np.inf)
    for j in range(n):
        for k in range(n):
            if k != j and same_key[j, k]:
                tie[j] = min(tie[j], float(B[j] - B[k]))
    den = common_denominator([x for row in K for x in row] + list(B))
    rows = [tuple(int(v * den) for v in row) + (int(bj * den),) for row, bj in zip(K, B)]
    pairs = tuple((j, k) for j in range(n) for k in range(j + 1, n))
    pair_rows = tuple(tuple(x - y for x, y in zip(rows[j], rows[k])) for j, k in pairs)
    arrays = HeadArrays(keys=K, offsets=B, values=Vq, A=A, b=b, V=V,
                        value_spread=_readonly(vdist.max(axis=1)), value_diameter=float(vdist.max()),
                        key_spread=_readonly(adist.max(axis=1)), key_gap=_readonly(gaps.min(axis=1)),
                        tie_gap=_readonly(tie), _pairs=pairs, _pair_rows=pair_rows,
                        source=head if callable(getattr(head, "power_diagram", None)) else None,
                        score_scale=scale)
    if isinstance(cache, dict):
        cache["arrays"] = arrays
    return arrays


def _readonly(a):
    a = np.array(a, dtype=float)
    a.setflags(write=False)
    return a


def as_heads(heads) -> list:
    """One head or several as a list of :class:`HeadArrays`.

    Accepts a head (any form :func:`head_arrays` reads), a list of heads, a layer
    (anything with ``heads``; its ``projection``, if any, is folded into the values)
    or a one-layer model (anything with ``layers``).  The heads of a layer must share
    the query and value dimensions (their outputs are summed).

    Parameters
    ----------
    heads : head, list of heads, Layer or one-layer Transformer
        What to read; a tuple counts as several heads only if every item is a head
        (a ``HeadArrays``, a mapping or has ``offsets``), else as one head ``(keys, ...)``.

    Returns
    -------
    list of HeadArrays
        At least one, all with the same ``dim`` and ``dim_out``.

    Raises
    ------
    InvalidInputError
        A model with more or fewer than one layer, no heads, heads whose query or
        value dimensions differ, a projection of the wrong shape, or a head
        :func:`head_arrays` cannot read.

    Examples
    --------
    >>> [h.N for h in as_heads([([[1], [-1]],), ([[0], [1], [2]],)])]
    [2, 3]
    >>> from tropattn.attention import Head, Layer
    >>> layer = Layer([Head([[1], [-1]], values=[[1], [2]])], projection=[[2]])
    >>> [v.tolist() for v in as_heads(layer)[0].V]        # values folded through P = 2
    [[2.0], [4.0]]
    """
    if hasattr(heads, "layers"):
        layers = heads.layers
        if len(layers) != 1:
            raise InvalidInputError(
                f"the model has {len(layers)} layers; the bounds of docs/THEORY.md §5 are for one attention layer. "
                "Pass one layer (model.layers[0]) or its heads")
        heads = layers[0]
    if hasattr(heads, "heads"):
        projection = getattr(heads, "projection", None)
        hs = [head_arrays(h) for h in heads.heads]
        if projection is not None:
            hs = [_project(h, projection) for h in hs]
        heads = hs
    if isinstance(heads, list) or (isinstance(heads, tuple) and heads and
                                   all(isinstance(h, (HeadArrays, Mapping)) or hasattr(h, "offsets")
                                       for h in heads)):
        out = [head_arrays(h) for h in heads]
    else:
        out = [head_arrays(heads)]
    if not out:
        raise InvalidInputError("no heads given; pass a head or a non-empty list of heads")
    if len({(h.dim, h.dim_out) for h in out}) != 1:
        raise InvalidInputError(
            "the heads differ in query or value dimension: "
            + ", ".join(f"(d={h.dim}, d_out={h.dim_out})" for h in out)
            + "; heads of one layer must share both to be summed")
    return out


def _project(h: HeadArrays, P) -> HeadArrays:
    """Fold an output projection into the values: y = P sum_h v_h."""
    P = to_rational_matrix(P, "projection", cols=len(h.values[0]))
    values = tuple(tuple(sum(p * v for p, v in zip(row, val)) for row in P) for val in h.values)
    projected = head_arrays((h.keys, h.offsets, values))
    return HeadArrays(**{**projected.__dict__, "source": h.source, "score_scale": h.score_scale})


def hard_labels(head, X) -> np.ndarray:
    """Exact argmax ``j*(x)`` of float query points; ``-1`` where scores tie.

    Every float is a rational, so the comparison ``s_j(x) > s_k(x)`` has an exact
    answer; :func:`tropattn.exact.dot_signs` gives it (float filter, integer
    fallback), for every pair of keys and every point at once.

    Parameters
    ----------
    head : Head, HeadArrays, mapping or tuple
        Any form :func:`head_arrays` reads: keys ``(N, d)``, offsets ``(N,)``, values
        ``(N, d_out)``.
    X : array_like, shape (n, d) or (d,)
        Finite float query points (one point may be given as a vector).

    Returns
    -------
    numpy.ndarray of intp, shape (n,)
        The index of the key with the strictly largest score, ``-1`` on a tie (keys
        equal in ``a_j`` and ``b_j`` tie everywhere).  Exact.

    Raises
    ------
    InvalidInputError
        The head cannot be read (:func:`head_arrays`), or ``X`` has the wrong shape or a
        NaN or infinite coordinate.

    Examples
    --------
    ``-1e-300`` is a nonzero rational, so key 1 wins there exactly:

    >>> hard_labels(([[1], [-1]],), [[0.5], [0.0], [-1e-300]]).tolist()
    [0, -1, 1]
    """
    h = head_arrays(head)
    X = h.points(X)
    n = X.shape[0]
    if h.N == 1:
        return np.zeros(n, dtype=np.intp)
    cols = [_homogeneous_int(x) for x in X.tolist()]
    wins = np.zeros((h.N, n), dtype=np.int32)
    chunk = config.soft_block_points
    for start in range(0, n, chunk):
        block = dot_signs(list(h._pair_rows), cols[start:start + chunk])
        for (j, k), sign in zip(h._pairs, block):
            wins[j, start:start + len(sign)] += sign > 0
            wins[k, start:start + len(sign)] += sign < 0
    best = wins.argmax(axis=0)
    return np.where(wins.max(axis=0) == h.N - 1, best, -1).astype(np.intp)


def _homogeneous_int(x):
    """A float point as integers ``(n_1, ..., n_d, den)`` with ``x_i = n_i / den``, exactly."""
    num, den = homogeneous_point([Fraction(*v.as_integer_ratio()) for v in x])
    return tuple(num) + (den,)
