"""config.json readers of decoders with a plain (two-matrix, biased) MLP that the Llama reading
would count as gated (each as its transformers modelling code builds the model):

- ``phi`` (Phi-1, Phi-1.5, Phi-2; modeling_phi.py): biased q/k/v and ``dense``, ``fc1``/``fc2``
  with biases, one LayerNorm before attention and MLP run in parallel (``PhiDecoderLayer``), a
  final LayerNorm and a biased, untied ``lm_head``. Phi-2: 2,779,683,840 parameters.
- ``gpt_neox`` (Pythia, GPT-NeoX-20B; modeling_gpt_neox.py): a fused ``query_key_value`` and
  ``dense`` biased unless ``attention_bias`` is false, ``dense_h_to_4h``/``dense_4h_to_h`` with
  biases, two LayerNorms a layer (``use_parallel_residual``: attention and MLP side by side), a
  final LayerNorm and an untied, bias-free ``embed_out``. Pythia-160M 162,322,944 and
  Pythia-6.9B 6,857,302,016 parameters (Biderman et al. 2023, Table 1).
"""

from __future__ import annotations

from collections.abc import Callable

from .hf_reader import Block, Reader, base


def _plain(r: Reader, block: Block, bias: bool, activation: str) -> Block:
    block.update(
        mlp="plain",
        activation=r.get("hidden_act", "activation_function", default=activation),
        norm="layernorm",
        qkv_bias=bias,
        attention_output_bias=bias,
        mlp_bias=True,
    )
    return block


def phi(r: Reader) -> Block:
    """Phi-1/1.5/2: one LayerNorm a layer, attention and MLP in parallel, a biased head."""
    block = _plain(r, base(r), True, "gelu_new")
    block.update(norms_per_layer=1, parallel_attention=True, lm_head_bias=True)
    if r.flag("qk_layernorm"):  # LayerNorms over each head's q and k
        block["qk_norm"] = "head"
    return block


def gpt_neox(r: Reader) -> Block:
    """GPT-NeoX / Pythia: fused q/k/v, two LayerNorms a layer, parallel residual by default."""
    block = _plain(r, base(r), r.flag("attention_bias", True), "gelu")
    block.update(norms_per_layer=2, parallel_attention=r.flag("use_parallel_residual", True), fused_qkv=True)
    return block


PLAIN_FAMILIES: dict[str, Callable[[Reader], Block]] = {"phi": phi, "gpt_neox": gpt_neox}
