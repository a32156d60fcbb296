"""MLA's down-projections whole on every tensor-parallel rank of a serving engine.

The parameter counts (core/model/sharding.py) and the step's shape (core/speed/roofline_shape.py)
split every attention matrix over TP, Megatron's layout. The serving engines keep MLA's
down-projections whole on each rank and split only the up-projections and the output:

- vLLM, vllm-project/vllm ``vllm/model_executor/models/deepseek_v2.py`` (@002d6073, class
  ``DeepseekV2MLAAttention.__init__``): ``fused_qkv_a_proj = DeepSeekV2FusedQkvAProjLinear(hidden,
  [q_lora_rank, kv_lora_rank + qk_rope_head_dim])``, a ``MergedColumnParallelLinear`` built with
  ``disable_tp=True``; without ``q_lora_rank`` (DeepSeek-V2-Lite) ``kv_a_proj_with_mqa =
  ReplicatedLinear(hidden, kv_lora_rank + qk_rope_head_dim)``. The releases before the fusion
  (v0.5-v0.7) build ``q_a_proj`` and ``kv_a_proj_with_mqa`` as ``ReplicatedLinear``.
- SGLang, sgl-project/sglang ``python/sglang/srt/models/deepseek_v2.py`` (@3e4a39ee,
  ``DeepseekV2AttentionMLA.__init__``, "For tensor parallel attention"):
  ``fused_qkv_a_proj_with_mqa = ReplicatedLinear(hidden, q_lora_rank + kv_lora_rank +
  qk_rope_head_dim)``; without ``q_lora_rank`` ``kv_a_proj_with_mqa = ReplicatedLinear(...)``.
- TensorRT-LLM, NVIDIA/TensorRT-LLM ``tensorrt_llm/_torch/modules/attention.py`` (@c6d3bb2a,
  ``MLA.__init__``): ``kv_a_proj_with_mqa = Linear(hidden, q_lora_rank + kv_lora_rank +
  qk_rope_head_dim)`` with no ``mapping`` nor ``tensor_parallel_mode`` (replicated), where
  ``q_b_proj`` and ``kv_b_proj`` are ``TensorParallelMode.COLUMN`` and ``o_proj`` ``ROW``.

In all three ``q_b_proj`` / ``q_proj`` and ``kv_b_proj`` are column-parallel and ``o_proj``
row-parallel. Every rank computes the whole latent for all the step's tokens: the down-projection's
weights are read whole (bytes) and multiplied whole (2 FLOPs a weight a token) on each rank.

DeepSeek V3 (hidden 7,168, q_lora_rank 1,536, kv_lora_rank 512 + rope 64): 15.1 M parameters a
layer, 923.5 M over 61 layers; at TP 8 a rank holds 7/8 of them beyond the 1/TP share, 0.81 GB
in FP8. The two latent RMSNorms (q_lora_rank + kv_lora_rank = 2,048 weights a layer) are whole
too and left out (0.01 % of the projection). The DSA indexer's weights (DeepSeek V3.2, GLM-5) are
not in the parameter counts and not here.
"""

from __future__ import annotations

from .architecture import Arch

__all__ = ["ENGINES", "down_params", "extra_per_layer", "whole_on_ranks"]

# serving-engine profile ids (core/registry/frameworks_serving.py) whose MLA keeps the
# down-projections whole on every TP rank, with the source read
ENGINES: dict[str, str] = {
    "vllm": "vllm/model_executor/models/deepseek_v2.py DeepseekV2MLAAttention (disable_tp=True)",
    "sglang": "python/sglang/srt/models/deepseek_v2.py DeepseekV2AttentionMLA (ReplicatedLinear)",
    "tensorrt-llm": "tensorrt_llm/_torch/modules/attention.py MLA (Linear, no tensor_parallel_mode)",
}


def down_params(arch: Arch) -> int:
    """Parameters of one layer's MLA down-projections (``q_a_proj`` and ``kv_a_proj_with_mqa``:
    hidden x (q_lora_rank + kv_lora_rank + qk_rope_head_dim)); 0 for a model without MLA."""
    mla = arch.spec.mla
    if mla is None:
        return 0
    return arch.hidden * ((mla.q_lora_rank or 0) + mla.kv_lora_rank + mla.qk_rope_head_dim)


def whole_on_ranks(engine: str, arch: Arch, tp: int) -> bool:
    """Whether ``engine`` (a profile id) holds an MLA model's down-projections whole on each of
    more than one TP rank."""
    return tp > 1 and engine in ENGINES and arch.spec.mla is not None


def extra_per_layer(engine: str, arch: Arch, tp: int) -> float:
    """Parameters one rank holds, reads and multiplies a layer beyond the 1/TP share the counts
    give it: (1 - 1/TP) of the down-projections where the engine keeps them whole, else 0."""
    if not whole_on_ranks(engine, arch, tp):
        return 0.0
    return down_params(arch) * (1 - 1 / tp)
