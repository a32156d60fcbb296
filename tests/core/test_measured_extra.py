"""The estimator against more measured models (tests/core/data/hf-extra-measured.json, made with
scripts/measure_hf.py on torch 2.13.0 CPU + transformers 5.24.0, the calibration's method):
GQA in eager and sdpa, autocast, checkpointing, Qwen2/3, Gemma 2/3, Mistral, Phi-3, Mixtral,
Qwen3-MoE, OLMo 2, GPT-2, Falcon, DeepSeek-V3. Tolerances are the issue's: parameters 0.05 %,
KV cache, weights, gradients and optimizer 1 %, activations 5 %, peak 10 %."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report, import_hf_config

from .calibration import training_scenario

DATA = json.loads((Path(__file__).parent / "data" / "hf-extra-measured.json").read_text())
DT = {"float32": "fp32", "bfloat16": "bf16", "float16": "fp16"}
# On a CPU, PyTorch's sdpa falls back to its fp32 math kernel with attention dropout (GPT-2) or
# with k/v expanded to every head (Falcon) and keeps the s x s probabilities; on CUDA the fused
# kernels take both. The estimator models the GPU, so these two stay apart from the CPU bytes.
CPU_ONLY = ("gpt2|b2|s128|bfloat16|sdpa", "falcon|b2|s128|bfloat16|sdpa")


def _attention(name: str) -> str:
    return "eager" if name == "eager" else "flash"


@pytest.mark.parametrize("rec", DATA["param_counts"], ids=lambda r: r["name"])
def test_parameters(rec: dict[str, Any]) -> None:
    rep = estimate_report({"model": import_hf_config(rec["config"]), "workload": {"kind": "inference"}})
    assert rep["parameters"]["total"] == pytest.approx(rec["measured"]["total_params"], rel=0.0005)


@pytest.mark.parametrize("rec", DATA["kv_cache"], ids=lambda r: r["id"])
def test_kv_cache(rec: dict[str, Any]) -> None:
    i = rec["inputs"]
    dt = DT[i["dtype"]]
    rep = estimate_report(
        {
            "model": import_hf_config(i["config"]),
            "workload": {
                "kind": "inference",
                "batch_size": i["batch"],
                "prompt_tokens": i["prompt_len"],
                "generated_tokens": i["decode_steps"],
            },
            "precision": {"weights": dt, "kv_cache": dt, "activations": dt},
            "parallelism": {"attention": _attention(i["attn_implementation"])},
        }
    )
    assert rep["per_gpu"]["kv_cache"] == pytest.approx(rec["measured"]["kv_cache_tensor_bytes"], rel=0.01)


def _training(rec: dict[str, Any]) -> dict[str, Any]:
    return estimate_report(training_scenario(rec, import_hf_config(rec["inputs"]["config"])))


def _marks(rec: dict[str, Any]) -> Any:
    if rec["id"].startswith(CPU_ONLY):
        return pytest.param(
            rec,
            id=rec["id"],
            marks=pytest.mark.xfail(strict=True, reason="CPU sdpa math-kernel fallback (see CPU_ONLY)"),
        )
    return pytest.param(rec, id=rec["id"])


@pytest.mark.parametrize("rec", [_marks(r) for r in DATA["training_memory"]])
def test_training(rec: dict[str, Any]) -> None:
    pg, m = _training(rec)["per_gpu"], rec["measured"]
    assert pg["weights"] == pytest.approx(m["param_bytes"], rel=0.01)
    assert pg["gradients"] == pytest.approx(m["grad_bytes"], rel=0.01)
    assert pg["optimizer"] == pytest.approx(m["optimizer_state_bytes"], rel=0.01)
    assert pg["activations"] == pytest.approx(m["activation_bytes"], rel=0.05)
    assert pg["total"] == pytest.approx(m["peak_bytes"], rel=0.10)
