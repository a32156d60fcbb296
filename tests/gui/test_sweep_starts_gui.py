"""The Sweeps chart's headline agrees with the summary where the engine does not start: it
said "every prompt length up to 131,072 fits" beside "vLLM does not start" (the scenario and
its arithmetic: tests/core/test_sweep_starts.py)."""

from __future__ import annotations

from typing import Any

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from tests.core.test_sweep_starts import EAGLE_70B


def test_the_headline_says_the_engine_does_not_start(qtbot):
    chart: Any = chart_class("sweep")()
    qtbot.addWidget(chart)
    chart.resize(1000, 620)
    s = parse_scenario(EAGLE_70B)
    chart.update_from(s, estimate(s))
    text = chart.fit_text()
    assert text.startswith("the engine does not start from"), text
    assert "fits" not in text
    assert not any(row[-1] for row in chart.data_rows()[1:])  # the data's "fits" column
    assert chart.boundary.isVisible()
    assert chart.boundary.label.format.strip().startswith("the engine does not start from")
