"""How the Hardware tab shares its width between the options table and the chart
(charts/hardware.py): the table as wide as its shown columns need, the GPU names elided to fit,
until the user moves the splitter."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtGui import QFontMetricsF
from PySide6.QtWidgets import QSplitter

from ..hardware.table import OptionsModel, OptionsTable
from .palette import TITLE_PX, font

if TYPE_CHECKING:
    from .base import ChartBase as _Base
else:
    _Base = object

NAME_PX = 230  # widest GPU column before names elide (the tooltip has the full name)
NAME_MIN_PX = 115  # and the narrowest, when the tab is narrow (1280 px windows)
TABLE_SHARE_MAX = 0.77  # the table's most of the tab's width at first; the chart keeps the rest
# (0.77: a training scenario's buyer columns fit at 1280x720 beside its wider panel column)
CHART_MIN_PX = 170  # the chart's least width at first: at 1024 x 700 the 0.77 share left it
# 119 px (a 66 x 77 px plot, its title cut at both ends); the table scrolls, its GPU frozen
TITLE_MARGIN_PX = 24  # the chart's layout margins and the title's own, both sides


class SplitFit(_Base):
    """Mixin of HardwareChart (a ChartBase): the splitter between its table and chart."""

    split: QSplitter
    table: OptionsTable
    model: OptionsModel
    _split_set: bool
    _title_forms: tuple[str, str]

    def _split_moved(self, *_args: Any) -> None:
        self._split_set = True  # the user's split stays

    def _fit_split(self) -> None:
        """Until the user moves the splitter: the table takes the width its shown columns need
        (at most TABLE_SHARE_MAX of the tab), the GPU names elide down to NAME_MIN_PX to fit,
        and the chart takes the rest; so at 1280x720 the buyer's columns need no scrolling."""
        width, t = self.split.width(), self.table
        if self._split_set or width <= 100:
            return
        if not self.model.options:  # no rows yet: the columns have no widths to fit
            self.split.setSizes([width * 3 // 5, width - width * 3 // 5])
            return
        keys = [c.key for c in self.model.columns]
        shown = [i for i in range(len(keys)) if not t.isColumnHidden(i)]
        name = keys.index("gpu_name") if "gpu_name" in keys else -1
        chrome = t.verticalScrollBar().sizeHint().width() + 2 * t.frameWidth() + 2
        others = sum(t.columnWidth(i) for i in shown if i != name)
        table_px = min(int(width * TABLE_SHARE_MAX), others + NAME_PX + chrome)
        table_px = max(width // 2, min(table_px, width - CHART_MIN_PX - self.split.handleWidth()))
        if name >= 0:
            t.setColumnWidth(name, max(NAME_MIN_PX, min(NAME_PX, table_px - others - chrome)))
        self.split.setSizes([table_px, width - table_px - self.split.handleWidth()])

    def _fit_title(self) -> None:
        """The title, or its short form where the long one does not fit the chart's width on
        one line (the title wraps; three lines of it left the plot no height at 180 px)."""
        text, short = self._title_forms
        room = self.plot_widget.width() - TITLE_MARGIN_PX
        wide = QFontMetricsF(font(TITLE_PX)).horizontalAdvance(text)
        self.set_title(text if wide <= room else short)
