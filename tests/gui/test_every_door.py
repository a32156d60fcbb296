"""Every door as strict as File > Open: File > Open, a drop (and
``gpusizer FILE``, which opens through the same ``open_any``), the CLI, the model import, the
settings file and the user-GPU list each get a FIFO, a link to /dev/zero, a 100 MB file and
JSON nested 100,000 deep. Each is refused with its reason (or, for the settings, left unread
with a note), never a hang, a traceback or gigabytes read. Valid scenarios holding ``serving``
or ``targets`` open through every door."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main as cli
from gpusizer.core.model import presets
from gpusizer.core.pipeline.scenario import parse_scenario, scenario_dict
from gpusizer.gui.files import classify_json
from gpusizer.gui.settings import Prefs

from .helpers import drop_path


@pytest.fixture(autouse=True)
def deadline() -> Iterator[None]:
    """A test that blocks (a FIFO read) fails after 120 s instead of hanging the suite (30 s
    was passed once by a window's test on a 2-core machine running the suite beside four other
    sessions: a load, not a hang)."""

    def _timeout(*_: object) -> None:
        raise TimeoutError("hung on a hostile file")

    old = signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(120)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _zero(path: Path) -> Path:
    path.symlink_to("/dev/zero")
    return path


def _big(path: Path) -> Path:
    with path.open("wb") as f:  # sparse: 100 MB that cost no disk
        f.truncate(100 * 10**6)
    return path


def _deep(path: Path) -> Path:
    path.write_text("[" * 100_000 + "]" * 100_000)
    return path


HOSTILE: dict[str, Callable[[Path], Path]] = {"fifo": _fifo, "zero": _zero, "100mb": _big, "deep": _deep}
WORDS = {"fifo": "not a regular file", "zero": "not a regular file", "100mb": "at most", "deep": "nested"}


@pytest.mark.parametrize("kind", list(HOSTILE))
@pytest.mark.parametrize("name", ["s.gpusizer.json", "s.json"])
def test_file_open_and_drop(
    window: Any, message_boxes: list[tuple[str, str]], tmp_path: Path, kind: str, name: str
) -> None:
    path = HOSTILE[kind](tmp_path / name)
    before = window.state.scenario
    assert not window.files.open_path(path)  # File > Open
    drop_path(window, path)  # a drop; `gpusizer FILE` opens through the same open_any
    assert window.state.scenario is before
    assert len(message_boxes) == 2 and all(WORDS[kind] in text for _, text in message_boxes), message_boxes
    assert classify_json(path) == ("scenario" if name.endswith(".gpusizer.json") else "unknown")  # by name


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_cli_and_import(capsys: pytest.CaptureFixture[str], tmp_path: Path, kind: str) -> None:
    path = HOSTILE[kind](tmp_path / "config.json")
    for command in (["estimate", str(path)], ["import", str(path)], ["import-config", str(path)]):
        assert cli(command) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1 and WORDS[kind] in err, (command, err)
    for read in (gpusizer.import_model, gpusizer.import_hf_config):
        with pytest.raises(gpusizer.ScenarioError):
            read(path)


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_settings_file(temp_settings: Path, kind: str) -> None:
    """gpusizer.ini as a FIFO stopped every start: QSettings reads its file as it is made."""
    HOSTILE[kind](temp_settings / "gpusizer.ini")
    prefs = Prefs()
    if kind == "deep":  # a regular text file: QSettings reads it as INI, finds no scenario
        assert prefs.last_scenario() is None
        return
    assert "not read" in prefs.dropped
    prefs.units = "GB"  # this session's settings still work
    assert prefs.units == "GB"


@pytest.mark.parametrize("kind", list(HOSTILE))
def test_user_gpu_list(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, kind: str) -> None:
    path = HOSTILE[kind](tmp_path / "user-gpus.json")
    monkeypatch.setenv(presets.USER_GPUS_ENV, str(path))
    lines = presets.user_gpu_problems()
    assert len(lines) == 1 and WORDS[kind] in lines[0] and len(lines[0]) < 600
    assert presets.user_gpus() == {}


SERVING = {
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 8},
    "framework": "vllm",
    "serving": {"memory_fraction": 0.85, "max_context": 8192},
    "targets": {"users": 16, "max_ttft_seconds": 2.0},
}


def test_valid_scenarios_with_serving_or_targets_open_through_every_door(
    window: Any, message_boxes: list[tuple[str, str]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A dropped .json holding ``serving`` or ``targets`` was "neither a scenario nor a
    config.json", although every file the app writes holds both."""
    saved = scenario_dict(parse_scenario(SERVING))
    for name, data in (("short.json", SERVING), ("full.json", saved), ("s.gpusizer.json", SERVING)):
        path = tmp_path / name
        path.write_text(json.dumps(data))
        assert classify_json(path) == "scenario"
        window.state.set_scenario({"model": {"preset": "gpt-2"}})
        drop_path(window, path)
        assert window.state.scenario.serving.memory_fraction == 0.85, name
        assert window.files.open_path(path)
        assert cli(["estimate", str(path), "--json"]) == 0
        capsys.readouterr()
    assert [kind for kind, _ in message_boxes if kind != "question"] == []  # "question": unsaved edits
