"""File > Import Model…, File > Import Hugging Face config.json… and drag-and-drop of a model
folder, a config.json or a .gguf file: all through ``import_model_path``.

The import (io/model_import.py) replaces the model and, for a serving scenario, the precision
with the checkpoint's, in one undo step; a training scenario keeps its precision (training
loads the checkpoint dequantised, core/checkpoint.py) and the status bar says how the
checkpoint is stored. A refused import changes nothing and says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError
from ..core.model.checkpoint import follows_checkpoint
from ..core.pipeline.scenario import parse_scenario, scenario_dict
from ..io.import_text import precision_text
from .dialogs import ask_open

CONFIG_FILTER = "config.json (*.json);;All files (*)"
MODEL_FILTER = (
    "Model files (config.json *.gguf *.safetensors *.index.json);;GGUF files (*.gguf);;All files (*)"
)


def is_model_path(path: str | Path) -> bool:
    """A folder, a GGUF or a safetensors file: what only the model import opens."""
    p = Path(path)
    return p.is_dir() or p.name.endswith((".gguf", ".safetensors", ".safetensors.index.json"))


def import_model_path(files: Any, path: str | Path) -> bool:
    """Import into the window's scenario through its FileController ``files``."""
    from ..io.model_import import import_model, imported_scenario

    p = Path(path)
    try:
        result = import_model(p)
        data = imported_scenario(result, scenario_dict(files.state.scenario))
        scenario = parse_scenario(data)
    except ScenarioError as exc:
        files.warn("Cannot import model", f"{p.name} was not imported:\n{exc}")
        return False
    files.state.set_scenario(scenario, label=f"Import {result['name']}")
    stored = precision_text(result["precision"])
    if follows_checkpoint(data.get("workload")):
        files.state.notice.emit(f"Imported {result['name']}: stored as {stored}")
    else:
        files.state.notice.emit(
            f"Imported {result['name']}: stored as {stored} (applies when serving; "
            "training keeps the precision set)",
        )
    return True


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
