"""Properties that must hold for any valid scenario (hypothesis)."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpusizer import ScenarioError, estimate_report

PRESETS = [
    "llama-3.1-8b",
    "llama-3.2-1b",
    "mixtral-8x7b",
    "gpt-2",
    "qwen2.5-0.5b",
    "gemma-2-9b",
    "deepseek-v3",
    "falcon-7b",
]
KINDS = ["pretraining", "full_finetune", "lora", "qlora", "inference"]
FRAMEWORKS = ["huggingface", "megatron", "deepspeed", "fsdp"]

scenarios = st.fixed_dictionaries(
    {
        "model": st.fixed_dictionaries({"preset": st.sampled_from(PRESETS)}),
        "workload": st.fixed_dictionaries(
            {
                "kind": st.sampled_from(KINDS),
                "sequence_length": st.sampled_from([128, 512, 2048, 8192]),
                "micro_batch_size": st.integers(1, 8),
                "batch_size": st.integers(1, 64),
                "prompt_tokens": st.integers(1, 32768),
                "generated_tokens": st.integers(0, 4096),
            }
        ),
        "precision": st.fixed_dictionaries(
            {
                "weights": st.sampled_from(["bf16", "fp16", "fp32", "fp8", "int4", "nf4", "awq_int4"]),
                "optimizer": st.sampled_from(["adamw", "adamw_8bit", "adafactor", "sgd", "lion"]),
                "kv_cache": st.sampled_from(["bf16", "fp8"]),
            }
        ),
        "parallelism": st.fixed_dictionaries(
            {
                "tensor": st.sampled_from([1, 2, 4, 8]),
                "pipeline": st.sampled_from([1, 2, 4]),
                "data": st.sampled_from([1, 2, 8, 64]),
                "zero_stage": st.integers(0, 3),
                "recompute": st.sampled_from(["none", "selective", "full"]),
                "attention": st.sampled_from(["eager", "flash"]),
            }
        ),
        "framework": st.sampled_from(FRAMEWORKS),
    }
)

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _report(s: dict) -> dict | None:
    try:
        return estimate_report(s)
    except ScenarioError:
        return None  # invalid combination (e.g. TP does not divide the heads): refused cleanly


def _with(s: dict, block: str, **upd: object) -> dict:
    return {**s, block: {**s[block], **upd}}


@FAST
@given(scenarios)
def test_every_figure_is_a_finite_non_negative_int(s: dict) -> None:
    rep = _report(s)
    if rep is None:
        return
    per_gpu = {k: v for k, v in rep["per_gpu"].items() if not k.endswith("_range")}
    for value in per_gpu.values():
        assert isinstance(value, int) and value >= 0
    assert per_gpu["total"] <= sum(v for k, v in per_gpu.items() if k != "total")
    for key, value in rep["compute"].items():
        if key.endswith("_range"):  # the evidence band: [lower, upper] or null
            assert value is None or 0 <= value[0] <= value[1]
        else:
            assert value is None or (math.isfinite(value) and value >= 0)


@FAST
@given(scenarios, st.integers(1, 4))
def test_more_batch_never_lowers_memory(s: dict, extra: int) -> None:
    rep = _report(s)
    if rep is None:
        return
    w = s["workload"]
    bigger = _with(
        s, "workload", micro_batch_size=w["micro_batch_size"] + extra, batch_size=w["batch_size"] + extra
    )
    assert estimate_report(bigger)["per_gpu"]["total"] >= rep["per_gpu"]["total"]


@FAST
@given(scenarios)
def test_longer_sequences_never_lower_memory(s: dict) -> None:
    rep = _report(s)
    if rep is None:
        return
    w = s["workload"]
    longer = _with(
        s, "workload", sequence_length=2 * w["sequence_length"], prompt_tokens=2 * w["prompt_tokens"]
    )
    assert estimate_report(longer)["per_gpu"]["total"] >= rep["per_gpu"]["total"]


@FAST
@given(scenarios)
def test_more_data_parallel_ranks_never_raise_zero3_memory(s: dict) -> None:
    # From 2 ranks up: going from 1 GPU to 2 adds NCCL buffers (overhead.py), which a tiny
    # model's halved states may not repay; among data-parallel layouts more ranks never cost.
    s = _with(s, "parallelism", zero_stage=3, data=max(2, s["parallelism"]["data"]))
    rep = _report(s)
    if rep is None:
        return
    more = _with(s, "parallelism", data=2 * s["parallelism"]["data"])
    more_rep = _report(more)
    if more_rep is not None:
        assert more_rep["per_gpu"]["total"] <= rep["per_gpu"]["total"]


@FAST
@given(scenarios)
def test_recompute_never_raises_activations(s: dict) -> None:
    base = _report(_with(s, "parallelism", recompute="none"))
    if base is None:
        return
    for level in ("selective", "full"):
        rep = estimate_report(_with(s, "parallelism", recompute=level))
        assert rep["per_gpu"]["activations"] <= base["per_gpu"]["activations"]


def test_tp_must_divide_heads() -> None:
    try:
        estimate_report({"model": {"preset": "llama-3.1-8b"}, "parallelism": {"tensor": 3}})
    except ScenarioError as exc:
        assert exc.field == "parallelism.tensor"
        assert "32" in str(exc)
    else:  # pragma: no cover - the assertion above is the point
        raise AssertionError("TP 3 with 32 heads must be refused")
