"""A run's cost carries the band its time carries (core/sizing/compare_costs.py
``run_cost_range``): a buyer signs a budget, and a row read "$ to train 194" beside an RL run
band of 14.9 h-1.3 d whose every edge costs more. The run is billed by the hour, so the band on
its time (``time_seconds_range``; RL ``rl_run_seconds_range``, core/sizing/option_band.py) is
the band on its cost: ``training_cost_range`` = ``cost_per_hour`` x each edge. The ranking stays
on the estimate. Each case runs on one GPU type to keep it short (tests/cli/data/buyer/)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.sizing.compare_rank import sort_options
from gpusizer.core.sizing.solver import plan_text
from gpusizer.io.compare_table import band_tip_lines, columns_for, plan_columns

DATA = Path(__file__).parent / "data" / "buyer"
RL_CASE = DATA / "rl-qwen3-30b-a3b-colocated.gpusizer.json"


def case(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


def row(name: str, gpu: str) -> dict[str, Any]:
    return gpusizer.compare_gpus(case(name), gpus=[gpu])[0]


@pytest.fixture(scope="module")
def rl_row() -> dict[str, Any]:
    return row("rl-qwen3-30b-a3b-colocated", "mi325x-256gb")


def test_rl_cost_band_is_the_run_band_priced(rl_row: dict[str, Any]) -> None:
    # docs/evidence/rl.md round 44 (Left undone): the MI325X steps in 1.5 min against a band of
    # 1.8-3.7 min, its run 12.4 h against 14.9 h-1.3 d, and "$ to train" was the estimate alone
    o = rl_row
    lo, hi = o["training_cost_range"]
    run_lo, run_hi = o["rl_run_seconds_range"]
    # the same hourly price over each edge of the run's time (exact: no rounding on the way)
    assert lo == pytest.approx(o["cost_per_hour"] * run_lo / 3600, rel=1e-12)
    assert hi == pytest.approx(o["cost_per_hour"] * run_hi / 3600, rel=1e-12)
    # the cost band is the run band's ratio on the estimate's cost
    assert lo / o["training_cost"] == pytest.approx(run_lo / o["rl_run_seconds"], rel=1e-12)
    # RL's replayed steps run slower than their estimates (rl.md section 8): the band lies above
    assert o["training_cost"] < lo < hi


def test_pretraining_cost_band_follows_its_time_band() -> None:
    # the training kinds' band is compute.time_seconds_range's (core/evidence/ranges.py)
    o = row("pretrain-1b-100b", "h100-sxm-80gb")
    lo, hi = o["training_cost_range"]
    t_lo, t_hi = o["time_seconds_range"]
    assert lo == pytest.approx(o["cost_per_hour"] * t_lo / 3600, rel=1e-12)
    assert hi == pytest.approx(o["cost_per_hour"] * t_hi / 3600, rel=1e-12)
    assert lo < o["training_cost"] < hi  # this regime's band holds the estimate


def test_no_band_where_nothing_is_timed_or_served() -> None:
    # serving has no run to price; every option still carries the key, null (the JSON aligns)
    served = row("serve-70b-chat", "h100-sxm-80gb")
    assert "training_cost_range" in served and served["training_cost_range"] is None
    # no workload.training_tokens: no run time, so neither its cost nor its band
    data = case("pretrain-1b-100b")
    data["workload"].pop("training_tokens", None)
    untimed = gpusizer.compare_gpus(data, gpus=["h100-sxm-80gb"])[0]
    assert untimed["training_cost"] is None and untimed["training_cost_range"] is None


def test_unpriced_row_has_no_cost_band() -> None:
    # the H20 has no on-demand price in the catalog (its row's "$ to train" is blank)
    o = row("rl-qwen3-30b-a3b-colocated", "h20-96gb")
    assert o["rl_run_seconds_range"] and o["cost_per_hour"] is None
    assert o["training_cost_range"] is None


def test_ranking_stays_on_the_estimate() -> None:
    # the band is a reading beside the cost, not a rank: dropping it changes no order
    gpus = ["mi325x-256gb", "h100-sxm-80gb", "b200-192gb"]
    opts = gpusizer.compare_gpus(case("rl-qwen3-30b-a3b-colocated"), gpus=gpus)
    bare = [o | {"training_cost_range": None} for o in opts]
    assert [o["gpu"] for o in sort_options(bare, "cost")] == [o["gpu"] for o in opts]


def test_compare_table_shows_the_band_beside_the_cost(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(RL_CASE), "--gpus", "mi325x-256gb"]) == 0
    head, _, first, *_ = capsys.readouterr().out.splitlines()
    assert "$ to train  $ to train band" in head  # next to the cost it bands
    o = row("rl-qwen3-30b-a3b-colocated", "mi325x-256gb")
    lo, hi = o["training_cost_range"]
    # right-aligned under their headers: "194   233-481"
    assert re.search(rf" {o['training_cost']:,.0f} +{lo:,.0f}-{hi:,.0f} ", first), first
    # every training kind gets the column; serving does not
    assert "training_cost_range" in [c.key for c in columns_for(True, False)]
    assert "training_cost_range" not in [c.key for c in columns_for(False, False)]


def test_compare_json_adds_the_key(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(RL_CASE), "--gpus", "mi325x-256gb", "--json"]) == 0
    (o,) = json.loads(capsys.readouterr().out)
    lo, hi = o["training_cost_range"]
    assert o["training_cost"] < lo < hi


def test_plan_text_carries_the_cost_and_its_band() -> None:
    # gpusizer-cli plan's table (cli_commands.cmd_plan) on one GPU type
    opts = gpusizer.plan(case("rl-qwen3-30b-a3b-colocated"), gpus=["mi325x-256gb"])
    text = plan_text(opts, (), plan_columns(opts))
    head, _, first, *_ = text.splitlines()
    lo, hi = opts[0]["training_cost_range"]
    assert f"{lo:,.0f}-{hi:,.0f}" in first
    # after the RL run band, before the price per hour
    assert head.index("RL run band") < head.index("$ to train band") < head.index("$/hour")


def test_hardware_tooltip_prices_the_band(rl_row: dict[str, Any]) -> None:
    # the window's row tooltip (gui/hardware/table.py) lists band_tip_lines; the column is hidden
    # at first, as every band column (core/views/settings.py)
    lo, hi = rl_row["training_cost_range"]
    assert f"At that time band the run costs ${lo:,.0f}-${hi:,.0f}" in band_tip_lines(rl_row)
