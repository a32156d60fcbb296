"""File > Import Model…, File > Import Hugging Face config.json… and drag-and-drop of a model
folder, a config.json or a .gguf file: all through ``import_model_path``.

The import (io/model_import.py) replaces the model and, for a serving scenario, the precision
with the checkpoint's, in one undo step; a training scenario keeps its precision (training
loads the checkpoint dequantised, core/model/checkpoint.py) and the status bar says how the
checkpoint is stored. A refused import changes nothing and says why.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject

from ..core.cancel import CancelToken
from ..core.errors import ScenarioError, printable
from ..core.model.checkpoint import PRECISION_FIELDS, follows_checkpoint
from ..core.model.naming import is_derived
from ..core.pipeline.scenario import parse_scenario, scenario_dict
from ..io.import_text import precision_text, table_mismatch
from .dialogs import ask_open
from .worker import BackgroundWorker

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
    """Reads a model (io/model_import.py) in the window's kind of background worker
    (gui/worker.py): a safetensors header or a GGUF tensor table of up to 100 MB is parsed
    and checked there, and the window stays live (it ran on the GUI
    thread). The result is applied on the GUI thread, on the scenario as it is then; a newer
    import supersedes one still being read."""

    def __init__(self, files: Any) -> None:
        super().__init__(files)
        self.files = files
        self._paths: dict[str, Path] = {}  # request key -> the path it reads
        self._count = itertools.count()
        self.worker = BackgroundWorker(_read, self, delay_ms=0, cache_size=1, name="gpusizer-import")
        self.worker.finished.connect(self._apply)
        self.worker.failed.connect(self._refused)

    def start(self, path: Path) -> bool:
        self.files.state.notice.emit(f"Importing {printable(path.name)}…")
        key = f"{next(self._count)}:{path}"  # every import reads the files again
        self._paths = {key: path}
        self.worker.request(key, path)
        return True

    def wait(self, timeout: float = 30.0) -> None:
        """Until the running import is read and applied (tests, screenshots)."""
        self.worker.wait(timeout)

    def _refused(self, key: str, message: str) -> None:
        path = self._paths.get(key)
        if path is not None:
            # The status bar still said "Importing ..." after the refusal.
            self.files.state.notice.emit(f"{printable(path.name)} was not imported.")
            self.files.warn("Cannot import model", f"{path.name} was not imported:\n{message}")

    def _apply(self, key: str, result: dict[str, Any]) -> None:
        from ..io.model_import import imported_scenario

        files, path = self.files, self._paths.get(key)
        if path is None:
            return
        try:
            data = imported_scenario(result, scenario_dict(files.state.scenario))
            if is_derived(files.state.scenario):
                data["name"] = ""  # a name that followed the old model follows the new one
            # targets were the previous model's: the headline said "fits" while "GPUs needed"
            # said no layout met them
            reset = files.state.scenario.targets.active
            if reset:
                data["targets"] = {}
            scenario = parse_scenario(data)
        except ScenarioError as exc:
            self._refused(key, str(exc))
            return
        try:
            files.state.set_scenario(scenario, label=f"Import {result['name']}")
        except ScenarioError as exc:  # the estimator refuses it: said as a refusal
            self._refused(key, str(exc))
            return
        mismatch = table_mismatch(result)
        if mismatch:  # as the CLI says it: imported, but not what the file holds
            files.warn("Model imported with a warning", f"{path.name}: {mismatch}.")
        stored = precision_text(result["precision"])
        said = "; targets reset to the default target" if reset else ""
        if follows_checkpoint(data.get("workload")):
            files.state.notice.emit(f"Imported {result['name']}: stored as {stored}{said}")
        else:
            files.state.notice.emit(
                f"Imported {result['name']}: stored as {stored} (applies when serving; "
                f"training keeps the precision set){said}",
            )


def _read(path: Path, _token: CancelToken) -> dict[str, Any]:
    """The import, in the worker thread (headers and tables only; bounded readers)."""
    from ..io.model_import import import_model

    return import_model(path)


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


def precision_for_model(state: Any, model: dict[str, Any]) -> dict[str, Any]:
    """Precision edits that go with a new model block (a preset picked after an import):
    a precision that followed the old model's checkpoint (Q4_K_M from a GGUF) follows the new
    one, as validation fills it for a file that leaves it out (core/model/checkpoint.py):
    the new checkpoint's when serving, the default (bf16, the format's rule) otherwise."""
    from ..core.model.presets import model_presets

    old = state.scenario.model.checkpoint_precision
    current = state.scenario.precision
    if old is None or any(getattr(current, k) != v for k, v in old.fields().items()):
        return {}  # the user's own precision stays
    preset = model_presets().get(model.get("preset") or "", {})
    stored = model.get("checkpoint_precision") or preset.get("checkpoint_precision")
    serving = follows_checkpoint({"kind": state.scenario.workload.kind})
    defaults = {"weights": "bf16", "quantization_rule": None, "modules": None}
    fields = {**defaults, **(stored if serving and isinstance(stored, dict) else {})}
    return {f"precision.{k}": fields.get(k) for k in PRECISION_FIELDS}
