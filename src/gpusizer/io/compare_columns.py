"""The columns of the buyer's comparison: one registry for ``gpusizer-cli compare``, ``plan``'s
RL columns, the Hardware tab and its CSV (so every place shows the same columns, in the same
words and units). io/compare_table.py renders them; the cells' formatters are
io/compare_formats.py and the registry itself io/compare_registry.py (whose names stay
importable from here).

A column is its option field (core/sizing/compare.py), its header, its unit, a formatter and the
workloads it applies to (``serve``, ``train`` or both; ``targets``: only when the scenario
states serving targets; ``rl``: an RL scenario's).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from .compare_formats import Fmt, band_fmt, bytes_fmt, duration_fmt, num_fmt, text_fmt, usd_fmt, yes_fmt
from .compare_registry import AT_ESTIMATE, COLUMNS, Column

# the registry and the formatters live in their own modules; every name stays importable from here
__all__ = [
    "AT_ESTIMATE",
    "COLUMNS",
    "PLAN_RL_KEYS",
    "PLAN_TRAIN_KEYS",
    "RL_HIDDEN",
    "Column",
    "Fmt",
    "band_fmt",
    "bytes_fmt",
    "columns_for",
    "duration_fmt",
    "is_pd",
    "is_rl",
    "num_fmt",
    "plan_columns",
    "text_fmt",
    "usd_fmt",
    "yes_fmt",
]


# RL: the training phase's rate and a training_tokens run say nothing of an RL run (its step and
# run are the rl columns, each with the band of RL's own published steps beside it)
RL_HIDDEN = ("tokens_per_second", "time_seconds", "time_seconds_range")


# the RL columns gpusizer-cli plan adds to its table: the step and the run, each with its band,
# and the run's cost with the same band
PLAN_RL_KEYS = (
    "rl_total_gpus",  # a split run's rollout pool beside the training pool's GPUs
    "rl_time_per_step_seconds",
    "rl_time_per_step_seconds_range",
    "rl_run_seconds",
    "rl_run_seconds_range",
    "training_cost",  # the run's cost, and at the edges of its band: a budget is signed on both
    "training_cost_range",
)


# pre-training and fine-tuning: the run's time and cost, each with its band (a run of
# workload.training_tokens; an untimed scenario gets none)
PLAN_TRAIN_KEYS = ("time_seconds", "time_seconds_range", "training_cost", "training_cost_range")


def is_rl(options: Sequence[dict[str, Any]]) -> bool:
    """Options of an RL scenario (their RL run is timed)."""
    return any(o.get("rl_run_seconds") is not None for o in options)


def plan_columns(
    options: Sequence[dict[str, Any]], unit: str = "GiB"
) -> list[tuple[str, Callable[[dict[str, Any]], str]]]:
    """(header, cell text) of the registry's columns ``gpusizer-cli plan`` adds, in compare's
    words and units: RL's step, run and run's cost with their bands for an RL scenario; a timed
    training run's time and cost with their bands; none otherwise (serving, an untimed run)."""
    timed = any(o.get("time_seconds") is not None for o in options)  # serving's is null
    keys = PLAN_RL_KEYS if is_rl(options) else PLAN_TRAIN_KEYS if timed else ()
    by_key = {c.key: c for c in COLUMNS}
    return [(by_key[k].header, partial(_cell, by_key[k], unit=unit)) for k in keys]


def _cell(column: Column, option: dict[str, Any], unit: str) -> str:
    return column.text(option, unit)


def is_pd(options: Sequence[dict[str, Any]]) -> bool:
    """Options of a scenario that asks for a prefill/decode split (core/sizing/pd_choice.py)."""
    return any(o.get("pd_other_answer") is not None for o in options)


def columns_for(training: bool, targets: bool, rl: bool = False, pd: bool = False) -> list[Column]:
    """The columns that apply to a workload (and to serving targets when stated, RL's step and
    run for an RL scenario, the answer not ranked for a prefill/decode split)."""
    skip = {"serve"} if training else {"train"}
    if not pd:
        skip.add("pd")
    if not targets:
        skip.add("targets")
    if not rl:
        skip.add("rl")
    hidden = RL_HIDDEN if rl else ()
    return [c for c in COLUMNS if c.applies not in skip and c.key not in hidden]
