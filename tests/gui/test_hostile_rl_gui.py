"""Hostile input in the window's RL roles panel (``rl.*``): a value the core refuses, or a
setting that conflicts with another (a model, engine or layout switch), leaves the last valid
scenario in place and its message shows beside the field that is wrong; a file with a bad
``rl`` block is refused whole. A docstring's "Before:" is the defect reproduced, fixed since."""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import Qt

from gpusizer.core.limits import MAX_GPU_COUNT
from tests.scenarios import RL_SPLIT

from .helpers import error_text, find, mismatches, set_scenario

HOSTILE: tuple[Any, ...] = (0, -1, 1.5, float("nan"), float("inf"), True, 10**30, "4k", [], {})
RL_FIELDS = (
    ("rl.steps", "spin_rl_steps"),
    ("rl.rollout.prompts_per_step", "spin_rl_prompts"),
    ("rl.rollout.samples_per_prompt", "spin_rl_samples"),
    ("rl.prompt_tokens", "spin_rl_prompt_tokens"),
    ("rl.rollout.response_tokens", "spin_rl_response_tokens"),
    ("rl.rollout.tensor", "spin_rl_rollout_tp"),
    ("rl.rollout.gpus", "spin_rl_rollout_gpus"),
    ("rl.off_policy_steps", "spin_rl_off_policy_steps"),
    ("rl.reward.verify_workers", "spin_rl_reward_verify_workers"),
)


def refused(window: Any, path: str, value: Any, widget: str) -> None:
    before = window.state.scenario
    window.state.edit(path, value, immediate=True)
    err = window.state.error
    assert err is not None, (path, value)
    assert err.field == path, (path, value, err)
    assert window.state.scenario is before  # the last valid scenario stays
    assert err.message in error_text(window, widget), (path, value, err)


def test_hostile_rl_values_are_refused_beside_the_field(window) -> None:
    set_scenario(window, RL_SPLIT)
    for path, widget in RL_FIELDS:
        good = window.state.value(path)
        for value in HOSTILE:
            if value == 0 and path == "rl.rollout.gpus":
                continue  # 0 is the field's own minimum; split placement refuses it below
            refused(window, path, value, widget)
        window.state.edit(path, good, immediate=True)
        assert window.state.error is None, (path, window.state.error)
    assert mismatches(window.binder) == []


def test_a_rollout_width_that_breaks_the_pool_is_shown_beside_the_pool(window) -> None:
    """Rollout TP 3 against a pool of 8 GPUs: the pool is the field named (it must hold whole
    engines), the message names the width too, and the last valid scenario stays."""
    set_scenario(window, RL_SPLIT)
    before = window.state.scenario
    window.state.edit("rl.rollout.tensor", 3, immediate=True)
    err = window.state.error
    assert err is not None and err.field == "rl.rollout.gpus" and "rollout.tensor (3)" in err.message
    assert window.state.scenario is before
    assert err.message in error_text(window, "spin_rl_rollout_gpus")


@pytest.mark.parametrize(
    ("rl", "field"),
    [
        ({"algorithm": 5}, "rl.algorithm"),
        ({"policy": {"epochs": 1.5}}, "rl.policy.epochs"),
        ({"placement": "split", "rollout": {"gpus": 0}}, "rl.rollout.gpus"),
        ({"reference": {"model": "llama-3.1-8b"}}, "rl.reference.model"),
    ],
)
def test_a_file_with_a_bad_rl_block_is_refused_whole(window, tmp_path, message_boxes, rl, field) -> None:
    before = window.state.scenario
    bad = tmp_path / "bad.gpusizer.json"
    bad.write_text(json.dumps({**RL_SPLIT, "rl": rl}), encoding="utf-8")
    assert not window.files.open_path(bad)
    assert window.state.scenario is before
    assert message_boxes and field in message_boxes[-1][1]


def test_a_file_with_a_huge_rollout_pool_opens_in_bounded_time(window, tmp_path, qtbot) -> None:
    """Before: the estimate of a split pool of 10^9 GPUs ran for minutes in the worker. The pool
    now stops at the GPU-count bound (core/limits.py MAX_GPU_COUNT, 2^20), opened here."""
    path = tmp_path / "huge.gpusizer.json"
    rollout = {"gpus": MAX_GPU_COUNT, "prompts_per_step": 64}
    huge = {**RL_SPLIT, "rl": {"placement": "split", "rollout": rollout}}
    path.write_text(json.dumps(huge), encoding="utf-8")
    assert window.files.open_path(path)
    qtbot.waitUntil(
        lambda: window.state.estimate is not None and window.state.estimate.rl is not None, timeout=20000
    )
    assert window.state.estimate.rl["rollout_gpus"] == MAX_GPU_COUNT


def _type(qtbot: Any, field: Any, text: str) -> None:
    field.lineEdit().selectAll()
    qtbot.keyClicks(field.lineEdit(), text)
    qtbot.keyClick(field.lineEdit(), Qt.Key.Key_Return)


