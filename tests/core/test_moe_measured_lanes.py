"""vLLM's and SGLang's Triton fused MoE on Hopper read at its measured times
(core/speed/moe_measured_lanes.py, core/speed/moe_measured.py; docs/evidence/speed.md, the section
on the measured Triton MoE modules).

The tables (src/gpusizer/presets/moe-module-times.json, scripts/triton_moe_module_table.py) are
aiconfigurator 0.12.0's vLLM 0.24.0 ``vllm_unquantizedfusedmoe_triton_tritonexperts`` bfloat16 and
SGLang 0.5.14 ``sglang_fused_moe_triton`` bfloat16 / fp8_block rows at EP 1 on the H100 SXM and
H200; no replayed figure set them."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.speed.moe_measured import (
    MODULE_TABLES,
    SGLANG_TRITON_BF16,
    SGLANG_TRITON_FP8_BLOCK,
    VLLM_TRITON_BF16,
    VLLM_TRITON_BF16_SM100,
    measured_module,
    module_seconds,
)
from gpusizer.core.speed.moe_measured_lanes import lane_module
from gpusizer.core.speed.rates_sglang_moe import SGLANG_TRITON_MOE
from gpusizer.core.speed.step import StepModel
from tests.core.serving_step import serving_step

DATA = Path(__file__).parent / "data"
PRESETS = Path(__file__).parents[2] / "src" / "gpusizer" / "presets"
QWEN3_30B = (128, 2048, 768, 8)
QWEN3_235B = (128, 4096, 1536, 8)
DEEPSEEK = (256, 7168, 2048, 8)


@pytest.mark.parametrize(
    ("kernel", "gpu", "shape", "tp", "alpha", "tokens", "ms"),
    [
        # aiconfigurator 0.12.0 systems/data/h200_sxm/moe/vllm/0.24.0/moe_perf.parquet, EP 1,
        # vllm_unquantizedfusedmoe_triton_tritonexperts bfloat16, power_law_1.2
        (VLLM_TRITON_BF16, "h200-141gb", QWEN3_30B, 1, 1.2, 1, 0.0392),
        (VLLM_TRITON_BF16, "h200-141gb", QWEN3_30B, 1, 1.2, 64, 0.2871),
        (VLLM_TRITON_BF16, "h200-141gb", QWEN3_30B, 1, 1.2, 8192, 1.4433),
        # the same release's h100_sxm table, Qwen3-235B at TP 4
        (VLLM_TRITON_BF16, "h100-sxm-80gb", QWEN3_235B, 4, 1.2, 4096, 1.0275),
        # systems/data/h200_sxm/moe/sglang/0.5.14/moe_perf.parquet, sglang_fused_moe_triton
        (SGLANG_TRITON_BF16, "h200-141gb", QWEN3_235B, 8, 1.2, 1024, 0.3141),
        (SGLANG_TRITON_FP8_BLOCK, "h200-141gb", DEEPSEEK, 8, 1.01, 64, 0.3255),
        (SGLANG_TRITON_FP8_BLOCK, "h200-141gb", DEEPSEEK, 8, 1.01, 1024, 0.5385),
    ],
)
def test_the_tables_read_as_measured(
    kernel: str, gpu: str, shape: tuple[int, int, int, int], tp: int, alpha: float, tokens: int, ms: float
) -> None:
    points = measured_module(kernel, gpu, shape, tp, alpha)
    assert module_seconds(points, tokens) * 1e3 == pytest.approx(ms, abs=0.0002)


def test_each_table_names_its_file_release_and_collector() -> None:
    doc = json.loads((PRESETS / "moe-module-times.json").read_text())
    for kernel in (VLLM_TRITON_BF16, SGLANG_TRITON_BF16, SGLANG_TRITON_FP8_BLOCK):
        source = doc["sources"][kernel]
        assert "aiconfigurator 0.12.0" in source and "moe_perf.parquet" in source
        assert "collect_moe.py" in source and MODULE_TABLES[kernel].engine in source


@pytest.mark.parametrize(
    ("engine", "era", "cc", "experts", "rule", "module"),
    [
        ("vllm", "", (9, 0), "bf16", "", VLLM_TRITON_BF16),
        # Blackwell: vLLM 0.24.0 selected FlashInfer's TRT-LLM BF16 MoE there, another kernel
        # (0.20.0 on: tests/core/test_moe_backend.py); a release not given reads as one before
        # 0.20.0, Triton at the B200's default-config time ("" before the MoE backend registry)
        ("vllm", "", (10, 0), "bf16", "", VLLM_TRITON_BF16_SM100),
        # block FP8 under vLLM: Triton or DeepGEMM, not recorded (module docstring)
        ("vllm", "", (9, 0), "fp8", "fp8-block", ""),
        ("sglang", SGLANG_TRITON_MOE, (9, 0), "bf16", "", SGLANG_TRITON_BF16),
        ("sglang", SGLANG_TRITON_MOE, (9, 0), "fp8", "fp8-block", SGLANG_TRITON_FP8_BLOCK),
        # per-tensor FP8 runs another kernel; SGLang before 0.5 has no table of its era
        ("sglang", SGLANG_TRITON_MOE, (9, 0), "fp8", "fp8", ""),
        ("sglang", "", (9, 0), "bf16", "", ""),
        ("tensorrt-llm", "", (9, 0), "bf16", "", ""),
    ],
)
def test_each_engine_reads_its_own_kernel(
    engine: str, era: str, cc: tuple[int, int], experts: str, rule: str, module: str
) -> None:
    assert lane_module(engine, era, cc, experts, rule) == module


def _qwen3_30b_h200() -> dict[str, Any]:
    """vLLM 0.17.0's Qwen3-30B-A3B BF16 on one H200 (speed-figures-blind2.json, cloudrift-ai/emmy
    PR 822)."""
    doc = json.loads((DATA / "speed-figures-blind2.json").read_text())
    rec = next(r for r in doc if r["id"] == "vllm-0.17.0-h200-qwen3-30b-a3b-bf16-tp1-c1-4k4k")
    return copy.deepcopy(rec["replay"][0]["scenario"])


def _step(d: dict[str, Any]) -> StepModel:
    return serving_step(d)


def test_vllm_bf16_experts_on_h200_take_the_module() -> None:
    """One decode token of Qwen3-30B-A3B (a layer's routed experts): the measured 0.0392 ms less the
    module's kernel floors the step counts apart."""
    st = _step(_qwen3_30b_h200())
    assert st.costs.moe_module == VLLM_TRITON_BF16 and st.moe_points
    shared = 2.0 * st.shape.shared_w / st.rate.mm
    floors = 6 * st.rates.kernel_floor
    assert st._experts(1) / st.shape.moe_layers - shared == pytest.approx(0.0392e-3 - floors, rel=0.01)


@pytest.mark.parametrize("change", ["ep", "b200", "fp8"])
def test_elsewhere_the_vllm_table_is_not_read(change: str) -> None:
    """EP 2 (the table is EP 1), a B200 (vLLM 0.17's Triton there is another table, which leaves
    this shape out: a tuned B200 config ran, tests/core/test_vllm_triton_sm100.py) and per-tensor
    FP8 experts (another kernel) keep the grouped-GEMM rates."""
    d = _qwen3_30b_h200()
    if change == "ep":
        d["parallelism"].update(tensor=2, expert=2)
    elif change == "b200":
        d["hardware"]["gpu"] = "b200-192gb"
    else:
        d["precision"] = {"weights": "fp8"}
    assert not _step(d).moe_points
