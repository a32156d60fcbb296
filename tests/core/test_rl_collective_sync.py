"""NeMo RL's collective transport of the split weight sync (``rl.sync_transport: "collective"``,
core/pipeline/rl_split_sync.py; docs/evidence/rl.md section 22): one NCCL group of every training
and rollout GPU, packed buckets broadcast from training rank 0 over the node's network links beside
the export, the slower of the two; null keeps the one-NIC broadcast after the export."""

from __future__ import annotations

import pytest

from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.rl_colocated import colocated_refit, exported_tensors, weight_sync_seconds
from gpusizer.core.pipeline.rl_split_sync import collective_gb_per_s, split_sync_seconds
from gpusizer.core.pipeline.scenario import parse_scenario

from .rl_figures import OFF_POLICY

H100 = gpu_spec("h100-sxm-80gb")


def _row(name: str, transport: str | None = "collective", node: int | None = None):
    sc = next(f for f in OFF_POLICY if f.name == name).scenario()
    sc["rl"]["sync_transport"] = transport
    if node:
        sc["hardware"]["gpus_per_node"] = node
    return parse_scenario(sc)


def test_null_keeps_the_one_nic_broadcast_after_the_export() -> None:
    s = _row("v0.4 DeepSeek V3 1-off, 256+256 H100", None)
    assert weight_sync_seconds(s, H100) == split_sync_seconds(s, H100, exported_tensors(s.model))
    assert weight_sync_seconds(s, H100) == pytest.approx(42.8, abs=0.1)  # 1.34 TB at 50 GB/s x 0.7


def test_the_collective_broadcast_crosses_on_the_nodes_nics_beside_the_export() -> None:
    # NeMo RL PR #1264: every training GPU joins the group, so the source node's eight GPUs sit
    # on NCCL's ring and its channels leave on the node's eight 50 GB/s NICs (below NVLink's 450)
    s = _row("v0.4 DeepSeek V3 1-off, 256+256 H100")
    assert collective_gb_per_s(s, H100) == 8 * 50.0
    broadcast = count_parameters(s.model).total * 2 / (400e9 * 0.7)
    export = colocated_refit(s, H100)
    # PR #1379: two buffers, the export of one bucket beside the broadcast of the last
    assert weight_sync_seconds(s, H100) == pytest.approx(max(export, broadcast))
    assert broadcast == pytest.approx(4.8, abs=0.05) and export > broadcast


def test_pools_in_one_node_keep_nvlink() -> None:
    s = _row("v0.4 Llama 3.1 8B 1-off, 8+8 H100", node=16)  # both pools in one NVLink domain
    assert collective_gb_per_s(s, H100) == H100.interconnect_gb_per_s


@pytest.mark.parametrize(
    ("name", "published", "ratio"),
    [
        # source: NVIDIA-NeMo/RL PR #1379 ("Overlap param iteration and broadcast in non-colocated
        # refit", 2025-10-16, cherry-picked into r0.4.0 as #1418): "DSV3: 34 s --> 14 s (2.4x)",
        # "QWEN3 235B: 13 s --> 5.5 s (2.36x)". The PR states no layout: the v0.4.0 async
        # recipes' (64n8g DeepSeek V3, 32n8g Qwen3-235B) assumed. Tolerance 3 % of the recorded
        # ratio (drift). With the export's pipeline broadcast of each GPU's own shard stated
        # (rl.refit_gather "shard", Megatron-Bridge broadcast_from_pp_rank; docs/evidence/rl.md
        # section 43): DeepSeek V3 0.724 -> 0.945 (its 15 stages beyond the node, 3.1 s),
        # Qwen3-235B 1.015 -> 1.162 (7 stages, 0.8 s). Before it DeepSeek V3 fell short by 28 %
        # (sections 2g and 22).
        ("v0.4 DeepSeek V3 1-off, 256+256 H100", 14.0, 0.945),
        ("v0.4 Qwen3-235B 1-off, 128+128 H100", 5.5, 1.162),
    ],
)
def test_nemo_rls_measured_refit(name: str, published: float, ratio: float) -> None:
    assert weight_sync_seconds(_row(name), H100) / published == pytest.approx(ratio, rel=0.03)


def test_colocated_ignores_the_transport() -> None:
    sc = next(f for f in OFF_POLICY if f.name.startswith("v0.4 Llama")).scenario()
    sc["rl"] |= {"placement": "colocated", "sync_transport": "collective"}
    sc["rl"]["rollout"]["gpus"] = 0
    s = parse_scenario(sc)
    assert weight_sync_seconds(s, H100) == colocated_refit(s, H100)
