"""``gpusizer``: the desktop app.

    gpusizer                      open the window (on the last scenario)
    gpusizer FILE.gpusizer.json   open it on that scenario
    gpusizer --screenshot OUT.png [--scenario FILE] [--tab KEY]   (KEY: a chart of core/views)
                                  render the window to a PNG and exit 0

Qt and the estimator are imported inside :func:`main`, so ``--help`` and ``--version`` answer
at once and nothing heavy loads before the window needs it.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import sys
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .._version import __version__
from ..code_cache import cache_compiled_code
from ..entry import skip_pydantic_plugins
from .quick_start import collect_nothing_while_starting, known_packages_unscanned, one_blas_thread

if TYPE_CHECKING:
    from PySide6.QtCore import QObject
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

log = logging.getLogger("gpusizer")
EXIT_BAD_INPUT = 2
EXIT_NO_PLATFORM = 1  # the window cannot open here (missing X11 libraries)


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    from ..core.views.settings import chart_keys  # after the code cache is installed

    p = argparse.ArgumentParser(
        prog="gpusizer",
        description="GPU Sizer: how much GPU memory, and how many of which GPU, a model needs.",
    )
    p.add_argument("file", nargs="?", help="a scenario file (*.gpusizer.json) to open")
    p.add_argument("--screenshot", metavar="OUT.png", help="render the window to a PNG, exit")
    p.add_argument("--scenario", metavar="FILE", help="scenario for --screenshot")
    p.add_argument("--tab", choices=chart_keys(aliases=True), default="memory", help="chart tab to show")
    p.add_argument(
        "--size", default="1440x900", help="window size for --screenshot (WxH, 320x240 to 7680x4320)"
    )
    p.add_argument(
        "--check-libraries",
        action="store_true",
        help="list the X11 libraries the window needs, found or missing (in a "
        "frozen bundle: in the bundle), exit 1 if one is missing",
    )
    p.add_argument("--version", action="version", version=f"gpusizer {__version__}")
    return p.parse_args(argv)


def _headless_default() -> None:
    """Without a display, render offscreen instead of aborting (Qt exits 134 otherwise)."""
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and sys.platform.startswith(
        "linux"
    ):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def make_app() -> QApplication:
    """The QApplication with name, icon, style; warns when no font is found."""
    from PySide6.QtGui import QFontInfo
    from PySide6.QtWidgets import QApplication

    from .icon import app_icon
    from .style import apply_style

    existing = QApplication.instance()
    app = (
        existing
        if isinstance(existing, QApplication)
        else QApplication([sys.argv[0] if sys.argv else "gpusizer"])
    )
    app.setApplicationName("GPU Sizer")
    app.setOrganizationName("gpusizer")
    app.setApplicationVersion(__version__)
    app.setDesktopFileName("gpusizer")
    apply_style(app)
    app.setWindowIcon(app_icon())
    if not QFontInfo(app.font()).family():
        log.warning("no font found: text will not render (install fonts-dejavu-core)")
    return app


def _point_user_gpus_at_settings() -> None:
    from ..core.model.presets import USER_GPUS_ENV
    from .settings import settings_path

    os.environ.setdefault(USER_GPUS_ENV, str(settings_path().parent / "user-gpus.json"))


def _close(app: QApplication, window: MainWindow | None) -> None:
    """Delete the window before the QApplication goes (pitfall 1 of qt-headless.md)."""
    from PySide6.QtCore import QEvent

    if window is not None:
        window.deleteLater()
        app.sendPostedEvents(None, QEvent.Type.DeferredDelete)


def platform_problem() -> str:
    """Why the window cannot start here ("" when it can): printed as one line instead of
    letting Qt abort with a core dump."""
    from .platform_check import check_platform

    return check_platform()


def check_libraries() -> int:
    """``gpusizer --check-libraries``: each X11 library, found or missing (the smoke test)."""
    from .platform_check import XCB_LIBRARIES, bundle_dir, bundle_report, loadable

    folder = bundle_dir()
    if folder is not None:  # frozen: in the bundle, except what the system must provide
        present, missing = bundle_report(folder)
    else:
        missing = [so for so in XCB_LIBRARIES if not loadable(so)]
        present = [so for so in XCB_LIBRARIES if so not in missing]
    for so in XCB_LIBRARIES:  # "system": left to the system on purpose (SYSTEM_ONLY)
        state = "ok     " if so in present else "MISSING" if so in missing else "system "
        print(f"{state} {so} ({XCB_LIBRARIES[so]})")
    return 1 if missing else 0


STARTUP_PROBE_ENV = "GPUSIZER_STARTUP_PROBE"  # quit once the first frame is painted (timing)
# Its value ``chart``: also wait for the first chart painted with its data and the verdict shown
# (benchmarks/bench_gui.py); any other value quits at the first frame.
PROBE_CHART = "chart"


def _seconds_since_launch() -> float:
    """Seconds since this process started (Linux /proc; 10 ms resolution), frozen or not."""
    try:
        with open("/proc/self/stat", encoding="ascii") as fh:
            start_ticks = int(fh.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime", encoding="ascii") as fh:
            uptime = float(fh.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _say(moment: str) -> None:
    print(f"{moment} {_seconds_since_launch():.3f} s cpu {time.process_time():.3f} s", flush=True)


def _quit_after_first_frame(app: QApplication, window: MainWindow, chart: bool = False) -> None:
    """Measure start-up as a user sees it: ``time`` a run that ends at the first painted frame,
    or (``chart``) at the first paint of the visible chart once it has its data and the verdict
    its text, which is what a person opened the app for. Prints each moment as it comes, with
    the process's CPU seconds (all threads) so far."""
    from PySide6.QtCore import QEvent, QObject, QTimer
    from PySide6.QtWidgets import QWidget

    class _Probe(QObject):
        framed = False

        def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # Qt's name
            if ev.type() != QEvent.Type.Paint:
                return False
            if not self.framed:
                self.framed = True
                _say("first frame")
            shown: Any = window.tabs.charts.get(window.tabs.current_key())
            drawn = isinstance(obj, QWidget) and shown is not None and shown.has_data
            if not chart or (drawn and shown.isAncestorOf(obj) and window.summary.verdict.text()):
                if chart:
                    _say("first chart")
                app.removeEventFilter(self)
                QTimer.singleShot(0, app.quit)
            return False

    probe = _Probe(window)
    app.installEventFilter(probe)


