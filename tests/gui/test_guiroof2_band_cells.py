"""The Hardware tab's band cells: an RL run's "$ to train band" (25.63-38.79) beside its
estimate (24.65) read as a mistake; the evidence band is offset by design (the band is where
80 % of the replayed published runs like it landed, docs/evidence/rl.md), so the cell says what
its numbers are, in the wording of io/evidence_text.band_words, and its tooltip says why."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from gpusizer.gui.hardware.table import OptionsModel
from gpusizer.io.compare_table import columns_for
from gpusizer.io.evidence_text import OUTSIDE, OUTSIDE_WHY


def _option(cost: float) -> dict[str, Any]:
    # the verl Qwen2.5 7B GRPO case at 1024 x 700 (GUI review): $24.65 against 25.63-38.79
    return {
        "rank": 1,
        "gpu": "h100-sxm-80gb",
        "gpu_name": "H100 SXM 80GB",
        "fits": True,
        "pareto": False,
        "notes": [],
        "layout": "TP 1",
        "training_cost": cost,
        "training_cost_range": [25.63, 38.79],
    }


def _cell(model: OptionsModel, key: str, role: Qt.ItemDataRole) -> Any:
    col = next(i for i, c in enumerate(model.columns) if c.key == key)
    return model.data(model.index(0, col), role)


def test_a_band_beside_an_estimate_outside_it_says_what_it_is(qtbot: Any) -> None:
    model = OptionsModel()
    model.set_options([_option(24.65)], columns_for(True, False))
    text = _cell(model, "training_cost_range", Qt.ItemDataRole.DisplayRole)
    assert text.startswith(f"{OUTSIDE} ") and "25.63" in text and "38.79" in text
    assert OUTSIDE_WHY in _cell(model, "training_cost_range", Qt.ItemDataRole.ToolTipRole)
    # the estimate's own cell, and its tooltip, are as before: the reason is said once
    assert not _cell(model, "training_cost", Qt.ItemDataRole.DisplayRole).startswith(OUTSIDE)
    assert OUTSIDE_WHY not in _cell(model, "training_cost", Qt.ItemDataRole.ToolTipRole)


def test_a_band_around_its_estimate_is_bare(qtbot: Any) -> None:
    model = OptionsModel()
    model.set_options([_option(30.0)], columns_for(True, False))
    text = _cell(model, "training_cost_range", Qt.ItemDataRole.DisplayRole)
    assert not text.startswith(OUTSIDE) and "25.63" in text
    assert OUTSIDE_WHY not in _cell(model, "training_cost_range", Qt.ItemDataRole.ToolTipRole)
