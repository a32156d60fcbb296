"""Assumptions panel: the efficiency factors behind the times and the runtime overhead.

These are explicit settings with defaults (issue "roofline": efficiency factors are shown to the
user, not hidden constants); ``framework default`` leaves an overhead figure to the framework.
"""

from __future__ import annotations

from ..binding import Binder
from ..quantity_field import QuantityField
from .base import Panel
from .buyer_rows import TIME_SHARE, add_time_share, show_time_share, training_or_held

_MIB = 2**20


_FACTORS = (
    ("Training MFU", "compute.mfu", "spin_mfu"),
    ("FLOP/s efficiency", "compute.flops_efficiency", "spin_flops_efficiency"),
    ("Bandwidth efficiency", "compute.bandwidth_efficiency", "spin_bandwidth_efficiency"),
    ("Interconnect eff.", "compute.interconnect_efficiency", "spin_interconnect_efficiency"),
)


class AssumptionsPanel(Panel):
    """Builds the Assumptions group: MFU and roofline efficiencies, overhead, GPU price."""

    title = "Assumptions"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        f = self.form
        for label, field, name in _FACTORS:
            # Training MFU: empty = from the layout's step time (core/speed/train_step.py)
            none = "from the layout" if field == "compute.mfu" else ""
            f.add(label, QuantityField("percent", field, step=0.01, none_text=none), field, name=name)
        self.time_share = add_time_share(f)  # restarts and lost work (core/speed/goodput.py)
        default = "framework default"
        f.add(
            "CUDA context",
            QuantityField("bytes", "overhead.cuda_context_bytes", step=50 * _MIB, none_text=default),
            "overhead.cuda_context_bytes",
            name="spin_cuda_context",
        )
        f.add(
            "Workspaces",
            QuantityField("bytes", "overhead.workspace_bytes", step=64 * _MIB, none_text=default),
            "overhead.workspace_bytes",
            name="spin_workspace",
        )
        f.add(
            "Allocator slack",
            QuantityField("percent", "overhead.allocator_fraction", step=0.01, none_text=default),
            "overhead.allocator_fraction",
            name="spin_allocator_fraction",
        )
        self.state.changed.connect(self.refresh)
        self.state.estimateChanged.connect(self.show_sizes)
        self.refresh()
        self.show_sizes(self.state.estimate)

    def show_sizes(self, est: object) -> None:
        show_time_share(self.time_share, est)

    def refresh(self) -> None:
        kind = self.kind()
        training = kind is not None and kind.trains
        self.form.show("compute.mfu", training)
        self.form.show(TIME_SHARE, training_or_held(self.state, kind, TIME_SHARE))
        for key in (
            "compute.flops_efficiency",
            "compute.bandwidth_efficiency",
            "compute.interconnect_efficiency",
        ):
            self.form.show(key, not training)
