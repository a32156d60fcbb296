"""Labels off the lines and off each other, as the 1024 x 700 and 1400 x 900 windows showed
them (screenshots looked at): the memory bar's "short to start by 1.8 GiB" of a 70B with its
EAGLE-3 draft on one H100 sat on the dashed capacity line (the bar ends 6 GiB under it, its
three-line label did not), and the Training vs inference value labels crowded each other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPointF
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.labels import PAD, outside, overlaps, scene_rect
from gpusizer.gui.charts.over_line import crossed, line_px

# Llama 3.3 70B FP8 with EAGLE-3 on one H100 under vLLM: 73.3 GiB against 79.6 GiB usable,
# and the engine does not start (1.8 GiB short: the draft's weights leave too small a pool)
EAGLE_1GPU: dict[str, Any] = {
    "model": {"preset": "llama-3.3-70b"},
    "framework": "vllm",
    "precision": {"weights": "fp8"},
    "hardware": {"gpu": "h100-sxm-80gb"},
    "workload": {"kind": "inference", "prompt_tokens": 3072, "generated_tokens": 512},
    "serving": {"max_context": 8192, "prefix": {"shared_tokens": 2048}, "speculative": {"method": "eagle3"}},
}
BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"
# seven bars whose labels met at 1024 px: "175 GiB / 3 GPUs" beside "175 GiB / 3 GPUs"
TRAINING = BUYER / "full-ft-8b-8k-1b-week.gpusizer.json"
RL = BUYER / "rl-qwen3-30b-a3b-colocated.gpusizer.json"  # 547 GiB bars beside 15.6 GiB ones
SIZES = [(820, 420), (550, 230)]  # the chart in the 1400 x 900 window, in the 1024 x 700 one


def make(qtbot: Any, kind: str, data: dict[str, Any], size: tuple[int, int]) -> Any:
    chart = chart_class(kind)()
    qtbot.addWidget(chart)
    chart.resize(*size)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(data)
    chart.update_from(s, estimate(s))
    assert chart.wait_settled()
    QApplication.processEvents()
    chart.relayout()
    return chart


@pytest.mark.parametrize("size", SIZES)
def test_short_to_start_label_is_off_the_capacity_line(qtbot, size):
    chart = make(qtbot, "memory", EAGLE_1GPU, size)
    labels = [x for x in chart.bar_labels if x.isVisible()]
    text = " ".join(x.toPlainText() for x in labels)
    assert "short to start" in text
    y = chart.capacity / chart.stack.scale
    assert crossed(labels, chart.plot.vb, y) == []
    # above it, not beside it: the bar ends 6 GiB under the line, too little for the label
    at = line_px(chart.plot.vb, y)
    assert all(scene_rect(x).bottom() <= at - PAD + 0.5 for x in labels)
    assert overlaps([*labels, chart.cap_label]) == []
    assert outside([*labels, chart.cap_label], chart.plot.vb) == []


# 480 x 280, not 200: a 480 x 200 chart kept its labels only by overflowing (the plot ran
# from 97 to 241 px, its bar names cut); in 200 px its title, 9-entry legend and 3-line bar
# names cannot fit. The window gives its chart tabs 300 px where it can (gui/window_body.py
# CHARTS_MIN_PX).
SHORT = (480, 280)


@pytest.mark.parametrize("size", [(820, 420), (550, 230), SHORT])
@pytest.mark.parametrize("path", [TRAINING, RL], ids=["training", "rl"])
def test_variant_labels_stand_apart_above_their_own_bars(qtbot, path, size):
    chart = make(qtbot, "variants", json.loads(path.read_text()), size)
    vb = chart.plot.vb
    labels = chart.bar_labels[: len(chart.cmp.bars)]
    assert all(x.isVisible() for x in labels)
    assert overlaps(labels) == []
    assert outside(labels, vb) == []
    for i, label in enumerate(labels):  # straight above its bar, not carried over another
        rect, bar = scene_rect(label), vb.mapViewToScene(QPointF(i, 0))
        assert rect.left() <= bar.x() <= rect.right(), (i, label.toPlainText())
    for line in (chart.gpu_line, chart.node_line):  # no dashed line through a label
        if line.isVisible():
            assert crossed(labels, vb, line.value()) == [], line.label.toPlainText()


def test_short_plot_labels_give_the_whole_label_on_hover(qtbot):
    chart = make(qtbot, "variants", json.loads(RL.read_text()), SHORT)
    assert chart.short_labels
    label = chart.bar_labels[0]
    assert label.toPlainText().strip() == "7 GPUs"
    centre = chart.plot.vb.mapSceneToView(scene_rect(label).center())
    # 548 GiB before the 2026-12-06 merges (training memory rules read at their sources)
    assert chart.tooltip_at(centre.x(), centre.y()) == "Pre-training: 547 GiB, 7 GPUs"


def test_two_memory_bars_labels_in_rows_clear_of_the_bars(qtbot):
    """A full fine-tune's "all parts" and "at peak" bars at the 1024 px plot (~220 px wide):
    their 3- and 4-line labels were nudged down over the bars, hiding them."""
    chart = make(qtbot, "memory", json.loads(TRAINING.read_text()), (550, 300))
    labels = [x for x in chart.bar_labels if x.isVisible()]
    assert len(labels) == 2
    assert overlaps(labels) == []
    assert outside(labels, chart.plot.vb) == []
    bodies = chart._bodies()
    assert not any(scene_rect(x).intersects(b) for x in labels for b in bodies)
    assert crossed(labels, chart.plot.vb, chart.capacity / chart.stack.scale) == []


@pytest.mark.parametrize("size", [(820, 420), (550, 240)])
def test_never_starts_reason_is_whole_inside_the_plot(qtbot, size):
    """DeepSeek-V3 under SGLang on H100s, whose engine starts at no context: the reason was
    set 200 px wide before the plot had its size and ran past the 1024 px plot's top and
    bottom, its headline cut off."""
    data = json.loads((BUYER / "serve-deepseek-v3-pd.gpusizer.json").read_text())
    chart = make(qtbot, "capacity", data, size)
    assert chart.never_starts() and chart.note.isVisible()
    assert "does not start" in chart.note.toPlainText()
    assert outside([chart.note], chart.plot.vb) == []


def test_two_memory_bars_both_named_under_a_narrow_plot(qtbot):
    """pyqtgraph drops a tick text that meets its neighbour or runs past the axis' end: at the
    1024 px plot "at peak (backward)" went unnamed; there it takes two lines."""
    chart = make(qtbot, "memory", json.loads(TRAINING.read_text()), (500, 300))
    assert chart.plot.vb.width() < 230  # as in the 1024 x 700 window
    axis = chart.plot.getAxis("bottom")
    texts = [t for _x, t in axis._tickLevels[0]]
    assert texts == ["all\nparts", "at peak\n(backward)"]
    wide = make(qtbot, "memory", json.loads(TRAINING.read_text()), (1000, 420))
    assert [t for _x, t in wide.plot.getAxis("bottom")._tickLevels[0]] == ["all parts", "at peak (backward)"]


def test_a_squeezed_legend_with_no_room_under_the_plot_shrinks_beside_it(qtbot):
    """The colocated RL step at 1024 x 700 under a taller summary: 533 x 277 px, a 48 px
    title; under the plot the legend would leave it 39 px, so it stayed at the right at 14 px
    and the plot kept 52 px of width. It now stays there in the small font (plot ~120 px)."""
    from gpusizer.gui.charts.items import LegendSlot

    data = json.loads(RL.read_text())
    chart = make(qtbot, "rl_timeline", data, (1000, 600))
    assert len(chart.legend.items) == 5
    assert chart.slot.arrange(chart.legend, 533.0, 277.0, 48.0) == (False, LegendSlot.SMALL_PX)
