"""How many GPUs the scenario needs at least: the sizing advisor (core/sizing/gpus_needed.py)
for the chosen GPU, run by the window's background worker (gui/worker.py) once editing pauses,
and cancelled when the scenario changes under it, so that a slow search never freezes the
window."""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QObject, Signal

from ..core.cancel import CancelToken
from ..core.model.specs import Scenario
from ..core.sizing.compare_options import DEFAULT_MARGIN
from ..core.sizing.option import SizingOption
from .worker import BackgroundWorker

IDLE_MS = 150  # after the last edit; the search takes 5-100 ms, too much for every frame
MAX_CACHED = 64  # scenarios remembered (a long session must not grow without bound)


Search = tuple[float | str, bool, int | None]  # margin, whole nodes, cards per box (the tab's)


def scenario_key(scenario: Scenario, search: Search = (DEFAULT_MARGIN, False, None)) -> str:
    """The scenario and the search's settings as canonical JSON (a cache key). ``json.dumps``
    escapes a lone surrogate in a name where pydantic's JSON encoder raises."""
    return json.dumps([scenario.model_dump(mode="json"), *search], sort_keys=True)


def gpus_needed(scenario: Scenario, **kw: Any) -> SizingOption | None:
    """core/sizing/gpus_needed.py's answer, imported on first use (in the worker): the search's
    modules are not needed for the window's first frame and chart."""
    from ..core.sizing.gpus_needed import gpus_needed as search

    return search(scenario, **kw)


def _advise(payload: tuple[Scenario, Search], token: CancelToken) -> SizingOption | None:
    scenario, (margin, whole_nodes, box) = payload
    return gpus_needed(scenario, cancel=token, margin=margin, whole_nodes=whole_nodes, cards_per_box=box)


class Advisor(QObject):
    """``advised(scenario, option)`` once the advice for ``scenario`` is known (option: the
    typed :class:`SizingOption` of core/sizing/gpus_needed.py, or None when nothing fits)."""

    advised = Signal(object, object)

    def __init__(
        self, parent: QObject | None = None, idle_ms: int = IDLE_MS, margin: float | str = DEFAULT_MARGIN
    ) -> None:
        super().__init__(parent)
        self.margin = margin
        self.whole_nodes = False  # the Hardware tab's settings: its row for this GPU agrees
        self.cards_per_box: int | None = None
        self._last: Scenario | None = None
        self.worker = BackgroundWorker(
            _advise, self, delay_ms=idle_ms, cache_size=MAX_CACHED, name="gpusizer-advisor"
        )
        self.worker.finished.connect(self._done)
        self.worker.failed.connect(lambda key, _msg: self._done(key, None))

    def request(self, scenario: Scenario) -> None:
        """Advise on ``scenario`` when editing pauses (at once if it is already known)."""
        self._last = scenario
        self.worker.request(self._key(scenario), (scenario, self._search()))

    def _search(self) -> Search:
        return (self.margin, self.whole_nodes, self.cards_per_box)

    def _key(self, scenario: Scenario) -> str:
        return scenario_key(scenario, self._search())

    def _done(self, key: str, option: Any) -> None:
        if self._last is not None and key == self._key(self._last):
            self.advised.emit(self._last, option)

    def advice_for(self, scenario: Scenario) -> SizingOption | None:
        """The advice for ``scenario`` now: known, or computed here (a report being written)."""
        result: SizingOption | None = self.worker.run_now(self._key(scenario), (scenario, self._search()))
        return result

    def set_margin(
        self, margin: float | str, whole_nodes: bool | None = None, cards_per_box: Any = ...
    ) -> None:
        """Advise with another memory margin (and whole-node and cards-per-box settings: the
        Hardware tab's), again for the last scenario."""
        nodes = self.whole_nodes if whole_nodes is None else whole_nodes
        box = self.cards_per_box if cards_per_box is ... else cards_per_box
        if (margin, nodes, box) == self._search():
            return
        self.margin, self.whole_nodes, self.cards_per_box = margin, nodes, box
        if self._last is not None:
            self.request(self._last)

    @property
    def pending(self) -> bool:
        """Whether advice is still to come for the last scenario."""
        return not self.worker.idle

    def wait(self, timeout: float = 30.0) -> bool:
        """Run the pending search (if any) and wait for it; True when it finished in time
        (screenshots and tests, which want the advice on screen)."""
        return self.worker.wait(timeout)

    def shutdown(self) -> None:
        """Cancel the search and join the worker thread (the window is closing)."""
        self.worker.shutdown()
