"""CPU time of the hostile heavy loads and sizing calls of tests/core/test_hostile_round4.py (run:
pytest benchmarks/bench_hostile_sizing.py --benchmark-enable).

The targets were timed asserts in that unit test; it keeps what the calls answer (the work
budget's note, finite figures, the deadline search's stop), the times are here. As that test
stated them, CPU seconds on the shared 2-core machine:

- a heavy valid load's estimate (300,000 requests, a batch or burst of 2^24): 3-8 s before the
  work budget (core/serving/budget.py), 0.0-0.6 s measured since, held to 1 s;
- ``plan`` on one GPU to a deadline: Kimi K2 to 30 days 1.6-1.75 s (3.4 s before the bound),
  held to 2 s; ``compare_gpus`` over the catalog under the rate-300k load 2.1-6.2 s, held to the
  ~10 s the buyer reviews give a catalog compare;
- ``plan`` of DeepSeek-V3 to a 3,650-day deadline: 15 s before, 1.8-2.5 s since, 2.8-3.0 s with
  each GPU's own deadline budget (buyer round 55), held to 4 s;
- ``compare`` of Llama 3.1 8B under a 300,000-request rate load: 23 s before, 1.6-1.8 s since,
  held to 3 s.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from cold_compare import time_cold
from tests.core.test_hostile_round4 import CALLS, CPU_LIMIT, HEAVIEST, HEAVY, SERVE

import gpusizer

HEAVY_ESTIMATE_CPU_SECONDS = 1.0
BOUNDED_CPU_SECONDS = 3.0
DEADLINE_PLAN_CPU_SECONDS = 4.0
# every one of the heaviest, and a fixed sample of the rest (the unit test drew one at random)
SIZING = HEAVIEST + random.Random(0).sample(CALLS, min(4, len(CALLS)))


@pytest.mark.parametrize(
    "extra", HEAVY, ids=["rate-300k", "burst-2^24", "steady-2^24", "batch-2^24", "spread"]
)
def test_heavy_load_estimate(benchmark: Any, extra: dict[str, Any]) -> None:
    rep = time_cold(
        benchmark, lambda: gpusizer.estimate_report({**SERVE, **extra}), HEAVY_ESTIMATE_CPU_SECONDS
    )
    assert rep["serving"]["tokens_per_second"] > 0


@pytest.mark.parametrize("call", SIZING, ids=lambda c: f"{c[0]}-{c[1]['model']['preset']}")
def test_sizing_call(benchmark: Any, call: tuple[str, dict[str, Any], dict[str, Any]]) -> None:
    fn, s, kw = call
    time_cold(benchmark, lambda: getattr(gpusizer, fn)(s, **kw), CPU_LIMIT[fn])


def test_long_deadline_plan_deepseek_v3(benchmark: Any) -> None:
    s = {
        "model": {"preset": "deepseek-v3"},
        "workload": {"kind": "pretraining", "training_tokens": 1.5e13},
        "targets": {"max_training_days": 3650},
    }
    # each GPU's deadline search has its own budget since buyer round 55: 2.8-3.0 s read
    assert time_cold(benchmark, lambda: gpusizer.plan(s), DEADLINE_PLAN_CPU_SECONDS)


def test_compare_under_rate_300k(benchmark: Any) -> None:
    s = {**SERVE, "serving": {"load": "rate", "request_rate": 50.0, "requests": 300_000}}
    assert time_cold(benchmark, lambda: gpusizer.compare_gpus(s), BOUNDED_CPU_SECONDS)
