"""The summary (gui/summary.py) in a scroll area that takes at most :data:`SHARE` of the
answer side's height: in a short window the charts keep the rest. At 1024 x 700 the summary of
DeepSeek-V3 split P/D with DeepEP (its users, speed, split and DeepEP lines, then "GPUs
needed") took 340 of the side's 680 px and left the chart tab a title and no plot; the summary
now scrolls there instead, to its last line while the "last valid estimate" banner shows.
Where it fits its share (1280 x 720 and up for every scenario of tests/gui/test_layout.py) it
is shown whole, as before. Heights in pixels."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QSizePolicy, QWidget

from .summary import SummaryHeader

SHARE = 0.4  # of the answer side's height, at most, while the summary needs more
FLOOR = 120  # px: the verdict, the bar and a line or two, however short the window


class SummaryScroll(QScrollArea):
    """Holds ``summary``; its height follows the summary's need, capped by ``host``'s."""

    def __init__(self, summary: SummaryHeader, host: QWidget) -> None:
        super().__init__()
        self.setObjectName("summary_scroll")
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the wheel still scrolls it
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setWidget(summary)
        self._summary = summary
        self._host = host
        summary.installEventFilter(self)
        host.installEventFilter(self)

    def _fit(self) -> None:
        summary = self._summary
        need = max(summary.minimumHeight(), summary.minimumSizeHint().height())
        cap = max(FLOOR, int(self._host.height() * SHARE))
        height = min(need, cap)
        if height != self.height() or self.minimumHeight() != height:
            self.setFixedHeight(height)
        if height < need and summary.stale.isVisible():  # the refusal's banner is in view
            self.ensureWidgetVisible(summary.stale, 0, 0)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() in (QEvent.Type.Resize, QEvent.Type.LayoutRequest):
            self._fit()
        return super().eventFilter(watched, event)
