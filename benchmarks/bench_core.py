"""Speed targets of the estimator core (run: pytest benchmarks --benchmark-enable).

Targets (issue "Estimator core"): one estimate_report under 80 µs on this 2-core machine
(llm-analysis takes ~170 µs for a comparable training estimate); a 1,000-point sweep under 20 ms.
"""

from __future__ import annotations

from gpusizer import estimate_report
from gpusizer.core.sweep import sweep

TRAINING = {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "lora"},
            "parallelism": {"data": 8}, "hardware": {"gpu": "h100-sxm-80gb"}}
INFERENCE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def test_estimate_report_training(benchmark) -> None:
    rep = benchmark(estimate_report, TRAINING)
    assert rep["per_gpu"]["total"] > 0


def test_estimate_report_inference(benchmark) -> None:
    rep = benchmark(estimate_report, INFERENCE)
    assert rep["per_gpu"]["total"] > 0


def test_sweep_1000_sequence_lengths_training(benchmark) -> None:
    values = list(range(128, 128 * 1001, 128))
    result = benchmark(sweep, TRAINING, "sequence_length", values)
    assert len(result.totals) == 1000


def test_sweep_1000_batch_sizes_inference(benchmark) -> None:
    result = benchmark(sweep, INFERENCE, "batch_size", list(range(1, 1001)))
    assert len(result.totals) == 1000
