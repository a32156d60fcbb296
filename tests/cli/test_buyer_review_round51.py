"""A buyer's reading of ``compare`` and ``plan``, round 51 (docs/evidence/rl.md, the round-51
section): 8 new buyer cases (Llama 3.3 70B QLoRA under Unsloth on consumer cards or one H100;
Qwen3 235B-A22B FP8 on SGLang at a first-token and per-user target; a 7B pre-train by a
deadline; GRPO of Llama 3.1 8B with 16K-token responses; Qwen3.5 397B-A17B with MTP and a
shared prefix; Qwen3 30B-A3B on a Mac for a team; Llama 3.3 70B FP8 P/D; Kimi K2.5 INT4 with
EAGLE-3).

1. Unsloth's own scenarios were searched with TP 2, ZeRO 3 and ZeRO 1 layouts; its multi-GPU
   training is DDP (unsloth.ai/docs/basics/multi-gpu-training-with-unsloth/ddp: "one copy of the
   model on each GPU device"). The search now tries DP alone at ZeRO 0 under it, and a GPU one
   copy does not fit says so, not "nothing fits with up to 4,096 GPUs".
2. A row whose speed band lies wholly slower than its estimate and passes a stated target reads
   "at estimate" in the Targets cell (``targets_met_at_estimate_only``); ``targets_met`` and the
   ranking are unchanged.
3. Each new case's time.
"""

from __future__ import annotations

import pytest

from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.io.compare_columns import AT_ESTIMATE
from gpusizer.io.compare_table import compare_text
from tests.cli.buyer_cases import case, compared, rows

NEW = (
    "qlora-llama-3.3-70b-consumer-vs-h100",
    "serve-qwen3-235b-fp8-sglang-ttft-tpot",
    "pretrain-qwen2.5-7b-300b-14days",
    "rl-llama-8b-grpo-16k-responses",
    "serve-qwen3.5-397b-mtp-prefix",
    "local-qwen3-30b-a3b-mlx-team",
    "serve-llama-3.3-70b-fp8-pd-400",
    "serve-kimi-k2.5-int4-eagle3",
)
QLORA = "qlora-llama-3.3-70b-consumer-vs-h100"
QWEN = "serve-qwen3-235b-fp8-sglang-ttft-tpot"
QWEN_VLLM = "serve-qwen3-235b-fp8-500"  # an earlier round's case: vLLM, 500 users at 30 tokens/s
RL_MOE = "rl-qwen3-30b-a3b-colocated"  # an earlier round's case: GRPO, 500 steps within 4 days
DAY = 86_400.0  # seconds


# --- 1. Unsloth runs data parallel only -----------------------------------------------------------


@pytest.fixture(scope="module")
def qlora() -> dict[str, dict]:
    return rows(case(QLORA), "rtx-4090-24gb", "rtx-5090-32gb", "h100-pcie-80gb", "h100-sxm-80gb")


def test_consumer_cards_do_not_hold_a_70b_copy_under_unsloth(qlora: dict[str, dict]) -> None:
    # Llama 3.3 70B in NF4 is ~38 GiB of weights alone (43.25 GiB peak on one H100 in the
    # window): one copy per GPU (DDP) never fits a 24 or 32 GB card, whatever their count
    for gpu in ("rtx-4090-24gb", "rtx-5090-32gb"):
        o = qlora[gpu]
        assert not o["fits"] and o["unmet"] == "memory", o
        why = o["unmet_reason"]
        assert why.startswith("nothing fits on one GPU with 10% of memory kept spare"), why
        assert "data parallel only (DDP: the whole model on every GPU)" in why
        assert "4,096 GPUs" not in why  # a count is not the question under DDP


def test_one_h100_holds_it(qlora: dict[str, dict]) -> None:
    h100 = qlora["h100-pcie-80gb"]
    # one 80 GB card holds the one copy (the brief's "vs one H100"), in 8.3 h of the 3 days
    assert h100["fits"] and h100["gpus"] == 1 and h100["targets_met"]


@pytest.mark.parametrize("name", (QLORA, "lora-gemma-3-12b-unsloth-1day"))
def test_unsloth_layouts_are_ddp(name: str) -> None:
    options = compared(name)  # QLORA's catalog compare is test_new_case_runs_in_time's too
    fitting = [o for o in options if o["fits"]]
    assert fitting
    for o in fitting:
        p = o["parallelism"]
        # DDP: no tensor, pipeline, context or expert split, no ZeRO sharding (before: the 70B
        # ran TP 2 on two RTX 4090 and DP 2 with ZeRO 3 on two RTX 5090 under Unsloth)
        assert (p["tensor"], p["pipeline"], p["context"], p["expert"], p["zero_stage"]) == (1, 1, 1, 1, 0), o
    assert any(o["parallelism"]["data"] > 1 for o in fitting)  # DDP replicas stay offered


def test_a_sharding_framework_splits_it() -> None:
    data = case(QLORA) | {"framework": "huggingface"}
    got = rows(data, "rtx-5090-32gb")["rtx-5090-32gb"]
    # the reason's other half: FSDP (ZeRO 3) spread the 70B over two 32 GB cards (Answer.AI's
    # FSDP-QLoRA, 10.4 h); since the advice's ladder offers parameter offload (their
    # use_cpu_offload; core/sizing/savings.py) one card holds it, its weights in host RAM, and
    # meets the 3 days (19 h): a framework that shards or offloads the weights holds it
    assert got["fits"] and got["gpus"] == 1 and got["targets_met"]
    assert got["parallelism"]["offload_parameters"] is True


