"""The Hardware tab's cost-speed chart at 1024 x 700 (screenshots looked at): before, the
table's 0.77 share of the tab left the chart 119 px, its plot 66 x 77 px and its title
("Cost vs speed · 5 best of 46 · some GPUs left out", 423 px) cut at both ends. Now the chart
keeps CHART_MIN_PX and a title too wide for one line takes its short form, whole; the
tooltip says it all."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from .helpers import shown_window

BUYER = Path(__file__).resolve().parents[1] / "cli" / "data" / "buyer"


@pytest.mark.parametrize("size", [(1024, 700), (1280, 720), (1400, 900)])
def test_the_cost_speed_title_is_whole_inside_its_chart(qtbot: Any, size: tuple[int, int]) -> None:
    from gpusizer.gui.charts.hardware_split import CHART_MIN_PX
    from gpusizer.gui.charts.palette import TITLE_PX

    scenario = json.loads((BUYER / "full-ft-8b-8k-1b-week.gpusizer.json").read_text())
    w = shown_window(qtbot, scenario, size, advice=False)
    w.tabs.select("hardware")
    chart = w.tabs.charts["hardware"]
    # about 3 s of CPU alone (`gpusizer-cli compare` of the case); under a second test worker
    # on a 2-core machine it took past 30 s once: the wait is the sibling test's 180 s
    qtbot.waitUntil(lambda: bool(chart.options), timeout=180000)
    QApplication.processEvents()
    title = chart.title_item
    text = title.item.mapRectToScene(title.item.boundingRect())
    whole = chart.plot_widget.sceneRect()
    assert whole.contains(text), (size, text, whole)
    assert chart.plot_widget.width() >= CHART_MIN_PX
    assert text.height() < 2 * TITLE_PX  # one line (28 px): the plot keeps its height
    tip = chart.plot_widget.toolTip()
    assert "Cost vs speed" in tip and "Pareto front" in tip, tip
    assert "best of" in title.text


def test_thinned_ticks_keep_clear_of_each_other() -> None:
    """log10 positions 4, 4.3, 4.7, 5 ("10k", "20k", "50k", "100k") 40 px a decade: 20k and 50k
    ran into their neighbours ("10k20k50k" on the RL case's axis at 1024 x 700); the powers
    of ten stay."""
    from gpusizer.gui.charts.tick_thin import thinned

    ticks = [(4.0, "10k"), (4.301, "20k"), (4.699, "50k"), (5.0, "100k")]
    kept = thinned(ticks, lambda v: 40 * v, lambda t: 7.0 * len(t))
    assert [t for _, t in kept] == ["10k", "100k"]
    assert thinned(ticks, lambda v: 300 * v, lambda t: 7.0 * len(t)) == ticks  # room: all kept


@pytest.mark.parametrize(
    "case", ["full-ft-8b-8k-1b-week", "rl-qwen3-30b-a3b-colocated", "serve-deepseek-v3-pd"]
)
def test_the_cost_speed_axes_are_legible_at_1024(qtbot: Any, case: str) -> None:
    """No two tick texts of the speed axis overlap, and the cost axis's title fits the plot's
    height (a 48 px plot cut "$ per M tokens, renting" at both ends); its tooltip is whole."""
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QFontMetricsF

    from gpusizer.gui.charts.palette import LABEL_PX, font

    scenario = json.loads((BUYER / f"{case}.gpusizer.json").read_text())
    w = shown_window(qtbot, scenario, (1024, 700), advice=False)
    w.tabs.select("hardware")
    chart = w.tabs.charts["hardware"]
    # the whole catalog's comparison in the worker: the RL MoE case took about 23 s of CPU with
    # its split alternative weighed (docs/evidence/rl.md section 80); `gpusizer-cli compare` of
    # it took 54-56 s of CPU on this 2-core machine alone, 77 s -> 40 s under a load of 5 once
    # refused engines skip their trainers, so the wait is 180 s; its speed is benchmarks'
    # business (benchmarks/bench_rl_compare.py), not this legibility test's
    qtbot.waitUntil(lambda: bool(chart.options), timeout=180000)
    QApplication.processEvents()
    vb, axis = chart.plot.vb, chart.plot.getAxis("bottom")
    metrics = QFontMetricsF(axis.style["tickFont"])
    (x0, x1), _ = vb.viewRange()
    shown = [(vb.mapViewToScene(QPointF(v, 0)).x(), t) for v, t in axis._tickLevels[0] if x0 <= v <= x1]
    assert shown, case
    for (a, ta), (b, tb) in itertools.pairwise(shown):
        assert b - a >= (metrics.horizontalAdvance(ta) + metrics.horizontalAdvance(tb)) / 2, (ta, tb)
    left = chart.plot.getAxis("left")
    title = left.labelText
    assert QFontMetricsF(font(LABEL_PX)).horizontalAdvance(title) <= vb.height() or title == "$/M tok"
    assert left.toolTip().startswith("$ per M tokens")
