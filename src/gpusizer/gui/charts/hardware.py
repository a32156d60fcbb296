"""The Hardware tab: every GPU type side by side (core/compare.py) as a sortable table, and a
chart of cost per million tokens against speed with the Pareto front marked: the options that
no other beats on both, the good buys.

The search runs off the UI thread once the tab is in a window (gui/hardware/runner.py);
headless (``gpusizer-cli chart --kind hardware``, the report, tests) it runs in place.
Prices, the cost basis and the filters are applied on the UI thread without searching again.
Double-clicking a row applies that GPU and layout (one undo step); the unit price columns are
edited in place and remembered (gui/hardware/settings.py).
"""

from __future__ import annotations

import math
import time
from dataclasses import replace
from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter

from ...core.errors import ScenarioError
from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.sizing.compare import select_gpus, size_gpus
from ...core.sizing.compare_costs import check_prices
from ...core.sizing.compare_rank import price_options, sort_options, speed_of
from ...core.sizing.option import option_edits
from ...core.sizing.search import catalog_specs
from ...io.compare_table import chart_points, columns_for
from ..hardware.controls import ControlsStrip, HardwareControls
from ..hardware.plot import GAP, SIDES, Point, log_ticks, pixels, place, short_name, span_per_pixel
from ..hardware.settings import HardwareSettings, as_kwargs, load, load_my_prices, save, save_my_prices
from ..hardware.table import OptionsModel, OptionsTable
from .base import ChartBase
from .palette import DECODE_COLOR, LABEL_PX, PREFILL_COLOR

MAX_LABELS = 8  # front points named on the chart (the table names them all)
# The CSV says whose each price is and where it comes from (issue 22: the user's are marked)
PROVENANCE = (
    "system",
    "user_prices",
    "list_price_date",
    "list_price_source",
    "price_per_hour_provider",
    "price_per_hour_date",
    "price_per_hour_source",
)
NAME_PX = 230  # widest GPU column before names elide (the tooltip has the full name)


def apply_option(state: Any, option: dict[str, Any]) -> None:
    """Put an option's GPU, node shape, layout, techniques (and, serving, its batch per
    replica) into the scenario: one undo step."""
    state.edit_many(option_edits(option))


