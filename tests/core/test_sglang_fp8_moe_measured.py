"""SGLang's block-FP8 experts on datacentre Blackwell at the measured times of FlashInfer's TRT-LLM
fused MoE (core/speed/moe_measured.py; docs/evidence/speed.md, the section on the Blackwell
block-FP8 prompt step).

The table (src/gpusizer/presets/moe-module-times.json, scripts/sglang_fp8_moe_table.py) is
aiconfigurator 0.12.0's SGLang 0.5.14 ``sglang_flashinfer_trtllm_moe`` fp8_block rows at
DeepSeek-V3's expert shape; no figure below set it. Out of sample: the InferenceX first tokens of
tests/core/data/sglang-ttft-split.json (test_sglang_ttft_split.py) and the silicon subset
(test_silicon_sample.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.speed.moe_measured import (
    SGLANG_FLASHINFER_FP8,
    SGLANG_TRITON_FP8_BLOCK,
    measured_module,
    module_seconds,
)
from gpusizer.core.speed.step import StepModel
from tests.core.serving_step import serving_step

DATA = Path(__file__).parent / "data"
DEEPSEEK = (256, 7168, 2048, 8)


def _b200(section: str = "groups", release: str = "0.5.9") -> dict[str, Any]:
    """DeepSeek FP8 on 8 x B200, TP 8 under SGLang 0.5.9 (or the TensorRT-LLM control), InferenceX's
    scenario as sglang-ttft-split.json states it."""
    doc = json.loads((DATA / "sglang-ttft-split.json").read_text())
    group = next(g for g in doc[section] if g["key"][0] == "b200_sxm" and release in g["key"])
    return copy.deepcopy(group["rows"][0]["scenario"])


def _step(d: dict[str, Any]) -> StepModel:
    return serving_step(d)


@pytest.mark.parametrize(
    ("gpu", "tokens", "ms"),
    [
        # aiconfigurator 0.12.0 systems/data/<gpu>/moe/sglang/0.5.14/moe_perf.parquet, TP 8, EP 1,
        # power_law_1.01 (the median where a count is held twice)
        ("b200-192gb", 8192, 1.308),
        ("b200-192gb", 1024, 0.476),
        ("b300-288gb", 8192, 1.252),
        ("gb200-186gb", 8192, 1.225),
        ("gb300-288gb", 8192, 1.200),
    ],
)
def test_the_table_reads_as_measured(gpu: str, tokens: int, ms: float) -> None:
    points = measured_module(SGLANG_FLASHINFER_FP8, gpu, DEEPSEEK, 8, 1.01)
    assert module_seconds(points, tokens) * 1e3 == pytest.approx(ms, abs=0.001)


def test_sglang_on_b200_takes_the_module() -> None:
    """The routed experts of a DeepSeek-V3 layer at 8,192 tokens: the measured 1.308 ms less the
    module's kernel floors the step counts apart (6 x 3 us); the default grouped rates read 0.73
    (0.56 of it) before."""
    st = _step(_b200())
    assert st.moe_points
    shared = 2.0 * 8192 * st.shape.shared_w / st.rate.mm
    routed = st._experts(8192) / st.shape.moe_layers - shared
    assert routed * 1e3 == pytest.approx(1.308 - 0.018, abs=0.005)


def test_tensorrt_llm_keeps_its_own_rates() -> None:
    """TensorRT-LLM on the same B200s runs its own MoE backend (InferenceX: TRTLLM at these loads,
    DEEPGEMM at 256 users and more; aiconfigurator times DeepGEMM's only): no SGLang table."""
    assert not _step(_b200("controls", "1.2.0rc6.post3")).moe_points


def test_elsewhere_the_module_is_not_taken() -> None:
    """The table is EP 1."""
    d = _b200()
    d["parallelism"].update(expert=8, data=8, tensor=1)
    d["serving"]["concurrency"] = 8
    assert not _step(d).moe_points


def test_hopper_reads_the_triton_module_instead() -> None:
    """On an H200 SGLang runs these experts through its Triton fused MoE, whose own table is read
    (core/speed/moe_measured_lanes.py), not FlashInfer's Blackwell one."""
    d = _b200()
    d["hardware"]["gpu"] = "h200-141gb"
    st = _step(d)
    assert st.costs.moe_module == SGLANG_TRITON_FP8_BLOCK and st.moe_points
