"""What every chart shares: one PlotItem, the theme, the legend, hover tooltips (exports:
export.py).

A chart builds its graphics items once (``_build``), recomputes its data when the estimate
changes (``update_from`` -> ``_recompute``), pushes data into the items with setData/setOpts
(``_redraw``, also after a change of units) and applies colours, pens and fonts separately
(``restyle``, on a palette change), as in pyqtgraph's examples.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, Signal
from PySide6.QtGui import QCursor, QResizeEvent
from PySide6.QtWidgets import QGraphicsItem, QToolTip, QVBoxLayout, QWidget

from ...core.errors import ScenarioError
from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...io.units import UNITS
from ..binding import as_rich
from ..elide import labelled
from .export import ExportMixin
from .items import Legend, LegendSlot, Title
from .labels import visible_texts
from .legend_mixin import LegendMixin
from .palette import FONT_PX, LABEL_PX, TITLE_PX, Theme, font, theme_for
from .title_fit import TitleFit, headline

MEMORY_UNITS = ("GiB", "GB")
BOX_ALPHA = 230  # of the boxes behind labels: a line behind stays visible, but only just


def display_unit(unit: str, max_bytes: float) -> tuple[str, float]:
    """The unit to plot in and its size in bytes: TB/TiB once values pass 2,000 GB/GiB."""
    big = {"GiB": "TiB", "GB": "TB"}[unit]
    return (big, UNITS[big]) if max_bytes >= 2000 * UNITS[unit] else (unit, UNITS[unit])


class ChartBase(TitleFit, LegendMixin, ExportMixin, QWidget):
    """Base of every chart widget; subclasses fill ``_build``, ``_recompute``, ``_redraw``,
    ``data_rows`` and optionally ``tooltip_at``, ``_restyle_items``, ``_layout_labels``,
    ``_view_changed``, ``_body`` and ``shutdown``.

    What a chart needs from outside comes in explicitly: its view settings (:meth:`set_view`),
    ``background`` (in a window: slow work may run in a worker thread, gui/worker.py), and
    two signals out, which the window connects for every chart: ``viewChanged(view)`` when
    the user changes the view in the chart (the window remembers it) and
    ``editRequested(edits)`` to put ``{path: value}`` edits into the scenario (one undo step).
    """

    title = "Chart"
    grid_x = True  # vertical grid lines (off for bar charts)
    has_legend = True  # a legend column (a chart whose title names its series has none)
    view: Any = None  # the chart's view settings (core/views/settings.py); None when it has none
    viewChanged = Signal(object)
    editRequested = Signal(object)

    def __init__(self, parent: QWidget | None = None, *, background: bool = False) -> None:
        super().__init__(parent)
        self.background = background
        self.unit = "GiB"
        self.theme: Theme = theme_for(self.palette())
        self.plot_widget = pg.GraphicsLayoutWidget(parent=self)
        self._frame()
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)
        self._title_text = ""
        self._title_short = ""  # shown where the chart is too short for the whole (title_fit.py)
        self._title_is_short = False
        self._axis_text: dict[str, str] = {}
        self._texts: list[pg.TextItem] = []
        self._legend_items: list[Any] = []
        self.has_data = False
        self._laying_out = False
        self._build()
        self._layout.addWidget(self._body(), 1)
        self.restyle()
        # Labels are laid out in screen pixels: again whenever the plot's size changes.
        self.plot.vb.sigResized.connect(lambda *_a: self.relayout())
        # Rate-limited: a tooltip per mouse move would cost more than the repaint.
        self._hover = pg.SignalProxy(self.plot.scene().sigMouseMoved, rateLimit=30, slot=self._on_mouse)

    def _frame(self) -> None:
        """Title on top, plot below it, legend in a column of its own so that it never hides
        data or the capacity line; exports take the whole scene."""
        glw = self.plot_widget.ci
        glw.setContentsMargins(8, 8, 8, 8)
        self.title_item = Title()
        glw.addItem(self.title_item, row=0, col=0, colspan=2)
        self.plot: pg.PlotItem = glw.addPlot(row=1, col=0)
        self.slot = LegendSlot()
        self.plot.setMenuEnabled(False)
        self.plot.hideButtons()
        for side in ("left", "bottom"):
            # The grid is drawn by the axes and is what costs most to paint (13 of 19 ms for
            # a sweep, measured offscreen): cache it, it changes only with the view range.
            self.plot.getAxis(side).setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self.legend = self._new_legend()
        # One legend per set of entries, built once: switching between them (training vs
        # inference components) costs a layout swap instead of ~1 ms per rebuilt entry.
        self._legends: dict[tuple[int, ...], Legend] = {}
        if self.has_legend:
            self._place_legend(self.legend)
        glw.layout.setColumnStretchFactor(0, 1)
        glw.layout.setColumnStretchFactor(1, 0)

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_frame()

    # --- to implement -----------------------------------------------------------------------
    def _build(self) -> None:
        """Create the graphics items (once)."""

    def _body(self) -> QWidget:
        """What fills the chart below any bar a chart adds in ``_build``: the plot (a chart
        with a table beside its plot returns both, in a splitter)."""
        return self.plot_widget

    def shutdown(self) -> None:
        """Stop background work (the window is closing); charts with a worker override this."""

    def wait_settled(self, timeout_s: float = 30.0) -> bool:
        """Wait until background work has shown its result (screenshots, scripts); True when
        it has (at once for a chart without any)."""
        return True

    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        """Compute the chart's data (bytes, unit-free) from the estimate."""
        raise NotImplementedError

    def _redraw(self) -> None:
        """Push the data into the items (setData/setOpts), in the current units."""
        raise NotImplementedError

    def _restyle_items(self) -> None:
        """Apply the theme to the chart's own items."""

    def _layout_labels(self) -> None:
        """Place the chart's labels in pixels (charts with labels override this: see
        labels.py); runs after every redraw and resize."""

    def annotations(self) -> list[pg.TextItem]:
        """The visible text items in the plot, lines' labels included (labels.py)."""
        return visible_texts(self.plot)

    def relayout(self) -> None:
        """Lay the labels out again (guarded: a layout may change the view range)."""
        if not self.has_data or self._laying_out:
            return
        self._laying_out = True
        try:
            self._layout_labels()
        finally:
            self._laying_out = False

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
            self.relayout()

    def set_view(self, view: Any) -> None:
        """New view settings (a frozen object of core/views/settings.py); redrawn if data is shown."""
        if view == self.view:
            return
        self.view = view
        self._view_changed()

    def _view_changed(self) -> None:
        """Apply :attr:`view` (charts with settings override this)."""

    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        """Recompute from a new estimate and redraw (names elided first: gui/elide.py)."""
        self._recompute(*labelled(scenario, estimate))
        self.has_data = True
        self._redraw_then_relayout()

    def _redraw_then_relayout(self) -> None:
        """Redraw, then lay the labels out once: the plot resizes several times while a new
        legend is built (each a layout of every label: 9 for the first memory chart)."""
        self._laying_out = True
        try:
            self._redraw()
        finally:
            self._laying_out = False
        self.relayout()

    def restyle(self) -> None:
        """Colours, pens and fonts from the current palette (no data is recomputed)."""
        self.theme = t = theme_for(self.palette())
        self.plot_widget.setBackground(t.background)
        for side in ("left", "bottom"):
            axis = self.plot.getAxis(side)
            axis.setPen(pg.mkPen(t.foreground, width=1))
            axis.setTextPen(pg.mkPen(t.foreground))
            # Grid lines at the labelled ticks only: each grid line is an alpha-blended line
            # across the plot, and with pyqtgraph's two finer levels the grid took 13 of the
            # 19 ms of a sweep's repaint (measured offscreen, 1000 x 620).
            axis.setStyle(tickFont=font(FONT_PX), tickTextOffset=6, maxTickLevel=0)
            axis.setZValue(-1)  # grid lines behind the data, not across the bars
        self.plot.showGrid(x=self.grid_x, y=True, alpha=0.15)
        self._style_legend(self.legend)
        self._apply_texts()
        for item in self._texts:
            item.fill = pg.mkBrush(t.qcolor("background", BOX_ALPHA))
            item.setColor(t.foreground)
        self._restyle_items()

    # --- helpers ------------------------------------------------------------------------------
    def set_title(self, text: str, short: str = "") -> None:
        """The title (HTML; a ``<br>`` before its detail line) and the short form a short
        chart shows instead (default: the first line), the whole then in its tooltip."""
        short = short or headline(text)
        if (text, short) != (self._title_text, self._title_short):
            self._title_text, self._title_short = text, short
            self._fit_title_form()
            self._apply_texts()

    def set_axis_label(self, side: str, text: str) -> None:
        if text != self._axis_text.get(side):
            self._axis_text[side] = text
            self._apply_texts()

    def _apply_texts(self) -> None:
        fg = self.theme.foreground
        self.title_item.setText(self._title_form(), color=fg, size=f"{TITLE_PX}px")
        for side, text in self._axis_text.items():
            self.plot.getAxis(side).setLabel(text, color=fg, **{"font-size": f"{LABEL_PX}px"})

    def text_item(
        self,
        anchor: tuple[float, float] = (0, 0),
        pixels: int = LABEL_PX,
        bold: bool = False,
        boxed: bool = True,
    ) -> pg.TextItem:
        """An annotation added to the plot (not scaled with the view); ``boxed``: on a
        translucent box of the background colour, readable across lines and bars (but hiding
        what is under it: not for labels beside markers)."""
        item = pg.TextItem("", anchor=anchor)
        item.setFont(font(pixels, bold))
        item.setZValue(20)  # above bars and lines
        self.plot.addItem(item)
        if boxed:
            self._texts.append(item)
            item.fill = pg.mkBrush(self.theme.qcolor("background", BOX_ALPHA))
        return item

    @staticmethod
    def set_centred_html(item: pg.TextItem, html: str) -> None:
        """HTML whose lines are centred on each other (``text-align`` needs a text width)."""
        item.setTextWidth(-1)  # back to the natural width before measuring it
        item.setHtml(f"<div style='text-align:center'>{html}</div>")
        item.setTextWidth(item.textItem.document().idealWidth())

    def _on_mouse(self, event: tuple[Any, ...]) -> None:
        pos = event[0]
        if not self.has_data or not self.plot.vb.sceneBoundingRect().contains(pos):
            return
        p = self.plot.vb.mapSceneToView(pos)
        text = self.tooltip_at(p.x(), p.y())
        if text:  # literal: names in it come from files others share
            QToolTip.showText(QCursor.pos(), as_rich(text), self.plot_widget)
        else:
            QToolTip.hideText()

    def changeEvent(self, event: QEvent) -> None:
        if event.type() == QEvent.Type.PaletteChange and hasattr(self, "legend"):
            self.restyle()
        super().changeEvent(event)
