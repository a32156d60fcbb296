"""``gpusizer --screenshot OUT --scenario BADFILE``: one line and exit 2
for every hostile scenario file, before any window is made (in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpusizer.gui.app import main

DATA = Path(__file__).parents[1] / "data" / "hostile"


@pytest.mark.parametrize("name", sorted(p.name for p in DATA.glob("*.gpusizer.json")))
def test_screenshot_of_a_hostile_scenario_is_one_line(
    tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.png"
    assert main(["--screenshot", str(out), "--scenario", str(DATA / name)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and len(captured.err.splitlines()) == 1
    assert captured.err.startswith("gpusizer: ")
    assert not out.exists()
