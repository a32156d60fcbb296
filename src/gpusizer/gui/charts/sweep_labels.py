"""The Sweeps chart's lines and labels: the powers of two on the x axis that fit its width, the
y range (up to three times the capacity) with the label where the peak leaves the top, the
boundary and "this scenario" markers, and the labels kept inside the plot (sweep.py draws the
curves; the words are sweep_words.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QLineF, QPointF, QRectF

from ...core.views.sweep import current_value
from ...io.units import fmt_bytes
from .axis_title import fit_left_title
from .labels import crosses, place, scene_rect
from .sweep_words import SweepWords
from .ticks import thinned

SEGMENT_PX = 4.0  # the peak curve as an obstacle: one segment per this many pixels of it


class SweepLabels(SweepWords):
    """Mixin of SweepChart (a ChartBase): its axis ticks, y range, markers and labels."""

    capacity_line: pg.InfiniteLine
    boundary: pg.InfiniteLine
    current: pg.InfiniteLine
    off_label: pg.TextItem
    total_curve: pg.PlotDataItem
    _off_at: tuple[float, float] = (0.0, 0.0)  # where the peak leaves the top (view units)
    _cap_words: tuple[str, str] = ("", "")  # the capacity's label with the GPU's name, without
    _scale: float
    left_titles: tuple[str, ...]
    _ticks: list[list[tuple[float, str]]] | None
    _all_ticks: list[tuple[float, str]] | None

    def _thin_ticks(self) -> None:
        """The powers of two whose labels fit the plot's width (charts/ticks.py): at 1024 px
        "256" and "512" ran together as "256512"."""
        ticks = None
        if self._all_ticks is not None:
            (lo, hi), width = self.plot.vb.viewRange()[0], self.plot.vb.width()
            ticks = [thinned(self._all_ticks, width / (hi - lo) if hi > lo else 0.0)]
        if ticks != self._ticks:  # new ticks invalidate the axis and its cached grid
            self.plot.getAxis("bottom").setTicks(ticks)
            self._ticks = ticks

    def _y_range(
        self, x: np.ndarray, totals: np.ndarray, cap: float, log_x: bool, lo: float, hi: float
    ) -> None:
        """Up to three times the capacity (the whole peak when all of it is above that); where
        the peak leaves the top, a label at that point says how high it goes."""
        top, low = np.nanmax(totals, initial=0.0), np.nanmin(totals, initial=np.inf)
        ymax = top * 1.12 if low > 3 * cap else max(cap, min(top, 3 * cap)) * 1.12
        self.plot.setYRange(0, ymax, padding=0)
        above = np.flatnonzero(np.nan_to_num(totals, nan=0.0) > ymax)
        self.off_label.setVisible(above.size > 0)
        if above.size:
            first = float(x[above[0]])
            xpos = math.log10(first) if log_x else first
            right = hi > lo and (xpos - lo) / (hi - lo) > 0.6
            self.off_label.setAnchor((1, 0) if right else (0, 0))
            self.off_label.setText(
                f"↑ peak above the scale from {self.counted(first)}: up to "
                f"{fmt_bytes(int(top * self._scale), self.unit, 1)}"
            )
            self._off_at = (xpos, ymax)
            self.off_label.setPos(xpos, ymax)

    def _layout_labels(self) -> None:
        """The lines' labels inside the plot (a short plot cut them at the top: the capacity
        label goes under its line, the boundary's lower on its line), then the off-the-scale
        label clear of both."""
        self._thin_ticks()
        fit_left_title(self, self.left_titles)  # a short plot: a shorter axis title
        area = self.plot.vb.sceneBoundingRect().adjusted(-1, -1, 1, 1)
        cap = self.capacity_line.label
        self._fit_capacity_words(cap, area)
        for anchor in ((0, 1), (0, 0)):
            cap.anchors = [anchor, anchor]
            cap.updatePosition()
            if area.contains(scene_rect(cap)):
                break
        if self.boundary.isVisible():
            self._place_boundary_label(area)
        if self.off_label.isVisible():
            self._place_off_label(area)

    def _fit_capacity_words(self, cap: pg.InfLineLabel, area: QRectF) -> None:
        """The GPU's name dropped from the capacity's label where the plot is narrower than the
        words: at 1024 x 768 a QLoRA sweep read "GeForce RTX 4090 24GB: 24.0 GiB usab"."""
        whole, short = self._cap_words
        if not whole or not self.isVisible():  # no plot width to fit yet
            return
        cap.setFormat(whole)
        cap.updatePosition()
        rect = scene_rect(cap)
        if rect.left() < area.left() or rect.right() > area.right():
            cap.setFormat(short)
            cap.updatePosition()

    def _boundary_inside(self, area: QRectF) -> None:
        """The boundary's words on the side of its line where they stay inside the plot's
        width, else broken before "from" on the wider side: at 1024 x 768 (a 284 px plot)
        "out of memory from 1,589", half-way across, was cut at "from 1" on either side."""
        label = self.boundary.label
        if not self.isVisible():  # no plot width to fit yet
            return
        words = " ".join(label.format.split())
        head, _, tail = words.rpartition(" from ")
        broken = f"{head}\nfrom {tail}" if head else words
        x = self.plot.vb.mapViewToScene(self.boundary.pos()).x()
        sides = [False, True] if area.right() - x >= x - area.left() else [True, False]
        for text in (words, broken):
            for left in sides:
                self._boundary_words(text, left)
                rect = scene_rect(label)
                if area.left() <= rect.left() and rect.right() <= area.right():
                    return
        self._boundary_words(broken, sides[0])

    def _boundary_words(self, text: str, left: bool) -> None:
        label = self.boundary.label
        label.anchors = [(1, 0.5), (1, 0.5)] if left else [(0, 0.5), (0, 0.5)]
        label.setFormat("\n".join(f"{t} " if left else f" {t}" for t in text.split("\n")))
        label.updatePosition()

    def _place_boundary_label(self, area: QRectF) -> None:
        """The boundary's words lower on its line, inside the plot and clear of the capacity's
        label; else the capacity's label under its line. Where the engine starts at no value the
        boundary stands at the left end, beside the capacity's words, and its box hid "H100 SXM
        80GB: 79.6 GiB usable" (seen at 1366 x 768 and 1920 x 1080)."""
        cap, label = self.capacity_line.label, self.boundary.label
        self._boundary_inside(area)
        inside = None
        for position in (0.93, 0.85, 0.75, 0.6):
            label.setPosition(position)
            rect = scene_rect(label)
            if area.contains(rect):
                if not rect.intersects(scene_rect(cap)):
                    return
                inside = position if inside is None else inside
        if inside is not None:
            label.setPosition(inside)
        if scene_rect(label).intersects(scene_rect(cap)) and cap.anchors[0] != (0, 0):
            cap.anchors = [(0, 0), (0, 0)]
            cap.updatePosition()

    def _place_off_label(self, area: QRectF) -> None:
        """Where the peak leaves the top, clear of the lines' labels and of the peak curve;
        on two lines where one line finds no room off the curve. Wrapped to the plot's width
        where it is wider (at 1024 px "↑ peak above the scale from 20,133: up to 362.4 GiB"
        was cut after "up to")."""
        label, segments = self.off_label, self._peak_segments()
        fixed = [scene_rect(x.label) for x in (self.boundary, self.capacity_line) if x.isVisible()]
        label.setTextWidth(-1)
        one_line = scene_rect(label).width()
        widths = (min(one_line, area.width() - 8), min(0.55 * one_line, area.width() - 8))
        for width in (*widths, widths[0]):  # one line, else two, else one line across the curve
            self._off_try(width, one_line)
            place([label], self.plot.vb, fixed, lines=segments)
            if not any(crosses(seg, scene_rect(label)) for seg in segments):
                return

    def _off_try(self, width: float, one_line: float) -> None:
        self.off_label.setPos(*self._off_at)
        self.off_label.setTextWidth(width if width < one_line else -1)

    def _peak_segments(self) -> list[QLineF]:
        """The peak curve in scene pixels, the off-the-scale words placed where it does not
        cross them (at 1,400 x 900 the curve ran through "scale from 7,372" on its way out)."""
        x, y = self.total_curve.getData()  # as drawn: log10 of x on a log axis
        if x is None or y is None:
            return []
        vb = self.plot.vb
        area = vb.sceneBoundingRect()
        points: list[QPointF | None] = []
        for a, b in zip(x, y, strict=False):
            p = vb.mapViewToScene(QPointF(float(a), float(b))) if np.isfinite(a) and np.isfinite(b) else None
            last = points[-1] if points else None
            if p is None or last is None or (p - last).manhattanLength() >= SEGMENT_PX:
                points.append(p)  # a 1,000-point curve in segments of a few pixels: enough
        return [
            QLineF(p, q)
            for p, q in itertools.pairwise(points)
            if p is not None
            and q is not None
            and QRectF(p, q).normalized().adjusted(-1, -1, 1, 1).intersects(area)
        ]

    def _place_markers(self, log_x: bool) -> None:
        def pos(v: float) -> float:
            return math.log10(v) if log_x else v

        b = self.boundary_value()
        self.boundary.setVisible(b is not None)
        if b is not None:
            self.boundary.setValue(pos(b))
            word = "fits from" if self.axis == "gpus" else f"{self._stop_word(b)} from"
            vals = self.result.values if self.result is not None else (b, b)
            lo, hi = pos(vals[0]), pos(vals[-1])
            right_half = hi > lo and (pos(b) - lo) / (hi - lo) > 0.6
            # Near the right edge the label goes left of the line, so it is never clipped.
            self.boundary.label.anchors = [(1, 0.5), (1, 0.5)] if right_half else [(0, 0.5), (0, 0.5)]
            text = f"{word} {self.counted(b)} " if right_half else f" {word} {self.counted(b)}"
            self.boundary.label.setFormat(text)
            self.boundary.label.updatePosition()
        assert self.scenario is not None
        self.current.setValue(pos(current_value(self.scenario, self.axis)))
