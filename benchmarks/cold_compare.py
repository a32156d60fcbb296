"""One call from a cold start, timed in CPU seconds: the shared body of the compare benchmarks
(bench_compare.py, bench_rl_compare.py) and of the timing targets moved out of unit tests
(bench_buyer_cases.py, bench_hostile_sizing.py, bench_hostile_bursts.py)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.estimate import clear_caches
from gpusizer.core.sizing.compare import compare_gpus

BUYER = Path(__file__).resolve().parents[1] / "tests/cli/data/buyer"


def time_cold(benchmark: Any, run: Callable[[], Any], target_cpu_seconds: float) -> Any:
    """``run`` once with the memos cleared; with benchmarks enabled, its CPU seconds must stay
    under ``target_cpu_seconds``."""
    spent: list[float] = []

    def cold() -> Any:
        clear_caches()  # no memo from an earlier run
        start = time.process_time()
        got = run()
        spent.append(time.process_time() - start)
        return got

    got = benchmark.pedantic(cold, rounds=1, iterations=1)
    if benchmark.stats is not None and not benchmark.disabled:
        assert min(spent) < target_cpu_seconds, spent
    return got


def time_cold_compare(benchmark: Any, case: str, target_cpu_seconds: float) -> None:
    """Compare ``case`` (a buyer file's name) over the catalog once, caches cleared first; with
    benchmarks enabled, its CPU time must stay under ``target_cpu_seconds``."""
    data = json.loads((BUYER / case).read_text(encoding="utf-8"))
    spent: list[float] = []

    def cold() -> list[dict[str, Any]]:
        clear_caches()  # no memo from an earlier run
        start = time.process_time()
        options = compare_gpus(data)
        spent.append(time.process_time() - start)
        return options

    options = benchmark.pedantic(cold, rounds=1, iterations=1)
    assert any(o["fits"] for o in options)
    if benchmark.stats is not None and not benchmark.disabled:
        assert min(spent) < target_cpu_seconds
