"""The Hardware tab's settings bar (hardware/controls.py) in a strip that scrolls sideways
when the tab is narrower than the bar (it never widens the window), and downwards where the
tab is short: its four rows took 127 of the tab's 221 px at 1024 x 700 (gpt-oss-120b P/D),
leaving the GPU table 2.5 rows and the cost-speed plot a few px. There the strip shows as many
whole rows as :data:`SHARE` of the tab's height holds (two at least), the others a scroll
away. Heights in pixels."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QGridLayout, QScrollArea, QSizePolicy, QWidget

SHARE = 0.3  # of the tab's height, at most, while the bar needs more
MIN_ROWS = 2  # rows of settings in view however short the tab


def strip_height(need: int, rows: int, host: int) -> int:
    """The strip's height for a bar ``need`` px tall in ``rows`` rows, in a tab ``host`` px
    tall: the whole bar where it takes at most SHARE of the tab, else the whole rows that
    SHARE holds (MIN_ROWS at least; a row's pitch is the bar's height over its rows)."""
    if rows <= MIN_ROWS or need <= host * SHARE:
        return need
    pitch = need / rows
    shown = max(MIN_ROWS, min(rows, int(host * SHARE / pitch)))
    return need if shown >= rows else round(shown * pitch)


class ControlsStrip(QScrollArea):
    """Holds the settings bar; as tall as the bar (plus the sideways bar if shown), or less
    in a short tab (:meth:`fit_to`), then scrolled downwards."""

    def __init__(self, controls: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("strip_hardware_controls")
        self.setWidget(controls)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._host = 0  # the tab's height (0: not known yet, the whole bar is shown)
        self._fit()

    def fit_to(self, host: int) -> None:
        """The tab is ``host`` px tall now."""
        self._host = host
        self._fit()

    def _fit(self) -> None:
        bar = self.horizontalScrollBar().sizeHint().height()
        inner = self.widget()
        need = inner.sizeHint().height() if inner is not None else 0
        grid = inner.layout() if inner is not None else None
        rows = grid.rowCount() if isinstance(grid, QGridLayout) else 1
        height = strip_height(need, rows, self._host) if self._host else need
        narrow = inner is not None and self.viewport().width() < inner.minimumSizeHint().width()
        self.setFixedHeight(height + (bar if narrow else 0))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()
