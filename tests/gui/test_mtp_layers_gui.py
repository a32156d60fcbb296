"""The Model panel's "MTP layers" field (``model.mtp_layers``; core/serving/mtp.py,
core/serving/mtp_depth.py): shown for a preset (its config.json's count) and a custom
architecture, not for a size alone; an edit reaches the scenario and a refusal of the draft
count it bounds shows beside the Serving panel's draft-tokens field."""

from __future__ import annotations

from typing import Any

from .helpers import error_text, find, row_visible, set_scenario

DEEPSEEK: dict[str, Any] = {
    "model": {"preset": "deepseek-v3"},
    "framework": "vllm",
    "hardware": {"gpu": "h200-141gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 8},
    "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
    "serving": {"speculative": {"method": "mtp", "num_tokens": 3}},
}


def test_the_field_shows_the_presets_count_and_hides_for_a_size_alone(window) -> None:
    set_scenario(window, DEEPSEEK)
    spin = find(window, "spin_model_mtp_layers")
    assert row_visible(spin) and spin.value() == 1  # DeepSeek-V3 config: num_nextn_predict_layers 1
    size_only = {"name": "m", "parameters": 7e9}
    set_scenario(window, {**DEEPSEEK, "model": size_only, "parallelism": {}, "serving": {}})
    assert not row_visible(find(window, "spin_model_mtp_layers"))


def test_an_edit_reaches_the_scenario_and_a_refused_count_shows_beside_draft_tokens(window) -> None:
    """vLLM: 3 draft tokens over 2 MTP layers is refused (must be a multiple of them); the
    message sits beside the Serving panel's draft tokens, naming model.mtp_layers."""
    set_scenario(window, DEEPSEEK)
    window.state.edit("model.mtp_layers", 2, immediate=True)
    window.state.flush()
    err = window.state.error
    assert err is not None and err.field == "serving.speculative.num_tokens", err
    assert "model.mtp_layers (2)" in err.message
    assert err.message in error_text(window, "spin_serving_draft_tokens")
    window.state.edit("model.mtp_layers", 1, immediate=True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.model.mtp_layers == 1


def test_unknown_shows_as_its_own_text(window) -> None:
    set_scenario(window, {**DEEPSEEK, "model": {"preset": "deepseek-v3", "mtp_layers": None}})
    spin = find(window, "spin_model_mtp_layers")
    assert spin.value() is None and "unknown" in spin.text()
