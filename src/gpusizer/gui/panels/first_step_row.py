"""The Training panel's "Longest sample in step 0 only" box (``workload.first_step_longest``,
core/memory/last_step.py): the stated batch x sequence length is the first step's only, as
Lit-GPT's 2023 ``finetune/lora.py`` forces its longest sample into step 0. It changes the peak
only where the framework keeps its last step's outputs into the next forward
(``FrameworkProfile.holds_last_step``, LitGPT); elsewhere it is greyed with the reason in its
tooltip (gui/why_disabled.py), enabled while ticked so it can be unticked."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox

from ..why_disabled import framework_lacks, refresh_optional_box
from ..widgets import Form

PATH = "workload.first_step_longest"
NAME = "check_first_step_longest"


def add_first_step(form: Form) -> None:
    """The box, above the optimizer-step-in-backward box."""
    # null (the default) shows unticked: a box keeps what it shows for a null it cannot show
    form.add("", QCheckBox("Longest sample in step 0 only"), PATH, name=NAME, from_state=bool)


def first_step_reason(value: Any) -> str:
    """Why the box changes nothing here ("" where it applies); ``value`` reads a dotted path."""
    lacks = "keeps no last step's outputs into the next forward: every step peaks alike"
    return framework_lacks(value, lambda p: p.holds_last_step, lacks)


def refresh_first_step(form: Form, value: Any, training: bool) -> None:
    """Shown for training (or while ticked), enabled where it applies or while ticked."""
    refresh_optional_box(form, PATH, bool(value(PATH)), training, first_step_reason(value))
