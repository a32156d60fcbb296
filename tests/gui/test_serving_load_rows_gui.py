"""The serving run's fields beside "Load" that had no control (gui/panels/serving_load_rows.py):
``serving.requests`` ("Requests in run"), ``serving.length_spread`` ("Length spread") and
``serving.mixed_prefill`` ("Mixed prefill"), each reaching the scenario and the simulated run
(core/serving/load.py), blank as the scenario's null. No figure is replayed here: the core's
tests pin what each does (docs/scenario-format.md, the serving block)."""

from __future__ import annotations

from typing import Any

from tests.scenarios import VLLM

from .helpers import find, mismatches, row_visible, set_scenario, set_widget

BURST: dict[str, Any] = {**VLLM, "serving": {"load": "burst"}}


def _set(window: Any, name: str, value: Any) -> None:
    set_widget(window, name, value)
    assert window.state.error is None, window.state.error


def test_the_rows_show_for_serving_only_with_their_sources(window) -> None:
    set_scenario(window, {**VLLM, "workload": {"kind": "lora"}, "framework": "huggingface"})
    assert not row_visible(find(window, "spin_serving_requests"))
    set_scenario(window, VLLM)
    for name, words in (
        ("spin_serving_requests", "300,000"),
        ("spin_serving_length_spread", "0.9"),
        ("combo_serving_mixed_prefill", "--enable-mixed-chunk"),
    ):
        assert row_visible(find(window, name)) and words in find(window, name).toolTip()


def test_each_reaches_the_scenario(window) -> None:
    set_scenario(window, BURST)
    _set(window, "spin_serving_requests", 64)
    _set(window, "spin_serving_length_spread", 0.5)
    _set(window, "combo_serving_mixed_prefill", False)
    sv = window.state.scenario.serving
    assert (sv.requests, sv.length_spread, sv.mixed_prefill) == (64, 0.5, False)
    assert mismatches(window.binder) == []


def test_prompts_alone_first_move_the_first_token(window) -> None:
    """vLLM V1 mixes prompt chunks with decodes; off, a burst's prompts run alone first: the
    run's first token moves (core/serving/load.py ``mixed``)."""
    set_scenario(window, BURST)
    before = window.state.estimate.serving.ttft_seconds
    _set(window, "combo_serving_mixed_prefill", False)
    assert window.state.estimate.serving.ttft_seconds != before
    _set(window, "combo_serving_mixed_prefill", None)
    assert window.state.scenario.serving.mixed_prefill is None
    assert window.state.estimate.serving.ttft_seconds == before
