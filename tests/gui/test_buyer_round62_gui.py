"""The purchase budget (``targets.max_purchase_usd``, core/sizing/budget.py) in the Targets panel:
one field for every kind of work, beside the deadline when training and the serving targets when
serving, bound through the panel's binder like them (docs/evidence/rl.md, buyer round 62)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.hardware.runner import search_key

LORA = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}


def test_the_budget_field_sets_the_target(window: Any) -> None:
    window.state.set_scenario(LORA, record=False)
    budget = window.findChild(QWidget, "spin_target_budget")
    deadline = window.findChild(QWidget, "spin_target_deadline")
    assert budget.isVisible() and deadline.isVisible()
    assert budget.none_text == "not set" and "targets.max_purchase_usd" in budget.toolTip()
    budget.setValue(50_000)
    window.state.flush()
    assert window.state.scenario.targets.max_purchase_usd == 50_000
    # serving keeps it, beside its own targets
    window.state.edit("workload.kind", "inference", immediate=True)
    assert budget.isVisible() and window.findChild(QWidget, "spin_target_ttft").isVisible()
    assert window.state.scenario.targets.max_purchase_usd == 50_000


def test_a_budget_edit_reprices_without_a_new_search() -> None:
    plain = parse_scenario(LORA)
    held = parse_scenario({**LORA, "targets": {"max_purchase_usd": 9_000}})
    assert search_key(plain, {}) == search_key(held, {})
