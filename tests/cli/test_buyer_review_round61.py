"""A buyer's reading of ``compare`` and ``plan``, round 61 (docs/evidence/rl.md, the round-61
section): round 60's open items and seven fresh cases.

1. An RL run met at the estimate, whose run band lies wholly slower than it and reaches past the
   deadline, read "yes": GRPO of Qwen3 8B in 3 days ranked 4 x RTX A5000 first at 2.8 days
   beside a band of 2.9-4.9 days. The Targets cell now reads "at estimate", as serving's rule
   does (core/sizing/estimate_only.py), a line names the first row met across its band
   (io/estimate_only_text.py) and ``--sort cost_band`` ranks such rows after.
2. Owned data-centre cards sold alone carry no server: their Purchase line says so; a user's
   card price (--prices) with the host added says that too (io/compare_caveats.py).
3. Llama 3.1 8B for 10,000 users ranked a GB200 NVL72 rack first at $0.21 per million tokens
   while 3 MI325X platforms meet the same default target at $0.066: a line names the cheaper
   count (io/level_cheaper_text.py).
4. SGLang ranked MI210 and MI250X (CDNA2) for a P/D service on AMD: sgl-kernel's ROCm build
   targets gfx942 and gfx950 alone, so those are left out (core/registry/frameworks_serving.py).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.compare import left_out_gpus, left_out_line
from gpusizer.io.compare_caveats import caveat_lines
from gpusizer.io.estimate_only_text import estimate_only_line
from gpusizer.io.level_cheaper_text import level_cheaper_line
from tests.cli.buyer_cases import DATA, case

GRPO = "rl-qwen3-8b-grpo-500-3days"
QLORA = "qlora-llama-3.3-70b-lab-budget-owned-30m"
USERS = "serve-llama-3.1-8b-10k-users-cheapest"
PD_AMD = "serve-qwen3-235b-fp8-pd-amd-sglang-300"
NEW = (
    "rl-qwen3-14b-ppo-critic-verl-7days",
    "pretrain-olmoe-1b-7b-1t-h200-b200-mi355x",
    USERS,
    "serve-llama-3.1-405b-fp8-one-node-32",
    "lora-qwen3-32b-mac-spark-pro6000-20m",
    "full-ft-llama-3.1-8b-university-owned-50k",
    PD_AMD,
)
DAY = 86_400.0


def ranked(data: dict[str, Any], *gpus: str, **how: Any) -> list[dict[str, Any]]:
    return gpusizer.compare_gpus(data, gpus=list(gpus), **how)


# --- 1. a run band wholly slower than the estimate ----------------------------------------------


@pytest.fixture(scope="module")
def grpo() -> list[dict[str, Any]]:
    return ranked(case(GRPO), "rtx-a5000-24gb", "mi325x-256gb")


def test_a_band_wholly_past_the_estimate_reads_at_estimate(grpo: list[dict[str, Any]]) -> None:
    a5000 = next(o for o in grpo if o["gpu"] == "rtx-a5000-24gb")
    low, high = (x / DAY for x in a5000["rl_run_seconds_range"])
    # 2.8 days at the estimate for the 3 asked; colocated dense RL's band (p10 1.02, rl.md) puts
    # runs like it at 2.9-4.9 days: the fast edge within 3 days, so it read "yes" before; 2.9-5.5
    # days since the twelfth blind RL round's Unsloth steps widened the band (1.03-1.96)
    assert a5000["targets_met"] is True and a5000["rl_run_seconds"] / DAY < 3 < high
    assert a5000["rl_run_seconds"] < a5000["rl_run_seconds_range"][0] and low < 3
    assert a5000["targets_met_at_estimate_only"] is True
    note = next(n for n in a5000["notes"] if "deadline at the estimate" in n)
    assert note.startswith(
        "meets the 3-day deadline at the estimate (2.8 days), but published runs like it took longer "
        "than their estimates, up to 5.5 days (the RL run band, 2.9 days to 5.5 days, wholly past "
        "the estimate)"
    ), note


def test_the_line_names_the_first_row_met_across_its_band(grpo: list[dict[str, Any]]) -> None:
    # the A5000 box ranks first by the estimate ($70 a run), the MI325X platform second ($79, 5 h)
    assert [o["gpu"] for o in grpo] == ["rtx-a5000-24gb", "mi325x-256gb"]
    (line,) = estimate_only_line(grpo)
    assert line.startswith("#1 (rtx-a5000-24gb) meets the targets at the estimate only")
    assert "the first row that meets them across its band is #2 (mi325x-256gb, 8 GPUs)" in line


def test_the_band_sort_ranks_it_after() -> None:
    got = ranked(case(GRPO), "rtx-a5000-24gb", "mi325x-256gb", sort="cost_band")
    assert [o["gpu"] for o in got] == ["mi325x-256gb", "rtx-a5000-24gb"]
    assert estimate_only_line(got) == []


# --- 2. what an owned box of cards leaves out ---------------------------------------------------


def _purchase(options: list[dict[str, Any]], gpu: str) -> str:
    return next(line for line in caveat_lines(options, True) if line.startswith(f"Purchase ({gpu})"))


def test_owned_data_centre_cards_say_the_server_is_not_priced() -> None:
    got = ranked(case(QLORA), "l40s-48gb", basis="owned")
    # the catalog prices an L40S as one card ($8,000), and no server of PCIe cards
    assert got[0]["purchase_cost"] == pytest.approx(8000) and got[0]["system"] is None
    assert _purchase(got, "l40s-48gb").endswith(
        "; the cards alone: the server they need (CPU, board, RAM, power supply, for SXM or OAM "
        "modules a baseboard too) is in neither the price nor the power, as the catalog holds no "
        "price of one; add its share to each card's price (--prices, by GPU id)"
    )
    # a whole catalog server says nothing of the kind
    h100 = ranked(case(QLORA), "h100-sxm-80gb", basis="owned")
    assert "the cards alone" not in _purchase(h100, "h100-sxm-80gb")


def test_a_user_card_price_says_the_host_is_added() -> None:
    prices = {"arc-b580-12gb": {"list_price_usd": 200}, "l40s-48gb": {"list_price_usd": 9000}}
    got = ranked(case(QLORA), "arc-b580-12gb", "l40s-48gb", basis="owned", prices=prices)
    arc = next(o for o in got if o["gpu"] == "arc-b580-12gb")
    assert arc["purchase_cost"] == pytest.approx(200 + 650)  # the host of round 60 on top
    assert _purchase(got, "arc-b580-12gb").endswith(
        "; your price (--prices) is taken as the card's and the host is added to it: for a quote "
        "of the whole box, give it less $650 a card"
    )
    assert _purchase(got, "l40s-48gb").endswith(
        "; your price (--prices) is counted as it is: a server's share belongs in it"
    )


# --- 3. the default target met for less ---------------------------------------------------------


def test_a_cheaper_count_at_the_default_target_is_named() -> None:
    got = ranked(case(USERS), "gb200-186gb", "mi325x-256gb")
    rack, mi = got
    # the rack meets the default target (first token within 2 s) at $0.21 per million tokens; 2
    # MI325X platforms hold the 10,000 users at $0.064 with a 3.6 s first token, and 3 meet 2 s
    assert rack["gpu"] == "gb200-186gb" and rack["cost_per_million_tokens"] == pytest.approx(0.214, rel=0.02)
    assert mi["default_target_met"] is False and mi["level_count"]["gpus"] == 24
    assert mi["level_count"]["cost_per_million_tokens"] == pytest.approx(0.066, rel=0.02)
    (line,) = level_cheaper_line(got)
    assert line.startswith("Cheaper at the default target: 24 x mi325x-256gb (TP 1 x PP 1 x DP 24) meet it")
    assert "$0.066 per million tokens, against #1's $0.214" in line


# --- 4. SGLang on AMD: CDNA3 and CDNA4 --------------------------------------------------------


def test_sglang_leaves_out_amd_gpus_its_kernels_are_not_built_for() -> None:
    ids = ["mi210-64gb", "mi250x-gcd-64gb", "rx-7900-xtx-24gb", "mi300x-192gb", "mi355x-288gb"]
    assert left_out_gpus(case(PD_AMD), ids) == ["mi210-64gb", "mi250x-gcd-64gb", "rx-7900-xtx-24gb"]
    line = left_out_line(case(PD_AMD), ["mi210-64gb"]) or ""
    assert "on AMD only CDNA3 and CDNA4 Instinct GPUs" in line and "gfx942 and gfx950" in line
    # vLLM builds for CDNA2 too: the same service under vLLM keeps the MI210
    assert left_out_gpus(case(PD_AMD) | {"framework": "vllm"}, ["mi210-64gb"]) == []


def test_estimate_refuses_sglang_on_an_mi210() -> None:
    data = case(PD_AMD) | {"hardware": {"gpu": "mi210-64gb"}}
    data["serving"] = {"max_context": 8192}
    with pytest.raises(ScenarioError) as exc:
        estimate(parse_scenario(data))
    assert exc.value.field == "framework" and "not on Instinct MI210 64GB" in exc.value.message


# --- 5. the cases read --------------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_the_new_cases_are_on_file(name: str) -> None:
    data = json.loads((DATA / f"{name}.gpusizer.json").read_text())
    assert data["name"] and parse_scenario(case(name)) is not None
