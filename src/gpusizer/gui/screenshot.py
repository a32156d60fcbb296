"""``gpusizer --screenshot OUT.png``: the window rendered to a PNG, then exit.

Checked before any window is made, each a one-line message and exit 2: the scenario, the
size (:data:`MIN_SIZE` to :data:`MAX_SIZE`: 20000x20000 was taken, a 1.6 GB picture), and the
target, which must be a regular file or nothing (a FIFO there hung the app, waiting for a
reader). The PNG is encoded in memory and written by io/atomic.py (temporary file, then
rename), so a full disk leaves an existing picture whole instead of truncated.
"""

from __future__ import annotations

import argparse
import errno
import os
import re
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

EXIT_BAD_INPUT = 2
MIN_SIZE = (320, 240)  # px: below that the window's columns overlap
MAX_SIZE = (7680, 4320)  # px: 8K UHD, a 127 MiB image in memory
_SIZE = re.compile(r"(\d{1,6})x(\d{1,6})")


def parse_size(text: str) -> tuple[int, int]:
    """``WIDTHxHEIGHT`` in pixels within the bounds; ValueError naming ``--size`` otherwise."""
    match = _SIZE.fullmatch(text.strip().lower())
    size = (int(match.group(1)), int(match.group(2))) if match else None
    if size is None or not all(lo <= v <= hi for v, lo, hi in zip(size, MIN_SIZE, MAX_SIZE, strict=True)):
        raise ValueError(
            f"--size must be WIDTHxHEIGHT in pixels, width {MIN_SIZE[0]}-{MAX_SIZE[0]} and height "
            f"{MIN_SIZE[1]}-{MAX_SIZE[1]} (got {text[:40]!r})"
        )
    return size


def target_problem(path: str) -> str:
    """Why the PNG cannot go to ``path`` ("" when it can): only a regular file is replaced."""
    p = Path(path)
    if not p.name or not p.resolve().parent.is_dir():
        return f"cannot write {path[:200]}: its folder does not exist"
    try:
        mode = os.stat(p).st_mode
    except FileNotFoundError:
        return ""
    except OSError as exc:
        return f"cannot write {path[:200]}: {exc.strerror or exc}"
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        return f"cannot write {path[:200]}: it is {kind}; only a regular file is replaced"
    return ""


def save_png(widget: Any, path: str) -> str:
    """``widget`` grabbed as a PNG, written atomically; the problem in words, or ""."""
    from PySide6.QtCore import QBuffer, QIODevice

    from ..io.atomic import write_atomic

    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    if not widget.grab().save(buffer, "PNG"):
        return f"cannot encode the window as PNG for {path[:200]}"
    try:
        write_atomic(path, bytes(buffer.data().data()))
    except OSError as exc:
        return f"cannot write {path[:200]}: {exc.strerror or os.strerror(exc.errno or errno.EIO)}"
    return ""


def _estimates(scenario: Any) -> None:
    """ScenarioError unless the estimator takes the scenario (one line, exit 2, never a
    traceback, as every bad input is answered)."""
    from ..core.errors import ScenarioError
    from ..core.pipeline.estimate import estimate

    try:
        estimate(scenario)
    except ScenarioError:
        raise
    except Exception as exc:  # the estimator's own failure on odd input
        raise ScenarioError("", f"cannot be estimated ({type(exc).__name__})") from None


def _load(path: str) -> Any:
    from ..io.scenario_file import load_scenario

    return load_scenario(path)


def screenshot(
    args: argparse.Namespace,
    make_app: Callable[[], Any],
    close: Callable[[Any, Any], None],
    platform_problem: Callable[[], str],
) -> int:
    """Render the main window to ``args.screenshot`` and return the exit code (app.py's
    application helpers passed in: it imports this module)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QLayout

    from ..core.errors import ScenarioError
    from .main_window import MainWindow

    try:
        width, height = parse_size(args.size)
        problem = target_problem(args.screenshot)
        if problem:
            raise ValueError(problem)
        scenario = _load(args.scenario) if args.scenario else None
        if scenario is not None:
            _estimates(scenario)
    except (ScenarioError, ValueError) as exc:
        print(f"gpusizer: {str(exc)[:300]}", file=sys.stderr)
        return EXIT_BAD_INPUT
    problem = platform_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    app = make_app()
    window = MainWindow(scenario, restore=False)
    window.resize(width, height)
    # The offscreen platform cannot take a window's minimum size and warned at each change
    # ("does not support propagateSizeHints()"); a picture of a fixed size needs none.
    layout = window.layout()
    if layout is not None:
        layout.setSizeConstraint(QLayout.SizeConstraint.SetNoConstraint)
    window.tabs.select(args.tab)
    window.show()
    result = {"code": 1}

    def shoot() -> None:
        window.state.wait()  # the estimate comes from the background worker
        window.advisor.wait()  # the advice normally waits for editing to pause
        chart = window.tabs.current_chart()
        if chart is not None:  # a chart that computes in the background (Hardware tab)
            chart.wait_settled()
        for _ in range(3):  # the advice re-wraps the summary: let the layouts settle
            app.processEvents()
        problem = save_png(window, args.screenshot)
        if problem:
            print(f"gpusizer: {problem}", file=sys.stderr)
        result["code"] = 1 if problem else 0
        app.quit()

    QTimer.singleShot(0, shoot)
    app.exec()
    close(app, window)
    return result["code"]
