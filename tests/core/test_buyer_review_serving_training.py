"""A buyer's reading of `compare` for cases the RL and P/D review did not cover (the scenarios
under tests/cli/data/buyer/: a 70B FP8 chat service, gpt-oss-120b on AMD, local single-box
inference, QLoRA of a 70B, an 8B full fine-tune, a 1B pre-training, DeepSeek-R1 for 1,000
users). Each test states what a buyer expects of a row and why; each compares one or a few GPU
types to keep the run short."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import gpusizer
from gpusizer.core.sizing.reason import _pipeline_in_node
from gpusizer.core.sizing.unmet import priced_reason

DATA = Path(__file__).parent.parent / "cli" / "data" / "buyer"
DAY = 86400.0


def case(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.gpusizer.json").read_text())


def row(name: str, gpu: str, **kw: Any) -> dict[str, Any]:
    return gpusizer.compare_gpus(case(name), gpus=[gpu], **kw)[0]


def days_at(scenario: dict[str, Any], gpu: str, par: dict[str, Any]) -> float:
    """The estimate's training days of ``scenario`` on ``gpu`` laid out as ``par``."""
    s = scenario | {"hardware": {"gpu": gpu}, "parallelism": par}
    return gpusizer.estimate_report(s)["compute"]["time_seconds"] / DAY


def test_deadline_units_run_their_fastest_layout() -> None:
    # Llama 3.2 1B on 100B tokens within 14 days: one 8-GPU MI325X platform meets it either way,
    # and was laid out TP 4 x DP 2 (4.0 days) where DP 8 trains in 2.8 days on the same 8 GPUs
    # (the estimate's own step model): no one splits a 1B model's layers four ways, and the
    # buyer pays for the slower run ($/run from the GPU-hours)
    scenario = case("pretrain-1b-100b")
    o = row("pretrain-1b-100b", "mi325x-256gb")
    assert o["targets_met"] is True and o["gpus"] == 8
    assert o["parallelism"]["tensor"] == 1 and o["parallelism"]["data"] == 8, o["layout"]
    slow = days_at(scenario, "mi325x-256gb", {"tensor": 4, "data": 2, "zero_stage": 1})
    assert o["time_seconds"] / DAY < 0.75 * slow
    assert "trains it in 2.8 of 14 days" in o["layout_reason"]


def test_deadline_layout_uses_the_units_bought_not_idle_cards() -> None:
    # 16 A40s (two 8-card boxes) for the same 1B run left 2 cards idle at TP 2 x DP 7 (12.1
    # days); all 16 train it at DP 16, faster, and the note of idle GPUs goes
    o = row("pretrain-1b-100b", "a40-48gb")
    assert o["targets_met"] is True
    assert o["gpus_in_layout"] == o["gpus"], o["layout"]
    assert not any("idle" in n for n in o["notes"]), o["notes"]


def test_qlora_deadline_keeps_the_cheapest_run_and_meets_it() -> None:
    # QLoRA of a 70B within 2 days: the 8 GPUs bought run their fastest layout, still within
    # the deadline, and the run costs no more than before (the same hourly rent, a shorter run)
    o = row("qlora-70b-control", "mi325x-256gb")
    assert o["targets_met"] is True
    assert o["wall_time_seconds"] <= 2 * DAY
    assert o["training_cost"] < 23.44  # was $23.44 at TP 4 x DP 2 (1.5 h on $15.60/h)


def test_a_speed_no_count_reaches_is_not_a_count_limit() -> None:
    # 200 users of Llama 3.3 70B FP8 at 20 tokens/s each: a DGX Spark (273 GB/s over ~70 GB of
    # weights) serves one user at about 3 tokens/s, so no count of them meets the target. It read
    # "200 users need more than the 4,096 GPUs the search buys at most" (practical_limit), though
    # the search had stopped at 512 when doubling made no user faster. Desk-side machines now
    # stop at eight of their largest unit (16 Sparks, core/sizing/practical.py), before the search
    # can see the plateau: the cap is named, and beside it the per-user speed its fastest layout
    # still misses, so the sentence does not read as if more Sparks would do
    o = row("serve-llama-3.3-70b-fp8-200", "dgx-spark-128gb")
    assert o["unmet"] == "practical_limit", o["unmet_reason"]
    why = o["unmet_reason"]
    assert "4,096" not in why and "beyond 16 units" in why and "desk-side machine" in why
    assert "on 16 GPUs the fastest layout reaches" in why
    assert "tokens/s per user" in why and "short of the 20 asked" in why


