"""Hostile input, round 4 (GUI side): settings that cannot stop a start, heavy valid scenarios
off the GUI thread, long names elided before any text layout, ``--screenshot`` writes, and
the status bar and tooltips after a refused import or a file named with markup."""

from __future__ import annotations

import pytest

from gpusizer.core.views.settings import HardwareView
from gpusizer.gui.hardware.settings import KEY as HARDWARE_KEY
from gpusizer.gui.main_window import MainWindow
from gpusizer.gui.settings import Prefs

from .helpers import mismatches


def _start(qtbot) -> MainWindow:
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    return w


@pytest.mark.parametrize(
    "stored",
    ["[" * 100_000, '{"margin": ' * 100_000 + "0.1" + "}" * 100_000, "{" + " " * (3 * 2**20) + "}"],
    ids=["nested-array", "nested-object", "huge"],
)
def test_a_nested_or_huge_hardware_view_falls_back_and_says_so(qtbot, temp_settings, stored):
    """A remembered Hardware view nested 100,000 deep raised RecursionError in json.loads at
    every start (gui/hardware/settings.py), until the settings file was removed by hand."""
    prefs = Prefs()
    prefs.qs.setValue(HARDWARE_KEY, stored)
    prefs.sync()
    w = _start(qtbot)
    assert "Hardware tab settings" in w.statusBar().currentMessage()
    assert w.hardware_view().margin == HardwareView().margin  # the defaults
    assert mismatches(w.binder) == []


def test_an_overlong_recent_file_entry_is_dropped(temp_settings):
    prefs = Prefs()
    prefs.qs.setValue("files/recent", ["/tmp/" + "x" * 1_040_000 + ".json", "/tmp/a.json"])
    assert prefs.recent_files() == ["/tmp/a.json"]
