"""A disabled field says why in its tooltip: "Not available: <reason>." after the field's own
definition (gui/glossary.py), on the caption and the widget both, so a reader who hovers the
greyed row learns what would enable it instead of guessing."""

from __future__ import annotations

from typing import Any

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
