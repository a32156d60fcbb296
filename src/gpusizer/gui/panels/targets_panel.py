"""Serving targets panel (inference only): the users to serve at once, the speed each must
see and the longest wait for the first token. The Hardware tab sizes every GPU to meet them
(core/sizing/compare_scale.py); the estimate itself does not use them."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from ..binding import Binder
from ..quantity_field import QuantityField
from .base import Panel

NOT_SET = "not set"


def _tip(widget: QWidget, text: str) -> QWidget:
    widget.setToolTip(text)
    return widget


class TargetsPanel(Panel):
    """Builds the Serving targets group; hidden for training."""

    title = "Serving targets"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        self.box.setObjectName("panel_targets")
        f = self.form
        f.add(
            "Users to serve",
            _tip(
                QuantityField("count", "targets.users", none_text=NOT_SET),
                "Users served at the same time, over all replicas (targets.users): the speed "
                "and first-token targets are checked at this load. The Hardware tab adds "
                "replicas until each replica's share fits and is fast enough. Not set: one "
                "replica's batch.",
            ),
            "targets.users",
            name="spin_target_users",
        )
        f.add(
            "Speed per user",
            _tip(
                QuantityField(
                    "number", "targets.min_tokens_per_second_per_user", unit="tokens/s", none_text=NOT_SET
                ),
                "Output tokens per second each user must see, at least "
                "(targets.min_tokens_per_second_per_user).",
            ),
            "targets.min_tokens_per_second_per_user",
            name="spin_target_speed",
        )
        f.add(
            "First token within",
            _tip(
                QuantityField("number", "targets.max_ttft_seconds", step=0.1, unit="s", none_text=NOT_SET),
                "The longest time to first token allowed (targets.max_ttft_seconds).",
            ),
            "targets.max_ttft_seconds",
            name="spin_target_ttft",
        )
        self.state.changed.connect(self.refresh)
        self.refresh()

    def refresh(self) -> None:
        kind = self.kind()
        self.set_shown(kind is not None and not kind.is_training)
