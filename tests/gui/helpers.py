"""Small helpers shared by the GUI tests."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget


def find(window: Any, name: str) -> Any:
    """The child widget with this object name (fails loudly when missing)."""
    w = window.findChild(QWidget, name)
    assert w is not None, f"no widget named {name}"
    return w


def row_visible(widget: QWidget) -> bool:
    """Whether a form field is shown (its row container is not hidden)."""
    w: QWidget | None = widget
    while w is not None and w.objectName() != "left_column":
        if w.isHidden():
            return False
        w = w.parentWidget()
    return True


def make_sweep_chart(qtbot: Any) -> Any:
    """A shown sweep chart holding a 1,000-point curve (Llama 3.1 8B LoRA)."""
    from gpusizer.core.estimate import estimate
    from gpusizer.core.scenario import parse_scenario
    from gpusizer.gui.charts.sweep import SweepChart

    chart = SweepChart()
    qtbot.addWidget(chart)
    chart.resize(1000, 620)
    chart.show()
    qtbot.waitExposed(chart)
    s = parse_scenario({"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}})
    chart.update_from(s, estimate(s))
    assert chart.result is not None
    assert len(chart.result.values) >= 990  # a 1,000-point curve (rounding drops a few)
    return chart
