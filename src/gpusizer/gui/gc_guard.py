"""Cyclic garbage collection in the GUI thread only.

Python runs a collection in whichever thread allocates past the threshold; with estimates,
searches and lists computed in worker threads (gui/worker.py) that is often a worker, and a
collection there that frees a Qt object caught in a reference cycle deletes it outside the
GUI thread: a segmentation fault (seen here in the tests: "Garbage-collecting" in the
advisor's thread). As pyqtgraph's ``util.garbage_collector.GarbageCollector`` does for the
same reason, automatic collection is turned off and the GUI thread collects on a timer, each
generation when its count passes the threshold it would have been collected at.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QTimer

INTERVAL_MS = 500
_NAME = "gpusizer_gc_guard"


class _Collector(QObject):
    def __init__(self, parent: QObject) -> None:
        super().__init__(parent)
        self.setObjectName(_NAME)
        self.threshold = gc.get_threshold()
        self.timer = QTimer(self, interval=INTERVAL_MS)
        self.timer.timeout.connect(self.check)
        self.timer.start()
        gc.disable()

    def check(self) -> None:
        counts = gc.get_count()
        for generation in (2, 1, 0):  # the oldest due takes the younger ones with it
            if counts[generation] > self.threshold[generation]:
                gc.collect(generation)
                return


def collect_in_gui_thread() -> None:
    """Install the collector once per application (the window calls it; idempotent)."""
    app = QCoreApplication.instance()
    if app is not None and app.findChild(QObject, _NAME) is None:
        _Collector(app)
