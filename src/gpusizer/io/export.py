"""The estimate report as CSV and Markdown (no Qt: the GUI, the CLI and scripts share it).

Both take the report dict of :func:`gpusizer.core.report.report_from_estimate` (the
``--json`` contract), so every export states the same figures as the JSON.
"""

from __future__ import annotations

import csv
import io
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from ..core.result import COMPONENTS, component_title
from .units import fmt_bytes, to_unit


def _flatten(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """``{"a": {"b": 1}}`` -> ``[("a.b", 1)]``; lists become ``a.0``, ``a.1``..."""
    if isinstance(value, dict):
        items: list[tuple[str, Any]] = []
        for k, v in value.items():
            items += _flatten(v, f"{prefix}.{k}" if prefix else str(k))
        return items
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return [(prefix, ";".join(str(v) for v in value))]
        items = []
        for i, v in enumerate(value):
            items += _flatten(v, f"{prefix}.{i}")
        return items
    return [(prefix, value)]


def report_csv(report: dict[str, Any]) -> str:
    """The whole report as ``key,value`` rows (dotted keys, bytes as integers)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["key", "value"])
    for key, value in _flatten(report):
        writer.writerow([key, "" if value is None else value])
    return buf.getvalue()


def breakdown_csv(report: dict[str, Any], unit: str = "GiB") -> str:
    """Per-GPU memory by component: bytes, the value in ``unit``, the share, alive at peak."""
    per_gpu = report["per_gpu"]
    parts = sum(per_gpu[c] for c in COMPONENTS) or 1
    alive = set(report.get("alive_at_peak", COMPONENTS))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["component", "bytes", unit, "share_percent", "alive_at_peak"])
    for c in COMPONENTS:
        writer.writerow([c, per_gpu[c], f"{to_unit(per_gpu[c], unit):.4f}",
                         f"{100 * per_gpu[c] / parts:.2f}", c in alive])
    writer.writerow(["total", per_gpu["total"], f"{to_unit(per_gpu['total'], unit):.4f}", "",
                     ""])
    return buf.getvalue()


def _verdict(report: dict[str, Any], unit: str) -> str:
    peak = fmt_bytes(report["per_gpu"]["total"], unit)
    cap = fmt_bytes(report["gpu"]["memory_bytes"], unit)
    head = report["headroom_bytes"]
    if report["fits"]:
        return f"**{peak} of {cap} per GPU — fits, {fmt_bytes(head, unit)} headroom.**"
    return f"**{peak} of {cap} per GPU — does not fit, {fmt_bytes(-head, unit)} short.**"


def report_markdown(report: dict[str, Any], unit: str = "GiB") -> str:
    """A readable report: verdict, breakdown table, parameters, compute, assumptions, and the
    scenario itself (so the report can be reproduced)."""
    s, p, g, per_gpu = report["scenario"], report["parameters"], report["gpu"], report["per_gpu"]
    parts = sum(per_gpu[c] for c in COMPONENTS) or 1
    name = s.get("name") or s["model"].get("name", "scenario")
    lines = [f"# GPU Sizer report: {name}", "",
             f"{s['model'].get('name', '')} · {s['workload']['kind']} · {s['framework']} · "
             f"{report['cluster']['gpus']} × {g['name']}", "", _verdict(report, unit), "",
             f"Peak during **{report['peak_phase']}**.", "",
             f"| Component | {unit} | Share |", "|---|---:|---:|"]
    for c in COMPONENTS:
        lines.append(f"| {component_title(c)} | {to_unit(per_gpu[c], unit):,.2f} | "
                     f"{100 * per_gpu[c] / parts:.1f}% |")
    lines += [f"| **Peak per GPU** | **{to_unit(per_gpu['total'], unit):,.2f}** | |", "",
              "## Parameters", "",
              f"- total: {p['total']:,}", f"- active per token: {p['active']:,}",
              f"- trainable: {p['trainable']:,}", "", "## Compute", ""]
    lines += [f"- {k.replace('_', ' ')}: {v:,.4g}" for k, v in report["compute"].items()
              if isinstance(v, (int, float)) and v]
    if report.get("assumptions"):
        lines += ["", "## Assumptions", "", *[f"- {a}" for a in report["assumptions"]]]
    lines += ["", "## Scenario", "", "```json", json.dumps(s, indent=2), "```", ""]
    return "\n".join(lines)


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write via a temporary file in the same folder and a rename: never a half-written file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=p.suffix, dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return p
