"""The RL step chart names a segment on its bar only where the name fits inside it
(gui/charts/rl_timeline.py): at 1,400 x 900 the "log probs" name of a 14 % segment ran over
the rollout and training bars beside it (buyer file rl-qwen3-8b-colocated-500)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.gui.charts import chart_class
from gpusizer.io.scenario_file import load_scenario

BUYER = Path(__file__).parents[1] / "cli" / "data" / "buyer"


def _chart(qtbot, width: int):
    chart = chart_class("rl_timeline")()
    qtbot.addWidget(chart)
    chart.resize(width, 420)
    chart.show()
    qtbot.waitExposed(chart)
    s = load_scenario(BUYER / "rl-qwen3-8b-colocated-500.gpusizer.json")
    chart.update_from(s, estimate(s))
    return chart


def _overruns(chart) -> list[str]:
    """Names shown wider than their bar, in pixels."""
    px = chart.plot.vb.viewPixelSize()[0]
    out = []
    for label, seconds in chart._named:
        if label.isVisible() and label.textItem.boundingRect().width() > seconds / px:
            out.append(label.toPlainText())
    return out


@pytest.mark.parametrize("width", [500, 880, 1400])
def test_no_name_runs_over_its_bar(qtbot, width):
    chart = _chart(qtbot, width)
    assert chart._named  # the rollout, log-prob and training segments are long enough to name
    assert _overruns(chart) == []


def test_the_long_rollout_keeps_its_name(qtbot):
    chart = _chart(qtbot, 880)
    shown = [label.toPlainText() for label, _s in chart._named if label.isVisible()]
    assert "rollout" in shown  # 66 % of the step: wide enough at any window size


def test_a_wider_chart_names_the_scoring_again(qtbot):
    """Hidden names come back when the chart widens (laid out again on a resize)."""
    chart = _chart(qtbot, 500)
    names = {label.toPlainText(): label for label, _s in chart._named}
    assert not names["log probs"].isVisible()
    chart.resize(3000, 420)
    qtbot.waitUntil(lambda: names["log probs"].isVisible(), timeout=5000)
