"""Views of an estimate: the chart registry, and the view settings each chart keeps.

A chart is one :class:`ChartView` entry: its key (``gpusizer-cli chart --kind``, ``gpusizer
--tab``, the window's tab), its tab label, its caption and file name in a report, the kinds of
work it has something to say about, and its renderer, a ``module:Class`` path that only the
window (or ``gpusizer-cli chart``) imports, when the chart is first needed: the core never
imports Qt. Adding a chart is one :func:`register` call plus the chart's own module.

Settings of a view that are not part of the scenario (the sweep's axis, the Hardware tab's
margin, ranking and cost basis) live in a small frozen state object per chart (glue's one
state object per view), not in a widget, so the CLI sets them as the window does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import TYPE_CHECKING, Any, cast

from ..errors import ScenarioError
from ..registry.table import add
from ..registry.workloads import WORKLOAD_KINDS, WorkloadKind
from ..sizing.compare_options import (
    AMORTIZATION_YEARS,
    BASES,
    DEFAULT_MARGIN,
    ELECTRICITY_USD_PER_KWH,
    SORTS,
    UTILIZATION,
    check_cards_per_box,
    check_margin,
)

if TYPE_CHECKING:
    from ..sizing.compare_rank import Money

SWEEP_AXES = ("sequence_length", "batch_size", "gpus")


@dataclass(frozen=True)
class SweepView:
    """The sweep chart's settings: which knob is swept (``SWEEP_AXES``)."""

    axis: str = "sequence_length"

    def __post_init__(self) -> None:
        if self.axis not in SWEEP_AXES:
            raise ScenarioError("axis", f"must be one of {', '.join(SWEEP_AXES)}; got {self.axis!r}")


# The Hardware table's columns shown at first (the rest are one right-click on its header away):
# what a buyer ranks by: the count bought and the count needed, the speed each user sees or the
# days to train, the cost per million tokens or of the run, the purchase; at 1280x720 these fit
# beside the frozen rank and GPU without sideways scrolling. Whether a row meets the targets
# shows in its order (those that meet them first) and its tooltip ("Ranked #1, short of a target: ...").
# Keys of io/compare_columns.COLUMNS.
DEFAULT_HIDDEN_COLUMNS: tuple[str, ...] = (
    "system_name", "systems", "tpot_seconds", "tokens_per_second", "cloud_cost_per_hour",
    "power_watts", "energy_kwh_per_million_tokens", "energy_kwh", "electricity_cost", "layout",
    "nodes", "per_gpu_total", "headroom_bytes", "price_per_hour", "list_price_usd",
    "ttft_seconds", "targets_met", "default_target_met",
    # the evidence band's columns: every row's tooltip states them; at 1280 px they would scroll
    "per_gpu_total_range", "memory_confidence", "speed_confidence", "tokens_per_second_per_user_range",
    "time_seconds_range", "rl_time_per_step_seconds_range", "rl_run_seconds_range",
    "training_cost_range", "energy_kwh_range", "electricity_cost_range", "cost_per_million_tokens_range",
)  # fmt: skip


