"""Real configurations of 2025-26, round 7 (vLLM recipes for Llama 3.3 70B FP8 / NVFP4,
Qwen3-VL, DeepSeek-V3.1 / V3.2-Exp, ERNIE 4.5, Hunyuan-A13B, Qwen3.5 / 3.6, GLM-5.1,
Nemotron-3-Nano, Mistral Large 3; vLLM's and SGLang's ``--cpu-offload-gb``, vLLM's KV and weight
format names; SGLang's Qwen3-Next and DeepSeek-V3.2 launches; TensorRT-LLM's gpt-oss guide;
Ollama's Gemma 3 QAT, llama.cpp's gpt-oss-20b, MLX's Kimi K2 over two Macs; LLaMA-Factory's DPO
and KTO, DeepSpeed ZeRO++, verl's DAPO, NeMo RL's GRPO), each replayed through the estimate as
its source states it (tests/core/data/real-configs-round7.json; docs/evidence/training.md, "Real
runs the estimate refused, round 7"); tests/core/test_real_configs.py checks each.

One reading is new: ``serving.cpu_offload_gib``, the GiB of weights each GPU of a vLLM or SGLang
engine keeps in pinned host memory and reads over its host link every step
(core/serving/weight_offload.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError

DATA = Path(__file__).parent / "data" / "real-configs-round7.json"
CONFIGS: dict[str, dict[str, Any]] = {c["name"]: c for c in json.loads(DATA.read_text())["configs"]}
GIB = 2**30
OFFLOAD = "vllm-llama2-13b-cpu-offload-10-l4"


def _scenario(name: str, **serving: Any) -> dict[str, Any]:
    s = copy.deepcopy(CONFIGS[name]["scenario"])
    s.setdefault("serving", {}).update(serving)
    return s


def test_the_docs_24gb_gpu_runs_a_13b_model_with_10gib_offloaded() -> None:
    """vLLM docs (examples/offline_inference/basic/README.md, "CPU offload"): one 24 GB GPU with
    --cpu-offload-gb 10 is "virtually a 34 GB GPU" and loads a 13B model in BF16, "which requires
    at least 26GB": without the offload vLLM finds no memory for the KV cache; with it the GPU
    holds the weights less exactly 10 GiB and the engine starts (the rest stays in host RAM)."""
    without = estimate_report(_scenario("vllm-llama2-13b-no-offload-l4"))
    offloaded = estimate_report(_scenario(OFFLOAD))
    assert not without["serving"]["starts"] and offloaded["serving"]["starts"]
    held = without["per_gpu"]["weights"] - offloaded["per_gpu"]["weights"]
    assert held == pytest.approx(10 * GIB, abs=1)  # the budget, to the byte's rounding
    assert offloaded["serving"]["host_memory_bytes"] == 10 * GIB
    assert 26e9 <= without["per_gpu"]["weights"] < 27e9  # "at least 26GB" of BF16 weights


def test_every_step_reads_the_offloaded_bytes_over_the_host_link() -> None:
    """Each step moves the offloaded bytes over the GPU's host link (an L40S: PCIe Gen4 x16 at
    the achieved 25 GB/s of core/speed/param_offload.py) before its layers run: the time per
    output token grows by 10 GiB / 25 GB/s = 0.43 s, within 2 % (a decode step of one user)."""
    base = _scenario(OFFLOAD)
    base["hardware"]["gpu"] = "l40s-48gb"
    slow = estimate_report(copy.deepcopy(base))["serving"]
    del base["serving"]["cpu_offload_gib"]
    plain = estimate_report(base)["serving"]
    added = 1 / slow["tokens_per_second_per_user"] - 1 / plain["tokens_per_second_per_user"]
    assert added == pytest.approx(10 * GIB / 25e9, rel=0.02)


def test_an_offload_past_the_weights_keeps_none_on_the_gpu() -> None:
    """vLLM stops offloading when the parameters run out: a budget above the model's weights
    offloads them all (1,000 GiB of a 13B model: 24.2 GiB in RAM, none on the GPU)."""
    report = estimate_report(_scenario(OFFLOAD, cpu_offload_gib=1000))
    assert report["per_gpu"]["weights"] == 0
    assert report["serving"]["host_memory_bytes"] == pytest.approx(13.02e9 * 2, rel=0.01)


def test_no_offload_answers_as_before() -> None:
    """``cpu_offload_gib`` 0 or null: the same report as a scenario without it."""
    base = _scenario("vllm-llama31-8b-kv-fp8-stated")
    zero = _scenario("vllm-llama31-8b-kv-fp8-stated", cpu_offload_gib=0)
    plain, stated = estimate_report(base), estimate_report(zero)
    stated["scenario"]["serving"].pop("cpu_offload_gib", None)
    plain["scenario"].get("serving", {}).pop("cpu_offload_gib", None)
    assert stated == plain


@pytest.mark.parametrize(
    ("framework", "label"), [("llama.cpp", "llama.cpp"), ("tensorrt-llm", "TensorRT-LLM")]
)
def test_engines_without_the_offload_name_the_field(framework: str, label: str) -> None:
    s = _scenario(OFFLOAD)
    s["framework"] = framework
    with pytest.raises(ScenarioError, match=r"^serving\.cpu_offload_gib: applies to vLLM and SGLang") as err:
        estimate_report(s)
    assert label in str(err.value)


@pytest.mark.parametrize("value", [-1, "10GB", float("inf")])
def test_a_bad_offload_names_the_field(value: Any) -> None:
    with pytest.raises(ScenarioError, match=r"^serving\.cpu_offload_gib"):
        estimate_report(_scenario(OFFLOAD, cpu_offload_gib=value))