# --- 2. targets met at the estimate only ----------------------------------------------------------


@pytest.fixture(scope="module")
def qwen() -> dict[str, dict]:
    return rows(case(QWEN), "mi325x-256gb", "b200-192gb", "h200-141gb")


@pytest.fixture(scope="module")
def rl_day() -> dict[str, dict]:
    return rows(case(RL_MOE) | {"targets": {"max_training_days": 1}}, "mi325x-256gb", "b200-192gb")


@pytest.fixture(scope="module")
def vllm_qwen() -> dict[str, dict]:
    return rows(case(QWEN_VLLM), "mi325x-256gb", "b200-192gb")


def test_a_band_past_the_target_is_flagged(rl_day: dict[str, dict]) -> None:
    mi = rl_day["mi325x-256gb"]
    # GRPO of Qwen3 30B-A3B colocated, 500 steps, asked within 1 day: 22.9 h at the estimate on
    # one MI325X platform, but colocated MoE RL's band is wholly slower (1.14-2.46 of published:
    # docs/evidence/rl.md), so runs like it took 1.1-2.4 days. targets_met stays the estimate's.
    # (The vLLM Qwen3 235B case this test read until the seventh blind speed round, speed.md
    # §115, now holds its estimate inside vLLM MoE on AMD's band, 0.93-2.45: see below.)
    assert mi["targets_met"] is True and mi["rl_run_seconds"] < DAY
    assert min(mi["rl_run_seconds_range"]) > DAY
    assert mi["targets_met_at_estimate_only"] is True
    assert any(n.startswith("meets the 1-day deadline at the estimate") for n in mi["notes"])


def test_a_serving_band_holding_the_estimate_is_not_flagged(vllm_qwen: dict[str, dict]) -> None:
    mi = vllm_qwen["mi325x-256gb"]
    # 37.3 tokens/s per user for the 30 asked; vLLM MoE on AMD's band (0.93-2.45, speed.md §115)
    # puts runs like it at 15.2-40.2: the band holds the estimate, so the row keeps "yes"
    lo, hi = mi["tokens_per_second_per_user_range"]
    assert mi["targets_met"] is True and lo < 30 < mi["tokens_per_second_per_user"] <= hi
    assert mi["targets_met_at_estimate_only"] is None


def test_a_band_holding_the_estimate_keeps_yes(qwen: dict[str, dict]) -> None:
    for gpu in ("b200-192gb", "h200-141gb"):
        o = qwen[gpu]
        lo, hi = o["ttft_seconds_range"]
        # the band holds the estimate (a target met at its edge on nearly every sized row)
        assert o["targets_met"] is True and lo <= o["ttft_seconds"] <= hi, o
        assert o["targets_met_at_estimate_only"] is None


def test_targets_cell_reads_at_estimate(rl_day: dict[str, dict]) -> None:
    day = case(RL_MOE) | {"targets": {"max_training_days": 1}}
    text = compare_text(list(rl_day.values()), False, True, s=parse_scenario(day))
    mi = next(line for line in text.splitlines() if "Instinct MI325X" in line)
    assert f" {AT_ESTIMATE} " in mi, mi
    # the case as filed, 4 days: 22.9 h and its band (1.1-2.4 days) both meet it
    four = rows(case(RL_MOE), "mi325x-256gb")
    text = compare_text(list(four.values()), False, True, s=parse_scenario(case(RL_MOE)))
    mi = next(line for line in text.splitlines() if "Instinct MI325X" in line)
    assert f" {AT_ESTIMATE} " not in mi, mi


def test_no_targets_no_flag() -> None:
    got = rows(case("local-qwen3-30b-a3b-mlx-team"), "apple-m4-max-128gb")["apple-m4-max-128gb"]
    # a Mac team case: 47.2 tokens/s per user for the 20 asked, its band 36.1-58.9 holds it
    assert got["targets_met"] is True and got["targets_met_at_estimate_only"] is None


# --- 3. the new cases ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", NEW)
def test_new_case_runs_in_time(name: str) -> None:
    options = compared(name)
    # the brief's budget (~10 s of CPU); the P/D case weighs every split of 400 users' prefill
    # and decode pools on each GPU (14.5 s wall cold on this loaded 2-core machine):
    # benchmarks/bench_buyer_cases.py
    assert any(o["fits"] for o in options)
    if name != "local-qwen3-30b-a3b-mlx-team":
        assert any(o["unmet"] is None for o in options)


def test_mac_team_misses_only_the_default_first_token() -> None:
    got = rows(case("local-qwen3-30b-a3b-mlx-team"), "apple-m4-max-128gb")["apple-m4-max-128gb"]
    # four 4,096-token prompts queue on one Mac: 6.16 s to the first token against the default
    # level's 2 s (no first-token target stated), while the 20 tokens/s asked is met (47.2);
    # the row says which of the two it misses
    assert got["targets_met"] is True and got["default_target_met"] is False
    assert "holds the 4 users but not the default speed target" in got["layout_reason"]
