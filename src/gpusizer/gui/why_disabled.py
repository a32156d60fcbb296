"""A disabled field says why in its tooltip: "Not available: <reason>." after the field's own
definition (gui/glossary.py), on the caption and the widget both, so a reader who hovers the
greyed row learns what would enable it instead of guessing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..core.registry.framework_profile import FrameworkProfile
from ..core.registry.frameworks import FRAMEWORKS
from .glossary import tooltip_for

PREFIX = "Not available:"


def explain_disabled(form: Any, path: str, reason: str, note: str = "") -> None:
    """Set the tooltips of ``form``'s row ``path`` (a gui/widgets.py Form): its definition,
    then ``note`` (e.g. the stack's default) and "Not available: ``reason``." where not empty."""
    tip = tooltip_for(path)
    if note:
        tip = f"{tip}\n\n{note}" if tip else note
    if reason:
        tip = f"{tip}\n\n{PREFIX} {reason}." if tip else f"{PREFIX} {reason}."
    form.labels[path].setToolTip(tip)
    for b in form.binder.bindings:
        if b.path == path:
            b.widget.setToolTip(tip)


def refresh_optional_box(form: Any, path: str, ticked: bool, shown: bool, reason: str) -> None:
    """A checkbox row that applies only to some runs: shown where ``shown`` or while ticked,
    enabled where it applies (``reason`` empty) or while ticked, so a file's tick stays
    editable, and its tooltip saying why it is greyed otherwise."""
    form.show(path, shown or ticked)
    enabled = not reason or ticked
    form.enable(path, enabled)
    explain_disabled(form, path, "" if enabled else reason)


def framework_lacks(value: Any, has: Callable[[FrameworkProfile], bool], lacks: str) -> str:
    """ "" where the scenario's framework (``value`` reads a dotted path) has what ``has`` asks;
    else "<its label> ``lacks``" ("this framework" for an unknown id), a greyed box's reason."""
    profile = FRAMEWORKS.get(str(value("framework")))
    if profile is not None and has(profile):
        return ""
    return f"{profile.label if profile is not None else 'this framework'} {lacks}"
