"""estimate_report against llm-analysis (PyPI ``llm-analysis`` 0.2.2, cli-v (2023), its
``infer``) on the same scenario: Llama 2 7B, bf16, one A100 SXM 80GB, batch 1, a 512-token
prompt, 32 generated tokens. Issue 20: ours takes at most half of its time. Skipped when
llm-analysis is not installed (``pip install llm-analysis``: the benchmark's only use of it).

Run: .venv/bin/python -m pytest benchmarks/bench_llm_analysis.py --benchmark-enable
"""

from __future__ import annotations

import logging
import time

import pytest

from gpusizer import estimate_report

analysis = pytest.importorskip("llm_analysis.analysis")

OURS = {
    "model": {"preset": "llama-2-7b"},
    "hardware": {"gpu": "a100-sxm-80gb"},
    "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 32},
}
THEIRS = {
    "model_name": "NousResearch_Llama-2-7b-hf",  # its bundled config (no network)
    "gpu_name": "a100-sxm-80gb",
    "dtype_name": "w16a16e16",
    "log_level": "ERROR",
    "batch_size_per_gpu": 1,
    "seq_len": 512,
    "num_tokens_to_generate": 32,
}


def _median_seconds(call, n: int = 200, rounds: int = 7) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(n):
            call()
        times.append((time.perf_counter() - start) / n)
    return sorted(times)[rounds // 2]


def test_estimate_report_same_scenario(benchmark) -> None:
    rep = benchmark(estimate_report, OURS)
    assert rep["serving"]["tpot_seconds"] > 0


def test_llm_analysis_infer(benchmark) -> None:
    logging.disable(logging.WARNING)
    out = benchmark(analysis.infer, **THEIRS)
    assert out["total_latency"] > 0


def test_at_most_half_of_llm_analysis() -> None:
    logging.disable(logging.WARNING)
    estimate_report(OURS), analysis.infer(**THEIRS)  # both warm
    ours = _median_seconds(lambda: estimate_report(OURS))
    theirs = _median_seconds(lambda: analysis.infer(**THEIRS), n=50)
    assert ours <= 0.5 * theirs, f"{ours * 1e6:.0f} us vs {theirs * 1e6:.0f} us"
