"""The figures of a report, as labelled sentences (io/report.py): the speed and time of this
kind of work, its cost, and the sizing advisor's "GPUs needed". Only the figures that apply to
the kind of work: no ``mfu: 0.4`` on a serving scenario."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..core.model.result import Estimate
from ..core.registry.workloads import WORKLOAD_KINDS
from ..core.sizing.option import SizingOption
from .evidence_text import banded
from .serving_text import cost_per_million, feature_lines, user_tokens, users_line
from .wording import count, duration, gpus_needed_spans, per_gpu_phrase, plain


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
    training = kind is not None and kind.trains
    c, engine = report["compute"], report.get("serving") is not None
    return [
        f"{r.label}: {banded(r.fmt(v), c.get(r.key + '_range') if r.training else None, r.fmt, v)}"
        for r in COMPUTE_ROWS
        if r.training == training
        and r.cost == cost
        and not (r.roofline and engine)
        and isinstance(v := c.get(r.key), (int, float))
        and v
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
    the served concurrency (its ``serving`` block), then a line per serving feature set;
    training, the trained tokens per
    second. Then the compute block's speed and time figures."""
    sv = report.get("serving")
    out = []
    if sv is not None:
        w = report["scenario"]["workload"]
        out.append(users_line(sv, user_tokens(sv, w["prompt_tokens"], w["generated_tokens"])))
        at = f" ({count(sv['concurrency'], 'user')})"
        out += [
            f"{label}{at}: {banded(fmt(v), sv.get(key + '_range'), fmt, v)}"
            for key, label, fmt in PACE
            if (v := pace.get(key))
        ]
        # the serving features set (prefix, speculative, LoRA, offload, the split), as the CLI words them
        split = (report["scenario"].get("serving") or {}).get("disaggregated")
        out += [(t := " ".join(line.split()))[0].upper() + t[1:] for line in feature_lines(sv, split)]
    elif pace.get("tokens_per_second"):
        gpus = report["cluster"]["gpus"]
        rate = _rate(pace["tokens_per_second"] or 0.0)
        out.append(f"Trained tokens per second: {rate} on {count(gpus, 'GPU')}")
    return out + compute_lines(report)


def cost_lines(report: Mapping[str, Any], price_per_hour: float | None) -> list[str]:
    """What it costs at the GPU's cloud price per hour (the catalog's, or the inline GPU's):
    the hourly price, then per million output tokens (serving) or of the whole training run
    (with ``workload.training_tokens``); a sentence when the GPU has no price."""
    gpus, name = report["cluster"]["gpus"], report["gpu"]["name"]
    if price_per_hour is None:
        return [f"No hourly price for {name} in the catalog: set one on the GPU to see costs."]
    hourly = _usd(price_per_hour * gpus)
    out = [f"Price: {_usd(price_per_hour)} per GPU-hour, {hourly} per hour for {count(gpus, 'GPU')}"]
    sv = report.get("serving")
    if sv is not None and sv.get("cost_per_million_tokens") is not None:
        out.append(f"Cost per million output tokens: {cost_per_million(sv, _usd)}")
    out += compute_lines(report, cost=True)
    kind = WORKLOAD_KINDS.get(str(report["scenario"]["workload"]["kind"]))
    if kind is not None and kind.trains and not report["compute"].get("time_seconds"):
        out.append("Set workload.training_tokens for the training time and its cost.")
    return out


def advice_lines(est: Estimate, advice: SizingOption | None, unit: str = "GiB") -> list[str]:
    """The advisor's answer for the scenario's GPU (core/sizing/gpus_needed.py, or None when
    no layout fits), in the window's words (io/wording.py), then the advised layout's memory."""
    if advice is None:
        return [_sentence(plain(gpus_needed_spans(est, None)))]
    return [
        _sentence(plain(gpus_needed_spans(est, advice))),
        _sentence(per_gpu_phrase(advice, unit)) + ".",
    ]


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
