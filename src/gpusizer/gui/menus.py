"""The menu bar: File, Edit, View, Help, with the platform's standard shortcuts."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QMessageBox, QWidget

from .._version import __version__
from ..core.sizing.gpus_needed import gpu_id
from ..core.views.settings import CHARTS
from .binding import as_rich
from .chart_tabs import ChartTabs
from .dialogs import ask_save, slug
from .elide import elide
from .files import FileController
from .model_import import import_config_dialog, import_model_dialog
from .my_calibration import forget_dialog
from .state import ScenarioState


class MenuHost(Protocol):
    """What the menus need of the main window (a protocol, so this module does not import
    the window that imports it)."""

    files: FileController
    state: ScenarioState
    tabs: ChartTabs
    unit: str
    recent_menu: QMenu

    def menuBar(self) -> QMenuBar: ...
    def set_units(self, unit: str) -> None: ...
    def show_fit_models(self) -> None: ...
    def reload_calibration(self) -> None: ...
    def new_scenario(self) -> bool: ...
    def close(self) -> bool: ...


def _forget(w: MenuHost) -> None:
    """File > Remove My Calibration: the window's GPU x engine (gui/my_calibration.py)."""
    s = w.state.scenario
    if forget_dialog(_parent(w), w.files.prefs, gpu_id(s), str(s.framework)):
        w.reload_calibration()


def _parent(w: MenuHost) -> QWidget:
    """The window itself, as a QWidget parent for actions and dialogs."""
    return w.menuBar().window()


CHART_FILTER = "PNG image (*.png);;SVG image (*.svg);;Chart data (*.csv)"
REPORT_FILTER = "Markdown report (*.md);;HTML report (*.html);;JSON report (*.json);;CSV report (*.csv)"


def _action(
    w: MenuHost,
    name: str,
    text: str,
    slot: object,
    shortcut: QKeySequence | QKeySequence.StandardKey | str | None = None,
) -> QAction:
    act = QAction(text, _parent(w))
    act.setObjectName(name)
    if shortcut is not None:
        act.setShortcut(shortcut if isinstance(shortcut, QKeySequence) else QKeySequence(shortcut))
    act.triggered.connect(lambda _checked=False: slot())  # type: ignore[operator]
    return act


def _suffixed(path: str, chosen_filter: str) -> str:
    """Add the suffix of the chosen filter when the name has none."""
    if not path or Path(path).suffix:
        return path
    ext = chosen_filter.rpartition("*")[2].rstrip(")")
    return path + ext


def build_menus(w: MenuHost) -> None:
    """Create every action and menu of the window."""
    _file_menu(w)
    _edit_menu(w)
    _view_menu(w)
    help_menu = w.menuBar().addMenu("&Help")
    help_menu.addAction(_action(w, "action_about", "&About GPU Sizer", lambda: show_about(w)))


def _file_menu(w: MenuHost) -> None:
    f, menu, key = w.files, w.menuBar().addMenu("&File"), QKeySequence.StandardKey
    menu.addAction(_action(w, "action_new", "&New", w.new_scenario, key.New))
    menu.addAction(_action(w, "action_open", "&Open…", f.open_dialog, key.Open))
    w.recent_menu = QMenu("Open &Recent", _parent(w))
    w.recent_menu.setObjectName("menu_recent")
    menu.addMenu(w.recent_menu)
    fill_recent(w, f.prefs.recent_files())
    f.recentChanged.connect(lambda items: fill_recent(w, items))
    menu.addSeparator()
    menu.addAction(_action(w, "action_save", "&Save", f.save, key.Save))
    menu.addAction(_action(w, "action_save_as", "Save &As…", f.save_as, key.SaveAs))
    menu.addSeparator()
    menu.addAction(
        _action(
            w,
            "action_import_hf",
            "&Import Hugging Face config.json…",
            lambda: import_config_dialog(f),
            "Ctrl+I",
        )
    )
    menu.addAction(
        _action(
            w,
            "action_import_model",
            "Import &Model (folder, GGUF)…",
            lambda: import_model_dialog(f),
            "Ctrl+Shift+I",
        )
    )
    menu.addAction(
        _action(
            w,
            "action_check_run",
            "Check Against My &Run…",
            lambda: _check_run(w, f),
        )
    )
    menu.addAction(
        _action(w, "action_forget_calibration", "Remove My &Calibration of This GPU…", lambda: _forget(w))
    )
    menu.addAction(
        _action(w, "action_export_chart", "Export &Chart…", lambda: export_chart_dialog(w), "Ctrl+E")
    )
    menu.addAction(
        _action(w, "action_export_report", "Export &Report…", lambda: export_report_dialog(w), "Ctrl+Shift+E")
    )
    menu.addSeparator()
    menu.addAction(_action(w, "action_quit", "&Quit", w.close, key.Quit))


