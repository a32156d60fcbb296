"""vLLM's MoE backend for BF16 experts (``serving.moe_backend``, ``rl.rollout.moe_backend``;
core/registry/moe_backends.py): each release's default per GPU family, read in the PyPI sdists'
vllm/model_executor/layers/fused_moe/oracle/unquantized.py (0.20.0 ``_get_priority_backends``
tries FLASHINFER_TRTLLM, FLASHINFER_CUTLASS, TRITON; 0.23.0 carries vllm PR #44220, Triton first
on SM90), NeMo RL v0.7.0's ``moe_backend: triton`` and the measured Triton tables reading only
where Triton runs (docs/evidence/rl.md, the section on vLLM's MoE backend)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.rl_framework import fill_rl_framework
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.registry.moe_backends import (
    FLASHINFER_CUTLASS,
    FLASHINFER_TRTLLM,
    MOE_BACKENDS,
    TRITON,
    default_moe_backend,
)
from gpusizer.core.speed.moe_measured import VLLM_TRITON_BF16, VLLM_TRITON_BF16_SM100
from gpusizer.core.speed.moe_measured_lanes import lane_module
from tests.cli.test_cli_hostile_pd_framework import refused_in_one_line
from tests.core.serving_step import serving_step
from tests.scenarios import RL_SPLIT, vllm_serving

HOPPER, SM100 = (9, 0), (10, 0)


@pytest.mark.parametrize(
    ("version", "cc", "backend"),
    [
        # before 0.20.0: Triton unless VLLM_USE_FLASHINFER_MOE_FP16 (0.11.2, 0.17.1-0.19.0)
        ((0, 19, 0), HOPPER, TRITON),
        ((0, 19, 0), SM100, TRITON),
        # 0.20.0 - 0.22.1: FlashInfer TRT-LLM (SM100 family only), then CUTLASS (cc 9.0, SM100+)
        ((0, 20, 0), HOPPER, FLASHINFER_CUTLASS),
        ((0, 22, 1), HOPPER, FLASHINFER_CUTLASS),
        ((0, 20, 0), SM100, FLASHINFER_TRTLLM),
        # 0.23.0: PR #44220 moves both FlashInfer backends behind Triton on SM90 only
        ((0, 23, 0), HOPPER, TRITON),
        ((0, 33, 0), SM100, FLASHINFER_TRTLLM),
        ((0, 20, 0), (8, 0), TRITON),  # Ampere: neither FlashInfer backend supports it
        ((), SM100, TRITON),  # an unknown release reads as one before 0.20.0
    ],
)
def test_each_release_default_per_gpu_family(
    version: tuple[int, ...], cc: tuple[int, int], backend: str
) -> None:
    assert default_moe_backend(version, cc) == backend


@pytest.mark.parametrize(
    ("cc", "version", "stated", "module"),
    [
        ((9, 0), (0, 20, 0), None, ""),  # FlashInfer CUTLASS: no measured table, the rates
        ((9, 0), (0, 20, 0), TRITON, VLLM_TRITON_BF16),
        ((9, 0), (0, 23, 0), None, VLLM_TRITON_BF16),
        ((9, 0), (0, 19, 0), FLASHINFER_CUTLASS, ""),
        ((10, 0), (0, 20, 0), None, ""),  # FlashInfer TRT-LLM: the rates
        ((10, 0), (0, 20, 0), TRITON, VLLM_TRITON_BF16_SM100),  # NeMo RL v0.7.0's rollouts
        ((10, 0), (0, 19, 0), None, VLLM_TRITON_BF16_SM100),
    ],
)
def test_the_triton_tables_read_only_where_triton_runs(
    cc: tuple[int, int], version: tuple[int, ...], stated: str | None, module: str
) -> None:
    assert lane_module("vllm", "", cc, "bf16", "", version, stated) == module


def _qwen3_30b(gpu: str, version: str, **serving: Any) -> dict[str, Any]:
    """vLLM ``version`` serving Qwen3-30B-A3B (BF16) on one ``gpu``."""
    return vllm_serving("qwen3-30b-a3b", gpu, serving={"engine_version": version, **serving})


def _module(gpu: str, version: str, **serving: Any) -> str:
    """The measured module a Qwen3-30B-A3B step reads ("" none: the grouped-GEMM rates)."""
    st = serving_step(_qwen3_30b(gpu, version, **serving))
    return st.costs.moe_module if st.moe_points else ""


def test_a_default_0_20_run_on_hopper_leaves_the_triton_table() -> None:
    # the asked release decides, not the modelled one it takes (0.23.0 takes 0.21.0's rules)
    assert _module("h100-sxm-80gb", "0.19.0") == VLLM_TRITON_BF16
    assert _module("h100-sxm-80gb", "0.20.0") == ""
    assert _module("h100-sxm-80gb", "0.22.1") == ""
    assert _module("h100-sxm-80gb", "0.23.0") == VLLM_TRITON_BF16
    assert _module("h100-sxm-80gb", "0.21.0", moe_backend="triton") == VLLM_TRITON_BF16


def test_nemo_rl_0_7_0_sets_triton_for_a_vllm_rollout_only() -> None:
    # examples/configs/recipes/llm/performance/grpo-qwen3-235b-16n8g.yaml (v0.7.0): vllm_kwargs
    # moe_backend: triton, as every MoE recipe of the tag
    rl = {"framework": "nemo_rl", "framework_version": "0.7.0"}
    filled = fill_rl_framework({"rl": rl})["rl"]
    assert filled["rollout"]["moe_backend"] == TRITON and filled["rollout"]["engine_version"] == "0.20.0"
    assert (
        "moe_backend" not in fill_rl_framework({"rl": {**rl, "framework_version": "0.6.0"}})["rl"]["rollout"]
    )
    sglang = fill_rl_framework({"rl": {**rl, "rollout": {"engine": "sglang"}}})["rl"]["rollout"]
    assert "moe_backend" not in sglang


@pytest.mark.parametrize("value", ["cuda", "TRITON", "", 5, True, ["triton"], {"a": 1}, "x" * 500])
def test_hostile_values_name_the_field_and_the_ids(value: object) -> None:
    for where, data in (
        ("serving.moe_backend", _qwen3_30b("h100-sxm-80gb", "0.20.0", moe_backend=value)),
        ("rl.rollout.moe_backend", {"workload": {"kind": "rl"}, "rl": {"rollout": {"moe_backend": value}}}),
    ):
        with pytest.raises(ScenarioError) as err:
            parse_scenario(copy.deepcopy(data))
        assert err.value.field == where
        assert all(b in err.value.message for b in MOE_BACKENDS)
        assert len(str(err.value)) < 400


def test_another_engine_refuses_the_flag() -> None:
    d = _qwen3_30b("h100-sxm-80gb", "0.5.7", moe_backend="triton")
    d["framework"] = "sglang"
    with pytest.raises(ScenarioError) as err:
        parse_scenario(d)
    assert err.value.field == "serving.moe_backend" and "vLLM" in err.value.message


@pytest.mark.parametrize(
    ("scenario", "words"),
    [
        (_qwen3_30b("h100-sxm-80gb", "0.20.0", moe_backend="cutlass"), ("serving.moe_backend", "triton")),
        (
            {**RL_SPLIT, "rl": {**RL_SPLIT["rl"], "rollout": {"moe_backend": 3}}},
            ("rl.rollout.moe_backend", "triton"),
        ),
    ],
)
def test_the_cli_refuses_in_one_line_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: dict[str, Any], words: tuple[str, ...]
) -> None:
    refused_in_one_line(tmp_path, capsys, scenario, words, "estimate")
