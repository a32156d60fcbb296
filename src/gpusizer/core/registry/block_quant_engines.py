"""Serving engines that refuse a block-quantised checkpoint whose tensor-parallel partition is
not a whole number of blocks (core/pipeline/validate_block_quant.py), with the source of each.

Both build a layer's weight for its TP rank and check the rank's share against the
checkpoint's ``weight_block_size`` [block_n, block_k] before any weight loads:

- vLLM (vllm-project/vllm@0071b24b ``vllm/model_executor/layers/quantization/fp8.py``):
  ``Fp8LinearMethod.create_weights`` raises "Weight output_partition_size = {n} is not
  divisible by weight quantization block_n" for a column-parallel (or merged) layer's output
  share and "Weight input_size_per_partition = {k} is not divisible by ... block_k" for a
  row-parallel layer's input share; ``Fp8MoEMethod.create_weights`` raises "The output_size of
  gate's and up's weight = {w} is not divisible by weight quantization block_n" for the
  experts' ``intermediate_size_per_partition`` (their width over the experts' TP size, 1 under
  ``--enable-expert-parallel``: ``fused_moe/config.py`` ``FusedMoEParallelConfig.make``).
- SGLang (sgl-project/sglang@00563d36 ``python/sglang/srt/layers/quantization/fp8.py``
  ``Fp8LinearMethod.validate_block_quant_shapes``, the same two rules, and its MoE method's
  check of the experts' width over ``moe_tp_size = tp_size // ep_size``).

Under attention data parallelism the scenario's experts span the group
(core/serving/attention_dp.py), so their width is checked whole on either engine
(core/pipeline/validate_block_quant.py ``expert_tp``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BlockCheck:
    """How one engine checks a block-quantised layer's TP share (module docstring)."""

    source: str


BLOCK_CHECKS: dict[str, BlockCheck] = {
    "vllm": BlockCheck("vLLM quantization/fp8.py Fp8MoEMethod / Fp8LinearMethod.create_weights"),
    "sglang": BlockCheck("SGLang quantization/fp8.py validate_block_quant_shapes and its MoE method"),
}
