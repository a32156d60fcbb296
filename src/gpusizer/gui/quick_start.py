"""What the window's start does differently from a plain import of its modules, each measured
on the 2-core development machine (benchmarks/bench_gui.py's docstring, fourth pass): no
garbage collection while the modules load, PySide6's source scan answered by package, one
OpenBLAS thread. Nothing here imports Qt: the first of them runs before Qt loads.
"""

from __future__ import annotations

import gc
import os
import sys
from typing import Any


def collect_nothing_while_starting() -> None:
    """No garbage collection while the modules load: each of the collections Python runs as
    they allocate scans every object made so far, ~0.045 s of CPU before the first frame
    (~115 collections, one of them full; measured with ``gc.callbacks`` on the 2-core
    development machine) for almost no garbage, as what modules build lives as long as the
    app. The window turns automatic collection off anyway (gui/gc_guard.py); this only starts
    it earlier. Called again once the modules are in: ``gc.freeze`` sets what they made aside
    (uncollected) so that the window's collector, whose timer may come before the first
    chart, scans only what the window makes; ``freeze_startup_heap`` (gui/app.py) collects
    it all."""
    gc.disable()
    gc.freeze()


# Packages whose modules need no source scan by PySide6 (see known_packages_unscanned): the
# answer the scan would give, by package. The window's own modules and pyqtgraph use Qt.
_USES_PYSIDE = {"gpusizer": True, "pyqtgraph": True, "numpy": False}


def known_packages_unscanned() -> None:
    """PySide6 reads the whole source of each module imported after it, to see whether it
    names "PySide6" (shibokensupport ``feature.py``, ``_mod_uses_pyside``: such a module may
    say ``from __feature__ import snake_case``): ~0.1 ms a module, ~420 modules seen after
    it at start (the window's, pyqtgraph's, numpy's, the standard library's), 0.05-0.06 s of
    CPU before the first chart, 0.02 s with the shortcut without the standard library (both
    measured on the 2-core development machine). The answer for those packages is known
    without reading them; any other module is still read. Neither answer changes anything
    while no module selects a feature, and none does here."""
    feature = sys.modules.get("shibokensupport.feature")
    scan = getattr(feature, "_mod_uses_pyside", None)
    if scan is None or getattr(scan, "gpusizer", False):
        return

    def uses_pyside(module: Any) -> bool:
        top = str(getattr(module, "__name__", "")).partition(".")[0]
        known = False if top in sys.stdlib_module_names else _USES_PYSIDE.get(top)
        return scan(module) if known is None else known

    uses_pyside.gpusizer = True  # type: ignore[attr-defined]  # installed once
    feature._mod_uses_pyside = uses_pyside  # type: ignore[union-attr]


BLAS_THREADS_ENV = "OPENBLAS_NUM_THREADS"


def one_blas_thread() -> None:
    """numpy's OpenBLAS (its Linux and Windows wheels) starts a thread per core when numpy is
    imported, and those threads spin while they wait for work: 0.07-0.13 s of CPU during the
    start on the 2-core development machine (the process's CPU time to the first chart
    0.71-0.77 s with them, 0.63-0.65 s without; wall 0.66-0.73 -> 0.62-0.65 s), taken from
    the core the window runs on when the machine is busy. The window does no linear algebra
    (its numpy work is element-wise: charts, sweeps), so one thread; a value the user set
    is kept. Read by OpenBLAS when it loads (OpenBLAS README, "Setting the number of
    threads using environment variables")."""
    os.environ.setdefault(BLAS_THREADS_ENV, "1")
