"""The user's own prices ("My prices"): one JSON object in the shape
``compare_gpus(prices=...)`` takes (core/sizing/prices.py), keyed by GPU or system id:

    {"h100-sxm-80gb": {"price_per_hour": 2.5, "date": "2026-11", "source": "broker quote"},
     "hgx-h100-8gpu": {"list_price_usd": 210000}}

The window keeps it in its settings folder (``GPUSIZER_USER_PRICES`` names the file; the
window sets it); ``gpusizer-cli compare|report|chart --prices FILE`` reads one. Read strictly
(core/readfile.py: strict JSON, UTF-8, at most :data:`MAX_PRICES_BYTES`; every id a catalog or
user GPU or a catalog system; every value checked), written atomically (io/atomic.py)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError
from ..core.model.presets import gpu_aliases, gpu_presets, system_presets
from ..core.readfile import MiB, read_json_object
from ..core.sizing.prices import Prices, check_prices
from .atomic import write_json
from .filelock import locked

ENV = "GPUSIZER_USER_PRICES"
FIELD = "prices"
MAX_PRICES_BYTES = 1 * MiB  # an entry is about 100 bytes


def prices_file() -> Path | None:
    """The file the window keeps the user's prices in (None: not set)."""
    path = os.environ.get(ENV)
    return Path(path) if path else None


def known_ids() -> set[str]:
    """Ids a price may name: catalog and user GPUs, their former ids, catalog systems."""
    return set(gpu_presets()) | set(gpu_aliases()) | set(system_presets())


def checked(prices: Mapping[str, Mapping[str, Any]]) -> Prices:
    """``check_prices`` plus known ids (ScenarioError naming the first unknown one)."""
    out = check_prices(prices)
    ids = known_ids()
    for gid in out:
        if gid not in ids:
            raise ScenarioError(
                f"{FIELD}.{gid}", "unknown GPU or system id (gpusizer-cli gpus lists the GPUs)"
            )
    return {gid: {k: v for k, v in entry.items() if v is not None} for gid, entry in out.items()}


def read_prices(path: str | Path) -> Prices:
    """The prices in ``path``; ScenarioError (naming the file or the entry) if it is not a
    valid prices object."""
    data = read_json_object(path, FIELD, MAX_PRICES_BYTES, "a JSON object of prices by GPU or system id")
    return checked(data)


def load_user_prices(path: Path | None = None) -> Prices:
    """The window's prices (``path`` or :func:`prices_file`); {} when there is no file yet."""
    path = path or prices_file()
    if path is None or not path.exists():
        return {}
    return read_prices(path)


def save_prices(path: Path, prices: Mapping[str, Mapping[str, Any]]) -> None:
    """Write the prices atomically (the folder is created: it is the app's own); entries
    without a price or a note are dropped."""
    clean = {g: dict(e) for g, e in checked(prices).items() if e}
    with locked(path, FIELD):  # one save at a time (io/filelock.py)
        if path.exists():
            try:
                read_prices(path)
            except ScenarioError as exc:  # never overwrite what could not be read
                raise ScenarioError(FIELD, f"{exc.message}; fix or delete it first") from None
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, dict(sorted(clean.items())), FIELD)


def save_price(path: Path, gid: str, entry: Mapping[str, Any] | None) -> Prices:
    """Set (or with None remove) one id's prices in the file, keeping every other entry, as
    one locked read-modify-write: two windows saving a price each at once keep both. Returns
    the prices saved."""
    with locked(path, FIELD):
        prices = load_user_prices(path)
        if entry:
            prices[gid] = dict(entry)
        else:
            prices.pop(gid, None)
        clean = {g: dict(e) for g, e in checked(prices).items() if e}
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json(path, dict(sorted(clean.items())), FIELD)
    return clean
