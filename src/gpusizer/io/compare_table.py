"""The comparison as a table: one registry of columns for ``gpusizer-cli compare``, the
Hardware tab and its CSV (so every place shows the same columns, in the same words and units).

A column is its option field (core/sizing/compare.py), its header, its unit, a formatter and the
workloads it applies to (``serve``, ``train`` or both; ``targets``: only when the scenario
states serving targets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from ..core.sizing.compare_rank import speed_of
from .units import fmt_bytes
from .wording import duration

Fmt = Callable[[Any, str], str]


def _num(digits: int, scale: float = 1.0, suffix: str = "") -> Fmt:
    return lambda v, _u: f"{v * scale:,.{digits}f}{suffix}"


def _usd(v: float, _u: str) -> str:
    return f"{v:,.2f}" if v < 100 else f"{v:,.0f}"


def _duration(v: float, _u: str) -> str:
    """The one scale of io/wording.py, compact (``2.3 d``)."""
    return duration(v, compact=True)


def _bytes(v: int, unit: str) -> str:
    return fmt_bytes(v, unit)


def _band(inner: Fmt) -> Fmt:
    """A band ``[lower, upper]`` as ``17.1-25.0`` in the column's own format (the unit once
    where both edges share it; ``14.9 h-1.4 d`` where a duration's edges take two)."""

    def fmt(v: Any, u: str) -> str:
        lo, hi = inner(v[0], u), inner(v[1], u)
        lo_num, _, lo_unit = lo.partition(" ")
        return f"{lo_num}-{hi}" if lo_unit and hi.endswith(f" {lo_unit}") else f"{lo}-{hi}"

    return fmt


def _text(v: Any, _u: str) -> str:
    return str(v)


def _yes(v: bool, _u: str) -> str:
    return "yes" if v else "no"


@dataclass(frozen=True)
class Column:
    key: str  # the option's field
    header: str
    fmt: Fmt
    applies: str = "both"  # "serve" | "train" | "both" | "targets" | "rl"
    tip: str = ""  # what it means (the window's header tooltip)
    editable: bool = False  # a unit price the user may set (Hardware tab)

    def text(self, option: dict[str, Any], unit: str = "GiB") -> str:
        """The cell's text; empty where the value is unknown (no price, no fit)."""
        value = option.get(self.key)
        return "" if value is None else self.fmt(value, unit)