def test_a_count_limit_still_reads_as_one() -> None:
    # consumer cards that ran to the 32-card cap keep the practical limit and its reason
    o = row("serve-llama-3.3-70b-fp8-200", "rtx-4090-24gb")
    assert o["unmet"] == "practical_limit"
    assert "consumer cards stop at 32" in o["unmet_reason"]


def test_a_machine_no_cloud_rents_points_to_its_purchase() -> None:
    # a DGX Spark for local Qwen3 30B-A3B: "no on-demand cloud price" beside its Purchase $
    # ($4,699, NVIDIA's list price) read as a missing figure; the buyer of one box is told its
    # purchase is priced and which basis ranks it; among the unpriced it ranks by that purchase
    # (core/sizing/compare_rank.py purchase_rank)
    o = row("local-qwen3-30b-a3b-llamacpp", "dgx-spark-128gb")
    assert o["unmet"] == "no_price"
    price = f"${o['purchase_cost']:,.0f}"
    assert f"by its purchase price: {price} (basis owned ranks it with the rest)" in o["unmet_reason"]
    owned = row("local-qwen3-30b-a3b-llamacpp", "dgx-spark-128gb", basis="owned")
    assert owned["unmet"] is None and owned["cost_per_million_tokens"] > 0


def test_a_rented_gpu_without_a_price_says_only_that() -> None:
    # a data-centre GPU with no on-demand price and no purchase price: no owning hint to give
    o = {"fits": True, "unmet": None, "cost_per_hour": None, "gpu_name": "X", "purchase_cost": None}
    said = "no on-demand cloud price for X: ranked after the priced"
    assert priced_reason(o, "cloud") == ("no_price", said)


@pytest.mark.parametrize(
    ("heads", "tp", "pp", "says"),
    [
        # DeepSeek-R1 (128 heads) at TP 2 x PP 3 on an 8-GPU B200 server: 6 is no tensor degree
        (128, 2, 3, "PP 3 within a node (NVLink): 6 GPUs a replica, a width TP alone does not take"),
        # a 64-head model at TP 2 x PP 2: TP 4 was weighed and ran slower on that count
        (64, 2, 2, "PP 2 within a node (NVLink), faster on this count than TP 4"),
    ],
)
def test_pipeline_within_a_node_says_why(heads: int, tp: int, pp: int, says: str) -> None:
    # "PP 3 where TP cannot hold it" beside a server whose 8 GPUs hold DeepSeek-R1 at TP 8 told
    # the buyer memory forced the pipeline; the search chose 6-GPU replicas for speed
    vllm = SimpleNamespace(profile=SimpleNamespace(tp_splits_heads=True))  # an engine that splits heads
    adv = SimpleNamespace(s=vllm, filler=SimpleNamespace(arch=SimpleNamespace(heads=heads)))
    assert _pipeline_in_node(adv, tp, pp, "NVLink") == says


def test_every_new_case_compares_on_a_gpu_it_names() -> None:
    # the MLX case names its Mac: the comparison lists only the Apple GPUs MLX runs on
    rows = gpusizer.compare_gpus(case("local-llama-8b-mlx"))
    assert rows and {o["vendor"] for o in rows} == {"Apple"}
    assert all(o["fits"] for o in rows)


