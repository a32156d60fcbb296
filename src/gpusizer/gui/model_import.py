"""File > Import Model…, File > Import Hugging Face config.json… and drag-and-drop of a model
folder, a config.json or a .gguf file: all through ``import_model_path``.

The import (io/model_import.py) replaces the model and, for a serving scenario, the precision
with the checkpoint's, in one undo step; a training scenario keeps its precision (training
loads the checkpoint dequantised, core/checkpoint.py) and the status bar says how the
checkpoint is stored. A refused import changes nothing and says why.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication, QObject, Signal

from ..core.errors import ScenarioError, printable
from ..core.model.checkpoint import follows_checkpoint
from ..core.pipeline.scenario import parse_scenario, scenario_dict
from ..io.import_text import precision_text
from .dialogs import ask_open

log = logging.getLogger(__name__)
CONFIG_FILTER = "config.json (*.json);;All files (*)"
MODEL_FILTER = (
    "Model files (config.json *.gguf *.safetensors *.index.json);;GGUF files (*.gguf);;All files (*)"
)


def is_model_path(path: str | Path) -> bool:
    """A folder, a GGUF or a safetensors file: what only the model import opens."""
    p = Path(path)
    return p.is_dir() or p.name.endswith((".gguf", ".safetensors", ".safetensors.index.json"))


def import_model_path(files: Any, path: str | Path) -> bool:
    """Import into the window's scenario through its FileController ``files``: read in a
    worker thread (:class:`ModelImporter`), applied when done; True when it started."""
    return bool(files.importer.start(Path(path)))


class ModelImporter(QObject):
    """Reads a model (io/model_import.py) off the GUI thread: a safetensors header or a GGUF
    tensor table of up to 100 MB is parsed and checked there, and the window stays live
    (issue 24, item 8: it ran on the GUI thread). The result is applied on the GUI thread,
    on the scenario as it is then; one import at a time."""

    _finished = Signal(object, object, object)  # from the worker: path, result, error

    def __init__(self, files: Any) -> None:
        super().__init__(files)
        self.files = files
        self._thread: threading.Thread | None = None
        self._finished.connect(self._apply)

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, path: Path) -> bool:
        if self.busy:
            self.files.state.notice.emit("A model is being imported; drop the next one when it is done")
            return False
        self.files.state.notice.emit(f"Importing {printable(path.name)}…")
        self._thread = threading.Thread(target=self._read, args=(path,), name="model-import", daemon=True)
        self._thread.start()
        return True

    def _read(self, path: Path) -> None:
        from ..io.model_import import import_model

        result, error = None, None
        try:
            result = import_model(path)
        except ScenarioError as exc:
            error = exc
        except Exception as exc:  # a reader's own failure on odd input: said, and logged
            log.exception("model import failed")
            error = ScenarioError("", f"cannot be read ({type(exc).__name__})")
        with contextlib.suppress(RuntimeError):  # the window closed while reading: nothing to do
            self._finished.emit(path, result, error)

    def wait(self, timeout: float | None = None) -> None:
        """Until the running import is read and applied (tests, closing)."""
        if self._thread is not None:
            self._thread.join(timeout)
        QCoreApplication.sendPostedEvents(self)

    def _apply(self, path: Path, result: dict[str, Any] | None, error: ScenarioError | None) -> None:
        from ..io.model_import import imported_scenario

        files = self.files
        try:
            if error is not None:
                raise error
            assert result is not None
            data = imported_scenario(result, scenario_dict(files.state.scenario))
            scenario = parse_scenario(data)
        except ScenarioError as exc:
            files.warn("Cannot import model", f"{path.name} was not imported:\n{exc}")
            return
        files.state.set_scenario(scenario, label=f"Import {result['name']}")
        stored = precision_text(result["precision"])
        if follows_checkpoint(data.get("workload")):
            files.state.notice.emit(f"Imported {result['name']}: stored as {stored}")
        else:
            files.state.notice.emit(
                f"Imported {result['name']}: stored as {stored} (applies when serving; "
                "training keeps the precision set)",
            )


def import_model_dialog(
    files: Any,
    title: str = "Import model (folder's config.json or a GGUF file)",
    filters: str = MODEL_FILTER,
) -> bool:
    """Choose a config.json (its folder is read), a .gguf or a safetensors file; the dialog
    starts in the folder last used (gui/dialogs.py)."""
    path = ask_open(files.window, files.prefs, title, filters)
    return import_model_path(files, path) if path else False


def import_config_dialog(files: Any) -> bool:
    """Choose a Hugging Face config.json (File > Import Hugging Face config.json…, Ctrl+I)."""
    return import_model_dialog(files, "Import Hugging Face config.json", CONFIG_FILTER)
