"""Taking a chart out of the app: PNG at a chosen width, SVG, CSV, the clipboard."""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import QBuffer, QIODevice, QMimeData, QRect, QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtWidgets import QGraphicsItem, QWidget

from ...io.atomic import write_atomic
from ...io.export import csv_text
from .palette import Theme

EXPORT_SIZE = (1000, 620)  # logical px of an unshown chart when exported (CLI, report)


def _encode_png(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if image.isNull() or not image.save(buffer, "PNG"):  # type: ignore[call-overload]
        # (QImage.save(QIODevice, format) exists; PySide6's stub omits it. QImage says only
        # yes or no.)
        raise OSError(errno.EIO, "the chart could not be encoded as PNG")
    return bytes(buffer.data().data())


def _checked_svg(data: bytes) -> bytes:
    """The SVG, if it is a whole document (an export must never be a truncated SVG)."""
    from xml.etree import ElementTree

    try:
        root = ElementTree.fromstring(data)
    except ElementTree.ParseError as exc:
        raise OSError(errno.EIO, f"the chart's SVG is incomplete ({exc})") from None
    if not root.tag.endswith("svg"):
        raise OSError(errno.EIO, "the chart's SVG has no <svg> root")
    return data


# pyqtgraph.exporters (its SVG exporter pulls in xml.dom), QtSvg and ElementTree are imported by
# the export that needs them: at start-up they cost ~20 ms before the first chart is drawn.
if TYPE_CHECKING:  # the type checker sees the QWidget that ChartBase also is
    import pyqtgraph.exporters as pg_exporters

    _WidgetBase = QWidget
else:
    _WidgetBase = object


class ExportMixin(_WidgetBase):
    """Exports of a ChartBase (which provides these attributes and ``data_rows``)."""

    title: str
    theme: Theme
    plot: pg.PlotItem
    plot_widget: pg.GraphicsLayoutWidget

    def data_rows(self) -> list[list[Any]]:
        raise NotImplementedError

    def export_png(self, path: str | Path, width: int = 1600) -> Path:
        """Write a PNG ``width`` px wide (height keeps the chart's aspect), atomically: the
        image is encoded in memory, then replaces the file (a full disk leaves the old one)."""
        return write_atomic(path, _encode_png(self.render_image(width)))

    def export_svg(self, path: str | Path) -> Path:
        """Write an SVG of the chart at its on-screen size (vector: paths and text), atomically,
        once it is complete and parses.

        Rendered with Qt's QSvgGenerator: pyqtgraph's SVGExporter cannot parse the path data
        Qt 6.8+ writes (pyqtgraph issue #3485, ValueError in correctCoordinates)."""
        return write_atomic(path, _checked_svg(self._svg_bytes()))

    def _svg_bytes(self) -> bytes:
        from PySide6.QtSvg import QSvgGenerator

        self._ensure_laid_out()
        view = self.plot_widget
        size = view.viewport().size()
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        gen = QSvgGenerator()
        gen.setOutputDevice(buffer)
        gen.setSize(size)
        gen.setViewBox(QRect(0, 0, size.width(), size.height()))
        gen.setTitle(self.title)
        # The screen's DPI, not the generator's default 72: pyqtgraph's axes scale their
        # drawing by the paint device's DPI and would shrink against the rest.
        gen.setResolution(view.logicalDpiX())
        painter = QPainter(gen)
        try:
            with self._uncached():
                painter.fillRect(QRect(0, 0, size.width(), size.height()), self.theme.qcolor("background"))
                view.render(painter, QRectF(0, 0, size.width(), size.height()), view.viewport().rect())
        finally:
            painter.end()
        buffer.close()
        return bytes(buffer.data().data())

    def render_image(self, width: int = 1600) -> QImage:
        """The chart as an image ``width`` px wide (what export_png writes)."""
        exporter = self._image_exporter(width)
        with self._uncached():
            return exporter.export(toBytes=True)

    @contextmanager
    def _uncached(self) -> Iterator[None]:
        """Axes drawn afresh for an export: a cache holds pixels at screen resolution, and
        an export is drawn at another scale, or as vectors."""
        axes = [self.plot.getAxis(side) for side in ("left", "bottom")]
        for axis in axes:
            axis.setCacheMode(QGraphicsItem.CacheMode.NoCache)
        try:
            yield
        finally:
            for axis in axes:
                axis.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def data_csv(self) -> str:
        """The data behind the chart as CSV text (header row first; formulas defused)."""
        return csv_text(self.data_rows())

    def copy_to_clipboard(self) -> None:
        """The chart as an image, and its data as CSV text, for pasting anywhere."""
        mime = QMimeData()
        mime.setImageData(self.render_image())
        mime.setText(self.data_csv())
        QGuiApplication.clipboard().setMimeData(mime)

    def _ensure_laid_out(self) -> None:
        """A top-level chart never shown has no geometry yet: lay it out offscreen."""
        if self.parent() is None and not self.isVisible():
            self.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
            self.resize(*EXPORT_SIZE)
            self.show()
            QGuiApplication.processEvents()

    def _image_exporter(self, width: int) -> pg_exporters.ImageExporter:
        import pyqtgraph.exporters as pg_exporters

        self._ensure_laid_out()
        exporter = pg_exporters.ImageExporter(self.plot_widget.scene())
        params = exporter.parameters()
        params["background"] = self.theme.qcolor("background")
        params["width"] = int(width)  # the height follows the aspect ratio
        return exporter
