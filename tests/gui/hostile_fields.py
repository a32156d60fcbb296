"""Hostile values typed into one field of the window, in turn, from a valid scenario: each is
refused beside its widget with the last valid scenario kept (tests/gui/test_hostile_rl_gui.py
``refused``), and the field's valid value typed back clears the error. Shared by the per-round
GUI hostile-input tests (tests/gui/test_hostile_round44_gui.py, test_hostile_round45_gui.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .helpers import open_rl_sections, set_scenario
from .test_hostile_rl_gui import refused


def each_refused_beside(
    window: Any, start: dict[str, Any], path: str, widget: str, values: Iterable[Any]
) -> None:
    """From ``start`` (RL sections open), every one of ``values`` at ``path`` is refused beside
    ``widget``; the field's starting value typed back leaves no error."""
    set_scenario(window, start)
    open_rl_sections(window)
    good = window.state.value(path)
    for value in values:
        refused(window, path, value, widget)
    window.state.edit(path, good, immediate=True)
    assert window.state.error is None, (path, window.state.error)
