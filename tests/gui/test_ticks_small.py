"""The Serving-features chart's users axis at 1024 x 700 (DeepSeek-V3 split P/D, a plot about
150 px wide): its labels "1 2 4 ... 256" ran together; every k-th now shows, the smallest k
whose labels keep apart (charts/ticks.py). Screenshots before and after were looked at."""

from __future__ import annotations

import itertools
import math
from typing import Any

from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QApplication

from gpusizer.gui.charts.palette import FONT_PX, font
from gpusizer.gui.charts.sweep import log2_ticks
from gpusizer.gui.charts.ticks import thinned

from .helpers import shown_window
from .test_window_small import DSV3_PD


def _spaced(ticks: list[tuple[float, str]], px_per_unit: float) -> bool:
    metrics = QFontMetricsF(font(FONT_PX))
    widest = max(metrics.horizontalAdvance(label) for _, label in ticks)
    return all((b[0] - a[0]) * px_per_unit >= widest for a, b in itertools.pairwise(ticks))


def test_thinning_keeps_every_tick_where_they_fit_and_the_last_always(qapp) -> None:
    ticks = log2_ticks(1, 256)  # 9 ticks, log10(2) = 0.30 units apart
    assert thinned(ticks, 1000.0) == ticks  # 301 px apart
    few = thinned(ticks, 150 / math.log10(256))  # the 1024 x 700 plot: 19 px apart
    assert 2 <= len(few) < len(ticks) and few[-1] == ticks[-1]
    assert _spaced(few, 150 / math.log10(256))


def test_the_pd_features_axis_keeps_its_labels_apart_at_1024x700(qtbot) -> None:
    w = shown_window(qtbot, DSV3_PD, (1024, 700))
    w.tabs.select("features")
    chart: Any = w.tabs.current_chart()
    assert chart is not None and chart.wait_settled()
    for _ in range(5):
        QApplication.processEvents()
    chart.relayout()
    (lo, hi), width = chart.plot.vb.viewRange()[0], chart.plot.vb.width()
    shown = chart.plot.getAxis("bottom")._tickLevels[0]
    # thinned where they would touch; all kept where the plot has room (470 px since the
    # window shares its height with the charts first), the last always
    assert shown and shown[-1] == chart.x_ticks[-1], (width, shown)
    assert _spaced(shown, width / (hi - lo))
