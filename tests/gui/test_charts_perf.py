"""Charts are created once and then only updated (speed lives in benchmarks/bench_charts.py)."""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario

from .helpers import make_sweep_chart


@pytest.fixture
def sweep_chart(qtbot):
    return make_sweep_chart(qtbot)


def test_new_estimate_redraws_without_rebuilding(sweep_chart, monkeypatch):
    # Items are created once: a new estimate updates them and never adds to the scene.
    chart = sweep_chart
    before = len(chart.plot.items)
    calls = []
    monkeypatch.setattr(chart.legend, "clear", lambda: calls.append("clear"))
    s = parse_scenario(
        {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora", "micro_batch_size": 2}}
    )
    chart.update_from(s, estimate(s))
    assert len(chart.plot.items) == before
    assert not calls  # same entries: the legend is relabelled, not rebuilt
