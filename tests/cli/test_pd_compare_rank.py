"""``compare`` on a P/D scenario ranks the cheaper of the split the advice found and the
aggregated answer, the other beside it (core/sizing/pd_choice.py). The buyer's ask: "the
advisor picks the split (xPyD) that meets the targets at the least cost, and compares it with
the aggregated answer in the same table". Before, the DeepSeek-V3 case ranked A100 SXM 80GB by
464 aggregated GPUs while a note said a 1P4D split of 80 met the same targets; that split ran
about 70 of the 512 users at once (its decode engine capped at the aggregated replica's users);
at SGLang's own running-request cap, with every wait in the first token, 3P6D (144) serves
them all and is ranked."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.cli import main
from gpusizer.core.sizing.pd_choice import split_layout
from gpusizer.io.compare_columns import columns_for, is_pd
from tests.scenarios import LLAMA_70B_PD

DATA = Path(__file__).parent / "data" / "buyer"
PD = DATA / "serve-deepseek-v3-pd.gpusizer.json"
GPUS = ("a100-sxm-80gb", "gb200-186gb")
LLAMA: dict[str, Any] = LLAMA_70B_PD


@pytest.fixture(scope="module")
def rows() -> dict[str, dict[str, Any]]:
    case = json.loads(PD.read_text())
    return {o["gpu"]: o for o in gpusizer.compare_gpus(case, gpus=list(GPUS))}


def test_the_split_is_ranked_where_it_is_the_cheaper() -> None:
    """Llama 3.1 70B for 64 users at a 1 s first token and 30 tokens/s on H100: the aggregated
    answer (8 GPUs, TP 4 x DP 2) misses the first token (2.65 s), a split meets both, so the
    split's count, layout and speed are the row's and the 8 stay in ``pd_other_*``, priced as
    the row is."""
    o = gpusizer.compare_gpus(LLAMA, gpus=["h100-sxm-80gb"])[0]
    split = o["disaggregated_split"]
    assert o["pd_chosen"] == split and o["targets_met"] is True and o["unmet"] is None
    assert o["gpus"] == o["disaggregated_split_gpus"]
    assert o["pd_other"] == "aggregated" and o["pd_other_answer"] == f"{o['pd_other_gpus']} aggregated"
    assert o["pd_other_layout"] == "TP 4 x PP 1 x DP 2"
    assert o["layout"].startswith(f"{split}: ") and "decode TP 4" in o["layout"]
    assert o["ttft_seconds"] == o["disaggregated_split_ttft_seconds"] <= 1.0
    assert o["tpot_seconds"] == o["disaggregated_split_tpot_seconds"] <= 1 / 30
    assert o["tokens_per_second"] == o["disaggregated_split_tokens_per_second"]
    assert o["pd_other_cost_per_million_tokens"] is not None
    # the pools reproduce the split (scenario_changes, docs/scenario-format.md)
    changes = o["scenario_changes"]
    assert changes["serving.disaggregated.prefill_gpus"] == o["disaggregated_split_prefill_gpus"]
    assert changes["serving.disaggregated.decode_gpus"] == o["disaggregated_split_decode_gpus"]
    assert o["layout_reason"].startswith(f"disaggregated {o['layout']}")
    assert "the aggregated answer, 8 GPUs (TP 4 x PP 1 x DP 2), misses them" in o["layout_reason"]


def test_deepseek_v3_split_serves_every_user_and_the_cheaper_is_ranked(rows: dict[str, Any]) -> None:
    """DeepSeek-V3 for 512 users on A100 SXM 80GB. Before, the note's split (1P4D, 80 GPUs at
    19.6 ms a token) put out 3,609 tokens/s, the output of about 70 of the 512 users: SGLang's
    decode engine was capped at the aggregated replica's users, the rest queued outside the
    first token. A decode replica now runs up to its engine's own running-request cap (SGLang's
    ``max_running_requests``, sized from its pool: core/serving/decode_slots.py) and the wait of
    any user beyond it, or beyond its KV pool, is in the first token
    (core/serving/decode_queue.py), so a split puts out what its users draw over their cycle
    (tolerance 0.9: the decode run's own first step and ramp). Each decode replica then runs 86
    users at 46.1 ms a token (the 20 tokens/s floor): 3P6D, 48 prefill + 96 decode GPUs, 144
    against the aggregated 512 (TP 8 x PP 2 x DP 32; 464, DP 29, before MLA's down-projections
    were read whole on every TP rank, core/model/mla_whole.py), is ranked, the aggregated answer
    beside it (docs/evidence/serving.md, the section on the decode pool's running slots)."""
    o = rows["a100-sxm-80gb"]
    cycle = o["disaggregated_split_ttft_seconds"] + 1024 * o["disaggregated_split_tpot_seconds"]
    assert o["disaggregated_split_tokens_per_second"] >= 0.9 * 512 * 1024 / cycle
    assert o["pd_chosen"] == o["disaggregated_split"] == "3P6D" and o["gpus"] == 144
    assert o["layout"] == "3P6D: 48 prefill TP 8 x PP 2 + 96 decode TP 8 x PP 2"
    assert o["pd_other"] == "aggregated" and o["pd_other_gpus"] == 512
    assert o["pd_other_answer"] == "512 aggregated" and o["pd_other_layout"] == "TP 8 x PP 2 x DP 32"
    assert o["pd_other_cost_per_million_tokens"] > o["cost_per_million_tokens"]
    assert "ranked as the cheaper" in o["layout_reason"]


def test_a_split_that_buys_the_same_rack_keeps_the_aggregated_answer(rows: dict[str, Any]) -> None:
    """GB200 NVL72 is bought by the rack: a split buys at least the 72, so the aggregated
    answer stays ranked (no KV transfer between pools) and the split is shown."""
    o = rows["gb200-186gb"]
    assert o["pd_chosen"] == "aggregated" and o["gpus"] == 72
    assert o["pd_other"] == o["disaggregated_split"] and o["pd_other_gpus"] % 72 == 0
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
    assert "3P6D: 48 prefill" in row and "512 aggregated" in row  # 464 before the whole MLA projections
    assert "ranked as the cheaper" in out


def test_split_layout_words() -> None:
    from gpusizer.core.sizing.option_split import DisaggSplit

    split = DisaggSplit(1, 4, 16, 16, 8, 1.4, 0.02, 1e4, True)
    assert split_layout(split, 2) == "1P4D: 16 prefill TP 8 x PP 2 + 64 decode TP 8 x PP 2"
    assert split_layout(DisaggSplit(1, 4, 8, 8, 8, 1.4, 0.02, 1e4, True), 1) == (
        "1P4D: 8 prefill TP 8 + 32 decode TP 8"
    )
