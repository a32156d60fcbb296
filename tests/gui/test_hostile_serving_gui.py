"""Hostile input in the window's serving feature rows (``serving.prefix``, ``.speculative``,
``.lora``, ``.kv_offload``, ``.disaggregated``) and files of another kind: a value the core
refuses, or a setting that conflicts with another, leaves the last valid scenario in place and
its message shows beside the field that is wrong. A docstring's "Before:" is the defect
reproduced, fixed since."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.scenarios import RL_SPLIT, VLLM

from .helpers import error_text, mismatches, set_scenario
from .test_hostile_rl_gui import HOSTILE, refused

SERVING_FIELDS = (
    ("serving.prefix.shared_tokens", "spin_serving_prefix_tokens"),
    ("serving.speculative.num_tokens", "spin_serving_draft_tokens"),
    ("serving.speculative.topk", "spin_serving_speculative_topk"),
    ("serving.speculative.num_draft_tokens", "spin_serving_speculative_num_draft_tokens"),
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


def test_hostile_serving_feature_values_are_refused_beside_the_field(window) -> None:
    set_scenario(window, {**VLLM, "serving": FEATURES})
    fields = [(p, w, HOSTILE) for p, w in SERVING_FIELDS]
    fields += [(p, w, tuple(v for v in HOSTILE if v != 1.5 or "rate" in p)) for p, w in NUMBERS]
    for path, widget, values in fields:
        good = window.state.value(path)
        for value in values:
            if value == 0 and path == "serving.prefix.hit_rate":
                continue  # no hit at all is a valid rate
            refused(window, path, value, widget)
        window.state.edit(path, good, immediate=True)
        assert window.state.error is None, (path, window.state.error)
    assert mismatches(window.binder) == []


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


def test_a_report_dropped_on_the_window_says_what_it_is(window, tmp_path, message_boxes) -> None:
    """Before: "r.json is neither a GPU Sizer scenario nor a Hugging Face config.json"."""
    import gpusizer

    path = tmp_path / "r.json"
    path.write_text(json.dumps(gpusizer.estimate_report({"model": {"preset": "gpt-2"}})), encoding="utf-8")
    before = window.state.scenario
    assert not window.files.open_any(path)
    assert window.state.scenario is before
    assert "is an estimate report" in message_boxes[-1][1] and '"scenario" block' in message_boxes[-1][1]
