r"""The temperature conventions: standard attention against the paper's, on raw ``q . k`` scores.

Standard scaled dot-product attention is ``softmax(q k^T / sqrt(d_k))``: in score form with
raw scores ``q . k`` that is ``tau = sqrt(d_k)`` (:func:`standard_temperature`).  The paper
(docs/THEORY.md §5) calls ``tau = 1/sqrt(d_k)`` standard (:func:`paper_temperature`); for
``d_k = 64`` that softmax is 64 times sharper than a real transformer's
(:func:`compare_conventions`).  :func:`raw_score_form` keeps the raw scores exact and puts
the irrational ``sqrt(d_k)`` into the temperature.

>>> c = compare_conventions(raw_margin=2.0, d_k=64)
>>> c.paper.exponent, c.standard.exponent, c.sharpness           # e^{-16} against e^{-0.25}
(-16.0, -0.25, 64.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import finite_float, positive_int
from ..attention import Head
from ..exact import to_rational_matrix
from ._bounds import weight_bounds
from .._doc import fill_doc

__all__ = ["standard_temperature", "paper_temperature", "raw_score_form", "Convention", "ConventionComparison",
           "compare_conventions"]

#: Docstring fragments shared by the functions of this module (see tropattn._doc).
_DOC = {
    "d_k": """d_k : int
    Key dimension ``>= 1``.""",
    "raises_dk": """Raises
------
InvalidInputError
    ``d_k`` is not a positive integer.""",
}


@fill_doc(**_DOC)
def standard_temperature(d_k: int) -> float:
    """Temperature of standard attention ``softmax(q.k / sqrt(d_k))`` on raw scores ``q.k``: ``sqrt(d_k)``.

    Parameters
    ----------
    d_k : int
        Key dimension ``>= 1`` (an integer: ``2.5`` is refused, not truncated).

    Returns
    -------
    float
        ``sqrt(d_k)``.

    %(raises_dk)s

    Examples
    --------
    >>> standard_temperature(64)
    8.0
    >>> import numpy as np
    >>> from tropattn.soft import soft_weights
    >>> bool(np.isclose(soft_weights(([[8], [0]],), [[1.0]], standard_temperature(64))[0, 0],
    ...                 1 / (1 + np.exp(-1.0))))        # raw scores 8 and 0: softmax of (1, 0)
    True
    """
    return math.sqrt(positive_int(d_k, "d_k", meaning="the key dimension"))


@fill_doc(**_DOC)
def paper_temperature(d_k: int) -> float:
    """The paper's "standard" temperature ``1/sqrt(d_k)`` on raw ``q.k`` (a ``d_k`` times sharper softmax).

    The convention trap of docs/THEORY.md §5: this is ``1 / d_k`` times
    :func:`standard_temperature`.

    Parameters
    ----------
    %(d_k)s

    Returns
    -------
    float
        ``1 / sqrt(d_k)``.

    %(raises_dk)s

    Examples
    --------
    >>> paper_temperature(64)
    0.125
    >>> standard_temperature(64) / paper_temperature(64)
    64.0
    """
    return 1.0 / standard_temperature(d_k)


def raw_score_form(W_Q, context_keys, b_Q=None, d_k=None):
    """Standard attention as exact score form plus temperature.

    Scores of standard attention are ``q . k_j / sqrt(d_k)`` with ``q = W_Q x + b_Q``.
    Keep the raw scores exact: ``a_j = W_Q^T k_j``, ``b_j = b_Q . k_j`` and put
    ``sqrt(d_k)`` (irrational in general) into ``tau = sqrt(d_k)``.  The hard
    skeleton does not depend on ``tau``; the soft map at ``tau`` is standard
    attention exactly when ``tau = sqrt(d_k)`` (``d_k`` defaults to the rows of ``W_Q``).

    Parameters
    ----------
    W_Q : array_like, shape (d_k, d)
        Query weights (exact rationals).
    context_keys : array_like, shape (N, d_k)
        The keys ``k_j`` of the fixed context.
    b_Q : array_like, shape (d_k,), optional
        Query bias (default 0).
    d_k : int, optional
        Key dimension of the ``sqrt(d_k)`` (default: the rows of ``W_Q``).

    Returns
    -------
    tuple
        ``(keys, offsets, tau)``: keys ``(N, d)`` and offsets ``(N,)`` as exact tuples
        of Fractions, ``tau = sqrt(d_k)`` a float.

    Raises
    ------
    InvalidInputError
        A matrix or vector of the wrong shape or with a NaN or infinite entry, or
        ``d_k < 1``.

    Examples
    --------
    >>> keys, offsets, tau = raw_score_form([[1, 0], [0, 1]], [[2, 0], [0, 4]], b_Q=[1, 1])
    >>> [[int(v) for v in k] for k in keys], [int(v) for v in offsets], tau
    ([[2, 0], [0, 4]], [2, 4], 1.4142135623730951)
    """
    W = to_rational_matrix(W_Q, "W_Q")
    identity = [[int(r == c) for c in range(len(W))] for r in range(len(W))]
    head = Head.from_weights(W, identity, None, None, context_keys, b_Q=b_Q)
    return head.keys, head.offsets, standard_temperature(len(W) if d_k is None else d_k)


@dataclass(frozen=True)
class Convention:
    """One temperature convention at a raw margin: ``tau``, ``-Delta/tau`` and the weight defect.

    Attributes
    ----------
    tau : float
        The temperature on raw ``q . k`` scores.
    exponent : float
        ``-Delta / tau``.
    e_exponent : float
        ``e^{-Delta/tau}``.
    weight_defect : float
        The attained ``1 - p*`` with the other keys tied at the margin (the worst case).
    weight_bound : float
        The simple bound ``(N-1) e^{-Delta/tau}``.
    """

    tau: float
    exponent: float
    e_exponent: float
    weight_defect: float
    weight_bound: float


@dataclass(frozen=True)
class ConventionComparison:
    """Both conventions on one example (:func:`compare_conventions`).

    Attributes
    ----------
    raw_margin : float
    d_k : int
    n_keys : int
    paper, standard : Convention
    """

    raw_margin: float
    d_k: int
    n_keys: int
    paper: Convention
    standard: Convention

    @property
    def sharpness(self) -> float:
        """How many times sharper the paper's softmax is: ``tau_standard / tau_paper = d_k``."""
        return self.standard.tau / self.paper.tau


