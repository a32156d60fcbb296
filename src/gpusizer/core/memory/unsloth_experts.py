"""The expert targets Unsloth adds to a gpt-oss LoRA by release (``workload.unsloth_version``;
the releases and their sources: core/registry/unsloth_releases.py).

Both of Unsloth's paths scope the experts to the MLP names asked for: ``gate`` or ``up`` adapts
``gate_up_proj`` (16-bit: the 3-D Parameter; 4-bit: every ``gate_up_projs.<i>`` Linear4bit),
``down`` adapts ``down_proj``; attention-only targets adapt no expert. Either path gives each
expert ``r·(d_in + d_out)`` per adapted projection: PEFT's ``ParamWrapper`` pair (E·r, d_in),
(d_out, E·r), or E ``Linear4bit`` adapters of (r, d_in), (d_out, r). The count is the one
core/memory/lora_expert_params.py gives ``target_parameters`` on every layer, so the names below
go through it (PR #6936 validates "1536 modules" on gpt-oss-20b: 24 layers x 32 experts x 2).

Neither path materialises the merged 3-D weight that plain PEFT's ``ParamWrapper`` builds for its
backward: the 4-bit path is ordinary LoRA on Linear4bit modules, and unsloth-zoo's
``patch_gpt_oss_moe_for_lora`` runs a 16-bit gpt-oss's experts on transformers 5 through a
grouped GEMM "with split LoRA" (``patch_param_wrapper_for_moe``), X·W plus (X·A)·B.
"""

from __future__ import annotations

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..registry.unsloth_releases import adapts_gpt_oss_experts

FIELD = "workload.unsloth_version"
# PEFT target_parameters names Unsloth hands on for each MLP name (get_moe_target_parameters)
_NAMES = (("mlp.experts.gate_up_proj", ("gate", "up")), ("mlp.experts.down_proj", ("down",)))


def check_unsloth_release(s: Scenario) -> None:
    """Validation: ``workload.unsloth_version`` names the release of an Unsloth run."""
    if s.workload.unsloth_version is not None and s.profile.own_release_field != FIELD:
        raise ScenarioError(FIELD, f"applies to unsloth (Unsloth's own release), not {s.profile.label}")


def from_release(s: Scenario) -> bool:
    """Whether the scenario's gpt-oss expert adapters are the ones Unsloth's release adds
    (no explicit ``workload.lora_target_parameters``)."""
    w = s.workload
    return (
        s.profile.own_release_field == FIELD
        and s.model.family == "gpt_oss"
        and w.is_adapter
        and not w.lora_target_parameters
        and adapts_gpt_oss_experts(w.unsloth_version, w.info.quantised_base)
    )


def unsloth_expert_names(s: Scenario) -> tuple[str, ...]:
    """The expert targets Unsloth's release adds to the scenario's LoRA (none: the module
    docstring's conditions do not hold, or the targets name no MLP projection)."""
    if not from_release(s):
        return ()
    targets = set(s.workload.lora_targets)
    return tuple(name for name, asks in _NAMES if targets & set(asks))
