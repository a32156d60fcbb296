"""The figures of a report, as labelled sentences (io/report.py): the speed and time of this
kind of work, its cost, and the sizing advisor's "GPUs needed". Only the figures that apply to
the kind of work: no ``mfu: 0.4`` on a serving scenario."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.registry.workloads import WORKLOAD_KINDS
from .serving_text import users_line
from .units import fmt_bytes


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


def _hours(v: float) -> str:
    """GPU-hours: two significant digits below ten (a short run read "0.0")."""
    return f"{v:,.1f}" if v >= 10 else f"{v:.2g}"


def _share(v: float) -> str:
    return f"{100 * v:.2f} %"


def _pct(v: float) -> str:
    return f"{100 * v:.1f} %"


def _tflops(v: float) -> str:
    return f"{v / 1e12:,.1f} TFLOP/s"


def _usd(v: float) -> str:
    """Dollars and cents; three significant digits below a cent ($0.00143)."""
    return f"${v:,.2f}" if v >= 0.01 or v == 0 else f"${v:.3g}"


@dataclass(frozen=True)
class Row:
    """A figure of the report's ``compute`` block: its key, label, format, and whether it is a
    training figure (True) or a serving one (False); ``cost``: it goes under Cost."""

    key: str
    label: str
    fmt: Callable[[float], str]
    training: bool
    cost: bool = False
    # a roofline timing of the request batch: left out where the serving engine's own block
    # (its step costs, chunking and concurrency) gives the speed users see
    roofline: bool = False


COMPUTE_ROWS: tuple[Row, ...] = (
    Row("flops_per_token", "FLOPs per trained token", _sci, True),
    Row("total_flops", "FLOPs in total", _sci, True),
    Row("time_seconds", "Training time", duration, True),
    Row("wall_time_seconds", "Wall time (restarts and lost work included)", duration, True),
    Row("effective_time_share", "Share of wall time training (Meta's Llama 3 report)", _share, True),
    Row("gpu_hours", "GPU-hours", _hours, True),
    Row("cost", "Training cost (USD, at the GPU's hourly price)", _usd, True, True),
    Row("mfu", "Share of peak FLOP/s the training step reaches (MFU)", _pct, True),
    Row("peak_flops_per_s", "Peak per GPU (dense, matmul dtype)", _tflops, True),
    Row("prefill_seconds", "Time to first token (prefill of the batch)", duration, False, roofline=True),
    Row("decode_seconds_per_token", "Time per output token", duration, False, roofline=True),
    Row("tokens_per_second", "Output tokens per second (whole request)", _rate, False, roofline=True),
    Row("tokens_per_second_per_gpu", "Output tokens per second per GPU", _rate, False, roofline=True),
    Row("decode_tokens_per_second", "Decode tokens per second", _rate, False, roofline=True),
    Row("time_seconds", "Time per request batch", duration, False, roofline=True),
    Row("flops_per_token", "FLOPs per generated token", _sci, False),
    Row("peak_flops_per_s", "Peak per GPU (dense, matmul dtype)", _tflops, False),
    Row("cost", "Cost per request batch (USD)", _usd, False, True, roofline=True),
)


def compute_lines(report: Mapping[str, Any], cost: bool = False) -> list[str]:
    """The compute block's figures of this kind of work as labelled lines (``cost``: the
    money rows, else the speed and time rows); a zero or unknown figure is left out."""
    kind = WORKLOAD_KINDS.get(str(report["scenario"]["workload"]["kind"]))
    training = kind is not None and kind.is_training
    c, engine = report["compute"], report.get("serving") is not None
    return [
        f"{r.label}: {r.fmt(c[r.key])}"
        for r in COMPUTE_ROWS
        if r.training == training
        and r.cost == cost
        and not (r.roofline and engine)
        and isinstance(c.get(r.key), (int, float))
        and c[r.key]
    ]


PACE: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("ttft_seconds", "Time to first token", duration),
    ("tpot_seconds", "Time per output token", duration),
    ("tokens_per_second_per_user", "Output tokens per second per user", _rate),
    ("tokens_per_second", "Output tokens per second in total", _rate),
)


def speed_lines(report: Mapping[str, Any], pace: Mapping[str, float | None]) -> list[str]:
    """How fast it runs (``pace``: core/sizing/pace.estimate_pace, the one speed the advice
    ranks by): serving, the users the engine holds and the speed each sees at
    the served concurrency (its ``serving`` block); training, the trained tokens per
    second. Then the compute block's speed and time figures."""
    sv = report.get("serving")
    out = []
    if sv is not None:
        w = report["scenario"]["workload"]
        out.append(users_line(sv, w["prompt_tokens"] + w["generated_tokens"]))
        at = f" ({sv['concurrency']:,} users)" if sv["concurrency"] != 1 else " (1 user)"
        out += [f"{label}{at}: {fmt(v)}" for key, label, fmt in PACE if (v := pace.get(key))]
    elif pace.get("tokens_per_second"):
        gpus = report["cluster"]["gpus"]
        rate = _rate(pace["tokens_per_second"] or 0.0)
        out.append(f"Trained tokens per second: {rate} on {gpus:,} GPU{'s' * (gpus != 1)}")
    return out + compute_lines(report)


