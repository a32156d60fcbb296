"""The sizing option: one GPU type's answer, as every caller gets it.

``plan``, ``compare_gpus``, the window's "GPUs needed" line and its Hardware tab all build
their answers from :class:`SizingOption` (core/sizing/advise.py makes them), so the count,
layout, speed and cost of a scenario, GPU and margin are the same everywhere. ``as_dict``
gives the public fields (docs/scenario-format.md, "The buyer's comparison"); every field is
present, null where it does not apply.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from .compare_options import SYSTEM_FIELDS
from .layout_words import layout_label
from .option_band import BAND_FIELDS
from .option_split import SPLIT_FIELDS, DisaggSplit

# an option's layout in words lives in core/sizing/layout_words.py; its name stays importable
# from here
__all__ = ["FIELDS", "Pace", "SizingOption", "layout_label", "option_edits"]

if TYPE_CHECKING:
    from .batch_lever_fields import BatchLever
    from .fraction_lever import FractionLever
    from .level_count_fields import LevelCount
    from .rl_split_fields import SplitAlternative

# Every comparison option carries every field (null where it does not apply), so tables and
# CSV align. Money fields are filled by compare_rank.price_options.
FIELDS = (
    "rank",
    "gpu",
    "gpu_name",
    "vendor",
    "category",
    "fits",
    "gpus",
    "gpus_in_layout",
    "min_gpus",
    "nodes",
    "gpus_per_node",
    *SYSTEM_FIELDS,
    "layout",
    "layout_reason",
    "parallelism",
    "hardware",
    "scenario_changes",
    "batch_size",
    "per_gpu_total",
    "capacity_bytes",
    "headroom_bytes",
    "margin_bytes",
    "peak_phase",
    "compute_dtype",
    "ttft_seconds",
    "tpot_seconds",
    "tokens_per_second_per_user",
    "tokens_per_second",
    "time_seconds",
    "list_price_usd",
    "price_per_hour",
    "user_prices",
    "purchase_cost",
    "cloud_cost_per_hour",
    "owned_cost_per_hour",
    "host_purchase_usd",  # a box of cards' host, priced when owning (core/sizing/box_host.py)
    "host_power_watts",
    "cost_per_hour",
    "cost_basis",
    "power_watts",
    "cost_per_million_tokens",
    "cost_per_million_tokens_range",  # at the speed band (compare_costs.per_million_range)
    "energy_kwh_per_million_tokens",
    "electricity_cost_per_million_tokens",
    "training_cost",
    "training_cost_range",  # at the run's time band (compare_costs.run_cost_range)
    "energy_kwh",
    "energy_kwh_range",  # kW x each edge of the run's time band (compare_costs.per_work)
    "electricity_cost",
    "electricity_cost_range",
    "targets_met",
    "targets_met_at_estimate_only",  # its band passes a target (core/sizing/estimate_only.py)
    "pareto",
    "notes",
    # why an option is not offered as it stands (core/sizing/unmet.py), the stated default
    # service level (core/sizing/service_level.py), and the need apart from the purchase
    "unmet",
    "unmet_reason",
    "default_target_met",
    "needed_gpus",
    "needed_layout",
    "spare_gpus",
    "used_price_left_out",  # a used purchase price not counted (compare_rank.Money.used_prices)
    # training: the share of wall time spent on useful steps and the run's wall time
    # (core/speed/goodput.py); time_seconds stays the step model's ideal
    "effective_time_share",
    "wall_time_seconds",
    # RL post-training (workload.kind "rl"): the step and run of the option's layout as its
    # estimate's rl block gives them, and every GPU of the run (a split rollout pool added)
    "rl_time_per_step_seconds",
    "rl_run_seconds",
    "rl_total_gpus",
    "rl_tokens_trained_per_second",  # over the whole step (rollout, log-probs, training, refit)
    "rl_best_rollout_gpus",  # split: the fastest rollout pool of the same GPUs (rl_advice.py)
    "rl_rollout_tensor",  # the rollout engine's TP the option runs at (core/sizing/engine_width.py)
    *BAND_FIELDS,  # the evidence band of the peak and speeds (core/sizing/option_band.py)
    *SPLIT_FIELDS,  # serving.disaggregated: the xPyD split proposed (core/sizing/disagg_split.py)
)


@dataclass(frozen=True)
class Pace:
    """How fast an option runs (core/sizing/pace.py): serving ``ttft_seconds``,
    ``tpot_seconds``, ``tokens_per_second_per_user`` and ``tokens_per_second`` (output tokens
    over every replica); training ``time_seconds`` (a run of ``workload.training_tokens``,
    null without it), ``step_seconds`` and ``tokens_per_second`` (trained)."""

    ttft_seconds: float | None = None
    tpot_seconds: float | None = None
    tokens_per_second_per_user: float | None = None
    tokens_per_second: float | None = None
    time_seconds: float | None = None
    step_seconds: float | None = None

    def fields(self) -> dict[str, float | None]:
        """The public speed fields (``step_seconds`` is the search's own)."""
        return {
            "ttft_seconds": self.ttft_seconds,
            "tpot_seconds": self.tpot_seconds,
            "tokens_per_second_per_user": self.tokens_per_second_per_user,
            "tokens_per_second": self.tokens_per_second,
            "time_seconds": self.time_seconds,
        }


@dataclass(frozen=True)
class SizingOption:
    """One GPU type: how many to buy or rent, laid out how, why, and how fast.

    ``gpus`` is what is bought (whole purchase units, core/sizing/units.py), ``gpus_in_layout``
    what the layout uses (fewer only when no layout fills the units), ``min_gpus`` the fewest
    that hold the work and meet the targets before rounding to units. ``parallelism`` and
    ``hardware`` with ``scenario_changes`` (dotted field paths -> values: the techniques turned
    on, e.g. ``{"parallelism.recompute": "full"}``) and, serving, ``workload.batch_size =
    batch_size`` put back into the scenario reproduce the option."""

    gpu: str
    gpu_name: str
    vendor: str
    category: str | None
    gpus_per_node: int
    capacity_bytes: int
    margin_bytes: int
    fits: bool = False
    gpus: int | None = None
    gpus_in_layout: int | None = None
    min_gpus: int | None = None
    nodes: int | None = None
    layout: str | None = None
    layout_reason: str | None = None
    parallelism: dict[str, Any] | None = None
    hardware: dict[str, Any] | None = None
    scenario_changes: dict[str, Any] = field(default_factory=dict)
    batch_size: int | None = None
    per_gpu_total: int | None = None
    headroom_bytes: int | None = None
    peak_phase: str | None = None
    compute_dtype: str | None = None
    pace: Pace = field(default_factory=Pace)
    targets_met: bool | None = None
    notes: tuple[str, ...] = ()
    # ``unmet``: memory | targets | context_limit | practical_limit | no_price (None: offered),
    # ``unmet_reason`` the sentence naming the target or limit and by how much
    unmet: str | None = None
    unmet_reason: str | None = None
    default_target_met: bool | None = None  # the stated default service level (None: none applies)
    # what the work needs (the fewest GPUs that hold it, or that meet the targets) and its
    # layout, apart from what is bought (``gpus``); ``spare_gpus`` = gpus - needed_gpus
    needed_gpus: int | None = None
    needed_layout: str | None = None
    spare_gpus: int | None = None
    effective_time_share: float | None = None  # training (core/speed/goodput.py)
    wall_time_seconds: float | None = None  # training: time_seconds over the share
    rl_time_per_step_seconds: float | None = None  # RL: the estimate's rl block (rl_report.py)
    rl_run_seconds: float | None = None
    rl_total_gpus: int | None = None
    rl_best_rollout_gpus: int | None = None
    rl_tokens_trained_per_second: float | None = None
    rl_rollout_tensor: int | None = None  # searched: powers of two up to the node (engine_width.py)
    # plan's extras: the largest batch / context (serving) or micro-batch (training) that keep
    # the margin (null in compare_gpus, which does not spend the estimates on them)
    limits: dict[str, int] | None = None
    # the unit bought (core/sizing/systems.option_unit): system, system_name, gpus_per_system,
    # systems
    unit: dict[str, Any] = field(default_factory=dict)
    # the evidence band's fields (core/sizing/option_band.BAND_FIELDS; empty: not yet banded)
    band: dict[str, Any] = field(default_factory=dict)
    # serving.disaggregated: the prefill/decode split proposed beside this aggregated answer
    split: DisaggSplit | None = None
    # its choice against the aggregated answer (core/sizing/pd_choice.py: pd_chosen, pd_other,
    # pd_other_gpus, pd_other_layout; None where no split is asked, so other scenarios' JSON
    # keeps its keys)
    pd: dict[str, Any] | None = None
    # serving no-fit on an engine that reserves its pool: the memory fraction that would fit
    # (core/sizing/fraction_lever.py); in the JSON only where set
    fraction_lever: FractionLever | None = None
    # serving option queued by a stated request cap: the setting that runs its users at once
    # (core/sizing/batch_lever.py); in the JSON only where set
    batch_lever: BatchLever | None = None
    # serving option that meets its targets on a need grown by a stated request cap: the
    # setting that meets them on fewer GPUs (core/sizing/need_lever.py); in the JSON only where set
    need_lever: BatchLever | None = None
    # serving option that meets its targets but not the default service level: the fewest whole
    # units that meet it too (core/sizing/level_count.py); in the JSON only where set
    level_count: LevelCount | None = None
    # colocated RL: the split placement weighed beside it (core/sizing/rl_split_alt.py); in the
    # unpriced JSON only where set, priced into ``rl_split_alternative`` (rl_split_words.py)
    rl_split: tuple[SplitAlternative, ...] = ()
    # a stated parallelism.tensor or pipeline (core/sizing/stated_layout.py): in the JSON only
    # where the file states one
    stated_layout: dict[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        """The public option: every field of :data:`FIELDS` (money null until priced)."""
        out: dict[str, Any] = dict.fromkeys(FIELDS)
        for f in fields(self):
            if f.name in out:
                out[f.name] = getattr(self, f.name)
        out |= self.pace.fields()
        # copies: options are kept for the next caller (core/sizing/advise_all.py)
        out["parallelism"] = copy.deepcopy(self.parallelism)
        out["hardware"] = copy.deepcopy(self.hardware)
        out["scenario_changes"] = dict(self.scenario_changes)
        out["notes"] = list(self.notes)
        out["pareto"] = False
        split = self.split.fields() if self.split is not None else {}
        if self.fraction_lever is not None:
            split = split | {"fraction_lever": self.fraction_lever.fields()}
        if self.batch_lever is not None:
            split = split | {"batch_lever": self.batch_lever.fields()}
        if self.need_lever is not None:
            split = split | {"need_lever": self.need_lever.fields()}
        if self.level_count is not None:
            split = split | {"level_count": self.level_count.fields()}
        if self.rl_split:
            split = split | {"rl_split_options": [a.fields() for a in self.rl_split]}
        if self.stated_layout is not None:
            split = split | {"stated_layout": dict(self.stated_layout)}
        return out | dict(self.unit) | copy.deepcopy(self.band) | split | dict(self.pd or {})

    def edits(self, gpu: bool = True) -> dict[str, Any]:
        """The edits that put this option into its scenario (:func:`option_edits`)."""
        # copies: the option is kept for the next caller (core/sizing/advise_all.py)
        par, hw = copy.deepcopy(self.parallelism), copy.deepcopy(self.hardware)
        return _edits(dict(self.scenario_changes), par, hw, self.batch_size, gpu)


def option_edits(option: dict[str, Any], gpu: bool = True) -> dict[str, Any]:
    """The edits (block or dotted field path -> value) that put an option into its scenario:
    its techniques (``scenario_changes``), ``parallelism`` and ``hardware`` (only
    ``hardware.gpus_per_node`` when ``gpu`` is false: the scenario keeps its GPU) and, for
    serving, ``workload.batch_size``. Applied in this order they reproduce the option.
    ``option``: a comparison's row as the JSON contract gives it (``SizingOption.as_dict``,
    priced); a typed option has :meth:`SizingOption.edits`."""
    changes = option.get("scenario_changes") or {}
    return _edits(changes, option["parallelism"], option["hardware"], option.get("batch_size"), gpu)


def _edits(
    changes: dict[str, Any],
    par: dict[str, Any] | None,
    hw: dict[str, Any] | None,
    batch: int | None,
    gpu: bool,
) -> dict[str, Any]:
    edits: dict[str, Any] = dict(changes)
    edits["parallelism"] = par
    if gpu:
        edits["hardware"] = hw
    else:
        edits["hardware.gpus_per_node"] = (hw or {})["gpus_per_node"]
    if batch is not None:
        edits["workload.batch_size"] = batch
    return edits
