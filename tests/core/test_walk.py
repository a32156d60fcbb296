"""The estimate reads as a pipeline: a scenario walks through the core's modules in one pass.

**The walk.** ``estimate(scenario)`` runs under ``sys.setprofile`` with every memo cleared.
Each ``call`` event whose *caller* frame runs code of ``gpusizer.core.pipeline.estimate`` (the
pipeline's ``estimate`` function and its helpers there) and whose *callee* is a function of
another module of ``gpusizer.core`` is one step; the walk is the sequence of those callees'
modules, consecutive steps into the same module merged into one visit.

**The rule.** The walk enters no module twice that it already left: every module is one
contiguous visit (the scenario, then the model, memory, speed, serving, and the answer,
each asked what it knows once), so a reader follows ``estimate`` top to bottom.

**The exception: the model's resolve.** ``gpusizer.core.model.architecture`` is left out of the
walk: ``resolve`` (the model block turned into an ``Arch``, memoised per model by its
``memo_by_identity`` wrapper) and the properties of the ``Arch`` it returns are looked up by
every step, as the scenario's own fields are; they are the walk's input, not a step of it.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import pytest

from gpusizer.core.pipeline import estimate as pipeline
from gpusizer.core.pipeline.scenario import clear_cache, parse_scenario

PIPELINE = "gpusizer.core.pipeline.estimate"
# the pipeline's own code: the estimate and the work its kinds build (core/pipeline/work*.py)
OWN = (
    PIPELINE,
    *(f"gpusizer.core.pipeline.{m}" for m in ("work", "work_base", "work_serving", "work_roles")),
)
RESOLVE = "gpusizer.core.model.architecture"
# the scenario's spec classes, one module split by concern for size (core/model/specs.py
# re-exports them): one step of the walk, as when they shared a file
SPECS = "gpusizer.core.model.specs"
SPEC_PARTS = {f"gpusizer.core.model.{m}_spec" for m in ("model", "workload", "precision", "hardware")}
SCENARIOS: dict[str, dict[str, Any]] = {
    "lora": {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}},
    "qlora": {"model": {"preset": "qwen3-32b"}, "workload": {"kind": "qlora"}},
    "pretraining-pp": {
        "model": {"preset": "llama-3.1-70b"},
        "workload": {"kind": "pretraining", "training_tokens": 10**12},
        "parallelism": {"tensor": 8, "pipeline": 4, "data": 2, "zero_stage": 1},
        "framework": "megatron",
    },
    "hybrid-offload": {
        "model": {"preset": "qwen3-next-80b-a3b"},
        "workload": {"kind": "lora"},
        "parallelism": {"recompute": "full", "activation_offload": "checkpoints"},
    },
    # a preference fine-tune: its rows view and its assumption line, each asked once
    "dpo-full-finetune": {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "full_finetune", "preference": {"method": "dpo"}},
        "framework": "deepspeed",
        "parallelism": {"data": 8, "zero_stage": 3},
    },
    "serve-vllm": {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference"},
        "framework": "vllm",
    },
    "serve-transformers": {"model": {"preset": "gemma-3-27b"}, "workload": {"kind": "inference"}},
    "serve-llamacpp": {
        "model": {"preset": "llama-3.1-8b"},
        "workload": {"kind": "inference"},
        "framework": "llama.cpp",
        "hardware": {"gpu": "rtx-4090-24gb"},
    },
}


def walk(data: dict[str, Any]) -> list[str]:
    """The modules the pipeline's estimate enters, in order, repeated entries merged."""
    s = parse_scenario(data)
    pipeline.clear_caches()
    clear_cache()
    steps: list[str] = []

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_back is None:
            return
        callee = frame.f_globals.get("__name__", "")
        callee = SPECS if callee in SPEC_PARTS else callee
        caller = frame.f_back.f_globals.get("__name__", "")
        step = caller in OWN and callee.startswith("gpusizer.core.") and callee not in (*OWN, RESOLVE)
        if step and (not steps or steps[-1] != callee):
            steps.append(callee)

    sys.setprofile(profile)
    try:
        pipeline.estimate(s)
    finally:
        sys.setprofile(None)
    return steps


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_estimate_enters_no_module_twice(name: str) -> None:
    steps = walk(SCENARIOS[name])
    again = sorted({m for i, m in enumerate(steps) if m in steps[:i]})
    assert again == [], "\n".join([f"entered again: {again}", *steps])
    assert steps[0] == "gpusizer.core.pipeline.scenario" and steps[-1] == "gpusizer.core.model.result"
