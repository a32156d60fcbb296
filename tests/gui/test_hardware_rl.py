"""The Hardware tab with an RL scenario: the table has the CLI's RL columns (the step, the run,
every GPU of the run, the rollout width) in place of the training phase's, the step and the run
each with its band, and the band sorts rank by the whole step at the slow edge of that band, as
the money is spread (core/sizing/compare_rank.rl_work)."""

from __future__ import annotations

from typing import Any

import pytest
from PySide6.QtCore import Qt

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.option_band import passes_memory
from gpusizer.core.views import HardwareView
from gpusizer.gui.charts.hardware import HardwareChart
from gpusizer.io.compare_table import _band, _duration
from gpusizer.io.evidence_text import OUTSIDE

# GRPO of Qwen3 8B with verl's FSDP backend (tests/core/test_rl_buyer.py)
GRPO_8B = {
    "model": {"preset": "qwen3-8b"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "rl": {"algorithm": "grpo", "steps": 200},
}


def _chart(qtbot: Any, view: HardwareView) -> HardwareChart:
    chart = HardwareChart()  # no background: searched in place
    qtbot.addWidget(chart)
    chart.set_view(view)
    chart.resize(1280, 720)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario(GRPO_8B)
    chart.update_from(s, estimate(s))
    return chart


def test_the_rl_columns_and_the_step_ranking(qtbot: Any) -> None:
    chart = _chart(qtbot, HardwareView(sort="cost_band", vendor="NVIDIA"))
    keys = [c.key for c in chart.model.columns]
    # before: the training phase's Tok/s and Time columns, no step, run or RL GPU count
    for key in (
        "rl_total_gpus",
        "rl_time_per_step_seconds",
        "rl_run_seconds",
        "rl_tokens_trained_per_second",
    ):
        assert key in keys
    assert "rl_rollout_tensor" in keys
    assert "tokens_per_second" not in keys and "time_seconds" not in keys
    headers = [chart.model.headerData(i, Qt.Orientation.Horizontal) for i in range(len(keys))]
    assert "RL step" in headers and "Rollout TP" in headers
    # cost_band ranks the fitting, priced options by the step's cost per million tokens (the
    # training phase's speed band says nothing of the rollout), after the memory band
    ranked = [o for o in chart.options if o["fits"] and o["cost_per_million_tokens"] is not None]
    assert len(ranked) > 3
    keys_seen = [(passes_memory(o), o["cost_per_million_tokens"]) for o in ranked]
    assert keys_seen == sorted(keys_seen)
    # speed_band: the step's trained tokens per second, fastest first (before: the training
    # phase's slow edge, which ranks GPUs by a phase that is a minority of a GRPO step)
    chart.set_view(HardwareView(sort="speed_band", vendor="NVIDIA"))
    fast = [o for o in chart.options if o["fits"]]
    seen = [(passes_memory(o), -o["rl_tokens_trained_per_second"]) for o in fast]
    assert seen == sorted(seen)


def test_the_chart_plots_the_speed_the_table_ranks(qtbot: Any) -> None:
    # before: the x axis read "trained tokens/s" (the training phase) while the table ranks RL
    # by the whole step's trained tokens per second ("RL tok/s")
    chart = _chart(qtbot, HardwareView(vendor="NVIDIA"))
    assert chart._axis_text["bottom"] == "RL tok/s"  # the table's header
    assert chart._pts
    for x, _y, o in chart._pts:  # each dot at the table's "RL tok/s" (log10 axis)
        assert abs(10**x - o["rl_tokens_trained_per_second"]) <= 1e-6 * o["rl_tokens_trained_per_second"]
    # each front option's band is the whole step's (speed/rl/colocated/<kind>), drawn beside its dot:
    # before, none was drawn (the training phase's band would sit several times off the dot)
    xs, _ys = chart.bands.getData()
    front = [o for _x, _y, o in chart._pts if o["pareto"]]
    assert len(xs) == 2 * len(front) > 0
    for (lo, hi), o in zip(zip(xs[::2], xs[1::2], strict=True), front, strict=True):
        assert [10**lo, 10**hi] == pytest.approx(o["rl_tokens_trained_per_second_range"])
        # the estimate runs fast for RL (p10 >= 1; dense 1.00 since verl's GSM8K LoRA steps
        # wait for the longest rank's micro-batch, rl.md): neither edge is faster than the dot
        assert 10**lo < 10**hi <= o["rl_tokens_trained_per_second"] * (1 + 1e-9)
    x, y, o = chart._pts[0]
    assert "RL tok/s (whole step)" in chart.tooltip_at(x, y)


def test_the_table_shows_the_rl_step_and_run_bands(qtbot: Any) -> None:
    # before: "RL step" and "RL run" were single numbers; the band of RL's published steps
    # (speed/rl/colocated: 46 steps ran 1.12-3.39x the estimate) was in the report alone
    chart = _chart(qtbot, HardwareView(vendor="NVIDIA"))
    keys = [c.key for c in chart.model.columns]
    headers = [chart.model.headerData(i, Qt.Orientation.Horizontal) for i in range(len(keys))]
    assert "RL step band" in headers and "RL run band" in headers
    step, run = keys.index("rl_time_per_step_seconds_range"), keys.index("rl_run_seconds_range")
    assert step == keys.index("rl_time_per_step_seconds") + 1 and run == keys.index("rl_run_seconds") + 1
    row = next(i for i, o in enumerate(chart.model.options) if o["fits"])
    o = chart.model.options[row]
    cell = chart.model.data(chart.model.index(row, step))
    # where the step's band lies above the estimate (moe 1.14-2.46x) the cell says what its
    # numbers are, as io/evidence_text.band_words does (before, the bare band read as a typo);
    # dense's band starts above the estimate too since the seventh blind round (1.06-1.67x)
    rng = o["rl_time_per_step_seconds_range"]
    band = _band(_duration)(rng, "GiB")
    inside = min(rng) <= o["rl_time_per_step_seconds"] <= max(rng)
    assert cell and cell == (band if inside else f"{OUTSIDE} {band}")
    tip = chart.model.data(chart.model.index(row, 0), Qt.ItemDataRole.ToolTipRole)
    assert "per RL step" in tip and "RL run" in tip and "How sure" in tip
    # the CSV (File > Export Chart, .csv): the raw [lower, upper] seconds under the field's name
    rows = chart.data_rows()
    at = rows[0].index("rl_run_seconds_range")
    assert rows[1 + row][at] == o["rl_run_seconds_range"]
