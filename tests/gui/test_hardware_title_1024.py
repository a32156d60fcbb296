"""The Hardware tab's cost-speed chart at 1024 x 700 (screenshots looked at): before, the
table's 0.77 share of the tab left the chart 119 px, its plot 66 x 77 px and its title
("Cost vs speed · 5 best of 46 · some GPUs left out", 423 px) cut at both ends. Now the chart
keeps CHART_MIN_PX and a title too wide for one line takes its short form, whole; the
tooltip says it all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from .helpers import shown_window

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"


@pytest.mark.parametrize("size", [(1024, 700), (1280, 720), (1400, 900)])
def test_the_cost_speed_title_is_whole_inside_its_chart(qtbot: Any, size: tuple[int, int]) -> None:
    from gpusizer.gui.charts.hardware_split import CHART_MIN_PX
    from gpusizer.gui.charts.palette import TITLE_PX

    scenario = json.loads((BUYER / "full-ft-8b-8k-1b-week.gpusizer.json").read_text())
    w = shown_window(qtbot, scenario, size, advice=False)
    w.tabs.select("hardware")
    chart = w.tabs.charts["hardware"]
    qtbot.waitUntil(lambda: bool(chart.options), timeout=30000)
    QApplication.processEvents()
    title = chart.title_item
    text = title.item.mapRectToScene(title.item.boundingRect())
    whole = chart.plot_widget.sceneRect()
    assert whole.contains(text), (size, text, whole)
    assert chart.plot_widget.width() >= CHART_MIN_PX
    assert text.height() < 2 * TITLE_PX  # one line (28 px): the plot keeps its height
    tip = chart.plot_widget.toolTip()
    assert "Cost vs speed" in tip and "Pareto front" in tip, tip
    assert "best of" in title.text
