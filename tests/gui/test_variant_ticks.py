"""The Training vs inference chart's bar names at the width the chart has in a 1024 px window
(~550 px): pyqtgraph drew them centred under their bars regardless of their neighbours
("LoRAQLoRA", "InferenceInference"); now every name is drawn and none touches another
(gui/charts/tick_fit.py)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtGui import QImage, QPainter
from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.tick_fit import GAP_PX, fitted_ticks, short_names

H100_8B = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def _drawn(chart: Any) -> list[tuple[Any, str]]:
    """(rect, text) of each tick text the bottom axis draws."""
    axis = chart.plot.getAxis("bottom")
    img = QImage(10, 10, QImage.Format.Format_ARGB32)
    p = QPainter(img)
    try:
        p.setFont(axis.style.get("tickFont") or axis.font())
        _axis, _ticks, texts = axis.generateDrawSpecs(p)
    finally:
        p.end()
    return [(rect, text) for rect, _flags, text in texts]


@pytest.mark.parametrize("width", [420, 550, 820])
def test_every_bar_name_is_drawn_and_none_touches_another(qtbot, width):
    chart: Any = chart_class("variants")()
    qtbot.addWidget(chart)
    chart.resize(width, 420)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(H100_8B)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    chart.relayout()
    drawn = _drawn(chart)
    assert len(drawn) == len(chart.cmp.bars)  # none left out at the axis ends
    # names on one text row (the same number of leading blank lines) never touch
    for i, (a, ta) in enumerate(drawn):
        for b, tb in drawn[i + 1 :]:
            if _depth(ta) == _depth(tb):
                assert a.right() + GAP_PX / 2 <= b.left(), (ta, tb)


def _depth(text: str) -> int:
    return len(text) - len(text.lstrip("\n"))


def test_the_forms_in_order() -> None:
    """Two lines where they fit the pitch; one short line staggered; two lines staggered."""
    width = len  # one pixel a character
    labels = ["Inference FP16", "Inference FP8"]
    shorts = short_names(labels, ["inference", "inference"], ["FP16", "FP8"])
    assert shorts == ["Inference FP16", "FP8"]
    assert fitted_ticks(labels, shorts, 20, width) == (["Inference\nFP16", "Inference\nFP8"], 2)
    assert fitted_ticks(labels, shorts, 14, width) == (["Inference FP16", "\nFP8"], 2)
    three = [*labels, "Inference INT4"]
    assert fitted_ticks(three, three, 8, width) == (
        ["Inference\nFP16", "\n\nInference\nFP8", "Inference\nINT4"],
        4,
    )


def test_short_names_in_more_rows_where_no_form_clears() -> None:
    """A plot squeezed by its legend (the llama.cpp buyer case at 1024 x 700: 229 px, bars
    ~28 px apart): the staggered two-line form ran "Pre-training" into "LoRA"; the short
    names then take three or four rows, each row's neighbours clear."""
    width = len  # one pixel a character
    labels = ["Pre-training", "Full fine-tune", "LoRA", "QLoRA", "Inference FP16", "Inference FP8"]
    shorts = short_names(labels, ["pt", "ft", "lora", "qlora", "inf", "inf"], ["", "", "", "", "FP16", "FP8"])
    texts, lines = fitted_ticks(labels, shorts, 5, width)
    assert lines == 4 and texts == [
        "Pre-training",
        "\nFull fine-tune",
        "\n\nLoRA",
        "\n\n\nQLoRA",
        "Inference FP16",
        "\nFP8",
    ]
    # wider, three rows do: Pre-training and QLoRA three pitches apart
    assert fitted_ticks(labels[:4], shorts[:4], 5, width) == (
        ["Pre-training", "\nFull fine-tune", "\n\nLoRA", "QLoRA"],
        3,
    )
