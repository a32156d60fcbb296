"""The panels of the left column. Each reads and writes the scenario only through the state."""

from __future__ import annotations

from .assumptions_panel import AssumptionsPanel
from .hardware_panel import HardwarePanel
from .model_panel import ModelPanel
from .parallelism_panel import ParallelismPanel
from .precision_panel import PrecisionPanel
from .rl_panel import RLPanel
from .scenario_panel import ScenarioPanel
from .serving_panel import ServingPanel
from .targets_panel import TargetsPanel
from .training_panel import TrainingPanel
from .workload_panel import WorkloadPanel

PANELS = (
    ScenarioPanel,
    ModelPanel,
    WorkloadPanel,
    RLPanel,
    PrecisionPanel,
    ParallelismPanel,
    TrainingPanel,
    ServingPanel,
    TargetsPanel,
    HardwarePanel,
    AssumptionsPanel,
)

__all__ = [
    "PANELS",
    "AssumptionsPanel",
    "HardwarePanel",
    "ModelPanel",
    "ParallelismPanel",
    "PrecisionPanel",
    "RLPanel",
    "ScenarioPanel",
    "ServingPanel",
    "TargetsPanel",
    "TrainingPanel",
    "WorkloadPanel",
]
