"""Hostile input in the window's RL roles panel and serving feature rows (``rl.*``,
``serving.prefix`` / ``.speculative`` / ``.lora`` / ``.kv_offload`` / ``.disaggregated``): a
value the core refuses, or a setting that conflicts with another, leaves the last valid
scenario in place and its message shows beside the field that is wrong."""

from __future__ import annotations

import json
from typing import Any

import pytest
from PySide6.QtCore import Qt

from tests.scenarios import RL_SPLIT, VLLM

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
)
SERVING_FIELDS = (
    ("serving.prefix.shared_tokens", "spin_serving_prefix_tokens"),
    ("serving.speculative.num_tokens", "spin_serving_draft_tokens"),
    ("serving.lora.adapters", "spin_serving_lora_adapters"),
    ("serving.lora.max_loaded", "spin_serving_lora_loaded"),
    ("serving.lora.rank", "spin_serving_lora_rank"),
)
NUMBERS = (
    ("serving.kv_offload.capacity_gb", "spin_serving_kv_offload"),
    ("serving.prefix.hit_rate", "spin_serving_prefix_hit_rate"),
    ("serving.speculative.acceptance_rate", "spin_serving_acceptance"),
)
FEATURES = {
    "prefix": {"shared_tokens": 256},
    "speculative": {"method": "eagle"},
    "lora": {"adapters": 4},
    "kv_offload": {"capacity_gb": 64},
}


def _refused(window: Any, path: str, value: Any, widget: str) -> None:
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
            _refused(window, path, value, widget)
        window.state.edit(path, good, immediate=True)
        assert window.state.error is None, (path, window.state.error)
    assert mismatches(window.binder) == []


def test_hostile_serving_feature_values_are_refused_beside_the_field(window) -> None:
    set_scenario(window, {**VLLM, "serving": FEATURES})
    fields = [(p, w, HOSTILE) for p, w in SERVING_FIELDS]
    fields += [(p, w, tuple(v for v in HOSTILE if v != 1.5 or "rate" in p)) for p, w in NUMBERS]
    for path, widget, values in fields:
        good = window.state.value(path)
        for value in values:
            if value == 0 and path == "serving.prefix.hit_rate":
                continue  # no hit at all is a valid rate
            _refused(window, path, value, widget)
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
    ("start", "path", "value", "widget", "words"),
    [
        (RL_SPLIT, "rl.rollout.gpus", 0, "spin_rl_rollout_gpus", "at least one engine"),
        ({**VLLM, "serving": FEATURES}, "serving.lora.max_loaded", 8, "spin_serving_lora_loaded", "at most"),
        ({**VLLM, "serving": FEATURES}, "serving.lora.active", 9, "spin_serving_lora_active", "at most"),
        (
            {**VLLM, "serving": FEATURES},
            "serving.prefix.shared_tokens",
            10**6,
            "spin_serving_prefix_tokens",
            "workload.prompt_tokens",
        ),
        (
            {**VLLM, "serving": {"disaggregated": {"prefill_gpus": 3, "decode_gpus": 1}}},
            "serving.disaggregated.prefill_tensor",
            3,
            "spin_serving_prefill_tensor",
            "must divide attention_heads (32)",
        ),
        (
            {**VLLM, "serving": FEATURES},
            "serving.speculative.acceptance_rate",
            1.5,
            "spin_serving_acceptance",
            "less than or equal to 1",
        ),
        (
            {**VLLM, "serving": FEATURES},
            "serving.speculative.acceptance_rate",
            0,
            "spin_serving_acceptance",
            "greater than 0",
        ),
    ],
)
def test_conflicting_settings_are_refused_beside_the_field(
    window, start: dict[str, Any], path: str, value: Any, widget: str, words: str
) -> None:
    set_scenario(window, start)
    before = window.state.scenario
    window.state.edit(path, value, immediate=True)
    err = window.state.error
    assert err is not None and err.field == path and words in err.message, (path, err)
    assert window.state.scenario is before
    assert err.message in error_text(window, widget)


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
    """Before: the estimate of a split pool of 10^9 GPUs ran for minutes in the worker."""
    path = tmp_path / "huge.gpusizer.json"
    huge = {**RL_SPLIT, "rl": {"placement": "split", "rollout": {"gpus": 10**9, "prompts_per_step": 64}}}
    path.write_text(json.dumps(huge), encoding="utf-8")
    assert window.files.open_path(path)
    qtbot.waitUntil(
        lambda: window.state.estimate is not None and window.state.estimate.rl is not None, timeout=20000
    )
    assert window.state.estimate.rl["rollout_gpus"] == 10**9


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


def test_the_features_chart_says_when_the_engine_does_not_start(qtbot) -> None:
    """Before: LoRA slots that leave no KV pool, beside a split of 2 + 2 GPUs, titled the chart
    "at your 1 users split P/D on 0 prefill + 0 decode GPUs: 0 tokens/s"."""
    from .test_charts import make

    serving = {"lora": {"adapters": 1024, "max_loaded": 1024, "rank": 512}}
    serving["disaggregated"] = {"prefill_gpus": 2, "decode_gpus": 2}
    chart = make(qtbot, "features", {**VLLM, "serving": serving})
    assert chart.data.split_gpus == (2, 2)
    assert "does not start" in chart._title_text and "0 prefill" not in chart._title_text


def test_a_split_block_kept_off_draws_no_split(qtbot) -> None:
    """``serving.disaggregated`` with ``prefill_gpus`` null is off (kept, not read): before, the
    chart drew a split curve of zeros on "0 prefill + 0 decode GPUs"."""
    from .test_charts import make

    chart = make(qtbot, "features", {**VLLM, "serving": {"disaggregated": {"decode_gpus": 2}}})
    assert chart.data.split == () and "split" not in chart._title_text


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


def test_a_draft_model_error_shows_beside_the_method(window) -> None:
    """A draft model comes from the file (the window has no draft-model field): a model switch
    to another vocabulary is refused beside "Speculative decoding", where choosing "off" keeps
    the draft and lets the switch through. Before, the message showed beside no field."""
    spec = {"method": "draft_model", "draft_model": {"preset": "llama-3.2-1b"}}
    set_scenario(window, {**VLLM, "serving": {"speculative": spec}})
    window.state.edit("model", {"preset": "qwen2.5-7b"}, immediate=True)
    err = window.state.error
    assert err is not None and err.field == "serving.speculative.draft_model.vocab_size"
    assert err.message in error_text(window, "combo_serving_speculative")
    window.state.edit("serving.speculative.method", None, immediate=True)
    window.state.edit("model", {"preset": "qwen2.5-7b"}, immediate=True)
    window.state.flush()
    assert window.state.error is None and window.state.scenario.serving.speculative.draft_model is not None


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


def test_a_report_dropped_on_the_window_says_what_it_is(window, tmp_path, message_boxes) -> None:
    """Before: "r.json is neither a GPU Sizer scenario nor a Hugging Face config.json"."""
    import gpusizer

    path = tmp_path / "r.json"
    path.write_text(json.dumps(gpusizer.estimate_report({"model": {"preset": "gpt-2"}})), encoding="utf-8")
    before = window.state.scenario
    assert not window.files.open_any(path)
    assert window.state.scenario is before
    assert "is an estimate report" in message_boxes[-1][1] and '"scenario" block' in message_boxes[-1][1]
