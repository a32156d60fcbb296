"""``compare`` on a P/D scenario ranks the split the advice found, the aggregated answer beside
it (core/sizing/pd_choice.py). The buyer's ask: "the advisor picks the split (xPyD) that meets
the targets at the least cost, and compares it with the aggregated answer in the same table".
Before, the DeepSeek-V3 case ranked A100 SXM 80GB by 464 aggregated GPUs while a note said a
split met the same targets on fewer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.sizing.pd_choice import split_layout
from gpusizer.io.compare_columns import columns_for, is_pd

DATA = Path(__file__).parent / "data" / "buyer"
PD = DATA / "serve-deepseek-v3-pd.gpusizer.json"
GPUS = ("a100-sxm-80gb", "gb200-186gb")


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    case = json.loads(PD.read_text())
    return {o["gpu"]: o for o in gpusizer.compare_gpus(case, gpus=list(GPUS))}


def test_the_split_is_ranked_and_the_aggregated_count_shown_beside_it(rows: dict[str, Any]) -> None:
    """A100 SXM 80GB: the split meets 512 users at a 2 s first token and 20 tokens/s on fewer
    GPUs than the aggregated 464 (TP 8 x PP 2 x DP 29), so its count, layout and speed are the
    row's; the 464 stay in ``pd_other_*``, priced as the row is."""
    o = rows["a100-sxm-80gb"]
    assert o["pd_chosen"] == o["disaggregated_split"]
    assert o["gpus"] == o["disaggregated_split_gpus"] < 464
    assert o["pd_other"] == "aggregated" and o["pd_other_gpus"] == 464
    assert o["pd_other_layout"] == "TP 8 x PP 2 x DP 29"
    assert o["pd_other_answer"] == "464 aggregated"
    assert o["layout"].startswith(f"{o['disaggregated_split']}: ")
    assert "prefill TP 8 x PP 2" in o["layout"] and "decode TP 8 x PP 2" in o["layout"]
    assert o["ttft_seconds"] == o["disaggregated_split_ttft_seconds"] <= 2.0
    assert o["tpot_seconds"] == o["disaggregated_split_tpot_seconds"] <= 1 / 20
    assert o["targets_met"] is True
    # the pools reproduce the split (scenario_changes, docs/scenario-format.md)
    changes = o["scenario_changes"]
    assert changes["serving.disaggregated.prefill_gpus"] == o["disaggregated_split_prefill_gpus"]
    assert changes["serving.disaggregated.decode_gpus"] == o["disaggregated_split_decode_gpus"]
    # the same price per GPU: the split's purchase is its share of the aggregated one
    assert o["purchase_cost"] < o["list_price_usd"] * 464
    assert o["pd_other_cost_per_million_tokens"] is not None
    assert o["layout_reason"].startswith(f"disaggregated {o['layout']}")
    assert "464 GPUs (TP 8 x PP 2 x DP 29)" in o["layout_reason"]


def test_a_split_that_buys_the_same_rack_keeps_the_aggregated_answer(rows: dict[str, Any]) -> None:
    """GB200 NVL72 is bought by the rack: a split of fewer GPUs still buys the 72, so the
    aggregated answer stays ranked (no KV transfer between pools) and the split is shown."""
    o = rows["gb200-186gb"]
    assert o["pd_chosen"] == "aggregated" and o["gpus"] == 72
    assert o["pd_other"] == o["disaggregated_split"] and o["pd_other_gpus"] == 72
    assert o["pd_other_answer"] == f"72 as {o['disaggregated_split']}"
    assert "aggregated kept" in o["layout_reason"]


def test_the_table_shows_the_other_answer_only_for_a_split(rows: dict[str, Any]) -> None:
    options = list(rows.values())
    assert is_pd(options)
    keys = [c.key for c in columns_for(False, True, False, is_pd(options))]
    assert "pd_other_answer" in keys and "pd_other_cost_per_million_tokens" in keys
    assert "pd_other_answer" not in [c.key for c in columns_for(False, True)]


def test_cli_compare_prints_the_split_and_the_other_answer(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["compare", str(PD), "--gpus", "a100-sxm-80gb"]) == 0
    out = capsys.readouterr().out
    head, row = out.splitlines()[0], out.splitlines()[2]
    assert "Other answer" in head and "Other $/M tok" in head
    assert "464 aggregated" in row and "prefill TP 8" in row
    assert "Why (a100-sxm-80gb): disaggregated " in out


def test_split_layout_words() -> None:
    from gpusizer.core.sizing.option_split import DisaggSplit

    split = DisaggSplit(1, 4, 16, 16, 8, 1.4, 0.02, 1e4, True)
    assert split_layout(split, 2) == "1P4D: 16 prefill TP 8 x PP 2 + 64 decode TP 8 x PP 2"
    assert split_layout(DisaggSplit(1, 4, 8, 8, 8, 1.4, 0.02, 1e4, True), 1) == (
        "1P4D: 8 prefill TP 8 + 32 decode TP 8"
    )
