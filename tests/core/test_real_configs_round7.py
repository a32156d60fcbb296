"""Real configurations of 2025-26, round 7 (vLLM recipes for Llama 3.3 70B FP8 / NVFP4,
Qwen3-VL, DeepSeek-V3.1 / V3.2-Exp, ERNIE 4.5, Hunyuan-A13B, Qwen3.5 / 3.6, GLM-5.1,
Nemotron-3-Nano, Mistral Large 3; vLLM's and SGLang's ``--cpu-offload-gb``, vLLM's KV and weight
format names; SGLang's Qwen3-Next and DeepSeek-V3.2 launches; TensorRT-LLM's gpt-oss guide;
Ollama's Gemma 3 QAT, llama.cpp's gpt-oss-20b, MLX's Kimi K2 over two Macs; LLaMA-Factory's DPO
and KTO, DeepSpeed ZeRO++, verl's DAPO, NeMo RL's GRPO), each replayed through the estimate as
its source states it (tests/core/data/real-configs-round7.json; docs/evidence/training.md, "Real
runs the estimate refused, round 7"); tests/core/test_real_configs.py checks each.

Two readings are new: ``serving.cpu_offload_gib``, the GiB of weights each GPU of a vLLM or
SGLang engine keeps in pinned host memory and reads over its host link every step
(core/serving/weight_offload.py); DeepSpeed ZeRO++'s ``parallelism.zero_hpz_partition_size``,
``zero_quantized_weights`` and ``zero_quantized_gradients`` (core/memory/zeropp.py)."""

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


ZEROPP = "deepspeed-zeropp-hpz8-qwz-qgz-2x8h100"


def _zero3(**par: Any) -> dict[str, Any]:
    s = copy.deepcopy(CONFIGS["deepspeed-zeropp-stated-zero3"]["scenario"])
    s["parallelism"].update(par)
    return s


def test_hpz_keeps_a_second_16bit_partition_within_its_group() -> None:
    """Wang et al. 2023 (arXiv 2306.10209) §3.2: hpZ's secondary partition of the 16-bit weights
    over the hpZ group, 2 x parameters / hpz bytes a GPU beside the primary 1/N shard: Qwen2.5-7B
    over 16 GPUs with hpz 8 holds 7.62e9 x 2 / 8 bytes more, to the byte's rounding; qwZ and
    qgZ move no lasting byte."""
    plain = estimate_report(_zero3())["per_gpu"]["weights"]
    hpz = estimate_report(_zero3(zero_hpz_partition_size=8))["per_gpu"]["weights"]
    full = estimate_report(copy.deepcopy(CONFIGS[ZEROPP]["scenario"]))["per_gpu"]["weights"]
    assert hpz - plain == pytest.approx(plain * 16 / 8, abs=16)  # the unsharded weights / 8
    assert hpz - plain == pytest.approx(7.62e9 * 2 / 8, rel=0.01)
    assert full == hpz
    assert estimate_report(_zero3(zero_hpz_partition_size=1))["per_gpu"]["weights"] == plain


def test_zeropp_shortens_a_step_whose_gathers_cross_nodes() -> None:
    """A step whose ZeRO-3 collectives are not hidden (256 tokens a GPU over 64 H100s): hpZ's
    backward gather stays in the node, qwZ halves the forward gather's bytes, qgZ quarters the
    gradients': each is faster than plain ZeRO-3 and all three fastest (the paper's direction;
    its up-to-2.16x at 384 GPUs is not replayed here)."""
    short = {"sequence_length": 256, "global_batch_size": 64}

    def rate(**par: Any) -> float:
        s = _zero3(data=64, **par)
        s["workload"].update(short)
        return float(estimate_report(s)["compute"]["tokens_per_second"])

    plain, hpz = rate(), rate(zero_hpz_partition_size=8)
    all3 = rate(zero_hpz_partition_size=8, zero_quantized_weights=True, zero_quantized_gradients=True)
    assert plain < hpz < all3
    assert plain < rate(zero_quantized_weights=True) and plain < rate(zero_quantized_gradients=True)


@pytest.mark.parametrize(
    ("par", "words"),
    [
        ({"zero_hpz_partition_size": 8, "zero_stage": 2}, "runs on ZeRO-3"),
        ({"zero_quantized_weights": True, "zero_stage": 1}, "runs on ZeRO-3"),
        ({"zero_hpz_partition_size": 3}, "must divide the data-parallel ranks (16"),
    ],
)
def test_zeropp_outside_zero3_names_the_field(par: dict[str, Any], words: str) -> None:
    with pytest.raises(ScenarioError, match=r"^parallelism\.zero_") as err:
        estimate_report(_zero3(**par))
    assert words in str(err.value)


def test_zeropp_fields_left_out_of_the_echo_when_null() -> None:
    """Scenarios without the new fields echo as before; stated, they echo and load back."""
    plain = estimate_report(_zero3())["scenario"]
    assert "zero_hpz_partition_size" not in plain["parallelism"]
    assert "cpu_offload_gib" not in plain.get("serving", {})
    stated = estimate_report(copy.deepcopy(CONFIGS[ZEROPP]["scenario"]))
    assert stated["scenario"]["parallelism"]["zero_hpz_partition_size"] == 8
    assert estimate_report(copy.deepcopy(stated["scenario"])) == stated
