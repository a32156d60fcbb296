"""Unsloth trains on several GPUs data parallel only, in every surface: ``estimate`` refuses a
stated split or ZeRO / FSDP stage under it (core/pipeline/validate_ddp.py), and the advice's
adapter fallback to it (core/sizing/savings.py) may run whole-model copies on several GPUs.

Sources: Unsloth's multi-GPU guide, "one copy of the model on each GPU device"
(https://unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp); "Distributed Data Parallel
only. FSDP not yet supported" (https://trelis.substack.com/p/multi-gpu-training-with-unsloth)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.architecture import resolve
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.layout_space import layout_space
from gpusizer.core.sizing.savings import ladder
from tests.cli.buyer_cases import case

# a buyer case that falls back to Unsloth on 24 GB cards (docs/evidence/rl.md, this section)
QLORA_32B = "qlora-qwen3-32b-workstation"


def _with(framework: str, **parallelism: Any) -> dict[str, Any]:
    data = copy.deepcopy(case(QLORA_32B))
    data["framework"] = framework
    data["parallelism"] = parallelism
    return data


@pytest.mark.parametrize(
    ("parallelism", "field", "allowed"),
    [
        ({"tensor": 2}, "parallelism.tensor", 1),
        ({"pipeline": 2}, "parallelism.pipeline", 1),
        ({"context": 2}, "parallelism.context", 1),
        ({"data": 2, "zero_stage": 3}, "parallelism.zero_stage", 0),  # FSDP / ZeRO-3
        ({"data": 2, "zero_stage": 2}, "parallelism.zero_stage", 0),
        ({"data": 2, "zero_stage": 1}, "parallelism.zero_stage", 0),  # DDP shards nothing
    ],
)
def test_a_split_under_unsloth_is_refused(parallelism: dict[str, int], field: str, allowed: int) -> None:
    # Unsloth's DDP guide: each GPU holds the whole model (no TP, PP, CP, no ZeRO / FSDP)
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with("unsloth", **parallelism))
    assert err.value.field == field
    assert f"must be {allowed} under Unsloth" in err.value.message and "DDP" in err.value.message
    assert "huggingface" in err.value.message  # a framework that runs the layout is named


def test_data_parallel_copies_stay_allowed() -> None:
    # DDP itself: parallelism.data copies at ZeRO 0 (the guide's accelerate / torchrun launch)
    assert parse_scenario(_with("unsloth", data=4)).parallelism.data == 4


def test_other_frameworks_keep_their_layouts() -> None:
    # the rule is Unsloth's profile (FrameworkProfile.data_parallel_only), not every trainer's
    assert parse_scenario(_with("huggingface", data=2, zero_stage=3)).parallelism.zero_stage == 3
    assert parse_scenario(_with("huggingface", tensor=2)).parallelism.tensor == 2


def test_the_fallback_runs_copies_on_several_gpus() -> None:
    # before: the fallback rung was capped at one GPU (max_gpus 1); Unsloth's DDP runs one copy
    # per GPU on any count, and its count search speaks only for one GPU (a copy needs the same
    # memory per GPU however many there are)
    s = parse_scenario(_with("huggingface", data=2, zero_stage=3))
    rung = ladder(s)[-1]
    assert rung.falls_back and rung.whole_copies
    assert rung.max_gpus > 1 and rung.counts_up_to == 1
    # the stated ZeRO 3 is set back to DDP's 0 in its changes, so the rung validates
    assert rung.changes["framework"] == "unsloth" and rung.changes["parallelism.zero_stage"] == 0
    assert rung.scenario.parallelism.zero_stage == 0
    # its search space: DP copies alone at ZeRO 0 (core/sizing/layout_space.py)
    arch = resolve(rung.scenario.model)
    space = layout_space(rung.scenario, arch, arch.heads, ("full",), 8)
    assert space.zeros == [0] and {(t, q, c, e) for t, q, c, e in space.shapes} == {(1, 1, 1, 1)}


def test_a_scenario_without_the_fallback_keeps_its_rungs() -> None:
    # the rungs before the fallback keep the stated layout: nothing set back there
    s = parse_scenario(_with("huggingface", data=2, zero_stage=3))
    assert all(v.scenario.parallelism.zero_stage == 3 for v in ladder(s)[:-1])
    assert not any(v.falls_back for v in ladder(s)[:-1])
