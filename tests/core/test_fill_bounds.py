"""The bounds that let the sizing fill (core/sizing/fill.py) weigh few layouts give the answers
of weighing them all (``compare`` of the largest MoE models trained at
16k-64k tokens took 2-8 s, pricing every layout of every GPU's count).

- ``TrainingClock.ceiling`` is at least the trained tokens/s the step model prices, for every
  layout (dense, MoE with EP, PP with interleaving, a set global batch or none, LoRA).
- ZeRO-2 is priced as ZeRO-1 (the step model charges them alike, core/speed/train_dp.py).
- ``compare_gpus`` with the ceilings switched off (every layout priced) gives the same options,
  for the fewest-GPUs fill and for the deadline's search by whole units.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.presets import gpu_spec
from gpusizer.core.pipeline.estimate import clear_caches
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.layout_search import Evaluator
from gpusizer.core.sizing.layout_space import Layout, divisors, pp_degrees
from gpusizer.core.sizing.pace import TrainingClock
from gpusizer.core.speed.train_step import training_step

CASES = Path(__file__).resolve().parents[2] / "docs" / "evidence" / "advice"

SCENARIOS: dict[str, dict[str, Any]] = {
    "dense-global-batch": {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "pretraining", "sequence_length": 8192, "global_batch_size": 512},
        "parallelism": {"virtual_stages": 2},
    },
    "dense-no-global-batch": {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "full_finetune", "sequence_length": 4096},
    },
    "moe": {
        "model": {"preset": "mixtral-8x7b"},
        "workload": {"kind": "pretraining", "sequence_length": 16384},
        "framework": "megatron",
    },
    "lora-moe": {"model": {"preset": "qwen3-30b-a3b"}, "workload": {"kind": "lora"}},
}


def _clock(name: str, gpu: str) -> tuple[TrainingClock, Any]:
    s = parse_scenario(SCENARIOS[name])
    hw = s.hardware.model_copy(update={"gpu": gpu, "gpus_per_node": 8})
    ev = Evaluator(s, hw)
    return TrainingClock(lambda lay: ev.scenario(lay), gpu_spec(gpu)), s


@pytest.mark.parametrize("name", sorted(SCENARIOS))
@pytest.mark.parametrize("gpu", ["h100-sxm-80gb", "a100-sxm-40gb", "mi300x-192gb"])
def test_the_ceiling_bounds_the_priced_speed(name: str, gpu: str) -> None:
    """Every layout of a grid of TP, PP, CP, EP, ZeRO and DP prices at or below its ceiling
    (an upper bound by construction: the step adds data-parallel collectives and the optimizer
    step to the micro-batches and bubble the ceiling counts; core/sizing/pace.py)."""
    clock, s = _clock(name, gpu)
    layers = resolve(s.model).layers
    eps = [e for e in divisors(s.model.moe.experts) if e <= 8] if s.model.moe else [1]
    checked = finite = 0
    for tp in (1, 2, 8):
        for pp in [p for p in pp_degrees(layers) if p <= 8]:
            for ep in eps:
                for zero in (0, 1, 3):
                    for dp in (1, 2, 8, 64):
                        if (dp % ep) or (s.workload.global_batch_size or 0) % dp:
                            continue
                        lay = Layout(tp, pp, 1, ep, zero, s.parallelism.recompute, dp)
                        rate = clock.pace(lay).tokens_per_second or 0.0
                        top = clock.ceiling(lay)
                        assert rate <= top, (name, gpu, lay)
                        checked += 1
                        finite += math.isfinite(top) and top < 1.5 * rate  # a bound that prunes
    assert checked > 50 and finite > checked // 2


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_zero_2_is_priced_as_zero_1(name: str) -> None:
    """The search prices one of the two (pace.TrainingClock.pace): the step model must keep
    charging them the same (core/speed/train_dp.py: a reduce-scatter and an all-gather and
    the sharded optimizer step for both)."""
    s = parse_scenario(SCENARIOS[name])
    gpu = gpu_spec("h100-sxm-80gb")
    for par in ({"data": 8}, {"data": 4, "tensor": 2, "pipeline": 2}):
        one, two = (
            training_step(
                s.model_copy(
                    update={"parallelism": s.parallelism.model_copy(update={**par, "zero_stage": z})}
                ),
                gpu,
            )
            for z in (1, 2)
        )
        assert one.seconds == two.seconds and one.parts == two.parts


def _options(scenario: dict[str, Any], gpus: list[str] | None = None) -> list[tuple[Any, ...]]:
    clear_caches()
    rows = gpusizer.compare_gpus(scenario, gpus=gpus)
    return [
        (o["gpu"], o["gpus"], json.dumps(o.get("parallelism"), sort_keys=True), o.get("tokens_per_second"))
        for o in rows
    ]


@pytest.mark.parametrize(
    "scenario",
    [
        {"model": {"preset": "mixtral-8x7b"}, "workload": {"kind": "pretraining", "sequence_length": 16384}},
        {"model": {"preset": "llama-3.1-70b"}, "workload": {"kind": "full_finetune"}},
        json.loads((CASES / "pretrain-70b-1t.gpusizer.json").read_text()),
        {"model": {"preset": "llama-4-scout"}, "workload": {"kind": "qlora", "sequence_length": 4 * 2**20}},
    ],
    ids=["moe-16k", "dense", "deadline", "scout-4m-context"],
)
def test_weighing_by_ceiling_gives_the_answers_of_weighing_every_layout(
    scenario: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Same GPUs, counts, layouts and speeds with every layout priced (the ceilings off)."""
    gpus = [
        "h100-sxm-80gb",
        "b200-192gb",
        "a100-sxm-40gb",
        "mi300x-192gb",
        "rtx-4090-24gb",
        "l4-24gb",
        "gb200-186gb",
    ]
    fast = _options(scenario, gpus)
    monkeypatch.setattr(TrainingClock, "ceiling", lambda self, lay, dp=None: math.inf)
    assert _options(scenario, gpus) == fast


@pytest.fixture
def collector_on() -> Iterator[None]:
    """Automatic collection on for the test, as a headless process has it, and as it was after:
    a window made earlier in the same test process (a pytest-xdist worker runs GUI files too)
    hands collection to its GUI-thread timer (gui/gc_guard.py), which turns it off."""
    import gc

    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


@pytest.mark.usefixtures("collector_on")
def test_the_collector_is_paused_for_a_sizing_call_and_resumed_after(monkeypatch: pytest.MonkeyPatch) -> None:
    """Full collections rescanned the memos five times per heavy ``compare`` (0.31 s of 2.0 s,
    core/memo.paused_collector); the pause nests, and leaves the collector as it found it."""
    import gc

    from gpusizer.core import memo
    from gpusizer.core.sizing import advise_all

    seen: list[bool] = []
    inner = advise_all._advise

    def spy(*args: Any) -> Any:
        seen.append(gc.isenabled())
        return inner(*args)

    monkeypatch.setattr(advise_all, "_advise", spy)
    assert gc.isenabled()
    clear_caches()
    gpusizer.compare_gpus({"model": {"preset": "llama-3.1-8b"}}, gpus=["h100-sxm-80gb"])
    assert seen == [False] and gc.isenabled()
    with memo.paused_collector():
        with memo.paused_collector():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with memo.paused_collector():
            pass
        assert not gc.isenabled()  # off before: stays off
    finally:
        gc.enable()
