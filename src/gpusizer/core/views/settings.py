"""Views of an estimate: the chart registry, and the view settings each chart keeps.

A chart is one :class:`ChartView` entry: its key (``gpusizer-cli chart --kind``, ``gpusizer
--tab``, the window's tab), its tab label, its caption and file name in a report, and its
renderer, a ``module:Class`` path that only the window (or ``gpusizer-cli chart``) imports,
when the chart is first needed: the core never imports Qt. Adding a chart is one
:func:`register` call plus the chart's own module.

Settings of a view that are not part of the scenario (the sweep's axis) live in a small frozen
state object per chart (glue's one state object per view), not in a widget, so the CLI sets
them as the window does.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from ..errors import ScenarioError

SWEEP_AXES = ("sequence_length", "batch_size", "gpus")


@dataclass(frozen=True)
class SweepView:
    """The sweep chart's settings: which knob is swept (``SWEEP_AXES``)."""

    axis: str = "sequence_length"

    def __post_init__(self) -> None:
        if self.axis not in SWEEP_AXES:
            raise ScenarioError("axis", f"must be one of {', '.join(SWEEP_AXES)}; got {self.axis!r}")


@dataclass(frozen=True)
class ChartView:
    """One chart. ``view`` is its default settings object (None: it has none); ``aliases``
    are older keys still accepted (saved command lines, scripts)."""

    key: str
    label: str  # tab label
    caption: str  # heading in a report
    renderer: str  # "package.module:Class", imported lazily by the window
    aliases: tuple[str, ...] = ()
    view: Any = None
    serving_only: bool = False  # about serving: a training scenario gets a hint instead

    def applies_to(self, is_training: bool) -> bool:
        """Whether the chart has something to say about this kind of work."""
        return not (self.serving_only and is_training)

    @property
    def file_name(self) -> str:
        """The chart's file in a report folder and the default export name (``memory.png``)."""
        return f"{self.key}.png"


CHARTS: dict[str, ChartView] = {}


def register(chart: ChartView) -> ChartView:
    """Add (or replace) a chart; the registry's order is the tabs' order."""
    CHARTS[chart.key] = chart
    return chart


def chart_view(key: str) -> ChartView:
    """The chart with this key or alias; ScenarioError naming the keys otherwise."""
    if key in CHARTS:
        return CHARTS[key]
    for chart in CHARTS.values():
        if key in chart.aliases:
            return chart
    raise ScenarioError("kind", f"must be one of {', '.join(CHARTS)}; got {key!r}")


def view_with(chart: ChartView, **settings: Any) -> Any:
    """The chart's default view with the given settings (None values and settings the view
    does not have are ignored: one command line serves every chart)."""
    if chart.view is None:
        return None
    names = {f.name for f in fields(chart.view)}
    return replace(chart.view, **{k: v for k, v in settings.items() if v is not None and k in names})


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
    # Issue 11: the serving engine's capacity curve (core/capacity.py)
    ChartView(
        "capacity",
        "Users vs context",
        "Users vs context that fit",
        "gpusizer.gui.charts.capacity:CapacityChart",
        serving_only=True,
    ),
    ChartView(
        "hardware",
        "Hardware",
        "Every GPU type: cost against speed",
        "gpusizer.gui.charts.hardware:HardwareChart",
    ),
):
    register(_c)
