"""Charts of an estimate, one pyqtgraph widget per kind (see base.ChartBase for the API).

``CHARTS[kind](parent)`` builds one; ``update_from(scenario, estimate)`` fills it;
``export_png``/``export_svg``/``data_csv``/``copy_to_clipboard`` take it out of the app.
"""

from __future__ import annotations

# gpusizer.gui (imported first) works around PySide6 6.12.0's lost references to None/True/
# False on Python 3.11: without it a few thousand redraws abort the process.
from .base import ChartBase
from .compare import CompareChart
from .memory import MemoryChart
from .roofline import RooflineChart
from .sweep import SweepChart

CHARTS: dict[str, type[ChartBase]] = {
    "memory": MemoryChart,
    "compare": CompareChart,
    "roofline": RooflineChart,
    "sweep": SweepChart,
}

__all__ = ["CHARTS", "ChartBase", "CompareChart", "MemoryChart", "RooflineChart", "SweepChart"]
