"""The large-batch MoE checks' shared access to the speed figures (tests/core/data/
speed-figures.json): a record's replay scenario with some settings changed, its serving step
model and its estimated tokens/s."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving import load
from gpusizer.core.serving.engine_settings import engine_settings
from gpusizer.core.speed.step import StepModel
from gpusizer.core.speed.step_model import step_model

RECORDS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "speed-figures.json").read_text()
)


def replay_scenario(rid: str, section: str, **changes: Any) -> dict[str, Any]:
    """Record ``rid``'s one replay scenario (a copy), its ``section`` updated with ``changes``."""
    (scenario,) = [e["scenario"] for r in RECORDS if r["id"] == rid for e in r["replay"]]
    s = copy.deepcopy(scenario)
    s[section].update(changes)
    return s


def step_of(s: dict[str, Any]) -> StepModel:
    """The serving step model the scenario's engine runs."""
    sc = parse_scenario(s)
    gpu = scenario_gpu(sc)
    return step_model(sc, gpu, load.engine_costs(sc, gpu, engine_settings(sc, gpu)))


def tokens_per_second(s: dict[str, Any]) -> float:
    """The estimate's serving throughput, tokens/s."""
    sv = estimate(s).serving
    assert sv is not None
    return sv.tokens_per_second
