"""The step model's MoE module alone, as the measured kernel tables time it (aiconfigurator's
``moe_perf`` rows: the routed experts, no shared expert): shared by the tests that set or check
an engine's MoE rates (test_trtllm_moe_rates.py, test_sglang_moe_rates.py)."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving import load
from gpusizer.core.serving.attention_dp import rank_view
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model


def routed_step(raw: dict[str, Any]) -> StepModel:
    """The rank step of scenario ``raw`` with its shared experts taken out. A copy: step models
    are cached per scenario, and this one is edited."""
    sc = rank_view(parse_scenario(raw))
    gpu = scenario_gpu(sc)
    st = copy.copy(step_model(sc, gpu, load.engine_costs(sc, gpu, engine_settings(sc, gpu))))
    st.shape = replace(st.shape, shared_w=0.0)
    st._by_tokens = {}
    return st


def rates_only(st: StepModel) -> StepModel:
    """``st`` priced by its grouped-GEMM rates, as a shape no measured module holds is
    (core/speed/moe_measured_lanes.py reads the module itself where the table holds the shape)."""
    st.moe_points = ()
    st._by_tokens = {}
    return st
