"""Published serving speeds (tests/core/data/serving-speed.json) against the serving block.

The block is the step model (core/speed/step.py: achieved rates, kernel floors, collectives,
the engine's host cost) under the scheduler (core/serving/scheduler.py). These records are the
earlier set (TensorRT-LLM v0.5/v0.6 tables, llama.cpp on Apple M1/M2), replayed on the current
releases' rules; tests/core/test_speed_figures.py holds the issue-20 set. Tolerance 35 % on
every record. Records known to be off stay listed with the reason; records that cannot be
replayed are listed with why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate

TOLERANCE = 0.35
RECORDS = {
    r["id"]: r for r in json.loads((Path(__file__).parent / "data" / "serving-speed.json").read_text())
}


def _apple(name: str, bandwidth: float, tflops: float, ram_gib: int, source: str) -> dict:
    """An Apple GPU not in the catalog: unified memory at its bandwidth, FP16 = FP32 rate."""
    return {
        "id": name,
        "name": name,
        "vendor": "Apple",
        "category": "unified_memory",
        "memory_bytes": ram_gib * 2**30,
        "hbm_bandwidth_gb_per_s": bandwidth,
        "dense_tflops": {"fp32": tflops, "fp16": tflops, "bf16": tflops},
        "interconnect_gb_per_s": 0,
        "gpus_per_node": 1,
        "unified_memory": True,
        "gpu_memory_fraction": 0.75,
        "source_url": source,
    }


# Apple newsroom: M1 Max 400 GB/s, 10.4 TFLOPS (2021-10-18); M1 Ultra 800 GB/s, 21 TFLOPS
# (2022-03-08); M2 Ultra 800 GB/s, 27.2 TFLOPS with the 76-core GPU (2023-06-05).
M1_MAX = _apple("m1-max-64gb", 400, 10.4, 64, "apple.com/newsroom 2021-10-18")
M1_ULTRA = _apple("m1-ultra-128gb", 800, 21.0, 128, "apple.com/newsroom 2022-03-08")
M2_ULTRA = _apple("m2-ultra-192gb", 800, 27.2, 192, "apple.com/newsroom 2023-06-05")
TINYLLAMA = {
    "name": "TinyLlama 1.1B",
    "layers": 22,
    "hidden_size": 2048,
    "attention_heads": 32,
    "kv_heads": 4,
    "ffn_hidden_size": 5632,
    "vocab_size": 32000,
}


def _version(r: dict[str, Any]) -> str:
    """The release a record ran ("0.5 (static batching, ...)" -> "0.5.0"): its own rules (the
    C++ runtime of v0.5 / v0.6, the PyTorch backend of 0.19)."""
    v = r["engine_version"].split()[0]
    return v if v.count(".") >= 2 else v + ".0"


# record id -> the scenario its TensorRT-LLM figures are replayed on (scripts/evidence_bands.py
# groups them by the regime of that scenario)
SCENARIOS: dict[str, dict[str, Any]] = {}


def _trt(r: dict[str, Any], batch: int | None = None) -> Any:
    """A TensorRT-LLM benchmark run: the engine built for this batch and these lengths."""
    SCENARIOS[r["id"]] = sc = _trt_scenario(r, batch)
    return estimate(sc).serving


def _trt_scenario(r: dict[str, Any], batch: int | None = None) -> dict[str, Any]:
    prec = r["precision"]
    weights = "nvfp4" if "FP4" in prec else "fp8" if "FP8" in prec else "fp16"
    b = batch or r["batch_size"]
    return {
        "model": {"preset": r["model"]["preset"]},
        "framework": "tensorrt-llm",
        "hardware": {"gpu": r["gpu"]["catalog_id"]},
        "workload": {
            "kind": "inference",
            "batch_size": b,
            "prompt_tokens": r["input_tokens"],
            "generated_tokens": r["output_tokens"],
        },
        "precision": {
            "weights": weights,
            "activations": "fp16",
            "kv_cache": "fp8" if weights == "fp8" else "fp16",
        },
        "parallelism": {"tensor": r["tensor_parallel"]},
        # the tables' static batch: the requests arrive together (a burst) and are drained
        "serving": {
            "max_context": r["input_tokens"] + r["output_tokens"],
            "max_sequences": b,
            "load": "burst",
            "engine_version": _version(r),
        },
    }


def _llama(model: dict, weights: str, gpu: dict, prompt: int, out: int, version: str | None = None) -> Any:
    """A llama-bench run; ``version`` the oldest release not older than its build (None: the
    newest), so a 2023 build keeps 2023's Metal kernels (core/speed/rates_era.py)."""
    return estimate(
        {
            "model": model,
            "framework": "llama.cpp",
            "hardware": {"gpu": gpu},
            "precision": {
                "weights": weights,
                **({"quantization_rule": "gguf-f16"} if weights == "fp16" else {}),
            },
            "workload": {"kind": "inference", "prompt_tokens": prompt, "generated_tokens": out},
            "serving": {"max_context": prompt + max(out, 1), "max_sequences": 1, "engine_version": version},
        }
    ).serving


