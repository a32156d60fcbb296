"""The estimate as a Markdown report, in the words the window uses: labelled figures that
apply to the kind of work (no ``mfu: 0.4`` on a serving scenario), the sizing advisor's "GPUs
needed", and the scenario itself so the report can be reproduced."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ..core.model.result import COMPONENTS, component_title
from ..core.registry.frameworks import FRAMEWORKS
from ..core.registry.workloads import WORKLOAD_KINDS
from .units import fmt_bytes, to_unit

NOT_ASKED = object()  # ``advice`` default: the report has no "GPUs needed" section


def duration(seconds: float) -> str:
    """``3.20 ms``, ``12.4 s``, ``5.3 h``, ``12.1 days``."""
    for limit, div, unit, digits in (
        (1, 1e-3, "ms", 2),
        (120, 1, "s", 1),
        (2 * 3600, 60, "min", 1),
        (3 * 86400, 3600, "h", 1),
        (float("inf"), 86400, "days", 1),
    ):
        if seconds < limit:
            return f"{seconds / div:,.{digits}f} {unit}"
    return f"{seconds:,.0f} s"


def _sci(v: float) -> str:
    return f"{v:.3g}" if v < 1e6 else f"{v:.3e}".replace("e+", " × 10^")


def _rate(v: float) -> str:
    return f"{v:,.1f}"


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _tflops(v: float) -> str:
    return f"{v / 1e12:,.1f} TFLOP/s"


def _usd(v: float) -> str:
    return f"${v:,.2f}"


# (report key, label, format, applies to training: True, serving: False)
Row = tuple[str, str, Callable[[float], str], bool]
COMPUTE_ROWS: tuple[Row, ...] = (
    ("flops_per_token", "FLOPs per trained token", _sci, True),
    ("total_flops", "FLOPs in total", _sci, True),
    ("time_seconds", "Training time", duration, True),
    ("gpu_hours", "GPU-hours", _rate, True),
    ("cost", "Cost (USD, at the GPU's hourly price)", _usd, True),
    ("mfu", "Share of peak FLOP/s the training step reaches (MFU)", _pct, True),
    ("peak_flops_per_s", "Peak per GPU (dense, matmul dtype)", _tflops, True),
    ("prefill_seconds", "Time to first token (prefill of the batch)", duration, False),
    ("decode_seconds_per_token", "Time per output token", duration, False),
    ("tokens_per_second", "Output tokens per second (whole request)", _rate, False),
    ("tokens_per_second_per_gpu", "Output tokens per second per GPU", _rate, False),
    ("decode_tokens_per_second", "Decode tokens per second", _rate, False),
    ("time_seconds", "Time per request batch", duration, False),
    ("flops_per_token", "FLOPs per generated token", _sci, False),
    ("peak_flops_per_s", "Peak per GPU (dense, matmul dtype)", _tflops, False),
    ("cost", "Cost per request batch (USD)", _usd, False),
)


def compute_lines(report: dict[str, Any]) -> list[str]:
    """The compute block as labelled bullet points, only the figures of this kind of work."""
    kind = WORKLOAD_KINDS.get(str(report["scenario"]["workload"]["kind"]))
    training = kind is not None and kind.is_training
    c = report["compute"]
    return [
        f"- {label}: {fmt(c[key])}"
        for key, label, fmt, for_training in COMPUTE_ROWS
        if for_training == training and isinstance(c.get(key), (int, float)) and c[key]
    ]


def advice_lines(advice: Any, gpu_name: str) -> list[str]:
    """The advisor's answer for the scenario's GPU (a ``gpusizer.plan`` option, or None when
    no layout fits)."""
    if advice is None:
        return [
            f"No layout of up to 4,096 × {gpu_name} fits: choose a bigger GPU, quantised "
            "weights or a shorter sequence."
        ]
    n = advice["gpus"]
    return [
        f"At least **{n:,} × {advice.get('gpu_name', gpu_name)}**, laid out "
        f"{advice['layout']} (per GPU {fmt_bytes(advice['per_gpu_total'])}, "
        f"{fmt_bytes(advice['headroom_bytes'])} headroom)."
    ]


def _verdict(report: dict[str, Any], unit: str) -> str:
    peak = fmt_bytes(report["per_gpu"]["total"], unit)
    cap = fmt_bytes(report["gpu"]["memory_bytes"], unit)
    head = report["headroom_bytes"]
    if report["fits"]:
        return f"**{peak} of {cap} per GPU — fits, {fmt_bytes(head, unit)} headroom.**"
    return f"**{peak} of {cap} per GPU — does not fit, {fmt_bytes(-head, unit)} short.**"


def _subject(report: dict[str, Any]) -> str:
    s, g = report["scenario"], report["gpu"]
    kind = WORKLOAD_KINDS.get(str(s["workload"]["kind"]))
    framework = FRAMEWORKS.get(str(s["framework"]))
    return (
        f"{s['model'].get('name', '')} · {kind.label if kind else s['workload']['kind']} · "
        f"{framework.label if framework else s['framework']} · "
        f"{report['cluster']['gpus']:,} × {g['name']}"
    )


def report_markdown(report: dict[str, Any], unit: str = "GiB", advice: Any = NOT_ASKED) -> str:
    """A readable report: verdict, GPUs needed (``advice``: a plan option or None), breakdown
    table, parameters, the figures of this kind of work, assumptions, and the scenario."""
    s, p, per_gpu = report["scenario"], report["parameters"], report["per_gpu"]
    parts = sum(per_gpu[c] for c in COMPONENTS) or 1
    name = s.get("name") or s["model"].get("name", "scenario")
    lines = [
        f"# GPU Sizer report: {name}",
        "",
        _subject(report),
        "",
        _verdict(report, unit),
        "",
        f"Peak during **{report['peak_phase'].replace('_', ' ')}**.",
        "",
    ]
    if advice is not NOT_ASKED:
        lines += ["## GPUs needed", "", *advice_lines(advice, report["gpu"]["name"]), ""]
    lines += [f"| Component | {unit} | Share |", "|---|---:|---:|"]
    lines += [
        f"| {component_title(c)} | {to_unit(per_gpu[c], unit):,.2f} | {100 * per_gpu[c] / parts:.1f}% |"
        for c in COMPONENTS
    ]
    lines += [
        f"| **Peak per GPU** | **{to_unit(per_gpu['total'], unit):,.2f}** | |",
        "",
        "## Parameters",
        "",
        f"- Total: {p['total']:,}",
        f"- Active per token: {p['active']:,}",
        f"- Trainable: {p['trainable']:,}",
        "",
    ]
    figures = compute_lines(report)
    if figures:
        lines += ["## Speed and time", "", *figures, ""]
    if report.get("assumptions"):
        lines += ["## Assumptions", "", *[f"- {a}" for a in report["assumptions"]], ""]
    lines += ["## Scenario", "", "```json", json.dumps(s, indent=2), "```", ""]
    return "\n".join(lines)
