"""A refusal of each of this round's new fields shows beside the widget that holds the field
and the scenario keeps its last valid value: ``rl.rollout.async_engine`` once the rollout
engine becomes SGLang (its check box, inside the "Rollout engine details" group, which
opens), ``serving.disaggregated.opening_burst`` given a non-boolean, and a Gaudi HPU
(``hpu`` in presets/gpus) under llama.cpp, refused naming ``framework`` (docs/scenario-
format.md). The other new widgets' refusals are in test_expert_groups_gui.py,
test_expert_dispatch_gui.py and test_mtp_layers_gui.py."""

from __future__ import annotations

from typing import Any

from .helpers import error_text, find, set_scenario
from .test_window_small import DSV3_PD, NEMO_ASYNC

LLAMACPP: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "framework": "llama.cpp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "inference"},
}


def test_async_engine_refused_with_sglang_beside_its_box(window) -> None:
    set_scenario(window, NEMO_ASYNC)
    assert not find(window, "toggle_rl_rollout").isChecked()  # the group starts closed
    window.state.edit("rl.rollout.engine", "sglang", immediate=True)
    window.state.flush()
    shown = error_text(window, "check_rl_rollout_async_engine")
    assert "applies to a vLLM rollout" in shown and "set it false" in shown
    assert find(window, "toggle_rl_rollout").isChecked()  # opened at the error
    assert window.state.scenario.rl.rollout.engine == "vllm"
    assert window.state.scenario.rl.rollout.async_engine is True


def test_opening_burst_not_a_boolean_beside_its_combo(window) -> None:
    set_scenario(window, DSV3_PD)
    window.state.edit("serving.disaggregated.opening_burst", "yes", immediate=True)
    window.state.flush()
    assert "valid boolean" in error_text(window, "combo_disaggregated_opening_burst")
    assert window.state.scenario.serving.disaggregated.opening_burst is True
    # the combo keeps showing the value refused (as every field does) until it is corrected
    assert find(window, "combo_disaggregated_opening_burst").currentData() == "yes"


def test_gaudi_under_llamacpp_refused_beside_the_framework(window) -> None:
    set_scenario(window, LLAMACPP)
    window.state.edit("hardware.gpu", "gaudi-3-128gb", immediate=True)
    window.state.flush()
    shown = error_text(window, "combo_framework")
    assert "not on Intel Gaudi HPUs" in shown and "hardware.gpu" in shown
    assert window.state.scenario.hardware.gpu == "h100-sxm-80gb"
