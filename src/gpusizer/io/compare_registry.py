"""The column registry of the buyer's comparison (io/compare_columns.py selects from it and keeps
its names importable): each :class:`Column` is its option field (core/sizing/compare.py), its
header, its unit, a formatter (io/compare_formats.py) and the workloads it applies to
(``serve``, ``train`` or both; ``targets``: only when the scenario states serving targets;
``rl``: an RL scenario's; ``pd``: a prefill/decode split's). Split from io/compare_columns.py
for size; the columns are as they were there, in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .compare_formats import Fmt, band_fmt, bytes_fmt, duration_fmt, num_fmt, text_fmt, usd_fmt, yes_fmt
from .wide_band_text import WIDE_CELL, wide_cell

# the Targets cell of an option that meets them at the estimate only
AT_ESTIMATE = "at estimate"


@dataclass(frozen=True)
class Column:
    key: str  # the option's field
    header: str
    fmt: Fmt
    applies: str = "both"  # "serve" | "train" | "both" | "targets" | "rl" | "pd"
    tip: str = ""  # what it means (the window's header tooltip)
    editable: bool = False  # a unit price the user may set (Hardware tab)

    def text(self, option: dict[str, Any], unit: str = "GiB") -> str:
        """The cell's text; empty where the value is unknown (no price, no fit)."""
        value = option.get(self.key)
        if value is not None and wide_cell(option, self.key):  # a range no forecast: in words
            return WIDE_CELL
        if self.key == "targets_met" and value is True and option.get("targets_met_at_estimate_only"):
            return AT_ESTIMATE  # no run like it met them (core/sizing/estimate_only.py)
        return "" if value is None else self.fmt(value, unit)


