"""The Roofline chart at the size it has in the window at 1024 x 700 (530 x 300 px, a plot of
244 x 170 px): before, the step labels with the operations' names ("decode step
(memory-bound) / prefill: lm_head, norms / decode: norms, mlp, ...") ran over the stars and
across the roofs in the training and DeepSeek-V3 buyer cases (screenshots looked at); now the
labels shorten (the star's tooltip gives what they leave out) until none lies over a star, a
roof or another label."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF, QRectF
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts.labels import crosses, outside, overlaps, scene_rect, visible_texts
from gpusizer.gui.charts.roofline_labels import log_xy

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"
CASES = [
    "full-ft-8b-8k-1b-week",
    "serve-deepseek-v3-pd",
    "rl-qwen3-30b-a3b-colocated",
    "serve-70b-chat",
]
STAR_PX = 11.0  # half the star's 22 px symbol (roofline.py)


def _chart(qtbot: Any, case: str, size: tuple[int, int]) -> Any:
    from gpusizer.gui.charts.roofline import RooflineChart

    chart = RooflineChart()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(json.loads((BUYER / f"{case}.gpusizer.json").read_text()))
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    chart.relayout()
    return chart


def _stars(chart: Any) -> list[QRectF]:
    vb, out = chart.plot.vb, []
    for p in chart.data["points"]:
        if p["name"] == "step":
            c = vb.mapViewToScene(QPointF(*log_xy(p)))
            out.append(QRectF(c.x() - STAR_PX, c.y() - STAR_PX, 2 * STAR_PX, 2 * STAR_PX))
    return out


@pytest.mark.parametrize("size", [(530, 300), (530, 260), (560, 300), (900, 450)])
@pytest.mark.parametrize("case", CASES)
def test_no_label_lies_over_a_star_or_across_a_roof(qtbot, case, size) -> None:
    chart = _chart(qtbot, case, size)
    texts = visible_texts(chart.plot)
    assert any(t in chart.step_labels.values() for t in texts)  # the steps stay labelled
    stars, roofs = _stars(chart), chart._roof_segments()
    for t in texts:
        r = scene_rect(t)
        assert not any(r.intersects(s) for s in stars), (case, size, t.toPlainText())
        assert not any(crosses(seg, r) for seg in roofs), (case, size, t.toPlainText())
    assert overlaps(texts) == [], (case, size)
    assert outside(texts, chart.plot.vb) == [], (case, size)


def test_a_shortened_step_label_leaves_the_operations_to_the_stars_tooltip(qtbot) -> None:
    """At 530 x 300 the training case's prefill step label is "prefill step": the operations
    drawn at its star (mlp, qkv, out_proj) and the bound are in the star's tooltip."""
    chart = _chart(qtbot, "full-ft-8b-8k-1b-week", (530, 300))
    label = chart.step_labels["prefill"].toPlainText()
    assert "mlp" not in label
    step = chart.points("prefill", step=True)[0]
    tip = chart.tooltip_at(*log_xy(step))
    assert "compute-bound" in tip and "at this point: " in tip and "mlp" in tip, tip


def test_a_wide_plot_keeps_the_names_at_the_star(qtbot) -> None:
    """With room (1400 x 900: a 614 x 337 px plot) the step label still names its operations."""
    chart = _chart(qtbot, "full-ft-8b-8k-1b-week", (900, 450))
    assert "mlp" in chart.step_labels["prefill"].toPlainText()
    assert "bound" in chart.step_labels["prefill"].toPlainText()
