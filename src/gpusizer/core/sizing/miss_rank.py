"""How far an option that misses a target is from it: the misses rank nearest first
(core/sizing/compare_rank.py ``sort_options``).

The distance is the largest shortfall ratio over the targets the row is judged by, each a
plain ratio of the row's own figure to the target (dimensionless, 1 = on the target):

- first token: ``ttft_seconds / targets.max_ttft_seconds`` (seconds over seconds);
- speed per user: ``targets.min_tokens_per_second_per_user / tokens_per_second_per_user``
  (tokens/s over tokens/s);
- deadline: the run's wall time over ``targets.max_training_days`` (seconds over seconds; RL:
  ``rl_run_seconds`` over the goodput share, as core/sizing/rl_notes.py ``deadline_reason``
  says it; training: ``wall_time_seconds``, core/speed/goodput.py);
- the stated default service level's halves that apply (core/sizing/service_level.py);
- a purchase budget: what the row buys over ``targets.max_purchase_usd`` (USD over USD;
  core/sizing/budget.py ``budget_price``), so the rows over it rank nearest the budget first.

Before, the misses kept the met rows' order: Qwen3.5 35B-A3B for 2 users with 32K prompts on
Macs (tests/cli/data/buyer/local-qwen3.5-35b-a3b-mlx-32k), where every Mac misses only the
default 2 s first token, ranked 2 x M1 Max (first token 39.9 s) above one M3 Ultra 512 GB
(21.0 s) by tokens/s per user, which the M1 Max's two boxes lead.

A missed figure the row does not state (no first token or decode rate within the simulated
load) is infinitely far. Rows that meet their targets, or do not fit, stay at 0: their order
is the sort's own.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model.specs import Scenario
from .budget import budget_price
from .service_level import ServiceLevel, default_target

DAY = 86400.0


@dataclass(frozen=True)
class Goals:
    """The targets a row is measured against: the user's serving speeds, the default level's
    halves that apply (None: none), the training deadline in seconds of wall time, and the
    purchase budget (USD)."""

    own: ServiceLevel = field(default_factory=ServiceLevel)
    default: ServiceLevel | None = None
    deadline_seconds: float | None = None
    budget_usd: float | None = None

    @classmethod
    def of(cls, s: Scenario) -> Goals:
        t = s.workload.trains
        days = s.targets.max_training_days if t else None
        own = ServiceLevel() if t else ServiceLevel.of(s.targets)
        deadline = None if days is None else days * DAY
        return cls(own, default_target(s), deadline, s.targets.max_purchase_usd)


def _over(figure: float | None, limit: float | None, floor: bool) -> float:
    """The figure's ratio to its target (``floor``: a least rate, so the target over it);
    0 where no target is set, infinity where the figure is not stated."""
    if limit is None:
        return 0.0
    if figure is None or (floor and figure <= 0):
        return math.inf
    return limit / figure if floor else figure / limit


def _level(o: Mapping[str, Any], level: ServiceLevel | None) -> float:
    if level is None:
        return 0.0
    return max(
        _over(o.get("ttft_seconds"), level.max_ttft_seconds, floor=False),
        _over(o.get("tokens_per_second_per_user"), level.min_tokens_per_second_per_user, floor=True),
    )


def _wall(o: Mapping[str, Any]) -> float | None:
    """The run's wall time (s): RL's whole run over the goodput share, else training's."""
    run = o.get("rl_run_seconds")
    if run is not None:
        return float(run) / (o.get("effective_time_share") or 1.0)
    wall = o.get("wall_time_seconds")
    return wall if wall is not None else o.get("time_seconds")


def shortfall(o: Mapping[str, Any], goals: Goals | None) -> float:
    """How far a fitting row that misses its targets or the default level is from them (the
    largest ratio, module docstring); 0 for every other row, and with no ``goals``."""
    missed = o["targets_met"] is False or o.get("default_target_met") is False
    if goals is None or not o["fits"] or not missed:
        return 0.0
    return max(
        _level(o, goals.own),
        _level(o, goals.default),
        _over(_wall(o), goals.deadline_seconds, floor=False),
        _bought(o, goals.budget_usd),
    )


def _bought(o: Mapping[str, Any], budget: float | None) -> float:
    """The purchase's ratio to the budget; 0 where either is unstated (an unpriced row is not
    judged by the budget, core/sizing/budget.py)."""
    price = budget_price(o)
    return 0.0 if price is None else _over(price, budget, floor=False)


def first_token_missed(options: Sequence[Mapping[str, Any]], goals: Goals | None) -> bool:
    """Whether every fitting option misses its targets and one misses a first-token target
    (the user's or the default level's): the whole order is then by :func:`shortfall`, the
    first token among it, so a table that hides that column shows an order its visible
    columns do not explain."""
    fitting = [o for o in options if o["fits"]]
    if goals is None or not fitting or any(shortfall(o, goals) == 0.0 for o in fitting):
        return False
    limits = [lv.max_ttft_seconds for lv in (goals.own, goals.default) if lv is not None]
    least = min((x for x in limits if x is not None), default=None)
    return least is not None and any(_over(o.get("ttft_seconds"), least, floor=False) > 1.0 for o in fitting)
