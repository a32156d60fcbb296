"""vLLM's whole MLA down-projections and router on every TP rank (core/serving/tp_replicated.py).

Source: vllm-project/vllm ``vllm/model_executor/models/deepseek_v2.py``: ``fused_qkv_a_proj``
(``MergedColumnParallelLinear(..., disable_tp=True)``) or ``q_a_proj`` and
``kv_a_proj_with_mqa`` (``ReplicatedLinear``), and ``DeepseekV2MoE.gate`` (``ReplicatedLinear``);
DeepSeek V3's config.json (hidden 7,168, q_lora_rank 1,536, kv_lora_rank 512, qk_rope_head_dim 64,
256 routed experts, 58 MoE layers of 61)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.sharding import stage_params
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.tp_replicated import replicated_extra_bytes, replicated_params


def _serving(framework: str, tp: int, **parallel: int) -> dict:
    return {
        "model": {"preset": "deepseek-v3"},
        "framework": framework,
        "hardware": {"gpu": "h200-141gb"},
        "parallelism": {"tensor": tp, **parallel},
        "precision": {"weights": "bf16"} if framework == "vllm" else {},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 1024},
    }


def _extra(data: dict) -> float:
    s = parse_scenario(data)
    arch = resolve(s.model)
    sp = stage_params(count_parameters(s.model), arch, s.parallelism.tensor, 1, 1, True)
    return replicated_extra_bytes(s, arch, sp)


def test_deepseek_v3_keeps_a_gigaparameter_whole_on_every_rank() -> None:
    # source: the module's docstring; 7,168 x (1,536 + 512 + 64) x 61 and 7,168 x 256 x 58,
    # exact (architecture arithmetic)
    s = parse_scenario(_serving("vllm", 8))
    arch = resolve(s.model)
    sp = stage_params(count_parameters(s.model), arch, 8, 1, 1, True)
    attention, router = replicated_params(arch, sp)
    assert attention == 7168 * 2112 * 61
    assert router == 7168 * 256 * 58
    # BF16 at TP 8: 7/8 of 2.06 GB beyond the share the counts gave, exact
    assert replicated_extra_bytes(s, arch, sp) == pytest.approx((attention + router) * 2 * 7 / 8)


def test_only_a_splitting_rank_that_replicates_pays() -> None:
    # TP 1 holds everything anyway; attention data parallelism prices attention weights by its
    # own rule (core/serving/attention_dp.py). SGLang keeps MLA's down-projections whole too
    # (core/model/mla_whole.py; was 0.0 here before that was read), its router split (not read):
    # 7/8 of 923.5 M parameters in its default FP8, exact
    assert _extra(_serving("vllm", 1)) == 0.0
    assert _extra(_serving("sglang", 8)) == pytest.approx(7168 * 2112 * 61 * 7 / 8)
    assert _extra(_serving("vllm", 8, attention_data=8, expert=8)) == 0.0
    assert _extra(_serving("vllm", 8)) > 1.5e9
