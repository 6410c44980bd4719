"""A GPT-2 ``config.json`` read field by field: what the skeleton follows, checks, ignores or refuses.

Followed (they change the model's forward, and the skeleton's context forward does the same):

* ``n_head`` (``num_attention_heads``): heads per block;
* ``activation_function``: ``relu``, ``gelu`` / ``gelu_python`` (erf), ``gelu_new`` /
  ``gelu_pytorch_tanh`` / ``gelu_python_tanh`` (tanh form), ``gelu_fast``, ``quick_gelu``,
  ``silu`` / ``swish``; any other is refused;
* ``layer_norm_epsilon``;
* ``scale_attn_weights`` (scores over ``sqrt(head dim)``, default true) and
  ``scale_attn_by_inverse_layer_idx`` (also over ``layer + 1``): the score scale of each block.

Checked against the tensors (a mismatch is a :class:`~tropattn.errors.ModelFileError`):
``n_embd``, ``n_layer``, ``n_inner`` (null: ``4 n_embd``), ``n_positions``, ``vocab_size``.

Refused when set: ``add_cross_attention`` (cross-attention blocks), a ``model_type`` other
than ``gpt2``.  ``reorder_and_upcast_attn`` only changes float32 rounding (the soft forward
here is float64) and is accepted; dropouts, ``initializer_range``, ``summary_*``, token ids,
``tie_word_embeddings`` (``lm_head`` is not read) and every other field do not change the
evaluation-mode forward of the blocks and are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InvalidInputError, ModelFileError

__all__ = ["GPT2Settings", "gpt2_settings", "check_shapes", "HF_ACTIVATIONS"]

#: ``activation_function`` of a Hugging Face config -> the activation of the skeleton's soft forward.
HF_ACTIVATIONS = {"relu": "relu", "gelu": "gelu", "gelu_python": "gelu", "gelu_new": "gelu_tanh",
                  "gelu_pytorch_tanh": "gelu_tanh", "gelu_python_tanh": "gelu_tanh", "gelu_fast": "gelu_fast",
                  "quick_gelu": "quick_gelu", "silu": "silu", "swish": "silu"}


@dataclass(frozen=True)
class GPT2Settings:
    """What the blocks of a GPT-2 checkpoint need beyond its tensors (defaults: GPT-2's own)."""

    n_head: int
    eps: float = 1e-5
    activation: str = "gelu_tanh"
    scale_attn_weights: bool = True
    scale_by_layer: bool = False
    checks: tuple = ()

    def score_dk(self, head_dim: int, layer: int):
        """The ``d_k`` of the score scale ``1/sqrt(d_k)`` of block ``layer`` (an integer).

        >>> GPT2Settings(2).score_dk(8, 2), GPT2Settings(2, scale_attn_weights=False, scale_by_layer=True).score_dk(8, 2)
        (8, 9)
        """
        dk = head_dim if self.scale_attn_weights else 1
        return dk * (layer + 1) ** 2 if self.scale_by_layer else dk


def _flag(config, name, default, where):
    value = config.get(name, default)
    if not isinstance(value, bool):
        raise ModelFileError(f"{where}: \"{name}\" is {value!r}; expected true or false")
    return value


def _number(config, name, where, kind=int):
    value = config.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and value != int(value)):
        raise ModelFileError(f"{where}: \"{name}\" is {value!r}; expected {'an integer' if kind is int else 'a number'}")
    return kind(value)


