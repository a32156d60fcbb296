"""The Serving features chart where the engine starts at no user count (gui/charts/features.py
``_empty_state``): the note says why, and the tokens/s axis, its 0-1 range a scale of nothing,
the flat curves on 0 and their legend are hidden (docs/evidence/advice.md, "The window, a
visual pass 2"); a chart whose engine starts keeps its axis, curves and legend."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario

from .test_chart_labels import make
from .test_guipolish5_window import NO_START, STARTS


def _axis(chart):
    return chart.plot.getAxis("left")


def test_no_start_hides_the_tokens_axis(qtbot) -> None:
    chart = make(qtbot, "features", NO_START, (880, 330))
    assert chart.note.isVisible()
    assert _axis(chart)._tickLevels == [[]] and _axis(chart).labelText == ""
    drawn = (chart.with_curve, chart.without_curve, chart.split_curve, chart.legend)
    assert not any(item.isVisible() for item in drawn)
    # the users' axis stays: the note speaks of "these user counts"
    assert chart.plot.getAxis("bottom").labelText == "users (steady, per replica)"


def test_a_started_engine_gets_its_axis_back(qtbot) -> None:
    chart = make(qtbot, "features", NO_START, (880, 330))
    s = parse_scenario(STARTS)
    chart.update_from(s, estimate(s))
    QApplication.processEvents()
    assert not chart.note.isVisible()
    assert _axis(chart)._tickLevels is None and _axis(chart).labelText == "output tokens/s"
    assert chart.with_curve.isVisible() and chart.without_curve.isVisible() and chart.legend.isVisible()