def test_renting_the_need_is_priced_where_the_cloud_rents_singly() -> None:
    # gpt-oss-120b for 64 users: one MI300X meets the targets (the need), and RunPod rents the
    # MI300X by the GPU ($2.39/h, the platform preset's source); the option is the 8-GPU
    # platform bought ($19.12/h rented whole). The renter is told what the need rents for
    o = row("serve-gpt-oss-120b-amd-vllm", "mi300x-192gb")
    assert o["targets_met"] is True and o["needed_gpus"] < o["gpus"]
    note = next(n for n in o["notes"] if n.startswith("renting:"))
    per_gpu = o["price_per_hour"]
    assert f"{o['needed_gpus']} GPU" in note and f"for ${o['needed_gpus'] * per_gpu:,.2f}/h" in note
    assert f"against ${o['cost_per_hour']:,.2f}/h for the 8 priced here" in note
    # OCI rents the MI355X only as whole 8-GPU nodes: no cheaper rent to point to
    assert not any(
        n.startswith("renting:") for n in row("serve-gpt-oss-120b-amd-vllm", "mi355x-288gb")["notes"]
    )
    # owning buys whole units: the note is the renter's
    owned = row("serve-gpt-oss-120b-amd-vllm", "mi300x-192gb", basis="owned")
    assert not any(n.startswith("renting:") for n in owned["notes"])


def test_a_deadline_need_is_the_fewest_gpus_in_time() -> None:
    # QLoRA of a 70B within 2 days on an 8-GPU MI325X platform read "need 8 / bought 8", while
    # the 2 GPUs that hold it train it in hours: a renter rents the need, a buyer sees the spare
    o = row("qlora-70b-control", "mi325x-256gb")
    assert o["gpus"] == 8 and o["needed_gpus"] == 2 and o["spare_gpus"] == 6, o["needed_layout"]
    two = gpusizer.estimate_report(
        case("qlora-70b-control")
        | {"hardware": {"gpu": "mi325x-256gb"}, "parallelism": {"data": 2, "zero_stage": 3}}
    )
    assert two["fits"] and two["compute"]["wall_time_seconds"] <= 2 * DAY
    # past one unit the need stays the units bought (the spare is part of the last one, and the
    # bisection costs a search a step): Llama 3.1 8B on 1T tokens in 30 days on three B200 servers
    big = row("pretrain-8b-control", "b200-192gb")
    assert big["gpus"] > 8 and big["needed_gpus"] == big["gpus"]


def test_the_table_states_its_currency_and_memory_unit() -> None:
    # "$/M tok", "Purchase $" and "GiB" columns with neither stated: a buyer comparing a quote in
    # euros or a datasheet in GB must know which
    from gpusizer.io.compare_table import compare_text

    rows = gpusizer.compare_gpus(case("local-qwen3-30b-a3b-llamacpp"), gpus=["rtx-4090-24gb"])
    text = compare_text(rows, False, False)
    assert "Money in US dollars (USD); memory in GiB = 2^30 bytes." in text
    assert "memory in GB = 10^9 bytes." in compare_text(rows, False, False, unit="GB")


def test_a_rack_share_is_rented_in_the_slices_its_source_rents() -> None:
    # gpt-oss-120b for 64 users is met on one GB200; CoreWeave (the rent's source) rents the
    # NVL72 in 4-GPU slices at $42.00/h, so renting the need costs one slice, not "2 GPUs $21.00"
    o = row("serve-gpt-oss-120b-amd-vllm", "gb200-186gb")
    assert o["needed_gpus"] == 1
    note = next(n for n in o["notes"] if n.startswith("renting:"))
    assert "4 GPUs rent for $42.00/h" in note, note


def test_a_speed_below_one_token_a_second_is_not_zero() -> None:
    # DeepSeek-R1 for 1,000 users on DGX Sparks: the simulated load ends before its users decode
    # (first token 316 s); the reason read "0.0 tokens/s per user, 20.0 short", a broken-looking
    # figure. Rates under 1 keep two significant digits; no rate at all says so
    from gpusizer.core.sizing.option import Pace
    from gpusizer.core.sizing.service_level import ServiceLevel
    from gpusizer.core.sizing.unmet import rate_words, speed_gaps

    assert rate_words(0.0412) == "0.041" and rate_words(12.34) == "12.3" and rate_words(0.0) == "0.0"
    level = ServiceLevel(max_ttft_seconds=2.0, min_tokens_per_second_per_user=20.0)
    slow = speed_gaps(Pace(ttft_seconds=316.1, tokens_per_second_per_user=None), level)
    assert slow[1] == "no decode rate within the simulated load, 20 tokens/s per user asked"
    crawl = speed_gaps(Pace(ttft_seconds=1.0, tokens_per_second_per_user=0.04), level)
    assert crawl == ["0.04 tokens/s per user, 20.0 short of the 20 asked"]