def gpt2_settings(config, n_head=None, where="config.json") -> GPT2Settings:
    """The settings of a GPT-2 ``config.json`` (a dict, or None for GPT-2's defaults), field by field.

    Parameters
    ----------
    config : dict or None
        The parsed ``config.json``.
    n_head : int, optional
        Heads per block, overriding the config (required when there is no config).
    where : str, optional
        The file's name in messages.

    Returns
    -------
    GPT2Settings
        ``checks`` lists ``(field, value)`` pairs to compare with the tensors' shapes.

    Raises
    ------
    InvalidInputError
        If the number of heads is neither given nor in the config.
    ModelFileError
        A field the skeleton cannot follow (the message names it and says why), or a
        malformed value.

    Examples
    --------
    >>> s = gpt2_settings({"n_head": 4, "activation_function": "relu", "layer_norm_epsilon": 0.01})
    >>> s.n_head, s.activation, s.eps
    (4, 'relu', 0.01)
    >>> gpt2_settings({"n_head": 4, "activation_function": "tanh"})      # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: config.json: "activation_function" is 'tanh'; ...
    """
    config = {} if config is None else config
    heads = n_head if n_head is not None else config.get("n_head", config.get("num_attention_heads"))
    if heads is None:
        raise InvalidInputError("the number of heads is not stored in a GPT-2 state dict; pass n_head (CLI: --heads "
                                "N) or put a config.json with \"n_head\" next to the checkpoint")
    if isinstance(heads, bool) or not isinstance(heads, int) or heads < 1:
        raise InvalidInputError(f"n_head = {heads!r}; the number of heads is a positive integer")
    model_type = config.get("model_type", "gpt2")
    if model_type != "gpt2":
        raise ModelFileError(f"{where}: \"model_type\" is {model_type!r}; tropattn reads GPT-2 checkpoints "
                             "(model_type \"gpt2\") only")
    if _flag(config, "add_cross_attention", False, where):
        raise ModelFileError(f"{where}: \"add_cross_attention\" is true; cross-attention blocks (an encoder's "
                             "states as extra keys) are not part of the skeleton: use a decoder-only GPT-2")
    act = config.get("activation_function", "gelu_new")
    if act not in HF_ACTIVATIONS:
        raise ModelFileError(f"{where}: \"activation_function\" is {act!r}; the context forward follows "
                             f"{', '.join(HF_ACTIVATIONS)} (any other activation is not supported)")
    eps = _number(config, "layer_norm_epsilon", where, float)
    if eps is not None and eps < 0:
        raise ModelFileError(f"{where}: \"layer_norm_epsilon\" is {eps!r}; expected a number >= 0")
    checks = [(name, _number(config, name, where)) for name in ("n_embd", "n_layer", "n_inner", "n_positions",
                                                                 "vocab_size")]
    if config and checks[2][1] is None:
        checks[2] = ("n_inner", "4 n_embd")          # null or absent in a config: GPT-2's default width
    return GPT2Settings(int(heads), 1e-5 if eps is None else eps, HF_ACTIVATIONS[act],
                        _flag(config, "scale_attn_weights", True, where),
                        _flag(config, "scale_attn_by_inverse_layer_idx", False, where),
                        tuple((k, v) for k, v in checks if v is not None))


def check_shapes(settings: GPT2Settings, *, d, n_layer, inner, positions, vocab, where="config.json") -> None:
    """Refuse a config whose sizes are not those of the tensors (field by field).

    Parameters
    ----------
    settings : GPT2Settings
        With its ``checks``.
    d, n_layer, inner, positions, vocab : int
        The sizes read from the tensors (``inner``: the FFN width, the same in every block).
    where : str, optional
        The file's name in messages.

    Raises
    ------
    ModelFileError
        The first field that disagrees.

    Examples
    --------
    >>> check_shapes(gpt2_settings({"n_head": 2, "n_inner": None, "n_embd": 8}), d=8, n_layer=1, inner=32,
    ...              positions=16, vocab=10)                    # n_inner null: 4 * n_embd
    >>> check_shapes(gpt2_settings({"n_head": 2}), d=8, n_layer=1, inner=16, positions=16, vocab=10)
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: config.json: "n_inner" is null (4 n_embd = 32) but the checkpoint's tensors have 16
    >>> check_shapes(gpt2_settings({"n_head": 2, "n_inner": 16}), d=8, n_layer=1, inner=32, positions=16, vocab=10)
    Traceback (most recent call last):
    ...
    tropattn.errors.ModelFileError: config.json: "n_inner" is 16 but the checkpoint's tensors have 32
    """
    found = {"n_embd": d, "n_layer": n_layer, "n_inner": inner, "n_positions": positions, "vocab_size": vocab}
    for name, value in settings.checks:
        expected = 4 * d if value == "4 n_embd" else value
        if expected != found[name]:
            said = f"null (4 n_embd = {4 * d})" if value == "4 n_embd" else value
            raise ModelFileError(f"{where}: \"{name}\" is {said} but the checkpoint's tensors have {found[name]}")
