"""A scenario with its kind's own engine set to a width (``rl.rollout.tensor``, the kind's
``engine_width``, core/registry/workloads.py): read by the width search (core/sizing/engine_width.py)
and by the reason an engine starts at no width (core/sizing/rl_unmet.py), which the search reads."""

from __future__ import annotations

import math

from ..errors import ScenarioError
from ..model.field_path import set_path
from ..model.specs import Scenario
from ..pipeline.validate import check_scenario


def with_width(s: Scenario, width: int) -> Scenario | None:
    """``s`` with its engine ``width`` GPUs wide (None: the scenario cannot run so, e.g. a split
    rollout pool that is not a multiple of it)."""
    out = set_path(s, s.workload.info.engine_width, width)
    # the GPUs as set, widened to hold whole engines (colocated roles share them): the layout
    # search sets the count, but the ladder's rungs are checked against this one
    p = out.parallelism
    if p.gpus % width:
        grown = p.model_copy(update={"data": p.data * width // math.gcd(p.gpus, width)})
        out = out.model_copy(update={"parallelism": grown})
    try:
        check_scenario(out)
    except ScenarioError:
        return None
    return out
