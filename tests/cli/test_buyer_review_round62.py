"""A buyer's reading of ``compare`` and ``plan``, round 62 (docs/evidence/rl.md, the round-62
section): a purchase budget, ``targets.max_purchase_usd`` (core/sizing/budget.py).

The university lab's full fine-tune of Llama 3.1 8B within 5 days, owned, had no cap: the owned
ranking put a $125,000 Gaudi 3 kit and a $189,607 MI355X platform on top of a $50,000 lab
(round 61). With the budget, rows over it miss their targets, rank after the rows within it,
nearest the budget first, and say by how much; without it every answer is as before.

One ``compare_gpus`` of five GPUs (owned) and the same on the cloud basis, which the sizing
memo answers without a second search; the rest are pure functions on their rows.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.budget import budget_fields, budget_line, budget_price
from gpusizer.core.sizing.miss_rank import Goals
from gpusizer.core.sizing.service_level import any_target
from gpusizer.io.budget_text import budget_summary_line
from tests.cli.buyer_cases import DATA, case

BUDGET = "full-ft-llama-3.1-8b-university-budget-50k"
GPUS = ("a100-pcie-80gb", "h100-pcie-80gb", "gaudi-3-128gb", "apple-m3-max-128gb", "rtx-3090-24gb")


def _by_gpu(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {o["gpu"]: o for o in rows}


@pytest.fixture(scope="module")
def owned() -> list[dict[str, Any]]:
    return gpusizer.compare_gpus(case(BUDGET), gpus=list(GPUS), basis="owned")


def test_rows_within_the_budget_rank_before_those_over_it(owned: list[dict[str, Any]]) -> None:
    # catalog prices (src/gpusizer/presets): 4 x A100 PCIe 80GB $46,000 (cards only), 8 x RTX
    # 3090 $9,656 + the $650-a-card host (box_host.py) = $14,856, 2 x H100 PCIe $58,400, the
    # Gaudi 3 8-accelerator kit $125,000; 3 M3 Max Macs $15,000 miss the 5 days (14.7 days)
    assert [o["gpu"] for o in owned] == [
        "a100-pcie-80gb",
        "rtx-3090-24gb",
        "h100-pcie-80gb",  # 1.17 x the budget
        "gaudi-3-128gb",  # 2.5 x the budget
        "apple-m3-max-128gb",  # within it, 2.9 x the deadline
    ]
    rows = _by_gpu(owned)
    assert rows["a100-pcie-80gb"]["targets_met"] is True and rows["a100-pcie-80gb"]["over_budget_usd"] == 0
    assert rows["rtx-3090-24gb"]["purchase_cost"] == pytest.approx(14_856)
    assert rows["h100-pcie-80gb"]["over_budget_usd"] == pytest.approx(8_400)
    assert rows["gaudi-3-128gb"]["over_budget_usd"] == pytest.approx(75_000)
    m3 = rows["apple-m3-max-128gb"]
    assert m3["over_budget_usd"] == 0 and m3["targets_met"] is False and "budget" not in m3["unmet_reason"]


def test_a_row_over_the_budget_says_by_how_much(owned: list[dict[str, Any]]) -> None:
    gaudi = _by_gpu(owned)["gaudi-3-128gb"]
    assert gaudi["targets_met"] is False and gaudi["unmet"] == "targets"
    assert gaudi["unmet_reason"] == (
        "over budget by $75,000: the purchase is $125,000 against the $50,000 budget "
        "(targets.max_purchase_usd)"
    )
    assert budget_line(gaudi) == f"Budget (gaudi-3-128gb): {gaudi['unmet_reason']}"  # plan's line
    assert budget_line(_by_gpu(owned)["a100-pcie-80gb"]) is None


def test_the_line_under_the_table(owned: list[dict[str, Any]]) -> None:
    (line,) = budget_summary_line(owned, parse_scenario(case(BUDGET)))
    assert line == (
        "Budget $50,000 (targets.max_purchase_usd): 3 ranked rows within it, the first #1 "
        "a100-pcie-80gb at $46,000 (1 of them data-centre cards priced without the server they "
        "need; the first priced whole #2 rtx-3090-24gb at $14,856); 2 over it, ranked after, the "
        "nearest #3 h100-pcie-80gb by $8,400 (their lines below)"
    )


def test_renting_holds_the_box_with_its_host() -> None:
    rows = _by_gpu(gpusizer.compare_gpus(case(BUDGET), gpus=list(GPUS)))  # cloud basis, memo'd search
    box = rows["rtx-3090-24gb"]
    # renting leaves the host out of the purchase it shows; the budget holds the whole box
    assert box["purchase_cost"] == pytest.approx(9_656) and box["host_purchase_usd"] == pytest.approx(5_200)
    assert budget_price(box) == pytest.approx(14_856)
    over = budget_fields(box, 12_000.0)
    assert over["over_budget_usd"] == pytest.approx(2_856) and over["targets_met"] is False
    assert over["unmet_reason"].startswith(
        "over budget by $2,856: the purchase is $14,856 (with the $5,200 host the cards need) against"
    )


def test_without_a_budget_nothing_changes(owned: list[dict[str, Any]]) -> None:
    row = _by_gpu(owned)["gaudi-3-128gb"]
    assert budget_fields(row, None) == {}
    plain = case("full-ft-llama-3.1-8b-university-owned-50k")
    s = parse_scenario(plain)
    assert s.targets.max_purchase_usd is None and Goals.of(s).budget_usd is None
    # a serving scenario with only a budget shows the targets columns
    serve = {"model": {"preset": "llama-3.1-8b"}, "workload": {"kind": "inference"}}
    off = parse_scenario({**serve, "targets": {"default_service_level": False}})
    on = parse_scenario({**serve, "targets": {"default_service_level": False, "max_purchase_usd": 9000}})
    assert (any_target(off), any_target(on)) == (False, True)


@pytest.mark.parametrize("bad", [0, -5000, "50000", True, None])
def test_bad_budgets_are_refused_naming_the_field(bad: Any) -> None:
    data = case(BUDGET)
    data["targets"]["max_purchase_usd"] = bad
    if bad is None:  # null: no budget
        assert parse_scenario(data).targets.max_purchase_usd is None
        return
    with pytest.raises(ScenarioError, match=r"targets\.max_purchase_usd"):
        parse_scenario(data)


@pytest.mark.parametrize(("value", "says"), [("0", "greater than 0"), ("lots", "cannot read 'lots'")])
def test_the_flag_refuses_in_one_line(capsys: pytest.CaptureFixture[str], value: str, says: str) -> None:
    code = main(["estimate", "--model", "llama-3.1-8b", "--budget-usd", value])
    err = capsys.readouterr().err
    assert code == 2 and says in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "usd"),
    [
        (BUDGET, 50_000),
        ("serve-llama-3.3-70b-fp8-200-users-300k-owned", 300_000),
        ("qlora-llama-3.3-70b-workstation-20k-owned", 20_000),
    ],
)
def test_the_new_cases_are_on_file(name: str, usd: float) -> None:
    data = json.loads((DATA / f"{name}.gpusizer.json").read_text())
    assert data["name"] and parse_scenario(case(name)).targets.max_purchase_usd == usd
