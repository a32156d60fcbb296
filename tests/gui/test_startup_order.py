"""Start-up order: the probe's chart moment (the first chart painted with its data and the
verdict shown), and the advice asked only once the charts start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gpusizer.gui.main_window import MainWindow


def test_chart_probe_reports_both_moments(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "GPUSIZER_STARTUP_PROBE": "chart",
        "GPUSIZER_SETTINGS_DIR": str(tmp_path),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "gpusizer.gui.app"], env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    said = {" ".join(x.split()[:2]): float(x.split()[2]) for x in proc.stdout.splitlines()}
    assert 0 < said["first frame"] <= said["first chart"]


def test_advice_waits_for_the_first_chart(qtbot, monkeypatch) -> None:
    w = MainWindow(restore=False, defer_charts=True)
    qtbot.addWidget(w)
    asked: list[object] = []
    monkeypatch.setattr(w.advisor, "request", asked.append)
    assert w.tabs.deferred and not w.tabs.charts
    assert not w.shortcuts.listening  # its application-wide filter starts with the charts
    w.resize(1280, 720)
    w.show()
    qtbot.waitUntil(lambda: not w.tabs.deferred, timeout=10_000)
    assert w.tabs.current_chart() is not None
    assert asked == [w.state.estimate.scenario]
    assert w.shortcuts.listening


GARBAGE = """
import gc, weakref
from gpusizer.gui.app import freeze_startup_heap
from gpusizer.gui.quick_start import collect_nothing_while_starting
collect_nothing_while_starting()
class Node: pass
a, b = Node(), Node(); a.other, b.other = b, a  # a cycle made while the modules load
gone = weakref.ref(a); del a, b
collect_nothing_while_starting()
print(gc.isenabled(), gc.get_freeze_count() > 0, gc.collect(), gone() is not None)
freeze_startup_heap()
print(gone() is None, gc.get_freeze_count() > 0)
"""


def test_startup_garbage_waits_for_the_heap_freeze() -> None:
    """No collection while the modules load, nothing of theirs scanned by the window's
    collector before the first chart (frozen), all of it collected at the heap freeze."""
    proc = subprocess.run([sys.executable, "-c", GARBAGE], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split() == ["False", "True", "0", "True", "True", "True"]


def test_known_packages_skip_pysides_source_scan(monkeypatch) -> None:
    """PySide6's feature check answers for the window's, pyqtgraph's, numpy's and the standard
    library's modules without reading their source; any other module is still read."""
    import json
    import types

    import PySide6.QtCore  # noqa: F401  (its feature module loads with it)

    import gpusizer.gui.main_window as own
    from gpusizer.gui.quick_start import known_packages_unscanned

    feature = sys.modules["shibokensupport.feature"]
    read: list[str] = []
    original = feature._mod_uses_pyside

    def scan(module: types.ModuleType) -> bool:
        read.append(module.__name__)
        return bool(original(module))

    monkeypatch.setattr(feature, "_mod_uses_pyside", scan)
    known_packages_unscanned()
    other = types.ModuleType("somebody_elses")
    assert feature._mod_uses_pyside(own) is True
    assert feature._mod_uses_pyside(json) is False
    assert feature._mod_uses_pyside(other) is False
    assert read == ["somebody_elses"]
    known_packages_unscanned()  # once: not wrapped twice
    feature._mod_uses_pyside(own)
    assert read == ["somebody_elses"]


def test_one_blas_thread_unless_the_user_set_it(monkeypatch) -> None:
    from gpusizer.gui.quick_start import BLAS_THREADS_ENV, one_blas_thread

    monkeypatch.delenv(BLAS_THREADS_ENV, raising=False)
    one_blas_thread()
    assert os.environ[BLAS_THREADS_ENV] == "1"
    monkeypatch.setenv(BLAS_THREADS_ENV, "4")
    one_blas_thread()
    assert os.environ[BLAS_THREADS_ENV] == "4"
