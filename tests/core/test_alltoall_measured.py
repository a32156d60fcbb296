"""NCCL's all-to-all at its measured time (core/speed/alltoall_measured.py;
src/gpusizer/presets/nccl-alltoall-times.json, written by scripts/nccl_alltoall_table.py from
NVIDIA aiconfigurator 0.12.0's nccl-tests tables, NCCL 2.29.2) in the training step's
expert-parallel dispatch and combine (core/speed/train_layer.py)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.speed.alltoall_measured import all_to_all_seconds_measured, measured_all_to_all
from gpusizer.core.speed.train_layer import layer_context
from gpusizer.core.speed.train_rates import collective_seconds

MB = 1e6


def test_the_tables_hold_the_measured_rows() -> None:
    # source: aiconfigurator 0.12.0 systems/data/<gpu>/comm/nccl/2.29.2/nccl_perf.parquet, op
    # alltoall, dtype half, 8 GPUs, message_size 67,108,864 elements (134 MB a rank): H100 404 us,
    # B200 235 us; tolerance: the rounding to 0.01 us of the copy
    h100, b200 = measured_all_to_all("h100-sxm-80gb", 8), measured_all_to_all("b200-192gb", 8)
    assert all_to_all_seconds_measured(h100, 134.217728 * MB) == pytest.approx(404e-6, rel=0.01)
    assert all_to_all_seconds_measured(b200, 134.217728 * MB) == pytest.approx(235e-6, rel=0.01)
    # GB200 and GB300 were timed on one 4-GPU tray only: a wider group keeps the modelled price
    assert measured_all_to_all("gb200-186gb", 4) and not measured_all_to_all("gb200-186gb", 8)


def test_interpolated_between_sizes_and_extended_past_the_largest() -> None:
    pts = ((1.0e6, 10e-6), (2.0e6, 20e-6), (4.0e6, 30e-6))
    assert all_to_all_seconds_measured(pts, 3.0e6) == pytest.approx(25e-6)
    assert all_to_all_seconds_measured(pts, 6.0e6) == pytest.approx(40e-6)  # last segment extended
    assert all_to_all_seconds_measured(pts, 1.0) == pytest.approx(10e-6)  # below: the smallest's


def test_nccls_all_to_all_is_slower_than_the_all_gather_price_on_nvlink() -> None:
    # the measured all-to-all against the same bytes priced as an all-gather (the step's previous
    # price): H100 1.15x at 134 MB a rank, B200 1.23x (aiconfigurator's table, above)
    for gid, lo, hi in (("h100-sxm-80gb", 1.10, 1.20), ("b200-192gb", 1.18, 1.30)):
        s = parse_scenario(
            {
                "model": {"preset": "qwen3-30b-a3b"},
                "workload": {"kind": "pretraining", "sequence_length": 4096, "micro_batch_size": 1},
                "parallelism": {"expert": 8, "data": 8},
                "framework": "megatron",
                "hardware": {"gpu": gid, "gpus_per_node": 8},
            }
        )
        c, _ = layer_context(s, gpu_spec(gid))
        assert c.ep_all_to_all, gid
        routed = c.tokens * c.ts.top_k * c.ts.hidden * c.a
        ratio = all_to_all_seconds_measured(c.ep_all_to_all, routed) / collective_seconds(
            "all_to_all", routed, 8, c.ep_link
        )
        assert lo < ratio < hi, (gid, ratio)


def test_a_group_across_nodes_keeps_the_network_price() -> None:
    s = parse_scenario(
        {
            "model": {"preset": "qwen3-30b-a3b"},
            "workload": {"kind": "pretraining", "sequence_length": 4096, "micro_batch_size": 1},
            "parallelism": {"expert": 16, "data": 16},
            "framework": "megatron",
            "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
        }
    )
    c, _ = layer_context(s, gpu_spec("h100-sxm-80gb"))
    assert c.ep_link.kind == "network" and c.ep_all_to_all == ()
