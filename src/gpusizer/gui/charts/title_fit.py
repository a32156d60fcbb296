"""A chart's title in two forms: the whole title (a headline, and after a ``<br>`` its detail
line), and a short one that a short chart shows instead, the whole title then in the title's
tooltip (nothing is lost). At 1024 x 700 the training-vs-inference chart of DeepSeek-V3 is
554 x 259 px: its four-line title (82 px) and its 201 px legend beside the plot needed 305 px,
and the plot's bottom, its bar names and the legend's last entry were cut off (screenshots
looked at). Heights in pixels, measured with Qt's own text layout (QTextDocument), as the
title item lays its HTML out (pyqtgraph's ``LabelItem.setText``)."""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING

import pyqtgraph as pg
from PySide6.QtGui import QTextDocument

from .items import LegendSlot, Title
from .palette import TITLE_PX

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget as _WidgetBase

    from .items import Legend
else:
    _WidgetBase = object

MARGINS_PX = 16  # the chart layout's margins, top and bottom (ChartBase._frame)
ROW_GAP_PX = 6  # the layout's spacing under the title
_TAG = re.compile(r"<[^>]+>")


def headline(text: str) -> str:
    """The title's first line (before its first ``<br>``): its default short form."""
    return text.split("<br>", 1)[0]


def plain(text: str) -> str:
    """The title as plain text for a tooltip: its line breaks kept, its tags dropped."""
    return html.unescape(_TAG.sub("", text.replace("<br>", "\n")))


def title_height(text: str, width: float, title: Title) -> float:
    """How tall ``text`` is as the title lays it out ``width`` px wide (wrapped there)."""
    doc = QTextDocument()
    doc.setDefaultFont(title.item.font())
    doc.setDefaultTextOption(title.item.document().defaultTextOption())
    doc.setDocumentMargin(title.item.document().documentMargin())
    doc.setHtml(f"<span style='font-size:{TITLE_PX}px'>{text}</span>")
    doc.setTextWidth(-1)
    if doc.idealWidth() > width:
        doc.setTextWidth(width)
    return doc.size().height()


def short_wanted(height: float, title_px: float, beside_px: float, under_px: float) -> bool:
    """Whether a chart ``height`` px tall must show its short title: the whole title
    (``title_px`` tall) would leave the row under it less than the plot's least height
    (LegendSlot.MIN_PLOT_HEIGHT, axes included) or the legend beside the plot (``beside_px``),
    plus a legend under the plot (``under_px``)."""
    room = height - MARGINS_PX - ROW_GAP_PX - title_px
    return room < max(beside_px, LegendSlot.MIN_PLOT_HEIGHT) + under_px


class TitleFit(_WidgetBase):
    """Mixin of ChartBase: the title's form (whole or short) for the chart's height."""

    title_item: Title
    plot_widget: pg.GraphicsLayoutWidget
    legend: Legend
    slot: LegendSlot
    has_legend: bool
    _title_text: str
    _title_short: str
    _title_is_short: bool

    if TYPE_CHECKING:  # the chart's own (LegendMixin's and ChartBase's), not overridden here

        def _arrange_legend(self) -> None: ...

        def _apply_texts(self) -> None: ...

    def _fit_frame(self) -> None:
        """The legend's place, then the title's form for what is left, then the legend's
        place again if the title's height changed."""
        self._arrange_legend()
        if self._fit_title_form():
            self._apply_texts()
            self._arrange_legend()
        # The view gave the layout its size before the title and legend changed, clamped to
        # the minimum they had then (a 274 px chart kept a 370 px layout, its bottom cut):
        # the size again, now that the minimum is smaller.
        view = self.plot_widget
        if view.ci.geometry() != view.range:
            view.ci.setGeometry(view.range)

    def _title_form(self) -> str:
        """The title as shown: the short form where the chart is too short for the whole."""
        return self._title_short if self._title_is_short else self._title_text

    def _fit_title_form(self) -> bool:
        """Choose the title's form for the chart's size, the tooltip with it; True when the
        form changed (the texts are then set again)."""
        full, short = self._title_text, self._title_short
        want = False
        if short and short != full:
            width = max(Title.MIN_WIDTH, self.width() - MARGINS_PX)
            legend = self.legend.boundingRect().height() if self.has_legend and self.legend.items else 0.0
            beside = 0.0 if self.slot.below else legend
            under = legend + LegendSlot.LEGEND_PAD_PX if self.slot.below else 0.0
            want = short_wanted(self.height(), title_height(full, width, self.title_item), beside, under)
        self.title_item.setToolTip(plain(full) if want else "")
        if want == self._title_is_short:
            return False
        self._title_is_short = want
        return True
