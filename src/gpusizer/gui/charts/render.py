"""Headless chart rendering for ``gpusizer-cli chart`` and the report.

Creates an offscreen QApplication when none exists (no display needed), renders one chart and
deletes it before the interpreter shuts down: a pyqtgraph widget destroyed late, during the
QApplication teardown, aborts the process (shared/docs/qt-headless.md, pitfall 1).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import shiboken6
from PySide6.QtCore import QMessageLogContext, QtMsgType, qInstallMessageHandler
from PySide6.QtWidgets import QApplication

from ...core.errors import ScenarioError
from ...core.estimate import estimate
from ...core.result import Estimate
from ...core.scenario import parse_scenario
from ...core.specs import Scenario
from ...core.views import chart_view, view_with
from ...io.scenario_file import read_scenario_dict

SUFFIXES = (".png", ".svg")
MIN_WIDTH, MAX_WIDTH = 200, 16000  # px; beyond this a PNG is hundreds of MB
_APP: QApplication | None = None  # kept alive for the process (Qt needs one per process)
_QUIET = ("This plugin does not support propagateSizeHints()",)  # offscreen noise on show()


def _message(kind: QtMsgType, context: QMessageLogContext, text: str) -> None:
    if text not in _QUIET:
        print(text, file=sys.stderr)


def ensure_app() -> QApplication:
    """The running QApplication, or a new one (offscreen when there is no display)."""
    global _APP
    app = QApplication.instance()
    if isinstance(app, QApplication):
        return app
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    qInstallMessageHandler(_message)
    _APP = QApplication(["gpusizer-cli"])
    return _APP


def check_output(output: str | Path, width: int) -> Path:
    """The output path, if it ends in .png or .svg and the width is sane; else ScenarioError."""
    out = Path(output)
    if out.suffix.lower() not in SUFFIXES:
        raise ScenarioError("output", f"{out.name} must end in .png or .svg")
    if not MIN_WIDTH <= int(width) <= MAX_WIDTH:
        raise ScenarioError("width", f"must be between {MIN_WIDTH} and {MAX_WIDTH} px; got {width}")
    if not out.parent.is_dir():
        raise ScenarioError("output", f"folder {out.parent} does not exist")
    return out


def render_chart(scenario: Scenario, est: Estimate, kind: str, output: str | Path,
                 width: int = 1600, unit: str = "GiB", view: Any = None) -> Path:
    """Render one chart (a key of core/views.CHARTS) of an estimate to PNG (``width`` px) or
    SVG, by the output suffix, memory in ``unit`` ("GiB" or "GB"), with the chart's ``view``
    settings (None: its defaults)."""
    chart_view(kind)  # refuse an unknown chart before any work
    out = check_output(output, width)
    ensure_app()
    from . import chart_class

    chart = chart_class(kind)()
    try:
        if view is not None:
            chart.set_view(view)
        chart.set_units(unit)
        chart.update_from(scenario, est)
        if out.suffix.lower() == ".svg":
            chart.export_svg(out)
        else:
            chart.export_png(out, width)
    except OSError as exc:
        raise ScenarioError("output", f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        # Deleted now, not at interpreter exit (qt-headless.md pitfall 1); shiboken6.delete
        # deletes this one widget, where sendPostedEvents(None, DeferredDelete) would also
        # run every other pending deletion of the caller (the report renders four charts).
        chart.close()
        shiboken6.delete(chart)
    if not out.is_file():
        raise ScenarioError("output", f"cannot write {out}")
    return out


def render_chart_file(file: str | Path, kind: str, output: str | Path, width: int = 1600,
                      **settings: Any) -> Path:
    """``gpusizer-cli chart FILE --kind K --output OUT.png|.svg [--width PX] [--axis A]``:
    ``settings`` set fields of the chart's view (core/views.view_with)."""
    check_output(output, width)  # refuse a bad output before any work
    view = view_with(chart_view(kind), **settings)
    scenario = parse_scenario(read_scenario_dict(file))
    return render_chart(scenario, estimate(scenario), kind, output, width, view=view)
