"""Turn user input (a dict from a file, the CLI or a script) into a validated :class:`Scenario`.

Every failure is a :class:`ScenarioError` naming the field (``model.layers``) and what is
allowed; unknown fields are refused (a typo must not pass silently: scenario-format.md).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from .errors import ScenarioError, excerpt, from_validation
from .presets import gpu_presets, model_presets
from .specs import GPUSpec, ModelSpec, Scenario
from .validate import check_model, check_scenario

_SIZE_ONLY_KEYS = {"name", "parameters", "preset", "source_url", "family"}


def _expand_model(block: Any) -> Any:
    """A ``{"preset": id, ...overrides}`` block becomes the preset's fields plus the overrides."""
    if not isinstance(block, dict) or "preset" not in block:
        return block
    if block["preset"] is None:  # a saved custom model echoes "preset": null
        return {k: v for k, v in block.items() if k != "preset"}
    name = block["preset"]
    presets = model_presets()
    if not isinstance(name, str) or name not in presets:
        raise ScenarioError(
            "model.preset",
            f"unknown preset {excerpt(name)}; run `gpusizer-cli presets` for the list "
            f"(e.g. {', '.join(list(presets)[:4])})",
        )
    data = {k: v for k, v in presets[name].items() if k not in ("id", "aliases", "notes")}
    data.update(block)
    return data


def _check_gpu(hardware: Any) -> None:
    """A catalog id must exist; an inline GPU is validated alone, so that its error names the
    field (``hardware.gpu.dense_tflops.bf16``), not the other branch of ``str | GPUSpec``."""
    if not isinstance(hardware, dict):
        return
    gpu = hardware.get("gpu")
    if isinstance(gpu, dict):
        try:
            GPUSpec.model_validate(gpu)
        except ValidationError as exc:
            raise from_validation(exc, ("hardware", "gpu")) from None
    if isinstance(gpu, str) and gpu not in gpu_presets():
        ids = ", ".join(sorted(gpu_presets())[:6])
        raise ScenarioError(
            "hardware.gpu",
            f"unknown GPU {excerpt(gpu)}; run `gpusizer-cli gpus` for the list (e.g. {ids}, ...)",
        )


_VALIDATED: dict[str, Scenario] = {}  # canonical JSON -> frozen Scenario (immutable: safe to share)
_CACHE_SIZE = 512


def clear_cache() -> None:
    """Forget validated scenarios (call after the user's GPU list changes)."""
    _VALIDATED.clear()
    _MODELS.clear()


def parse_scenario(data: Any) -> Scenario:
    """Validate a scenario dict (contract: scenario-format.md) or raise ScenarioError.

    Scenarios are frozen, so a dict seen before returns the same validated object; scripts and
    sweeps that re-estimate one scenario skip re-validation."""
    if isinstance(data, Scenario):
        return data
    if not isinstance(data, dict):
        raise ScenarioError("", "a scenario must be a JSON object")
    try:
        key: str | None = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):
        key = None  # not JSON-able: validation below names the bad field
    if key is not None and key in _VALIDATED:
        return _VALIDATED[key]
    scenario = _validate(dict(data))
    if key is not None:
        if len(_VALIDATED) >= _CACHE_SIZE:
            _VALIDATED.clear()
        _VALIDATED[key] = scenario
    return scenario


_MODELS: dict[str, ModelSpec] = {}  # canonical JSON of a model block -> its validated spec


def _model_spec(block: Any) -> Any:
    """The validated model of a block, shared between scenarios that name the same model, so
    everything derived from it (shape, counts, activations) is found by identity, not rebuilt."""
    if not isinstance(block, dict):
        return _expand_model(block)
    try:
        key = json.dumps(block, sort_keys=True)
    except (TypeError, ValueError):
        return _expand_model(block)
    spec = _MODELS.get(key)
    if spec is None:
        try:
            spec = ModelSpec.model_validate(_expand_model(block))
        except ValidationError as exc:
            raise from_validation(exc, ("model",)) from None
        check_model(spec)
        if len(_MODELS) >= _CACHE_SIZE:
            _MODELS.clear()
        _MODELS[key] = spec
    return spec


def _validate(data: dict[str, Any]) -> Scenario:
    if "model" in data:
        data["model"] = _model_spec(data["model"])
    _check_gpu(data.get("hardware"))
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise from_validation(exc) from None
    check_scenario(scenario)
    return scenario
