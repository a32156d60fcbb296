"""What the window remembers between runs: geometry, units, the last scenario, recent files.

Stored with QSettings in an INI file. ``GPUSIZER_SETTINGS_DIR`` points it at another folder
(tests use a temporary one, so they never read or change the user's settings). Only a regular
file of at most :data:`MAX_SETTINGS_BYTES` is read: QSettings opens its file when it is made,
so a FIFO named ``gpusizer.ini`` stopped every start. Anything else there
is left alone and this session's settings go to a temporary file (the window says so).
"""

from __future__ import annotations

import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QSettings

from ..core.errors import ScenarioError
from ..core.readfile import parse_json_object

SETTINGS_ENV = "GPUSIZER_SETTINGS_DIR"
MAX_RECENT = 8
MAX_PATH_CHARS = 4096
MAX_SCENARIO_CHARS = 4 * 2**20  # a scenario is a few kB
MAX_SETTINGS_BYTES = 16 * 2**20  # a few kB in use: a last scenario, geometry, recent files


def settings_path() -> Path:
    """Where the settings file is: ``$GPUSIZER_SETTINGS_DIR/gpusizer.ini``, else the INI
    file QSettings keeps for the user (asked of Qt with a name no file has, so that nothing
    is opened: Qt reads a settings file as the QSettings is made)."""
    folder = os.environ.get(SETTINGS_ENV)
    if folder:
        return Path(folder) / "gpusizer.ini"
    probe = QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "gpusizer-path-probe", "probe")
    return Path(probe.fileName()).parent.parent / "gpusizer" / "gpusizer.ini"


def settings_dir(settings: QSettings) -> Path:
    """The folder of ``settings``' file (a temporary one when the settings are not kept)."""
    return Path(settings.fileName()).parent


def unreadable(path: Path) -> str:
    """Why the settings file at ``path`` is not read ("" when it is, or when there is none)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(st.st_mode):
        return "is not a regular file"
    if st.st_size > MAX_SETTINGS_BYTES:
        return f"is over {MAX_SETTINGS_BYTES // 2**20} MiB"
    return ""


def _open() -> tuple[QSettings, str, tempfile.TemporaryDirectory[str] | None]:
    path = settings_path()
    why = unreadable(path)
    if not why:
        return QSettings(str(path), QSettings.Format.IniFormat), "", None
    spare = tempfile.TemporaryDirectory(prefix="gpusizer-settings-")
    note = f"The settings file {path} {why}: it was not read, and settings are not kept this time."
    return QSettings(str(Path(spare.name) / "gpusizer.ini"), QSettings.Format.IniFormat), note, spare


class Prefs:
    """Typed access to the settings; every read tolerates a missing or damaged value."""

    def __init__(self, settings: QSettings | None = None) -> None:
        self.dropped = ""  # why a remembered value was dropped (the window says so)
        self._spare = None  # the temporary folder of settings not kept (removed with these)
        if settings is None:
            settings, self.dropped, self._spare = _open()
        self.qs = settings

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
        # PATH_MAX bounds a path (4,096 on Linux): longer is damage, and the menu lays it out.
        ok = [v for v in items[: MAX_RECENT * 4] if isinstance(v, str) and v and "\0" not in v]
        return [v for v in ok if len(v) <= MAX_PATH_CHARS][:MAX_RECENT]

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
        ok = isinstance(value, str) and 0 < len(value) <= MAX_PATH_CHARS and "\0" not in value
        return Path(value) if ok else None

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
        try:  # read as a scenario file is (core/readfile.py: strict JSON, depth, text)
            return parse_json_object(text, "settings", "the last scenario")
        except ScenarioError as exc:
            self.dropped = (
                f"The last scenario could not be read and was dropped ({exc}); starting from the default."
            )
            return None

    def save_last_scenario(self, data: dict[str, Any]) -> None:
        self.qs.setValue("state/last_scenario", json.dumps(data))

    def geometry(self, key: str) -> QByteArray | None:
        value = self._get(f"window/{key}", None)
        return value if isinstance(value, QByteArray) and not value.isEmpty() else None

    def set_geometry(self, key: str, value: QByteArray) -> None:
        self.qs.setValue(f"window/{key}", value)

    def sync(self) -> None:
        self.qs.sync()
