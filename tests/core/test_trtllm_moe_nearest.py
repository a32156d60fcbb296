"""TensorRT-LLM's CUTLASS fused MoE at an expert shape its measured table lacks: the nearest
measured shape's calls scaled by the step's own expert terms
(core/speed/moe_measured_group_nearest.py; docs/evidence/speed.md, the section on TensorRT-LLM's
MoE floors on Blackwell).

Data: src/gpusizer/presets/moe-module-times.json ``trtllm-cutlass-moe`` (NVIDIA aiconfigurator
0.12.0, TensorRT-LLM 1.3.0rc20 ``moe_torch_flow_cutlass``). Published figure: TensorRT-LLM PR
#11691 (GLM-4.7 FP8, 4 x GB200, TP 4 EP 4, 1k/1k), TPOT 17.2 ms at 4 users.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.speed import moe_measured_group_nearest as gn
from gpusizer.core.speed.moe_measured import TRTLLM_CUTLASS_MOE_MODULE, _tables, module_seconds
from tests.core.serving_step import serving_step
from tests.core.trtllm_moe_holdout import scenario, shares

GLM = (160, 5120, 1536, 8)  # GLM-4.5 / 4.7: experts, hidden, intermediate, top-k
Q235 = (128, 4096, 1536, 8)


def _glm(users: int) -> dict[str, Any]:
    """TensorRT-LLM#11691's replay at ``users`` (tests/core/data/speed-figures-blind7.json)."""
    return {
        "model": {"preset": "glm-4.5"},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": "gb200-186gb"},
        "workload": {"kind": "inference", "prompt_tokens": 1024, "generated_tokens": 1024},
        "parallelism": {"tensor": 4, "pipeline": 1, "expert": 4, "data": 1},
        "serving": {"load": "steady", "concurrency": users, "prefill_chunk_tokens": 1152},
        "precision": {"weights": "fp8", "kv_cache": "fp8", "activations": "bf16"},
    }


def test_layouts() -> None:
    assert gn.group_layout(4, 4, 1) == (4, 4)  # attention DP: a rank's tokens x EP
    assert gn.group_layout(4, 1, 4) == (4, 1)  # EP inside TP: every rank holds the step's tokens
    assert gn.group_layout(8, 1, 4) is None  # experts TP-split too: not as measured
    assert gn.group_layout(4, 1, 1) is None


def test_glm_reads_qwen3_235bs_b200_row_for_the_gb200() -> None:
    near = gn.group_nearest(TRTLLM_CUTLASS_MOE_MODULE, "gb200-186gb", GLM, "fp8", 4, 1.01)
    assert near is not None and near[0] == Q235
    assert near[1] == 1.2  # the table times FP8 under power_law_1.2 only
    # aiconfigurator 0.12.0: B200, FP8, Qwen3-235B, EP 4, 4 tokens of the group in 0.057 ms
    assert module_seconds(near[2], 4) == pytest.approx(0.057e-3, rel=0.02)
    assert gn.group_nearest(TRTLLM_CUTLASS_MOE_MODULE, "b300-288gb", GLM, "fp8", 4, 1.01) is None


def test_a_far_neighbour_is_not_read() -> None:
    # H200 holds no Llama 4 rows; Qwen3's are 3.97 away from Maverick's (top 8 against top 1)
    mav = (128, 5120, 8192, 1)
    assert gn.group_nearest(TRTLLM_CUTLASS_MOE_MODULE, "h200-141gb", mav, "fp8", 8, 1.2) is None


def test_holdout_of_qwen3_235b_on_the_b200() -> None:
    # Qwen3-235B's FP8 rows at EP 4 taken out and read from Qwen3-30B's (distance 1.39):
    # rule / measured at 1 and 4 rank tokens 0.70 and 0.64 (the rates 0.39 and 0.35);
    # scripts/trtllm_moe_nearest_holdout.py, tolerance 0.03
    got = shares(("b200-192gb", "fp8", Q235, 4, "power_law_1.2"))
    assert got is not None
    assert got[0][0] == pytest.approx(0.70, abs=0.03) and got[1][0] == pytest.approx(0.64, abs=0.03)
    assert got[0][1] == pytest.approx(0.39, abs=0.03) and got[1][1] == pytest.approx(0.35, abs=0.03)


def test_the_exact_row_is_still_read_where_measured() -> None:
    st = serving_step(scenario("b200-192gb", Q235, 4, "fp8", False))
    row = _tables()[(TRTLLM_CUTLASS_MOE_MODULE, "b200-192gb", *Q235, 4, "power_law_1.2", "fp8")]
    assert module_seconds(st.moe_points, 1) == pytest.approx(module_seconds(row, 4))


def test_glm_small_batch_tpot_moves_toward_the_published() -> None:
    # TensorRT-LLM#11691: 17.2 ms TPOT at 4 users; the grouped rates read 9.8 ms (1.75 fast),
    # the nearest measured row 11.4 ms (1.50); tolerance 0.03 of the ratio
    sv = estimate(_glm(4)).serving
    assert sv is not None
    assert 0.0172 / sv.tpot_seconds == pytest.approx(1.50, abs=0.03)
