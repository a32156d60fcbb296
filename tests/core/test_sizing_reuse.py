"""Sizing calls leave nothing to the cyclic collector, and a warm ``plan`` reuses its limits
(benchmarks/bench_sizing_cold.py times both; these check the mechanism, not the time)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

import gpusizer
import gpusizer.core.sizing.advise_all as advise_all
from gpusizer.core.memo import clear_all

TRAINING = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "full_finetune"}}
OURS = ("Filler", "TrainingClock", "Evaluator", "Bounds", "Pace", "Layout", "Scenario")


def test_sizing_leaves_no_reference_cycles() -> None:
    """The filler's clocks and the evaluator's bounds call back through weak proxies: what a
    call built is freed by reference counting when it returns, not by a collector's pause."""
    clear_all()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gpusizer.compare_gpus(TRAINING)
        gc.collect()
        left = [type(o).__name__ for o in gc.garbage if type(o).__name__ in OURS]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    assert left == []


def test_warm_plan_reuses_its_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    probe = advise_all.limits

    def counted(*args: Any) -> dict[str, int]:
        calls.append(1)
        return probe(*args)

    monkeypatch.setattr(advise_all, "limits", counted)
    clear_all()
    first = gpusizer.plan(TRAINING)
    asked = len(calls)
    assert asked > 0
    assert gpusizer.plan(TRAINING) == first
    assert len(calls) == asked  # the second plan probed nothing again
