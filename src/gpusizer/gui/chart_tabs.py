"""The chart area: one tab per chart, each created when first shown and redrawn only while
visible (a hidden chart is marked dirty and catches up when its tab is opened)."""

from __future__ import annotations

import logging
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QStackedLayout, QTabWidget, QWidget

from ..core.model.result import Estimate
from ..core.model.specs import Scenario
from ..core.views.settings import CHARTS, chart_view
from .style import set_role

log = logging.getLogger(__name__)


def load_chart(key: str) -> type | None:
    """The chart class of a registered chart, or None while its module is missing or broken."""
    try:
        from .charts import chart_class

        return chart_class(key)
    except Exception:  # charts are optional for the window: it shows a placeholder instead
        log.warning("chart %s unavailable", key, exc_info=True)
        return None


class _Veil(QWidget):
    """A translucent white layer that lets clicks through: "this is not current"."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setObjectName("veil_stale")
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(255, 255, 255, 150))
        p.end()


class ChartTabs(QTabWidget):
    """Tabs of charts, or placeholders where a chart is not available.

    ``failed(str)`` reports a chart that raised, so the window can say so in its status bar.
    ``background``: charts may run slow work in a worker thread (the window's tabs do).
    """

    failed = Signal(str)
    created = Signal(str, object)  # (key, chart) once a chart is made (window hooks)

    def __init__(
        self, parent: QWidget | None = None, deferred: bool = False, background: bool = False
    ) -> None:
        super().__init__(parent)
        self.background = background  # charts may run slow work in a worker thread
        # Deferred: no chart (hence no pyqtgraph/numpy import) until start() is called, so
        # the first frame of the window does not wait for them.
        self.deferred = deferred
        self.setObjectName("tabs_charts")
        self.setDocumentMode(True)
        self.unit = "GiB"
        self._broken: set[str] = set()
        self.charts: dict[str, Any] = {}
        self._pages: dict[str, QStackedLayout] = {}
        self._dirty: set[str] = set()
        self._data: tuple[Scenario, Estimate] | None = None
        for view in CHARTS.values():
            key, label = view.key, view.label
            page = QWidget()
            page.setObjectName(f"tab_{key}")
            stack = QStackedLayout(page)
            stack.addWidget(
                self._placeholder(f"The {label.lower()} chart is not available." if not deferred else "")
            )
            self._pages[key] = stack
            self.addTab(page, label)
        self.currentChanged.connect(lambda _i: self._show_current())
        self._veil = _Veil(self)
        self._veil.hide()

    @staticmethod
    def _placeholder(text: str) -> QLabel:
        label = QLabel(text)
        label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        # Wrapped: at 1024 px "Users vs context that fit: a serving question. Choose
        # Inference ..." ran past both sides of the tab as one centred line.
        label.setWordWrap(True)
        label.setContentsMargins(24, 0, 24, 0)
        set_role(label, "hint")
        return label

    def keys(self) -> list[str]:
        return list(self._pages)

    def current_key(self) -> str:
        return self.keys()[max(self.currentIndex(), 0)]

    def select(self, key: str) -> None:
        """Show a chart's tab (a key or an alias of one)."""
        self.setCurrentIndex(self.keys().index(chart_view(key).key))

    def chart(self, key: str) -> Any | None:
        """The chart widget of a tab, created on first use (None when unavailable)."""
        if key in self.charts:
            return self.charts[key]
        if self.deferred:
            return None
        cls = None if key in self._broken else load_chart(key)
        if cls is None:
            self._broken.add(key)
            return None
        try:
            chart = cls(background=self.background)
            chart.set_units(self.unit)
        except Exception as exc:  # a broken chart must leave the rest of the window usable
            log.exception("cannot create chart %s", key)
            self.failed.emit(f"The {key} chart failed: {exc}")
            self._broken.add(key)
            return None
        self._pages[key].addWidget(chart)
        self._pages[key].setCurrentWidget(chart)
        self.charts[key] = chart
        self._dirty.add(key)
        self.created.emit(key, chart)
        return chart

    def start(self) -> None:
        """Create and draw the visible chart now (after the window's first frame)."""
        if not self.deferred:
            return
        self.deferred = False
        self._show_current()

    def current_chart(self) -> Any | None:
        return self.chart(self.current_key())

    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        """New data: redraw the visible chart now, the others when they are shown."""
        self._data = (scenario, estimate)
        self._dirty = set(self.keys())
        self._show_current()

    def set_units(self, unit: str) -> None:
        self.unit = unit
        for key, chart in self.charts.items():
            self._call(key, chart.set_units, unit)

    def shutdown(self) -> None:
        """The window is closing: charts with background work (the Hardware tab) stop it."""
        for chart in self.charts.values():
            chart.shutdown()

    def set_stale(self, stale: bool) -> None:
        """Fade the charts while they show the last valid estimate (a veil over them: an
        opacity effect would re-render every chart offscreen on each repaint)."""
        self._veil.setGeometry(self.rect())
        self._veil.setVisible(stale)
        self._veil.raise_()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._veil.setGeometry(self.rect())

    def _show_current(self) -> None:
        key = self.current_key()
        chart = self.chart(key)
        if chart is None or self._data is None or key not in self._dirty:
            return
        self._dirty.discard(key)
        view, stack = chart_view(key), self._pages[key]
        kind = self._data[0].workload.info
        if not view.applies_to(kind):
            hint = stack.widget(0)
            if isinstance(hint, QLabel):
                hint.setText(view.hint(kind))
            stack.setCurrentIndex(0)
            return
        stack.setCurrentWidget(chart)
        self._call(key, chart.update_from, *self._data)

    def _call(self, key: str, fn: Any, *args: Any) -> None:
        try:
            fn(*args)
        except Exception as exc:  # keep the window alive; report once in the status bar
            log.exception("chart %s failed", key)
            self.failed.emit(f"The {key} chart could not be drawn: {exc}")
