"""Chart exports on a full disk: the old PNG/SVG stays whole and the user
gets the reason; an SVG is written only when it is a complete document."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.gui.charts import chart_class
from gpusizer.gui.charts.export import ExportMixin

SCENARIO = {"model": {"preset": "gpt-2"}, "workload": {"kind": "lora"}}


@pytest.fixture
def chart(qtbot: Any) -> Any:
    chart = chart_class("memory")()
    qtbot.addWidget(chart)
    chart.resize(1000, 620)
    s = parse_scenario(SCENARIO)
    chart.update_from(s, estimate(s))
    return chart


def _full_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    real_write = os.write

    def write(fd: int, data: bytes) -> int:  # half of the first chunk lands, then ENOSPC
        if len(data) > 1:
            return real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_full_disk_keeps_the_old_chart(
    chart: Any, tmp_path: Path, suffix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "out").mkdir()  # tmp_path also holds the test's settings folder
    path = tmp_path / "out" / f"chart{suffix}"
    export = chart.export_png if suffix == ".png" else chart.export_svg
    export(path)
    before = path.read_bytes()
    _full_disk(monkeypatch)
    with pytest.raises(OSError) as err:
        export(path)
    monkeypatch.undo()
    assert err.value.errno == errno.ENOSPC
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


def test_a_truncated_svg_is_never_written(
    chart: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "chart.svg"
    chart.export_svg(path)
    ElementTree.parse(path)  # a whole document
    before = path.read_bytes()
    monkeypatch.setattr(ExportMixin, "_svg_bytes", lambda self: before[: len(before) // 2])
    with pytest.raises(OSError, match="incomplete"):
        chart.export_svg(path)
    assert path.read_bytes() == before


def test_the_window_says_why(chart: Any, tmp_path: Path, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from gpusizer.gui.main_window import MainWindow

    window = MainWindow(restore=False)
    qtbot.addWidget(window)
    warned: list[str] = []
    monkeypatch.setattr(window.files, "warn", lambda title, text: warned.append(text))
    _full_disk(monkeypatch)
    assert not window.files.export_chart(chart, tmp_path / "c.png")
    monkeypatch.undo()
    assert "No space left on device" in warned[0]
