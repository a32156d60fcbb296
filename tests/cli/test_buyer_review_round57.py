"""A buyer's reading of ``compare`` and ``plan``, round 57 (docs/evidence/rl.md, the round-57
section): what round 56 left, and five fresh 2026 cases.

1. A multi-turn chat whose last turn passes the engine's context is refused, naming the fields
   (vLLM ``serving_engine.py`` ``_validate_input`` and SGLang ``tokenizer_manager.py``
   ``_validate_one_request`` refuse such a request: core/serving/turn_context.py).
2. A row whose need passes the scenario's own count, where that count holds the estimate but not
   the margin, says so (core/sizing/margin_count.py).
3. A stated EP, attention DP or prefill TP the search replaced says so (core/sizing/
   stated_widths.py).
4. The Arc A770's BF16 matmul rate is the MAMF benchmark run on the card (stas00/ml-engineering
   PR #107: 91.0 TFLOPS), not Gaudi's efficiency median (117.6).
5. Five fresh cases (tests/cli/data/buyer), each from a recipe, a blog or a trace.
"""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.sizing.solver import plan
from gpusizer.core.sizing.stated_widths import RULE, SPLIT_RULE
from gpusizer.core.views.capacity import capacity_curve
from tests.cli.buyer_cases import case, rows

TURNS = "serving.prefix.turns"


def _long_turns(**serving: Any) -> dict[str, Any]:
    """Round 56's multi-turn case at 3,000 new tokens a turn: turn 15 sends 14 x 3,100 + 3,000
    = 46,400 tokens and asks 100 back."""
    data = case("serve-qwen3-8b-multi-turn-15-prefix-vllm")
    data["workload"] = data["workload"] | {"prompt_tokens": 3000}
    data["serving"] = data["serving"] | serving
    return data


# --- 1. the last turn within the engine's context -------------------------------------------------


def test_a_chat_past_the_context_is_refused_naming_the_fields() -> None:
    with pytest.raises(ScenarioError) as e:
        estimate(_long_turns())
    assert e.value.field == TURNS
    msg = e.value.message
    assert "turn 15 sends 46,400 prompt tokens and asks 100 back, 46,500 in all" in msg
    assert "32,768-token context (serving.max_context)" in msg
    # 32,768 // 3,100 = 10 whole turns fit
    assert "at most 10 turns at these tokens" in msg


def test_plan_and_compare_refuse_it_alike() -> None:
    with pytest.raises(ScenarioError, match=TURNS):
        plan(_long_turns(), gpus=["h100-sxm-80gb"])
    with pytest.raises(ScenarioError, match=TURNS):
        gpusizer.compare_gpus(_long_turns(), gpus=["h100-sxm-80gb"])


def test_without_max_context_the_models_length_is_the_limit() -> None:
    # Qwen3 8B's config gives 40,960 positions, the engines' default max_model_len
    data = _long_turns()
    data["serving"].pop("max_context")
    with pytest.raises(ScenarioError) as e:
        estimate(data)
    assert "40,960-token context (model.max_context, the engine's default)" in e.value.message


def test_a_chat_within_the_context_and_the_curve_are_unchanged() -> None:
    # 10 turns of 3,100 = 31,000 tokens: runs
    fits = _long_turns(prefix={"turns": 10})
    assert estimate(fits).fits
    # the users-against-context curve is of requests of each context's length: it does not
    # take the chat's last turn as its limit
    curve = capacity_curve(case("serve-qwen3-8b-multi-turn-15-prefix-vllm"), [2048, 4096])
    assert all(u > 0 for u in curve.users)


# --- 2. the margin that grew a count ---------------------------------------------------------------

R1_MAC = {
    "model": {"preset": "deepseek-r1"},
    "framework": "llama.cpp",
    "precision": {"weights": "gguf_q4_k_m"},
    "workload": {"kind": "inference", "prompt_tokens": 2048, "generated_tokens": 512, "batch_size": 1},
    "serving": {"max_context": 8192},
    "targets": {"users": 1},
}
MAC = "apple-m3-ultra-512gb"


def test_the_row_says_one_mac_holds_the_estimate_but_not_the_margin() -> None:
    # estimate: 378.4 of 384.0 GiB usable on one M3 Ultra 512 GB (fits, 1.5 % spare); the
    # count keeps 10 % spare, so the row buys 2
    est = estimate(R1_MAC | {"hardware": {"gpu": MAC}})
    assert est.fits
    o = rows(R1_MAC, MAC)[MAC]
    assert (o["gpus"], o["needed_gpus"], o["min_gpus"]) == (2, 2, 2)
    note = [n for n in o["notes"] if "holds the estimate" in n]
    assert note == [
        "1 GPU holds the estimate (378.4 of 384.0 GiB usable, 5.6 GiB or 1.5% spare), as "
        "estimate says, but not the 10% of usable memory the search keeps spare (--margin 0 "
        "sizes at the estimate); runs like this have needed up to 456.4 GiB (the memory band's "
        "upper edge)"
    ]


def test_at_margin_zero_the_row_is_the_estimates_count_and_says_nothing() -> None:
    o = gpusizer.compare_gpus(R1_MAC, gpus=[MAC], margin=0.0)[0]
    assert o["gpus"] == 1
    assert not [n for n in o["notes"] if "holds the estimate" in n]


