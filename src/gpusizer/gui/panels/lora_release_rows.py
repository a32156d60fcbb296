"""The Workload panel's rows for the releases and names that set which adapters a LoRA puts on a
MoE's routed experts (docs/scenario-format.md):

- "transformers release" (``workload.transformers_version``, core/memory/lora_experts.py): from
  5.0 a MoE family's experts load as fused 3-D parameters, which PEFT adapts as such;
- "Expert parameters" (``workload.lora_target_parameters``, core/memory/lora_expert_params.py):
  PEFT ``target_parameters`` on gpt-oss's and Llama 4's 3-D experts, comma-separated;
- "Unsloth release" (``workload.unsloth_version``, core/registry/unsloth_releases.py): from
  2026.2.1 (16-bit) and 2026.7.2 (4-bit) Unsloth adapts gpt-oss's experts itself.

The lists hold the releases the sources name; a file's other release is added as it is
(gui/binding.py). Blank: the answer given before the field."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QLineEdit

from ..widgets import ComboBox, Form, combo

TRANSFORMERS = "workload.transformers_version"
TARGET_PARAMETERS = "workload.lora_target_parameters"
UNSLOTH = "workload.unsloth_version"
# 4.55.0: gpt-oss's first; 4.57.1: the last 4.x line; 5.1.0: Unsloth's Qwen3-MoE notebook;
# 5.5.0: unslothai/unsloth PR #6936's validation run
_TRANSFORMERS = ("5.5.0", "5.1.0", "5.0.0", "4.57.1", "4.55.0")
# 2026.2.1: PR #3812 (16-bit expert parameters); 2026.7.1/2026.7.2: before and after PR #6936
_UNSLOTH = ("2026.7.2", "2026.7.1", "2026.2.1")
_TRANSFORMERS_TIP = (
    "The transformers release the model is loaded with (PEFT frameworks, LoRA/QLoRA). From 5.0 a "
    "MoE family's routed experts are fused 3-D parameters: PEFT moves gate/up/down to "
    "gate_up_proj at rank 2r and down_proj (huggingface/peft#3009), Unsloth adapts them at r. "
    "Blank: 4.x, one adapter per expert Linear, as before the field."
)
_TARGETS_TIP = (
    "PEFT target_parameters on gpt-oss's or Llama 4's 3-D expert weights, comma-separated: "
    "'mlp.experts.gate_up_proj' (every layer), '7.mlp.experts.down_proj' (layer 7). Their "
    "experts are no Linear, so gate/up/down in LoRA targets reach none of them. Blank: none."
)
_UNSLOTH_TIP = (
    "The Unsloth release (unsloth.__version__). gpt-oss's experts get adapters from 2026.2.1 on a "
    "16-bit base (PR #3812, target_parameters) and from 2026.7.2 on a 4-bit base (PR #6936, "
    "every per-expert Linear4bit). Blank: attention adapters only, as before the field."
)


def _release_row(f: Form, label: str, path: str, name: str, items: tuple[str, ...], tip: str) -> ComboBox:
    box = combo([("not set", None), *((v, v) for v in items)])
    box.setToolTip(tip)
    f.add(label, box, path, name=name)
    return box


def _names_to_state(text: Any) -> tuple[str, ...] | None:
    """Comma-separated names -> the field's tuple (blank: null)."""
    names = tuple(n.strip() for n in str(text or "").split(",") if n.strip())
    return names or None


def _names_from_state(names: Any) -> str:
    return ", ".join(names or ())


def add_lora_release_rows(f: Form) -> None:
    """The three rows, in the order a reader sets them: the library, the names, Unsloth's own."""
    _release_row(
        f,
        "transformers release",
        TRANSFORMERS,
        "combo_transformers_version",
        _TRANSFORMERS,
        _TRANSFORMERS_TIP,
    )
    edit = QLineEdit()
    edit.setPlaceholderText("none (e.g. mlp.experts.gate_up_proj, mlp.experts.down_proj)")
    edit.setToolTip(_TARGETS_TIP)
    f.add(
        "Expert parameters",
        edit,
        TARGET_PARAMETERS,
        name="edit_lora_target_parameters",
        to_state=_names_to_state,
        from_state=_names_from_state,
    )
    _release_row(f, "Unsloth release", UNSLOTH, "combo_unsloth_version", _UNSLOTH, _UNSLOTH_TIP)
