"""The readable summary ``gpusizer-cli import PATH --summary`` prints: the model, the precision
its checkpoint is stored in, and per tensor group the stored bytes beside the estimator's."""

from __future__ import annotations

from typing import Any

from .units import to_unit


def precision_text(precision: dict[str, Any]) -> str:
    """``mxfp4, rule mxfp4-experts, modules norms: fp32`` (the precision fields set)."""
    parts = [precision["weights"]]
    if precision.get("quantization_rule"):
        parts.append(f"rule {precision['quantization_rule']}")
    mods = precision.get("modules") or {}
    if mods:
        parts.append("modules " + ", ".join(f"{g}: {d}" for g, d in mods.items()))
    return ", ".join(parts)


def _row(label: str, stored: float, estimated: float, unit: str) -> str:
    diff = f"{(estimated - stored) / stored:+.1%}" if stored else "-"
    return (
        f"  {label:<16}{to_unit(stored, unit):>11,.3f} {unit}"
        f"{to_unit(estimated, unit):>11,.3f} {unit}{diff:>9}"
    )


def import_summary(result: dict[str, Any]) -> str:
    """A few lines: name, source, precision, the per-group check, notes."""
    m = result["model"]
    lines = [
        f"{result['name']} ({result['format']}: {result['source']})",
        f"  {m.get('layers', '?')} layers, hidden {m.get('hidden_size', '?')}"
        + (f", {m['moe']['experts']} experts" if m.get("moe") else ""),
        f"  precision: {precision_text(result['precision'])}",
    ]
    ck = result.get("checkpoint")
    if ck:
        lines += [
            f"  checkpoint: {ck['files']} file(s), {to_unit(ck['file_bytes'], 'GB'):,.3f}"
            f" GB, {ck['tensors']:,} tensors",
            "",
            f"  {'group':<16}{'stored':>14}{'estimated':>14}{'diff':>9}",
        ]
        unit = "GB" if ck["model_bytes"] >= 1e8 else "MB"
        lines += [_row(g, v["bytes"], v["estimated_bytes"], unit) for g, v in ck["groups"].items()]
        lines.append(_row("model", ck["model_bytes"], ck["estimated_bytes"], unit))
        if ck["other_bytes"]:
            lines.append(
                f"  not in the model: {to_unit(ck['other_bytes'], 'GB'):,.3f} GB "
                f"({', '.join(ck['other_tensors'])}, ...)"
            )
    if result.get("notes"):
        lines += ["", *(f"  note: {n}" for n in result["notes"])]
    return "\n".join(lines)