def test_a_need_grown_by_a_target_gets_no_margin_note() -> None:
    # MI250X GCD x 8 serves gpt-oss 120B's 4 users faster than 2 need: the need is the target's
    got = rows(case("local-gpt-oss-120b-mac-llamacpp-4-users"), "mi250x-gcd-64gb", "mi210-64gb")
    mi250, mi210 = got["mi250x-gcd-64gb"], got["mi210-64gb"]
    assert mi250["needed_gpus"] > mi250["min_gpus"]
    assert not [n for n in mi250["notes"] if "holds the estimate" in n]
    # one MI210 holds the estimate (61.6 of 64.0 GiB) but not 10 % spare: 2 are needed
    assert [n for n in mi210["notes"] if n.startswith("1 GPU holds the estimate (61.6 of 64.0 GiB")]


# --- 3. a stated EP or prefill width the search replaced ------------------------------------------


def test_a_replaced_ep_is_said() -> None:
    # vLLM's AMD recipe for Qwen3-Coder 480B: TP 8 with --enable-expert-parallel (EP 8)
    o = rows(case("serve-qwen3-coder-480b-amd-vllm-tp8"), "mi325x-256gb")["mi325x-256gb"]
    ep = o["parallelism"]["expert"]
    assert ep != 8
    assert f"EP {ep}, not the file's EP 8 ({RULE})" in o["notes"]


def test_a_replaced_prefill_width_is_said_and_a_kept_one_is_not() -> None:
    # Dynamo's recipe: 2 x TP 2 prefill + 1 x TP 4 decode (prefill_tensor 2)
    got = rows(case("serve-llama-3.3-70b-fp8-dynamo-pd-8k"), "h200-141gb", "b200-192gb")
    h200, b200 = got["h200-141gb"], got["b200-192gb"]
    assert h200["disaggregated_split_prefill_tensor"] == 1
    assert f"the split's prefill TP 1, not the file's prefill_tensor 2 ({SPLIT_RULE})" in h200["notes"]
    assert b200["disaggregated_split_prefill_tensor"] == 2
    assert not [n for n in b200["notes"] if "prefill_tensor" in n]


def test_a_file_stating_no_width_gets_no_width_note() -> None:
    o = rows(case("serve-qwen3-235b-fp8-100"), "mi325x-256gb")["mi325x-256gb"]
    assert not [n for n in o["notes"] if "not the file's" in n]


# --- 4. the Arc A770's measured matmul rate --------------------------------------------------------


def test_the_a770_trains_at_its_measured_matmul_rate() -> None:
    from gpusizer.core.model.presets import gpu_spec
    from gpusizer.core.speed.train_rates import matmul_rate

    # mamf-finder on the A770, torch 2.7.0+xpu: mean 91.0 TFLOPS at 4096 x 4096 x 2048
    # (stas00/ml-engineering PR #107); Gaudi's median efficiency gave 0.855 x 137.6 = 117.6
    assert matmul_rate(gpu_spec("arc-a770-16gb"), "bf16") == pytest.approx(91.0e12)
    got = rows(case("qlora-phi-4-unsloth-consumer-1day"), "arc-a770-16gb", "rtx-4080-16gb")
    a770, rtx = got["arc-a770-16gb"], got["rtx-4080-16gb"]
    # 854 -> 715 tokens/s (6.5 -> 7.8 h): still above the RTX 4080's 681, whose rate is NVIDIA's
    # median MAMF efficiency x 97.5 (no measured GeForce row); both extrapolated
    assert a770["tokens_per_second"] == pytest.approx(715, rel=0.02)
    assert a770["tokens_per_second"] > rtx["tokens_per_second"]


# --- the P/D tie the default service level breaks --------------------------------------------------


def test_a_split_meeting_the_default_level_on_the_same_rack_is_ranked() -> None:
    # SGLang's 96-H100 DeepSeek deployment as a file (prefill 32, decode 72 GPUs, EP and
    # attention DP), 2,048 users, no speed target: on one GB200 NVL72 the aggregated answer's
    # first token is 6.71 s (default 2 s missed); 2P1D on the same 72 GPUs gives 1.87 s (1.68 s
    # before MLA's down-projections were read whole on every TP rank, core/model/mla_whole.py).
    # Before, the tie kept the aggregated answer
    o = rows(case("serve-deepseek-v3-sglang-pd-ep-h100-2k"), "gb200-186gb")["gb200-186gb"]
    assert o["layout"].startswith("2P1D: ")
    assert o["gpus"] == 72 and o["default_target_met"] is True
    assert o["ttft_seconds"] == pytest.approx(1.87, abs=0.02)
    assert "(the default service level, on the same GPUs bought)" in o["layout_reason"]
    # the aggregated layout's "8 of the 72 GPUs idle" is not the split's (it uses 48)
    assert not [n for n in o["notes"] if " GPUs idle: " in n]


# --- 5. the fresh cases ------------------------------------------------------------------------------


def test_the_coding_agent_case_reads_its_sessions() -> None:
    # TraceLab (tracelab.cs.washington.edu): 54.9 B input tokens over 357,161 steps, 52.6 B of
    # them cached, 186.9 M out: 6,440 new and 523 out a step; 36 steps reach 250,668 tokens,
    # within Qwen3.5's 262,144
    o = rows(case("serve-qwen3.5-35b-a3b-coding-agent-36-steps-prefix"), "mi325x-256gb")["mi325x-256gb"]
    assert "36 turns a conversation, mean prompt 128,292 tokens" in o["layout_reason"]


def test_gpt_oss_20b_qlora_fits_one_16gb_card() -> None:
    # Unsloth: gpt-oss-20b QLoRA "fits in 14GB VRAM"
    o = rows(case("qlora-gpt-oss-20b-unsloth-consumer-1day"), "rtx-4080-16gb")["rtx-4080-16gb"]
    assert o["gpus"] == 1 and o["fits"]
