"""``gpusizer-cli chart``: headless PNG/SVG in a fresh process, clean exit, one-line errors."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from gpusizer.cli import main

CLI = Path(sys.executable).parent / "gpusizer-cli"
SCENARIO = {"name": "8B LoRA", "model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}


def run(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The installed command in a fresh process, with no display and no Qt platform set:
    the command must choose offscreen rendering itself."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    cmd = [str(CLI)] if CLI.exists() else [sys.executable, "-m", "gpusizer.cli"]
    return subprocess.run(
        [*cmd, *args], capture_output=True, text=True, env=env, timeout=timeout, check=False
    )


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) from the PNG header (IHDR, bytes 16-24), no image library needed."""
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "s.gpusizer.json"
    path.write_text(json.dumps(SCENARIO), encoding="utf-8")
    return path


def test_memory_png_at_requested_width(tmp_path: Path, scenario_file: Path) -> None:
    out = tmp_path / "x.png"
    res = run("chart", str(scenario_file), "--kind", "memory", "--output", str(out), "--width", "1800")
    assert res.returncode == 0, res.stderr  # 134/139 would be the teardown crash
    assert res.stdout == ""
    assert out.is_file()
    width, height = png_size(out)
    assert width == 1800 and height > 900


@pytest.mark.parametrize("kind", ["compare", "roofline", "sweep"])
def test_other_kinds_default_width(tmp_path: Path, scenario_file: Path, kind: str) -> None:
    out = tmp_path / f"{kind}.png"
    res = run("chart", str(scenario_file), "--kind", kind, "--output", str(out))
    assert res.returncode == 0, res.stderr
    assert png_size(out)[0] == 1600


def test_svg_output(tmp_path: Path, scenario_file: Path) -> None:
    out = tmp_path / "x.svg"
    res = run("chart", str(scenario_file), "--kind", "compare", "--output", str(out))
    assert res.returncode == 0, res.stderr
    text = out.read_text(encoding="utf-8")
    assert "<svg" in text and "</svg>" in text


@pytest.mark.parametrize(
    ("args", "word"),
    [
        (["--kind", "pie", "--output", "x.png"], "--kind"),  # argparse's one-line usage error
        (["--kind", "memory", "--output", "x.jpg"], "output"),
        (["--kind", "memory", "--output", "x.png", "--width", "5"], "width"),
        (["--kind", "memory", "--output", "no/such/dir/x.png"], "output"),
        # a serving chart of a LoRA scenario: refused, not a curve of users that "fit"
        (["--kind", "capacity", "--output", "x.png"], "a serving question"),
        (["--kind", "hardware", "--output", "x.png", "--margin", "1.5"], "margin"),
        (["--kind", "hardware", "--output", "x.png", "--sort", "price"], "--sort"),
    ],
)
def test_bad_arguments_exit_2_one_line(
    tmp_path: Path,
    scenario_file: Path,
    args: list[str],
    word: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In-process: refused before the renderer (Qt) loads, so no process needs starting
    monkeypatch.setitem(sys.modules, "gpusizer.gui.charts.render", None)  # importing it fails
    args = [a if not a.endswith((".png", ".jpg")) else str(tmp_path / a) for a in args]
    assert main(["chart", str(scenario_file), *args]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and word in lines[0]


def test_bad_scenario_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "gpusizer.gui.charts.render", None)  # importing it fails
    bad = tmp_path / "bad.gpusizer.json"
    bad.write_text(json.dumps({"model": {"preset": "nope"}}), encoding="utf-8")
    assert main(["chart", str(bad), "--kind", "memory", "--output", str(tmp_path / "x.png")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [err.strip()]
    assert "model.preset" in err
    assert not (tmp_path / "x.png").exists()


def test_hardware_view_flags(tmp_path: Path, scenario_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--margin``, ``--sort``, ``--basis`` and ``--whole-nodes`` set the Hardware chart's
    view (core/views.HardwareView), as the window's controls do."""
    import gpusizer.gui.charts.render as render
    from gpusizer.core.views import HardwareView

    seen: list[object] = []
    monkeypatch.setattr(render, "render_chart", lambda *a, **k: seen.append(k["view"]))
    out = str(tmp_path / "hw.png")
    args = ["chart", str(scenario_file), "--kind", "hardware", "--output", out]
    assert main([*args, "--margin", "0.25", "--sort", "speed", "--basis", "owned", "--whole-nodes"]) == 0
    assert seen[-1] == HardwareView(margin=0.25, sort="speed", basis="owned", whole_nodes=True)
    assert main(args) == 0
    assert seen[-1] == HardwareView()