COLUMNS: tuple[Column, ...] = (  # what decides a purchase first, the details after
    Column("rank", "#", text_fmt, tip="Order of the current ranking"),
    Column("gpu_name", "GPU", text_fmt),
    Column("gpus", "GPUs", num_fmt(0), tip="GPUs to buy or rent (whole servers when asked)"),
    Column(
        "needed_gpus",
        "Need",
        num_fmt(0),
        tip="GPUs the work needs (the fewest that hold it, or that meet the targets), apart from "
        "those bought: the spare ones run as more replicas or wider parallelism",
    ),
    Column(
        "system_name",
        "System",
        text_fmt,
        tip="What is bought or rented: a catalog system (server, rack, workstation, Mac) or a box "
        "of cards sold alone (priced as its cards; owning, consumer and workstation cards with "
        "the host they need)",
    ),
    Column("systems", "Units", num_fmt(0), tip="Systems (servers, racks, boxes) to buy"),
    Column(
        "cost_per_million_tokens",
        "$/M tok",
        usd_fmt,
        tip="Cost per million tokens (output tokens served, the prompts paid inside it; or tokens "
        "trained), renting or owning",
    ),
    Column(
        "cost_per_million_tokens_range",
        "$/M tok band",
        band_fmt(usd_fmt),
        tip="Cost per million tokens at the edges of the speed band: the hours are billed alike, "
        "so the slow edge costs the most. The ranking stays on the estimate",
    ),
    Column("training_cost", "$ to train", usd_fmt, "train", "Cost of the training run"),
    Column(
        "training_cost_range",
        "$ to train band",
        band_fmt(usd_fmt),
        "train",
        "Cost of the training run at the edges of its time band (Time band, or RL run band): "
        "the hours are billed alike, so the band on the time is the band on the cost. The "
        "ranking stays on the estimate",
    ),
    Column(
        "rl_total_gpus", "RL GPUs", num_fmt(0), "rl", "RL: every GPU of the run, a split rollout pool added"
    ),
    Column("rl_time_per_step_seconds", "RL step", duration_fmt, "rl", "RL: time of one step, all phases"),
    Column(
        "rl_time_per_step_seconds_range",
        "RL step band",
        band_fmt(duration_fmt),
        "rl",
        "RL: time of one step where 80 % of replayed published RL steps like this one landed "
        "(split pools: of the serving and training figures its phases are priced as)",
    ),
    Column("rl_run_seconds", "RL run", duration_fmt, "rl", "RL: time of the run's rl.steps steps"),
    Column(
        "rl_run_seconds_range",
        "RL run band",
        band_fmt(duration_fmt),
        "rl",
        "RL: time of the run where 80 % of replayed published RL steps like this one landed "
        "(split pools: of the serving and training figures its phases are priced as)",
    ),
    Column(
        "rl_rollout_tensor", "Rollout TP", num_fmt(0), "rl", "RL: the rollout engine's TP (rl.rollout.tensor)"
    ),
    Column(
        "rl_tokens_trained_per_second",
        "RL tok/s",
        num_fmt(0),
        "rl",
        "RL: tokens trained per second over the whole step (what $/M tok is spread over)",
    ),
    Column(
        "tokens_per_second_per_user",
        "Tok/s/user",
        num_fmt(1),
        "serve",
        "Output tokens per second each user sees",
    ),
    Column(
        "tokens_per_second_per_user_range",
        "Tok/s/user band",
        band_fmt(num_fmt(1)),
        "serve",
        "Tokens per second per user where 80 % of replayed published runs like this one landed",
    ),
    Column("ttft_seconds", "TTFT", num_fmt(2, 1, " s"), "serve", "Time to first token"),
    Column("tpot_seconds", "TPOT", num_fmt(1, 1000, " ms"), "serve", "Time per output token"),
    Column(
        "tokens_per_second",
        "Tok/s",
        num_fmt(0),
        tip="Tokens per second over all GPUs (served output tokens, or trained tokens)",
    ),
    Column("time_seconds", "Time", duration_fmt, "train", "Time to train on training_tokens"),
    Column(
        "time_seconds_range",
        "Time band",
        band_fmt(duration_fmt),
        "train",
        "Training time where 80 % of replayed published runs like this one landed",
    ),
    Column(
        "speed_confidence",
        "Speed sure",
        text_fmt,
        tip="How sure the speed is: measured (this model, GPU and engine among the published "
        "figures), validated (its regime has a band), extrapolated (no published figure of this "
        "engine on this vendor or batch regime), none",
    ),
    Column(
        "targets_met",
        "Targets",
        yes_fmt,
        "targets",
        "Targets met (serving targets, or the training deadline); 'at estimate': met at the "
        "estimate, but the speed band lies wholly slower and passes a target (its Note says by how much)",
    ),
    Column(
        "default_target_met",
        "Default target",
        yes_fmt,
        "targets",
        "The stated default service level met (first token within 2 s, 5 tokens/s per user: MLPerf "
        "Inference's Llama 2 70B server limits), where you set no speed target of your own",
    ),
    Column(
        "purchase_cost",
        "Purchase $",
        usd_fmt,
        tip="Street price (2025-26) x whole systems; yours where set",
    ),
    Column(
        "cloud_cost_per_hour",
        "Cloud $/h",
        usd_fmt,
        tip="On-demand price of the GPUs rented (by the GPU, or whole systems where only those are rented)",
    ),
    Column(
        "power_watts",
        "kW",
        num_fmt(1, 1e-3),
        tip="System power (measured or specified): the systems owned, or the rented GPUs' share",
    ),
    Column(
        "energy_kwh_per_million_tokens",
        "kWh/M tok",
        num_fmt(2),
        tip="Energy per million tokens at system power",
    ),
    Column("energy_kwh", "kWh", num_fmt(0), "train", "Energy of the training run at system power"),
    Column(
        "energy_kwh_range", "kWh band", band_fmt(num_fmt(0)), "train", "Energy of the run at its time band"
    ),
    Column("electricity_cost", "Power $", usd_fmt, "train", "Electricity of the training run"),
    Column(
        "electricity_cost_range", "Power $ band", band_fmt(usd_fmt), "train", "Electricity at the time band"
    ),
    Column("layout", "Layout", text_fmt, tip="Parallel layout; double-click a row to apply it"),
    Column(
        "pd_other_answer",
        "Other answer",
        text_fmt,
        "pd",
        "serving.disaggregated: the answer not ranked, aggregated or the prefill/decode split "
        "(core/sizing/pd_choice.py ranks the cheaper that meets the targets)",
    ),
    Column(
        "pd_other_cost_per_million_tokens",
        "Other $/M tok",
        usd_fmt,
        "pd",
        "serving.disaggregated: the cost per million output tokens of the answer not ranked",
    ),
    Column("nodes", "Nodes", num_fmt(0), tip="Servers (or boxes) of gpus_per_node GPUs"),
    Column("per_gpu_total", "Peak/GPU", bytes_fmt, tip="Peak memory of the busiest GPU"),
    Column(
        "per_gpu_total_range",
        "Peak band",
        band_fmt(bytes_fmt),
        tip="Peak per GPU where 80 % of replayed published runs like this one landed; an upper "
        "edge past the usable memory is noted",
    ),
    Column("memory_confidence", "Peak sure", text_fmt, tip="How sure the peak is (as Speed sure)"),
    Column("headroom_bytes", "Spare/GPU", bytes_fmt, tip="Usable memory left at the peak"),
    Column(
        "price_per_hour",
        "$/GPU-h",
        usd_fmt,
        tip="On-demand price per GPU-hour of a provider-operated cloud (RunPod Secure Cloud where "
        "listed, else the named provider; dated in the tooltip); yours where set",
        editable=True,
    ),
    Column(
        "list_price_usd",
        "$/GPU",
        usd_fmt,
        tip="2025-26 street price per GPU (dated in the tooltip); yours where set",
        editable=True,
    ),
)
