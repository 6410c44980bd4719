"""Attention with a fixed context: one head over a number domain, layers, transformers, constructions.

* **heads** -- :class:`Head` (score form ``s_j(x) = a_j . x + b_j``, exact over ``QQ``, or over
  ``EX`` when the weights hold sympy symbols; :meth:`Head.from_weights` for the weight form),
  :class:`SymbolicHead` (exact conditions on the parameters of an ``EX`` head),
  :func:`symbolic_product`, :func:`product_polynomial`;
* **the float view** -- :class:`HeadArrays` (:func:`head_arrays`, :func:`as_heads`), and
  :func:`hard_labels`, the exact argmax of float points;
* **layers** -- :class:`Layer`, :class:`FFN`, :class:`MultiHeadAttention`, :class:`Transformer`,
  and :func:`count_dual` (regions of one layer as upper vertices of a Minkowski sum);
* **boxes and samples** (for pictures and numerics alike) -- :func:`default_box`,
  :func:`resolve_box`, :func:`sample_points`, :func:`cell_walls`, :func:`wall_distance`;
* **slices** -- :func:`slice_model`, :func:`slice_through`, :func:`token_points`,
  :func:`precompose_head`, :func:`precompose_layer`;
* **constructions** -- :func:`grid_heads`, :func:`grid_model`, :func:`grid_count`,
  :func:`sawtooth_model`, :func:`sawtooth_count`, :func:`random_model`.

Soft attention (softmax weights, outputs, Jacobians, their bounds) is :mod:`tropattn.soft`.

>>> head = Head([[0], [1], [2]], [0, 0, -1])          # scores 0, x, 2x - 1
>>> head.label([-1]), head.label(["1/2"]), head.label([3])
(0, 1, 2)
>>> hard_labels(head, [[-1.0], [0.5], [3.0], [0.0]]).tolist()   # x = 0 is on the wall 0 | 1
[0, 1, 2, -1]
"""

from .._face import face
from ._arrays import HeadArrays, as_heads, hard_labels, head_arrays
from ._constructions import grid_count, grid_heads, grid_model, random_model, sawtooth_count, sawtooth_model
from ._dual import count_dual
from ._head import Head
from ._layer import FFN, Layer, MultiHeadAttention, Transformer
from ._sampling import cell_walls, default_box, resolve_box, sample_points, wall_distance
from ._slicing import precompose_head, precompose_layer, slice_model, slice_through, token_points
from ._symbolic import SymbolicHead, product_polynomial, symbolic_product

__all__ = [
    "Head", "SymbolicHead", "symbolic_product", "product_polynomial",
    "HeadArrays", "head_arrays", "as_heads", "hard_labels",
    "FFN", "Layer", "Transformer", "MultiHeadAttention", "count_dual",
    "default_box", "resolve_box", "sample_points", "cell_walls", "wall_distance",
    "slice_model", "slice_through", "token_points", "precompose_head", "precompose_layer",
    "grid_heads", "grid_model", "grid_count", "sawtooth_model", "sawtooth_count", "random_model",
]

__getattr__, __dir__ = face(__name__, __all__, moved={
    "soft": "tropattn.soft (soft attention: soft_weights, soft_output, log_soft_weights, soft_jacobian, margin)",
    "scores": "tropattn.soft.scores",
    "margin": "tropattn.soft.margin",
    "soft_weights": "tropattn.soft.soft_weights",
    "log_soft_weights": "tropattn.soft.log_soft_weights",
    "soft_output": "tropattn.soft.soft_output",
    "soft_jacobian": "tropattn.soft.soft_jacobian",
    "TAU_MIN": "tropattn.soft (the documented floor tau >= 1e-9)",
    "TIE_RULES": "internal; a head's ties is 'refuse' or 'first'",
    "check_tie_rule": "internal; Head(..., ties=...) checks the tie rule",
    "positive_int": "internal; the validators are tropattn._validate",
})
