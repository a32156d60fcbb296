"""An RL layout's trained roles shared among the GPUs of a catalog search
(core/pipeline/rl_shared.py): each GPU gets the scenario and training peak it gets alone, and the
errors it gets alone. The catalog compares these speed up are byte-identical before and after
(``gpusizer-cli compare --json`` of tests/cli/data/buyer/rl-*.gpusizer.json, 2026-12-05)."""

from __future__ import annotations

from typing import Any

import pytest

from gpusizer.core.errors import ScenarioError
from gpusizer.core.memo import clear_all
from gpusizer.core.model.specs import HardwareSpec, ModelSpec, Scenario
from gpusizer.core.pipeline import scenario as scenario_module
from gpusizer.core.pipeline.rl_check import role_model
from gpusizer.core.pipeline.rl_roles import rollout_scenario, trainer_scenario
from gpusizer.core.pipeline.rl_shared import shared_rollout, shared_trainer, training_memory
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict

# an NVIDIA board, AMD, a 72-GPU NVLink rack, a 40 GB card
GPUS: list[Any] = ["h100-sxm-80gb", "mi300x-192gb", "gb200-186gb", "a100-sxm-40gb"]
RL: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "megatron",
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "parallelism": {"tensor": 2, "expert": 4, "data": 4},
    "rl": {"algorithm": "grpo", "steps": 500},
}


def _on(s: Scenario, gpu: Any, **layout: int) -> Scenario:
    """``s`` on ``gpu`` as the layout search makes it: the same blocks, its hardware and layout."""
    hw = s.hardware.model_copy(update={"gpu": gpu})
    return s.model_copy(update={"hardware": hw, "parallelism": s.parallelism.model_copy(update=layout)})


@pytest.mark.parametrize("critic", [False, True])
def test_each_gpu_gets_the_trainer_it_gets_alone(critic: bool) -> None:
    clear_all()
    s = parse_scenario({**RL, "rl": {**RL["rl"], "algorithm": "ppo" if critic else "grpo"}})
    model: ModelSpec | None = role_model(s, "", s.rl.critic.model) if critic and s.rl else None
    kind = "full_finetune" if critic else None
    for layout in ({}, {"tensor": 1, "data": 8}):
        for gpu in GPUS:
            on = _on(s, gpu, **layout)
            policy, mem = shared_trainer(on, model, kind)  # the first GPU validates, the rest reuse
            alone = trainer_scenario(on, model, kind)
            assert policy == alone and scenario_dict(policy) == scenario_dict(alone)
            assert policy.hardware.gpu == gpu
            assert mem == training_memory(alone)


def test_the_rollout_is_the_engines_scenario_of_its_gpu() -> None:
    clear_all()
    s = parse_scenario(RL)
    for gpu in GPUS:
        for layout in ({}, {"tensor": 1, "data": 8}):
            on = _on(s, gpu, **layout)
            assert shared_rollout(on, 64) == rollout_scenario(on, 64)


def test_a_layout_refused_is_refused_on_every_gpu() -> None:
    clear_all()
    s = parse_scenario(RL)
    for gpu in GPUS:  # TP 3 does not divide the model's heads: nothing is kept, each GPU refused
        with pytest.raises(ScenarioError) as shared:
            shared_trainer(_on(s, gpu, tensor=3))
        with pytest.raises(ScenarioError) as alone:
            trainer_scenario(_on(s, gpu, tensor=3))
        assert (shared.value.field, shared.value.message) == (alone.value.field, alone.value.message)


def test_a_gpu_the_checks_refuse_is_refused_though_another_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks that read the GPU run again on each (here one refuses the AMD GPU)."""
    clear_all()
    s = parse_scenario(RL)
    check = scenario_module.check_scenario

    def refuse_amd(x: Scenario) -> None:
        if x.hardware.gpu == "mi300x-192gb":
            raise ScenarioError("hardware.gpu", "refused here")
        check(x)

    monkeypatch.setattr(scenario_module, "check_scenario", refuse_amd)
    shared_trainer(_on(s, "h100-sxm-80gb"))
    with pytest.raises(ScenarioError, match=r"refused here \(the policy of RL post-training\)"):
        shared_trainer(_on(s, "mi300x-192gb"))
    with pytest.raises(ScenarioError, match=r"refused here \(the policy of RL post-training\)"):
        trainer_scenario(_on(s, "mi300x-192gb"))


def test_another_node_is_its_own_trainer() -> None:
    """A GPU on another node size shares nothing (the node is in the training peak's key)."""
    clear_all()
    s = parse_scenario(RL)
    a = shared_trainer(_on(s, "h100-sxm-80gb"))[0]
    hw = HardwareSpec(gpu="h100-sxm-80gb", gpus_per_node=4)
    b = shared_trainer(s.model_copy(update={"hardware": hw}))[0]
    assert (a.hardware.gpus_per_node, b.hardware.gpus_per_node) == (8, 4)


def test_a_refused_rollout_is_refused_again_with_the_same_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The rollout scenarios are kept by value, their refusals too (rl_shared._rollout_by_value):
    the second layout that asks gets the error the first got, raised anew, and the error the
    engine's scenario built alone raises."""
    clear_all()
    s = parse_scenario(RL)
    check = scenario_module.check_scenario

    def refuse_amd_engine(x: Scenario) -> None:
        if x.hardware.gpu == "mi300x-192gb" and x.workload.kind == "inference":
            raise ScenarioError("serving.max_sequences", "refused here")
        check(x)

    monkeypatch.setattr(scenario_module, "check_scenario", refuse_amd_engine)
    errors = []
    for layout in ({}, {"tensor": 1, "data": 8}):  # the engine's dict is the same for both
        with pytest.raises(ScenarioError) as shared:
            shared_rollout(_on(s, "mi300x-192gb", **layout), 64)
        errors.append(shared.value)
    with pytest.raises(ScenarioError) as alone:
        rollout_scenario(_on(s, "mi300x-192gb"), 64)
    assert errors[0] is not errors[1]
    for e in errors:
        assert (e.field, e.message, str(e)) == (alone.value.field, alone.value.message, str(alone.value))
        assert e.field == "rl.rollout.max_sequences"  # the rl field behind it, as parse_role names it
    assert shared_rollout(_on(s, "h100-sxm-80gb"), 64) == rollout_scenario(_on(s, "h100-sxm-80gb"), 64)


def test_equal_blocks_as_other_objects_share_one_rollout() -> None:
    clear_all()
    s = parse_scenario(RL)
    copy = s.model_copy(update={k: getattr(s, k).model_copy() for k in ("workload", "rl", "hardware")})
    assert shared_rollout(copy, 64) is shared_rollout(s, 64)


def test_a_role_dict_parses_as_parse_scenario_parses_it() -> None:
    """parse_role_dict skips parse_scenario's memo and text check, not its answer; the role dict
    carries the validated model (role_model.py), the one parse_scenario finds for its dump."""
    clear_all()
    s = parse_scenario(RL)
    role = rollout_scenario(s, 64)
    data = scenario_dict(role)
    assert scenario_module.parse_role_dict(data) == parse_scenario(data) == role
    assert scenario_dict(parse_scenario(data)) == data
    assert role.model is parse_scenario({**RL, "model": scenario_dict(s)["model"]}).model
