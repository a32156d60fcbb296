"""The Hardware tab's view settings (core/views.HardwareView) remembered between runs, in
gui/settings.py's INI file: the memory margin (which the "GPUs needed" line uses too), whole
servers, ranking, cost basis, electricity price, filters, and the user's own GPU prices."""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, fields
from typing import Any

from ...core.errors import ScenarioError
from ...core.views.settings import HardwareView
from ..settings import Prefs

log = logging.getLogger(__name__)
KEY = "compare/settings"


def load(prefs: Prefs) -> HardwareView:
    """The remembered settings; defaults for anything missing, unknown or damaged."""
    try:
        data = json.loads(str(prefs.qs.value(KEY, "") or "{}"))
        known = {f.name for f in fields(HardwareView)}
        return HardwareView(**{k: v for k, v in data.items() if k in known}).check()
    except (ValueError, TypeError, ScenarioError, AttributeError):
        log.info("Hardware tab settings unreadable; using the defaults")
        return HardwareView()


def save(prefs: Prefs, view: HardwareView) -> None:
    prefs.qs.setValue(KEY, json.dumps(asdict(view)))


def remembered(prefs: Prefs, view: Any) -> Any:
    """A chart's view as last left (the Hardware tab's is remembered; others start afresh)."""
    return load(prefs) if isinstance(view, HardwareView) else view


def remember(prefs: Prefs, view: Any) -> None:
    """Keep a chart's view for the next run (the Hardware tab's)."""
    if isinstance(view, HardwareView):
        save(prefs, view)
