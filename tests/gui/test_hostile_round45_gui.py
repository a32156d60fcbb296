"""Hostile input in the window to the fields of the last round (docs/evidence/rl.md, the
round-45 buyer section): ``serving.cpu_moe_layers`` (Serving panel, llama.cpp on a MoE),
``parallelism.overlap_comm`` (Parallelism panel, DeepSpeed) and ``rl.framework`` (RL panel,
``"trl"`` among its ids). Each refused value leaves the last valid scenario in place with the
core's one-line message beside its widget, naming the field; the file and CLI refusals are in
tests/cli/test_buyer_review_round45.py."""

from __future__ import annotations

from typing import Any

import pytest

# the CLI round's starting scenarios: llama.cpp on a MoE ("Experts in RAM" shows where the engine
# reads gpu_layers) and DeepSpeed ZeRO-2 ("Overlap comm" is enabled under deepspeed)
from tests.cli.test_buyer_review_round45 import CPP_MOE, DEEPSPEED
from tests.scenarios import RL_SPLIT

from .hostile_fields import each_refused_beside

# a count or "all" only: "ALL", " all", "8" (a string), a boolean, a list, NaN, -1, 1.5, 10^12
LAYERS: tuple[Any, ...] = ("ALL", " all", "8", True, [], {}, float("nan"), -1, 1.5, 10**12)
# true, false or null only
BOOLS: tuple[Any, ...] = ("yes", "true", 1, 0, 1.5, float("nan"), [], {})
# an id of the RL frameworks: miscased, padded, a boolean, a number, a list
RL_IDS: tuple[Any, ...] = ("TRL", " trl", "trl ", "Trl", "trl2", "", True, 0, [], {})


@pytest.mark.parametrize(
    ("start", "path", "widget", "values"),
    [
        (CPP_MOE, "serving.cpu_moe_layers", "spin_serving_cpu_moe", LAYERS),
        (DEEPSPEED, "parallelism.overlap_comm", "combo_overlap_comm", BOOLS),
        (RL_SPLIT, "rl.framework", "combo_rl_framework", RL_IDS),
    ],
)
def test_a_hostile_value_of_the_last_rounds_fields_is_refused_beside_it(
    window, start, path, widget, values
) -> None:
    each_refused_beside(window, start, path, widget, values)
