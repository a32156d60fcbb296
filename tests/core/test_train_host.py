"""The host's pace of eager Megatron training passes (core/speed/train_host.py;
docs/evidence/speed.md and docs/evidence/rl.md, the training host sections)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.host_cpus import HOST_CPUS
from gpusizer.core.registry.table import DuplicateId
from gpusizer.core.speed.train_host import (
    INVENTORIES,
    TE_MODULE_OPS,
    TORCH_OP_SECONDS,
    HostPace,
    host_pace,
    layer_host_ops,
    register,
)


def _pace(gpu: str, preset: str, ep: int, data: int, **hardware: str) -> HostPace:
    s = parse_scenario(
        {
            "model": {"preset": preset},
            "framework": hardware.pop("framework", "megatron"),
            "hardware": {"gpu": gpu, **hardware},
            "workload": {"kind": "full_finetune", "micro_batch_size": 1, "sequence_length": 4096},
            "parallelism": {"expert": ep, "data": data},
        }
    )
    return host_pace(s, scenario_gpu(s), False)


def test_the_per_op_costs_are_transformer_engines_figures() -> None:
    # source: NVIDIA/TransformerEngine#2053 (BF16 Linear forward, hidden 2,048, 8,192 tokens):
    # torch 13.48 us CPU on an H100 DGX and 37.08 us on a GB200, TE 99.66 us on the GB200;
    # tolerance: rounding of the published figures
    grace = HOST_CPUS["grace"].op_dispatch
    x86 = TORCH_OP_SECONDS
    assert x86 == pytest.approx(13.48e-6)
    assert TORCH_OP_SECONDS * grace == pytest.approx(37.08e-6, rel=1e-6)
    assert TORCH_OP_SECONDS * grace * TE_MODULE_OPS == pytest.approx(99.66e-6, rel=1e-6)
    # the same ratio on the GH200 (TE 90.53 against torch 33.17 us): within 2 %
    gh200 = 90.53 / 33.17
    assert gh200 == pytest.approx(TE_MODULE_OPS, rel=0.02)


def test_an_inventory_id_is_taken_once() -> None:
    with pytest.raises(DuplicateId):
        register(INVENTORIES["megatron"])


def test_the_fused_permutation_issues_fewer_ops() -> None:
    model = parse_scenario({"model": {"preset": "qwen3-30b-a3b"}}).model
    inv = INVENTORIES["megatron"]
    assert layer_host_ops(inv, model, 1.0, True)[0] < layer_host_ops(inv, model, 1.0, False)[0]


def test_a_small_moe_layer_is_host_bound_on_grace_only() -> None:
    # Qwen3-30B-A3B (hidden 2,048, 128 experts, top 8) at one 4,096-token micro-batch under EP 16:
    # its layer's GPU forward (about 1.3 ms on a GB200) is far shorter than what a Grace host
    # takes to issue it (about 3.7 ms at 2.75x the x86 op, the 8 local experts' GEMM launches
    # included); an x86 host (about 1.35 ms) trails it by under a tenth of that
    grace = _pace("gb200-186gb", "qwen3-30b-a3b", 16, 16)
    assert grace.forward > 0.05 and grace.train >= grace.forward
    assert _pace("gb200-186gb", "qwen3-30b-a3b", 16, 16, host_cpu="x86").forward < 0.1 * grace.forward
    assert _pace("h100-sxm-80gb", "qwen3-30b-a3b", 8, 32) == HostPace()


def test_a_dense_8b_layer_keeps_the_gpus_pace() -> None:
    # Llama 3.1 8B at 4,096 tokens: about 1.8 ms of GPU forward a layer on a GB200 against about
    # 0.8 ms of Grace host work
    assert _pace("gb200-186gb", "llama-3.1-8b", 1, 8) == HostPace()


def test_a_framework_without_an_inventory_has_no_host_term() -> None:
    assert _pace("gb200-186gb", "qwen3-30b-a3b", 16, 16, framework="fsdp") == HostPace()
