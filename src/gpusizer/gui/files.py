"""File menu work: open, save, recent files, export; model imports are in gui/model_import.py.

A file is accepted whole or refused whole (with the reason); the current scenario stays as it
was when a file is refused. Scenario files are written atomically.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMessageBox, QWidget

from ..core.errors import ScenarioError
from ..core.model.specs import Scenario
from ..core.pipeline.report import report_from_estimate
from ..core.pipeline.scenario import OTHER_KINDS, other_document, scenario_dict
from ..core.readfile import read_json_object
from ..core.sizing.option import SizingOption
from ..io.atomic import write_atomic
from ..io.hf_config import MAX_CONFIG_BYTES
from ..io.report import NOT_ASKED, report_facts, report_text
from ..io.scenario_file import SUFFIX, load_scenario_file, save_scenario
from .binding import as_rich
from .dialogs import ask_open, ask_save, slug
from .my_calibration import MINE
from .settings import Prefs
from .state import ScenarioState

log = logging.getLogger(__name__)

SCENARIO_FILTER = "GPU Sizer scenarios (*.gpusizer.json);;JSON files (*.json);;All files (*)"
_SCENARIO_KEYS = frozenset(Scenario.model_fields) | {OTHER_KINDS}  # every block a saved file may hold
_HF_KEYS = {"model_type", "architectures", "num_hidden_layers", "n_layer", "hidden_size", "n_embd"}


def with_suffix(path: str | Path) -> Path:
    """``plan`` -> ``plan.gpusizer.json``; a name already ending in .json is kept."""
    p = Path(path)
    return p if p.name.endswith(".json") else p.with_name(p.name + SUFFIX)


def classify_data(data: dict[str, Any]) -> str:
    """``scenario`` | ``hf_config`` | ``unknown`` for the JSON object of a dropped file."""
    if data.keys() & _HF_KEYS and not data.keys() & {"model", "workload"}:
        return "hf_config"
    return "scenario" if data.keys() <= _SCENARIO_KEYS else "unknown"


def read_dropped(path: str | Path) -> dict[str, Any]:
    """The JSON object of a dropped or opened file, read as File > Open reads (core/readfile.py:
    a regular file, bounded, UTF-8, strict JSON, nesting limited); ScenarioError says why not.
    A FIFO hung the window, a link to /dev/zero grew to 2.1 GB and a 100 MB file froze it for
    3.7 s."""
    return read_json_object(path, "file", MAX_CONFIG_BYTES, "a JSON object (a scenario or a config.json)")


def classify_json(path: str | Path) -> str:
    """``scenario`` | ``hf_config`` | ``unknown`` for a dropped or opened JSON file."""
    if str(path).endswith(SUFFIX):
        return "scenario"
    try:
        return classify_data(read_dropped(path))
    except ScenarioError:
        return "unknown"


class FileController(QObject):
    """Owns the current file path and the recent list; ``pathChanged`` after open/save."""

    pathChanged = Signal(object)
    recentChanged = Signal(list)

    def __init__(self, state: ScenarioState, prefs: Prefs, window: QWidget) -> None:
        super().__init__(window)
        self.state, self.prefs, self.window = state, prefs, window
        self.path: Path | None = None
        self.saved: Scenario = state.scenario  # as last opened, saved or started
        # the advisor's option for the scenario (core/sizing/gpus_needed.py)
        self.advice: Callable[[], SizingOption | None] | None = None
        self.prices: Callable[[], Any] | None = None  # the user's own prices ("My prices")
        from .model_import import ModelImporter

        self.importer = ModelImporter(self)  # model imports, off the GUI thread

    def warn(self, title: str, text: str) -> None:
        QMessageBox.warning(self.window, title, as_rich(text))

    def _set_path(self, path: Path | None) -> None:
        self.path = path
        if path is not None:
            self.recentChanged.emit(self.prefs.add_recent(path))
        self.state.undo_stack.setClean()
        self.saved = self.state.scenario
        self.pathChanged.emit(path)

    # -- unsaved work ----------------------------------------------------------------------
    @property
    def modified(self) -> bool:
        """Whether the scenario differs from the one last opened, saved or started: a value
        edited and then set back to what it was is no change (the undo stack's clean mark
        would still say there is one)."""
        return self.state.scenario != self.saved

    def may_discard(self, doing: str) -> bool:
        """Before New, Open or Quit: True to go on. Unsaved changes ask Save / Discard /
        Cancel (the platform's convention); Save that fails or is cancelled stops."""
        if not self.modified:
            return True
        name = self.path.name if self.path else self.state.scenario.name or "this scenario"
        box = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self.window,
            "Unsaved changes",
            as_rich(
                f"Save the changes to “{name}” before {doing}?\n"
                "Your changes will be lost if you don't save them."
            ),
            box.Save | box.Discard | box.Cancel,
            box.Save,
        )
        if answer == box.Save:
            return self.save()
        return answer == box.Discard

    # -- scenario files --------------------------------------------------------------------
    def new(self) -> bool:
        from .state import DEFAULT_SCENARIO

        if not self.may_discard("starting a new scenario"):
            return False
        before = self.state.scenario.targets
        self.state.set_scenario(DEFAULT_SCENARIO, label="New scenario")
        self._say_targets(before, "New scenario")
        self._set_path(None)
        return True

    def _say_targets(self, before: Any, doing: str) -> None:
        """Targets the new scenario does not state are reset (it replaces the whole scenario):
        said, so a deadline or users set before do not silently vanish or seem to carry over."""
        now = self.state.scenario.targets
        if before.active and now != before:
            kept = "its own targets" if now.active else "no targets (the default target applies to serving)"
            self.state.notice.emit(f"{doing}: targets reset to {kept}")

    def open_path(self, path: str | Path, ask: bool = True) -> bool:
        """Open a scenario file; a malformed one is refused with the reason (and the current
        scenario stays). ``ask``: offer to save unsaved changes first."""
        p = Path(path)
        if ask and not self.may_discard(f"opening {p.name}"):
            return False
        before = self.state.scenario.targets
        try:
            scenario, others = load_scenario_file(p)
            self.state.set_scenario(scenario, label=f"Open {p.name}")
        except (ScenarioError, RecursionError) as exc:  # nothing changed: refused whole
            self.warn("Cannot open scenario", f"{p.name} was not opened:\n{exc}")
            return False
        self.state.other_kinds.update(others)  # after the load, which forgets the old ones
        self._say_targets(before, f"Opened {p.name}")
        self._set_path(p)
        return True

    def save_to(self, path: str | Path) -> bool:
        p = with_suffix(path)
        try:
            others = {
                k: v for k, v in self.state.other_kinds.items() if k != self.state.scenario.workload.kind
            }
            save_scenario(scenario_dict(self.state.scenario), p, others)
        except OSError as exc:
            self.warn("Cannot save scenario", f"{p} was not written: {exc.strerror or exc}")
            return False
        self._set_path(p)
        return True

    def save(self) -> bool:
        return self.save_to(self.path) if self.path else self.save_as()

    def save_as(self) -> bool:
        name = self.path.name if self.path else slug(self.state.scenario.name) + SUFFIX
        path, _f = ask_save(
            self.window,
            self.prefs,
            "Save scenario",
            name,
            SCENARIO_FILTER,
            self.path.parent if self.path else None,
        )
        return self.save_to(path) if path else False

    def open_dialog(self) -> bool:
        if not self.may_discard("opening another scenario"):
            return False
        path = ask_open(self.window, self.prefs, "Open scenario", SCENARIO_FILTER)
        return self.open_path(path, ask=False) if path else False

    def open_any(self, path: str | Path) -> bool:
        """A dropped file: a scenario opens; a model folder, config.json or .gguf imports
        (gui/model_import.py); anything else is refused."""
        from .model_import import import_model_path, is_model_path

        if is_model_path(path):
            return import_model_path(self, path)
        if str(path).endswith(SUFFIX):
            return self.open_path(path)
        try:
            data = read_dropped(path)
        except ScenarioError as exc:
            self.warn("Cannot open file", f"{Path(path).name} was not opened:\n{exc}")
            return False
        kind = classify_data(data)
        if kind == "hf_config":
            return import_model_path(self, path)
        if kind == "scenario":
            return self.open_path(path)
        what = other_document(data)  # a report or a plan's option: say so, and what to do
        neither = "neither a GPU Sizer scenario nor a Hugging Face config.json"
        self.warn("Unknown file", f"{Path(path).name} is {what or neither}.")
        return False

    # -- exports ---------------------------------------------------------------------------
    def report(self) -> dict[str, Any]:
        return report_from_estimate(self.state.estimate)

    def export_report(self, path: str | Path, unit: str = "GiB") -> bool:
        """The report (io/report.py) as .md, .html, .json or .csv, by the file's suffix; with
        the advisor's "GPUs needed" (``advice``) and My prices (``prices``), set by the window."""
        p = Path(path)
        advice = self.advice() if self.advice is not None else NOT_ASKED
        prices = self.prices() if self.prices is not None else None
        try:
            facts = report_facts(
                self.state.estimate, unit, advice, prices, calibration=MINE
            )  # My calibration
            text = report_text(facts, p)
        except ScenarioError as exc:
            self.warn("Cannot export", str(exc).removeprefix("output: "))
            return False
        try:
            write_atomic(p, text)
        except OSError as exc:
            self.warn("Cannot export", f"{p} was not written: {exc.strerror or exc}")
            return False
        return True

    def export_chart(self, chart: Any, path: str | Path) -> bool:
        """The chart as .png (1600 px wide), .svg, or its data as .csv."""
        p = Path(path)
        if chart is None:
            self.warn("Cannot export", "this chart is not available")
            return False
        try:
            if p.suffix.lower() == ".svg":
                chart.export_svg(p)
            elif p.suffix.lower() == ".csv":
                write_atomic(p, chart.data_csv())
            else:
                chart.export_png(p.with_suffix(".png") if p.suffix.lower() != ".png" else p)
        except Exception as exc:  # exporters raise assorted errors; the user gets the reason
            log.exception("chart export failed")
            self.warn("Cannot export chart", f"{p} was not written: {exc}")
            return False
        return True
