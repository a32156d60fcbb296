"""Speed targets of the estimator core (run: pytest benchmarks --benchmark-enable).

Targets (issue "Estimator core"): one estimate_report under 80 µs on this 2-core machine
(llm-analysis takes ~170 µs for a comparable training estimate); a 1,000-point sweep under 20 ms.

Issue 20, CPU medians on this shared machine (code before the step model / main after its first
pass / now): one estimate_report 63-120 / 70-137 / 72-87 us (llm-analysis 0.2.2 on the same
scenario 268 us, bench_llm_analysis.py); never-seen inference scenarios 0.16-0.33 / 0.20-0.41 /
0.22-0.45 ms each (a load run of the default single user, about 40 us, is what the step model
adds; the step model keeps its token-count terms per count).
"""

from __future__ import annotations

import pytest

from gpusizer import estimate_report
from gpusizer.core.views.sweep import sweep

TRAINING = {
    "model": {"preset": "llama-3.1-70b"},
    "workload": {"kind": "lora"},
    "parallelism": {"data": 8},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
INFERENCE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
# Issue 11: an engine profile's report (pool, serving block) stays within the same budget.
ENGINES = {
    "vllm": {**INFERENCE, "framework": "vllm", "serving": {"max_context": 8192}},
    "llama.cpp": {
        **INFERENCE,
        "framework": "llama.cpp",
        "precision": {"weights": "gguf_q4_k_m"},
        "hardware": {"gpu": "rtx-4090-24gb"},
    },
}


def test_estimate_report_training(benchmark) -> None:
    rep = benchmark(estimate_report, TRAINING)
    assert rep["per_gpu"]["total"] > 0


def test_estimate_report_inference(benchmark) -> None:
    rep = benchmark(estimate_report, INFERENCE)
    assert rep["per_gpu"]["total"] > 0


@pytest.mark.parametrize("engine", list(ENGINES))
def test_estimate_report_engine(benchmark, engine: str) -> None:
    rep = benchmark(estimate_report, ENGINES[engine])
    assert rep["serving"]["starts"] and rep["per_gpu"]["total"] > 0


def test_sweep_1000_sequence_lengths_training(benchmark) -> None:
    values = list(range(128, 128 * 1001, 128))
    result = benchmark(sweep, TRAINING, "sequence_length", values)
    assert len(result.totals) == 1000


def test_sweep_1000_batch_sizes_inference(benchmark) -> None:
    result = benchmark(sweep, INFERENCE, "batch_size", list(range(1, 1001)))
    assert len(result.totals) == 1000


def _fresh(kind: str) -> list[dict]:
    """1,000 distinct scenarios: nothing about them is memoised before the round."""
    if kind == "training":
        return [
            {**TRAINING, "workload": {"kind": "lora", "sequence_length": 64 * (i + 1)}} for i in range(1000)
        ]
    return [
        {**INFERENCE, "workload": {"kind": "inference", "prompt_tokens": 64 * (i + 1)}} for i in range(1000)
    ]


@pytest.mark.parametrize("kind", ["training", "inference"])
def test_estimate_report_fresh_scenarios(benchmark, kind: str) -> None:
    """Per round 1,000 never-seen scenarios (validation, estimate, report); divide by 1,000."""
    from gpusizer.core.pipeline.estimate import clear_caches
    from gpusizer.core.pipeline.scenario import clear_cache

    def setup() -> tuple[tuple[list[dict]], dict]:
        clear_caches()
        clear_cache()
        return (_fresh(kind),), {}

    def run(scenarios: list[dict]) -> int:
        return sum(estimate_report(s)["per_gpu"]["total"] > 0 for s in scenarios)

    assert benchmark.pedantic(run, setup=setup, rounds=5, iterations=1) == 1000


# Issue 20: the serving load simulation (core/serving/scheduler.py). A scenario that does not
# state serving.load is time-boxed (about 20 ms on this machine); one that asks runs to the end.
LOAD = {
    "steady-64-default": {**ENGINES["vllm"], "workload": {"kind": "inference", "batch_size": 64}},
    "steady-64-asked": {
        **ENGINES["vllm"],
        "serving": {"max_context": 8192, "load": "steady", "concurrency": 64},
    },
    "burst-30000-trtllm": {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "tensorrt-llm",
        "precision": {"weights": "fp8", "kv_cache": "fp8"},
        "workload": {"kind": "inference", "prompt_tokens": 128, "generated_tokens": 128},
        "serving": {"max_context": 256, "load": "burst", "concurrency": 30000},
    },
    "rate-1000-requests": {
        **ENGINES["vllm"],
        "serving": {"max_context": 8192, "load": "rate", "request_rate": 20.0},
    },
}


@pytest.mark.parametrize("name", list(LOAD))
def test_load_simulation(benchmark, name: str) -> None:
    """One report with its load simulated from scratch (the estimator's memos cleared)."""
    from gpusizer.core.pipeline.estimate import clear_caches

    def run() -> dict:
        clear_caches()
        return estimate_report(LOAD[name])

    rep = benchmark.pedantic(run, rounds=5, iterations=1)
    assert rep["serving"]["tokens_per_second"] > 0


def test_training_step_1000_layouts(benchmark) -> None:
    """Issue 20: the sizing search prices training layouts by their step time. 1,000 layouts
    (data-parallel degree x ZeRO stage around four model-parallel splits), made as the search
    makes them (``model_copy`` of one scenario): the step's stage part is kept per
    model-parallel split, so a data-parallel variant costs a few tens of µs."""
    from gpusizer.core.model.presets import scenario_gpu
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.core.speed.train_step import training_step

    base = parse_scenario(
        {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "pretraining", "sequence_length": 8192}}
    )
    layouts = [
        base.model_copy(
            update={
                "parallelism": base.parallelism.model_copy(
                    update={"tensor": t, "pipeline": p, "data": d, "zero_stage": z}
                )
            }
        )
        for t, p in ((1, 1), (2, 1), (4, 2), (8, 4))
        for d in range(1, 64)
        for z in (0, 1, 2, 3)
    ][:1000]
    gpu = scenario_gpu(base)

    def run() -> float:
        return sum(training_step(s, gpu).seconds for s in layouts)

    assert benchmark(run) > 0
