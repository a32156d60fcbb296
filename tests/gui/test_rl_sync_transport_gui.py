"""``rl.sync_transport`` from the RL panel (docs/evidence/rl.md section 22): shown for split pools
only; NeMo RL's collective transport shortens the split sync of the 8 + 8 H100 scenario (the node's
NICs, not one GPU's); back to the default, the answer comes back."""

from __future__ import annotations

from tests.scenarios import RL_SPLIT

from .helpers import find, open_rl_sections, rl_phase_seconds, set_scenario


def test_sync_transport_from_the_rl_panel(window) -> None:
    set_scenario(window, RL_SPLIT)
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "combo_rl_sync_transport")
    assert box.isVisibleTo(window) and box.currentData() is None
    assert "NCCL group" in box.toolTip()
    before = rl_phase_seconds(window, "weight_sync")
    box.setCurrentIndex(box.findData("collective"))
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.sync_transport == "collective"
    assert rl_phase_seconds(window, "weight_sync") < before
    box.setCurrentIndex(box.findData(None))
    window.state.flush()
    assert window.state.scenario.rl.sync_transport is None
    assert rl_phase_seconds(window, "weight_sync") == before
    set_scenario(window, {**RL_SPLIT, "rl": {}})  # colocated: the refit, the field not read
    assert not box.isVisibleTo(window)
