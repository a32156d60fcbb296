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
from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.views.settings import chart_view
from ...io.chart_output import check_output

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


def render_chart(
    scenario: Scenario,
    est: Estimate,
    kind: str,
    output: str | Path,
    width: int = 1600,
    unit: str = "GiB",
    view: Any = None,
) -> Path:
    """Render one chart (a key of core/views.CHARTS) of an estimate to PNG (``width`` px) or
    SVG, by the output suffix, memory in ``unit`` ("GiB" or "GB"), with the chart's ``view``
    settings (None: its defaults). ScenarioError for a chart that does not apply to the
    scenario's kind of work (a serving chart of a training scenario)."""
    chart_view(kind).check_applies(scenario.workload.info)  # an unknown or inapplicable chart
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
    except OSError as exc:  # full disk, no permission: the old file, if any, is intact
        raise ScenarioError("output", f"cannot write {out}: {exc.strerror or exc}") from None
    finally:
        # Deleted now, not at interpreter exit (qt-headless.md pitfall 1); shiboken6.delete
        # deletes this one widget, where sendPostedEvents(None, DeferredDelete) would also
        # run every other pending deletion of the caller (the report renders four charts).
        chart.close()
        shiboken6.delete(chart)
    return out