@pytest.mark.parametrize(
    ("path", "widget", "text", "value"),
    [
        ("rl.steps", "spin_rl_steps", "4k", 4000),
        ("rl.rollout.response_tokens", "spin_rl_response_tokens", "1.5M", 1_572_864),
        ("rl.prompt_tokens", "spin_rl_prompt_tokens", "2k", 2048),
    ],
)
def test_quantities_typed_in_the_rl_panel_are_read_as_people_write_them(
    window, qtbot, path: str, widget: str, text: str, value: int
) -> None:
    set_scenario(window, RL_SPLIT)
    _type(qtbot, find(window, widget), text)
    window.state.flush()
    assert window.state.error is None and window.state.value(path) == value


@pytest.mark.parametrize("text", ["1e30", "abc", "4 GB", "-5", "nan"])
def test_unreadable_text_in_the_rl_panel_is_refused_beside_it(window, qtbot, text: str) -> None:
    set_scenario(window, RL_SPLIT)
    before = window.state.scenario
    _type(qtbot, find(window, "spin_rl_response_tokens"), text)
    window.state.flush()
    assert window.state.scenario is before or window.state.scenario == before
    assert error_text(window, "spin_rl_response_tokens")


def test_a_model_switch_that_breaks_the_reference_is_fixed_beside_it(window) -> None:
    """A reference of Qwen2.5 7B, then the policy switched to Llama 3.1 8B (another vocabulary):
    refused beside the RL panel's "Reference model", which sets it back to the policy's. Before,
    ``rl.reference.model`` had no widget: the refusal could not be fixed in the window."""
    set_scenario(window, {**RL_SPLIT, "rl": {**RL_SPLIT["rl"], "reference": {"model": "qwen2.5-7b"}}})
    assert find(window, "combo_rl_reference").currentData() == "qwen2.5-7b"
    before = window.state.scenario
    window.state.edit("model", {"preset": "llama-3.1-8b"}, immediate=True)
    err = window.state.error
    assert err is not None and err.field == "rl.reference.model" and window.state.scenario is before
    assert err.message in error_text(window, "combo_rl_reference")
    window.state.edit("rl.reference.model", None, immediate=True)
    window.state.edit("model", {"preset": "llama-3.1-8b"}, immediate=True)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.model.name == "Llama 3.1 8B"
    assert mismatches(window.binder) == []


def test_a_longer_response_than_the_prefill_budget_is_refused_beside_the_budget(window) -> None:
    """vLLM's prefill budget (``rl.rollout.max_batched_tokens``) must hold its max_num_seqs: a
    larger ``max_sequences`` from the file, then a budget typed below it, is refused beside
    "Prefill budget" (before: a field with no widget)."""
    rl = {**RL_SPLIT["rl"], "rollout": {**RL_SPLIT["rl"]["rollout"], "max_batched_tokens": 4096}}
    set_scenario(window, {**RL_SPLIT, "rl": rl})
    window.state.edit("rl.rollout.max_batched_tokens", 512, immediate=True)
    err = window.state.error
    assert err is not None and err.field == "rl.rollout.max_batched_tokens" and "1,024" in err.message
    assert err.message in error_text(window, "spin_rl_max_batched_tokens")


def test_an_engine_switch_that_breaks_the_release_is_fixed_beside_it(window) -> None:
    """SGLang 0.4.3 set, then the rollout engine switched to vLLM (whose releases start at
    0.6.4): refused beside "Rollout release", which lists vLLM's releases once the switch is
    made with the release cleared. Before, ``rl.rollout.engine_version`` had no widget."""
    rollout = {**RL_SPLIT["rl"]["rollout"], "engine": "sglang", "engine_version": "0.4.3"}
    set_scenario(window, {**RL_SPLIT, "rl": {**RL_SPLIT["rl"], "rollout": rollout}})
    release = find(window, "combo_rl_engine_version")
    assert release.currentData() == "0.4.3" and release.findData("0.5.3") >= 0
    before = window.state.scenario
    window.state.edit("rl.rollout.engine", "vllm", immediate=True)
    err = window.state.error
    assert err is not None and err.field == "rl.rollout.engine_version" and window.state.scenario is before
    assert err.message in error_text(window, "combo_rl_engine_version")
    window.state.edit("rl.rollout.engine_version", None, immediate=True)
    window.state.edit("rl.rollout.engine", "vllm", immediate=True)
    window.state.flush()
    assert window.state.error is None and release.findData("0.8.3") >= 0 and release.findData("0.5.3") < 0
    assert mismatches(window.binder) == []


def test_a_tensor_width_the_critic_cannot_take_is_refused_beside_the_critic(window) -> None:
    """A PPO critic of Qwen2.5 0.5B (14 heads) beside a 7B policy: TP 4 is refused beside
    "Critic model" (before: named ``rl.rollout.tensor``, a field the user had not touched, and
    the critic had no widget)."""
    rl = {**RL_SPLIT["rl"], "algorithm": "ppo", "critic": {"model": "qwen2.5-0.5b"}}
    set_scenario(window, {**RL_SPLIT, "framework": "megatron", "parallelism": {"data": 8}, "rl": rl})
    assert find(window, "combo_rl_critic").currentData() == "qwen2.5-0.5b"
    before = window.state.scenario
    window.state.edit("parallelism.tensor", 4, immediate=True)
    err = window.state.error
    assert err is not None and err.field == "rl.critic.model" and window.state.scenario is before
    assert err.message in error_text(window, "combo_rl_critic")
