"""How to split a fixed number of GPUs between the rollout and training pools of a split RL
scenario (``rl.placement: "split"``): the time per step of each split that the layouts allow,
the fastest named (the report's ``rl.split_options`` and ``rl.best_rollout_gpus``).

The same phases as the scenario's own estimate (core/pipeline/rl_plan.py): moving GPUs to the
rollout pool adds engine replicas and takes data-parallel ranks from training; with overlap the
slower pool sets the pace, so the fastest split balances the two (OpenRLHF, arXiv 2405.11143
§3.1, sizes its vLLM engines against the training ranks the same way)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..errors import ScenarioError
from ..model.specs import GPUSpec, Scenario
from .rl_check import rl_of
from .scenario import parse_scenario, scenario_dict

MAX_OPTIONS = 24  # splits tried per estimate (evenly spaced beyond that: the advice stays quick)


def _candidates(s: Scenario) -> list[int]:
    """Rollout pool sizes: whole engines, leaving whole training replicas (TP x PP x CP).

    The sizes r are multiples of the engine's TP with ``total - r`` a multiple of the training
    replica: by the Chinese remainder theorem one progression of step lcm(TP, replica), so they
    are indexed, not listed (a pool of 10^9 GPUs listed them one by one and hung)."""
    rl, p = rl_of(s), s.parallelism
    unit, total, width = p.tensor * p.pipeline * p.context, p.gpus + rl.rollout.gpus, rl.rollout.tensor
    g = math.gcd(width, unit)
    if total % g:
        return []
    period = unit // g  # engines per step of the progression
    first = width * ((total // g) * pow(width // g, -1, period) % period or period)
    stride = width * period
    n = max(0, -(-(total - first) // stride))  # sizes first, first + stride, ... below total
    if n <= MAX_OPTIONS:
        return [first + i * stride for i in range(n)]
    step = n / MAX_OPTIONS
    return sorted({first + int(i * step) * stride for i in range(MAX_OPTIONS)} | {rl.rollout.gpus})


def split_options(
    s: Scenario, gpu: GPUSpec, step_of: Callable[[Scenario, GPUSpec], float]
) -> list[dict[str, Any]]:
    """Each valid split of the scenario's GPUs: rollout and training GPUs and seconds per step
    (``step_of``: the step time of a scenario); splits the layout refuses are left out."""
    p, total = s.parallelism, s.parallelism.gpus + rl_of(s).rollout.gpus
    out = []
    for rollout in _candidates(s):
        data = scenario_dict(s)
        data["parallelism"]["data"] = (total - rollout) // (p.tensor * p.pipeline * p.context)
        data["rl"] = {
            **(data["rl"] or {}),
            "rollout": {**((data["rl"] or {}).get("rollout") or {}), "gpus": rollout},
        }
        try:
            option = parse_scenario(data)
            seconds = step_of(option, gpu)
        except ScenarioError:
            continue  # a split the layout or the engine refuses
        out.append(
            {"rollout_gpus": rollout, "training_gpus": total - rollout, "time_per_step_seconds": seconds}
        )
    return out