class HardwareChart(ChartBase):
    """Controls, the comparison table and the cost-speed chart. ``applyRequested(option)``
    when a row is double-clicked."""

    title = "Cost against speed"
    applyRequested = Signal(object)

    def _build(self) -> None:
        self.settings = HardwareSettings()
        self.prefs: Any = None  # the window's Prefs once attached
        self.runner: Any = None  # a CompareRunner once attached
        self.advisor: Any = None  # the window's Advisor once attached
        self.scenario: Scenario | None = None
        self.sized: list[dict[str, Any]] = []  # the search's options (unpriced)
        self.options: list[dict[str, Any]] = []  # shown: filtered, priced, ranked
        self._sized_for: list[str] = []  # the columns the widths were fitted to
        self.model = OptionsModel(self)
        self.table = OptionsTable(self.model)
        self.controls = HardwareControls(self.settings)
        self._layout.removeWidget(self.plot_widget)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("splitter_hardware")
        self.split.addWidget(self.table)
        self.split.addWidget(self.plot_widget)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        self.strip = ControlsStrip(self.controls)
        self._layout.addWidget(self.strip)
        self._layout.addWidget(self.split, 1)
        self._split_set = False
        # log10 values on linear axes with our own ticks (pyqtgraph's log mode labels minor
        # ticks that overlap in a narrow chart)
        self.others = self.plot.plot([], [], pen=None, symbol="o", symbolSize=8)
        self.front_line = self.plot.plot([], [])
        self.front = self.plot.plot([], [], pen=None, symbol="o", symbolSize=12)
        self.mark = self.plot.plot([], [], pen=None, symbol="o", symbolSize=22)
        self.note = self.text_item(anchor=(0.5, 0.5))
        self.plot_widget.ci.removeItem(self.legend)  # two series: the title says which
        self.labels: list[pg.TextItem] = []
        self._pts: list[Point] = []
        self._front: list[Point] = []
        self.plot.vb.sigResized.connect(lambda *_: self._label())
        for side in ("left", "bottom"):  # log10 values: no "(x0.001)" on the axis title
            self.plot.getAxis(side).enableAutoSIPrefix(False)
        self.controls.changed.connect(self._settings_changed)
        self.controls.pricesRequested.connect(self.edit_prices)
        self.model.priceEdited.connect(self._price_edited)
        self.table.doubleClicked.connect(self._double_clicked)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._mark())

    # -- in a window -------------------------------------------------------------------------
    def attach(self, window: Any) -> None:
        """Run in the background, remember settings and prices, apply rows to the window's
        scenario, keep its "GPUs needed" line on the same margin (hook: gui/main_window)."""
        from ..hardware.runner import CompareRunner

        self.prefs, self.advisor = window.prefs, window.advisor
        self.settings = load(window.prefs)
        prices, problem = load_my_prices(window.prefs, self.settings.prices)
        self.settings = replace(self.settings, prices=prices)
        save(window.prefs, self.settings)  # the INI no longer keeps prices
        self.controls.set_settings(self.settings)
        if problem:
            self._status(problem)
        self.runner = CompareRunner(self)
        self.runner.finished.connect(self._searched)
        self.runner.failed.connect(lambda _k, msg: self._status(f"Comparison failed: {msg}"))
        self.runner.busy.connect(self._busy)
        self.applyRequested.connect(lambda o: apply_option(window.state, o))
        self.advisor.set_margin(self.settings.margin, self.settings.whole_nodes)

    def shutdown(self) -> None:
        """Stop the background search and wait for its worker (the window is closing)."""
        if self.runner is not None:
            self.runner.shutdown()

    # -- data --------------------------------------------------------------------------------
    def update_from(self, scenario: Scenario, estimate: Estimate) -> None:
        self.scenario, self.has_data = scenario, True
        self._search()

    def _search(self) -> None:
        """Search again: in the background in a window, here otherwise."""
        if self.scenario is None:
            return
        if self.runner is not None:
            self.runner.request(self.scenario, as_kwargs(self.settings))
            return
        self._searched("", size_gpus(self.scenario, **as_kwargs(self.settings)))

    def wait_settled(self, timeout_s: float = 30.0) -> bool:
        """Process events until the background search has shown its result (screenshots,
        scripts); True when it has."""
        from PySide6.QtWidgets import QApplication

        deadline = time.monotonic() + timeout_s
        while self.runner is not None and not self.runner.idle and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        return self.runner is None or self.runner.idle

    def _searched(self, _key: str, options: list[dict[str, Any]]) -> None:
        self.sized = options
        self._refresh()

    def _refresh(self) -> None:
        """Filter, price, rank and show the searched options (no search)."""
        s, st = self.scenario, self.settings
        if s is None:
            return
        try:
            ids = set(
                select_gpus(
                    s,
                    vendors=[st.vendor] if st.vendor else None,
                    categories=[st.category] if st.category else None,
                    min_memory_gb=st.min_memory_gb or None,
                )
            )
            shown = [o for o in self.sized if o["gpu"] in ids]
            priced = price_options(shown, catalog_specs(s.hardware), s.workload.is_training, st.money())
        except ScenarioError as exc:  # a vendor or price no longer valid: say so, keep going
            self._status(str(exc))
            return
        self.options = sort_options(priced, st.sort)
        columns = columns_for(s.workload.is_training, s.targets.applies(s.workload.is_training))
        keys = [c.key for c in columns]
        self.model.set_options(self.options, columns)
        if keys != self._sized_for:  # widths once per set of columns, then the user's
            self._sized_for = keys
            self.table.resizeColumnsToContents()
            for key in ("gpu_name", "system_name"):  # long names elide (the tooltip has them)
                if key in keys:
                    col = keys.index(key)
                    self.table.setColumnWidth(col, min(NAME_PX, self.table.columnWidth(col)))
        fits, front = sum(o["fits"] for o in self.options), sum(o["pareto"] for o in self.options)
        self._status(
            f"Cost vs speed · {front} best of {fits}",
            f"{len(self.options)} GPU types shown, {fits} fit the scenario; {front} "
            "are on the Pareto front (big dots: no other is both cheaper and faster)",
        )
        self._redraw()

    def _busy(self, busy: bool) -> None:
        if busy:
            self._status("Comparing…")

    def _status(self, text: str, tip: str = "") -> None:
        """The chart's title says what is shown (or that a search runs, or failed)."""
        self.set_title(text)
        self.plot_widget.setToolTip(tip or text)

    # -- chart -------------------------------------------------------------------------------
    def _redraw(self) -> None:
        self.model.set_unit(self.unit)
        pts = [(math.log10(x), math.log10(y), o) for x, y, o in chart_points(self.options)]
        front = sorted((p for p in pts if p[2]["pareto"]), key=lambda p: p[0])
        rest = [p for p in pts if not p[2]["pareto"]]
        for item, group in ((self.others, rest), (self.front, front), (self.front_line, front)):
            item.setData([p[0] for p in group], [p[1] for p in group])
        self._pts, self._front = pts, front
        self._label()
        training = self.scenario is not None and self.scenario.workload.is_training
        basis = "renting" if self.settings.basis == "cloud" else "owning"
        self.set_axis_label("bottom", "trained tokens/s" if training else "tokens/s per user")
        self.set_axis_label("left", f"$ per M tokens, {basis}")
        self.note.setVisible(not pts)
        if pts:
            for axis, values in (("bottom", [p[0] for p in pts]), ("left", [p[1] for p in pts])):
                self.plot.getAxis(axis).setTicks([log_ticks(10 ** min(values), 10 ** max(values))])
            self.plot.enableAutoRange()
        else:
            self.note.setText('No price on this basis:\nenter prices in the table\nor switch "Cost when".')
            self.note.setPos(0, 0)
            self.plot.setRange(xRange=(-1, 1), yRange=(-1, 1))
        self._mark()

    def _label(self) -> None:
        """Name the front's points where the names fit without overlapping."""
        pts, front, vb = self._pts, self._front[:MAX_LABELS], self.plot.vb
        while len(self.labels) < len(front):
            self.labels.append(self.text_item(pixels=LABEL_PX - 2))
        if not front:
            for item in self.labels:
                item.hide()
            return
        size = (max(vb.width(), 50.0), max(vb.height(), 50.0))
        widths = []
        for item, (_x, _y, o) in zip(self.labels, front, strict=False):
            item.setText(short_name(o))
            widths.append(item.textItem.boundingRect().width())
        sides = place(pixels(front, pts, size), widths, self.labels[0].textItem.boundingRect().height(), size)
        unit = span_per_pixel(pts, size)
        for i, item in enumerate(self.labels):
            side = sides[i] if i < len(sides) else None
            item.setVisible(side is not None)
            if side is not None:
                _, (gx, gy), anchor = SIDES[side]
                item.setAnchor(anchor)
                item.setColor(self.theme.foreground)
                item.setPos(front[i][0] + gx * GAP * unit[0], front[i][1] + gy * GAP * unit[1])

    def _mark(self) -> None:
        rows = self.table.selectionModel().selectedRows() if self.has_data else []
        o = self.table.option_at(rows[0]) if rows else None
        x = speed_of(o) if o is not None and o["fits"] else None
        y = o["cost_per_million_tokens"] if o is not None and x else None
        self.mark.setData([math.log10(x)] if x and y else [], [math.log10(y)] if x and y else [])

    def _restyle_items(self) -> None:
        t = self.theme
        self.others.setSymbolBrush(pg.mkBrush(t.qcolor("muted", 200)))
        self.others.setSymbolPen(pg.mkPen(t.muted))
        self.front.setSymbolBrush(pg.mkBrush(PREFILL_COLOR))
        self.front.setSymbolPen(pg.mkPen(t.foreground, width=1))
        self.front_line.setPen(pg.mkPen(PREFILL_COLOR, width=2, style=Qt.PenStyle.DashLine))
        self.mark.setSymbolBrush(None)
        self.mark.setSymbolPen(pg.mkPen(DECODE_COLOR, width=2.5))
        for item in self.labels:
            item.setColor(t.foreground)

    def tooltip_at(self, x: float, y: float) -> str:
        """The option under the pointer (within ~10 px), in words."""
        px, py = self.plot.vb.viewPixelSize()
        best, where = None, 10.0
        for sx, sy, o in chart_points(self.options):
            d = math.hypot((math.log10(sx) - x) / (px or 1), (math.log10(sy) - y) / (py or 1))
            if d < where:
                best, where = o, d
        if best is None:
            return ""
        return (
            f"<b>{best['gpu_name']}</b>{' — Pareto front' if best['pareto'] else ''}<br>"
            f"{best['gpus']:,} GPUs, {best['layout']}<br>"
            f"{speed_of(best):,.1f} tokens/s · ${best['cost_per_million_tokens']:,.2f} "
            f"per million tokens"
        )

    def data_rows(self) -> list[list[Any]]:
        """The table behind the chart, every option's raw values (contract field names;
        bytes, seconds, USD, W) and where its prices come from (``user_prices`` marks the
        user's), the shown rows in rank order."""
        keys = ["gpu", *(c.key for c in self.model.columns if c.key != "gpu"), *PROVENANCE, "pareto", "notes"]
        rows: list[list[Any]] = [keys]
        for o in self.options:
            rows.append(["; ".join(o[k]) if k == "notes" else "" if o.get(k) is None else o[k] for k in keys])
        return rows

    def _ensure_laid_out(self) -> None:
        """Headless (CLI, report): the chart alone, at the export's landscape size."""
        if self.parent() is None and not self.isVisible():
            self.table.hide()
            self.strip.hide()
        super()._ensure_laid_out()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if not self._split_set and self.width() > 100:  # table 3/5, chart 2/5 at first
            self._split_set = True
            self.split.setSizes([self.width() * 3 // 5, self.width() * 2 // 5])

    # -- edits -------------------------------------------------------------------------------
    def _settings_changed(self, new: HardwareSettings) -> None:
        old, self.settings = self.settings, new
        if self.prefs is not None:
            save(self.prefs, new)
        if self.advisor is not None and (new.margin, new.whole_nodes) != (old.margin, old.whole_nodes):
            self.advisor.set_margin(new.margin, new.whole_nodes)
        if as_kwargs(new) != as_kwargs(old):
            self._search()
        else:
            self._refresh()

    def _price_edited(self, gpu: str, key: str, value: float | None) -> None:
        self.set_prices(self.settings.with_price(gpu, key, value).prices)

    def set_prices(self, prices: dict[str, dict[str, Any]]) -> None:
        """Use (and, in a window, save) the user's prices ("My prices"), then reprice."""
        self.settings = replace(self.settings, prices=check_prices(prices))
        self.controls.set_settings(self.settings)
        problem = save_my_prices(self.prefs, self.settings.prices) if self.prefs is not None else ""
        self._refresh()
        if problem:
            self._status(problem)

    def edit_prices(self) -> None:
        """The "My prices" dialog; its prices replace the user's when saved."""
        from ..hardware.prices_dialog import PricesDialog

        dialog = PricesDialog(self.settings.prices, self.scenario, self)
        if dialog.exec():
            self.set_prices(dialog.prices)

    def _double_clicked(self, index: QModelIndex) -> None:
        o = self.table.option_at(index)
        if o is not None and o["fits"] and not self.table.is_price(index):
            self.applyRequested.emit(o)
