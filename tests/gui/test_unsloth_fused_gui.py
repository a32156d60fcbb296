"""Unsloth 2025.9's fused cross-entropy (``workload.loss: "unsloth_fused"``,
core/memory/unsloth_fused_ce.py) is in the training panel's loss box, registry-driven, and
picking it reaches the scenario."""

from __future__ import annotations

from .helpers import find


def test_the_loss_box_offers_unsloths_own_fused_loss(window):
    combo = find(window, "combo_loss")
    assert combo.findData("unsloth_fused") >= 0
    combo.setCurrentIndex(combo.findData("unsloth_fused"))
    window.state.flush()
    assert window.state.scenario.workload.loss == "unsloth_fused"
