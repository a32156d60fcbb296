"""A buyer's reading of ``compare`` and ``plan``, round 60 (docs/evidence/rl.md, the round-60
section): what a buyer would not sign in four fresh cases.

1. Owning, a box of consumer or workstation cards sold alone was priced as its cards, with
   their board power, and ranked against whole workstations and Macs: a $249 Arc B580 above a
   $2,920 RTX 4090 workstation for a 70B QLoRA. It now carries the least host the catalog's own
   workstations add ($650 a card, 400 W a box: presets/systems/workstation-rtx4090-x1.json),
   said in its Purchase line (core/sizing/box_host.py).
2. A serving ``$/M tok`` is per million output tokens, the prompts paid inside it. A 128K-token
   document service read $58.65; the line under the table now says what it counts and gives the
   figure per token in and out, as API price lists quote them (io/serving_price_text.py).
3. ``serving.disaggregated`` set without ``prefill_gpus`` is off: a file asking for P/D as
   ``{}`` got the aggregated answer without a word. ``compare`` and ``plan`` now say so, naming
   the field (io/serving_price_text.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.model.presets import gpu_presets, system_presets
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.box_host import least_host
from gpusizer.io.serving_price_text import output_token_line, pd_unset_line
from tests.cli.buyer_cases import DATA, case

QLORA = "qlora-llama-3.3-70b-lab-budget-owned-30m"
LONG = "serve-llama-3.3-70b-fp8-128k-long-context-16"
PD = "serve-deepseek-v3-pd-1000-users"
NEW = (QLORA, LONG, PD, "serve-qwen3-235b-a22b-fp8-eagle3-prefix-startup-150")


def rows(data: dict[str, Any], *gpus: str, **money: Any) -> dict[str, dict[str, Any]]:
    return {o["gpu"]: o for o in gpusizer.compare_gpus(data, gpus=list(gpus), **money)}


# --- 1. owning a box of cards buys its host ----------------------------------------------------


def test_the_least_host_is_read_from_the_catalog_workstations() -> None:
    # workstation-rtx4090-x1: "1 x (card street price $2,270 + per-card system overhead $650)",
    # "1 x 450 W card board power + 400 W for the platform"; the 5090 and PRO 6000 builds add
    # $700 and $1,100 a card, so the 4090's is the least
    host = least_host()
    assert host is not None and host.system == "workstation-rtx4090-x1"
    ws, card = system_presets()["workstation-rtx4090-x1"], gpu_presets()["rtx-4090-24gb"]
    assert host.usd_per_card == pytest.approx(ws.list_price_usd - card["list_price_usd"])  # 650
    assert host.watts_per_box == pytest.approx(ws.power_watts - card["tdp_watts"])  # 400
    assert (host.usd_per_card, host.watts_per_box) == (650, 400)


def test_an_owned_box_of_cards_is_priced_with_its_host() -> None:
    out = rows(case(QLORA), "arc-b580-12gb", "rtx-4090-24gb", basis="owned")
    arc, ws = out["arc-b580-12gb"], out["rtx-4090-24gb"]
    # the card's launch MSRP $249 + $650 of host; its 190 W board power + 400 W of platform
    assert arc["purchase_cost"] == pytest.approx(249 + 650)
    assert arc["power_watts"] == pytest.approx(190 + 400)
    assert (arc["host_purchase_usd"], arc["host_power_watts"]) == (650, 400)
    # a catalog workstation already carries its host: nothing is added
    assert ws["purchase_cost"] == pytest.approx(2920) and ws["host_purchase_usd"] is None


def test_renting_keeps_the_card_price() -> None:
    # a cloud's hourly price is the whole machine's; Purchase $ on that basis is as before
    arc = rows(case(QLORA), "arc-b580-12gb")["arc-b580-12gb"]
    assert arc["purchase_cost"] == pytest.approx(249) and arc["power_watts"] == pytest.approx(190)


def test_a_data_centre_pcie_box_is_left_as_it_was() -> None:
    # no catalog figure for a server around 8 PCIe cards: cards only, as before
    l40s = rows(case(QLORA), "l40s-48gb", basis="owned")["l40s-48gb"]
    assert l40s["host_purchase_usd"] is None


def test_the_purchase_line_says_what_the_host_adds(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["compare", str(DATA / f"{QLORA}.gpusizer.json"), "--basis", "owned", "--gpus", "arc-b580-12gb"]
    )
    text = capsys.readouterr().out
    assert code == 0
    assert (
        "Purchase (arc-b580-12gb): $899, launch MSRP (Intel Limited Edition, December 2024); with "
        "$650 and 400 W for the host the cards need (CPU, board, RAM, power supply, what "
        "workstation-rtx4090-x1 adds to its card): a card alone does not run"
    ) in text


def test_the_owned_order_weighs_the_host() -> None:
    # before: the Arc B580 ran the 30M-token QLoRA for $1.71 and the RTX PRO 6000 workstation for
    # $6.27 (3.7x); with its host the card's run is $5.47, within 15% of the workstation's 13.7 h
    out = rows(case(QLORA), "arc-b580-12gb", "rtx-pro-6000-blackwell-96gb", basis="owned")
    arc, pro = out["arc-b580-12gb"], out["rtx-pro-6000-blackwell-96gb"]
    assert arc["training_cost"] == pytest.approx(5.47, rel=0.01)
    assert pro["training_cost"] == pytest.approx(6.27, rel=0.01)


# --- 2. what a serving $/M tok counts ----------------------------------------------------------


def test_the_long_context_price_is_said_per_token_in_and_out() -> None:
    data = case(LONG)
    options = list(rows(data, "mi325x-256gb").values())
    line = output_token_line(options, parse_scenario(data))[0]
    cost = options[0]["cost_per_million_tokens"]
    # 120,000 tokens in and 1,024 out a request: the in-and-out figure is cost x 1,024 / 121,024
    assert cost == pytest.approx(58.65, rel=0.01)
    assert line.startswith("$/M tok: per million output tokens, each request's prompt paid inside it")
    assert "(120,000 tokens in, 1,024 out)" in line
    assert f"is ${cost * 1024 / 121024:.2f}" in line


def test_training_and_multi_turn_have_no_such_line() -> None:
    qlora = case(QLORA)
    assert output_token_line(list(rows(qlora, "h100-sxm-80gb").values()), parse_scenario(qlora)) == []
    chat = case("serve-qwen3-8b-multi-turn-15-prefix-vllm")
    assert output_token_line([{"fits": True, "cost_per_million_tokens": 1.0}], parse_scenario(chat)) == []


# --- 3. a P/D block without its prefill pool --------------------------------------------------


def test_an_empty_pd_block_is_said_to_be_off() -> None:
    line = pd_unset_line(parse_scenario(case(PD)))
    assert line is not None and "serving.disaggregated.prefill_gpus" in line
    pools = case(PD)
    pools["serving"]["disaggregated"] = {"prefill_gpus": 16, "decode_gpus": 16}
    assert pd_unset_line(parse_scenario(pools)) is None


def _small_pd(tmp_path: Path, split: dict[str, Any]) -> str:
    data = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 256},
        "serving": {"max_context": 4096, "disaggregated": split},
        "targets": {"users": 8},
    }
    path = tmp_path / "pd.gpusizer.json"
    path.write_text(json.dumps(data))
    return str(path)


@pytest.mark.parametrize("command", ["compare", "plan"])
def test_compare_and_plan_say_the_pd_block_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    flag = "--gpus" if command == "compare" else "--gpu"
    code = main([command, _small_pd(tmp_path, {"decode_gpus": 2}), flag, "h100-sxm-80gb"])
    assert code == 0
    assert "P/D: serving.disaggregated is set without prefill_gpus" in capsys.readouterr().out


# --- 4. the cases read -------------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_the_new_cases_are_on_file(name: str) -> None:
    data = json.loads((DATA / f"{name}.gpusizer.json").read_text())
    assert data["name"] and parse_scenario(case(name)) is not None
