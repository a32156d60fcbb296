"""Two chart texts lost at 1024 x 700 (the charts about 550 x 270 px there): the Serving
features chart's last users' tick ("64"), centred 3 % inside its axis, ran past the axis's end
and pyqtgraph dropped it (AxisItem.generateDrawSpecs); the memory chart's grey budget line
("SGLang budget (weights + pool): …") found no room for its words beside one serving bar and
went unnamed. Now the users' range keeps half the last count's text on the right
(charts/features.py) and the budget's words are tried short, two lines, before they are left
out (charts/memory_labels.py)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QImage, QPainter

from gpusizer.gui.charts.labels import scene_rect

from .test_chart_labels import make

SGLANG = {
    "model": {"preset": "gpt-oss-120b"},
    "framework": "sglang",
    "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 1024},
    "serving": {"max_context": 8192},
    "targets": {"users": 64, "max_ttft_seconds": 2.0, "min_tokens_per_second_per_user": 30},
    "hardware": {"gpu": "h100-sxm-80gb", "gpus_per_node": 8},
}


def _drawn(axis: Any) -> list[str]:
    """The tick texts pyqtgraph draws on ``axis`` (its own draw specs, those it keeps)."""
    image = QImage(10, 10, QImage.Format.Format_ARGB32)
    painter = QPainter(image)
    try:
        specs = axis.generateDrawSpecs(painter)
    finally:
        painter.end()
    return [text for _, _, text in specs[2]] if specs else []


@pytest.mark.parametrize("size", [(550, 270), (900, 420)])
def test_the_last_users_tick_is_drawn(qtbot, size: tuple[int, int]) -> None:
    chart = make(qtbot, "features", SGLANG, size)
    chart.relayout()
    drawn = _drawn(chart.plot.getAxis("bottom"))
    assert chart.x_ticks[-1][1] == "64" and "64" in drawn, drawn


def test_the_budget_line_keeps_its_words_at_1024(qtbot) -> None:
    chart = make(qtbot, "memory", SGLANG, (550, 270))
    budget = chart.pool.budget_label
    assert chart.pool.budget_line.isVisible() and budget.isVisible()
    assert budget.toPlainText().startswith("SGLang budget")
    area = chart.plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    assert area.contains(scene_rect(budget))
    big = make(qtbot, "memory", SGLANG, (1000, 620))  # room: the full words, as before
    assert big.pool.budget_label.toPlainText().startswith("SGLang budget (weights + pool): ")
