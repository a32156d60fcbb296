"""AITER's fused MoE read at ROCm/aiter's own measured times (core/speed/moe_measured_aiter.py,
``aiter-fp8-block`` of core/speed/moe_measured.py, scripts/aiter_fmoe_table.py;
docs/evidence/speed.md, the section on AITER's tuned fmoe tables): the table as the CSV holds it,
read only for vLLM (or SGLang) with AITER's MoE stated on an AMD GPU with block-FP8 experts at a shape
the table holds, every other scenario as before."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.moe_backends import AITER, MOE_BACKENDS, TRITON
from gpusizer.core.speed.moe_measured import AITER_FP8_BLOCK, measured_module, module_seconds
from gpusizer.core.speed.moe_measured_aiter import aiter_module
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.serving_step import serving_step
from tests.scenarios import vllm_serving

QWEN3_NEXT = (512, 2048, 512, 10)  # experts, hidden, moe_intermediate_size, top-k (config.json)


@pytest.mark.parametrize(
    ("tp", "tokens", "us"),
    [
        # ROCm/aiter aiter/configs/model_configs/qwen3next_80b_fp8_tuned_fmoe.csv at 9617dfb9,
        # cu_num 256, per_1x128, SiLU, expert 512, topk 10: the rows' ``us`` as written
        (1, 1, 33.338),
        (1, 64, 216.709),
        (1, 32768, 2805.44),
        (2, 64, 115.888),  # inter_dim 256
        (4, 1, 30.5985),  # inter_dim 128
    ],
)
def test_the_table_holds_the_csv_rows(tp: int, tokens: int, us: float) -> None:
    for alpha in (1.01, 1.2):  # timed under random scores: one series whatever the power law
        pts = measured_module(AITER_FP8_BLOCK, "mi355x-288gb", QWEN3_NEXT, tp, alpha)
        # the table keeps ms to 6 places: 1 ns
        assert module_seconds(pts, tokens) == pytest.approx(us * 1e-6, abs=1e-9)


def test_between_rows_the_time_is_linear_in_tokens() -> None:
    # 48 tokens: halfway between the 32-token (142.568 us) and 64-token (216.709 us) rows
    pts = measured_module(AITER_FP8_BLOCK, "mi355x-288gb", QWEN3_NEXT, 1, 1.2)
    assert module_seconds(pts, 48) == pytest.approx((142.568 + 216.709) / 2 * 1e-6, abs=1e-9)


@pytest.mark.parametrize(
    ("engine", "vendor", "experts", "rule", "backend", "module"),
    [
        ("vllm", "AMD", "fp8", "fp8-block", AITER, AITER_FP8_BLOCK),
        ("vllm", "AMD", "fp8", "fp8-block", None, ""),  # off by default (VLLM_ROCM_USE_AITER)
        ("vllm", "AMD", "fp8", "fp8-block", TRITON, ""),
        ("vllm", "NVIDIA", "fp8", "fp8-block", AITER, ""),  # a ROCm kernel
        ("vllm", "AMD", "fp8", "fp8", AITER, ""),  # per-tensor FP8: another kernel, no table
        ("vllm", "AMD", "bf16", "", AITER, ""),
        # SGLang's SGLANG_USE_AITER=1 calls the same aiter.fused_moe (core/registry/moe_backends.py)
        ("sglang", "AMD", "fp8", "fp8-block", AITER, AITER_FP8_BLOCK),
        ("sglang", "AMD", "fp8", "fp8-block", None, ""),
        ("tensorrt-llm", "AMD", "fp8", "fp8-block", AITER, ""),
    ],
)
def test_the_lane_reads_only_a_stated_aiter_run_of_block_fp8_on_amd(
    engine: str, vendor: str, experts: str, rule: str, backend: str | None, module: str
) -> None:
    assert aiter_module(engine, vendor, experts, rule, backend) == module


def _qwen3_next(gpu: str, tp: int = 1, **serving: Any) -> dict[str, Any]:
    """vLLM 0.17.0 serving Qwen3-Next-80B-A3B-FP8 (128 x 128 blocks) on ``tp`` x ``gpu``."""
    d = vllm_serving("qwen3-next-80b-a3b", gpu, serving={"engine_version": "0.17.0", **serving})
    d["precision"] = {"weights": "fp8", "quantization_rule": "fp8-block", "kv_cache": "fp8"}
    d["parallelism"] = {"tensor": tp, "pipeline": 1, "expert": 1, "data": 1}
    return d


def test_a_stated_aiter_run_on_the_mi355x_reads_the_table() -> None:
    st = serving_step(_qwen3_next("mi355x-288gb", moe_backend=AITER))
    assert st.costs.moe_module == AITER_FP8_BLOCK and st.moe_points
    assert st.moe_points == measured_module(AITER_FP8_BLOCK, "mi355x-288gb", QWEN3_NEXT, 1, 1.2)


def test_without_the_flag_or_the_shape_the_rates_price_the_experts() -> None:
    assert not serving_step(_qwen3_next("mi355x-288gb")).moe_points  # default: no AITER MoE
    # CDNA3 (cu_num 304): no row of this shape in any tuned table
    assert not serving_step(_qwen3_next("mi325x-256gb", moe_backend=AITER)).moe_points
    # TP 8: inter_dim 64, not tuned; and not loaded either: 512 / 8 = 64 is half a 128-wide FP8
    # block, which vLLM refuses (core/pipeline/validate_block_quant.py, serving.md's section on
    # block-FP8 TP shares)
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_qwen3_next("mi355x-288gb", tp=8, moe_backend=AITER))
    assert err.value.field == "parallelism.tensor" and "512 / 8 = 64" in err.value.message


def test_a_rocm_kernel_on_an_nvidia_gpu_is_refused_in_one_line() -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_qwen3_next("h200-141gb", moe_backend=AITER))
    assert err.value.field == "serving.moe_backend" and "AMD" in err.value.message
    assert len(str(err.value)) < 200


@pytest.mark.parametrize("value", ["AITER", "rocm_aiter", " aiter", 0, None])
def test_hostile_values_name_the_field_and_list_aiter(value: object) -> None:
    d = copy.deepcopy(_qwen3_next("mi355x-288gb", moe_backend=value))
    if value is None:  # null: the release's own choice, accepted
        assert parse_scenario(d).serving.moe_backend is None
        return
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d)
    assert err.value.field == "serving.moe_backend"
    assert AITER in err.value.message and all(b in err.value.message for b in MOE_BACKENDS)


def test_the_cli_refuses_aiter_on_nvidia_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    scenario = _qwen3_next("h200-141gb", moe_backend=AITER)
    refused_in_one_line(tmp_path, capsys, scenario, ("serving.moe_backend", "AMD"), "estimate")
