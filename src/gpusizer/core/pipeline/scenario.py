"""Turn user input (a dict from a file, the CLI or a script) into a validated :class:`Scenario`.

Every failure is a :class:`ScenarioError` naming the field (``model.layers``) and what is
allowed; unknown fields are refused (a typo must not pass silently: scenario-format.md). The
hardware block's checks and default node are core/pipeline/scenario_hardware.py's.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from ..errors import ScenarioError, check_text, excerpt, from_validation
from ..memo import Memo
from ..memory.no_sync_default import with_stack_no_sync
from ..memory.techniques import fill_profile_defaults
from ..model.checkpoint import fill_precision
from ..model.context_algorithm import CARRIED
from ..model.presets import model_presets
from ..model.redundant import check_balance
from ..model.specs import HardwareSpec, ModelSpec, Scenario
from ..registry.engine_flags import field_hint
from ..registry.workloads import WORKLOAD_KINDS
from ..suggest import did_you_mean
from .rl_framework import fill_rl_framework
from .rl_qlora_kind import read_qlora_policy
from .scenario_hardware import check_gpu, default_gpus_per_node, default_node, hardware_block
from .validate import check_model, check_scenario

__all__ = [
    "OTHER_KINDS",
    "clear_cache",
    "default_gpus_per_node",
    "hardware_block",
    "model_spec",
    "other_document",
    "other_kinds",
    "parse_scenario",
    "scenario_dict",
    "with_hardware",
]


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
            f"unknown preset {excerpt(name)}{did_you_mean(name, presets)}; run "
            f"`gpusizer-cli presets` for the list (e.g. {', '.join(list(presets)[:4])})",
        )
    data = {k: v for k, v in presets[name].items() if k not in ("id", "aliases", "notes")}
    data.update(block)
    return data


_VALIDATED: Memo[Scenario] = Memo(512)  # canonical JSON -> frozen Scenario (safe to share)
_MODELS: Memo[ModelSpec] = Memo(512)  # canonical JSON of a model block -> its validated spec


def clear_cache() -> None:
    """Forget validated scenarios (call after the user's GPU list changes)."""
    _VALIDATED.clear()
    _MODELS.clear()


def _canonical(data: Any) -> str | None:
    """Sorted-key JSON of a dict, the memo key; None when it is not JSON-able."""
    try:
        return json.dumps(data, sort_keys=True)
    except (TypeError, ValueError):
        return None


def parse_scenario(data: Any) -> Scenario:
    """Validate a scenario dict (contract: scenario-format.md) or raise ScenarioError.

    Scenarios are frozen, so a dict seen before returns the same validated object; scripts and
    sweeps that re-estimate one scenario skip re-validation."""
    if isinstance(data, Scenario):
        return data
    if not isinstance(data, dict):
        raise ScenarioError("", "a scenario must be a JSON object")
    key = _canonical(data)
    if key is None:  # not JSON-able: validation names the bad field
        return _validate(dict(data))
    # the key escapes every character past ASCII as \uXXXX (json.dumps' ensure_ascii): a key
    # without one holds ASCII text only, which check_text would pass (a third of an RL layout's
    # estimate, whose role scenarios are parsed anew at each layout)
    return _VALIDATED.get(key, lambda: _validate(dict(data), ascii_only="\\u" not in key))


def parse_role_dict(data: dict[str, Any]) -> Scenario:
    """:func:`parse_scenario` of a dict built by code from a validated scenario (RL's role
    scenarios, core/pipeline/rl_roles.py), without its memo and text check: each such dict is
    new (an RL compare of Qwen3 30B-A3B built ~22,000, none twice; their roles are kept by
    core/pipeline/rl_shared.py), so the 4.6 kB canonical key, a third of each validation, found
    nothing and churned the memo; its strings are the validated scenario's own or a registry's.
    The scenario is equal field by field; only its identity is not shared."""
    data = dict(data)
    return _validate(data, ascii_only=True, heads_split=data.pop(CARRIED, None))


def _validated_model(block: Any) -> ModelSpec:
    try:
        spec = ModelSpec.model_validate(_expand_model(block))
    except ValidationError as exc:
        raise from_validation(exc, ("model",), field_hint) from None
    check_model(spec)
    return spec


def _model_spec(block: Any) -> Any:
    """The validated model of a block, shared between scenarios that name the same model, so
    everything derived from it (shape, counts, activations) is found by identity, not rebuilt."""
    key = _canonical(block) if isinstance(block, dict) else None
    if key is None:
        return _expand_model(block)
    return _MODELS.get(key, lambda: _validated_model(block))


def model_spec(block: dict[str, Any]) -> ModelSpec:
    """The validated model of a model block alone (``{"preset": ID}`` and overrides), the one a
    scenario naming it shares; ScenarioError as :func:`parse_scenario` says it. Cheaper than a
    whole scenario: the window's preset list sizes every preset at start-up."""
    spec = _model_spec(block)
    if not isinstance(spec, ModelSpec):  # a block that is not JSON-able: validation names it
        spec = _validated_model(block)
    return spec


def scenario_dict(s: Scenario) -> dict[str, Any]:
    """The scenario with every default filled in, as JSON-able data that parses back to the
    same scenario (the report's echo, saved files, the window's last scenario)."""
    return s.model_dump(mode="json")


OTHER_KINDS = "other_kinds"  # the file's optional block of the other kinds' settings


def other_kinds(data: Any) -> dict[str, dict[str, Any]]:
    """The optional ``other_kinds`` block of a scenario file: for each workload kind not shown,
    how the window last had it done (its framework, parallelism and techniques, by dotted path),
    so that switching kind after reopening the file brings them back. Ignored by the estimate;
    ScenarioError names a kind that is not registered or a value that is not an object."""
    block = data.get(OTHER_KINDS, {}) if isinstance(data, dict) else {}
    if not isinstance(block, dict):
        raise ScenarioError(OTHER_KINDS, "must be an object of workload kind -> settings")
    for kind, settings in block.items():
        if kind not in WORKLOAD_KINDS:
            known = ", ".join(WORKLOAD_KINDS)
            raise ScenarioError(f"{OTHER_KINDS}.{excerpt(kind)}", f"is not a workload kind ({known})")
        if not isinstance(settings, dict) or not all(isinstance(k, str) for k in settings):
            raise ScenarioError(f"{OTHER_KINDS}.{kind}", "must be an object of field path -> value")
    return {str(k): dict(v) for k, v in block.items()}


def _expand_draft(data: dict[str, Any]) -> None:
    """``serving.speculative.draft_model`` as a model block (a preset and its overrides), its
    errors named under that path."""
    spec = (data.get("serving") or {}).get("speculative") if isinstance(data.get("serving"), dict) else None
    if not isinstance(spec, dict) or not isinstance(spec.get("draft_model"), dict):
        return
    where = "serving.speculative.draft_model"
    try:
        model = _model_spec(spec["draft_model"])
    except ScenarioError as exc:
        raise ScenarioError(f"{where}.{exc.field.removeprefix('model.')}", exc.message) from None
    data["serving"] = {**data["serving"], "speculative": {**spec, "draft_model": model}}


# Other JSON documents of this app and its users, known by keys no scenario has: (those keys,
# what the document is and what to do with it). A scenario file is often confused with them.
_OTHER_DOCUMENTS = (
    (
        ("per_gpu", "scenario"),
        'an estimate report (gpusizer-cli estimate --json), not a scenario: its "scenario" block '
        "is the scenario it estimated",
    ),
    (
        ("per_gpu_total", "gpus"),
        "a sizing option (gpusizer-cli plan or compare --json), not a scenario: apply its "
        '"parallelism", "hardware" and "scenario_changes" to the scenario it came from',
    ),
    (
        ("model_type",),
        "a Hugging Face config.json, not a scenario: gpusizer-cli import-config (or File > Import "
        'Model in the window) turns it into a scenario\'s "model" block',
    ),
    (("architectures",), "a Hugging Face config.json, not a scenario: gpusizer-cli import-config"),
)


def other_document(data: dict[str, Any]) -> str | None:
    """What a JSON object that is another kind of document is (a report, a plan's option, a
    Hugging Face config.json) and what to do with it; None: none of them (a scenario has a
    ``model``)."""
    if "model" in data:
        return None
    return next((what for keys, what in _OTHER_DOCUMENTS if all(k in data for k in keys)), None)


def _check_kind_of_document(data: dict[str, Any]) -> None:
    """Another kind of document: one line saying which, naming its first key a scenario does
    not have, in place of "unknown field (check the spelling)" as if a field were misspelt."""
    what = other_document(data)
    if what is not None:
        first = next(str(k) for k in data if k not in Scenario.model_fields)
        raise ScenarioError(excerpt(first) if len(first) > 60 else first, f"unknown field: this is {what}")


def _validate(data: dict[str, Any], ascii_only: bool = False, heads_split: bool | None = None) -> Scenario:
    """``heads_split``: the RL framework's context algorithm on a role's trainer
    (core/model/context_algorithm.py), set before the checks read it."""
    _check_kind_of_document(data)
    other_kinds(data)  # checked, then left to the window: no part of the estimate
    data.pop(OTHER_KINDS, None)
    if not ascii_only:  # known ASCII (parse_scenario): no lone surrogate to find
        check_text(data)
    data = fill_profile_defaults(data)
    read_qlora_policy(data)  # the stacks' "qlora" policy: LoRA on a 4-bit base
    data = fill_rl_framework(data)  # an RL framework release's defaults (rl.framework)
    if "model" in data:
        data["model"] = _model_spec(data["model"])
    _expand_draft(data)
    fill_precision(data)  # serving follows the checkpoint's precision (core/model/checkpoint.py)
    check_gpu(data.get("hardware"))
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise from_validation(exc, field_hint=field_hint) from None
    if heads_split is not None:
        scenario.parallelism.splitting_heads(heads_split)
    scenario = _pad_vocab(default_node(scenario))
    check_scenario(scenario)
    check_balance(scenario)  # on the stated layout only: the search's candidates keep it as read
    return with_stack_no_sync(scenario)  # the stack's FSDP1 no_sync() where left out


def with_hardware(s: Scenario, hw: HardwareSpec) -> Scenario:
    """The scenario :func:`parse_scenario` makes of ``s``'s dict with another hardware block
    (``hw``: :func:`hardware_block` of it): the node it defaults to on its GPU, then the checks,
    some of which read the GPU (core/pipeline/validate*.py). Shares one layout's validation
    among the GPUs of a catalog search (core/pipeline/rl_shared.py)."""
    out = default_node(s.model_copy(update={"hardware": hw}))  # _pad_vocab reads no hardware
    check_scenario(out)
    check_balance(out)
    return out


def _pad_vocab(s: Scenario) -> Scenario:
    """Megatron's padded vocabulary (``parallelism.vocab_divisible_by`` x TP; megatron/training/
    tokenizer ``_vocab_size_with_padding``): the model block carries the padded size, so the
    echo loads back the same (padding a padded size changes nothing)."""
    d, vocab = s.parallelism.vocab_divisible_by, s.model.vocab_size
    if not d or not vocab:
        return s
    step = d * s.parallelism.tensor
    padded = -(-vocab // step) * step
    if padded == vocab:
        return s
    return s.model_copy(update={"model": s.model.model_copy(update={"vocab_size": padded})})
