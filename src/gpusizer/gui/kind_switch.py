"""Switching the kind of work: each kind keeps its own way of being done. The first visit to a
kind starts from that kind's defaults; a later visit brings back what the kind had (settings
carried across did harm: Unsloth, full recompute and activation offload carried from QLoRA into
pre-training turned 28 days into 39; TP 4 carried from serving into QLoRA). The status bar says
what changed.

"The way a kind is done" (:func:`kind_paths`): the framework, the whole parallelism block, the
training techniques of the workload block, the weight format, and every field a framework
profile sets by default (``FrameworkProfile.scenario_defaults``: torchtune's bf16 optimizer
states, Unsloth's fused loss, core/registry/frameworks.py). What the model is, its sizes and
the hardware are kept. A kind's defaults are what validation gives a scenario that leaves those
fields out, with the kind's default framework (``frameworks_for``: the first that runs it), so
the framework's own defaults are filled in as in a file (core/memory/techniques.py
``fill_profile_defaults``).
"""

from __future__ import annotations

from typing import Any

from ..core.errors import ScenarioError
from ..core.pipeline.scenario import parse_scenario, scenario_dict
from ..core.registry.frameworks import FRAMEWORKS, frameworks_for
from ..core.registry.workloads import WORKLOAD_KINDS
from .state import ScenarioState, get_path

_TECHNIQUES = (
    "workload.loss",
    "workload.loss_chunks",
    "workload.compile_loss",
    "workload.lora_dropout",
    "workload.kbit_prepare",
    "workload.preference",  # a preference fine-tune (DPO, KTO, ORPO...): its kind's own
    # Serving loads the checkpoint as stored, training dequantises it (core/model/checkpoint.py):
    # Q4_K_M weights served from a GGUF are no training precision.
    "precision.weights",
    "precision.quantization_rule",
    "precision.modules",
    # fields one framework takes (gui/panels/framework_fields.py): the kind's framework's own
    "workload.mlx_version",
    "serving.max_kv_size",
    "workload.transformers_version",
    "workload.lora_target_parameters",
    "workload.unsloth_version",
)
_SHORT = {  # parallelism fields as the status bar names them
    "tensor": "TP",
    "pipeline": "PP",
    "data": "DP",
    "context": "CP",
    "expert": "EP",
    "zero_stage": "ZeRO",
    "virtual_stages": "virtual stages",
    "sequence_parallel": "sequence parallel",
    "recompute": "recompute",
    "attention": "attention",
    "offload_optimizer": "optimizer offload",
    "offload_parameters": "weight offload",
    "optimizer_in_backward": "optimizer step in backward",
    "activation_offload": "activation offload",
    "replicated_mixers": "mixers whole on each TP rank",
    "fsdp_no_sync": "FSDP1 no_sync accumulation",
    "zero_sub_group_size": "ZeRO-3 sub-group",
    "reentrant_checkpoint": "FSDP1 reentrant checkpoint",
}


def kind_paths() -> tuple[str, ...]:
    """The dotted paths that belong to how a kind is done (see the module docstring)."""
    profiled = {f"{block}.{field}" for p in FRAMEWORKS.values() for block, field, _v in p.scenario_defaults}
    extra = sorted(p for p in profiled if not p.startswith("parallelism.") and p not in _TECHNIQUES)
    return ("framework", "parallelism", *_TECHNIQUES, *extra)


def _drop(data: dict[str, Any], path: str) -> None:
    *parents, last = path.split(".")
    for part in parents:
        child = data.get(part)
        data = child if isinstance(child, dict) else {}
    data.pop(last, None)


def _label(framework: Any) -> str:
    profile = FRAMEWORKS.get(str(framework))
    return profile.label if profile is not None else str(framework)


class KindSwitch:
    """Edits that go with a change of ``workload.kind`` (see the module docstring); ``last``
    is the sentence the status bar shows for the last switch."""

    def __init__(self, state: ScenarioState) -> None:
        self.state = state
        # kind id -> its values of kind_paths(): kept on the state, so a saved file carries them
        # (its other_kinds block) and an opened one brings them back
        self.saved = state.other_kinds
        self.last = ""
        state.replaced.connect(self._loaded)

    def _loaded(self, loaded: bool) -> None:
        """A new, opened or imported scenario: every other kind is unvisited again (an opened
        file then puts back the settings it carries)."""
        if loaded:
            self.saved.clear()

    def current(self) -> dict[str, Any]:
        data = scenario_dict(self.state.scenario)
        return {p: get_path(data, p) if p != "parallelism" else data["parallelism"] for p in kind_paths()}

    def defaults(self, kind_id: str) -> dict[str, Any]:
        """The kind's own defaults of kind_paths() for the current model and hardware."""
        data = scenario_dict(self.state.scenario)
        for path in kind_paths():
            _drop(data, path)
        data["workload"]["kind"] = kind_id
        fitting = frameworks_for(WORKLOAD_KINDS[kind_id])
        if fitting:
            data["framework"] = fitting[0].id
        try:
            fresh = scenario_dict(parse_scenario(data))
        except ScenarioError:  # the current model cannot take the defaults: keep what it has
            return self.current()
        return {p: get_path(fresh, p) if p != "parallelism" else fresh["parallelism"] for p in kind_paths()}

    def edits_for(self, kind_id: Any) -> dict[str, Any]:
        """The edits to apply with the switch to ``kind_id`` (and the message, in ``last``)."""
        old = str(self.state.value("workload.kind"))
        new = WORKLOAD_KINDS.get(str(kind_id))
        self.last = ""
        if new is None or new.id == old:
            return {}
        now = self.current()
        self.saved[old] = now
        mine = self.saved.get(new.id)
        target = dict(mine) if mine is not None else self.defaults(new.id)
        said = f"{new.label}: its own settings are back" if mine is not None else f"{new.label}: its defaults"
        notes = self._changes(now, target)
        if notes:
            old_label = WORKLOAD_KINDS[old].label if old in WORKLOAD_KINDS else old
            self.last = (
                f"{said} — {', '.join(notes)} ({old_label}'s settings are kept for when you switch back)."
            )
            self.state.notice.emit(self.last)
        return {p: v for p, v in target.items() if v != now.get(p)}

    def _changes(self, before: dict[str, Any], after: dict[str, Any]) -> list[str]:
        """What the switch changes, in the words of the form ("DP 7 → 1")."""
        notes = []
        if before["framework"] != after["framework"]:
            notes.append(f"framework {_label(before['framework'])} → {_label(after['framework'])}")
        par_before, par_after = before["parallelism"], after["parallelism"]
        notes += [
            f"{_SHORT.get(k, k)} {par_before[k]} → {par_after[k]}"
            for k in par_after
            if k in par_before and par_before[k] != par_after[k]
        ]
        for path in kind_paths()[2:]:
            if before.get(path) != after.get(path):
                name = self.state.labels.get(path, path.rpartition(".")[2].replace("_", " "))
                notes.append(f"{name.lower()} {_text(before.get(path))} → {_text(after.get(path))}")
        return notes


def _text(value: Any) -> str:
    return "auto" if value is None else "on" if value is True else "off" if value is False else str(value)