def _cases() -> list[tuple[str, str, float, float, str]]:
    """(record, metric, estimate, published, known deviation or "")."""
    out = []
    for rid, r in RECORDS.items():
        if r["engine"] != "tensorrt-llm":
            continue
        m = r["metrics"]
        if "ttft_ms" in m:
            sv = _trt(r)
            out.append((rid, "ttft ms", sv.ttft_seconds * 1e3, m["ttft_ms"], KNOWN.get(rid, "")))
        elif "output_tokens_per_second" in m:
            sv = _trt(r)
            tps = m["output_tokens_per_second"] * (
                r["tensor_parallel"] if "GPU" in m["unit_as_printed"] else 1
            )
            out.append((rid, "output tokens/s", sv.tokens_per_second, tps, KNOWN.get(rid, "")))
        else:  # trtllm-bench at an infinite request rate: the engine's full batch (2048)
            sv = _trt(r, batch=2048)
            out.append(
                (
                    rid,
                    "output tokens/s",
                    sv.tokens_per_second,
                    m["total_output_tokens_per_second"],
                    KNOWN.get(rid, ""),
                )
            )
    m1 = _llama({"preset": "llama-3.1-8b"}, "gguf_q4_k_m", M1_MAX, 512, 128)
    rid = "llamacpp-m1max-llama31-8b-q4km"
    out += [
        (
            rid,
            "pp512 tokens/s",
            512 / m1.ttft_seconds,
            RECORDS[rid]["metrics"]["prompt_tokens_per_second_pp512"],
            "",
        ),
        (
            rid,
            "tg128 tokens/s",
            m1.tokens_per_second_per_user,
            RECORDS[rid]["metrics"]["tokens_per_second_per_user_tg128"],
            "",
        ),
    ]
    tiny = _llama(TINYLLAMA, "gguf_q4_k_m", M1_ULTRA, 512, 128)
    rid = "llamacpp-m1ultra-tinyllama-q4km"
    out += [
        (
            rid,
            "pp512 tokens/s",
            512 / tiny.ttft_seconds,
            RECORDS[rid]["metrics"]["pp512_tokens_per_second"],
            "",
        ),
        (
            rid,
            "tg128 tokens/s",
            tiny.tokens_per_second_per_user,
            RECORDS[rid]["metrics"]["tg128_tokens_per_second"],
            "",
        ),
    ]
    rid = "llamacpp-m2ultra-llama7b-pp512"
    for label, fmt in (
        ("F16", "fp16"),
        ("Q8_0", "gguf_q8_0"),
        ("Q4_0", "gguf_q4_0"),
        ("Q4_K_M", "gguf_q4_k_m"),
    ):
        pub = next(
            v for k, v in RECORDS[rid]["metrics"]["pp512_tokens_per_second"].items() if k.startswith(label)
        )
        sv = _llama({"preset": "llama-2-7b"}, fmt, M2_ULTRA, 512, 0, "b2500")  # a build of Sept 2023
        out.append(
            (rid, f"pp512 {label} tokens/s", 512 / sv.ttft_seconds, pub, KNOWN.get(f"{rid}:{label}", ""))
        )
    return out


