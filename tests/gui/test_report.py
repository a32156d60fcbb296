"""One report service (io/report.py) behind the window's Export Report and ``gpusizer-cli
report``: the same sections from the same scenario, with GPUs needed, speed and cost."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from gpusizer.core.pipeline.estimate import estimate
from gpusizer.gui.charts.folder import write_report

SERVE = {
    "name": "8B served",
    "model": {"preset": "llama-3.1-8b"},
    "workload": {"kind": "inference", "batch_size": 8},
    "framework": "vllm",
}
LORA = {"name": "8B LoRA", "model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "lora"}}


def _without_charts(markdown: str) -> str:
    """The report less its chart images (what only the report folder adds)."""
    return re.sub(r"## Charts\n.*?\n(?=## )", "", markdown, flags=re.S)


@pytest.mark.parametrize("data", [SERVE, LORA], ids=["serve", "lora"])
def test_window_export_and_cli_report_are_the_same_report(window: Any, tmp_path: Path, data: dict) -> None:
    window.state.set_scenario(data)
    window.advisor.wait()
    assert window.files.export_report(tmp_path / "w.md") and window.files.export_report(tmp_path / "w.html")
    s = window.state.scenario
    md = write_report(s, estimate(s), tmp_path / "cli")
    mine, theirs = (tmp_path / "w.md").read_text(), md.read_text()
    assert "## Charts" in theirs and "![" in theirs and "![" not in mine
    assert _without_charts(theirs) == mine  # every section, word for word
    html = (tmp_path / "w.html").read_text()
    heads = re.findall(r"<h2>(.*?)</h2>", html)
    assert heads == [h for h in re.findall(r"^## (.*)$", mine, flags=re.M)]


@pytest.mark.parametrize("data", [SERVE, LORA], ids=["serve", "lora"])
def test_report_states_gpus_needed_speed_and_cost(window: Any, tmp_path: Path, data: dict) -> None:
    window.state.set_scenario(data)
    window.advisor.wait()
    assert window.files.export_report(tmp_path / "r.md")
    text = (tmp_path / "r.md").read_text()
    parts = dict(re.findall(r"^## (.*?)\n\n(.*?)(?=\n## |\Z)", text, flags=re.S | re.M))
    assert "Needs" in parts["GPUs needed"] and "H100" in parts["GPUs needed"]
    assert "tokens" in parts["Speed"] and re.search(r"\d", parts["Speed"])
    assert "per GPU-hour" in parts["Cost"] and "$" in parts["Cost"]
    if data is SERVE:
        assert "Cost per million output tokens" in parts["Cost"]
        assert "users at" in parts["Speed"] and "first token" in parts["Speed"]
    else:
        assert "Trained tokens per second" in parts["Speed"]
        assert "training_tokens" in parts["Cost"]  # no tokens set: says how to get the cost
