"""gpusizer-cli under hostile input, round 4 (the non-GUI findings): a price of 0 charts and
reports, prices past the ceiling are one line, a small size-only model's roofline is drawn,
a NUL in a shard name is one line, names reach the HTML report escaped. In-process, headless
(QT_QPA_PLATFORM=offscreen as the CLI sets it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpusizer.cli import main

SERVE = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _refused(capsys: pytest.CaptureFixture[str], code: int) -> str:
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ")
    return err


@pytest.fixture
def owned(tmp_path: Path) -> tuple[Path, Path]:
    """A serving scenario and prices of 0 ("already owned") for the H100."""
    prices = _write(tmp_path / "p.json", {"h100-sxm-80gb": {"list_price_usd": 0, "price_per_hour": 0}})
    return _write(tmp_path / "s.gpusizer.json", SERVE), prices


def test_the_hardware_chart_draws_a_price_of_zero(owned: tuple[Path, Path], tmp_path: Path) -> None:
    """Ended in a traceback (ValueError: math domain error, log10(0))."""
    scenario, prices = owned
    out = tmp_path / "h.png"
    assert (
        main(["chart", str(scenario), "--kind", "hardware", "--prices", str(prices), "--output", str(out)])
        == 0
    )
    assert out.stat().st_size > 1000


def test_the_report_draws_a_price_of_zero(owned: tuple[Path, Path], tmp_path: Path) -> None:
    scenario, prices = owned
    out = tmp_path / "rep"
    assert main(["report", str(scenario), "--prices", str(prices), "--output", str(out)]) == 0
    assert (out / "hardware.png").stat().st_size > 1000 and (out / "report.html").exists()


@pytest.mark.parametrize("value", ["1.7e308", "1e10"])
def test_a_price_past_the_ceiling_is_one_line(
    value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """1.7e308 overflowed into inf, 309-digit figures and "please report"."""
    scenario = _write(tmp_path / "s.gpusizer.json", SERVE)
    prices = tmp_path / "p.json"
    prices.write_text('{"h100-sxm-80gb": {"list_price_usd": ' + value + "}}", encoding="utf-8")
    err = _refused(capsys, main(["compare", str(scenario), "--prices", str(prices)]))
    assert "prices.h100-sxm-80gb.list_price_usd" in err and "1,000,000,000" in err


@pytest.mark.parametrize("n", [20_900_000, 50_000_000])
def test_the_roofline_of_a_small_size_only_model_is_drawn(
    n: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """20.9M and 50M size-only models got negative roofline FLOPs; the chart and report failed."""
    scenario = _write(
        tmp_path / "s.gpusizer.json",
        {"model": {"name": "tiny", "parameters": n}, "workload": {"kind": "inference"}},
    )
    assert main(["chart", str(scenario), "--kind", "roofline", "--output", str(tmp_path / "r.png")]) == 0
    assert main(["report", str(scenario), "--output", str(tmp_path / "rep")]) == 0


def test_a_nul_in_a_shard_name_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``os.stat`` raised ValueError (embedded null byte): a traceback."""
    folder = tmp_path / "m"
    folder.mkdir()
    config = Path(__file__).parents[1] / "io" / "configs" / "gpt-2.json"
    (folder / "config.json").write_bytes(config.read_bytes())
    (folder / "model.safetensors.index.json").write_text(
        '{"metadata": {}, "weight_map": {"a.weight": "model-\\u0000.safetensors"}}', encoding="utf-8"
    )
    err = _refused(capsys, main(["import", str(folder)]))
    assert "control character" in err


def test_control_and_bidi_characters_reach_the_html_report_escaped(tmp_path: Path) -> None:
    """Raw ESC, BEL and U+202E from a name reached report.html."""
    name = "evil\x1b[31m\x07\u202eexe.txt"
    scenario = _write(tmp_path / "s.gpusizer.json", {**SERVE, "name": name})
    out = tmp_path / "rep"
    assert main(["report", str(scenario), "--output", str(out)]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    for raw in ("\x1b", "\x07", "\u202e"):
        assert raw not in page
    assert "\\x1b" in page and "\\u202e" in page
