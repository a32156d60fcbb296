"""A pipeline's stages share the host's PCIe bandwidth (core/speed/collectives.py ``host_shared``;
docs/evidence/speed.md, the section on large-batch MoE at the engines' source).

NVIDIA/nccl#1639 (8 x RTX 5090, PCIe Gen5 x16, 2 x Xeon 8480+): "8 GPU max performance: bwbus
28GB/s; 4GPU max performance: bwbus 35GB/s"; NCCL's maintainer: "On PCI systems, the performance
you get is usually determined by the bandwidth your CPU and memory can deliver. In your case, with
8 GPUs, that's 8 flows at 28GB/s in both directions." The flows are the node's GPUs moving data at
once, whatever group each belongs to: under pipeline parallelism every stage's group runs its
collectives at the same time as the others'.
"""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec as gpu_by_id
from gpusizer.core.speed.collectives import host_shared, link
from tests.core.replay_steps import replay_scenario, step_of, tokens_per_second

RTX_PRO = "rtx-pro-6000-blackwell-96gb"


def test_the_host_bound_rate_is_that_of_the_gpus_moving_data_at_once() -> None:
    pair = link(gpu_by_id(RTX_PRO), 2, 8)
    assert pair.beta == pytest.approx(0.7 * 64e9)  # a pair alone keeps the link (section 47)
    assert host_shared(pair, 2) == pair
    assert host_shared(pair, 4).beta == 35e9  # two pairs: 4 flows (nccl#1639's 4-GPU figure)
    assert host_shared(pair, 8).beta == 28e9  # four pairs: 8 flows (its 8-GPU figure)
    nvlink = link(gpu_by_id("b200-192gb"), 2, 8)
    assert host_shared(nvlink, 8) == nvlink  # a scale-up link does not cross the host
    gen4 = link(gpu_by_id("rtx-4090-24gb"), 2, 8)
    assert host_shared(gen4, 8).beta == gen4.beta  # 0.7 x 32 GB/s is under 28 already


@pytest.mark.parametrize(
    ("rid", "beta"),
    [
        ("trtllm-1.0-q235-fp4-rtxpro-x8-tp2-pp4-1000-1000", 28e9),  # 4 stages x EP 2
        ("trtllm-1.0-scout-fp4-rtxpro-x8-tp4-pp2-1000-1000", 28e9),  # 2 stages x EP 4
        ("trtllm-1.0-scout-fp4-rtxpro-x4-tp2-pp2-1000-1000", 35e9),  # 2 stages x EP 2
    ],
)
def test_the_pipeline_columns_gather_at_the_whole_nodes_rate(rid: str, beta: float) -> None:
    st = step_of(replay_scenario(rid, "serving"))
    assert st.ep_link.kind == "pcie" and st.ep_link.beta == beta


def test_one_stage_keeps_its_groups_rate() -> None:
    # Qwen3-30B-A3B on 2 RTX Pro, attention DP 2 (no pipeline): the pair's link, as before
    st = step_of(replay_scenario("trtllm-1.0-q30-fp4-rtxpro-x2-tp2-1000-1000", "serving"))
    assert st.ep_link.beta == pytest.approx(0.7 * 64e9)


def test_the_pipeline_columns_move_toward_the_published_figures() -> None:
    """TensorRT-LLM 1.0's perf overview (perf-overview.md at 00f37686), output tokens/s at
    1000/1000: estimate / published 1.301 -> 1.251 (Qwen3-235B TP 2 PP 4, 10,697 published) and
    1.411 -> 1.311 (Scout TP 4 PP 2, 15,781); 1.243 and 1.266 with the CUTLASS MoE module read at
    its measured times on the RTX Pro (core/speed/moe_measured.py ``group_module``); tolerance 0.01."""
    q235 = replay_scenario("trtllm-1.0-q235-fp4-rtxpro-x8-tp2-pp4-1000-1000", "serving")
    assert tokens_per_second(q235) / 10_697 == pytest.approx(1.243, abs=0.01)
    scout = replay_scenario("trtllm-1.0-scout-fp4-rtxpro-x8-tp4-pp2-1000-1000", "serving")
    assert tokens_per_second(scout) / 15_781 == pytest.approx(1.266, abs=0.01)
