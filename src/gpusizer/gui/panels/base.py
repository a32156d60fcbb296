"""What every panel shares: a titled form bound to the state, named after its title."""

from __future__ import annotations

from ...core.registry.workloads import WORKLOAD_KINDS, WorkloadKind
from ..binding import Binder
from ..widgets import Form


class Panel:
    """A group box of fields (``form``) editing the state's scenario; ``box`` is the widget."""

    title = ""

    def __init__(self, binder: Binder) -> None:
        self.state = binder.state
        self.form = Form(binder, self.title)
        self.box = self.form.box
        self.box.setObjectName("panel_" + self.title.lower())

    def kind(self) -> WorkloadKind | None:
        """The scenario's kind of work (core/registry/workloads.py), or None while the field holds an
        unknown id."""
        return WORKLOAD_KINDS.get(str(self.state.value("workload.kind")))
