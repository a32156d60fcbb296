"""Which RL role holds the peak's bytes, in one line: the report's ``rl.peak_roles``
(core/pipeline/rl_role_memory.py), worded the same in ``gpusizer-cli estimate`` and the GUI's
summary and Memory tooltips."""

from __future__ import annotations

from typing import Any

from ..core.model.result import COMPONENT_LABELS, COMPONENTS
from .units import to_unit

# what each role is, before its largest component
_ROLE_WORDS = {
    "critic": "trained in full",
    "reference": "frozen",
    "reward_model": "frozen scorer",
    "rollout": "engine",
}
_SHORT = {"optimizer": "optimizer", "kv_cache": "KV cache", "overhead": "runtime"}
_HALF = ("bf16", "fp16", "fp32")  # storage dtypes a LoRA base is not said to be quantized in


def policy_words(scenario: dict[str, Any]) -> str:
    """``LoRA on NF4``, ``LoRA``, ``trained in full`` of the report's ``scenario``."""
    rl = scenario.get("rl") or {}
    if (rl.get("policy") or {}).get("kind") != "lora":
        return "trained in full"
    weights = str((scenario.get("precision") or {}).get("weights") or "bf16")
    return "LoRA" if weights in _HALF else f"LoRA on {weights.upper()}"


def _role(r: dict[str, Any], unit: str, policy: str) -> str:
    name = str(r["role"])
    largest = max(COMPONENTS, key=lambda c: int(r.get(c, 0)))
    what = policy if name == "policy" else _ROLE_WORDS.get(name, "")
    part = f"{_SHORT.get(largest, COMPONENT_LABELS[largest])} {to_unit(r[largest], unit):,.1f}"
    said = name.replace("_", " ")
    return f"{said} {to_unit(r['total'], unit):,.1f} {unit} ({what}: {part})"


def peak_roles_line(rl: dict[str, Any] | None, unit: str, policy: str) -> str:
    """``peak in training: critic 159.1 GiB (trained in full: optimizer 79.0), policy 5.6 GiB
    (LoRA on NF4: weights 5.3)`` in ``unit`` (GiB or GB); empty without ``rl.peak_roles``.
    ``policy``: :func:`policy_words`."""
    if not rl or not rl.get("peak_roles"):
        return ""
    said = ", ".join(_role(r, unit, policy) for r in rl["peak_roles"] if r["total"])
    return f"peak in {rl['peak_phase']}: {said}"


def component_roles(rl: dict[str, Any] | None, phase: str, component: str, unit: str) -> str:
    """``critic 79.02 GiB, policy 0.30 GiB``: who holds ``component`` in ``phase`` (the report's
    ``rl.phases[i].memory_by_role``), largest first; empty where no RL phase ``phase`` or one
    role holds nothing of it."""
    row = next((p for p in (rl or {}).get("phases", ()) if p["name"] == phase), None)
    if row is None:
        return ""
    held = sorted(
        ((r, v[component]) for r, v in row["memory_by_role"].items() if v[component]), key=lambda x: -x[1]
    )
    return ", ".join(f"{r.replace('_', ' ')} {to_unit(b, unit):,.2f} {unit}" for r, b in held)
