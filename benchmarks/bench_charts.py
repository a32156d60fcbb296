"""Chart redraw speed (run: pytest benchmarks/bench_charts.py --benchmark-enable).

Target (issue "Charts"): a 1,000-point sweep redraws within one frame (~16 ms at 60 Hz),
redraw plus a synchronous repaint of the whole chart, offscreen.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from tests.gui.helpers import make_sweep_chart  # after the platform default

FRAME_S = 0.016


@pytest.fixture
def sweep_chart(qtbot):
    return make_sweep_chart(qtbot)


def test_sweep_redraw(benchmark, sweep_chart) -> None:
    """Data into the curves (setData), labels, markers."""
    benchmark(sweep_chart._redraw)


def test_sweep_redraw_and_repaint(benchmark, sweep_chart) -> None:
    viewport = sweep_chart.plot_widget.viewport()

    def redraw_and_paint() -> None:
        sweep_chart._redraw()
        viewport.repaint()  # synchronous paint of the whole chart

    benchmark(redraw_and_paint)
    if benchmark.stats is not None and not benchmark.disabled:
        assert benchmark.stats.stats.median < FRAME_S
