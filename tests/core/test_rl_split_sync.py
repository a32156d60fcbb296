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
    in_one_node,
)
from gpusizer.core.pipeline.rl_transitions import EXPORT_SECONDS_PER_TENSOR
from gpusizer.core.pipeline.scenario import parse_scenario
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
    assert gained == pytest.approx(tensors * hop)
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
