"""The engines' custom all-reduce at aiconfigurator 0.12.0's measured times
(core/speed/allreduce_measured.py; src/gpusizer/presets/allreduce-times.json, written by
scripts/custom_allreduce_table.py from aiconfigurator_core/systems/data/<gpu>/comm/...)."""

from __future__ import annotations

import pytest

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.all_reduce import SGLANG_CUSTOM_AR, TRTLLM_WORKSPACE_AR, VLLM_CUSTOM_AR
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.serving.load import engine_costs
from gpusizer.core.speed.allreduce_measured import (
    SGLANG_CUSTOM,
    VLLM_CUSTOM,
    all_reduce_seconds_measured,
    measured_all_reduce,
    two_stage_from,
)
from gpusizer.core.speed.collectives import all_reduce_seconds
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model

KiB = 1024
us = 1e-6


def test_each_engine_names_its_own_table() -> None:
    assert SGLANG_CUSTOM_AR.measured == SGLANG_CUSTOM and VLLM_CUSTOM_AR.measured == VLLM_CUSTOM
    assert not TRTLLM_WORKSPACE_AR.measured  # its one-shot / two-shot keeps alpha + bytes / beta
    assert measured_all_reduce("", "b200-192gb", 8) == ()
    assert measured_all_reduce(SGLANG_CUSTOM, "b200-192gb", 6) == ()  # not timed


def test_the_switch_follows_vllms_kernel() -> None:
    """csrc/custom_all_reduce.cuh: two GPUs always one stage; up to 4 below 512 KB, up to 8
    below 256 KB."""
    assert two_stage_from(2) == float("inf")
    assert two_stage_from(4) == 512 * KiB and two_stage_from(8) == 256 * KiB


@pytest.mark.parametrize(
    ("gpu", "ranks", "nbytes", "measured_us"),
    [
        # aiconfigurator 0.12.0, SGLang 0.5.9, sglang_graph, bf16 (message_size in elements x 2)
        ("b200-192gb", 8, 128 * KiB, 9.42),  # one stage
        ("b200-192gb", 8, 256 * KiB, 25.58),  # two stages from 256 KB on 8 GPUs
        ("b200-192gb", 8, 2048 * KiB, 28.93),
        ("b300-288gb", 8, 256 * KiB, 25.80),
        ("h200-141gb", 8, 256 * KiB, 14.04),
        ("b200-192gb", 4, 512 * KiB, 17.68),  # two stages from 512 KB on 4 GPUs
    ],
)
def test_a_measured_size_reads_its_time(gpu: str, ranks: int, nbytes: int, measured_us: float) -> None:
    pts = measured_all_reduce(SGLANG_CUSTOM, gpu, ranks)
    assert all_reduce_seconds_measured(pts, ranks, nbytes) == pytest.approx(measured_us * us, rel=1e-3)


def test_a_one_stage_message_never_reads_the_two_stage_time() -> None:
    """200 KB on 8 x B200 runs one stage: the one-stage line extended (9.4 us at 128 KB, +1.6 us
    per 64 KB), not averaged toward the two-stage 25.6 us at 256 KB."""
    pts = measured_all_reduce(SGLANG_CUSTOM, "b200-192gb", 8)
    t = all_reduce_seconds_measured(pts, 8, 200 * KiB)
    assert 9.4 * us < t < 12.0 * us
    assert all_reduce_seconds_measured(pts, 8, 300 * KiB) == pytest.approx(25.8 * us, abs=0.3 * us)


def test_below_the_smallest_size_the_smallest_time() -> None:
    pts = measured_all_reduce(VLLM_CUSTOM, "h100-sxm-80gb", 2)
    assert all_reduce_seconds_measured(pts, 2, 8) == pts[0][1]


def _step(framework: str, gpu: str, interconnect: float | None = None) -> StepModel:
    compute = {"interconnect_efficiency": interconnect} if interconnect else {}
    s = parse_scenario(
        {
            "model": {"preset": "deepseek-v3"},
            "framework": framework,
            "hardware": {"gpu": gpu},
            "parallelism": {"tensor": 8},
            "workload": {"kind": "inference", "batch_size": 64},
            "compute": compute,
        }
    )
    g = scenario_gpu(s)
    return step_model(s, g, engine_costs(s, g, engine_settings(s, g)))


def test_the_step_prices_sglangs_two_stage_all_reduce() -> None:
    """DeepSeek-V3 at TP 8 on the B200 under SGLang: 64 decodes' 896 KB all-reduce runs two
    stages, between the 25.9 us measured at 512 KB and 27.2 us at 1 MB, where alpha + bytes / beta read
    ~11 us (docs/evidence/speed.md, the section on the engines' custom all-reduce)."""
    step = _step("sglang", "b200-192gb")
    msg = 64 * 7168 * 2
    one = all_reduce_seconds_measured(measured_all_reduce(SGLANG_CUSTOM, "b200-192gb", 8), 8, msg)
    assert one == pytest.approx(26.8 * us, abs=0.1 * us)
    assert step._comm(64) == pytest.approx(step._ar * one, rel=1e-9)
    assert all_reduce_seconds(step.tp_link, msg, 8, "custom") < 12 * us


def test_a_users_link_rate_keeps_alpha_and_beta() -> None:
    """compute.interconnect_efficiency states the user's own link: the measured table is the
    catalog link's, so the step prices alpha + bytes / beta at that rate."""
    step = _step("sglang", "b200-192gb", interconnect=0.5)
    assert step.ar_points == ()
