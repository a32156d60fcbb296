"""TensorRT-LLM's CUTLASS fused MoE at the rates NVIDIA aiconfigurator measured
(core/speed/rates_trtllm_moe.py; docs/evidence/speed.md section 49).

Data: tests/core/data/trtllm-moe-measured.json, rows of aiconfigurator 0.12.0's
``systems/data/<gpu>/moe/trtllm/1.3.0rc20/moe_perf.parquet`` (``moe_torch_flow_cutlass``): one
MoE module call on the GPU holding 1 / EP of the experts, ``num_tokens`` the EP group's tokens,
the busiest rank timed. The model's side: the step model's routed experts a layer
(core/speed/step_moe.py ``_experts`` at ``num_tokens / EP`` tokens a rank, the shared experts left
out: the module has none) plus the fused MoE's kernel floors, on the overview column of the same
GPU, model, format and EP.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.speed.rates_trtllm_moe import (
    BLACKWELL_NVFP4,
    HOPPER_FP8,
    TRTLLM_CUTLASS_MOE,
    era_for_experts,
)
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_kernels import VENDOR_MOE
from tests.core.moe_module import routed_step
from tests.core.replay_steps import replay_scenario

DATA: dict[str, Any] = json.loads((Path(__file__).parent / "data" / "trtllm-moe-measured.json").read_text())
# (gpu, model, EP) of the table -> the speed figure whose replay has that GPU, model, format and EP
COLUMN = {
    ("h100_sxm", "Qwen3-235B-A22B", 8): "trtllm-1.0-q235-fp8-h100-x8-tp8-1000-1000",
    ("h200_sxm", "Qwen3-235B-A22B", 8): "trtllm-1.0-q235-fp8-h200-x8-tp8-1000-1000",
    ("b200_sxm", "Qwen3-235B-A22B", 8): "trtllm-1.0-q235-fp4-b200-x8-tp8-1000-1000",
    ("h100_sxm", "Llama 4 Scout", 4): "trtllm-1.0-scout-fp8-h100-x4-tp4-1000-1000",
    ("b200_sxm", "Llama 4 Scout", 1): "trtllm-1.0-scout-fp4-b200-x1-tp1-1000-1000",
    ("b200_sxm", "Llama 4 Maverick", 8): "trtllm-1.0-mav-fp4-b200-x8-tp8-1000-1000",
    ("b200_sxm", "DeepSeek-R1", 8): "trtllm-dsr1-b200-maxtput-fp8kv",
    ("b200_sxm", "Qwen3-30B-A3B", 1): "trtllm-1.0-q30-fp4-b200-x1-tp1-1000-1000",
}


def _series(use: str) -> list[dict[str, Any]]:
    return [s for s in DATA["series"] if s["use"] == use and (s["gpu"], s["model"], s["ep"]) in COLUMN]


def _routed_step(rid: str, weights: str = "") -> StepModel:
    """The column's rank step with the shared experts taken out (the measured module has none),
    its weights in ``weights`` where given, priced by the CUTLASS shares."""
    raw = replay_scenario(rid, "serving")
    if weights:
        raw["precision"] = {**raw.get("precision", {}), "weights": weights}
    st = routed_step(raw)
    # the shares' own step: where the engine's module table holds the shape the step reads it
    # as measured (core/speed/moe_measured.py ``group_module``), which these tests do not check
    st.moe_points = ()
    return st


def _model_ms(st: StepModel, tokens: int, shares: tuple[float, float] | None = None) -> float:
    """The model's MoE module for ``tokens`` tokens of the EP group, ms a layer."""
    kept = st.rates
    if shares is not None:
        st.rates = replace(kept, grouped_bandwidth=shares[0], grouped_half=shares[1])
    try:
        routed = st._experts(tokens / st.shape.ep) / st.shape.moe_layers
        return (routed + VENDOR_MOE * st.rates.kernel_floor) * 1e3
    finally:
        st.rates = kept


def _ratios(s: dict[str, Any], shares: tuple[float, float] | None = None) -> list[float]:
    st = _routed_step(COLUMN[(s["gpu"], s["model"], s["ep"])])
    return [_model_ms(st, t, shares) / ms for t, ms in zip(s["tokens"], s["ms"], strict=True)]


