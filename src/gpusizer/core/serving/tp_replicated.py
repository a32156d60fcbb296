"""Weights a serving engine keeps whole on every tensor-parallel rank.

The parameter counts (core/model/sharding.py) split every attention matrix and the MoE router
over TP, Megatron's layout. vLLM does not split two of them:

- MLA's down-projections. ``DeepseekV2MLAAttention`` (vllm-project/vllm
  ``vllm/model_executor/models/deepseek_v2.py``) builds ``fused_qkv_a_proj`` as a
  ``MergedColumnParallelLinear(hidden, [q_lora_rank, kv_lora_rank + qk_rope_head_dim], ...,
  disable_tp=True)``; the unfused ``DeepseekV2Attention`` and older releases build ``q_a_proj``
  and ``kv_a_proj_with_mqa`` as ``ReplicatedLinear``. Only ``q_b_proj`` and ``kv_b_proj``
  (column-parallel) and ``o_proj`` (row-parallel) are split. Every rank computes the whole
  latent, which it caches whole (core/memory/inference.py ``kv_bytes_per_token_layer``).
- The router. ``DeepseekV2MoE.gate`` (same file), like every vLLM MoE model's gate, is a
  ``ReplicatedLinear(hidden, n_routed_experts)``.

DeepSeek V3 (hidden 7,168, q_lora_rank 1,536, kv_lora_rank 512 + rope 64, 256 experts): 17.0 M
parameters a layer whole on every rank, 1.03 G over 61 layers, 2.06 GB in BF16, where a 1/TP
share was counted (0.06 GB at TP 32). Under attention data parallelism the attention weights
follow their own rule (core/serving/attention_dp.py): nothing is added there.

SGLang and TensorRT-LLM keep the MLA down-projections whole too (core/model/mla_whole.py, with
their sources); their routers were not read and stay split here.
"""

from __future__ import annotations

from ..model.architecture import Arch
from ..model.mla_whole import whole_on_ranks
from ..model.module_bytes import group_bytes
from ..model.sharding import StageParams
from ..model.specs import Scenario


def replicated_params(arch: Arch, sp: StageParams) -> tuple[float, float]:
    """(MLA down-projection, router) parameters of the stage's layers that a vLLM rank holds
    whole (per model, before any TP share)."""
    mla = arch.spec.mla
    attention = 0.0
    if mla is not None:
        per_layer = arch.hidden * ((mla.q_lora_rank or 0) + mla.kv_lora_rank + mla.qk_rope_head_dim)
        attention = per_layer * sp.layers
    router = arch.hidden * arch.moe.experts * sp.moe_layers if arch.moe is not None else 0.0
    return attention, router


def replicated_extra_bytes(s: Scenario, arch: Arch, sp: StageParams) -> float:
    """Bytes one GPU of the stage holds beyond its 1/TP share of these weights: 0 where the
    engine splits them (the router: ``FrameworkProfile.replicates_tp_projections`` false; MLA's
    down-projections: an engine outside core/model/mla_whole.py ``ENGINES``), at TP 1 or under
    attention data parallelism."""
    p = s.parallelism
    if p.tensor == 1 or p.attention_data > 1:
        return 0.0
    attention, router = replicated_params(arch, sp)
    # SGLang and TensorRT-LLM keep MLA's down-projections whole too (core/model/mla_whole.py);
    # their routers' layout was not read, so only vLLM's router is added
    if not whole_on_ranks(s.profile.id, arch, p.tensor):
        attention = 0.0
    if not s.profile.replicates_tp_projections:
        router = 0.0
    per = group_bytes(s, arch).per_param
    return (attention * per["attention"] + router * per["router"]) * (1 - 1 / p.tensor)
