"""Nothing collides or is cut, at 1280 x 720, 1440 x 900 and 1920 x 1080,
with long names and a scenario that does not fit: chart labels inside their plot and off each
other, charts no wider than their tab, the headline and "GPUs needed" shown whole, and the GPU
dropdown as wide as its longest name. (Screenshots under Xvfb were looked at as well.)"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QApplication

from gpusizer.core.views.settings import CHARTS
from gpusizer.gui.charts.labels import outside, overlaps
from gpusizer.gui.main_window import MainWindow

from .helpers import find

LONG = {
    "model": {
        "preset": "llama-3.1-70b",
        "name": "Llama 3.1 70B Instruct (our long internal fine-tuned variant name)",
    },
    "workload": {"kind": "full_finetune", "sequence_length": 8192},
    "hardware": {"gpu": "rtx-pro-6000-blackwell-96gb"},
}
FITS = {
    "model": {"preset": "llama-3.2-1b"},
    "workload": {"kind": "full_finetune", "micro_batch_size": 4},
    "hardware": {"gpu": "h100-sxm-80gb"},
}
SERVE = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 1, "prompt_tokens": 32, "generated_tokens": 64},
    "hardware": {"gpu": "rtx-4090-24gb"},
}


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900), (1920, 1080)])
@pytest.mark.parametrize("scenario", [LONG, FITS, SERVE], ids=["long", "fits", "serve"])
def test_no_label_collides_or_is_cut(qtbot, size, scenario):
    w = MainWindow(scenario, restore=False)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    w.advisor.wait()
    kind = w.state.scenario.workload.info
    for key, view in CHARTS.items():
        if not view.applies_to(kind):  # a serving chart shows a hint for training
            continue
        w.tabs.select(key)
        QApplication.processEvents()
        chart = w.tabs.current_chart()
        assert chart is not None, key
        items = chart.annotations()
        assert overlaps(items) == [], (key, [i.toPlainText() for i in items])
        assert outside(items, chart.plot.vb) == [], (key, [i.toPlainText() for i in items])
        scene = chart.plot_widget.ci.geometry()
        assert scene.width() <= chart.plot_widget.width() + 1, key  # nothing pushed out
    for name in ("label_verdict", "label_needs", "label_context"):
        label = find(w, name)
        assert label.height() >= label.heightForWidth(label.width()), name  # never cut
    central = w.centralWidget()
    assert central is not None
    assert find(w, "summary").geometry().right() <= central.width()


def test_gpu_dropdown_is_as_wide_as_its_longest_name(window):
    combo = find(window, "combo_gpu")
    metrics = combo.view().fontMetrics()
    widest = max(metrics.horizontalAdvance(combo.itemText(i)) for i in range(combo.count()))
    assert combo.view().minimumWidth() >= widest
    assert any(
        "RTX PRO 6000 Blackwell Workstation Edition" in combo.itemText(i) for i in range(combo.count())
    )


def test_place_separates_labels_and_keeps_them_inside(qtbot):
    import pyqtgraph as pg

    from gpusizer.gui.charts.labels import place

    widget = pg.PlotWidget()
    qtbot.addWidget(widget)
    widget.resize(500, 300)
    widget.show()
    qtbot.waitExposed(widget)
    widget.setXRange(0, 10, padding=0)
    widget.setYRange(0, 10, padding=0)
    items = []
    for x in (5.0, 5.0, 5.2, 9.9):  # three on one spot, one past the right edge
        item = pg.TextItem("a label of some width", anchor=(0, 0))
        widget.addItem(item)
        item.setPos(x, 5.0)
        items.append(item)
    vb = widget.getPlotItem().vb
    assert overlaps(items) and outside(items, vb)  # the checks see the problem
    place(items, vb)
    assert overlaps(items) == [] and outside(items, vb) == []