@dataclass(frozen=True)
class HardwareView:
    """The Hardware tab's settings (``gpusizer-cli compare`` and ``chart --kind hardware``
    take the same flags; the window remembers them): the memory ``margin`` kept spare (the
    window's "GPUs needed" line uses it too), whole servers, the ranking (``SORTS``), the cost
    basis (``BASES``), electricity (USD/kWh), the years a purchase is spread over, the filters
    (``""`` = every vendor or class; memory as sold, GB), cards sold alone per box (None: the
    fewest that hold them), the user's own prices per GPU or system id ("My prices",
    core/sizing/prices.py), which override the catalog's, and the table's columns the user
    hid (io/compare_columns.COLUMNS keys; the window's table only). Margin, ranking, basis,
    cards per box and hidden columns are checked on creation, the prices and money by
    :meth:`check` (ScenarioError naming the field)."""

    margin: float | str = DEFAULT_MARGIN  # a share, or "band" (core/sizing/band_margin.py)
    whole_nodes: bool = False
    sort: str = "cost"
    basis: str = "cloud"
    electricity_usd_per_kwh: float = ELECTRICITY_USD_PER_KWH
    amortization_years: float = AMORTIZATION_YEARS
    utilization: float = UTILIZATION  # owning: share of the hours the machine works
    used_prices: bool = False  # owning: count used (resale) purchase prices
    vendor: str = ""
    category: str = ""
    min_memory_gb: float = 0.0
    cards_per_box: int | None = None
    prices: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    hidden_columns: tuple[str, ...] = DEFAULT_HIDDEN_COLUMNS

    def __post_init__(self) -> None:
        if self.margin != "band":  # sized to the evidence band's upper edge
            check_margin(cast(float, self.margin))
        check_cards_per_box(self.cards_per_box)
        hidden = self.hidden_columns
        if not isinstance(hidden, (list, tuple)) or not all(
            isinstance(k, str) and k.isidentifier() for k in hidden
        ):
            raise ScenarioError("hidden_columns", f"must be a list of column keys; got {hidden!r}")
        object.__setattr__(self, "hidden_columns", tuple(dict.fromkeys(hidden)))  # a list read back
        for name, allowed in (("sort", SORTS), ("basis", BASES)):
            if getattr(self, name) not in allowed:
                raise ScenarioError(name, f"must be one of {', '.join(allowed)}; got {getattr(self, name)!r}")

    def check(self) -> HardwareView:
        """Itself if every value is allowed (prices, electricity, years too)."""
        self.money()
        return self

    def money(self) -> Money:
        """How the options are priced (core/sizing/compare_rank.Money; checks the prices)."""
        from ..sizing.compare_rank import Money

        return Money(
            self.prices,
            self.electricity_usd_per_kwh,
            self.amortization_years,
            self.basis,
            self.utilization,
            self.used_prices,
        )

    def search_args(self) -> dict[str, Any]:
        """What the search depends on (``size_gpus``' keywords); the rest is pricing, redone
        cheaply without searching again."""
        return {"margin": self.margin, "whole_nodes": self.whole_nodes, "cards_per_box": self.cards_per_box}

    def with_price(self, gpu: str, key: str, value: float | None) -> HardwareView:
        """A copy with the user's price of one GPU set (None: back to the catalog's)."""
        from ..sizing.prices import check_prices

        prices = {g: dict(p) for g, p in self.prices.items()}
        mine = prices.setdefault(gpu, {})
        if value is None:
            mine.pop(key, None)
        else:
            mine[key] = float(value)
        check_prices(prices)
        return replace(self, prices={g: p for g, p in prices.items() if p})


def serving_kind() -> WorkloadKind | None:
    """The first kind of the registry that serves rather than trains (the hint's "Choose
    Inference")."""
    return next((k for k in WORKLOAD_KINDS.values() if k.serves), None)


@dataclass(frozen=True)
class ChartView:
    """One chart. ``view`` is its default settings object (None: it has none); ``aliases``
    are older keys still accepted (saved command lines, scripts). ``serving_only`` and
    ``training_only``: the kinds of work it has something to say about (the window shows a
    hint instead, the CLI refuses, the report leaves it out)."""

    key: str
    label: str  # tab label
    caption: str  # heading in a report
    renderer: str  # "package.module:Class", imported lazily by the window
    aliases: tuple[str, ...] = ()
    view: Any = None
    serving_only: bool = False  # about serving: a training scenario gets a hint instead
    training_only: bool = False  # about training: a serving scenario gets a hint instead
    phased_only: bool = False  # about a step of phases (RL): other kinds get a hint instead

    def applies_to(self, kind: WorkloadKind) -> bool:
        """Whether the chart has something to say about this kind of work."""
        # a kind made of roles may both train and serve: every chart of either applies
        if self.phased_only and not kind.phased:
            return False
        return not ((self.serving_only and not kind.serves) or (self.training_only and not kind.trains))

    def hint(self, kind: WorkloadKind) -> str:
        """Why the chart shows nothing for this kind ("" when it applies): one sentence."""
        if self.applies_to(kind):
            return ""
        if self.phased_only:
            other = next((k for k in WORKLOAD_KINDS.values() if k.phased), None)
            if other is None:
                return f"{self.caption}: a question about a step of phases."
            # "a question about a step of phases" after a caption about phases said nothing new
            choose = "Choose it as the workload kind to see it."
            return f"{self.caption}: a question about {other.label}. {choose}"
        if self.serving_only:
            other = serving_kind()
            choose = f"Choose {other.label} as the workload kind to see it." if other else ""
            return f"{self.caption}: a serving question. {choose}".strip()
        return f"{self.caption}: a training question. Choose a training workload kind to see it."

    def check_applies(self, kind: WorkloadKind) -> None:
        """ScenarioError (field ``kind``, the :meth:`hint`) when the chart does not apply."""
        hint = self.hint(kind)
        if hint:
            raise ScenarioError("kind", hint)

    @property
    def file_name(self) -> str:
        """The chart's file in a report folder and the default export name (``memory.png``)."""
        return f"{self.key}.png"


