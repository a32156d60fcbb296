"""transformers' memory rule keeps what it reads of a served scenario but its GPU
(core/serving/rules/on_demand.py ``_on_demand``), shared by the GPUs of a catalog search: each
GPU gets the engine memory it gets alone. The 405B serving ``plan`` of benchmarks/bench_solver.py
is byte-identical before and after (2026-12-05)."""

from __future__ import annotations

import pytest

from gpusizer.core.memo import clear_all
from gpusizer.core.model.architecture import resolve
from gpusizer.core.model.params import count_parameters
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.model.specs import Scenario
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.serving.rules import memory_rule

GPUS = ["h100-sxm-80gb", "mi300x-192gb", "a100-sxm-40gb", "gb200-186gb"]
SERVE = {
    "model": {"preset": "llama-3.1-405b"},
    "workload": {"kind": "inference", "batch_size": 4},
    "parallelism": {"tensor": 8, "pipeline": 2},
}


def _on(s: Scenario, gpu: str) -> Scenario:
    """``s`` on ``gpu`` as the layout search makes it: the same blocks, its own hardware."""
    return s.model_copy(update={"hardware": s.hardware.model_copy(update={"gpu": gpu})})


@pytest.mark.parametrize("users", [1, 16])
def test_each_gpu_gets_the_engine_memory_it_gets_alone(users: int) -> None:
    s = parse_scenario({**SERVE, "targets": {"users": users}})
    assert memory_rule(s.profile).allocates_on_demand  # transformers: the rule kept here
    arch, counts = resolve(s.model), count_parameters(s.model)
    shared = [engine_memory(_on(s, g), arch, counts, scenario_gpu(_on(s, g)))[0] for g in GPUS]
    for gpu, got in zip(GPUS, shared, strict=True):
        clear_all()  # alone: nothing kept from another GPU
        on = _on(s, gpu)
        assert got == engine_memory(on, arch, counts, scenario_gpu(on))[0]
    assert len({m.kv_capacity_tokens for m in shared}) > 1  # the pool is each GPU's own
