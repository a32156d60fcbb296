"""The Hardware table in a narrow window (gui/hardware/narrow.py) and the RL step's legend
under a narrow time line (gui/charts/rl_timeline.py). At 1366 x 768 the table of an RL split
case scrolled its 12 columns and the legend left the time line 390 px beside it
(docs/evidence/surfaces.md, the 1366 screenshots)."""

from __future__ import annotations

from typing import Any

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.views import HardwareView
from gpusizer.core.views.settings import DEFAULT_HIDDEN_COLUMNS
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.hardware import HardwareChart
from gpusizer.gui.hardware.narrow import NARROW_HIDDEN_PD, NARROW_HIDDEN_RL, NARROW_TABLE_PX, narrow_hidden
from gpusizer.io.compare_columns import COLUMNS

from .test_charts import RL_7B
from .test_hardware_rl import GRPO_8B

SPLIT: dict[str, Any] = {
    **GRPO_8B,
    "rl": {"algorithm": "grpo", "steps": 200, "placement": "split", "rollout": {"gpus": 8}},
}


def test_the_compact_sets_are_registry_columns() -> None:
    keys = {c.key for c in COLUMNS}
    assert set(NARROW_HIDDEN_RL) <= keys and set(NARROW_HIDDEN_PD) <= keys
    # the key columns stay: the step, the run and its cost; the P/D's other answer
    assert not {"rl_time_per_step_seconds", "rl_run_seconds", "training_cost"} & set(NARROW_HIDDEN_RL)
    assert not {"pd_other_answer", "pd_other_cost_per_million_tokens"} & set(NARROW_HIDDEN_PD)


def test_only_a_narrow_rl_or_pd_table_hides_more() -> None:
    base = DEFAULT_HIDDEN_COLUMNS
    assert narrow_hidden(base, NARROW_TABLE_PX, rl=True, pd=False) == base  # wide: as before
    assert narrow_hidden(base, 600, rl=False, pd=False) == base  # train, serve: as before
    assert set(narrow_hidden(base, 600, rl=True, pd=False)) == set(base) | set(NARROW_HIDDEN_RL)
    assert set(narrow_hidden(base, 600, rl=False, pd=True)) == set(base) | set(NARROW_HIDDEN_PD)


def _shown(chart: HardwareChart) -> set[str]:
    return {c.key for i, c in enumerate(chart.model.columns) if not chart.table.isColumnHidden(i)}


def test_the_table_drops_the_compact_set_when_narrow(qtbot: Any) -> None:
    chart = HardwareChart()  # no background: searched in place
    qtbot.addWidget(chart)
    chart.set_view(HardwareView(vendor="NVIDIA"))
    chart.resize(880, 560)  # the tab's width in a 1366 x 768 window
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(SPLIT)
    chart.update_from(s, estimate(s))
    assert chart._table_room() < NARROW_TABLE_PX
    assert not _shown(chart) & set(NARROW_HIDDEN_RL)
    assert {"gpu_name", "rl_time_per_step_seconds", "rl_run_seconds", "training_cost"} <= _shown(chart)
    chart.resize(1900, 560)  # wide: every default column again
    qtbot.waitUntil(lambda: chart._table_room() >= NARROW_TABLE_PX)
    assert set(NARROW_HIDDEN_RL) <= _shown(chart)
    chart.resize(880, 560)
    qtbot.waitUntil(lambda: not _shown(chart) & set(NARROW_HIDDEN_RL))
    chart.table._toggle("purchase_cost", True)  # the column menu shows one again: kept
    chart.resize(1900, 560)
    chart.resize(880, 560)
    assert "purchase_cost" in _shown(chart)


def _timeline(qtbot: Any, width: int) -> Any:
    chart = chart_class("rl_timeline")()
    qtbot.addWidget(chart)
    chart.resize(width, 400)  # the RL step tab at 1366 x 768 is about 870 x 400 px
    s = parse_scenario({**RL_7B, "rl": {**RL_7B["rl"], "placement": "split", "rollout": {"gpus": 8}}})
    chart.update_from(s, estimate(s))
    chart.show()
    qtbot.waitExposed(chart)
    return chart


def test_the_rl_legend_goes_under_a_narrow_time_line(qtbot: Any) -> None:
    assert _timeline(qtbot, 870).slot.below  # before: beside, the plot 390 px wide
    assert not _timeline(qtbot, 1420).slot.below  # at 1920 it keeps its place at the right