CHARTS: dict[str, ChartView] = {}


def register(chart: ChartView) -> ChartView:
    """Add a chart (a DuplicateId if its key is taken); the registry's order is the tabs'."""
    return add(CHARTS, chart.key, chart, "chart")


def chart_view(key: str) -> ChartView:
    """The chart with this key or alias; ScenarioError naming the keys otherwise."""
    if key in CHARTS:
        return CHARTS[key]
    for chart in CHARTS.values():
        if key in chart.aliases:
            return chart
    raise ScenarioError("kind", f"must be one of {', '.join(CHARTS)}; got {key!r}")


def with_settings(view: Any, **settings: Any) -> Any:
    """The view with the given settings (None values and settings the view does not have
    are ignored: one command line serves every chart); checked on creation."""
    names = {f.name for f in fields(view)}
    return replace(view, **{k: v for k, v in settings.items() if v is not None and k in names})


def view_with(chart: ChartView, **settings: Any) -> Any:
    """The chart's default view with the given settings (None: it has no view)."""
    return None if chart.view is None else with_settings(chart.view, **settings)


def charts_for(kind: WorkloadKind) -> list[ChartView]:
    """The charts that have something to say about this kind of work, in order."""
    return [c for c in CHARTS.values() if c.applies_to(kind)]


def chart_keys(aliases: bool = False) -> list[str]:
    """Every chart key in order (with ``aliases``: the old keys too, for argument parsers)."""
    keys = list(CHARTS)
    return keys + [a for c in CHARTS.values() for a in c.aliases] if aliases else keys


for _c in (
    ChartView("memory", "Memory", "Memory per GPU", "gpusizer.gui.charts.memory:MemoryChart"),
    ChartView(
        "variants",
        "Training vs inference",
        "Training vs inference",
        "gpusizer.gui.charts.variants:VariantsChart",
        aliases=("compare",),
    ),
    ChartView("roofline", "Roofline", "Roofline", "gpusizer.gui.charts.roofline:RooflineChart"),
    ChartView("sweep", "Sweeps", "Memory sweeps", "gpusizer.gui.charts.sweep:SweepChart", view=SweepView()),
    # The serving engine's capacity curve (core/views/capacity.py)
    ChartView(
        "capacity",
        "Users vs context",
        "Users vs context that fit",
        "gpusizer.gui.charts.capacity:CapacityChart",
        serving_only=True,
    ),
    # Tokens/s with the serving features and without (core/views/features.py)
    ChartView(
        "features",
        "Serving features",
        "Tokens/s with and without the serving features",
        "gpusizer.gui.charts.features:FeaturesChart",
        serving_only=True,
    ),
    ChartView(
        "hardware",
        "Hardware",
        "Every GPU type: cost against speed",
        "gpusizer.gui.charts.hardware:HardwareChart",
        view=HardwareView(),
    ),
    # One RL step's phases and the moves between them (core/views/rl_timeline.py)
    ChartView(
        "rl_timeline",
        "RL step",
        "One RL step: its phases on a time line",
        "gpusizer.gui.charts.rl_timeline:RLTimelineChart",
        phased_only=True,
    ),
):
    register(_c)
