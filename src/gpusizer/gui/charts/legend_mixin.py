"""A chart's legend: in a column of its own right of the plot, or under it when the chart is
short or narrow (items.LegendSlot); one legend per set of entries, built once and swapped in
(base.py holds the chart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyqtgraph as pg
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QSizePolicy

from .items import Legend, LegendSlot
from .palette import LABEL_PX

if TYPE_CHECKING:  # the type checker sees the QWidget that ChartBase also is
    from PySide6.QtWidgets import QWidget as _WidgetBase

    from .items import Title
    from .palette import Theme
else:
    _WidgetBase = object


class LegendMixin(_WidgetBase):
    """Mixin of ChartBase: its legend's making, placing, styling and entries."""

    has_legend: bool
    theme: Theme
    plot_widget: pg.GraphicsLayoutWidget
    title_item: Title
    slot: LegendSlot
    legend: Legend
    _legends: dict[tuple[int, ...], Legend]
    _legend_items: list[Any]

    if TYPE_CHECKING:  # TitleFit's (title_fit.py): the legend's place, then the title's form

        def _fit_frame(self) -> None: ...

    def _new_legend(self) -> Legend:
        legend = Legend(labelTextSize=f"{LABEL_PX}px", verSpacing=-4)
        # Fixed: sized by its entries, not stretched to the plot's height.
        legend.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        # pyqtgraph makes a legend ignore transformations (it floats over a view); in a layout
        # it must scale with the rest, or a 1600 px export shows it at screen size.
        legend.setFlag(legend.GraphicsItemFlag.ItemIgnoresTransformations, False)
        legend.texts = []
        legend.theme = None
        return legend

    def _place_legend(self, legend: Legend) -> None:
        glw = self.plot_widget.ci
        if self.slot.below:
            legend.setColumnCount(LegendSlot.columns(legend, self.width() - LegendSlot.MARGIN_PX, legend.px))
            glw.addItem(legend, row=2, col=0, colspan=2)
            glw.layout.setAlignment(legend, Qt.AlignmentFlag.AlignHCenter)
        else:
            legend.setColumnCount(1)
            glw.addItem(legend, row=1, col=1)
            glw.layout.setAlignment(legend, Qt.AlignmentFlag.AlignTop)
        legend.host = glw.layout

    def _arrange_legend(self) -> None:
        """Legend at the right, or under the plot when the chart is short or narrow."""
        if not self.has_legend:
            return
        title = self.title_item.boundingRect().height()
        below, px = self.slot.arrange(self.legend, self.width(), self.height(), title)
        columns = LegendSlot.columns(self.legend, self.width() - LegendSlot.MARGIN_PX, px) if below else 1
        if px != self.legend.px:
            self.legend.set_label_px(px)
        if below == self.slot.below and self.legend.columnCount == columns:
            return
        self.slot.below = below
        self.plot_widget.ci.removeItem(self.legend)
        self._place_legend(self.legend)

    def _style_legend(self, legend: Legend) -> None:
        t = self.theme
        legend.setLabelTextColor(t.foreground)
        for _, label in legend.items:
            label.setText(label.text)  # setLabelTextColor only stores the colour
        legend.setBrush(pg.mkBrush(t.qcolor("background", 215)))
        legend.setPen(pg.mkPen(t.muted))
        legend.theme = t

    def set_legend(self, entries: list[tuple[Any, str]]) -> None:
        """Show these (item, text) entries: texts are updated in place; a new set of items
        swaps in the legend built for it (built on first use)."""
        items = [item for item, _ in entries]
        if items != self._legend_items:
            key = tuple(id(item) for item in items)
            legend = self._legends.get(key)
            if legend is None:
                legend = self._legends[key] = self.legend if not self._legend_items else self._new_legend()
                legend.clear()
                for item, text in entries:
                    legend.addItem(item, text)
                legend.texts = [text for _, text in entries]
            if legend is not self.legend:
                self.plot_widget.ci.removeItem(self.legend)
                self._place_legend(legend)
                self.legend = legend
            if legend.theme is not self.theme:
                self._style_legend(legend)
            self._legend_items = items
        for (item, text), old in zip(entries, self.legend.texts, strict=True):
            if text != old:
                self.legend.getLabel(item).setText(text)
        self.legend.texts = [text for _, text in entries]
        self._fit_frame()  # the title's form may change with the legend's height (title_fit.py)
