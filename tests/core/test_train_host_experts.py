"""The per-expert cuBLASLt GEMM launches of TransformerEngine's ``GroupedLinear`` in the host's
work of an eager Megatron MoE layer (core/speed/train_host.py ``expert_gemm_ops``;
docs/evidence/rl.md, the per-expert launches section).

Sources: TransformerEngine ``transformer_engine/pytorch/module/grouped_linear.py``
(``_GroupedLinear.forward``: one ``general_grouped_gemm`` over the experts; ``backward``: one for
dgrad, one for wgrad) and ``transformer_engine/common/gemm/cublaslt_gemm.cu``
(``nvte_multi_stream_cublas_gemm``: a ``cublas_gemm`` a GEMM, each building its descriptors and
asking the heuristic) at v2.5, v2.8, 71bbefb and 42b8400 (NeMo RL v0.4.0, v0.5.0, v0.6.0 and
v0.7.0 ``uv.lock``); NVIDIA/raft#1736 for the host time of such a call.
"""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.model.specs import Scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.train_host import (
    CUBLASLT_GEMM_SECONDS,
    INVENTORIES,
    TORCH_OP_SECONDS,
    expert_gemm_ops,
    host_pace,
    layer_host_ops,
    local_experts,
)

MEGATRON = INVENTORIES["megatron"]


def _scenario(preset: str, ep: int, data: int, gpu: str = "gb200-186gb") -> Scenario:
    return parse_scenario(
        {
            "model": {"preset": preset},
            "framework": "megatron",
            "hardware": {"gpu": gpu},
            "workload": {"kind": "full_finetune", "micro_batch_size": 1, "sequence_length": 4096},
            "parallelism": {"expert": ep, "data": data},
        }
    )


def test_a_cublaslt_call_costs_rafts_measured_host_time() -> None:
    # source: NVIDIA/raft#1736, "approx 10us -> 5us, as measured by NVTX from entering matmul
    # wrapper on the host to the launch of the kernel", the 10 us with descriptors and heuristic
    # built each call as TE's cublas_gemm does; tolerance: the published figure is rounded
    assert pytest.approx(10e-6) == CUBLASLT_GEMM_SECONDS
    # under one torch Linear forward on the same kind of host (TE#2053: 13.48 us on x86), which
    # holds a cuBLASLt launch of its own
    assert CUBLASLT_GEMM_SECONDS < TORCH_OP_SECONDS


def test_a_layer_launches_a_gemm_per_local_expert_each_pass() -> None:
    # fc1 and fc2: 2 GroupedLinears; the TE module call's price holds the first expert's GEMM
    # (forward) or GEMMs (backward: dgrad and wgrad); 16 local experts add 15 of each
    per_gemm = CUBLASLT_GEMM_SECONDS / TORCH_OP_SECONDS
    assert MEGATRON.grouped_linears == 2
    assert expert_gemm_ops(MEGATRON, 16, False) == pytest.approx(2 * 15 * per_gemm)
    assert expert_gemm_ops(MEGATRON, 16, True) == pytest.approx(2 * 2 * 15 * per_gemm)
    assert expert_gemm_ops(MEGATRON, 1, True) == 0.0


def test_local_experts_are_the_experts_over_ep() -> None:
    assert local_experts(_scenario("qwen3-30b-a3b", 8, 32)) == 16  # 128 experts
    assert local_experts(_scenario("deepseek-v3", 64, 64)) == 4  # 256 experts
    assert local_experts(_scenario("llama-3.1-8b", 1, 8)) == 1  # no routed experts


def test_one_expert_a_gpu_leaves_the_host_work_as_before() -> None:
    # EP = experts: one GEMM a GroupedLinear pass, the one its TE module call is priced with
    s = _scenario("qwen3-30b-a3b", 128, 128)
    assert local_experts(s) == 1
    assert layer_host_ops(MEGATRON, s.model, 1.0, True, 1) == layer_host_ops(MEGATRON, s.model, 1.0, True)


def test_fewer_experts_a_gpu_issue_faster() -> None:
    # Qwen3-30B-A3B on a Grace host: EP 16 (8 local experts) trails its GPU by less than EP 8
    # (16 local experts) does, the layer's GPU work per token being the same
    ep16 = _scenario("qwen3-30b-a3b", 16, 16)
    ep8 = _scenario("qwen3-30b-a3b", 8, 16)
    f16 = layer_host_ops(MEGATRON, ep16.model, 1.0, True, local_experts(ep16))[0]
    f8 = layer_host_ops(MEGATRON, ep8.model, 1.0, True, local_experts(ep8))[0]
    assert f8 - f16 == pytest.approx(2 * 8 * CUBLASLT_GEMM_SECONDS / TORCH_OP_SECONDS)
    assert host_pace(ep16, scenario_gpu(ep16), True).forward > 0
