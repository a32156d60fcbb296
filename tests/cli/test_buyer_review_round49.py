"""A buyer's reading of ``compare`` and ``plan``, round 49 (docs/evidence/rl.md, the round-49
section): RL post-training and P/D sizing as a buyer signs it, in 4 new buyer cases (GRPO of
Qwen3 8B at 8K responses in a week; DeepSeek-V3 for 500 users at 50 ms a token, 1P1D as set;
Llama 3.1 70B chat with a 4K shared system prompt and EAGLE-3; 100 LoRA adapters on Qwen2.5 7B).

1. An RL row whose rollout engine starts on no width of a one-card desktop names the box that
   starts it (core/sizing/rl_unmet.py), and the lever is said once, in the RL fields' words.
2. A P/D split's note and Why name the KV hand-off's link and its time
   (core/sizing/pd_link_words.py).
3. A served option's Why states its speculative decoding, prefix cache and LoRA adapters
   (core/sizing/feature_words.py), the estimate's own figures.
4. What was read and holds: RL hours and cost are steps x step time at the row's price, the
   band is stated, the cheapest P/D row meets the targets, each new case's time.
"""

from __future__ import annotations

import pytest

import gpusizer
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.sizing.option_split import DisaggSplit
from tests.cli.buyer_cases import case, rows

NEW = (
    "rl-qwen3-8b-8k-200-steps-week",
    "serve-deepseek-v3-500-50ms-1p1d",
    "serve-llama-70b-eagle3-4k-system-prompt",
    "serve-qwen2.5-7b-100-loras",
)
RL = "rl-qwen3-8b-8k-200-steps-week"
PD = "serve-deepseek-v3-500-50ms-1p1d"
EAGLE = "serve-llama-70b-eagle3-4k-system-prompt"
LORAS = "serve-qwen2.5-7b-100-loras"
POOL_LEVER = "Let it use more of the GPU (memory_fraction), add GPUs"


# --- 1. the rollout engine on a one-card desktop ------------------------------------------------


def test_one_card_desktop_names_the_box_that_starts_the_engine() -> None:
    o = rows(case(RL), "rx-7900-xtx-24gb")["rx-7900-xtx-24gb"]
    # one 24 GB card a desktop (catalog gpus_per_node 1): the engine tries TP 1 only, and Qwen3
    # 8B's 16 GB of weights do not fit half the card (verl's gpu_memory_utilization 0.5)
    assert not o["fits"] and o["unmet_reason"].startswith("at rl.rollout.tensor 1, the rollout engine")
    # four to a box the engine starts at TP 4: the lever names the box, not only the fraction
    assert o["unmet_reason"].endswith(
        "raise rl.rollout.memory_fraction, choose a smaller format, or buy the cards 4 to a box "
        "(--cards-per-box 4: the engine starts at rl.rollout.tensor 4 within it)"
    ), o["unmet_reason"]


def test_the_box_named_holds_the_run() -> None:
    boxed = gpusizer.compare_gpus(case(RL), gpus=["rx-7900-xtx-24gb"], cards_per_box=4)[0]
    # the lever's box: 20 cards (5 boxes of 4) meet the week at rollout TP 4, 5.7 days at the
    # estimate; the row's own band note says runs like it took up to 9.6 days. 24 cards (5.9
    # days) until V1's multi-GPU non-torch growth was no longer charged on PCIe cards
    # (engine_releases_vllm_v1.py V1_COMM_FREE; docs/evidence/serving.md, blind round 2 of logs)
    assert boxed["fits"] and boxed["targets_met"] and boxed["rl_rollout_tensor"] == 4
    assert boxed["gpus"] == 20 and boxed["rl_run_seconds"] < 7 * 86400


def test_the_lever_is_said_once_in_the_rl_fields_words() -> None:
    got = rows(case(RL), "rtx-5080-16gb", "t4-16gb")
    for g, o in got.items():
        # before, the serving engine's "Let it use more of the GPU (memory_fraction), add GPUs
        # or choose a smaller format" came before the RL lever saying the same
        assert POOL_LEVER not in o["unmet_reason"], g
        assert "raise rl.rollout.memory_fraction" in o["unmet_reason"], g
    # one RTX 5080 leaves the engine no pool; four to a box start it at TP 4 since V1's multi-GPU
    # non-torch growth is not charged on PCIe cards (engine_releases_vllm_v1.py V1_COMM_FREE:
    # before, no box was named)
    r5080 = got["rtx-5080-16gb"]["unmet_reason"]
    assert "(vLLM's words: No available memory for the cache blocks)" in r5080
    assert r5080.endswith("(--cards-per-box 4: the engine starts at rl.rollout.tensor 4 within it)")
    # the T4 comes four to a node already: its widest engine (TP 4) was tried; it now starts
    # with a pool under one 16,896-token request (before: no pool at all)
    r_t4 = got["t4-16gb"]["unmet_reason"]
    assert r_t4.startswith("at rl.rollout.tensor 4,") and "one request of max_context 16,896" in r_t4


