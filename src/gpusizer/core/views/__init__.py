"""Chart data computed from scenarios: sweeps, users vs context, training vs inference
variants, and the registry of chart views and their settings (:mod:`.settings`, re-exported
here: the contract names ``gpusizer.core.views.CHARTS``)."""

from .settings import (
    CHARTS,
    SWEEP_AXES,
    ChartView,
    HardwareView,
    SweepView,
    chart_keys,
    chart_view,
    charts_for,
    register,
    view_with,
)

__all__ = [
    "CHARTS",
    "SWEEP_AXES",
    "ChartView",
    "HardwareView",
    "SweepView",
    "chart_keys",
    "chart_view",
    "charts_for",
    "register",
    "view_with",
]
