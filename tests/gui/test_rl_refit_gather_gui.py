"""``rl.refit_gather`` from the RL panel (docs/evidence/rl.md, the refit gather's pipeline
broadcast): shown under pipeline parallelism; "full" lengthens the colocated refit of a TP 4 PP 4
layout over 64 H100 (each GPU receives the other nodes' stages itself); back to null, the answer
comes back; without PP the row hides."""

from __future__ import annotations

from typing import Any

from .helpers import find, open_rl_sections, rl_phase_seconds, set_scenario

RL: dict[str, Any] = {
    "model": {"preset": "llama-3.1-70b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "rl"},
    "parallelism": {"tensor": 4, "pipeline": 4, "data": 4},
    "rl": {"rollout": {"tensor": 4, "prompts_per_step": 64, "samples_per_prompt": 8}},
}


def test_refit_gather_from_the_rl_panel(window) -> None:
    set_scenario(window, RL)
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "combo_rl_refit_gather")
    assert box.isVisibleTo(window) and box.currentData() is None
    assert "pipeline parallelism" in box.toolTip()
    before = rl_phase_seconds(window, "weight_sync")
    box.setCurrentIndex(box.findData("full"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.refit_gather == "full"
    assert (
        rl_phase_seconds(window, "weight_sync") > before + 2.0
    )  # 106 GB a GPU at 35 GB/s (core/pipeline/rl_pp_gather.py)
    box.setCurrentIndex(box.findData(None))
    window.state.flush()
    assert window.state.scenario.rl.refit_gather is None
    assert rl_phase_seconds(window, "weight_sync") == before
    set_scenario(window, {**RL, "parallelism": {"tensor": 4, "data": 16}})  # no PP: not read
    assert not box.isVisibleTo(window)
