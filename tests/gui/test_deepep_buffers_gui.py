"""The Serving panel with DeepEP (docs/scenario-format.md, "DeepEP's buffers"): the refusal of
DeepEP's normal kernels past 8 NVLink peers inside one NVL72 shows beside "MoE exchange" while
the scenario keeps its last valid value, and "DeepEP tokens a rank"
(``serving.moe_a2a_dispatch_tokens``) shows with a low-latency or auto backend and round-trips."""

from __future__ import annotations

from tests.scenarios import vllm_serving

from .helpers import error_text, find, mismatches, set_scenario

GB200_EP16 = {
    **vllm_serving(
        "qwen3-30b-a3b", "gb200-186gb", parallelism={"tensor": 16, "attention_data": 16, "expert": 16}
    ),
    "framework": "sglang",
    "serving": {"moe_a2a_backend": "deepep_low_latency"},
}


def test_normal_refused_beside_the_field_inside_an_nvl72(window) -> None:
    set_scenario(window, GB200_EP16)
    assert window.state.error is None
    window.state.edit("serving.moe_a2a_backend", "deepep_normal", immediate=True)
    window.state.flush()
    shown = error_text(window, "combo_serving_moe_a2a_backend")
    assert "at most 8 NVLink peers" in shown and "deepep_low_latency" in shown
    assert window.state.scenario.serving.moe_a2a_backend == "deepep_low_latency"


def test_dispatch_tokens_row_round_trips(window) -> None:
    set_scenario(window, GB200_EP16)
    spin = find(window, "spin_serving_moe_a2a_dispatch_tokens")
    assert spin.isVisibleTo(window)
    window.state.edit("serving.moe_a2a_dispatch_tokens", 512, immediate=True)
    window.state.flush()
    assert window.state.error is None
    assert window.state.scenario.serving.moe_a2a_dispatch_tokens == 512
    assert mismatches(window.binder) == []
    ep8 = {"tensor": 8, "attention_data": 8, "expert": 8}
    set_scenario(window, {**GB200_EP16, "parallelism": ep8, "serving": {"moe_a2a_backend": "deepep_normal"}})
    assert not spin.isVisibleTo(window)  # the normal kernels have no such cap


def test_breakdown_names_the_buffers_in_the_overhead(qtbot) -> None:
    """The memory table's overhead row says how much of it is DeepEP's buffers (the report's
    ``serving.moe_a2a_buffer_bytes``); without DeepEP it says nothing new."""
    from gpusizer.core.model.result import COMPONENTS
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
    from gpusizer.gui.breakdown import BreakdownTable

    table = BreakdownTable()
    qtbot.addWidget(table)
    row = COMPONENTS.index("overhead")
    table.set_estimate(estimate(parse_scenario(GB200_EP16)))
    item = table.item(row, 1)
    assert item is not None
    assert "of which DeepEP buffers 0.53 GiB" in item.toolTip()
    plain = {**GB200_EP16, "serving": {}}
    table.set_estimate(estimate(parse_scenario(plain)))
    item = table.item(row, 1)
    assert item is not None
    assert item.toolTip() == ""
