"""``rl.broadcast_per_tensor`` from the RL panel (docs/evidence/rl.md section 17): shown for split
pools only; checked, the split weight sync adds one NCCL call a tensor; cleared, the answer
comes back."""

from __future__ import annotations

from tests.scenarios import RL_SPLIT

from .helpers import find, open_rl_sections, rl_phase_seconds, set_scenario


def test_per_tensor_broadcast_from_the_rl_panel(window) -> None:
    set_scenario(window, RL_SPLIT)
    open_rl_sections(window)  # the knob sits in a collapsible group
    box = find(window, "check_rl_broadcast_per_tensor")
    assert box.isVisibleTo(window) and not box.isChecked()
    assert "NCCL call" in box.toolTip()
    before = rl_phase_seconds(window, "weight_sync")
    box.setChecked(True)
    window.state.flush()
    assert window.state.error is None, window.state.error
    assert window.state.scenario.rl.broadcast_per_tensor is True
    assert rl_phase_seconds(window, "weight_sync") > before  # 8 + 8 H100 over two nodes: 47 us a tensor
    box.setChecked(False)
    window.state.flush()
    assert rl_phase_seconds(window, "weight_sync") == before
    set_scenario(window, {**RL_SPLIT, "rl": {}})  # colocated: the refit, the flag not read
    assert not box.isVisibleTo(window)