# --- 2. the P/D split's KV link -----------------------------------------------------------------


def test_split_note_names_the_kv_link() -> None:
    o = rows(case(PD), "b200-192gb")["b200-192gb"]
    note = next(n for n in o["notes"] if n.startswith("disaggregated: "))
    # the H200's and B200's catalog network is a 400 Gb/s NIC a GPU (network_gb_per_s 50); the
    # hand-off is in the first token, and the field that sets another link is named
    assert "; KV hand-off " in note and "ms a request over the GPU's network at 50 GB/s a GPU" in note
    assert note.endswith("(serving.disaggregated.link_gb_per_s sets another)"), note
    # the split is ranked (1P1D on 16 GPUs against 32 aggregated): its Why says the same link
    assert o["disaggregated_split"] == "1P1D" and o["layout"].startswith("1P1D")
    assert "ms of it the KV hand-off over the GPU's network at 50 GB/s a GPU" in o["layout_reason"]


def test_hand_off_is_the_estimates_transfer() -> None:
    o = rows(case(PD), "b200-192gb")["b200-192gb"]
    s = {**case(PD), "hardware": o["hardware"], "parallelism": o["parallelism"]}
    s["serving"] = {**s["serving"], "disaggregated": {**s["serving"]["disaggregated"]}}
    for path, value in o["scenario_changes"].items():
        s["serving"]["disaggregated"][path.rsplit(".", 1)[1]] = value
    sv = estimate(s).serving
    assert sv is not None
    kv = sv.disaggregated_kv_transfer_seconds
    # the option applied is the estimate: its transfer (one request's KV, 4,096-token prompts of
    # DeepSeek-V3's MLA cache, over the pools' GPUs at 50 GB/s) is the note's figure
    assert f"KV hand-off {kv * 1e3:,.1f} ms a request" in " ".join(o["notes"])


def test_a_users_link_is_named_as_theirs() -> None:
    s = case(PD)
    s["serving"]["disaggregated"]["link_gb_per_s"] = 12.5  # a 100 Gb/s NIC a GPU
    s["serving"]["disaggregated"]["connector"] = "sglang"
    o = rows(s, "b200-192gb")["b200-192gb"]
    note = next(n for n in o["notes"] if n.startswith("disaggregated: "))
    # the user's rate, named as theirs, with the connector; no hint at the field they set
    assert "over 12.5 GB/s a GPU (serving.disaggregated.link_gb_per_s, sglang)" in note, note
    assert "sets another" not in note


def test_a_split_built_without_a_link_reads_as_before() -> None:
    # the note's words without the link (DisaggSplit's default): tests/core/test_split_note.py
    note = DisaggSplit(1, 1, 8, 8, 8, 0.5, 0.04, 100.0, True).note(16)
    assert note.endswith("first token 0.50 s, 40.0 ms a token") and "KV" not in note


def test_split_is_compared_with_aggregated_and_the_cheapest_meets_the_targets() -> None:
    options = gpusizer.compare_gpus(case(PD), gpus=["h200-141gb", "b200-192gb", "mi325x-256gb"])
    first = min(options, key=lambda o: o["rank"])
    # the cheapest row (the MI325X's 2P5D, 28 GPUs in 4 platforms) meets both targets at the
    # estimate: 2 s to the first token and 50 ms a token (20 tokens/s a user)
    assert first["targets_met"] and first["ttft_seconds"] <= 2.0 and first["tpot_seconds"] <= 0.05
    for o in options:  # every row carries both answers: the split's and the aggregated one's
        assert o["disaggregated_split"] and o["disaggregated_split_gpus"], o["gpu"]
        assert any(n.startswith("disaggregated: ") and "aggregated" in n for n in o["notes"])


# --- 3. the serving features in the Why ---------------------------------------------------------


