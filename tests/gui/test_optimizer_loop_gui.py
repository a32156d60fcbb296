"""The for-loop optimizers (``precision.optimizer`` adamw_forloop, adamw_hf, adafactor_hf;
core/registry/optimizers.py) are in the precision panel's optimizer box beside AdamW, and
picking one reaches the scenario and the estimate."""

from __future__ import annotations

from .helpers import find


def test_the_optimizer_box_offers_the_for_loop_steps(window):
    combo = find(window, "combo_precision_optimizer")
    for opt in ("adamw_forloop", "adamw_hf", "adafactor_hf"):
        assert combo.findData(opt) >= 0, opt
    combo.setCurrentIndex(combo.findData("adamw_hf"))
    window.state.flush()
    assert window.state.scenario.precision.optimizer == "adamw_hf"
