"""The clause a colocated RL answer's Why (``layout_reason``) gains where the split placement on
the same GPU (core/sizing/rl_split_alt.py) is faster at no more cost, or cheaper at no more time,
by more than the evidence bands leave open.

GRPO of Qwen3 8B at 8K responses, 200 steps within a week, colocated on one 8-GPU H100 server,
takes 2.2 days for $1,685 (renting); 8 rollout + 8 training GPUs take 1.0 day for $1,605, and on
H200 0.79 day for $1,388 against 1.6 days for $1,393 (docs/evidence/rl.md, the round-49 buyer
section). A buyer reading the colocated row alone signs the slower answer for more money.

Priced as the row is (``price``: core/sizing/compare_rank.price_options' pricer, the basis asked):
the split's GPUs of both pools in whole units (core/sizing/compare_costs.py ``money``) over its
run. The bands are of different regimes (``speed/rl/colocated/...`` against ``speed/rl/split``,
published step / estimate; docs/evidence/rl.md section 8), so a split is named only where it
wins across both: faster where the split's run at its band's slow edge is shorter than the
colocated run at its fast edge, at no more cost at the estimates; cheaper where its cost at its
slow edge is below the colocated cost at its fast edge, at no more time at the estimates. Where
both budgets weighed win, the cheaper is named (the comparison's default order), then the faster.
The row's own answer, rank and money stay as they are: ``rl.placement`` is the scenario's. Where
the user stated it, the clause says "as set".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .unmet import DAY

SPLIT_OPTIONS = "rl_split_options"  # the unpriced alternatives (core/sizing/option.py)
ALTERNATIVE = "rl_split_alternative"  # the one named, priced (docs/scenario-format.md)


def _days(seconds: float) -> str:
    return f"{seconds / DAY:,.1f} days" if seconds >= DAY else f"{seconds / 3600:,.1f} h"


def _edges(value: float, band: Any) -> tuple[float, float]:
    """The band's (fast or low, slow or high) edges; the value itself without a band."""
    return (float(band[0]), float(band[1])) if band else (value, value)


Price = Callable[[dict[str, Any]], dict[str, Any]]  # an option's money (compare_costs.pricer)


def split_alternative(row: dict[str, Any], price: Price) -> dict[str, Any]:
    """The row's updates: ``rl_split_alternative`` and the Why's clause where a split wins
    (module docstring); the unpriced alternatives are dropped from ``row`` either way."""
    alts = row.pop(SPLIT_OPTIONS, None)
    cost, run = row.get("training_cost"), row.get("rl_run_seconds")
    if not alts or cost is None or run is None:
        return {}
    won = [w for w in (_judged(row, a, price) for a in alts) if w is not None]
    if not won:
        return {}
    best = min(won, key=lambda w: (w["training_cost"], w["run_seconds"]))
    reason = "; ".join(r for r in (row.get("layout_reason"), _clause(row, best)) if r)
    return {ALTERNATIVE: best, "layout_reason": reason}


def _judged(row: Mapping[str, Any], alt: Mapping[str, Any], price: Price) -> dict[str, Any] | None:
    """The alternative priced, with ``wins`` (``faster`` or ``cheaper``; None where neither)."""
    total = alt["total_gpus"]
    priced = price(
        dict(row)
        | {
            "gpus": total,
            "gpus_in_layout": total,
            "tokens_per_second": alt["tokens_trained_per_second"],
            "tokens_per_second_range": None,
            "time_seconds": alt["run_seconds"],
            "time_seconds_range": alt["run_seconds_range"],
        }
    )
    cost = priced.get("training_cost")
    if cost is None:
        return None
    mine_fast, _ = _edges(row["rl_run_seconds"], row.get("rl_run_seconds_range"))
    _, its_slow = _edges(alt["run_seconds"], alt["run_seconds_range"])
    mine_low, _ = _edges(row["training_cost"], row.get("training_cost_range"))
    _, its_high = _edges(cost, priced.get("training_cost_range"))
    if its_slow < mine_fast and cost <= row["training_cost"]:
        wins = "faster"
    elif its_high < mine_low and alt["run_seconds"] <= row["rl_run_seconds"]:
        wins = "cheaper"
    else:
        return None
    return dict(alt) | {
        "cost_per_hour": priced.get("cost_per_hour"),
        "training_cost": cost,
        "training_cost_range": priced.get("training_cost_range"),
        "wins": wins,
    }


# the rule of core/sizing/rl_split_alt.py in a buyer's words: the split's slow band edge against
# colocated's fast one ("beyond both run bands" read as outside the evidence)
_EDGES = "even at the slow edge of its {0} band against colocated's fast edge"


def _clause(row: Mapping[str, Any], alt: Mapping[str, Any]) -> str:
    """``split 8 rollout + 8 training GPUs: 1.0 days, $1,605 (colocated 2.2 days, $1,685), ...``."""
    as_set = " as set:" if alt["placement_stated"] else ""
    how = (
        f"faster at no more cost, {_EDGES.format('run')}"
        if alt["wins"] == "faster"
        else f"cheaper at no more time, {_EDGES.format('cost')}"
    )
    par = row.get("parallelism") or {}
    unit = par.get("tensor", 1) * par.get("pipeline", 1) * par.get("context", 1)
    data = alt["training_gpus"] // unit
    fields = [f"rl.placement split, rl.rollout.gpus {alt['rollout_gpus']:,}"]
    fields += [f"parallelism.data {data:,}"] if data != par.get("data") else []
    fields += ["the rollout a step ahead of training: rl.overlap"] if alt["overlap"] else []
    gpus = "GPU" if alt["training_gpus"] == 1 else "GPUs"
    return (
        f"split {alt['rollout_gpus']:,} rollout + {alt['training_gpus']:,} training {gpus}: "
        f"{_days(alt['run_seconds'])}, ${alt['training_cost']:,.0f} (colocated{as_set} "
        f"{_days(row['rl_run_seconds'])}, ${row['training_cost']:,.0f}), {how} ({', '.join(fields)})"
    )
