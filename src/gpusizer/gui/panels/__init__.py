"""The panels of the left column. Each reads and writes the scenario only through the state."""

from __future__ import annotations

from .assumptions_panel import AssumptionsPanel
from .hardware_panel import HardwarePanel
from .model_panel import ModelPanel
from .parallelism_panel import ParallelismPanel
from .precision_panel import PrecisionPanel
from .training_panel import TrainingPanel
from .workload_panel import WorkloadPanel

PANELS = (ModelPanel, WorkloadPanel, PrecisionPanel, ParallelismPanel, TrainingPanel,
          HardwarePanel, AssumptionsPanel)

__all__ = ["PANELS", "AssumptionsPanel", "HardwarePanel", "ModelPanel", "ParallelismPanel", "PrecisionPanel",
           "TrainingPanel", "WorkloadPanel"]
