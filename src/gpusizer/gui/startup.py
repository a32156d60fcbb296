"""The scenario the window starts on: the one given, else the last one if it still estimates,
else the default. Any settings content must let the window start (one bad last
scenario stopped every later start until the settings file was deleted)."""

from __future__ import annotations

import logging
from typing import Any

from ..core.model.specs import Scenario
from ..core.pipeline.estimate import estimate
from ..core.pipeline.scenario import parse_scenario
from .settings import Prefs
from .state import DEFAULT_SCENARIO

log = logging.getLogger(__name__)


def initial_scenario(
    scenario: Scenario | dict[str, Any] | None, prefs: Prefs, restore: bool
) -> tuple[Scenario | dict[str, Any], str]:
    """(the given scenario, else the last one if it still estimates, else the default; a
    sentence for the status bar when the last one was dropped). Any settings content must let
    the window start (one bad last scenario stopped every later start)."""
    if scenario is not None:
        return scenario, ""
    last = prefs.last_scenario() if restore else None
    if last is None:
        return DEFAULT_SCENARIO, prefs.dropped
    try:
        parsed = parse_scenario(last)
        estimate(parsed)  # what the window will do with it first
    except Exception as exc:  # anything: a damaged settings file must not stop the app
        log.warning("last scenario dropped: %s", exc)
        reason = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
        return DEFAULT_SCENARIO, (
            f"The last scenario could not be restored and was dropped ({reason}); starting from the default."
        )
    return parsed, ""
