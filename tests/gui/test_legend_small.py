"""A chart's legend where the chart is both narrow and short (charts/items.py ``LegendSlot``):
at 1024 x 700 the RL-step chart (about 533 x 280 px) kept a 52 px wide plot beside its 370 px
legend, and under a taller summary the legend's last entry was cut. It now goes under the plot
in a smaller font where that leaves the plot more area, and at the right it shrinks its font
where its entries are taller than the chart. At 1400 x 900 nothing changes. Screenshots of
both sizes were looked at."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from gpusizer.gui.charts.palette import LABEL_PX

from .helpers import shown_window
from .test_window_small import NEMO_ASYNC


def _rl_chart(qtbot: Any, size: tuple[int, int]) -> Any:
    w = shown_window(qtbot, NEMO_ASYNC, size)
    w.tabs.select("rl_timeline")
    for _ in range(5):
        QApplication.processEvents()
    chart: Any = w.tabs.current_chart()
    assert chart is not None and len(chart.legend.items) == 5
    return chart


def test_the_rl_step_legend_leaves_its_plot_room_at_1024x700(qtbot) -> None:
    chart = _rl_chart(qtbot, (1024, 700))
    assert chart.slot.below and chart.legend.px < LABEL_PX
    assert chart.plot.vb.width() >= 300, chart.plot.vb.geometry()  # was 52 px
    assert chart.plot.vb.height() >= 40, chart.plot.vb.geometry()
    bottom = chart.legend.mapRectToScene(chart.legend.boundingRect()).bottom()
    assert bottom <= chart.plot_widget.height() + 1  # every entry shows
    before = (chart.slot.below, chart.legend.px)
    chart._arrange_legend()  # measured at full size while shown small: it stays put
    assert (chart.slot.below, chart.legend.px) == before


def test_the_rl_step_legend_sits_under_the_plot_at_1400x900(qtbot) -> None:
    # its font is unchanged; its place moved under the time line, which beside it kept about
    # 420 px (rl_timeline.MIN_PLOT_BESIDE_LEGEND_PX; before: at the right); at 1920 x 1080
    # it stays at the right
    chart = _rl_chart(qtbot, (1400, 900))
    assert chart.slot.below and chart.legend.px == LABEL_PX
    assert not _rl_chart(qtbot, (1920, 1080)).slot.below


@pytest.mark.parametrize(("height", "expected"), [(180.0, (False, 11)), (600.0, (False, LABEL_PX))])
def test_a_legend_at_the_right_shrinks_where_it_is_taller_than_the_chart(qtbot, height, expected) -> None:
    """533 px wide: under the plot would leave it no height at 180 px, so the legend stays at
    the right, in the small font (its 5 entries at 14 px were cut); 1000 x 600 px, it keeps
    its place and its font."""
    chart = _rl_chart(qtbot, (1400, 900))
    width = 533.0 if height < 300 else 1000.0
    assert chart.slot.arrange(chart.legend, width, height, 48.0) == expected
