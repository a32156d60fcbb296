"""The Hardware chart as a chart: its settings come in as a view, its labels are placed in
the pixels pyqtgraph draws (``ViewBox.mapViewToScene``), never over a dot, and every dot has
a tooltip."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.option import option_edits
from gpusizer.core.views import HardwareView
from gpusizer.gui.charts.hardware import FRONT_PX, OTHER_PX, HardwareChart
from gpusizer.gui.charts.labels import overlaps, scene_rect
from gpusizer.gui.hardware.plot import GAP, SIDES

QWEN = {
    "model": {"preset": "qwen3-32b"},
    "workload": {"kind": "inference", "prompt_tokens": 8192, "generated_tokens": 512},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
}
LORA = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}


def _chart(qtbot: Any, data: dict, size: tuple[int, int], view: HardwareView | None = None) -> HardwareChart:
    chart = HardwareChart()  # no background: searched in place
    qtbot.addWidget(chart)
    if view is not None:
        chart.set_view(view)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(data)
    chart.update_from(s, estimate(s))
    return chart


def _dot(chart: HardwareChart, x: float, y: float, px: float) -> QRectF:
    """A dot's square in scene pixels (its outline included)."""
    c = chart.plot.vb.mapViewToScene(QPointF(x, y))
    r = px / 2 + 1
    return QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r)


@pytest.mark.parametrize("size", [(900, 500), (1440, 700), (700, 900)])
@pytest.mark.parametrize("data", [QWEN, LORA], ids=["serve", "lora"])
def test_labels_sit_beside_their_dots_and_cover_none(qtbot: Any, data: dict, size: tuple[int, int]) -> None:
    chart = _chart(qtbot, data, size)
    shown = [item for item in chart.labels if item.isVisible()]
    assert shown, "at least one point of the front is named"
    vb = chart.plot.vb
    area = vb.sceneBoundingRect()
    dots = [_dot(chart, x, y, FRONT_PX if o["pareto"] else OTHER_PX) for x, y, o in chart._pts]
    for item, (x, y, _o) in zip(chart.labels, chart._front, strict=False):
        if not item.isVisible():
            continue
        rect = scene_rect(item)
        assert area.contains(rect), item.toPlainText()
        assert not any(rect.intersects(d) for d in dots), item.toPlainText()
        # GAP px from its dot's centre on the side chosen, measured in the pixels drawn (the
        # old placer assumed 5% auto-range padding and landed 5-12 px off)
        centre = vb.mapViewToScene(QPointF(x, y))
        anchor = item.anchor
        side = next(s for s in SIDES if (s[2][0], s[2][1]) == (anchor.x(), anchor.y()))
        gx, gy = side[1]
        at = QPointF(rect.left() + anchor.x() * rect.width(), rect.top() + anchor.y() * rect.height())
        assert at.x() == pytest.approx(centre.x() + gx * GAP, abs=1.0)
        assert at.y() == pytest.approx(centre.y() - gy * GAP, abs=1.0)
    assert overlaps(shown) == []


def test_every_dot_has_a_tooltip(qtbot: Any) -> None:
    chart = _chart(qtbot, QWEN, (900, 500))
    off_front = [p for p in chart._pts if not p[2]["pareto"]]
    assert off_front
    for x, y, o in off_front + chart._front:
        tip = chart.tooltip_at(x, y)
        assert o["gpu_name"] in tip and "per million tokens" in tip
        assert ("Pareto front" in tip) == o["pareto"]


def test_settings_come_in_as_a_view(qtbot: Any) -> None:
    """The view set from outside (the window's remembered one, the CLI's flags) drives the
    search, the ranking and the controls; the user's edits go out as viewChanged."""
    chart = _chart(qtbot, QWEN, (900, 500), HardwareView(margin=0.3, sort="speed"))
    assert all(o["headroom_bytes"] >= 0.3 * o["capacity_bytes"] for o in chart.options if o["fits"])
    assert chart.controls.margin.value() == 30 and chart.controls.sort.currentData() == "speed"
    seen: list[Any] = []
    chart.viewChanged.connect(seen.append)
    chart.controls.basis.setCurrentIndex(chart.controls.basis.findData("owned"))
    assert seen == [HardwareView(margin=0.3, sort="speed", basis="owned")]
    assert all(o["cost_basis"] == "owned" for o in chart.options)
    chart.set_view(HardwareView(margin=0.1))  # from outside: no viewChanged
    assert len(seen) == 1 and chart.controls.margin.value() == 10


def test_a_double_clicked_row_asks_for_its_layout(qtbot: Any) -> None:
    chart = _chart(qtbot, QWEN, (900, 500))
    asked: list[dict] = []
    chart.editRequested.connect(asked.append)
    option = next(o for o in chart.options if o["gpu"] == "b200-192gb")
    col = [c.key for c in chart.model.columns].index("layout")
    row = chart.model.options.index(option)
    chart._double_clicked(chart.table.proxy.mapFromSource(chart.model.index(row, col)))
    assert asked == [option_edits(option)]
    assert asked[0]["parallelism"] == option["parallelism"] and "workload.batch_size" in asked[0]
