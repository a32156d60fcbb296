"""The window at 1024 x 700 as a user sees it (screenshots under Xvfb of a training, the
DeepSeek-V3 and gpt-oss-120b P/D, an RL and a llama.cpp buyer case were looked at):

- training vs inference of DeepSeek-V3 P/D: a four-line title (82 px) and a 201 px legend
  beside the plot needed 305 px of the chart's 259, and the bars' bottoms, their names and
  the legend's last entry were cut off; the title now takes its one-line form, the whole
  title in its tooltip;
- the Hardware tab's speed axis for DeepSeek-V3 (20-50 tok/s) showed no tick text: its only
  ticks, 20 and 50, sat at the plot's edges, where pyqtgraph drops a text that overflows;
- the Hardware tab of gpt-oss-120b P/D showed 2.5 rows of its GPU table and a plot 0.5 px
  tall: the details took the height; the charts now get CHARTS_MIN_PX of it, the details down
  to two rows (they scroll), and the settings strip scrolls downwards in a short tab.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QRectF
from PySide6.QtGui import QFontMetricsF, QImage, QPainter
from PySide6.QtWidgets import QApplication

from .helpers import find, shown_window

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"
CASES = [
    "serve-deepseek-v3-pd",
    "serve-gpt-oss-120b-pd",
    "rl-qwen3-30b-a3b-colocated",
    "local-qwen3-30b-a3b-llamacpp",
]


def _case(name: str) -> dict[str, Any]:
    return dict(json.loads((BUYER / f"{name}.gpusizer.json").read_text()))


def _scene_rect(item: Any) -> QRectF:
    return QRectF(item.mapRectToScene(item.boundingRect()))


def _drawn_ticks(axis: Any) -> list[tuple[QRectF, str]]:
    """The tick texts pyqtgraph draws (it drops those that overflow the axis), each with its
    rectangle as laid out by its lines (the rectangle pyqtgraph gives is a line's)."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        texts = axis.generateDrawSpecs(painter)[2]
    finally:
        painter.end()
    return [(QRectF(rect), text) for rect, _flags, text in texts]


def _lines_apart(drawn: list[tuple[QRectF, str]], metrics: QFontMetricsF) -> list[tuple[str, str]]:
    """Pairs of tick texts with a line of each on one row that run into each other."""
    boxes = []
    for rect, text in drawn:
        top = rect.top() + metrics.lineSpacing() * (len(text) - len(text.lstrip("\n")))
        for i, line in enumerate(text.lstrip("\n").split("\n")):
            width = metrics.horizontalAdvance(line)
            y = top + i * metrics.lineSpacing()
            boxes.append((QRectF(rect.center().x() - width / 2, y, width, metrics.height()), line))
    return [
        (a, b)
        for i, (ra, a) in enumerate(boxes)
        for rb, b in boxes[i + 1 :]
        if ra.intersected(rb).width() > 0.5 and ra.intersected(rb).height() > 0.5
    ]


@pytest.mark.parametrize("case", CASES)
def test_training_vs_inference_is_whole_inside_its_chart(qtbot: Any, case: str) -> None:
    """Title, legend, plot and bar names inside the chart's view (1 px for rounding): before,
    the legend ran to 297 px and the bars' names to 296 px in DeepSeek-V3's 259 px chart."""
    w = shown_window(qtbot, _case(case), (1024, 700))
    w.tabs.select("variants")
    chart = w.tabs.charts["variants"]
    qtbot.waitUntil(lambda: chart.has_data, timeout=60000)
    QApplication.processEvents()
    view = QRectF(chart.plot_widget.rect()).adjusted(-1, -1, 1, 1)
    parts = {
        "title": chart.title_item,
        "legend": chart.legend,
        "plot": chart.plot.vb,
        "bar names": chart.plot.getAxis("bottom"),
    }
    for name, item in parts.items():
        rect = _scene_rect(item)
        assert view.contains(rect), (case, name, rect, view)
    assert chart.plot.vb.height() >= 100, chart.plot.vb.height()
    axis = chart.plot.getAxis("bottom")
    drawn = _drawn_ticks(axis)
    assert len(drawn) == len(chart.cmp.bars), drawn  # every bar named
    # the llama.cpp case's 229 px plot beside its 242 px legend ran "Pre-trainingLoRA" and
    # "InferenceInference" (its names now in four staggered rows: tick_fit.py)
    assert _lines_apart(drawn, QFontMetricsF(axis.style["tickFont"])) == []


def test_a_short_title_keeps_the_whole_in_its_tooltip(qtbot: Any) -> None:
    """DeepSeek-V3 P/D at 1024 x 700: the one-line title; the whole one (the seed articles'
    arithmetic included) in the tooltip. At 1400 x 900 the whole title shows, no tooltip."""
    w = shown_window(qtbot, _case("serve-deepseek-v3-pd"), (1024, 700))
    w.tabs.select("variants")
    chart = w.tabs.charts["variants"]
    qtbot.waitUntil(lambda: chart.has_data, timeout=60000)
    QApplication.processEvents()
    assert chart.title_item.text == "DeepSeek-V3: training vs inference on H100 SXM 80GB"
    tip = chart.title_item.toolTip()
    assert "671.0 B params" in tip and "model states at 16 B/param" in tip and "<" not in tip, tip
    w.resize(1400, 900)
    QApplication.processEvents()
    assert "model states at 16 B/param" in chart.title_item.text
    assert chart.title_item.toolTip() == ""


# (tok/s per user, $ per M tokens): DeepSeek-V3 P/D's 20-50 range, and a llama.cpp case's
# 71-149, where thinning kept "100" alone between 80 and 120
NARROW = [
    [(20.5, 4.0), (24.0, 3.1), (31.0, 6.0), (38.0, 9.5), (49.0, 12.0)],
    [(71.4, 1.4), (90.0, 2.2), (120.0, 40.0), (148.9, 2497.0)],
]


@pytest.mark.parametrize("speeds", NARROW, ids=["20-50", "71-149"])
def test_the_speed_axis_reads_a_narrow_range(qtbot: Any, speeds: list[tuple[float, float]]) -> None:
    """Options in a narrow speed range in a 170 x 198 px chart (the Hardware tab's plot at
    1024 x 700): at least two tick texts drawn on each axis, none overlapping."""
    from gpusizer.gui.charts.cost_speed import CostSpeedChart

    class Chart(CostSpeedChart):  # the plot alone, as the Hardware tab builds it
        def _build(self) -> None:
            self._build_plot()

    chart = Chart()
    qtbot.addWidget(chart)
    chart.scenario = None
    chart.options = [
        {
            "gpu_name": f"GPU {i}",
            "fits": True,
            "pareto": i < 3,
            "tokens_per_second_per_user": speed,
            "cost_per_million_tokens": cost,
            "gpus": 8,
            "layout": "TP 8",
        }
        for i, (speed, cost) in enumerate(speeds)
    ]
    chart.resize(170, 198)
    chart.show()
    chart.has_data = True
    chart._redraw_then_relayout()
    QApplication.processEvents()
    for side in ("bottom", "left"):
        drawn = [text for _rect, text in _drawn_ticks(chart.plot.getAxis(side))]
        assert len(drawn) >= 2, (side, drawn)


def test_finer_ticks_reach_two_inside_any_range() -> None:
    """Coarse to fine: 20 and 50 alone (at the data's ends), then every 10, then linear."""
    from gpusizer.gui.hardware.plot import finer_ticks

    sets = finer_ticks(20.0, 50.0, "log")
    assert [t for _, t in sets[0]] == ["20", "50"]
    assert {"30", "40"} <= {t for _, t in sets[1]}
    assert [t for _, t in finer_ticks(20.5, 22.0, "log")[-1]] == ["20.5", "21", "21.5", "22"]
    assert finer_ticks(0.0, 4.0, "linear") == [finer_ticks(0.0, 4.0, "linear")[0]]  # one set


@pytest.mark.parametrize("case", ["serve-gpt-oss-120b-pd", "serve-deepseek-v3-pd"])
def test_the_hardware_tab_keeps_rows_and_a_plot(qtbot: Any, case: str) -> None:
    """At least five GPU rows and an 80 px plot (before: 54 px of rows, a 0.5 px plot for
    gpt-oss-120b P/D); the settings not in view are a scroll away; the details keep their
    header and two rows, scrolling."""
    w = shown_window(qtbot, _case(case), (1024, 700))
    w.tabs.select("hardware")
    chart = w.tabs.charts["hardware"]
    QApplication.processEvents()
    table = chart.table
    rows = table.viewport().height() / table.verticalHeader().defaultSectionSize()
    assert rows >= 5, rows
    assert chart.plot.vb.height() >= 80, chart.plot.vb.height()
    strip = chart.strip
    controls = strip.widget()
    hidden = controls.sizeHint().height() - strip.viewport().height()
    assert hidden <= 0 or strip.verticalScrollBar().maximum() >= hidden - 1
    details = find(w, "table_breakdown")
    assert details.viewport().height() >= 2 * details.verticalHeader().defaultSectionSize() - 2


def test_the_charts_share_is_not_a_minimum(qtbot: Any) -> None:
    """The window may still be made as short as before (its least height was 499 px; a
    minimum on the chart tabs made it 645), and a handle the user drags stays where it is
    when the window's height changes."""
    w = shown_window(qtbot, _case("serve-deepseek-v3-pd"), (1024, 700), advice=False)
    QApplication.processEvents()
    assert w.minimumSizeHint().height() <= 499, w.minimumSizeHint()
    split = w.right_split
    assert split.sizes()[0] >= 300  # the charts' share (window_body.CHARTS_MIN_PX)
    split.moveSplitter(200, 1)  # as a drag does: splitterMoved
    QApplication.processEvents()
    details = split.sizes()[1]
    w.resize(1024, 800)
    QApplication.processEvents()
    assert split.sizes()[1] == details
