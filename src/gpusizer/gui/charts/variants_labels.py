"""The Training vs inference chart's labels: each bar's peak and GPU count above it (two
rows where the bars stand too close for one: stagger.py), and the dashed lines' labels where
they cover no bar and no bar's label (variants.py draws the bars)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QRectF

from ...core.views.variants import VariantBar, Variants
from ...io.units import fmt_bytes
from ...io.wording import count
from .axis_title import fit_left_title
from .base import display_unit
from .labels import PAD, Leaders, outside, place, room_above, scene_rect, set_top
from .over_line import line_px
from .stagger import stagger

if TYPE_CHECKING:
    from .base import ChartBase as _Base
else:
    _Base = object


def gpus_words(bar: VariantBar) -> str:
    """The GPUs a bar needs: "2+ GPUs" where its engine does not start on the one GPU its
    needs fit (``VariantBar.starts``): an EAGLE-3 70B FP8 read a green "1 GPU" beside the
    verdict's "vLLM does not start" and "GPUs needed: 6", its pool too small for one request."""
    if bar.gpus_needed == 1 and not bar.starts:
        return "2+ GPUs"
    return count(bar.gpus_needed, "GPU")


def short_bytes(n_bytes: float, unit: str) -> str:
    """``fmt_bytes`` in the unit that reads best (GB or TB; GiB or TiB)."""
    big, _ = display_unit(unit, n_bytes)
    return fmt_bytes(n_bytes, big, 2 if big != unit else 0 if n_bytes >= 1e11 else 1)


