"""The Memory chart's labels: each bar's total (with the evidence band's words, the parts
freed before the peak and the headroom or shortfall) above it, never across the capacity line
(over_line.py) nor over a neighbouring bar's label (two rows: stagger.py); the capacity label on
its line where it covers nothing, else in a band above with a leader line (memory.py draws the
bars)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF
from PySide6.QtGui import QFontMetricsF

from ...core.model.result import COMPONENT_LABELS
from ...io.units import fmt_bytes, to_unit
from ...io.wording import room_word
from .labels import PAD, Leaders, overlaps, place, scene_rect, wrap_to
from .over_line import crossed, lift_over, line_px, room_right
from .pool import HALF, PoolView
from .stagger import stagger
from .tick_fit import clear_of_neighbours, two_lines

CAP_ROOM = 0.45  # the most of the plot's width given to the capacity label beside the bars
TWO_LINES_PX = 52  # the bottom axis with two-line names (as the Training vs inference chart's)

if TYPE_CHECKING:
    from .base import ChartBase as _Base
else:
    _Base = object


def fmt_part(n_bytes: float, unit: str) -> str:
    """One decimal, two below 1 unit: 0.02 GiB of logits is not "0.0 GiB"; under 0.005 units
    (a PPO step's few MiB of temporary buffers) "< 0.01 GiB", not a "0.00 GiB" part drawn in
    the legend beside the ones that hold memory."""
    value = to_unit(n_bytes, unit)
    if 0 < value < 0.005:
        return f"< {fmt_bytes(0.01 * n_bytes / value, unit, 2)}"
    return fmt_bytes(n_bytes, unit, 1 if value >= 1 else 2)


class MemoryLabels(_Base):
    """Mixin of MemoryChart (a ChartBase): the layout of its labels."""

    bars: list[Any]
    bar_labels: list[pg.TextItem]
    cap_label: pg.TextItem
    capacity_line: pg.InfiniteLine
    leaders: Leaders
    pool: PoolView
    stack: Any
    freed: dict[str, int]
    band: tuple[float, float] | None
    fit: Any
    peak: int
    capacity: int
    gpu_name: str
    _top: float
    _right: float

    def _update_labels(self, scale: float) -> None:
        """Totals above the bars; headroom (or shortfall) of the peak bar against capacity."""
        t = self.theme
        peak_bar = self.bars[-1]
        for i, label in enumerate(self.bar_labels):
            label.setVisible(i < len(self.bars))
            if i >= len(self.bars):
                continue
            bar = self.bars[i]
            value = self.peak if bar is peak_bar else bar.total
            html = f"<b>{fmt_bytes(value, self.unit, 1)}</b>"
            if bar is peak_bar and self.band:  # the whisker's words
                lo, hi = (to_unit(v, self.unit) for v in self.band)
                band = f"runs like this: {lo:,.1f}-{hi:,.1f} {self.unit}"
                html += f"<br><span style='color:{t.muted}'>{band}</span>"
            if self.freed and (bar is not peak_bar or len(self.bars) == 1):
                freed = self.freed.items()
                gone = ", ".join(f"{COMPONENT_LABELS[c]} {fmt_part(v, self.unit)}" for c, v in freed)
                html += f"<br><span style='color:{t.muted}'>freed before the peak:<br>{gone}</span>"
            if bar is peak_bar:
                room = self.fit.headroom
                word, color = room_word(self.fit), t.good if room >= 0 else t.bad
                html += (
                    f"<br><span style='color:{color}'><b>{word} "
                    f"{fmt_bytes(abs(room), self.unit, 1)}</b></span>"
                )
            self.set_centred_html(label, f"<div style='color:{t.foreground}'>{html}</div>")
            top = max(bar.total, value, *(self.band or ()) if bar is peak_bar else ())
            label.setPos(i, top / scale)

    def _layout_labels(self) -> None:
        """Room above the bars for their labels; the capacity label on the line where it
        overlaps no bar label, else in a band above them with a leader line down to the line
        (labels.py: place, then nudge or leader-line)."""
        self._widen(0.0)
        self._fit_ticks()
        if not self._fit_labels(band=0.0) or not (self._capacity_on_line() or self._capacity_beside()):
            self._widen(0.0)
            self._fit_ticks()
            band = scene_rect(self.cap_label).height() + 2 * PAD
            self._fit_labels(band)
            self._capacity_in_band()
        else:
            self.leaders.draw([], self.theme.foreground)
        self._place_pool()

    def _fit_ticks(self) -> None:
        """The bars' names on one line where they keep GAP_PX apart and stay within the axis,
        else on two ("at peak" over "(backward)"): pyqtgraph drops a tick text that does not,
        and at 1024 x 700 the second bar of a fine-tune went unnamed."""
        axis, vb = self.plot.getAxis("bottom"), self.plot.vb
        (x0, x1), _ = vb.viewRange()
        pitch = vb.width() / max(x1 - x0, 1e-9)
        width = QFontMetricsF(axis.style.get("tickFont") or axis.font()).horizontalAdvance
        names = [b.label for b in self.bars]
        # pyqtgraph also drops a text that would run past either end of the axis
        inside = all(width(x) / 2 <= min(i - x0, x1 - i) * pitch for i, x in enumerate(names))
        if inside and clear_of_neighbours(names, 1, pitch, width):
            texts, height = names, None
        else:
            texts = [x.replace(" (", "\n(", 1) if " (" in x else two_lines(x) for x in names]
            height = TWO_LINES_PX
        axis.setTicks([list(enumerate(texts))])
        if axis.fixedHeight != height:
            axis.setHeight(height)

    def _place_pool(self) -> None:
        """The engine's budget and users' labels, clear of the bar and capacity labels; one
        that finds no room is left out (its line and mark stay, the KV part's tooltip says
        what it would): at 1,024 x 700 a P/D headline left the plot 250 px square and both
        labels lay across the bar they describe. The budget's words are tried short ("SGLang
        budget" over its amount) before they are left out: at 1,024 x 700 the full words found
        no room beside one serving bar and the grey line went unnamed."""
        if not self.pool.reserved:
            return
        vb = self.plot.vb
        wanted = self.pool.wanted()
        for label in self.pool.labels():
            label.setVisible(label in wanted)  # again: the chart may have grown since
        budget = self.pool.budget_label
        if budget in wanted:
            budget.setText(self.pool.budget_texts[0] or budget.toPlainText())  # full words first
        x1 = vb.viewRange()[0][1]
        self.pool.anchor_labels(x1)
        top = self.bars[-1].total / self.stack.scale
        bar = vb.mapViewToScene(QRectF(-HALF, 0, 2 * HALF, top)).boundingRect()
        taken = [*self._bar_rects(), scene_rect(self.cap_label), bar]
        self._place_free(self.pool.labels(), taken)
        if budget in wanted and not budget.isVisible() and self.pool.shorten_budget(x1):
            budget.setVisible(True)
            self._place_free([budget], taken)

    def _place_free(self, labels: list[pg.TextItem], taken: list[QRectF]) -> None:
        """Place ``labels`` clear of ``taken`` (scene rects, which each one shown joins); one
        outside the plot or on another after placing is hidden."""
        vb = self.plot.vb
        place(labels, vb, taken)
        area = vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
        for label in labels:
            rect = scene_rect(label)
            if label.isVisible() and (not area.contains(rect) or any(rect.intersects(r) for r in taken)):
                label.setVisible(False)
            elif label.isVisible():
                taken.append(rect)

    def _fit_labels(self, band: float) -> bool:
        """Set the y range so each bar's label (and a ``band`` of pixels above all of them)
        fits, then place the bar labels, a label that the capacity line would cross lifted
        above it (over_line.py), one row above the other where they meet (stagger.py);
        False when the view is too small for that."""
        scale, vb = self.stack.scale, self.plot.vb
        labels, y = self.bar_labels[: len(self.bars)], self.capacity / scale
        ok = self._set_room(band, ())
        self._update_labels(scale)
        over = crossed(labels, vb, y)
        if over:
            ok = self._set_room(band, over)
            self._update_labels(scale)
            lift_over(labels, vb, y, over)
        if overlaps(labels):  # two bars too close for their labels side by side
            self._update_labels(scale)
            tops = [x.pos().y() for x in labels]
            stagger(vb, tops, labels, self._under, lambda: self._update_labels(scale))
        area, at = vb.sceneBoundingRect(), line_px(vb, y)
        place(labels, vb, lines=[QLineF(area.left(), at, area.right(), at)])
        return ok

    def _set_room(self, band: float, over: Sequence[int]) -> bool:
        """The y range in which each label fits above its bar (above the capacity line for
        the labels ``over``), with ``band`` pixels more; False when one cannot fit."""
        scale, vb = self.stack.scale, self.plot.vb
        height = max(vb.sceneBoundingRect().height(), 1.0)
        need, ok = self._top * 1.08, True
        for i, label in enumerate(self.bar_labels[: len(self.bars)]):
            h = scene_rect(label).height() + 2 * PAD + band
            if h >= 0.8 * height:
                ok = False
                continue
            last = i == len(self.bars) - 1
            value = max(
                self.bars[i].total,
                self.peak if last else 0,
                self.band[1] if self.band and last else 0,
                self.capacity if i in over else 0,
            )
            need = max(need, value / scale / (1 - h / height))
        if band:
            need = max(need, self.capacity / scale / (1 - band / height))
        if abs(need - vb.viewRange()[1][1]) > 1e-9 * need:
            self.plot.setYRange(0, need, padding=0)
        return ok

    def _bar_rects(self) -> list[QRectF]:
        return [scene_rect(x) for x in self.bar_labels[: len(self.bars)] if x.isVisible()]

    def _bodies(self) -> list[QRectF]:
        """The bars themselves, in scene pixels: the capacity label is never drawn over one."""
        vb, half, scale = self.plot.vb, self.stack.width / 2, self.stack.scale
        return [
            vb.mapViewToScene(QRectF(i - half, 0, 2 * half, bar.total / scale)).boundingRect()
            for i, bar in enumerate(self.bars)
        ]

    def _under(self) -> list[QRectF]:
        """What a bar's label rests on: the bars, the peak's evidence whisker and the
        capacity line (a strip 2 PAD tall), in scene pixels."""
        vb, scale = self.plot.vb, self.stack.scale
        area, at = vb.sceneBoundingRect(), line_px(vb, self.capacity / scale)
        out = [*self._bodies(), QRectF(area.left(), at - PAD, area.width(), 2 * PAD)]
        if self.band:
            lo, hi = (v / scale for v in self.band)
            out.append(vb.mapViewToScene(QRectF(len(self.bars) - 1.06, lo, 0.12, hi - lo)).boundingRect())
        return out

    def _capacity_on_line(self, short: bool = False) -> bool:
        """The capacity label beside the line: right end, left end, above then below
        (``short``: its figure over "usable", for a narrow room beside the bars)."""
        vb, y = self.plot.vb, self.capacity / self.stack.scale
        (x0, x1), _ = vb.viewRange()
        area, taken = vb.sceneBoundingRect(), self._bar_rects() + self._bodies()
        usable = f"{fmt_bytes(self.capacity, self.unit, 1)} usable"
        # a layout of a still tiny plot may have wrapped it in the band (place()): back to its
        # own width, or the line's right end takes a column of single letters
        wrap_to(self.cap_label, 0.0)
        self.cap_label.setText(f"{self.gpu_name}: {usable}")
        if short:  # the title names the GPU, the axis says "per GPU"
            self.cap_label.setText(f"{fmt_bytes(self.capacity, self.unit, 1)}\nusable")
        elif scene_rect(self.cap_label).width() > 0.6 * area.width():
            self.cap_label.setText(f"{usable} per GPU")  # the title names the GPU
        for x, anchor in ((x1, (1, 1)), (x0, (0, 1)), (x1, (1, 0)), (x0, (0, 0))):
            self.cap_label.setAnchor(anchor)
            self.cap_label.setPos(x, y)
            rect = scene_rect(self.cap_label)
            if area.contains(rect) and not any(
                rect.intersects(r.adjusted(-PAD, -PAD, PAD, PAD)) for r in taken
            ):
                return True
        return False

    def _widen(self, px: float) -> None:
        """The x range as drawn, widened right of the last bar to ``px`` pixels of room."""
        vb, n = self.plot.vb, len(self.bars)
        right = max(self._right, room_right(px, vb.width(), n, self.stack.width))
        if abs(vb.viewRange()[0][1] - right) > 1e-9:
            self.plot.setXRange(-0.6, right, padding=0)

    def _capacity_beside(self) -> bool:
        """A case that does not fit: the line crosses the last bar, and the bars leave no
        room for its label at either end. Room right of that bar for the label on its line
        (as an engine's pool makes for its labels), so it reads at the line it names: in the
        band above, a 170 px leader line ran down to it (Qwen3-Next 80B at TP 1, 1024 x 700)."""
        if self.pool.reserved or self.capacity >= self.bars[-1].total:
            return False
        self.cap_label.setText(f"{fmt_bytes(self.capacity, self.unit, 1)}\nusable")
        width = scene_rect(self.cap_label).width() + 2 * PAD
        if width > CAP_ROOM * self.plot.vb.width():
            return False
        self._widen(width)
        self._fit_ticks()
        return self._fit_labels(band=0.0) and self._capacity_on_line(short=True)

    def _capacity_in_band(self) -> None:
        """The capacity label at the top right, above the bar labels, with a leader line."""
        vb, y = self.plot.vb, self.capacity / self.stack.scale
        (x0, x1), (_y0, top) = vb.viewRange()
        self.cap_label.setAnchor((1, 0))
        self.cap_label.setPos(x1, top)
        place([self.cap_label], vb, self._bar_rects() + self._bodies())
        rect = scene_rect(self.cap_label)
        foot = vb.mapSceneToView(rect.bottomRight())
        x = max(x0, min(x1, foot.x() - 0.02 * (x1 - x0)))
        self.leaders.draw([(QPointF(x, y), self.cap_label)], self.theme.foreground)