def cost_lines(report: Mapping[str, Any], price_per_hour: float | None) -> list[str]:
    """What it costs at the GPU's cloud price per hour (the catalog's, or the inline GPU's):
    the hourly price, then per million output tokens (serving) or of the whole training run
    (with ``workload.training_tokens``); a sentence when the GPU has no price."""
    gpus, name = report["cluster"]["gpus"], report["gpu"]["name"]
    if price_per_hour is None:
        return [f"No hourly price for {name} in the catalog: set one on the GPU to see costs."]
    hourly = _usd(price_per_hour * gpus)
    out = [
        f"Price: {_usd(price_per_hour)} per GPU-hour, {hourly} per hour for {gpus:,} GPU{'s' * (gpus != 1)}"
    ]
    sv = report.get("serving")
    if sv is not None and sv.get("cost_per_million_tokens") is not None:
        out.append(f"Cost per million output tokens: {_usd(sv['cost_per_million_tokens'])}")
    out += compute_lines(report, cost=True)
    kind = WORKLOAD_KINDS.get(str(report["scenario"]["workload"]["kind"]))
    if kind is not None and kind.is_training and not report["compute"].get("time_seconds"):
        out.append("Set workload.training_tokens for the training time and its cost.")
    return out


def advice_lines(advice: Any, gpu_name: str, context: str | None = None) -> list[str]:
    """The advisor's answer for the scenario's GPU (a ``gpusizer.plan`` option, or None when
    no layout fits; ``context``: why a request is longer than the engine's context, which no
    count of GPUs changes)."""
    if advice is None and context:
        return [f"No count of {gpu_name} runs it: {context}; raise it or shorten the request."]
    if advice is None:
        return [
            f"No layout of up to 4,096 × {gpu_name} fits: choose a bigger GPU, quantised "
            "weights or a shorter sequence."
        ]
    n, name = advice["gpus"], advice.get("gpu_name", gpu_name)
    need = advice.get("needed_gpus") or n
    out = [
        f"Needs {need:,} × {name}"
        + (f" ({advice['needed_layout']})" if need < n and advice.get("needed_layout") else "")
        + (f"; bought as {n:,} (a whole purchase unit: {n - need:,} spare, used by the layout)" * (need < n))
        + f". Laid out {advice['layout']} (per GPU {fmt_bytes(advice['per_gpu_total'])}, "
        f"{fmt_bytes(advice['headroom_bytes'])} headroom)."
    ]
    if advice.get("unmet_reason"):  # a target or the default target missed, by how much
        out.append(f"Not met ({advice['unmet']}): {advice['unmet_reason']}.")
    return out
