"""The RL step chart's time axis (gui/charts/time_axis.py): at 1024 x 700 the colocated
Qwen3-30B-A3B buyer case (a 3.0 h step) drew one tick text, "5000" (seconds), on its 115 px
wide plot: pyqtgraph drops a text past the axis's ends, where 0 and 10000 sat. Now at least
two texts, none touching, in the unit of the span (s, min, h, days)."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from gpusizer.core.views.rl_timeline import Segment, Timeline
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.tick_fit import GAP_PX
from gpusizer.gui.charts.tick_thin import readable
from gpusizer.gui.charts.time_axis import time_unit

from .helpers import shown_window
from .test_variant_ticks import _drawn

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"


def _texts_apart(drawn: list[tuple[Any, str]]) -> bool:
    """Every drawn text clear of the next by half the tick gap (one row of one-line texts)."""
    rects = sorted((r for r, _t in drawn), key=lambda r: r.left())
    return all(a.right() + GAP_PX / 2 <= b.left() for a, b in itertools.pairwise(rects))


def test_the_colocated_step_at_1024_reads_two_hours(qtbot: Any) -> None:
    case = json.loads((BUYER / "rl-qwen3-30b-a3b-colocated.gpusizer.json").read_text())
    w = shown_window(qtbot, case, (1024, 700))
    w.tabs.select("rl_timeline")
    chart = w.tabs.charts["rl_timeline"]
    qtbot.waitUntil(lambda: chart.has_data, timeout=60000)
    QApplication.processEvents()
    drawn = _drawn(chart)
    assert len(drawn) >= 2, drawn  # before: ["5000"]
    assert _texts_apart(drawn), drawn
    assert chart._axis_text["bottom"] == "hours from the step's start"


# (name, group, share of the step): every group, so the legend is as wide as the window's
PHASES = (
    ("rollout", "generation", 0.6),
    ("engine_sleep", "moves", 0.02),
    ("log_probs", "scoring", 0.08),
    ("training", "training", 0.25),
    ("weight_sync", "weights", 0.05),
)


def _timeline(step_s: float) -> Timeline:
    """A colocated step of ``step_s`` seconds, its phases one after another."""
    segments, start = [], 0.0
    for name, group, share in PHASES:
        segments.append(Segment(name, group, "shared", start, share * step_s))
        start += share * step_s
    return Timeline(segments=tuple(segments), lanes=("shared",), step_seconds=step_s, placement="colocated")


@pytest.mark.parametrize("step_s", [0.4, 7.0, 95.0, 2400.0, 10800.0, 40000.0, 400000.0])
@pytest.mark.parametrize("width", [420, 480, 533, 600])
def test_two_ticks_for_any_step(qtbot: Any, step_s: float, width: int) -> None:
    """Sub-second to days, the plot 59 px (a 420 px chart beside its legend) to 239 px wide;
    before, a 11.1 h step in the 59 px plot kept "5" alone (0 and 10 h sat at its ends)."""
    chart: Any = chart_class("rl_timeline")()
    qtbot.addWidget(chart)
    chart.resize(width, 279)
    chart.show()
    qtbot.waitExposed(chart)
    chart._show_data(_timeline(step_s))
    chart.has_data = True
    chart._redraw_then_relayout()
    QApplication.processEvents()
    chart.relayout()
    drawn = _drawn(chart)
    assert len(drawn) >= 2, (step_s, width, chart.plot.vb.width(), drawn)
    assert _texts_apart(drawn), drawn


def test_the_unit_is_the_largest_the_span_holds_two_of() -> None:
    assert time_unit(10800.0) == (3600.0, "hours")
    assert time_unit(5400.0) == (60.0, "minutes")  # 1.5 h: 0-80 min, not 0-1.5 h
    assert time_unit(95.0) == (1.0, "seconds")
    assert time_unit(0.4) == (1.0, "seconds")
    assert time_unit(3 * 86400.0) == (86400.0, "days")


def test_readable_leaves_out_the_ends_and_touching_neighbours() -> None:
    """Ticks 10 px apart, texts 12 px wide, the axis 55 px: 0 and 5 pass its ends (pyqtgraph
    would drop them), and of 1-4 every other one is clear of its neighbours."""
    ticks = [(float(v), str(v)) for v in range(6)]
    kept = readable([ticks], lambda v: 10.0 * v, lambda _t: 12.0, (0.0, 55.0))
    assert [t for _v, t in kept] == ["1", "3"]


def test_finer_step_is_the_next_1_2_5_step() -> None:
    from gpusizer.gui.charts.time_axis import finer_step

    assert [t for _v, t in finer_step([(0.0, "0"), (5.0, "5"), (10.0, "10")], 11.1)] == [
        "0",
        "2",
        "4",
        "6",
        "8",
        "10",
    ]
    assert [v for v, _t in finer_step([(0.0, "0"), (0.2, "0.2")], 0.5)] == pytest.approx(
        [0, 0.1, 0.2, 0.3, 0.4, 0.5]
    )
    assert [t for _v, t in finer_step([(0.0, "0"), (1.0, "1")], 2.0)] == ["0", "0.5", "1", "1.5", "2"]


@pytest.mark.parametrize("span", [0.0, -1.0, float("inf"), float("nan")])
def test_no_ticks_for_a_span_that_is_not_a_time(qtbot: Any, span: float) -> None:
    from PySide6.QtGui import QFontMetricsF

    from gpusizer.gui.charts.palette import FONT_PX, font
    from gpusizer.gui.charts.time_axis import time_ticks

    chart: Any = chart_class("rl_timeline")()
    qtbot.addWidget(chart)
    assert time_ticks(chart.plot, span, QFontMetricsF(font(FONT_PX))) == []
