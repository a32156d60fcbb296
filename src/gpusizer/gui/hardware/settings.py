"""The Hardware tab's view settings (core/views.HardwareView) remembered between runs: the
memory margin (which the "GPUs needed" line uses too), whole servers, cards per box, ranking,
cost basis, electricity price and filters in gui/settings.py's INI file. The user's own prices
("My prices"), which override the catalog's, live in their own file beside the INI
(io/user_prices.py), written atomically; prices an older version kept in the INI move there
once."""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, fields, replace
from pathlib import Path
from typing import Any, NamedTuple

from ...core.errors import ScenarioError
from ...core.readfile import parse_json_object
from ...core.views.settings import HardwareView
from ...io.user_prices import ENV as PRICES_ENV
from ...io.user_prices import load_user_prices, save_prices
from ..settings import Prefs, settings_dir

log = logging.getLogger(__name__)
KEY = "compare/settings"


MAX_VIEW_CHARS = 2**20  # a few hundred bytes in use; prices an older version kept: a few kB


def load(prefs: Prefs) -> HardwareView:
    """The settings remembered in the INI (with the prices an older version kept there);
    defaults for anything missing, unknown or damaged."""
    return load_noted(prefs)[0]


def load_noted(prefs: Prefs) -> tuple[HardwareView, str]:
    """(:func:`load`'s view, a sentence for the status bar when the remembered one was dropped).
    Read as a scenario file is (core/readfile.py: strict JSON, bounded size and depth): a view
    nested 100,000 deep raised RecursionError in ``json.loads`` at every start."""
    try:
        text = prefs.qs.value(KEY, "") or "{}"
        if not isinstance(text, str) or len(text) > MAX_VIEW_CHARS:
            raise ValueError("not a short text")
        data = parse_json_object(text, "settings", "the Hardware tab settings")
        known = {f.name for f in fields(HardwareView)}
        return HardwareView(**{k: v for k, v in data.items() if k in known}).check(), ""
    except (ValueError, TypeError, ScenarioError, AttributeError, RecursionError, MemoryError) as exc:
        log.info("Hardware tab settings unreadable; using the defaults: %s", exc)
        return HardwareView(), "The Hardware tab settings could not be read; using the defaults."


def save(prefs: Prefs, view: HardwareView) -> None:
    """The settings to the INI (the prices go to their own file: :func:`save_my_prices`)."""
    data = asdict(view)
    data.pop("prices")
    prefs.qs.setValue(KEY, json.dumps(data))


def prices_path(prefs: Prefs) -> Path:
    """The user's prices file: ``GPUSIZER_USER_PRICES``, else ``prices.json`` beside the INI."""
    path = os.environ.get(PRICES_ENV)
    return Path(path) if path else settings_dir(prefs.qs) / "prices.json"


def load_my_prices(prefs: Prefs, legacy: dict[str, dict[str, Any]]) -> tuple[dict[str, dict[str, Any]], str]:
    """(the user's prices, a problem to show or ""). Prices an older version kept in the INI
    (``legacy``) are written to the file when there is none yet."""
    path = prices_path(prefs)
    try:
        if not path.exists() and legacy:
            save_prices(path, legacy)
        return load_user_prices(path), ""
    except (ScenarioError, OSError) as exc:
        log.info("My prices unreadable: %s", exc)
        return {}, f"My prices: {exc}"


def save_my_prices(prefs: Prefs, prices: dict[str, dict[str, Any]]) -> str:
    """Write the user's prices atomically; the problem in words, or "" when written."""
    try:
        save_prices(prices_path(prefs), prices)
    except (ScenarioError, OSError) as exc:
        return f"My prices not saved: {exc}"
    return ""


class Remembered(NamedTuple):
    """A chart's view as last left, and a problem reading it to show ("" when none)."""

    view: Any
    problem: str = ""


def remembered(prefs: Prefs, view: Any) -> Remembered:
    """A chart's view as last left (the Hardware tab's is remembered, with My prices; others
    start afresh). The INI no longer keeps prices once they are in their own file."""
    if not isinstance(view, HardwareView):
        return Remembered(view)
    settings = load(prefs)
    prices, problem = load_my_prices(prefs, {g: dict(p) for g, p in settings.prices.items()})
    save(prefs, settings)
    return Remembered(replace(settings, prices=prices), problem)


def remember(prefs: Prefs, view: Any, before: Any = None) -> str:
    """Keep a chart's view for the next run (the Hardware tab's: its prices in their own file
    when they changed since ``before``); a problem saving them, or ""."""
    if not isinstance(view, HardwareView):
        return ""
    save(prefs, view)
    if isinstance(before, HardwareView) and before.prices == view.prices:
        return ""
    return save_my_prices(prefs, {g: dict(p) for g, p in view.prices.items()})
