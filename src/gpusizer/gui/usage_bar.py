"""The summary's usage bar: the components alive at the peak, stacked against the GPU's
capacity, with the band where published runs like this peaked as a whisker."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QSizePolicy, QWidget

from ..core.evidence.ranges import estimate_evidence
from ..core.model.result import COMPONENT_LABELS, COMPONENTS, Estimate
from ..io.units import fmt_bytes
from .colors import component_qcolor

MIN_CAPPED_PX = 16  # the usage bar's whisker has end caps from this width (its height)


class UsageBar(QWidget):
    """A horizontal bar: the components alive at the peak, stacked, against the capacity."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFixedHeight(16)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self._parts: list[tuple[str, int]] = []
        self._capacity = 1

    def set_estimate(self, est: Estimate) -> None:
        mem = est.memory
        self._parts = [(c, getattr(mem, c)) for c in COMPONENTS if c in mem.alive_at_peak]
        self._capacity = max(est.capacity_bytes, 1)
        self._band = estimate_evidence(est)[0].band.size_range(mem.total)  # the peak's whisker
        self.setToolTip("  ·  ".join(f"{COMPONENT_LABELS[c]} {fmt_bytes(b)}" for c, b in self._parts if b))
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        total = sum(b for _c, b in self._parts)
        scale = rect.width() / max(total, self._capacity, 1)
        p.setPen(Qt.PenStyle.NoPen)
        p.setBrush(self.palette().alternateBase())
        p.drawRoundedRect(rect, 3, 3)
        x = rect.left()
        for c, b in self._parts:
            w = b * scale
            p.fillRect(QRectF(x, rect.top(), w, rect.height()), component_qcolor(c))
            x += w
        cap_x = rect.left() + self._capacity * scale
        if x > cap_x + 1:  # the part beyond the capacity: what does not fit
            p.fillRect(
                QRectF(cap_x, rect.top(), x - cap_x, rect.height()),
                QBrush(QColor(198, 40, 40, 150), Qt.BrushStyle.BDiagPattern),
            )
        p.setPen(QPen(QColor("#202020"), 2))
        p.drawLine(int(cap_x) - 1, 0, int(cap_x) - 1, self.height())
        if self._band:  # where published runs like this peaked: a whisker across the bar's end
            x0, x1 = (min(rect.left() + v * scale, rect.right()) for v in self._band)
            y = rect.center().y()
            p.setPen(QPen(QColor("#202020"), 1.5))
            p.drawLine(QPointF(x0, y), QPointF(x1, y))
            # end caps only on a band wider than they are tall: an 8 px band (an MLX 8B's
            # 4.6-5.3 GiB of 96 GiB) drawn with them read as a letter "H" after the bar
            if x1 - x0 >= MIN_CAPPED_PX:
                for x in (x0, x1):
                    p.drawLine(QPointF(x, rect.top() + 3), QPointF(x, rect.bottom() - 3))
        p.end()
