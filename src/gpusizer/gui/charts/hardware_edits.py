"""The Hardware tab's settings and edits (charts/hardware.py): a view set from outside or
edited in the tab searches again where what the search depends on changed, else reprices and
re-ranks the options it has; the user's prices ("My prices") replace the view's; a
double-clicked row asks for its GPU and layout (``editRequested``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QModelIndex

from ...core.errors import ScenarioError
from ...core.sizing.option import option_edits
from ...core.sizing.prices import check_prices
from ...core.views.settings import HardwareView
from ..hardware.controls import HardwareControls
from ..hardware.table import OptionsTable

if TYPE_CHECKING:
    from ...core.model.specs import Scenario
    from ..worker import BackgroundWorker
    from .base import ChartBase as _Base
else:
    _Base = object


class HardwareEdits(_Base):
    """Mixin of HardwareChart (a ChartBase): its view's edits and the user's prices."""

    view: HardwareView
    controls: HardwareControls
    table: OptionsTable
    scenario: Scenario | None
    worker: BackgroundWorker | None
    _args: dict[str, Any] | None

    if TYPE_CHECKING:  # HardwareChart's: search, reprice and say so in the title

        def _search(self) -> None: ...

        def _refresh(self) -> None: ...

        def _status(self, text: str, tip: str = "", short: str = "") -> None: ...

    def _view_changed(self) -> None:
        """A view set from outside (the window's remembered one, the CLI's flags)."""
        self.controls.set_settings(self.view)
        self._apply()

    def _edited(self, new: HardwareView) -> None:
        """The user changed a setting in the tab."""
        self.view = new
        self.viewChanged.emit(new)
        self._apply()

    def _apply(self) -> None:
        """Search again if what the search depends on changed; else price and rank again."""
        if not self.has_data:
            return
        if self.view.search_args() != self._args:
            self._search()
            if self.worker is None:
                self._redraw()
                self.relayout()
        else:
            self._refresh()

    def _price_edited(self, gpu: str, key: str, value: float | None) -> None:
        self.set_prices(self.view.with_price(gpu, key, value).prices)

    def set_prices(self, prices: Mapping[str, Mapping[str, Any]]) -> None:
        """The user's prices ("My prices") in place of the view's, as an edit in the tab
        (``viewChanged``: the window saves them); repriced without searching again."""
        try:
            new = replace(self.view, prices=check_prices(prices))
        except ScenarioError as exc:
            self._status(str(exc))
            return
        self.controls.set_settings(new)
        self._edited(new)

    def edit_prices(self) -> None:
        """The "My prices" dialog; its prices replace the user's when saved."""
        from ..hardware.prices_dialog import PricesDialog

        dialog = PricesDialog({g: dict(p) for g, p in self.view.prices.items()}, self.scenario, self)
        if dialog.exec():
            self.set_prices(dialog.prices)

    def _double_clicked(self, index: QModelIndex) -> None:
        o = self.table.option_at(index)
        if o is not None and o["fits"] and not self.table.is_price(index):
            self.editRequested.emit(option_edits(o))
