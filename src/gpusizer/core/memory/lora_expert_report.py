"""The report's line for a field that changes which adapters a MoE's routed experts get
(``workload.transformers_version``, ``workload.lora_target_parameters``,
``workload.unsloth_version``): said only where the field is set and changes the layout, so a
scenario without them reports as before."""

from __future__ import annotations

from ..model.specs import Scenario
from .lora_expert_params import is_native
from .lora_experts import FUSED, FUSED_UNSLOTH, expert_layout
from .unsloth_experts import from_release, unsloth_expert_names


def expert_adapter_line(s: Scenario) -> str | None:
    """One phrase for the assumptions, or None (no field set, or it changes nothing here)."""
    w = s.workload
    if not w.is_adapter or w.serves:
        return None
    layout = expert_layout(s)
    if layout == FUSED:
        return (
            f"transformers {w.transformers_version}: routed experts fused, PEFT adapts gate_up_proj "
            "at rank 2r and down_proj at r; dense and shared-expert MLP Linears get no adapter"
        )
    if layout == FUSED_UNSLOTH:
        v = w.transformers_version
        return f"transformers {v}: Unsloth adapts the fused gate_up_proj and down_proj at rank r"
    if not is_native(layout):
        return None
    if from_release(s) and unsloth_expert_names(s):
        path = "every per-expert Linear4bit" if w.info.quantised_base else "the 3-D expert parameters"
        return f"Unsloth {w.unsloth_version}: expert adapters on {path} of every MoE layer"
    if w.lora_target_parameters:
        return (
            f"expert target_parameters {', '.join(w.lora_target_parameters)}: one PEFT ParamWrapper "
            "pair per parameter, the merged 3-D weight's gradient in each adapted layer's backward"
        )
    return None
