"""Assumptions panel: the efficiency factors behind the times and the runtime overhead.

These are explicit settings with defaults (issue "roofline": efficiency factors are shown to the
user, not hidden constants); ``framework default`` leaves an overhead figure to the framework.
"""

from __future__ import annotations

from typing import Any

from ...core.workloads import WORKLOAD_KINDS
from ..binding import Binder
from ..widgets import float_spin, int_spin
from .base import Panel

_MIB = 2**20


def _percent(lo: float = 1.0) -> Any:
    return float_spin(lo, 100.0, 0, " %")


def _optional_mib(value: int | None) -> int:
    return -1 if value is None else round(value / _MIB)


def _optional_percent(value: float | None) -> float:
    return -1.0 if value is None else value * 100


class AssumptionsPanel(Panel):
    """Builds the Assumptions group: MFU and roofline efficiencies, overhead, GPU price."""

    title = "Assumptions"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        pct = {"to_state": lambda v: v / 100, "from_state": lambda v: v * 100}
        f.add("Training MFU", _percent(), "compute.mfu", name="spin_mfu", **pct)
        f.add("FLOP/s efficiency", _percent(), "compute.flops_efficiency",
              name="spin_flops_efficiency", **pct)
        f.add("Bandwidth efficiency", _percent(), "compute.bandwidth_efficiency",
              name="spin_bandwidth_efficiency", **pct)
        f.add("Interconnect eff.", _percent(), "compute.interconnect_efficiency",
              name="spin_interconnect_efficiency", **pct)
        f.add("CUDA context", int_spin(-1, 1_000_000, 50, " MiB", special="framework default"),
              "overhead.cuda_context_bytes", name="spin_cuda_context",
              to_state=lambda v: None if v < 0 else v * _MIB, from_state=_optional_mib)
        f.add("Workspaces", int_spin(-1, 1_000_000, 64, " MiB", special="framework default"),
              "overhead.workspace_bytes", name="spin_workspace",
              to_state=lambda v: None if v < 0 else v * _MIB, from_state=_optional_mib)
        f.add("Allocator slack", float_spin(-1.0, 100.0, 1, " %", special="framework default"),
              "overhead.allocator_fraction", name="spin_allocator_fraction",
              to_state=lambda v: None if v < 0 else v / 100, from_state=_optional_percent)
        self.state.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        kind = WORKLOAD_KINDS.get(str(self.state.value("workload.kind")))
        training = kind is not None and kind.is_training
        self.form.show("compute.mfu", training)
        for key in ("compute.flops_efficiency", "compute.bandwidth_efficiency",
                    "compute.interconnect_efficiency"):
            self.form.show(key, not training)
