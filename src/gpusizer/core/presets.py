"""Preset data: one JSON file per model and per GPU, read with importlib.resources.

Files live in ``gpusizer/presets/models`` and ``gpusizer/presets/gpus``; each carries a
``source_url``. User GPUs (stored with the app's settings) are merged in by id, never
overriding a catalog id.
"""

from __future__ import annotations

import json
import os
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from .specs import GPUSpec, Scenario
from .unified import effective_gpu

USER_GPUS_ENV = "GPUSIZER_USER_GPUS"  # a JSON file of user GPUs (the GUI points it at settings)


def _read_dir(sub: str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    folder = resources.files("gpusizer.presets").joinpath(sub)
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        out[data.get("id", entry.name[:-5])] = data
    return out


@cache
def model_presets() -> dict[str, dict[str, Any]]:
    """All model presets by id: ``{"llama-3.1-8b": {...model fields..., "source_url": ...}}``."""
    return _read_dir("models")


@cache
def _catalog_gpus() -> dict[str, dict[str, Any]]:
    return _read_dir("gpus")


def user_gpu_file() -> Path | None:
    path = os.environ.get(USER_GPUS_ENV)
    return Path(path) if path else None


def user_gpus() -> dict[str, dict[str, Any]]:
    """User-defined GPUs from the settings file (a JSON list of GPU objects); bad file -> none."""
    path = user_gpu_file()
    if path is None or not path.is_file():
        return {}
    try:
        items = json.loads(path.read_text(encoding="utf-8"))
        return {d["id"]: d for d in items if isinstance(d, dict) and "id" in d}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def gpu_presets() -> dict[str, dict[str, Any]]:
    """Catalog GPUs plus the user's own, by id (catalog wins on a clash)."""
    merged = dict(user_gpus())
    merged.update(_catalog_gpus())
    return merged


_GPU_META_KEYS = ("notes", "family", "form_factor", "release_year", "aliases")


@cache
def gpu_aliases() -> dict[str, str]:
    """Former catalog ids that saved scenarios may still name -> the entry they resolve to
    (an entry's ``aliases`` list; ``mi250x-128gb`` is now the per-GCD ``mi250x-gcd-64gb``)."""
    return {alias: gid for gid, data in _catalog_gpus().items()
            for alias in data.get("aliases", ())}


def resolve_gpu_id(gpu_id: str) -> str:
    """The catalog id an alias stands for; any other id unchanged."""
    return gpu_aliases().get(gpu_id, gpu_id)


@cache
def _gpu_spec_cached(gpu_id: str) -> GPUSpec:
    data = gpu_presets()[gpu_id]
    return GPUSpec(**{k: v for k, v in data.items() if k not in _GPU_META_KEYS})


def gpu_spec(gpu_id: str) -> GPUSpec:
    """The catalog (or user) GPU with this id or catalog alias; KeyError if unknown."""
    gpu_id = resolve_gpu_id(gpu_id)
    if gpu_id in _catalog_gpus():
        return _gpu_spec_cached(gpu_id)
    data = user_gpus()[gpu_id]
    return GPUSpec(**{k: v for k, v in data.items() if k not in _GPU_META_KEYS})


def scenario_gpu(s: Scenario) -> GPUSpec:
    """The scenario's GPU: a catalog or user GPU by id, or the inline spec, with the
    scenario's unified-memory share applied (core/unified.py)."""
    gpu = s.hardware.gpu
    spec = gpu if isinstance(gpu, GPUSpec) else gpu_spec(gpu)
    return effective_gpu(spec, s.hardware.gpu_memory_fraction)
