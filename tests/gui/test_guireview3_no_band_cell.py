"""The Hardware tab's band columns say "no band" beside an estimate whose regime has none, and
the tooltip says why (gui/hardware/cells.py). Seen on a Llama 3.1 8B EAGLE-3 tree under SGLang:
the "$/M tok band" column was blank on every row (no banded published SGLang speed at batch one
on NVIDIA GPUs, docs/evidence/serving.md), which read as a column that failed to fill."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from gpusizer.gui.hardware.cells import NO_BAND
from gpusizer.gui.hardware.table import OptionsModel
from gpusizer.io.compare_table import columns_for

KEY = "cost_per_million_tokens_range"


def _option(band: list[float] | None, fits: bool = True) -> dict[str, Any]:
    return {
        "rank": 1,
        "gpu": "h100-sxm-80gb",
        "gpu_name": "H100 SXM 80GB",
        "fits": fits,
        "pareto": False,
        "notes": [],
        "layout": "TP 1",
        "cost_per_million_tokens": 0.87,
        KEY: band,
        "speed_confidence": "extrapolated",
    }


def _cell(option: dict[str, Any], role: Qt.ItemDataRole) -> Any:
    model = OptionsModel()
    model.set_options([option], columns_for(False, False))
    col = next(i for i, c in enumerate(model.columns) if c.key == KEY)
    return model.data(model.index(0, col), role)


def test_no_band_is_said_and_explained(qtbot: Any) -> None:
    assert _cell(_option(None), Qt.ItemDataRole.DisplayRole) == NO_BAND
    tip = _cell(_option(None), Qt.ItemDataRole.ToolTipRole)
    assert "No band: too few replayed published runs" in tip and "speed extrapolated" in tip
    assert _cell(_option(None), Qt.ItemDataRole.ForegroundRole) is not None  # muted, as not a figure


def test_a_band_and_a_row_that_does_not_fit_are_as_before(qtbot: Any) -> None:
    assert _cell(_option([0.6, 1.2]), Qt.ItemDataRole.DisplayRole) not in ("", NO_BAND)
    assert "No band" not in _cell(_option([0.6, 1.2]), Qt.ItemDataRole.ToolTipRole)
    assert _cell(_option([0.6, 1.2]), Qt.ItemDataRole.ForegroundRole) is None
    assert _cell(_option(None, fits=False), Qt.ItemDataRole.DisplayRole) != NO_BAND