def fill_recent(w: MenuHost, items: list[str]) -> None:
    menu = w.recent_menu
    menu.clear()
    for i, path in enumerate(items):
        # "&" marks a shortcut in a menu's text; a tooltip guesses rich text, so a file named
        # "<b>x</b>.json" rendered bold and "<img src=...>" loaded a picture: both literal.
        act = menu.addAction(f"&{i + 1}  {elide(Path(path).name, 80).replace('&', '&&')}")
        act.setToolTip(as_rich(elide(path, 600)))
        act.triggered.connect(lambda _c=False, p=path: w.files.open_path(p))
    if not items:
        menu.addAction("No recent files").setEnabled(False)
        return
    menu.addSeparator()

    def clear() -> None:
        w.files.prefs.clear_recent()
        fill_recent(w, [])

    menu.addAction("Clear list").triggered.connect(clear)


def _edit_menu(w: MenuHost) -> None:
    menu = w.menuBar().addMenu("&Edit")
    undo = w.state.undo_stack.createUndoAction(_parent(w), "&Undo")
    undo.setObjectName("action_undo")
    undo.setShortcut(QKeySequence.StandardKey.Undo)
    redo = w.state.undo_stack.createRedoAction(_parent(w), "&Redo")
    redo.setObjectName("action_redo")
    redo.setShortcut(QKeySequence.StandardKey.Redo)
    menu.addAction(undo)
    menu.addAction(redo)
    menu.addSeparator()
    # Ctrl+C stays the text fields' copy; the chart's copy takes Shift as well.
    menu.addAction(
        _action(w, "action_copy_chart", "&Copy Chart (image and data)", lambda: copy_chart(w), "Ctrl+Shift+C")
    )


def copy_chart(w: MenuHost) -> bool:
    """Put the shown chart on the clipboard: its image, and its data as CSV text (pasted
    into a document it is the picture, into a spreadsheet the numbers)."""
    chart = w.tabs.current_chart()
    if chart is None:  # a serving chart on a training scenario shows a hint, no chart
        return False
    chart.copy_to_clipboard()
    return True


def _view_menu(w: MenuHost) -> None:
    menu = w.menuBar().addMenu("&View")
    group = QActionGroup(_parent(w))
    group.setExclusive(True)
    for unit, text in (("GiB", "Memory in &GiB (2³⁰ bytes)"), ("GB", "Memory in G&B (10⁹ bytes)")):
        act = QAction(text, _parent(w), checkable=True)
        act.setObjectName(f"action_units_{unit.lower()}")
        act.setChecked(unit == w.unit)
        act.triggered.connect(lambda _c=False, u=unit: w.set_units(u))
        group.addAction(act)
        menu.addAction(act)
    menu.addSeparator()
    menu.addAction(
        _action(w, "action_fit_models", "&Models That Fit This Machine…", w.show_fit_models, "Ctrl+M")
    )
    menu.addSeparator()
    for i, view in enumerate(CHARTS.values()):
        menu.addAction(
            _action(
                w,
                f"action_tab_{view.key}",
                f"{view.label} chart",
                lambda k=view.key: w.tabs.select(k),
                f"Ctrl+{i + 1}" if i < 9 else None,
            )
        )


def export_chart_dialog(w: MenuHost) -> bool:
    name = f"{slug(w.state.scenario.name)}-{w.tabs.current_key()}.png"
    path, chosen = ask_save(_parent(w), w.files.prefs, "Export chart", name, CHART_FILTER)
    path = _suffixed(path, chosen)
    return w.files.export_chart(w.tabs.current_chart(), path) if path else False


def export_report_dialog(w: MenuHost) -> bool:
    """The report as Markdown by default (the Markdown filter shown with the .md name)."""
    name = f"{slug(w.state.scenario.name)}-report.md"
    path, chosen = ask_save(_parent(w), w.files.prefs, "Export report", name, REPORT_FILTER)
    path = _suffixed(path, chosen)
    return w.files.export_report(path, w.unit) if path else False


def show_about(w: MenuHost) -> None:
    QMessageBox.about(
        _parent(w),
        "About GPU Sizer",
        f"<h3>GPU Sizer {__version__}</h3>"
        "<p>How much GPU memory, and how many of which GPU, a model needs to pre-train, "
        "fine-tune (full, LoRA, QLoRA) or serve — and why.</p>"
        "<p>Works fully offline. Figures are estimates from the model's architecture and the "
        "memory layout of the chosen framework; each assumption is listed under the "
        "summary.</p><p>MIT licence.</p>",
    )


def _check_run(w: MenuHost, f: FileController) -> None:
    """The run check's dialog; imported on first use, as the run check reads the serving engine
    (~40 modules) that the window's first estimate, a training one, never runs (start-up)."""
    from .check_run import check_run_dialog

    check_run_dialog(_parent(w), f, w.state.scenario, on_keep=w.reload_calibration)
