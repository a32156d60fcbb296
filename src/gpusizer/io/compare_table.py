"""The comparison as a table: ``gpusizer-cli compare``'s text, the Hardware tab's cells, its
chart's points and band tooltips, from the column registry of io/compare_columns.py (whose
names stay importable from here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..core.model.specs import Scenario
from ..core.sizing.compare_rank import speed_of
from .batch_lever_text import batch_lever_header, lever_words, need_lever_words
from .budget_text import budget_summary_line
from .compare_caveats import caveat_lines, front_caveat
from .compare_columns import (
    COLUMNS,
    PLAN_RL_KEYS,
    RL_HIDDEN,
    Column,
    Fmt,
    band_fmt,
    bytes_fmt,
    columns_for,
    duration_fmt,
    is_pd,
    is_rl,
    num_fmt,
    plan_columns,
    text_fmt,
)
from .compare_formats import usd_fmt
from .estimate_only_text import estimate_only_line
from .level_cheaper_text import level_cheaper_line
from .rent_words import rent_lines
from .serving_price_text import output_token_line
from .stated_layout_text import said_notes, stated_lines
from .unmet_text import unmet_head
from .wide_band_text import is_wide, wide_band_lines, wide_tip

__all__ = [
    "BASIS_WORDS",
    "COLUMNS",
    "NOT_OFFERED",
    "PLAN_RL_KEYS",
    "RL_HIDDEN",
    "Column",
    "Fmt",
    "band_fmt",
    "band_tip_lines",
    "chart_points",
    "columns_for",
    "compare_text",
    "duration_fmt",
    "is_pd",
    "is_rl",
    "need_lines",
    "not_offered_line",
    "plan_columns",
    "rollout_beside",
    "table_rows",
]
# the formatters' names before the registry moved to io/compare_columns.py
_band, _duration = band_fmt, duration_fmt

BASIS_WORDS = {
    "cloud": "renting, the on-demand list price of provider-operated clouds (RunPod Secure where listed)",
    "owned": "owning, the 2025-26 street price of whole systems over the years given, plus electricity",
    "marketplace": "renting on community or spot marketplaces",
}


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


def compare_text(
    options: Sequence[dict[str, Any]],
    training: bool,
    targets: bool,
    unit: str = "GiB",
    s: Scenario | None = None,
) -> str:
    """The table ``gpusizer-cli compare`` prints: text columns left, numbers right; ``*``
    marks the Pareto front (nothing cheaper and faster); notes below (with the scenario ``s``,
    the regime of a band wider than its speed: io/wide_band_text.py)."""
    if not options:
        return "No GPU matches the filters."
    cols = columns_for(training, targets, is_rl(options), is_pd(options))
    rows = table_rows(options, cols, unit)
    name = next(i for i, c in enumerate(cols) if c.key == "gpu_name")
    for row, o in zip(rows[1:], options, strict=True):
        row[name] += (" *" if o["pareto"] else "") + (" (yours)" if o.get("user_prices") else "")
    widths = [max(len(r[i]) for r in rows) for i in range(len(cols))]
    left = {i for i, c in enumerate(cols) if c.fmt is text_fmt and c.key != "rank"}
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
        f"Cost basis: {BASIS_WORDS.get(basis, basis)}. {money_units(unit)}"
    )
    lines += rent_lines(options)  # renting part of a unit, said once
    lines += output_token_line(options, s)  # what a serving $/M tok counts
    lines += estimate_only_line(options)  # a first row met at the estimate alone
    lines += level_cheaper_line(options)  # the default level met for less on more units
    lines += front_caveat(options)
    lines += budget_summary_line(options, s)  # where targets.max_purchase_usd's edge falls
    lines += batch_lever_header(options)
    if any(o.get("user_prices") for o in options):
        lines.append("(yours) priced with your own prices (--prices).")
    lines += [f"Why ({o['gpu']}): {o['layout_reason']}" for o in options[:10] if o.get("layout_reason")]
    lines += need_lines(options[:10])
    lines += stated_lines(options)  # a stated TP/PP the rows replaced, said once
    lines += caveat_lines(options, training)
    lines += wide_band_lines(options, s) if s is not None else []
    lines += [not_offered_line(o) for o in options if o["unmet"]]
    said = {o.get("unmet_reason") for o in options} | said_notes(options)
    lines += sorted({f"Note ({o['gpu']}): {n}" for o in options for n in o["notes"] if n not in said})
    return "\n".join(lines)


def not_offered_line(o: dict[str, Any], named: bool = True) -> str:
    """``Not offered (GPU, cause): why`` for a row with no layout, ``Ranked #1, short of a
    target (GPU): why`` for a ranked row that misses a target (io/unmet_text.py ``unmet_head``;
    ``named`` false: the window's tooltip, without the GPU id), with the memory fraction that
    would fit where the option carries one (io/wording.py ``fraction_lever_words``), and the
    request cap that would run a replica's users at once (io/batch_lever_text.py)."""
    return f"{unmet_head(o, named)}: {o['unmet_reason']}{lever_words(o)}"


def money_units(unit: str) -> str:
    """The currency and the memory unit, said once under the table: a buyer comparing quotes in
    another currency read "$" and "GiB" without either being stated."""
    size = "GiB = 2^30 bytes" if unit == "GiB" else "GB = 10^9 bytes"
    return f"Money in US dollars (USD); memory in {size}."


# the layout cell of an option with no layout, by its cause (core/sizing/unmet.py)
NOT_OFFERED = {
    "memory": "does not fit",
    # one replica holds the model, but no count the search tries meets the targets
    "targets": "misses targets",
    "context_limit": "context limit",
    "practical_limit": "practical limit",
}


def rollout_beside(o: Mapping[str, Any]) -> str:
    """`` beside the 8 rollout GPUs (rl.rollout.gpus)``: a split RL option's rollout pool, which
    its count (the training pool's, ``gpus`` and ``needed_gpus``) leaves out and
    ``rl_total_gpus`` holds ("" for every other option)."""
    pool = (o.get("rl_total_gpus") or 0) - (o.get("gpus") or 0)
    return f" beside the {pool:,} rollout GPU{'s' if pool != 1 else ''} (rl.rollout.gpus)" if pool > 0 else ""


def need_lines(options: Sequence[dict[str, Any]]) -> list[str]:
    """What the work needs apart from what is bought, where they differ: ``Need (h100-sxm-80gb):
    1 x H100 SXM (TP 1 x PP 1 x DP 1); bought 8 (7 spare GPUs, used by the layout above)``; a
    split RL run's training pool says the rollout pool beside it (:func:`rollout_beside`)."""
    out = []
    for o in options:
        need, spare = o.get("needed_gpus"), o.get("spare_gpus")
        if o["fits"] and need and spare:
            beside = rollout_beside(o)
            out.append(
                f"Need ({o['gpu']}): {need:,} x {o['gpu_name']} ({o['needed_layout']}){beside}; bought "
                f"{o['gpus']:,}{' for training' if beside else ''} ({spare:,} spare GPU"
                f"{'s' if spare != 1 else ''}, run as the layout above: more replicas or wider parallelism)"
                + need_lever_words(o)
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
    if is_wide(o):  # the ranges below are no forecast (io/wide_band_text.py)
        out.append(wide_tip(o))
    peak = o.get("per_gpu_total_range")
    if peak:
        out.append(f"Peak of runs like this: {band_fmt(bytes_fmt)(peak, unit)} per GPU")
    for key, label, fmt in (
        ("tokens_per_second_per_user_range", "tokens/s per user", num_fmt(1)),
        ("ttft_seconds_range", "to the first token", num_fmt(2, 1, " s")),  # the TTFT column's units
        ("tpot_seconds_range", "per output token", num_fmt(1, 1000, " ms")),
        ("time_seconds_range", "time to train", duration_fmt),
        ("rl_time_per_step_seconds_range", "per RL step", duration_fmt),
        ("rl_run_seconds_range", "for the RL run", duration_fmt),
    ):
        if o.get(key):
            out.append(f"Runs like this: {band_fmt(fmt)(o[key], unit)} {label}")
    per_m = o.get("cost_per_million_tokens_range")
    if per_m:  # the speed band on price / tokens per second (core/sizing/compare_costs.py)
        lo, hi = usd_fmt(per_m[0], unit), usd_fmt(per_m[1], unit)
        out.append(f"At that speed band a million tokens cost ${lo}-${hi}")
    cost = o.get("training_cost_range")
    if cost:  # the run's time band priced: what a budget signed at the band's edges pays
        out.append(f"At that time band the run costs ${usd_fmt(cost[0], unit)}-${usd_fmt(cost[1], unit)}")
    kwh = o.get("energy_kwh_range")
    if kwh:  # the same band at system power (compare_costs.per_work): what the run draws
        out.append(f"At that time band the run draws {band_fmt(num_fmt(0))(kwh, unit)} kWh")
    return out