def open_documents(app: QApplication, window: MainWindow) -> QObject:
    """Files the system asks the app to open (macOS: a .gpusizer.json double-clicked in Finder
    arrives as a QFileOpenEvent, the document type of packaging/targets.info_plist) open in
    the window as a dropped file does. Returns the filter (kept alive by the window)."""
    from PySide6.QtCore import QEvent, QObject
    from PySide6.QtGui import QFileOpenEvent

    class _Opener(QObject):
        def eventFilter(self, obj: QObject, ev: QEvent) -> bool:  # Qt's name
            if ev.type() == QEvent.Type.FileOpen and isinstance(ev, QFileOpenEvent) and ev.file():
                window.files.open_any(ev.file())
                return True
            return False

    opener = _Opener(window)
    app.installEventFilter(opener)
    return opener


def freeze_startup_heap() -> None:
    """Move what start-up built (modules, Qt wrappers, pydantic schemas, presets: tens of
    thousands of objects that live as long as the app) out of the garbage collector's sight
    (``gc.freeze``, Python docs, module gc). A full collection then scans only what editing
    creates: measured here, the 40-60 ms pauses of a full collection during a Hardware-tab
    search (benchmarks/bench_hardware.py) no longer come on the first edits. What
    :func:`collect_nothing_while_starting` froze uncollected is collected here first."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()


def preload_core() -> None:
    """Import the estimator before Qt: each module imported after PySide6 has its source read
    once by PySide6's feature switch (shibokensupport ``feature_imported``, which looks for
    "PySide6" in it), ~300 of the core's and io's modules at start-up."""
    from ..core.pipeline import estimate, scenario  # noqa: F401
    from ..core.sizing import option  # noqa: F401
    from ..io import report  # noqa: F401


def _freeze_after_first_chart(window: MainWindow) -> None:
    """:func:`freeze_startup_heap` once the first chart is made, its paint first (posted events
    come before timers): run after the first frame, its full collection (~0.05 s of CPU) came
    before the chart. Without a chart (minimised) after 5 s all the same."""
    from PySide6.QtCore import QTimer

    frozen: list[bool] = []

    def once(*_made: object) -> None:
        if not frozen:
            frozen.append(True)
            QTimer.singleShot(0, freeze_startup_heap)

    window.tabs.created.connect(once)
    QTimer.singleShot(5000, once)


def interactive(args: argparse.Namespace) -> int:
    collect_nothing_while_starting()
    preload_core()
    from PySide6.QtCore import QTimer

    known_packages_unscanned()

    from . import excepthook
    from .main_window import MainWindow

    collect_nothing_while_starting()
    problem = platform_problem()
    if problem:
        print(problem, file=sys.stderr)
        return EXIT_NO_PLATFORM
    _point_user_gpus_at_settings()
    app = make_app()
    window = MainWindow(defer_charts=True)
    excepthook.install(window.notify)
    open_documents(app, window)
    window.show()
    _freeze_after_first_chart(window)
    if args.file:
        QTimer.singleShot(0, lambda: window.files.open_any(args.file))
    if os.environ.get(STARTUP_PROBE_ENV):
        _quit_after_first_frame(app, window, chart=os.environ[STARTUP_PROBE_ENV] == PROBE_CHART)
    code = app.exec()
    excepthook.set_notifier(None)
    _close(app, window)
    return int(code)


def main(argv: Sequence[str] | None = None) -> int:
    """The ``gpusizer`` entry point; returns the process exit code."""
    one_blas_thread()
    skip_pydantic_plugins()
    cache_compiled_code()
    args = _parse(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.check_libraries:
        return check_libraries()
    if args.screenshot:
        from .screenshot import screenshot

        _headless_default()
        return screenshot(args, make_app, _close, platform_problem)
    return interactive(args)


if __name__ == "__main__":
    sys.exit(main())
