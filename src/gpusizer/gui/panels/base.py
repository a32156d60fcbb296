"""What every panel shares: a titled form bound to the state, named after its title."""

from __future__ import annotations

from ...core.registry.workloads import WORKLOAD_KINDS, WorkloadKind
from ..binding import Binder
from ..widgets import Form


class Panel:
    """A group box of fields (``form``) editing the state's scenario; ``box`` is the widget."""

    title = ""
    unit = "GiB"  # the sizes a panel writes itself, in the unit the View menu chose

    def __init__(self, binder: Binder) -> None:
        self.state = binder.state
        self.form = Form(binder, self.title)
        self.box = self.form.box
        self.box.setObjectName("panel_" + self.title.lower())
        self.forms = [self.form]  # with any collapsible sections' (gui/collapsible.py): captions aligned

    def set_shown(self, shown: bool) -> None:
        """Show or hide the panel. Before the window takes the box (a panel refreshes as it is
        made) showing it would open it as a window of its own for a moment (the offscreen
        platform warned "does not support propagateSizeHints()"): a box never hidden shows
        with its parent anyway (a panel refreshes once before it has one)."""
        if shown and self.box.parent() is None:
            return
        self.box.setVisible(shown)

    def set_units(self, unit: str) -> None:
        """``"GiB"`` or ``"GB"``, as the View menu chose (gui/window_commands.py): the panels
        that write sizes in their own words (host RAM, usable memory, an RL phase's peak)
        write them again."""
        self.unit = unit
        if self.state.estimate is not None:
            self.show_sizes(self.state.estimate)

    def show_sizes(self, est: object) -> None:
        """Write the sizes this panel shows of the estimate (none here)."""

    def kind(self) -> WorkloadKind | None:
        """The scenario's kind of work (core/registry/workloads.py), or None while the field holds an
        unknown id."""
        return WORKLOAD_KINDS.get(str(self.state.value("workload.kind")))
