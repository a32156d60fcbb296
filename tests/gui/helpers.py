"""Small helpers shared by the GUI tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import QLineEdit, QWidget


def find(window: Any, name: str) -> Any:
    """The child widget with this object name (fails loudly when missing)."""
    w = window.findChild(QWidget, name)
    assert w is not None, f"no widget named {name}"
    return w


def set_scenario(window: Any, scenario: dict[str, Any]) -> None:
    """Load ``scenario`` into the window's state and wait for it; it must be valid."""
    window.state.set_scenario(scenario)
    window.state.flush()
    assert window.state.error is None, window.state.error


def set_widget(window: Any, name: str, value: Any) -> None:
    """Set the widget ``name`` to ``value`` (a combo by its item data, a spin box by value) and
    let the state take the edit."""
    w = find(window, name)
    if hasattr(w, "findData"):
        w.setCurrentIndex(w.findData(value))
    else:
        w.setValue(value)
    window.state.flush()


def refuse_edit(window: Any, base: dict[str, Any], path: str, value: Any) -> None:
    """Load ``base``, edit ``path`` to the hostile ``value``, and check that the state refused
    it on that field and the scenario kept the field's last valid value."""
    set_scenario(window, base)
    kept = window.state.value(path)
    window.state.edit(path, value, immediate=True)
    window.state.flush()
    assert window.state.error is not None and window.state.error.field == path, window.state.error
    *block, field = path.split(".")
    held: Any = window.state.scenario  # the scenario, not the refused value the field holds
    for part in block:
        held = getattr(held, part)
    assert getattr(held, field) == kept


def error_text(window: Any, name: str) -> str:
    """The message shown beside the widget ``name`` ("" while its error label is hidden)."""
    label = find(window, "error_" + name)
    return label.text() if label.isVisibleTo(window) else ""


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
    from gpusizer.core.pipeline.estimate import estimate
    from gpusizer.core.pipeline.scenario import parse_scenario
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


def mismatches(binder: Any) -> list[tuple[str, Any, Any]]:
    """(path, shown, scenario) for every bound field that does not show the state's value:
    empty whenever the form equals the scenario. Null counts where the widget has a null
    choice to show ("engine default": gui/binding.py ``shows_none``)."""
    from gpusizer.gui.binding import plain_text, shows_none

    out: list[tuple[str, Any, Any]] = []
    for b in binder.bindings:
        try:
            want = b.from_state(binder.state.value(b.path))
            shown = b.getter()
        except Exception as exc:  # a converter that cannot take the value is a mismatch
            out.append((b.path, repr(exc), None))
            continue
        if (want is None and not shows_none(b.widget)) or (want == "" and shown is None) or b.text_error:
            continue
        if isinstance(b.widget, QLineEdit):
            want = plain_text(want)
        if shown != want and not (isinstance(want, (list, tuple)) and tuple(shown) == tuple(want)):
            out.append((b.path, shown, want))
    return out


def bar_labels(chart: Any) -> list[str]:
    """The x labels of a bar chart's bars (memory or variants), left to right."""
    bars = chart.cmp.bars if hasattr(chart, "cmp") else chart.bars
    return [b.label for b in bars] if bars is not None else []


def step_position(chart: Any, phase: str) -> tuple[float, float]:
    """Where a roofline chart draws the step's star (intensity, TFLOP/s), read back."""
    x, y = chart.steps[phase].getData()
    return (float(10 ** x[0]), float(10 ** y[0])) if x is not None and len(x) else (0.0, 0.0)


def drop_path(window: Any, path: Path) -> None:
    """Drop ``path`` on the window, as a file manager does (a file URL, copy action)."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    event = QDropEvent(
        QPointF(QPoint(700, 400)),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    window.dropEvent(event)
    window.files.importer.wait()  # a model import reads in a worker thread


def open_rl_sections(window: Any) -> None:
    """Open the RL panel's collapsible groups (closed at start: gui/panels/rl_sections.py), so
    a test sees which of their rows are shown."""
    from gpusizer.gui.panels import RLPanel

    panel = next(p for p in window.panels if isinstance(p, RLPanel))
    for section in panel.knobs.sections:
        section.set_open(True)


def shown_window(qtbot: Any, scenario: dict[str, Any], size: tuple[int, int], advice: bool = True) -> Any:
    """A main window on ``scenario`` at ``size``, shown and exposed, its estimate done and, with
    ``advice``, its advisor's answer too (the summary's "GPUs needed" line takes height)."""
    from gpusizer.gui.main_window import MainWindow

    w = MainWindow(scenario, restore=False)
    qtbot.addWidget(w)
    w.resize(*size)
    w.show()
    qtbot.waitExposed(w)
    w.state.wait()
    if advice:
        w.advisor.wait()
    return w


def rl_phase_seconds(window: Any, name: str) -> float:
    """Seconds of the RL step's phase ``name`` in the window's current estimate."""
    return float(next(p["seconds"] for p in window.state.estimate.rl["phases"] if p["name"] == name))
