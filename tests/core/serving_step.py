"""The decode step a serving scenario's engine runs at its stated load, as the estimator builds
it (core/serving/load.py ``serving_load`` over core/serving/engine_memory.py): the one reading
the measured-MoE tests share (tests/core/test_moe_measured.py, test_moe_measured_lanes.py,
test_sglang_fp8_moe_measured.py, test_trtllm_moe_measured.py)."""

from __future__ import annotations

from typing import Any

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.pipeline.work import model_of
from gpusizer.core.serving import load
from gpusizer.core.serving.engine_memory import engine_memory
from gpusizer.core.speed.step import StepModel


def serving_step(d: dict[str, Any]) -> StepModel:
    """The step model of scenario ``d`` (a serving scenario's dict, parsed here)."""
    s = parse_scenario(d)
    g = scenario_gpu(s)
    em, st = engine_memory(s, *model_of(s.model), g)
    return load.serving_load(s, g, em, st).step
