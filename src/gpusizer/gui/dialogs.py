"""File dialogs that start in the folder last used (remembered between runs), suggest a name
made from the scenario's, and pre-select the filter that matches the suggested suffix."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from .settings import Prefs


def slug(name: str, fallback: str = "scenario") -> str:
    """A file name from a scenario name: ``Llama 3.1 8B, LoRA on one H100`` ->
    ``llama-3.1-8b-lora-on-one-h100``."""
    text = re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-.")
    return text[:80].rstrip("-.") or fallback


def filter_for(filters: str, file_name: str) -> str:
    """The entry of a ``;;`` filter list whose pattern matches ``file_name``'s suffix."""
    entries = filters.split(";;")
    low = file_name.lower()
    for entry in entries:
        patterns = re.findall(r"\*(\.[\w.]+)", entry)
        if any(low.endswith(p) for p in patterns):
            return entry
    return entries[0]


def start_dir(prefs: Prefs) -> Path:
    """The folder a dialog opens in: the last one used, while it still exists, else home."""
    last = prefs.last_dir()
    return last if last is not None and last.is_dir() else Path.home()


def _remember(prefs: Prefs, path: str) -> None:
    if path:
        prefs.set_last_dir(Path(path).parent)


def ask_open(parent: QWidget, prefs: Prefs, title: str, filters: str) -> str:
    """A file to open ("" when cancelled)."""
    path, _chosen = QFileDialog.getOpenFileName(parent, title, str(start_dir(prefs)), filters)
    _remember(prefs, path)
    return path


def ask_save(
    parent: QWidget, prefs: Prefs, title: str, file_name: str, filters: str, folder: Path | None = None
) -> tuple[str, str]:
    """(path, chosen filter) to save to; the suggested name carries the suffix of the filter
    shown first ("" when cancelled)."""
    start = (folder or start_dir(prefs)) / file_name
    path, chosen = QFileDialog.getSaveFileName(
        parent, title, str(start), filters, filter_for(filters, file_name)
    )
    _remember(prefs, path)
    return path, chosen
