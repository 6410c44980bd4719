"""Attention with a fixed context: heads, layers, transformers, soft kernels, the dual count, constructions.

>>> head = Head([[0], [1], [2]], [0, 0, -1])          # scores 0, x, 2x - 1
>>> head.label([-1]), head.label(["1/2"]), head.label([3])
(0, 1, 2)
"""

from ._constructions import grid_count, grid_heads, grid_model, random_model, sawtooth_count, sawtooth_model
from ._dual import count_dual
from ._head import Head
from ._layer import FFN, Layer, MultiHeadAttention, Transformer
from ._slicing import precompose_head, precompose_layer, slice_model, slice_through, token_points
from ._soft import HeadArrays, head_arrays

__all__ = [
    "Head", "FFN", "Layer", "Transformer", "MultiHeadAttention", "count_dual", "HeadArrays", "head_arrays",
    "grid_heads", "grid_model", "grid_count", "sawtooth_model", "sawtooth_count", "random_model",
    "slice_model", "slice_through", "token_points", "precompose_head", "precompose_layer",
]
