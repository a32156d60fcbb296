"""What every chart shares: one PlotItem, the theme, hover tooltips, exports, CSV, clipboard.

A chart builds its graphics items once (``_build``), recomputes its data when the estimate
changes (``update_from`` -> ``_recompute``), pushes data into the items with setData/setOpts
(``_redraw``, also after a change of units) and applies colours, pens and fonts separately
(``restyle``, on a palette change), as in pyqtgraph's examples.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pyqtgraph as pg
import pyqtgraph.exporters as pg_exporters
from PySide6.QtCore import QEvent, QMimeData, QRect, QRectF, Qt
from PySide6.QtGui import QCursor, QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgGenerator
from PySide6.QtWidgets import QSizePolicy, QToolTip, QVBoxLayout, QWidget

from ...core.errors import ScenarioError
from ...core.result import Estimate
from ...core.specs import Scenario
from ...io.units import UNITS
from .palette import FONT_PX, LABEL_PX, TITLE_PX, Theme, font, theme_for

EXPORT_SIZE = (1000, 620)  # logical px of an unshown chart when exported (CLI, report)
MEMORY_UNITS = ("GiB", "GB")


def display_unit(unit: str, max_bytes: float) -> tuple[str, float]:
    """The unit to plot in and its size in bytes: TB/TiB once values pass 2,000 GB/GiB."""
    big = {"GiB": "TiB", "GB": "TB"}[unit]
    return (big, UNITS[big]) if max_bytes >= 2000 * UNITS[unit] else (unit, UNITS[unit])


class _Legend(pg.LegendItem):
    """A legend that lives in a layout cell: a change of entries also asks the parent layout
    for room (pyqtgraph sizes a floating legend itself and moves it to the scene origin)."""

    host: Any = None  # the QGraphicsGridLayout holding the legend, set by the chart

    def updateSize(self) -> None:  # noqa: N802 (pyqtgraph override)
        super().updateSize()
        self.updateGeometry()
        # Not parentLayoutItem(): in PySide6 6.12 each call that returns None drops a
        # reference to None, and enough of them abort Python ("deallocating None").
        if self.host is not None:
            self.host.activate()  # puts the legend back in its cell now, not on the next event


class ChartBase(QWidget):
    """Base of every chart widget; subclasses fill ``_build``, ``_recompute``, ``_redraw``,
    ``data_rows`` and optionally ``tooltip_at`` and ``_restyle_items``."""

    title = "Chart"
    grid_x = True  # vertical grid lines (off for bar charts)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.unit = "GiB"
        self.theme: Theme = theme_for(self.palette())
        # Title on top, plot below it, legend in a column of its own so that it never hides
        # data or the capacity line; exports take the whole scene.
        self.plot_widget = pg.GraphicsLayoutWidget(parent=self)
        glw = self.plot_widget.ci
        glw.setContentsMargins(8, 8, 8, 8)
        self.title_item = pg.LabelItem("", justify="center")
        glw.addItem(self.title_item, row=0, col=0, colspan=2)
        self.plot: pg.PlotItem = glw.addPlot(row=1, col=0)
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        self.legend = _Legend(labelTextSize=f"{LABEL_PX}px", verSpacing=-4)
        # Fixed: sized by its entries, not stretched to the plot's height.
        self.legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        # pyqtgraph makes a legend ignore transformations (it floats over a view); in a layout
        # it must scale with the rest, or a 1600 px export shows it at screen size.
        self.legend.setFlag(self.legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        glw.addItem(self.legend, row=1, col=1)
        self.legend.host = glw.layout
        glw.layout.setAlignment(self.legend, Qt.AlignmentFlag.AlignTop)
        glw.layout.setColumnStretchFactor(0, 1)
        glw.layout.setColumnStretchFactor(1, 0)
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._layout.addWidget(self.plot_widget)
        self._title_text = ""
        self._axis_text: dict[str, str] = {}
        self._texts: list[pg.TextItem] = []
        self.has_data = False
        self._build()
        self.restyle()
        # Rate-limited: a tooltip per mouse move would cost more than the repaint.
        self._hover = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30,
                                     slot=self._on_mouse)

    # --- to implement -----------------------------------------------------------------------
    def _build(self) -> None:
        """Create the graphics items (once)."""

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        """Compute the chart's data (bytes, unit-free) from the estimate."""
        raise NotImplementedError

    def _redraw(self) -> None:
        """Push the data into the items (setData/setOpts), in the current units."""
        raise NotImplementedError

    def _restyle_items(self) -> None:
        """Apply the theme to the chart's own items."""

    def data_rows(self) -> list[list[Any]]:
        """The data behind the chart: a header row, then one row per data point."""
        raise NotImplementedError

    def tooltip_at(self, x: float, y: float) -> str:
        """Hover text at view coordinates (x, y); empty for none."""
        return ""

    # --- public API ---------------------------------------------------------------------------
    def set_units(self, unit: str) -> None:
        """Show memory in ``"GiB"`` (2^30 B) or ``"GB"`` (10^9 B)."""
        if unit not in MEMORY_UNITS:
            raise ScenarioError("units", f"must be GiB or GB; got {unit!r}")
        self.unit = unit
        if self.has_data:
            self._redraw()

    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        """Recompute from a new estimate and redraw."""
        self._recompute(scenario, estimate)
        self.has_data = True
        self._redraw()

    def restyle(self) -> None:
        """Colours, pens and fonts from the current palette (no data is recomputed)."""
        self.theme = t = theme_for(self.palette())
        self.plot_widget.setBackground(t.background)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setPen(pg.mkPen(t.foreground, width=1))
            axis.setTextPen(pg.mkPen(t.foreground))
            axis.setStyle(tickFont=font(FONT_PX), tickTextOffset=6)
            axis.setZValue(-1)  # grid lines behind the data, not across the bars
        self.plot.showGrid(x=self.grid_x, y=True, alpha=0.15)
        self.legend.setLabelTextColor(t.foreground)
        self.legend.setBrush(pg.mkBrush(t.qcolor("background", 215)))
        self.legend.setPen(pg.mkPen(t.muted))
        self._apply_texts()
        for item in self._texts:
            item.fill = pg.mkBrush(t.qcolor("background", 200))
            item.setColor(t.foreground)
        self._restyle_items()

    def export_png(self, path: str | Path, width: int = 1600) -> Path:
        """Write a PNG ``width`` px wide (height keeps the chart's aspect)."""
        exporter = self._image_exporter(width)
        out = Path(path)
        if exporter.export(str(out)) is False:  # QImage.save says only yes or no
            raise OSError(f"cannot write {out}")
        return out

    def export_svg(self, path: str | Path) -> Path:
        """Write an SVG of the chart at its on-screen size (vector: paths and text).

        Rendered with Qt's QSvgGenerator: pyqtgraph's SVGExporter cannot parse the path data
        Qt 6.8+ writes (pyqtgraph issue #3485, ValueError in correctCoordinates)."""
        self._ensure_laid_out()
        out = Path(path)
        view = self.plot_widget
        size = view.viewport().size()
        gen = QSvgGenerator()
        gen.setFileName(str(out))
        gen.setSize(size)
        gen.setViewBox(QRect(0, 0, size.width(), size.height()))
        gen.setTitle(self.title)
        # The screen's DPI, not the generator's default 72: pyqtgraph's axes scale their
        # drawing by the paint device's DPI and would shrink against the rest.
        gen.setResolution(view.logicalDpiX())
        painter = QPainter(gen)
        try:
            painter.fillRect(QRect(0, 0, size.width(), size.height()),
                             self.theme.qcolor("background"))
            view.render(painter, QRectF(0, 0, size.width(), size.height()), view.viewport().rect())
        finally:
            painter.end()
        if not out.is_file():
            raise OSError(f"cannot write {out}")
        return out

    def render_image(self, width: int = 1600) -> QImage:
        return self._image_exporter(width).export(toBytes=True)

    def data_csv(self) -> str:
        buf = io.StringIO()
        csv.writer(buf, lineterminator="\n").writerows(self.data_rows())
        return buf.getvalue()

    def copy_to_clipboard(self) -> None:
        """The chart as an image, and its data as CSV text, for pasting anywhere."""
        mime = QMimeData()
        mime.setImageData(self.render_image())
        mime.setText(self.data_csv())
        QGuiApplication.clipboard().setMimeData(mime)

    # --- helpers ------------------------------------------------------------------------------
    def set_title(self, text: str) -> None:
        self._title_text = text
        self._apply_texts()

    def set_axis_label(self, side: str, text: str) -> None:
        self._axis_text[side] = text
        self._apply_texts()

    def _apply_texts(self) -> None:
        fg = self.theme.foreground
        self.title_item.setText(self._title_text, color=fg, size=f"{TITLE_PX}px")
        for side, text in self._axis_text.items():
            self.plot.getAxis(side).setLabel(text, color=fg, **{"font-size": f"{LABEL_PX}px"})

    def text_item(self, anchor: tuple[float, float] = (0, 0), pixels: int = LABEL_PX,
                  bold: bool = False, boxed: bool = True) -> pg.TextItem:
        """An annotation added to the plot (not scaled with the view); ``boxed``: on a
        translucent box of the background colour, readable across lines and bars (but hiding
        what is under it: not for labels beside markers)."""
        item = pg.TextItem("", anchor=anchor)
        item.setFont(font(pixels, bold))
        item.setZValue(20)  # above bars and lines
        self.plot.addItem(item)
        if boxed:
            self._texts.append(item)
            item.fill = pg.mkBrush(self.theme.qcolor("background", 200))
        return item

    def _ensure_laid_out(self) -> None:
        """A top-level chart never shown has no geometry yet: lay it out offscreen."""
        if self.parent() is None and not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            self.resize(*EXPORT_SIZE)
            self.show()
            QGuiApplication.processEvents()

    def _image_exporter(self, width: int) -> pg_exporters.ImageExporter:
        self._ensure_laid_out()
        exporter = pg_exporters.ImageExporter(self.plot_widget.scene())
        params = exporter.parameters()
        params["background"] = self.theme.qcolor("background")
        params["width"] = int(width)  # the height follows the aspect ratio
        return exporter

    def _on_mouse(self, event: tuple[Any, ...]) -> None:
        pos = event[0]
        if not self.has_data or not self.plot.vb.sceneBoundingRect().contains(pos):
            return
        p = self.plot.vb.mapSceneToView(pos)
        text = self.tooltip_at(p.x(), p.y())
        if text:
            QToolTip.showText(QCursor.pos(), text, self.plot_widget)
        else:
            QToolTip.hideText()

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt override)
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "legend"):
            self.restyle()
        super().changeEvent(event)
