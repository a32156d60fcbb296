"""Charts in the 1024 x 700 window's plot, about 280 px wide (screenshots looked at): the
Users vs context limit's label is whole inside the plot (it was cut after "2,81"), the Sweeps
chart's off-the-scale label wraps to the plot (it was cut after "up to"), and the Serving
features chart of an engine that never starts reads 0 tokens/s upwards (a (0, 0) range drew
-400 to 400 "x0.001")."""

from __future__ import annotations

import math
from itertools import pairwise
from typing import Any

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts.labels import scene_rect

# Llama 3.3 70B FP8 on one H100 under vLLM with EAGLE-3, split P/D: the pool holds a request
# of up to 2,816 tokens, not the 8,192 of max_context (the engine does not start)
NO_START: dict[str, Any] = {
    "model": {"preset": "llama-3.3-70b"},
    "framework": "vllm",
    "precision": {"weights": "fp8"},
    "workload": {"kind": "inference", "prompt_tokens": 3072, "generated_tokens": 512},
    "serving": {
        "max_context": 8192,
        "prefix": {"shared_tokens": 2048},
        "speculative": {"method": "eagle3"},
        "disaggregated": {"prefill_gpus": 2, "decode_gpus": 2},
    },
}
FULL_FT: dict[str, Any] = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "full_finetune", "sequence_length": 8192},
    "framework": "fsdp",
}


def _chart(qtbot: Any, cls: type, scenario: dict[str, Any], size: tuple[int, int]) -> Any:
    chart = cls()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(scenario)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    return chart


def _inside(chart: Any, item: Any) -> bool:
    area = chart.plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
    return bool(area.contains(scene_rect(item)))


@pytest.mark.parametrize("size", [(560, 240), (700, 300), (1000, 500)])
def test_the_context_limit_label_is_whole_inside_the_plot(qtbot, size) -> None:
    from gpusizer.gui.charts.capacity import CapacityChart

    chart = _chart(qtbot, CapacityChart, NO_START, size)
    assert chart.limit.isVisible()
    assert "2,816 tokens" in chart.limit.label.format.replace("\n", " ")
    assert _inside(chart, chart.limit.label), (size, chart.limit.label.format)


@pytest.mark.parametrize("size", [(560, 240), (1000, 500)])
def test_the_off_the_scale_label_wraps_to_the_plot(qtbot, size) -> None:
    from gpusizer.gui.charts.sweep import SweepChart

    chart = _chart(qtbot, SweepChart, FULL_FT, size)
    chart.relayout()
    assert chart.off_label.isVisible()
    assert _inside(chart, chart.off_label), size
    wide = size[0] >= 1000
    assert (chart.off_label.textItem.textWidth() < 0) == wide  # whole on one line where it fits


def test_a_features_chart_of_an_engine_that_never_starts_reads_from_zero(qtbot) -> None:
    from gpusizer.gui.charts.features import FeaturesChart

    chart = _chart(qtbot, FeaturesChart, NO_START, (560, 300))
    assert chart.data is not None and not any(chart.data.without)
    (lo, hi) = chart.plot.vb.viewRange()[1]
    assert lo == 0 and hi >= 1


@pytest.mark.parametrize("size", [(560, 240), (1000, 500)])
def test_the_sweeps_length_ticks_never_run_together(qtbot, size) -> None:
    """At 1024 px "256" and "512" touched ("256512"): the ticks are thinned to the width."""
    from PySide6.QtGui import QFontMetricsF

    from gpusizer.gui.charts.palette import FONT_PX, font
    from gpusizer.gui.charts.sweep import SweepChart

    chart = _chart(qtbot, SweepChart, FULL_FT, size)
    chart.relayout()
    ticks = chart._ticks[0]
    assert len(ticks) >= 3
    vb, metrics = chart.plot.vb, QFontMetricsF(font(FONT_PX))
    (lo, hi), width = vb.viewRange()[0], vb.width()
    for (a, left), (b, right) in pairwise(ticks):
        gap = (b - a) * width / (hi - lo)
        assert gap >= (metrics.horizontalAdvance(left) + metrics.horizontalAdvance(right)) / 2, (left, right)


@pytest.mark.parametrize("size", [(560, 300), (1000, 500)])
def test_the_roofline_labels_are_whole_inside_a_narrow_plot(qtbot, size) -> None:
    """At 1024 px the decode step's label ("decode: norms, mlp, lm_head, qkv, ...") ran past
    the plot's right edge: a label wider than the plot is wrapped to it (labels.py ``place``)."""
    from gpusizer.gui.charts.labels import outside, visible_texts
    from gpusizer.gui.charts.roofline import RooflineChart

    chart = _chart(qtbot, RooflineChart, FULL_FT, size)
    chart.relayout()
    texts = visible_texts(chart.plot)
    steps = [t for t in texts if t in chart.step_labels.values()]
    assert steps  # the step labels are shown
    assert outside(steps, chart.plot.vb) == [], size


def test_the_users_point_label_stays_beside_its_point_through_resizes(qtbot) -> None:
    """Laid out again on every resize, the label started from where the last layout left it
    and drifted to the plot's far right; it now starts at its point each time."""
    from gpusizer.gui.charts.capacity import CapacityChart

    chart = _chart(qtbot, CapacityChart, NO_START, (1000, 500))
    for size in ((560, 240), (900, 420), (1000, 500)):
        chart.resize(*size)
        QApplication.processEvents()
        chart.relayout()
    label, vb, c = chart.point_label, chart.plot.vb, chart.curve_data
    assert label.isVisible() and label.toPlainText().strip() == "your 1 user × 3,584 tokens"
    at = vb.mapViewToScene(QPointF(math.log10(c.context), math.log10(c.concurrency)))
    rect = scene_rect(label)
    assert abs(rect.left() - at.x()) < 40 and abs(rect.bottom() - at.y()) < 40, (rect, at)