class VariantLabels(_Base):
    """Mixin of VariantsChart (a ChartBase): the label layout of its bars and lines."""

    cmp: Variants | None
    left_titles: tuple[str, ...]
    bar_labels: list[pg.TextItem]
    leaders: Leaders
    gpu_line: pg.InfiniteLine
    node_line: pg.InfiniteLine
    stack: Any
    _top: float
    short_labels = False  # one line per label: the GPU count (a plot too short for two)

    def _fit_ticks(self) -> None:
        raise NotImplementedError

    def _update_labels(self, scale: float) -> None:
        cmp = self.cmp
        if cmp is None:
            return
        t = self.theme
        while len(self.bar_labels) < len(cmp.bars):
            self.bar_labels.append(self.text_item((0.5, 1), pixels=12))
        for i, label in enumerate(self.bar_labels):
            label.setVisible(i < len(cmp.bars))
            if i >= len(cmp.bars):
                continue
            b = cmp.bars[i]
            color = t.good if b.gpus_needed == 1 and b.starts else t.foreground
            gpus = gpus_words(b)
            if self.short_labels:  # the peak is read off the axis, and in the hover text
                html = f"<b style='color:{color}'>{gpus}</b>"
            else:  # two lines, host RAM or not: a third made the short chart's labels collide
                where = "the CPU's share" if cmp.unified else "host RAM"
                ram = f" + {short_bytes(b.host, self.unit)}" if b.host else ""
                beside = f" + {where}" if b.host else ""
                html = (
                    f"<b>{short_bytes(b.total, self.unit)}</b>{ram}<br>"
                    f"<span style='color:{color}'>{gpus}</span>{beside}"
                )
            self.set_centred_html(label, f"<div style='color:{t.foreground}'>{html}</div>")
            label.setPos(i, (b.total + b.host) / scale)

    def _layout_labels(self) -> None:
        """Room above the bars for their labels, in two rows where one collides
        (stagger.py), then the labels nudged off each other and off the lines' labels
        (labels.py)."""
        cmp, vb = self.cmp, self.plot.vb
        if cmp is None:
            return
        scale = self.stack.scale
        self._fit_ticks()  # the pitch follows the chart's width
        fit_left_title(self, self.left_titles)  # and the axis's title its height
        labels = self.bar_labels[: len(cmp.bars)]
        self.short_labels = False
        self._stack_labels(scale)
        if outside(labels, vb):  # a short plot: one line each, the rest in the hover text
            self.short_labels = True
            self._stack_labels(scale)
            if outside(labels, vb):  # no room for either (a chart not yet laid out): as it was
                self.short_labels = False
                self._stack_labels(scale)
        bodies = self._bodies(scale)
        # a label resting on its bar's top is not over it (place() pads the obstacles)
        place(labels, vb, [r.adjusted(0, PAD + 1, 0, 0) for r in bodies])
        self.leaders.draw(
            [
                (QPointF(i, (b.total + b.host) / scale), label)
                for i, (b, label) in enumerate(zip(cmp.bars, labels, strict=False))
                if not b.reserved  # above its pool's outline: plainly the bar's label
            ],
            self.theme.muted,
        )
        self._place_line_labels([*bodies, *(scene_rect(x) for x in labels if x.isVisible())])

    def _stack_labels(self, scale: float) -> None:
        """Room above the bars (and the lines) for the labels, then each label on what
        stands under it, neighbours side by side in two rows (stagger.py)."""
        assert self.cmp is not None
        vb, labels = self.plot.vb, self.bar_labels[: len(self.cmp.bars)]
        lines = [x for x in (self.gpu_line, self.node_line) if x.isVisible()]
        tops = [(b.total + b.host) / scale for b in self.cmp.bars] + [x.value() for x in lines]
        self._update_labels(scale)
        set_top(vb, room_above(vb, tops, [*labels, *(x.label for x in lines)], self._top))
        self._update_labels(scale)
        under, reset = (lambda: self._under(scale)), (lambda: self._update_labels(scale))
        stagger(vb, tops[: len(labels)], labels, under, reset)

    def _under(self, scale: float) -> list[QRectF]:
        """What a label rests on: the bars, and the dashed lines (a line through a label
        reads as struck-out text), as strips 2 PAD tall across the plot."""
        vb = self.plot.vb
        area = vb.sceneBoundingRect()
        strips = [
            QRectF(area.left(), line_px(vb, x.value()) - PAD, area.width(), 2 * PAD)
            for x in (self.gpu_line, self.node_line)
            if x.isVisible()
        ]
        return self._bodies(scale) + strips

    def label_tip(self, x: float, y: float) -> str:
        """The whole label of the bar whose label is under view point (x, y) where the labels
        are shortened (a short plot's give only the GPU count), else ""."""
        cmp, vb = self.cmp, self.plot.vb
        if cmp is None or not self.short_labels:
            return ""
        at = vb.mapViewToScene(QPointF(x, y))
        for b, label in zip(cmp.bars, self.bar_labels, strict=False):
            if label.isVisible() and scene_rect(label).contains(at):
                host = f" + {short_bytes(b.host, self.unit)} in host RAM" if b.host else ""
                return f"{b.label}: {short_bytes(b.total, self.unit)}{host}, {gpus_words(b)}"
        return ""

    def _bodies(self, scale: float) -> list[QRectF]:
        """The bars (and the pools outlined around them) in scene pixels."""
        assert self.cmp is not None
        vb, half = self.plot.vb, self.stack.width / 2
        return [
            vb.mapViewToScene(
                QRectF(i - half, 0, 2 * half, max(b.total + b.host, b.reserved) / scale)
            ).boundingRect()
            for i, b in enumerate(self.cmp.bars)
        ]

    def _place_line_labels(self, taken: list[QRectF]) -> None:
        """Each line's label at the right or left end, above or below its line, where it
        covers no bar and no label ("1 node" once covered "1 GPU" and the bars);
        hidden where no such place is (the legend names both lines)."""
        area = self.plot.vb.sceneBoundingRect()
        for line in (self.gpu_line, self.node_line):
            label = line.label
            label.setVisible(line.isVisible())
            if not line.isVisible():
                continue
            for position, anchor in ((0.99, (1, 1)), (0.99, (1, 0)), (0.01, (0, 1)), (0.01, (0, 0))):
                label.anchors = [anchor, anchor]
                label.setPosition(position)
                label.updatePosition()
                rect = scene_rect(label)
                if area.contains(rect) and not any(
                    rect.intersects(r.adjusted(-PAD, -PAD, PAD, PAD)) for r in taken
                ):
                    taken.append(rect)
                    break
            else:
                label.setVisible(False)
