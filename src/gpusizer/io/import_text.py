"""The readable summary ``gpusizer-cli import PATH --summary`` prints: the model, the precision
its checkpoint is stored in, and per tensor group the stored bytes beside the estimator's."""

from __future__ import annotations

from typing import Any

from ..core.registry.dtypes import DTYPES
from ..core.registry.quant_rules import QUANT_RULES
from .units import to_unit


def precision_text(precision: dict[str, Any]) -> str:
    """The stored precision in words first, the fields after: ``FP8 (E4M3/E5M2) weights;
    FP8 128x128 blocks: Linear layers; ... 16-bit (fp8, rule fp8-block)``. The words are the
    registries' labels (core/registry/dtypes.py, quant_rules.py); the fields are the
    scenario's ``precision`` as set, for a reader who will type them."""
    weights = str(precision["weights"])
    dtype = DTYPES.get(weights)
    words = [f"{dtype.label if dtype is not None else weights} weights"]
    fields = [weights]
    rule_id = precision.get("quantization_rule")
    if rule_id:
        rule = QUANT_RULES.get(str(rule_id))
        if rule is not None and rule.id != "uniform":
            words.append(rule.label)
        fields.append(f"rule {rule_id}")
    mods = precision.get("modules") or {}
    if mods:
        words.append("kept apart: " + ", ".join(f"{g} in {d}" for g, d in mods.items()))
        fields.append("modules " + ", ".join(f"{g}: {d}" for g, d in mods.items()))
    return f"{'; '.join(words)} ({', '.join(fields)})"


MISMATCH = 0.10
"""A stored model this far from the estimate for its metadata (either way) means the tensor
table describes another model than the metadata: the per-group check (io/checkpoint_check.py)
already matches each group's dtype to what is stored within 2 %, so a consistent file, block
scales included, lands within a few per cent (tests/io: +0.3 % for a Q8_0 GGUF)."""


def _diff(stored: float, estimated: float) -> str:
    if not stored:
        return "-"
    ratio = (estimated - stored) / stored
    return f"{ratio:+.1%}" if abs(ratio) < 10 else f"{ratio:+,.0%}"


def _row(label: str, stored: float, estimated: float, unit: str) -> str:
    # Two spaces at least between columns: a wide figure never runs into the next one.
    return (
        f"  {label:<16}{to_unit(stored, unit):>11,.3f} {unit}  "
        f"{to_unit(estimated, unit):>11,.3f} {unit}  {_diff(stored, estimated):>9}"
    )


def _parameters(block: dict[str, Any]) -> str:
    """``671.03 B parameters`` (or M) as the estimator counts the imported model."""
    from ..core.errors import ScenarioError
    from ..core.model.params import count_parameters
    from ..core.pipeline.scenario import parse_scenario

    try:
        counts = count_parameters(parse_scenario({"model": block}).model)
    except ScenarioError:
        return "parameters: not counted (the model block is incomplete)"
    n = counts.total
    size = f"{n / 1e9:,.2f} B" if n >= 1e8 else f"{n / 1e6:,.2f} M"
    active = counts.active
    more = f" ({active / 1e9:,.2f} B active)" if active != n and n >= 1e8 else ""
    return f"{size} parameters{more}"


def table_mismatch(result: dict[str, Any]) -> str:
    """A sentence when the checkpoint's tensor table does not match its metadata (see
    :data:`MISMATCH`); "" when it does or when no tensor table was read."""
    ck = result.get("checkpoint")
    if not ck or not ck.get("model_bytes"):
        return ""
    stored, estimated = ck["model_bytes"], ck["estimated_bytes"]
    if abs(estimated - stored) <= MISMATCH * stored:
        return ""
    unit = "GB" if max(stored, estimated) >= 1e8 else "MB"
    return (
        f"the tensor table does not match the metadata: the file stores "
        f"{to_unit(stored, unit):,.3f} {unit} of model weights, the metadata describes a model of "
        f"{to_unit(estimated, unit):,.3f} {unit} ({_diff(stored, estimated)}); the estimate "
        "follows the metadata"
    )


def import_summary(result: dict[str, Any]) -> str:
    """A few lines: name, source, size, precision, the per-group check, notes."""
    m = result["model"]
    lines = [
        f"{result['name']} ({result['format']}: {result['source']})",
        f"  {m.get('layers', '?')} layers, hidden {m.get('hidden_size', '?')}"
        + (f", {m['moe']['experts']} experts" if m.get("moe") else ""),
        f"  {_parameters(m)}",
        f"  precision: {precision_text(result['precision'])}",
    ]
    ck = result.get("checkpoint")
    if ck:
        unit = "GB" if ck["model_bytes"] >= 1e8 else "MB"
        lines += [
            f"  checkpoint: {ck['files']} file(s), {to_unit(ck['file_bytes'], unit):,.3f}"
            f" {unit}, {ck['tensors']:,} tensors",
            "",
            f"  {'group':<16}{'stored':>14}{'estimated':>16}{'diff':>11}",
        ]
        lines += [_row(g, v["bytes"], v["estimated_bytes"], unit) for g, v in ck["groups"].items()]
        lines.append(_row("model", ck["model_bytes"], ck["estimated_bytes"], unit))
        if ck["other_bytes"]:
            lines.append(
                f"  not in the model: {to_unit(ck['other_bytes'], 'GB'):,.3f} GB "
                f"({', '.join(ck['other_tensors'])}, ...)"
            )
    warning = table_mismatch(result)
    if warning:
        lines += ["", f"  warning: {warning}"]
    if result.get("notes"):
        lines += ["", *(f"  note: {n}" for n in result["notes"])]
    return "\n".join(lines)
