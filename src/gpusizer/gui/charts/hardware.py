"""The Hardware tab: every GPU type side by side (core/sizing/compare.py) as a sortable table,
and a chart of cost per million tokens against speed with the Pareto front marked: the
options that no other beats on both, the good buys.

A chart like the others (charts/base.py): its settings are its view (core/views.HardwareView:
margin, whole servers, ranking, cost basis, filters, the user's prices), set with
``set_view`` and reported with ``viewChanged`` when the user edits them in the tab (the window
remembers them and gives the margin to its "GPUs needed" line); a double-clicked row asks for
its GPU and layout through ``editRequested``. With ``background`` (in the window) the search
runs in the window's worker (gui/worker.py); headless (``gpusizer-cli chart --kind hardware``,
the report, tests) it runs in place. Prices, the cost basis and the filters are applied on
the UI thread without searching again. The comparison is this chart's data, not the
Estimate's: the search, pricing and ranking are the core's (tests/test_views_do_not_compute.py
allows them here). The settings' and prices' edits are charts/hardware_edits.py.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QSplitter, QWidget

from ...core.errors import ScenarioError
from ...core.model.result import Estimate
from ...core.model.specs import Scenario
from ...core.registry.workloads import WORKLOAD_KINDS
from ...core.sizing.compare import left_out_line, select_gpus, size_gpus
from ...core.sizing.compare_options import PROVENANCE_FIELDS
from ...core.sizing.compare_rank import price_options, sort_options
from ...core.sizing.miss_rank import Goals, first_token_missed
from ...core.sizing.search import catalog_specs
from ...core.sizing.service_level import any_target
from ...core.views.settings import DEFAULT_HIDDEN_COLUMNS
from ...io.calibration import mark_options
from ...io.compare_table import columns_for, is_pd, is_rl
from ..hardware.controls import HardwareControls
from ..hardware.narrow import NARROW_TABLE_PX, narrow_hidden
from ..hardware.runner import compare_worker, search_key
from ..hardware.strip import ControlsStrip
from ..hardware.table import OptionsModel, OptionsTable
from ..my_calibration import MINE
from .cost_speed import FRONT_PX, MAX_LABELS, OTHER_PX, RL_SPEED, CostSpeedChart, band_segments, speed_axis
from .hardware_edits import HardwareEdits
from .hardware_split import NAME_PX, TABLE_SHARE_MAX, SplitFit

# names of the chart's drawing, importable from here as before it moved to charts/cost_speed.py
__all__ = [
    "FRONT_PX",
    "MAX_LABELS",
    "OTHER_PX",
    "PROVENANCE",
    "RL_SPEED",
    "HardwareChart",
    "band_segments",
    "speed_axis",
]

# The CSV says whose each price is and where it comes from (the user's are marked): the one
# list of provenance fields every option carries
PROVENANCE = ("system", "user_prices", *PROVENANCE_FIELDS)


class HardwareChart(SplitFit, HardwareEdits, CostSpeedChart):
    """Controls, the comparison table and the cost-speed chart."""

    def _build(self) -> None:
        self.scenario: Scenario | None = None
        self._args: dict[str, Any] | None = None  # what the last search was asked with
        self.sized: list[dict[str, Any]] = []  # the search's options (unpriced)
        self.options: list[dict[str, Any]] = []  # shown: filtered, priced, ranked
        self._sized_for: list[str] = []  # the columns the widths were fitted to
        self._narrow = False  # the table's room under NARROW_TABLE_PX (hardware/narrow.py)
        self.model = OptionsModel(self)
        self.table = OptionsTable(self.model)
        self.controls = HardwareControls(self.view)
        self.strip = ControlsStrip(self.controls)
        self._layout.addWidget(self.strip)
        self.split = QSplitter(Qt.Orientation.Horizontal)
        self.split.setObjectName("splitter_hardware")
        self._split_set = False
        self._title_forms = ("", "")  # the title, long and short (hardware_split.py)
        self.worker = compare_worker(self) if self.background else None
        if self.worker is not None:
            self.worker.finished.connect(self._searched)
            self.worker.failed.connect(lambda _k, msg: self._status(f"Comparison failed: {msg}"))
            self.worker.busy.connect(self._busy)
        self._build_plot()
        self.controls.changed.connect(self._edited)
        self.controls.pricesRequested.connect(self.edit_prices)
        self.model.priceEdited.connect(self._price_edited)
        self.table.doubleClicked.connect(self._double_clicked)
        self.table.hiddenChanged.connect(self._hide_columns)
        self.table.selectionModel().selectionChanged.connect(lambda *_: self._mark())

    def _body(self) -> QWidget:
        """The table (3/5 at first) beside the plot (2/5)."""
        self.split.addWidget(self.table)
        self.split.addWidget(self.plot_widget)
        self.split.setStretchFactor(0, 3)
        self.split.setStretchFactor(1, 2)
        self.split.setChildrenCollapsible(False)
        self.split.splitterMoved.connect(self._split_moved)
        return self.split

    def shutdown(self) -> None:
        """Stop the background search and join its thread (the window is closing)."""
        if self.worker is not None:
            self.worker.shutdown()

    # -- data --------------------------------------------------------------------------------
    def _recompute(self, scenario: Scenario, estimate: Estimate) -> None:
        """Search again: in the worker in a window (the result comes later, to
        :meth:`_searched`), here otherwise."""
        self.scenario = scenario
        self._search()

    def _search(self) -> None:
        if self.scenario is None:
            return
        args = self._args = self.view.search_args()
        if self.worker is not None:
            self.worker.request(search_key(self.scenario, args), (self.scenario, args))
        else:
            self.sized = size_gpus(self.scenario, **args)
            self._price()

    def wait_settled(self, timeout_s: float = 30.0) -> bool:
        """Process events until the background search has shown its result (screenshots,
        scripts); True when it has."""
        from PySide6.QtWidgets import QApplication

        deadline = time.monotonic() + timeout_s
        while self.worker is not None and not self.worker.idle and time.monotonic() < deadline:
            QApplication.processEvents()
            time.sleep(0.005)
        return self.worker is None or self.worker.idle

    def _searched(self, _key: str, options: list[dict[str, Any]]) -> None:
        self.sized = options
        self._refresh()

    def _refresh(self) -> None:
        """Filter, price, rank and show the searched options (no search)."""
        if self._price():
            self._redraw()
            self.relayout()

    def _price(self) -> bool:
        """Filter, price and rank :attr:`sized` into :attr:`options` and the table; False
        (the reason in the title) when the view's filters or prices are no longer valid."""
        s, v = self.scenario, self.view
        if s is None:
            return False
        try:
            ids = set(
                select_gpus(
                    s,
                    vendors=[v.vendor] if v.vendor else None,
                    categories=[v.category] if v.category else None,
                    min_memory_gb=v.min_memory_gb or None,
                )
            )
            shown = [o for o in self.sized if o["gpu"] in ids]
            budget = s.targets.max_purchase_usd  # held against each purchase (core/sizing/budget.py)
            priced = price_options(shown, catalog_specs(s.hardware), s.workload.trains, v.money(), budget)
            mark_options(priced, str(s.framework), MINE)  # "calibrated from your run of DATE"
        except ScenarioError as exc:  # a vendor or price no longer valid: say so, keep going
            self._status(str(exc))
            return False
        self.options = sort_options(priced, v.sort, Goals.of(s))
        self._fill_table(s)
        fits, front = sum(o["fits"] for o in self.options), sum(o["pareto"] for o in self.options)
        left = left_out_line(s, sorted(ids))  # GPUs the framework does not run on: not ranked
        tail = " · some GPUs left out" if left else ""
        self._status(
            f"Cost vs speed · {front} best of {fits}{tail}",
            f"Cost vs speed: {len(self.options)} GPU types shown, {fits} fit the scenario; {front} "
            "are on the Pareto front (big dots: no other is both cheaper and faster)"
            + (f"\n{left}" if left else ""),
            short=f"{front} best of {fits}",  # the tooltip names the GPUs left out
        )
        return True

    def _fill_table(self, s: Scenario) -> None:
        # the default target too; RL's step and run, as the CLI's table (io/compare_table.py)
        rl = is_rl(self.options)
        columns = columns_for(s.workload.trains, any_target(s), rl, is_pd(self.options))
        keys = [c.key for c in columns]
        self.model.set_options(self.options, columns)
        self.table.show_columns(self._hidden(s))
        if keys != self._sized_for:  # widths once per set of columns, then the user's
            self._sized_for = keys
            self.table.resizeColumnsToContents()
            for key in ("gpu_name", "system_name"):  # long names elide (the tooltip has them)
                if key in keys:
                    col = keys.index(key)
                    self.table.setColumnWidth(col, min(NAME_PX, self.table.columnWidth(col)))
            self._fit_split()

    def _hidden(self, s: Scenario) -> tuple[str, ...]:
        """The columns hidden: the user's; where they never chose, the default set, less the
        first token where every row misses and one misses a first-token target (the misses
        rank by it: the Macs' order read 48.7, 46.0, 43.7, 35.5, 53.1 tokens/s, no reason shown);
        in a narrow table, an RL, P/D or training scenario's compact set too (hardware/narrow.py)."""
        hidden = self.view.hidden_columns
        if hidden != DEFAULT_HIDDEN_COLUMNS:
            return hidden
        if first_token_missed(self.options, Goals.of(s)):
            hidden = tuple(k for k in hidden if k != "ttft_seconds")
        kind = WORKLOAD_KINDS.get(s.workload.kind)
        training = kind is not None and kind.trains
        return narrow_hidden(hidden, self._table_room(), is_rl(self.options), is_pd(self.options), training)

    def _table_room(self) -> int:
        """px the table may take at first (hardware_split.py); not the table's own width, which
        is fitted to the columns shown, so it would stay narrow once they were hidden."""
        return int(self.split.width() * TABLE_SHARE_MAX)

    def _rehide(self) -> None:
        """The table's room crossed NARROW_TABLE_PX: the default columns for its new room."""
        narrow = self._table_room() < NARROW_TABLE_PX
        if narrow != self._narrow and self.scenario is not None and self.options:
            self.table.show_columns(self._hidden(self.scenario))
        self._narrow = narrow

    def _hide_columns(self, hidden: tuple[str, ...]) -> None:
        """The user hid or showed columns of the table (kept with the view: remembered)."""
        keep = tuple(k for k in self.view.hidden_columns if k not in {c.key for c in self.model.columns})
        self.view = replace(self.view, hidden_columns=keep + hidden)  # other kinds' columns stay
        self.viewChanged.emit(self.view)
        self.table.show_columns(self.view.hidden_columns)

    def _busy(self, busy: bool) -> None:
        if busy:
            self._status("Comparing…")

    def _status(self, text: str, tip: str = "", short: str = "") -> None:
        """The chart's title says what is shown (or that a search runs, or failed); ``short``
        where the chart is too narrow for ``text`` on one line (the tooltip says it all)."""
        self._title_forms = (text, short or text)
        self.plot_widget.setToolTip(tip or text)
        self._fit_title()

    # -- chart -------------------------------------------------------------------------------
    def _redraw(self) -> None:
        self.model.set_unit(self.unit)
        super()._redraw()

    def selected_option(self) -> dict[str, Any] | None:
        rows = self.table.selectionModel().selectedRows() if self.has_data else []
        return self.table.option_at(rows[0]) if rows else None

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
        self.strip.fit_to(self.height())  # a short tab: the settings scroll (hardware/strip.py)
        self._rehide()  # before the split fits the columns shown
        self._fit_split()
        self._fit_title()