BASIS_WORDS = {
    "cloud": "renting, the on-demand list price of provider-operated clouds (RunPod Secure where listed)",
    "owned": "owning, the 2025-26 street price of whole systems over the years given, plus electricity",
    "marketplace": "renting on community or spot marketplaces",
}
COLUMNS: tuple[Column, ...] = (  # what decides a purchase first, the details after
    Column("rank", "#", _text, tip="Order of the current ranking"),
    Column("gpu_name", "GPU", _text),
    Column("gpus", "GPUs", _num(0), tip="GPUs to buy or rent (whole servers when asked)"),
    Column(
        "needed_gpus",
        "Need",
        _num(0),
        tip="GPUs the work needs (the fewest that hold it, or that meet the targets), apart from "
        "those bought: the spare ones run as more replicas or wider parallelism",
    ),
    Column(
        "system_name",
        "System",
        _text,
        tip="What is bought or rented: a catalog system (server, rack, workstation, Mac) or a box "
        "of cards sold alone (priced as its cards)",
    ),
    Column("systems", "Units", _num(0), tip="Systems (servers, racks, boxes) to buy"),
    Column(
        "cost_per_million_tokens",
        "$/M tok",
        _usd,
        tip="Cost per million tokens (served or trained), renting or owning",
    ),
    Column("training_cost", "$ to train", _usd, "train", "Cost of the training run"),
    Column("rl_total_gpus", "RL GPUs", _num(0), "rl", "RL: every GPU of the run, a split rollout pool added"),
    Column("rl_time_per_step_seconds", "RL step", _duration, "rl", "RL: time of one step, all phases"),
    Column(
        "rl_time_per_step_seconds_range",
        "RL step band",
        _band(_duration),
        "rl",
        "RL: time of one step where 80 % of replayed published RL steps like this one landed",
    ),
    Column("rl_run_seconds", "RL run", _duration, "rl", "RL: time of the run's rl.steps steps"),
    Column(
        "rl_run_seconds_range",
        "RL run band",
        _band(_duration),
        "rl",
        "RL: time of the run where 80 % of replayed published RL steps like this one landed",
    ),
    Column(
        "rl_rollout_tensor", "Rollout TP", _num(0), "rl", "RL: the rollout engine's TP (rl.rollout.tensor)"
    ),
    Column(
        "rl_tokens_trained_per_second",
        "RL tok/s",
        _num(0),
        "rl",
        "RL: tokens trained per second over the whole step (what $/M tok is spread over)",
    ),
    Column(
        "tokens_per_second_per_user",
        "Tok/s/user",
        _num(1),
        "serve",
        "Output tokens per second each user sees",
    ),
    Column(
        "tokens_per_second_per_user_range",
        "Tok/s/user band",
        _band(_num(1)),
        "serve",
        "Tokens per second per user where 80 % of replayed published runs like this one landed",
    ),
    Column("ttft_seconds", "TTFT", _num(2, 1, " s"), "serve", "Time to first token"),
    Column("tpot_seconds", "TPOT", _num(1, 1000, " ms"), "serve", "Time per output token"),
    Column(
        "tokens_per_second",
        "Tok/s",
        _num(0),
        tip="Tokens per second over all GPUs (served output tokens, or trained tokens)",
    ),
    Column("time_seconds", "Time", _duration, "train", "Time to train on training_tokens"),
    Column(
        "time_seconds_range",
        "Time band",
        _band(_duration),
        "train",
        "Training time where 80 % of replayed published runs like this one landed",
    ),
    Column(
        "speed_confidence",
        "Speed sure",
        _text,
        tip="How sure the speed is: measured (this model, GPU and engine among the published "
        "figures), validated (its regime has a band), extrapolated (no published figure of this "
        "engine on this vendor or batch regime), none",
    ),
    Column(
        "targets_met", "Targets", _yes, "targets", "Targets met (serving targets, or the training deadline)"
    ),
    Column(
        "default_target_met",
        "Default target",
        _yes,
        "targets",
        "The stated default service level met (first token within 2 s, 5 tokens/s per user: MLPerf "
        "Inference's Llama 2 70B server limits), where you set no speed target of your own",
    ),
    Column(
        "purchase_cost",
        "Purchase $",
        _usd,
        tip="Street price (2025-26) x whole systems; yours where set",
    ),
    Column(
        "cloud_cost_per_hour",
        "Cloud $/h",
        _usd,
        tip="On-demand price of the GPUs rented (by the GPU, or whole systems where only those are rented)",
    ),
    Column(
        "power_watts",
        "kW",
        _num(1, 1e-3),
        tip="System power (measured or specified): the systems owned, or the rented GPUs' share",
    ),
    Column(
        "energy_kwh_per_million_tokens", "kWh/M tok", _num(2), tip="Energy per million tokens at system power"
    ),
    Column("energy_kwh", "kWh", _num(0), "train", "Energy of the training run at system power"),
    Column("electricity_cost", "Power $", _usd, "train", "Electricity of the training run"),
    Column("layout", "Layout", _text, tip="Parallel layout; double-click a row to apply it"),
    Column("nodes", "Nodes", _num(0), tip="Servers (or boxes) of gpus_per_node GPUs"),
    Column("per_gpu_total", "Peak/GPU", _bytes, tip="Peak memory of the busiest GPU"),
    Column(
        "per_gpu_total_range",
        "Peak band",
        _band(_bytes),
        tip="Peak per GPU where 80 % of replayed published runs like this one landed; an upper "
        "edge past the usable memory is noted",
    ),
    Column("memory_confidence", "Peak sure", _text, tip="How sure the peak is (as Speed sure)"),
    Column("headroom_bytes", "Spare/GPU", _bytes, tip="Usable memory left at the peak"),
    Column(
        "price_per_hour",
        "$/GPU-h",
        _usd,
        tip="On-demand price per GPU-hour of a provider-operated cloud (RunPod Secure Cloud where "
        "listed, else the named provider; dated in the tooltip); yours where set",
        editable=True,
    ),
    Column(
        "list_price_usd",
        "$/GPU",
        _usd,
        tip="2025-26 street price per GPU (dated in the tooltip); yours where set",
        editable=True,
    ),
)


# RL: the training phase's rate and a training_tokens run say nothing of an RL run (its step and
# run are the rl columns, each with the band of RL's own published steps beside it)
RL_HIDDEN = ("tokens_per_second", "time_seconds", "time_seconds_range")


# the RL columns gpusizer-cli plan adds to its table: the step and the run, each with its band
PLAN_RL_KEYS = (
    "rl_time_per_step_seconds",
    "rl_time_per_step_seconds_range",
    "rl_run_seconds",
    "rl_run_seconds_range",
)


def is_rl(options: Sequence[dict[str, Any]]) -> bool:
    """Options of an RL scenario (their RL run is timed)."""
    return any(o.get("rl_run_seconds") is not None for o in options)


def plan_columns(
    options: Sequence[dict[str, Any]], unit: str = "GiB"
) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    """(header, cell text) of the registry's columns ``gpusizer-cli plan`` adds, in compare's
    words and units: RL's step and run with their bands for an RL scenario; none otherwise."""
    if not is_rl(options):
        return []
    by_key = {c.key: c for c in COLUMNS}
    return [(by_key[k].header, partial(_cell, by_key[k], unit=unit)) for k in PLAN_RL_KEYS]


def _cell(column: Column, option: dict[str, Any], unit: str) -> str:
    return column.text(option, unit)


def columns_for(training: bool, targets: bool, rl: bool = False) -> list[Column]:
    """The columns that apply to a workload (and to serving targets when stated, RL's step and
    run for an RL scenario)."""
    skip = {"serve"} if training else {"train"}
    if not targets:
        skip.add("targets")
    if not rl:
        skip.add("rl")
    hidden = RL_HIDDEN if rl else ()
    return [c for c in COLUMNS if c.applies not in skip and c.key not in hidden]