def _geo(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


BANDWIDTHS = [i / 100 for i in range(20, 96)]
HALVES = [10, 20, 30, 40, 50, 60, 70, 80, 95, 110, 130, 150, 175, 200, 250, 300, 350, 400, 500, 600, 800]


@pytest.mark.parametrize(("gpu", "shares"), [("h100_sxm", HOPPER_FP8), ("b200_sxm", BLACKWELL_NVFP4)])
def test_the_reference_rows_set_the_shares(gpu: str, shares: tuple[float, float]) -> None:
    """Least squares of log(model / measured) over the 7 reference rows (Qwen3-235B, EP 8,
    power_law_1.2, 256-16,384 tokens), on a grid of 1 % of HBM and the listed half-rate points."""
    (s,) = [s for s in _series("reference") if s["gpu"] == gpu]
    st = _routed_step(COLUMN[(gpu, s["model"], s["ep"])])

    def loss(bw: float, half: float) -> float:
        pairs = zip(s["tokens"], s["ms"], strict=True)
        return sum(math.log(_model_ms(st, t, (bw, half)) / ms) ** 2 for t, ms in pairs)

    best = min(((bw, float(h)) for bw in BANDWIDTHS for h in HALVES), key=lambda p: loss(*p))
    assert best == shares


@pytest.mark.parametrize("gpu", ["h100_sxm", "b200_sxm"])
def test_the_reference_rows_replay(gpu: str) -> None:
    # with the shares: geometric mean 0.98 (H100) / 0.91 (B200), each row 0.70-1.20; at DeepGEMM's
    # default shares 0.79 / 0.64 (the model's MoE layer 1.3-1.6x too cheap)
    (s,) = [s for s in _series("reference") if s["gpu"] == gpu]
    now = _ratios(s)
    assert 0.88 <= _geo(now) <= 1.05, now
    assert all(0.68 <= r <= 1.22 for r in now), now
    assert _geo(_ratios(s, (0.62, 95.0))) < 0.8


@pytest.mark.parametrize(
    ("gpu", "model", "low", "high"),
    [
        ("h200_sxm", "Qwen3-235B-A22B", 1.0, 1.25),  # 1.16 (0.91-1.45)
        ("b200_sxm", "Llama 4 Scout", 0.95, 1.2),  # 1.07 (0.93-1.18), EP 1, top-1 of 16
        ("b200_sxm", "Llama 4 Maverick", 0.9, 1.2),  # 1.05 (0.71-1.36), top-1 of 128
        ("b200_sxm", "DeepSeek-R1", 0.9, 1.1),  # 0.99 (0.67-1.28), power_law_1.01, 256 experts
        ("h100_sxm", "Llama 4 Scout", 1.1, 1.35),  # 1.23 (1.05-1.40): dear, 16 large experts
        ("b200_sxm", "Qwen3-30B-A3B", 0.5, 0.7),  # 0.58 (0.36-0.90): cheap, hidden 2,048
    ],
)
def test_other_shapes_out_of_sample(gpu: str, model: str, low: float, high: float) -> None:
    """Every shape but the reference's: within 20 % on geometric mean for the large-expert
    models (Scout, Maverick, DeepSeek-R1, Qwen3-235B on H200); the small experts of
    Qwen3-30B-A3B (2,048 x 768) stay under-priced, the module's fixed work per token not in the
    grouped-GEMM rule; Scout's 16 experts of 5,120 x 8,192 on an H100 over-priced."""
    (s,) = [s for s in _series("check") if s["gpu"] == gpu and s["model"] == model]
    assert low <= _geo(_ratios(s)) <= high


def test_the_release_gap_measured_where_both_releases_were() -> None:
    # aiconfigurator measured the L40S under 1.0.0 and 1.3.0rc20: the CUTLASS MoE module of the
    # same shapes within a few per cent (the figures these rates serve ran 0.20 and 1.0)
    assert "geometric mean 1.01" in DATA["release_gap"] and "0.95-1.09" in DATA["release_gap"]


def _one(gpu: str, dtype: str) -> dict[str, Any]:
    key = (gpu, "Qwen3-235B-A22B", dtype)
    (s,) = [s for s in DATA["series"] if (s["gpu"], s["model"], s["dtype"]) == key]
    return s


def _geo_from_512(rid: str, weights: str, s: dict[str, Any]) -> float:
    st = _routed_step(rid, weights)
    pairs = [(t, ms) for t, ms in zip(s["tokens"], s["ms"], strict=True) if t >= 512]
    return _geo([_model_ms(st, t) / ms for t, ms in pairs])


def test_the_shares_apply_to_the_formats_they_were_measured_in() -> None:
    era = TRTLLM_CUTLASS_MOE
    assert era_for_experts(era, "hopper", "fp8", "llm-compressor") == era
    assert era_for_experts(era, "hopper", "bf16", "") == era
    assert era_for_experts(era, "blackwell", "nvfp4", "modelopt") == era
    # DeepGEMM runs block-scaled FP8 on both families; Blackwell's FP8 and BF16 were not fitted
    assert era_for_experts(era, "hopper", "fp8", "fp8-block") == ""
    assert era_for_experts(era, "blackwell", "fp8", "fp8-block") == ""
    assert era_for_experts(era, "blackwell", "fp8", "llm-compressor") == ""
    assert era_for_experts(era, "blackwell-rtx", "nvfp4", "modelopt") == ""
    assert era_for_experts("vllm-0.11", "hopper", "fp8", "") == "vllm-0.11"


def test_hoppers_shares_hold_for_its_bf16_experts() -> None:
    # the table's BF16 rows of the reference shape on h100_sxm (its 256-token row, 1.38 ms against
    # 0.29 at 512, left out): 1.07 with the FP8-solved shares, 0.88 at DeepGEMM's
    rid = COLUMN[("h100_sxm", "Qwen3-235B-A22B", 8)]
    assert 1.0 <= _geo_from_512(rid, "bf16", _one("h100_sxm", "bfloat16")) <= 1.15


def test_blackwells_fp8_experts_keep_the_default_shares() -> None:
    # the table's FP8 rows of the reference shape on b200_sxm run faster than NVFP4's shares give
    # (1.6x); at the default shares, which these experts keep, 1.11 from 512 tokens
    rid = COLUMN[("b200_sxm", "Qwen3-235B-A22B", 8)]
    assert 1.0 <= _geo_from_512(rid, "fp8", _one("b200_sxm", "fp8")) <= 1.3
