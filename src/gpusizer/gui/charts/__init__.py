"""Charts of an estimate, one pyqtgraph widget per registered chart (core/views/settings.py).

``chart_class(key)`` imports the chart's module only when it is first needed; a chart
instance's ``update_from(scenario, estimate)`` fills it and ``export_png``/``export_svg``/
``data_csv``/``copy_to_clipboard`` take it out of the app (see base.ChartBase).
"""

from __future__ import annotations

import importlib

from ...core.views.settings import chart_view
from .base import ChartBase


def chart_class(key: str) -> type[ChartBase]:
    """The widget class of a registered chart (key or alias), imported now."""
    module, _, name = chart_view(key).renderer.partition(":")
    cls = getattr(importlib.import_module(module), name)
    if not (isinstance(cls, type) and issubclass(cls, ChartBase)):
        raise TypeError(f"{chart_view(key).renderer} is not a chart class")
    return cls


__all__ = ["ChartBase", "chart_class"]
