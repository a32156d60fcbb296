"""``gpusizer-cli plan`` of an RL scenario prints RL's step and run with their bands in the words,
units and format of ``compare`` (one column registry, io/compare_table.py ``plan_columns``):
"RL step", "RL step band", "RL run", "RL run band"; other workloads add no column."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer.cli import main
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.solver import plan, plan_text
from gpusizer.io.compare_table import columns_for, plan_columns, table_rows

RL: dict[str, Any] = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl"},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8},
}
# the run's cost and its band follow the run band: a budget is signed at the band's edges too
# (core/sizing/compare_costs.py run_cost_range, tests/cli/test_run_cost_band.py)
HEADERS = ["RL GPUs", "RL step", "RL step band", "RL run", "RL run band", "$ to train", "$ to train band"]


@pytest.fixture(scope="module")
def options() -> list[dict[str, Any]]:
    return plan(parse_scenario(RL), gpus=["h100-sxm-80gb"])


def test_plan_columns_are_compares_rl_step_and_run(options: list[dict[str, Any]]) -> None:
    extra = plan_columns(options)
    assert [h for h, _ in extra] == HEADERS
    # the same cells compare's table prints for the same option
    cols = [c for c in columns_for(True, False, True) if c.header in HEADERS]
    # (by header: compare puts "$ to train" beside "$/M tok", plan after the run band)
    compare_row = dict(zip([c.header for c in cols], table_rows(options[:1], cols)[1], strict=True))
    assert {h: cell(options[0]) for h, cell in extra} == compare_row
    assert all("-" in cell(options[0]) for h, cell in extra if h.endswith("band"))


def test_plan_text_shows_the_band_columns(options: list[dict[str, Any]]) -> None:
    text = plan_text(options, (), plan_columns(options))
    head = text.splitlines()[0]
    assert all(h in head for h in HEADERS)
    assert head.index("RL run band") < head.index("$/hour")


def test_other_workloads_add_no_column() -> None:
    opts = plan(parse_scenario({"model": {"preset": "llama-3.1-8b"}}), gpus=["h100-sxm-80gb"])
    assert plan_columns(opts) == []
    assert "RL step" not in plan_text(opts, (), plan_columns(opts))


def test_the_cli_plan_table_has_the_band(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI wires the columns in (its search narrowed to one GPU by ``--gpu`` to keep the
    test short)."""
    path = tmp_path / "rl.gpusizer.json"
    path.write_text(json.dumps(RL), encoding="utf-8")
    assert main(["plan", str(path), "--gpu", "h100-sxm-80gb"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert all(h in head for h in HEADERS)
