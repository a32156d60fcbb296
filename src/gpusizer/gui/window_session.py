"""What the main window (gui/main_window.py) remembers between starts and takes from outside:
its geometry and splitters' places (gui/settings.py Prefs), files dropped on it, and the user
GPUs its lists left out."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QMainWindow, QSplitter

from .model_import import is_model_path
from .settings import Prefs

# A window of a first start: at most this size (px) and this share of the screen.
FIRST_SIZE = (1440, 900)
FIRST_SHARE = (0.95, 0.92)


def dropped_paths(event: QDragEnterEvent | QDropEvent) -> list[Path]:
    """The local files of a drag that the window opens: scenarios (.json), GGUF and
    safetensors files, and model folders or configs (gui/model_import.py)."""
    urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
    return [
        Path(u.toLocalFile())
        for u in urls
        if u.isLocalFile()
        and (
            u.toLocalFile().lower().endswith((".json", ".gguf", ".safetensors"))
            or is_model_path(u.toLocalFile())
        )
    ]


def restore_geometry(window: QMainWindow, prefs: Prefs, splitters: dict[str, QSplitter]) -> None:
    """The remembered geometry and splitter places; on a first start a size that fits the screen."""
    geometry = prefs.geometry("geometry")
    if geometry is None or not window.restoreGeometry(geometry):
        screen = window.screen().availableGeometry()  # a first start: fit the screen
        width = min(FIRST_SIZE[0], int(screen.width() * FIRST_SHARE[0]))
        window.resize(width, min(FIRST_SIZE[1], int(screen.height() * FIRST_SHARE[1])))
    for key, splitter in splitters.items():
        value = prefs.geometry(key)
        if value is not None:
            splitter.restoreState(value)


def save_geometry(window: QMainWindow, prefs: Prefs, splitters: dict[str, QSplitter]) -> None:
    """The window's geometry and each splitter's place, for the next start."""
    prefs.set_geometry("geometry", window.saveGeometry())
    for key, splitter in splitters.items():
        prefs.set_geometry(key, splitter.saveState())


def left_out_gpus(skipped: Sequence[str]) -> list[str]:
    """Sentences about user GPUs left out of the list (a damaged "my GPUs" file): the entries
    the core skipped when reading it, and ``skipped``, those the dropdowns could not show."""
    from ..core.model.presets import user_gpu_problems

    return user_gpu_problems() + (
        [f"Left out of the GPU list, unreadable in the user-GPU file: {', '.join(skipped)}"]
        if skipped
        else []
    )
