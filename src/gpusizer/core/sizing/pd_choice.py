"""The answer ranked for a scenario that asks for disaggregated prefill and decode
(``serving.disaggregated``): the split the advice found (core/sizing/disagg_split.py) or the
aggregated answer, whichever meets the targets at the lower cost, the other shown beside it.

The rule implements the buyer's ask for P/D serving: "the advisor picks the split (xPyD) that
meets the targets at the least cost, and compares it with the aggregated answer in the same
table". Before, ``compare`` ranked every GPU by its aggregated count (A100 SXM 80GB: 464 GPUs,
TP 8 x PP 2 x DP 29) while a note said a 1P4D split of 80 GPUs met the same targets.

Cost: both answers are on the one GPU type of the option, so every cost basis the ranking uses
(purchase: whole systems x their price; renting: GPUs or systems x the hourly price; owning:
the systems' price over the years plus their power) grows with the GPUs bought in whole units
(core/sizing/compare_costs.py ``money``). The split is chosen where it meets the speed targets
on fewer GPUs bought than the aggregated answer; on a tie (e.g. both fill one NVL72 rack) the
aggregated answer stays, as it needs no KV transfer between pools. Its speed is the split's own
(core/serving/disaggregated.py: first token of the prefill pool plus the KV transfer, time per
token of the decode pool), so $/M tok and tok/s follow from it.

Peak/GPU stays the layout's estimate: each pool is made of replicas of the same tensor x
pipeline layout, and a decode replica admits only the users whose KV fits its pool (the split
is accepted only where none waits for a slot: disagg_split.py ``fast``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from ..model.architecture import ceil_div
from .disagg_pools import split_pools_notes
from .option import Pace
from .option_split import DisaggSplit

PREFILL = "serving.disaggregated.prefill_gpus"
DECODE = "serving.disaggregated.decode_gpus"
PREFILL_TENSOR = "serving.disaggregated.prefill_tensor"
_IDLE = re.compile(r"\d[\d,]* of the [\d,]+ GPUs idle: ")  # idle_words.idle_note's head


def split_layout(split: DisaggSplit, pipeline: int) -> str:
    """``1P4D: 16 prefill TP 8 + 64 decode TP 8`` (`` x PP 2`` on each pool where it pipelines)."""
    pp = f" x PP {pipeline}" if pipeline > 1 else ""
    pre, dec = split.prefill * split.prefill_per, split.decode * split.per
    tp = split.per // pipeline
    return f"{split.label}: {pre:,} prefill TP {split.prefill_tensor}{pp} + {dec:,} decode TP {tp}{pp}"


def chosen(
    split: DisaggSplit | None, split_bought: int, aggregated_bought: int, met: bool, level_tie: bool = False
) -> bool:
    """Whether the split is the answer ranked (module docstring): it meets the targets, on fewer
    GPUs bought in whole units than the aggregated answer or where that misses them; or where
    the aggregated answer misses the default service level the split meets (``level_tie``: no
    speed target stated, so the split was sized on that level, core/sizing/disagg_split.py
    ``_level``, and the level stands in for the targets here as it did in that search).
    DeepSeek-V3 on one GB200 NVL72 rack: aggregated, first token 6.71 s; 2P1D on the same 72
    GPUs, 1.68 s. On 24 H100 SXM: aggregated (TP 1 x PP 21), 36.66 s and 14 tokens/s for 2,048
    users; 1P1D on 48, 0.89 s. A buyer signs the answer that meets the level, at one price or
    on more GPUs, as with a target stated."""
    if split is None or not split.targets_met:
        return False
    return split_bought < aggregated_bought or not met or level_tie


def pd_fields(
    fields: dict[str, Any],
    split: DisaggSplit | None,
    split_bought: int,
    node: int,
    unit: Callable[[int], dict[str, Any]],
    asked: tuple[int, int] | None = None,
    level_tie: bool = False,
) -> dict[str, Any]:
    """``fields`` (the aggregated option's) with the split's count, speed, layout and reason
    where the split is chosen, the aggregated answer kept in ``pd_other_*``; ``fields`` as
    they are where the scenario asks for no split or the split is not chosen (then
    ``pd_other_*`` names the split). ``unit``: the unit fields of a GPU count
    (core/sizing/advise.GpuAdvice._unit); ``node``: GPUs per node; ``asked``: the scenario's
    own prefill and decode GPUs (core/sizing/disagg_pools.py ``split_pools_notes``)."""
    if split is None:
        return fields
    bought = fields["gpus"]
    label = split_layout(split, fields["parallelism"]["pipeline"])
    met = fields["targets_met"] is not False
    tie = level_tie and fields.get("default_target_met") is False
    if not chosen(split, split_bought, bought, met, tie):
        return _kept(fields, split, split_bought, label)
    pools = (split.prefill * split.prefill_per, split.decode * split.per)
    changes = dict(fields["scenario_changes"]) | {
        PREFILL: pools[0],
        DECODE: pools[1],
        PREFILL_TENSOR: split.prefill_tensor,
    }
    return fields | {
        "notes": split_pools_notes(_busy(fields["notes"]), asked, pools, split.label),
        "gpus": split_bought,
        "gpus_in_layout": split.gpus,
        "min_gpus": split.gpus,
        "nodes": ceil_div(split_bought, node),
        "layout": label,
        "layout_reason": _reason(split, label, split_bought, bought, fields["layout"], met and not tie, tie),
        "targets_met": True,
        **({"default_target_met": True} if tie else {}),
        "unmet": None,
        "unmet_reason": None,
        "scenario_changes": changes,
        "pace": _pace(split),
        "needed_gpus": split.gpus,
        "needed_layout": label,
        "spare_gpus": split_bought - split.gpus,
        "unit": unit(split_bought),
        "pd": _other("aggregated", bought, fields["layout"], fields["pace"].tokens_per_second)
        | {"pd_chosen": split.label},
    }


def _busy(notes: Sequence[str]) -> tuple[str, ...]:
    """The notes less the aggregated layout's idle GPUs (core/sizing/idle_words.py): the split
    uses its own count, and the Need line says how many of the units it leaves spare. A GB200
    rack chosen as 2P1D on 48 GPUs read "8 of the 72 GPUs idle", the aggregated layout's."""
    return tuple(n for n in notes if not _IDLE.match(n))


def _pace(split: DisaggSplit) -> Pace:
    """The split's speeds: first token (prefill pool and KV transfer), time per token (decode)."""
    tpot = split.tpot_seconds
    return Pace(
        ttft_seconds=split.ttft_seconds,
        tpot_seconds=tpot,
        tokens_per_second_per_user=1.0 / tpot if tpot > 0 else None,
        tokens_per_second=split.tokens_per_second,
    )


def _kept(fields: dict[str, Any], split: DisaggSplit, split_bought: int, label: str) -> dict[str, Any]:
    """The aggregated option kept, the split beside it and the Why line saying why."""
    why = (
        f"aggregated kept: the split {split.label} buys {split_bought:,} GPUs, no fewer"
        if split.targets_met
        else "aggregated kept: no split meets the targets"
    )
    reason = "; ".join(r for r in (fields["layout_reason"], why) if r)
    other = _other(split.label, split_bought, label, split.tokens_per_second)
    return fields | {"layout_reason": reason, "pd": other | {"pd_chosen": "aggregated"}}


def _other(kind: str, gpus: int, layout: str, tokens_per_second: float | None) -> dict[str, Any]:
    """The answer not ranked: ``kind`` (``aggregated``, or the split's ``1P4D``), GPUs bought,
    layout, output tokens/s, and the table's cell (``464 aggregated``, ``72 as 1P1D``)."""
    answer = f"{gpus:,} aggregated" if kind == "aggregated" else f"{gpus:,} as {kind}"
    return {
        "pd_other": kind,
        "pd_other_gpus": gpus,
        "pd_other_layout": layout,
        "pd_other_tokens_per_second": tokens_per_second,
        "pd_other_answer": answer,
    }


def other_cost(option: dict[str, Any], price: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """``pd_other_cost_per_million_tokens``: the answer not ranked, priced as the ranked one is
    (``price``: an option's money and per-token fields, core/sizing/compare_rank.price_options);
    empty for an option without a split asked, so other scenarios keep their keys."""
    gpus = option.get("pd_other_gpus")
    if gpus is None:
        return {}
    other = option | {
        "gpus": gpus,
        "gpus_in_layout": gpus,
        "tokens_per_second": option["pd_other_tokens_per_second"],
    }
    return {"pd_other_cost_per_million_tokens": price(other).get("cost_per_million_tokens")}


def _reason(
    split: DisaggSplit,
    label: str,
    bought: int,
    aggregated: int,
    agg_layout: str,
    met: bool,
    tie: bool = False,
) -> str:
    """The Why line of a chosen split: the split, its speed, and the aggregated answer it beats."""
    whole = f" ({bought:,} in whole units)" if bought > split.gpus else ""
    why = (
        f"on fewer GPUs than the aggregated answer, {aggregated:,} GPUs ({agg_layout}), at the same "
        "price per GPU: ranked as the cheaper"
        if met
        else f"where the aggregated answer, {aggregated:,} GPUs ({agg_layout}), misses them"
        + (_level_words(bought, aggregated) if tie else "")
    )
    # the link the first token rests on (core/sizing/pd_link_words.py)
    kv = f", {split.kv_seconds * 1e3:,.1f} ms of it the KV hand-off over {split.link}" if split.link else ""
    return (
        f"disaggregated {label}, {split.gpus:,} GPUs{whole}, meets the targets (first token "
        f"{split.ttft_seconds:,.2f} s{kv}, {split.tpot_seconds * 1e3:,.1f} ms a token) {why}"
    )


def _level_words(bought: int, aggregated: int) -> str:
    """The default level the aggregated answer misses, and the GPUs bought either way: the same,
    fewer (the split is the cheaper too) or more (the level, sizing the split as no speed target
    is stated, is what the buyer pays the difference for)."""
    if bought == aggregated:
        return " (the default service level, on the same GPUs bought)"
    if bought < aggregated:
        return " (the default service level), on fewer GPUs bought"
    return (
        f" (the default service level, as no speed target is stated), for {bought - aggregated:,} "
        "GPUs more bought: the aggregated answer holds the users but not that level"
    )
