"""The split placement's weight sync (core/pipeline/rl_split_sync.py): the broadcast on the
node's GPU link when both pools fit one node, and one NCCL call's latency per tensor where the
framework broadcasts tensor by tensor (``rl.broadcast_per_tensor``: verl's fully-async and
one-step-off sync with the checkpoint engine off). The published verl figures these replay are
in tests/core/test_rl_time_others.py; docs/evidence/rl.md section 17."""

from __future__ import annotations

import pytest

from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.model.specs import Scenario
from gpusizer.core.pipeline.rl_colocated import exported_tensors, weight_sync_seconds
from gpusizer.core.pipeline.rl_split_sync import (
    broadcast_gb_per_s,
    broadcast_latency,
    engine_tensors,
    in_one_node,
    load_call_seconds,
)
from gpusizer.core.pipeline.rl_transitions import EXPORT_SECONDS_PER_TENSOR
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.rl_engine_loads import LOAD_CALL_SECONDS_PER_TENSOR
from gpusizer.core.speed.collectives import NCCL_BASE_US, NCCL_HOP_US, NETWORK_ALPHA

H20 = "h20-96gb"


def _split(train: int, rollout: int, **rl: object) -> Scenario:
    return parse_scenario(
        {
            "model": {"preset": "qwen2.5-7b"},
            "framework": "megatron",
            "hardware": {"gpu": H20},
            "workload": {"kind": "rl"},
            "parallelism": {"data": train, "zero_stage": 1},
            "rl": {"placement": "split", "rollout": {"gpus": rollout}, **rl},
        }
    )


def test_pools_in_one_node_broadcast_over_nvlink() -> None:
    # verl param_sync.py _init_sync_group: one NCCL group of every actor and rollout worker; 4 + 4
    # GPUs share one 8-GPU H20 node, so NCCL's ring stays on NVLink (450 GB/s a direction)
    gpu = gpu_spec(H20)
    s = _split(4, 4)
    assert in_one_node(s) and broadcast_gb_per_s(s, gpu) == gpu.interconnect_gb_per_s
    # 8 + 8 spans two nodes: one GPU's network link, as before
    s2 = _split(8, 8)
    assert not in_one_node(s2) and broadcast_gb_per_s(s2, gpu) == 50.0
    weights = count_parameters(s.model).total * 2
    gather = exported_tensors(s.model) * EXPORT_SECONDS_PER_TENSOR
    assert weight_sync_seconds(s, gpu) == pytest.approx(gather + weights / (450e9 * 0.7))


def test_a_tensor_by_tensor_broadcast_pays_one_nccl_call_a_tensor() -> None:
    gpu = gpu_spec(H20)
    # in one node: NCCL's fastest protocol's base latency plus one hop a further rank (LL on
    # NVLink: 6.6 us + 7 x 0.6 us for 8 ranks, core/speed/collectives.py)
    s = _split(4, 4, broadcast_per_tensor=True)
    hop = (NCCL_BASE_US[0] + 7 * NCCL_HOP_US["nvlink"][0]) * 1e-6
    assert broadcast_latency(s, gpu) == pytest.approx(hop)
    tensors = exported_tensors(s.model)
    gained = weight_sync_seconds(s, gpu) - weight_sync_seconds(_split(4, 4), gpu)
    assert gained == pytest.approx(tensors * (hop + load_call_seconds(s)))
    # across nodes: the network's measured latency per call
    assert broadcast_latency(_split(16, 16, broadcast_per_tensor=True), gpu) == NETWORK_ALPHA


def test_the_flag_leaves_a_gathered_broadcast_alone() -> None:
    # NeMo RL's split refit sends the gathered model in buckets: without the flag the sync is
    # the gather and the bytes only, whatever the pools' size
    gpu = gpu_spec(H20)
    s = _split(16, 16)
    weights = count_parameters(s.model).total * 2
    gather = exported_tensors(s.model) * EXPORT_SECONDS_PER_TENSOR
    assert weight_sync_seconds(s, gpu) == pytest.approx(gather + weights / (50e9 * 0.7))


def test_vllm_walks_its_parameters_for_each_tensor_and_sglang_does_not() -> None:
    # source: scripts/measure_engine_load_call.py (one thread, build machine: 1.13-1.18 us a
    # parameter tensor; vLLM's Qwen2.5-7B tree holds 198 tensors in its model, 199 with the LM
    # head); verl's sync calls vLLM load_weights once a tensor, Miles' SGLang sync once a bucket
    # (core/registry/rl_engine_loads.py; docs/evidence/rl.md section 34e)
    vllm = _split(4, 4, broadcast_per_tensor=True)
    assert engine_tensors(vllm) == 199  # q, k, v and their biases fused; gate and up fused
    assert load_call_seconds(vllm) == pytest.approx(199 * LOAD_CALL_SECONDS_PER_TENSOR)
    spec = vllm.model_dump(exclude_unset=True)
    spec["rl"]["rollout"]["engine"] = "sglang"
    sglang = parse_scenario(spec)
    assert load_call_seconds(sglang) == 0.0
    gpu = gpu_spec(H20)
    tensors = exported_tensors(vllm.model)
    gap = weight_sync_seconds(vllm, gpu) - weight_sync_seconds(sglang, gpu)
    assert gap == pytest.approx(tensors * 199 * LOAD_CALL_SECONDS_PER_TENSOR)


def test_the_engine_tree_counts_match_the_measured_replicas() -> None:
    # source: scripts/measure_engine_load_call.py builds vLLM's trees: Qwen3-30B-A3B 434 and
    # Qwen3-235B-A22B 848 parameter tensors without the LM head (fused qkv_proj, q/k norms, the
    # router and experts.w13_weight / w2_weight a layer); here with the head, one more
    for preset, tensors in (("qwen3-30b-a3b", 435), ("qwen3-235b-a22b", 849)):
        s = parse_scenario({**_split(16, 16).model_dump(exclude_unset=True), "model": {"preset": preset}})
        assert engine_tensors(s) == tensors, preset
