"""What the window remembers between runs: geometry, units, the last scenario, recent files.

Stored with QSettings in an INI file. ``GPUSIZER_SETTINGS_DIR`` points it at another folder
(tests use a temporary one, so they never read or change the user's settings).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

SETTINGS_ENV = "GPUSIZER_SETTINGS_DIR"
MAX_RECENT = 8
MAX_SCENARIO_CHARS = 4 * 2**20  # a scenario is a few kB


def open_settings() -> QSettings:
    """The app's settings (INI), in ``$GPUSIZER_SETTINGS_DIR`` when that is set."""
    folder = os.environ.get(SETTINGS_ENV)
    if folder:
        return QSettings(str(Path(folder) / "gpusizer.ini"), QSettings.Format.IniFormat)
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "gpusizer", "gpusizer")


def settings_dir(settings: QSettings) -> Path:
    return Path(settings.fileName()).parent


class Prefs:
    """Typed access to the settings; every read tolerates a missing or damaged value."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.qs = settings if settings is not None else open_settings()
        self.dropped = ""  # why a remembered value was dropped (the window says so)

    def _get(self, key: str, default: Any) -> Any:
        try:
            value = self.qs.value(key, default)
        except Exception:  # a hand-edited or foreign settings file must not stop the app
            return default
        return default if value is None else value

    @property
    def units(self) -> str:
        unit = str(self._get("view/units", "GiB"))
        return unit if unit in ("GiB", "GB") else "GiB"

    @units.setter
    def units(self, unit: str) -> None:
        self.qs.setValue("view/units", unit)

    def recent_files(self) -> list[str]:
        value = self._get("files/recent", [])
        items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
        return [v for v in items if isinstance(v, str) and v and "\0" not in v][:MAX_RECENT]

    def add_recent(self, path: str | Path) -> list[str]:
        p = str(Path(path).resolve())
        items = [p, *[r for r in self.recent_files() if r != p]][:MAX_RECENT]
        self.qs.setValue("files/recent", items)
        return items

    def clear_recent(self) -> None:
        self.qs.setValue("files/recent", [])

    def last_dir(self) -> Path | None:
        """The folder of the last file opened or saved through a dialog."""
        value = self._get("files/last_dir", "")
        return Path(value) if isinstance(value, str) and value else None

    def set_last_dir(self, folder: str | Path) -> None:
        self.qs.setValue("files/last_dir", str(folder))

    def last_scenario(self) -> dict[str, Any] | None:
        """The scenario of the last session; None (and ``dropped`` says why) when the stored
        text is not a JSON object: damaged, nested past the parser's depth, too large."""
        text = self._get("state/last_scenario", "")
        if not isinstance(text, str) or not text:
            return None
        if len(text) > MAX_SCENARIO_CHARS:
            self.dropped = "The last scenario was too large to restore; starting from the default."
            return None
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            self.dropped = (
                "The last scenario could not be read and was dropped "
                f"({type(exc).__name__}); starting from the default."
            )
            return None
        return data if isinstance(data, dict) else None

    def save_last_scenario(self, data: dict[str, Any]) -> None:
        self.qs.setValue("state/last_scenario", json.dumps(data))

    def geometry(self, key: str) -> QByteArray | None:
        value = self._get(f"window/{key}", None)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_geometry(self, key: str, value: QByteArray) -> None:
        self.qs.setValue(f"window/{key}", value)

    def sync(self) -> None:
        self.qs.sync()
