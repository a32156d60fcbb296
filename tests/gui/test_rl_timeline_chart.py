"""The RL step chart (gui/charts/rl_timeline.py): one lane colocated with the moves between
phases, two lanes split; the bars end where the step does."""

from __future__ import annotations

import pytest

from gpusizer.cli import main
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class

from .test_charts import RL_7B


def _chart(qtbot, **rl):
    chart = chart_class("rl_timeline")()
    qtbot.addWidget(chart)
    chart.resize(1000, 620)
    s = parse_scenario({**RL_7B, "rl": {**RL_7B["rl"], **rl}})
    est = estimate(s)
    chart.update_from(s, est)
    return chart, est.rl


def _ends(chart) -> list[float]:
    out = []
    for item in chart.bars.values():
        x0, w = item.opts["x0"], item.opts["width"]
        out += [a + b for a, b in zip(x0, w, strict=True)]
    return out


def test_colocated_is_one_lane_with_the_moves(qtbot):
    chart, rl = _chart(qtbot)
    assert chart.data.lanes == ("shared",)
    assert max(_ends(chart)) == pytest.approx(rl["time_per_step_seconds"])
    assert chart.bars["moves"].isVisible()  # engine sleep / wake, states to and from host
    names = [r[0] for r in chart.data_rows()[1:]]
    assert names[:2] == ["rollout", "engine_sleep"] and names[-1] == "weight_sync"
    assert "sleep, wake and state moves" in chart._title_text


def test_split_overlaps_on_two_lanes(qtbot):
    chart, rl = _chart(qtbot, placement="split", rollout={**RL_7B["rl"]["rollout"], "gpus": 8})
    assert chart.data.lanes == ("rollout", "training")
    assert not chart.bars["moves"].isVisible()
    assert max(_ends(chart)) == pytest.approx(rl["time_per_step_seconds"])
    starts = {r[0]: r[3] for r in chart.data_rows()[1:]}
    assert starts["rollout"] == starts["log_probs"] == 0.0  # the pools run at once


def test_other_kinds_get_one_line_refusal(tmp_path, capsys):
    path = tmp_path / "lora.gpusizer.json"
    path.write_text('{"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}')
    assert main(["chart", str(path), "--kind", "rl_timeline", "--output", str(tmp_path / "x.png")]) == 2
    assert "RL post-training" in capsys.readouterr().err
