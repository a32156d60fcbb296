"""The user's own GPUs ("my GPUs"): a JSON list of GPU objects in the file that
``GPUSIZER_USER_GPUS`` names (the window points it at its settings folder). Read by
core/model/presets.py; written here, atomically and one save at a time (io/filelock.py), never
losing entries it does not understand."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..core.errors import ScenarioError
from ..core.model.presets import (
    MAX_USER_GPU_BYTES,
    gpu_aliases,
    gpu_presets,
    system_presets,
    user_gpu_file,
)
from ..core.readfile import read_json
from .atomic import write_json
from .filelock import locked

FIELD = "user GPUs"


def _path() -> Path:
    path = user_gpu_file()
    if path is None:
        raise ScenarioError(FIELD, "no user-GPU file is set (GPUSIZER_USER_GPUS)")
    return path


def read_list(path: Path) -> list[Any]:
    """The file's entries as they are ([] when it does not exist); ScenarioError when it is
    not a JSON list, so that a save never overwrites what it could not read. Read as
    core/model/presets.py reads it (core/readfile.py: strict JSON, UTF-8, bounded)."""
    if not path.exists():
        return []
    try:
        data, _ = read_json(path, FIELD, MAX_USER_GPU_BYTES)
    except ScenarioError as exc:
        raise ScenarioError(FIELD, f"{exc.message}; fix or delete it first") from None
    if not isinstance(data, list):
        raise ScenarioError(FIELD, f"{path.name} must hold a JSON list of GPUs")
    return data


def new_id(name: str, taken: set[str]) -> str:
    """``my-`` + the name as an id, unique among ``taken`` (catalog and user ids)."""
    stem = "my-" + (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:48] or "gpu")
    gid, n = stem, 2
    while gid in taken:
        gid, n = f"{stem}-{n}", n + 1
    return gid


def save_user_gpu(spec: dict[str, Any]) -> str:
    """Add a GPU (a GPUSpec as JSON) to the user's list under a new id; returns the id."""
    path = _path()
    with locked(path, FIELD):  # read, add, write: one save at a time (io/filelock.py)
        items = read_list(path)
        taken = set(gpu_presets()) | set(gpu_aliases()) | set(system_presets())
        taken |= {str(d.get("id")) for d in items if isinstance(d, dict)}
        gid = new_id(str(spec.get("name", "gpu")), taken)
        items.append({**spec, "id": gid, "vendor": spec.get("vendor") or "custom"})
        path.parent.mkdir(parents=True, exist_ok=True)  # the app's own settings folder
        write_json(path, items, FIELD)
    return gid


def remove_user_gpu(gid: str) -> bool:
    """Remove the user's GPU ``gid``; False when it is not in the list."""
    path = _path()
    with locked(path, FIELD):
        items = read_list(path)
        kept = [d for d in items if not (isinstance(d, dict) and d.get("id") == gid)]
        if len(kept) == len(items):
            return False
        write_json(path, kept, FIELD)
    return True
