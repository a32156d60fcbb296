"""Targets panel: serving, the users to serve at once, the speed each must see and the longest
wait for the first token (unset: the stated default target, core/sizing/service_level.py,
which a check box clears); training, the deadline (``targets.max_training_days``); every kind,
a purchase budget (``targets.max_purchase_usd``, core/sizing/budget.py). The Hardware tab sizes
every GPU to meet them (core/sizing/compare_scale.py); the estimate itself does not use them."""

from __future__ import annotations

from PySide6.QtWidgets import QCheckBox, QWidget

from ...core.sizing.service_level import DEFAULT, SOURCE
from ..binding import Binder
from ..quantity_field import QuantityField
from .base import Panel

NOT_SET = "not set"


def _tip(widget: QWidget, text: str) -> QWidget:
    widget.setToolTip(text)
    return widget


class TargetsPanel(Panel):
    """Builds the Targets group: the serving rows, or the deadline when training."""

    title = "Targets"

    def __init__(self, binder: Binder) -> None:
        super().__init__(binder)
        self.box.setObjectName("panel_targets")
        self._serving_rows()
        self._training_rows()
        self._budget_row()
        self.state.changed.connect(self.refresh)
        self.refresh()

    def _serving_rows(self) -> None:
        """The users, the speed each must see, the first-token wait and the default's switch."""
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
                    "number",
                    "targets.min_tokens_per_second_per_user",
                    unit="tokens/s",
                    none_text=f"default target: {DEFAULT.min_tokens_per_second_per_user:g} tokens/s",
                ),
                "Output tokens per second each user must see, at least "
                f"(targets.min_tokens_per_second_per_user). Unset: the default target ({SOURCE}).",
            ),
            "targets.min_tokens_per_second_per_user",
            name="spin_target_speed",
        )
        f.add(
            "First token within",
            _tip(
                QuantityField(
                    "number",
                    "targets.max_ttft_seconds",
                    step=0.1,
                    unit="s",
                    none_text=f"default target: {DEFAULT.max_ttft_seconds:g} s",
                ),
                f"The longest time to first token allowed (targets.max_ttft_seconds). Unset: the default "
                f"target ({SOURCE}).",
            ),
            "targets.max_ttft_seconds",
            name="spin_target_ttft",
        )
        f.add(
            "",
            _tip(
                QCheckBox("Use the default target where unset"),
                "Options that miss the stated default service level rank after those that meet it "
                f"(targets.default_service_level; {SOURCE}). Clear it to rank by cost or speed alone.",
            ),
            "targets.default_service_level",
            name="check_target_default",
        )

    def _training_rows(self) -> None:
        """The training deadline."""
        self.form.add(
            "Deadline",
            _tip(
                QuantityField("number", "targets.max_training_days", unit="days", none_text=NOT_SET),
                "Train workload.training_tokens within this many days (targets.max_training_days): "
                "the Hardware tab grows each GPU's data-parallel replicas until they do.",
            ),
            "targets.max_training_days",
            name="spin_target_deadline",
        )

    def _budget_row(self) -> None:
        """The purchase budget, for every kind of work."""
        self.form.add(
            "Purchase budget",
            _tip(
                QuantityField("number", "targets.max_purchase_usd", step=1000, unit="USD", none_text=NOT_SET),
                "Spend at most this much on what an option buys, its GPUs and their server or host "
                "as the catalog prices them (targets.max_purchase_usd): the Hardware tab ranks the "
                "options over it after those within it and says by how much they are over.",
            ),
            "targets.max_purchase_usd",
            name="spin_target_budget",
        )

    def refresh(self) -> None:
        kind = self.kind()
        self.set_shown(kind is not None)
        training = kind is not None and kind.trains
        for key in (
            "targets.users",
            "targets.min_tokens_per_second_per_user",
            "targets.max_ttft_seconds",
            "targets.default_service_level",
        ):
            self.form.show(key, kind is not None and kind.serves)
        self.form.show("targets.max_training_days", training)