def table_rows(
    options: Sequence[dict[str, Any]], columns: Sequence[Column], unit: str = "GiB"
) -> list[list[str]]:
    """Header row, then one row of cell texts per option (a GPU that does not fit says so
    in its layout cell)."""
    rows = [[c.header for c in columns]]
    for o in options:
        row = [c.text(o, unit) for c in columns]
        if not o["fits"]:  # "fit" is memory's word: a context or practical limit says so
            cell = NOT_OFFERED.get(o.get("unmet") or "memory", "does not fit")
            row = [(cell if c.key == "layout" else t) for c, t in zip(columns, row, strict=True)]
        rows.append(row)
    return rows


def compare_text(options: Sequence[dict[str, Any]], training: bool, targets: bool, unit: str = "GiB") -> str:
    """The table ``gpusizer-cli compare`` prints: text columns left, numbers right; ``*``
    marks the Pareto front (nothing cheaper and faster); notes below."""
    if not options:
        return "No GPU matches the filters."
    cols = columns_for(training, targets, is_rl(options))
    rows = table_rows(options, cols, unit)
    name = next(i for i, c in enumerate(cols) if c.key == "gpu_name")
    for row, o in zip(rows[1:], options, strict=True):
        row[name] += (" *" if o["pareto"] else "") + (" (yours)" if o.get("user_prices") else "")
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    left = {i for i, c in enumerate(cols) if c.fmt is _text and c.key != "rank"}
    lines = [
        "  ".join(
            t.ljust(w) if i in left else t.rjust(w) for i, (t, w) in enumerate(zip(r, widths, strict=True))
        ).rstrip()
        for r in rows
    ]
    lines.insert(1, "-" * len(lines[0]))
    basis = options[0].get("cost_basis") or "cloud"
    lines.append(
        f"* on the Pareto front: no other option is both cheaper per million tokens "
        f"and faster ({'tokens/s' if training else 'tokens/s per user'}). "
        f"Cost basis: {BASIS_WORDS.get(basis, basis)}."
    )
    if any(o.get("user_prices") for o in options):
        lines.append("(yours) priced with your own prices (--prices).")
    lines += [f"Why ({o['gpu']}): {o['layout_reason']}" for o in options[:10] if o.get("layout_reason")]
    lines += need_lines(options[:10])
    lines += [f"Not offered ({o['gpu']}, {o['unmet']}): {o['unmet_reason']}" for o in options if o["unmet"]]
    said = {o.get("unmet_reason") for o in options}
    lines += sorted({f"Note ({o['gpu']}): {n}" for o in options for n in o["notes"] if n not in said})
    return "\n".join(lines)


# the layout cell of an option with no layout, by its cause (core/sizing/unmet.py)
NOT_OFFERED = {
    "memory": "does not fit",
    "context_limit": "context limit",
    "practical_limit": "practical limit",
}


def need_lines(options: Sequence[dict[str, Any]]) -> list[str]:
    """What the work needs apart from what is bought, where they differ: ``Need (h100-sxm-80gb):
    1 x H100 SXM (TP 1 x PP 1 x DP 1); bought 8 (7 spare GPUs, used by the layout above)``."""
    out = []
    for o in options:
        need, spare = o.get("needed_gpus"), o.get("spare_gpus")
        if o["fits"] and need and spare:
            out.append(
                f"Need ({o['gpu']}): {need:,} x {o['gpu_name']} ({o['needed_layout']}); bought {o['gpus']:,} "
                f"({spare:,} spare GPU{'s' if spare != 1 else ''}, run as the layout above: more replicas "
                "or wider parallelism)"
            )
    return out


def chart_points(options: Sequence[dict[str, Any]]) -> list[tuple[float, float, dict[str, Any]]]:
    """(speed, cost per million tokens, option) of each option the cost-speed chart shows."""
    return [
        (speed_of(o) or 0.0, o["cost_per_million_tokens"], o)
        for o in options
        if o["fits"] and speed_of(o) and o["cost_per_million_tokens"] is not None
    ]


def band_tip_lines(o: dict[str, Any], unit: str = "GiB") -> list[str]:
    """The option's evidence band in words (the Hardware tab's tooltip): where 80 % of the
    replayed published runs like it landed, and how sure each figure is."""
    if not o.get("fits"):
        return []
    mem, speed = o.get("memory_confidence") or "none", o.get("speed_confidence") or "none"
    out = [f"How sure: memory {mem} · speed {speed}"]
    peak = o.get("per_gpu_total_range")
    if peak:
        out.append(f"Peak of runs like this: {_band(_bytes)(peak, unit)} per GPU")
    for key, label, fmt in (
        ("tokens_per_second_per_user_range", "tokens/s per user", _num(1)),
        ("time_seconds_range", "time to train", _duration),
        ("rl_time_per_step_seconds_range", "per RL step", _duration),
        ("rl_run_seconds_range", "for the RL run", _duration),
    ):
        if o.get(key):
            out.append(f"Runs like this: {_band(fmt)(o[key], unit)} {label}")
    return out
