"""The capacity label beside the line keeps its own width: a first layout of a still tiny plot
wrapped it in the band (labels.place), and the line's right end then showed a column of single
letters at 1920x1200 (the gpt-oss-120b vLLM buyer case, before wrap_to restored it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts.labels import scene_rect

CASE = Path(__file__).parents[1] / "cli" / "data" / "buyer" / "serve-gpt-oss-120b-mi325x-triton.gpusizer.json"


def test_the_capacity_label_reads_on_one_line_after_the_first_layout(qtbot: Any) -> None:
    from gpusizer.gui.main_window import MainWindow

    w = MainWindow(parse_scenario(json.loads(CASE.read_text())), restore=False)
    qtbot.addWidget(w)
    w.resize(1920, 1200)
    w.tabs.select("memory")
    w.show()
    chart = w.tabs.chart("memory")
    assert chart is not None
    # one line of text (25 px tall), as wide as its words, not a 20 px column of letters
    qtbot.waitUntil(lambda: scene_rect(chart.cap_label).width() > 150, timeout=15000)
    assert scene_rect(chart.cap_label).height() < 40
    assert "usable" in chart.cap_label.textItem.toPlainText()
