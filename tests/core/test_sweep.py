"""Sweeps reproduce the estimator exactly at every point, and mark where OOM begins."""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.views.sweep import sweep, vary

CASES = [
    ({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}, "sequence_length"),
    (
        {
            "model": {"preset": "llama-3.1-8b"},
            "framework": "megatron",
            "parallelism": {"tensor": 2, "pipeline": 4, "attention": "eager"},
        },
        "sequence_length",
    ),
    ({"model": {"preset": "mixtral-8x7b"}, "parallelism": {"data": 8, "zero_stage": 3}}, "batch_size"),
    (
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}, "framework": "vllm"},
        "sequence_length",
    ),
    ({"model": {"preset": "gemma-2-9b"}, "workload": {"kind": "inference", "batch_size": 4}}, "batch_size"),
    ({"model": {"preset": "llama-3.1-70b"}, "parallelism": {"zero_stage": 3}}, "gpus"),
]


@pytest.mark.parametrize(("scenario", "axis"), CASES)
def test_sweep_matches_direct_estimates(scenario: dict, axis: str) -> None:
    values = list(range(128, 128 * 200, 128)) if axis == "sequence_length" else list(range(1, 65))
    result = sweep(scenario, axis, values)
    base = parse_scenario(scenario)
    for i in range(0, len(values), 7):
        if not result.valid[i]:
            continue
        mem = estimate(vary(base, axis, values[i])).memory
        # Exact up to float rounding of the interpolation (1 byte in 1e9).
        assert result.totals[i] == pytest.approx(mem.total, rel=1e-9, abs=2)
        assert result.components["activations"][i] == pytest.approx(mem.activations, rel=1e-9, abs=2)


def test_oom_boundary_and_largest_fit() -> None:
    result = sweep(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}},
        "sequence_length",
        list(range(512, 65536 + 1, 512)),
    )
    assert result.largest_fitting is not None and result.oom_at is not None
    assert result.oom_at == result.largest_fitting + 512
    cap = result.capacity_bytes
    assert result.totals[result.values.index(result.largest_fitting)] <= cap
    assert result.totals[result.values.index(result.oom_at)] > cap


def test_sweep_marks_invalid_layouts() -> None:
    # EP 4 needs DP to be a multiple of 4: DP 6 breaks the rule and is a gap, not an exception.
    result = sweep(
        {"model": {"preset": "mixtral-8x7b"}, "parallelism": {"expert": 4, "data": 4}}, "gpus", [4, 6, 8]
    )
    assert result.valid == (True, False, True)
