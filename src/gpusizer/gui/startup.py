"""The scenario the window starts on: the one given, else the last one if it still reads,
else the default. Any settings content must let the window start (one bad last scenario
stopped every later start until the settings file was deleted). Whether the last one still
estimates is the state's question (gui/state.py), asked in the background worker: a heavy
one estimated here, on the GUI thread, delayed every start by its estimate."""

from __future__ import annotations

import logging
from typing import Any

from ..core.model.specs import Scenario
from ..core.pipeline.scenario import parse_scenario
from .estimator import dropped_note
from .settings import Prefs
from .state import DEFAULT_SCENARIO

log = logging.getLogger(__name__)


def initial_scenario(
    scenario: Scenario | dict[str, Any] | None, prefs: Prefs, restore: bool
) -> tuple[Scenario | dict[str, Any], str, bool]:
    """(the given scenario, else the last one if it still reads, else the default; a sentence
    for the status bar when the last one was dropped; whether it is the remembered one, which
    gives way to the default if it does not estimate)."""
    if scenario is not None:
        return scenario, "", False
    last = prefs.last_scenario() if restore else None
    if last is None:
        return DEFAULT_SCENARIO, prefs.dropped, False
    try:
        parsed = parse_scenario(last)
    except Exception as exc:  # anything: a damaged settings file must not stop the app
        log.warning("last scenario dropped: %s", exc)
        return DEFAULT_SCENARIO, dropped_note(exc), False
    return parsed, "", True