def compare_conventions(raw_margin: float = 2.0, d_k: int = 64, n_keys: int = 2) -> ConventionComparison:
    """Both temperature conventions on one example: the paper's e^{-16} against the standard e^{-0.25}.

    The trap: with raw scores ``q . k``, standard attention divides by ``sqrt(d_k)``,
    i.e. runs at ``tau = sqrt(d_k)`` (8 for ``d_k = 64``).  The paper calls
    ``tau = 1/sqrt(d_k)`` (0.125) standard, so its defect ``e^{-Delta/tau}`` with a raw
    margin ``Delta = 2`` is ``e^{-16}`` where a real transformer has ``e^{-0.25}``: a
    ``d_k = 64`` times sharper softmax, and a defect about 1e6 times smaller.
    The exact weight defect uses ``n_keys - 1`` losers tied at the margin (worst case).
    See docs/THEORY.md §5.

    Parameters
    ----------
    raw_margin : float, optional
        Margin ``Delta`` of the raw scores ``q . k`` (default 2).
    d_k : int, optional
        Key dimension (default 64).
    n_keys : int, optional
        Number of keys ``N >= 1`` (default 2).

    Returns
    -------
    ConventionComparison
        ``paper`` and ``standard`` :class:`Convention` records and their ``sharpness``.

    Raises
    ------
    InvalidInputError
        A margin that is not a finite number, ``d_k < 1`` or ``n_keys < 1``.

    Examples
    --------
    >>> c = compare_conventions()
    >>> c.paper.exponent, c.standard.exponent, c.sharpness
    (-16.0, -0.25, 64.0)
    >>> round(c.standard.weight_defect, 3)                   # 1 / (1 + e^{0.25})
    0.438
    """
    margin = finite_float(raw_margin, "raw_margin", meaning="the raw score margin")
    d_k = positive_int(d_k, "d_k", meaning="the key dimension")
    n_keys = positive_int(n_keys, "n_keys", meaning="the number of keys")
    records = {}
    for name, tau in (("paper", paper_temperature(d_k)), ("standard", standard_temperature(d_k))):
        x = -margin / tau
        _, exact = weight_bounds(margin, tau, n_keys, sharp=True)
        records[name] = Convention(tau=tau, exponent=x, e_exponent=math.exp(x), weight_defect=float(exact),
                                   weight_bound=float(weight_bounds(margin, tau, n_keys)[1]))
    return ConventionComparison(raw_margin=margin, d_k=d_k, n_keys=n_keys, **records)
