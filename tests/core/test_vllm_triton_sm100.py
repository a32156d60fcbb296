"""vLLM's Triton fused MoE on datacentre Blackwell before 0.20.0, read at aiconfigurator's B200
times (core/speed/moe_measured_lanes.py, core/speed/moe_measured.py ``VLLM_TRITON_BF16_SM100``;
docs/evidence/rl.md, the section on NeMo RL's GB200 MoE rollouts).

The table (src/gpusizer/presets/moe-module-times.json, scripts/vllm_triton_sm100_moe_table.py) is
aiconfigurator 0.12.0's systems/data/b200_sxm/moe/vllm/0.19.0/moe_perf.parquet, ``vllm_fused_moe``
bfloat16 at EP 1, the shapes where vLLM 0.19.0 ships a tuned NVIDIA_B200 config left out; no
replayed figure set it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.speed.moe_measured import (
    MODULE_TABLES,
    VLLM_TRITON_BF16_SM100,
    measured_module,
    module_seconds,
)
from gpusizer.core.speed.moe_measured_lanes import lane_module
from tests.core.serving_step import serving_step

DATA = Path(__file__).parent / "data"
PRESETS = Path(__file__).parents[2] / "src" / "gpusizer" / "presets"
QWEN3_30B = (128, 2048, 768, 8)
QWEN3_235B = (128, 4096, 1536, 8)


@pytest.mark.parametrize(
    ("gpu", "shape", "tp", "tokens", "ms"),
    [
        # aiconfigurator 0.12.0 systems/data/b200_sxm/moe/vllm/0.19.0/moe_perf.parquet, EP 1,
        # vllm_fused_moe bfloat16, power_law_1.2: Qwen3-235B's experts at TP 8 (N = 192) and 16
        ("b200-192gb", QWEN3_235B, 8, 1, 0.03031),
        ("b200-192gb", QWEN3_235B, 8, 1024, 0.258323),
        ("b200-192gb", QWEN3_235B, 16, 8192, 0.818733),
        # the GB200 reads the B200's rows (no GB200 table of this kernel)
        ("gb200-186gb", QWEN3_235B, 8, 1024, 0.258323),
    ],
)
def test_the_table_reads_as_measured(
    gpu: str, shape: tuple[int, int, int, int], tp: int, tokens: int, ms: float
) -> None:
    points = measured_module(VLLM_TRITON_BF16_SM100, gpu, shape, tp, 1.2)
    assert module_seconds(points, tokens) * 1e3 == pytest.approx(ms, abs=1e-6)


def test_tuned_b200_shapes_and_other_blackwell_parts_are_not_read() -> None:
    # vLLM 0.19.0 ships E=128,N=768,device_name=NVIDIA_B200.json: Qwen3-30B-A3B at TP 1 and
    # Qwen3-235B at TP 2 ran a tuned config on the B200, the default one on a GB200
    assert not measured_module(VLLM_TRITON_BF16_SM100, "b200-192gb", QWEN3_30B, 1, 1.2)
    assert not measured_module(VLLM_TRITON_BF16_SM100, "gb200-186gb", QWEN3_235B, 2, 1.2)
    # the B300 / GB300 (SM103) were not timed under this kernel
    assert not measured_module(VLLM_TRITON_BF16_SM100, "b300-288gb", QWEN3_235B, 8, 1.2)


def test_the_table_names_its_file_release_and_collector() -> None:
    source = json.loads((PRESETS / "moe-module-times.json").read_text())["sources"][VLLM_TRITON_BF16_SM100]
    assert "aiconfigurator 0.12.0" in source and "b200_sxm/moe/vllm/0.19.0/moe_perf.parquet" in source
    assert "collect_moe.py" in source and MODULE_TABLES[VLLM_TRITON_BF16_SM100].engine in source


@pytest.mark.parametrize(
    ("cc", "version", "module"),
    [
        # 0.11.2's UnquantizedFusedMoEMethod and 0.17.1-0.19.0's oracle: Triton unless
        # VLLM_USE_FLASHINFER_MOE_FP16 is set (the registry's 0.11.0 release covers 0.11-0.18)
        ((10, 0), (0, 11, 0), VLLM_TRITON_BF16_SM100),
        ((10, 0), (0, 19, 0), VLLM_TRITON_BF16_SM100),
        # 0.20.0's oracle tries FlashInfer's TRT-LLM BF16 MoE first on SM100: not read
        # (core/registry/moe_backends.py; with --moe-backend triton stated it is:
        # tests/core/test_moe_backend.py)
        ((10, 0), (0, 20, 0), ""),
        # an unknown release reads as one before 0.20.0 (Triton; "" before the MoE backend's
        # registry, when the lane bounded releases by version alone)
        ((10, 0), (), VLLM_TRITON_BF16_SM100),
        ((12, 0), (0, 19, 0), ""),  # consumer Blackwell: another part, not timed
    ],
)
def test_the_lane_holds_vllm_before_0_20_on_sm100(
    cc: tuple[int, int], version: tuple[int, ...], module: str
) -> None:
    assert lane_module("vllm", "", cc, "bf16", "", version) == module
    assert lane_module("sglang", "", cc, "bf16", "", version) == ""


def _qwen3_235b_b200(version: str) -> dict[str, Any]:
    """vLLM's Qwen3-235B-A22B BF16 at TP 8 on a B200 (the blind2 Qwen3-30B-A3B H200 replay's
    scenario with the model, GPU, TP and release changed)."""
    doc = json.loads((DATA / "speed-figures-blind2.json").read_text())
    rec = next(r for r in doc if r["id"] == "vllm-0.17.0-h200-qwen3-30b-a3b-bf16-tp1-c1-4k4k")
    d = copy.deepcopy(rec["replay"][0]["scenario"])
    d["model"] = {"preset": "qwen3-235b-a22b"}
    d["hardware"]["gpu"] = "b200-192gb"
    d["parallelism"]["tensor"] = 8
    d["serving"].update(engine_version=version, max_context=32768)
    return d


def test_a_b200_step_before_0_20_takes_the_module_and_0_20_does_not() -> None:
    st = serving_step(_qwen3_235b_b200("0.19.0"))
    assert st.costs.moe_module == VLLM_TRITON_BF16_SM100 and st.moe_points
    assert not serving_step(_qwen3_235b_b200("0.20.0")).moe_points
