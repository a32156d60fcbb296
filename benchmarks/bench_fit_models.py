"""Speed of ``models_that_fit`` (run: pytest benchmarks/bench_fit_models.py --benchmark-enable).

Target (issue 21): every preset tried on a machine within 300 ms, cold, on this 2-core
machine: the M3 Ultra 512 GB, the DGX Spark and an RTX 4090 serving with llama.cpp at Q4_K_M.
"""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import clear_caches
from gpusizer.core.sizing.fit_models import models_that_fit

TARGET_SECONDS = 0.300


@pytest.mark.parametrize("gpu", ["apple-m3-ultra-512gb", "dgx-spark-128gb", "rtx-4090-24gb"])
def test_models_that_fit(benchmark: Any, gpu: str) -> None:
    scenario = {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "precision": {"weights": "gguf_q4_k_m"},
        "hardware": {"gpu": gpu},
    }

    def cold() -> tuple[tuple[Any, ...], dict[str, Any]]:
        clear_caches()
        return (scenario,), {}

    rows = benchmark.pedantic(models_that_fit, setup=cold, rounds=5, iterations=1)
    assert rows and (gpu != "dgx-spark-128gb" or "deepseek-v3" not in {r["model"] for r in rows})
    if benchmark.stats is not None and not benchmark.disabled:
        assert benchmark.stats.stats.median < TARGET_SECONDS
