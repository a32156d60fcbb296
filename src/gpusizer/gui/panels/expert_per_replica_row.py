"""The Parallelism panel's "EP within each engine" box (``parallelism.expert_per_replica``,
core/serving/expert_per_replica.py): N independent engines of TP with EP inside, as vLLM's users
run ``--tensor-parallel-size 8 --enable-expert-parallel`` per engine behind a router. Shown for
serving (the field is refused for training), live for a MoE model on an engine with expert
parallelism inside TP, greyed elsewhere with the reason in its tooltip (gui/why_disabled.py);
enabled while ticked, so it can be unticked. A refusal shows beside it (the core's error names
the field)."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QCheckBox

from ..state import get_path
from ..why_disabled import framework_lacks, refresh_optional_box
from ..widgets import Form

PATH = "parallelism.expert_per_replica"
NAME = "check_expert_per_replica"


def add_expert_per_replica(form: Form) -> None:
    """The box, after the EP rows."""
    form.add("", QCheckBox("EP within each engine"), PATH, name=NAME)


def expert_per_replica_reason(value: Any) -> str:
    """Why the box changes nothing here ("" where it applies); ``value`` reads a dotted path."""
    if get_path(value("model"), "moe") is None:
        return "the model is dense: no routed experts to split"
    return framework_lacks(
        value, lambda p: bool(p.expert_in_tensor_flag), "has no expert parallelism inside tensor parallelism"
    )


def refresh_expert_per_replica(form: Form, value: Any, training: bool) -> None:
    """Shown for serving (or while ticked), enabled where it applies or while ticked."""
    refresh_optional_box(form, PATH, bool(value(PATH)), not training, expert_per_replica_reason(value))


def engines_note(value: Any) -> str:
    """The engines the ticked box makes of the layout, in the report's words ("19 engines of TP 8
    with EP 8", core/sizing/layout_tpep.py), on a line of its own under the GPU count; ""
    unticked. The panel's GPU count alone read as one engine of TP x DP."""
    if not value(PATH):
        return ""
    tp, ep, dp = (int(value(f"parallelism.{k}") or 1) for k in ("tensor", "expert", "data"))
    return f"<br>{dp:,} engine{'s' if dp != 1 else ''} of TP {tp} with EP {ep}"
