"""The Memory chart of a case that does not fit, in a small window: the line crosses the bar,
whose label fills the plot's width above it, so the capacity label had no room at either end
of its line and went to a band at the top with a 170 px leader line down to the line
(Qwen3-Next 80B-A3B pre-training at TP 1, 218.6 GiB on an 80 GB H100, at 1024 x 700: the
GUI review's screenshot). The bars now leave room right of the last one for the label on its
line (memory_labels._capacity_beside), as an engine's pool does for its labels."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.labels import PAD, outside, scene_rect
from gpusizer.gui.charts.over_line import room_right

HYBRID_TP1 = {
    "model": {"preset": "qwen3-next-80b-a3b"},
    "framework": "megatron",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {
        "kind": "pretraining",
        "sequence_length": 4096,
        "micro_batch_size": 1,
        "global_batch_size": 64,
        "training_tokens": 1e9,
    },
    "parallelism": {"tensor": 1, "expert": 8, "data": 8, "recompute": "full"},
}


@pytest.mark.parametrize("size", [(530, 310), (900, 420)])  # the chart at 1024 x 700, 1400 x 900
def test_the_capacity_label_sits_on_its_line_without_a_leader(qtbot: Any, size: tuple[int, int]) -> None:
    chart: Any = chart_class("memory")()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(HYBRID_TP1)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    chart.relayout()
    vb, label = chart.plot.vb, chart.cap_label
    rect = scene_rect(label)
    line_y = vb.mapViewToScene(QPointF(0.0, chart.capacity / chart.stack.scale)).y()
    # resting on the line (above or below it), not in a band at the top
    assert min(abs(rect.bottom() - line_y), abs(rect.top() - line_y)) <= 2 * PAD
    assert not any(line.isVisible() for line in chart.leaders.lines)
    assert not any(rect.intersects(b) for b in chart._bodies())
    assert outside([label], vb) == []


def test_room_right_leaves_the_pixels_asked_for() -> None:
    # one bar 0.6 wide at 0, the view from -0.6: 70 px of a 212 px plot right of the bar
    r = room_right(70.0, 212.0, 1, 0.6)
    assert (r - 0.3) * 212.0 / (r + 0.6) == pytest.approx(70.0)
    assert room_right(0.0, 212.0, 1, 0.6) == pytest.approx(0.3)