_V05 = (
    "TensorRT-LLM v0.5 (2023, gptSessionBenchmark): one generate call of the context engine and one "
    "sampler step (no generation step: maxNewTokens 1); the 128-token first token is 40-53 % short, "
    "the 2,048-token rows within 30 %; not per-call host time nor per-layer kernels "
    "(docs/evidence/speed.md sections 18.2, 18.2.1)"
)
KNOWN = {
    "trtllm-0.5-ttft-llama7b-h100-sxm-80gb-tp1-isl128": _V05,
    "trtllm-0.5-ttft-llama70b-h100-sxm-80gb-tp4-isl128": _V05,
    "trtllm-0.5-ttft-llama7b-a100-sxm-80gb-tp1-isl128": _V05,
    # the A100 70B at TP 4 is 34 % short since v0.5's engines run NCCL's all-reduce (its
    # --use_custom_all_reduce off by default; core/registry/all_reduce.py), inside the tolerance
    "trtllm-0.6-tput-llama70b-h100-sxm-80gb-tp4-128-2048": (
        "TRT-LLM v0.6 FP8 at batch 480, 2,048 outputs: 2.5x below the roofline; the existing "
        "compute test keeps the same row as an upper bound only"
    ),
}

UNCOVERED = {
    "vllm-llama31-8b-sharegpt-1000": "GPU not stated",
    "vllm-deepseek-r1-w8a8-l20-c16-4k-1k": "GPU count and layout not stated; no L20",
    "vllm-gemma3-27b-16req-1024-350": "GPU not stated",
    "vllm-qwen3-32b-h100-sharegpt-gpustack-baseline": "concurrency not stated; the command the page "
    "prints does not start vLLM 0.11.0 on an 80 GB H100 (test_refused_gpustack_run.py)",
    "llamacpp-ryzen-ai-9-hx370-vulkan-vs-rocm": "model not stated",
    "vllm-v0.5.3-llama3-8b-h100-cpu-overhead": "shares of time, not a speed (the reason "
    "the step costs exist)",
}

CASES = _cases()


def test_every_record_is_replayed_or_explained() -> None:
    assert {c[0] for c in CASES} | set(UNCOVERED) == set(RECORDS)


@pytest.mark.parametrize("case", [c for c in CASES if not c[4]], ids=lambda c: f"{c[0]}:{c[1]}")
def test_published_speed_within_tolerance(case) -> None:
    rid, metric, est, pub, _ = case
    assert est == pytest.approx(pub, rel=TOLERANCE), f"{rid} {metric}: {est:,.1f} vs {pub:,.1f}"


@pytest.mark.parametrize("case", [c for c in CASES if c[4]], ids=lambda c: f"{c[0]}:{c[1]}")
def test_known_speed_deviation_is_still_there(case) -> None:
    rid, metric, est, pub, why = case
    assert est != pytest.approx(pub, rel=TOLERANCE), f"{rid} {metric} now matches: {why}"


def test_the_fixed_step_cost_is_the_kernel_floors() -> None:
    # TensorRT-LLM's host cost is hidden by its overlap scheduler (core/registry/
    # engine_releases_cpp.py): a step's fixed cost is its kernels' floors, 3 us each on an H100
    # (core/speed/rates.py), 32 layers x 9 fused kernels + 4 for LLaMA-7B
    sv = _trt(RECORDS["trtllm-0.5-ttft-llama7b-h100-sxm-80gb-tp1-isl128"])
    assert sv.prefill_step_overhead_seconds == pytest.approx((32 * 9 + 4) * 3e-6, rel=1e-9)


if __name__ == "__main__":
    for rid, metric, est, pub, why in CASES:
        print(
            f"{rid:<55} {metric:<24} {est:>10,.1f} {pub:>10,.1f} {est / pub - 1:>+7.0%}"
            + (f"  ({why})" if why else "")
        )
