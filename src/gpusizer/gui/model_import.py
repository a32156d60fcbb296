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
from ..core.model.checkpoint import PRECISION_FIELDS, follows_checkpoint
from ..core.model.naming import is_derived
from ..core.pipeline.scenario import parse_scenario, scenario_dict
from ..io.import_text import precision_text, table_mismatch
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
        if is_derived(files.state.scenario):
            data["name"] = ""  # a name that followed the old model follows the new one
        scenario = parse_scenario(data)
    except ScenarioError as exc:
        files.warn("Cannot import model", f"{p.name} was not imported:\n{exc}")
        return False
    files.state.set_scenario(scenario, label=f"Import {result['name']}")
    mismatch = table_mismatch(result)
    if mismatch:  # as the CLI says it (issue 23): imported, but not what the file holds
        files.warn("Model imported with a warning", f"{p.name}: {mismatch}.")
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