def test_why_names_eagle3_and_the_prefix_cache() -> None:
    o = rows(case(EAGLE), "h100-sxm-80gb")["h100-sxm-80gb"]
    sv = estimate({**case(EAGLE), "hardware": o["hardware"], "parallelism": o["parallelism"]}).serving
    assert sv is not None
    # the option's own estimate: EAGLE-3 drafting 3 tokens at the stated acceptance emits 2.71 a
    # step (Leviathan et al. 2023); 90 % of requests find the 4,096-token prefix's whole blocks
    # cached: 3,686 of 5,120 prompt tokens a request
    assert (
        f"speculative decoding (eagle3): {sv.speculative_tokens_per_step:.2f} tokens a decode step"
        in (o["layout_reason"])
    )
    assert "(3 drafted, acceptance 0.745)" in o["layout_reason"]
    assert (
        f"prefix cache: {sv.prefix_cached_tokens:,} of 5,120 prompt tokens a request found cached"
        in (o["layout_reason"])
    )
    assert o["layout_reason"].endswith("layouts tried")  # how it was chosen stays last


def test_why_names_the_loras() -> None:
    o = rows(case(LORAS), "l40s-48gb")["l40s-48gb"]
    # 100 adapters served, vLLM max_loras 16 of rank 16 on the GPU at once
    assert "100 LoRA adapters, 16 on the GPU at once (rank 16, " in o["layout_reason"]


def test_a_scenario_without_features_has_no_feature_words() -> None:
    s = case(EAGLE)
    s["serving"] = {"max_context": 8192}
    o = rows(s, "h100-sxm-80gb")["h100-sxm-80gb"]
    for words in ("speculative decoding", "prefix cache", "LoRA adapters"):
        assert words not in o["layout_reason"]


# --- 4. what was read and holds -----------------------------------------------------------------


def test_rl_hours_and_cost_are_steps_times_step_time() -> None:
    got = rows(case(RL), "h100-sxm-80gb", "h200-141gb", "mi300x-192gb", "b200-192gb")
    for g, o in got.items():
        # the run is 200 steps of the step's time; its cost is those hours at the row's price
        assert o["rl_run_seconds"] == pytest.approx(200 * o["rl_time_per_step_seconds"], rel=1e-9), g
        hours = o["rl_run_seconds"] / 3600
        assert o["training_cost"] == pytest.approx(hours * o["cost_per_hour"], rel=1e-9), g
        low, high = o["rl_run_seconds_range"]  # the band is stated beside the estimate
        assert low > 0 and high > low, g
    # B200 is the fastest of the four (20.8 h), the MI300X the cheapest ($883)
    assert min(got, key=lambda g: got[g]["rl_run_seconds"]) == "b200-192gb"
    assert min(got, key=lambda g: got[g]["training_cost"]) == "mi300x-192gb"


def test_split_placement_is_the_buyers_to_ask() -> None:
    s = case(RL)
    s["rl"]["placement"], s["rl"]["rollout"]["gpus"] = "split", 8
    split = rows(s, "h100-sxm-80gb")["h100-sxm-80gb"]
    colo = rows(case(RL), "h100-sxm-80gb")["h100-sxm-80gb"]
    # read and left: 8 H100 colocated take 2.2 days for $1,685; split with 8 rollout GPUs beside
    # 8 training GPUs, 1.05 days for $1,605. The colocated row does not say so (a second search
    # per GPU); the split is the buyer's to set
    assert split["rl_total_gpus"] == 16 and colo["rl_total_gpus"] == 8
    assert split["rl_run_seconds"] < colo["rl_run_seconds"] and split["training_cost"] < colo["training_cost"]


@pytest.mark.parametrize("name", NEW)
def test_each_new_case_compares_in_about_10_s(name: str) -> None:
    options = gpusizer.compare_gpus(case(name))
    # the brief's budget (~10 s of CPU): 1.6-3.7 s here, the DeepSeek-V3 P/D case 11 s on a
    # loaded 2-core machine (its split searched on each GPU, as serve-deepseek-v3-pd's); 15.1-18.9 s
    # on 2026-12-06 (docs/evidence/rl.md, the catalog compare's CPU time: 5,261 prefill-queue
    # simulations), held to 20 s then. 6.1-6.5 s since the count search leaves the stated pools
    # unpriced and the split search times each split once, its decode pool tested first
    # (14.3-16.6 s before, alternated on the same machine; docs/evidence/serving.md, the split
    # search's CPU time): held to 15 s again, in benchmarks/bench_buyer_cases.py
    assert any(o["fits"] and o["unmet"] is None for o in options)
