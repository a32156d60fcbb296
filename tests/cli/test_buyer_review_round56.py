"""A buyer's reading of ``compare`` and ``plan``, round 56 (docs/evidence/rl.md, the round-56
section): what round 55 left, and five fresh 2026 cases.

1. A stated ``parallelism.tensor`` or ``pipeline`` the search replaced had no note (the ZeRO stage
   had one). Each such row now carries ``stated_layout`` and a note that says which width it runs,
   not the file's, and what the file's width runs on the same GPUs (core/sizing/
   stated_layout.py); ``compare``'s text says the rule once (io/stated_layout_text.py).
2. The B300's RunPod price ($7.89) now quotes the stored plans YAML whose line holds it
   (api-evangelist/runpod ``plans/runpod-plans-pricing.yml``, read 2026-10-07).
3. Five fresh cases (tests/cli/data/buyer), each from a vendor or engine page.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import gpusizer
from gpusizer.core.sizing.stated_layout import SERVING_RULE, stated_notes
from gpusizer.io.compare_table import compare_text
from tests.cli.buyer_cases import case, rows

PRESETS = Path(__file__).parents[2] / "src" / "gpusizer" / "presets"
NOT_FILES = "not the file's"


def _tp8() -> dict[str, Any]:
    """Round 55's Qwen3 235B-A22B FP8 case, stating vLLM's recipe width (``--tensor-parallel-size
    8``: docs.vllm.ai/projects/recipes/en/latest/Qwen/Qwen3-235B-A22B.html)."""
    return case("serve-qwen3-235b-fp8-100") | {"parallelism": {"tensor": 8}}


# --- 1. a stated TP the rows replaced says so ----------------------------------------------------


@pytest.fixture(scope="module")
def tp8() -> dict[str, dict[str, Any]]:
    return rows(_tp8(), "mi325x-256gb", "h200-141gb", "a40-48gb", "gh200-96gb")


def test_replaced_tp_is_said_with_what_the_files_tp_runs(tp8: dict[str, dict[str, Any]]) -> None:
    o = tp8["mi325x-256gb"]
    assert o["layout"].startswith("TP 4 x PP 1 x DP 2")
    st = o["stated_layout"]
    assert st["tensor"] == 8 and st["pipeline"] is None and st["kept"] is False
    assert (st["stated"], st["used"]) == ("TP 8", "TP 4")
    # the file's TP 8 on the same 8 GPUs, weighed as the fill weighs it (core/sizing/
    # fill_serving.py at_width): slower over the replicas, the order the fill ranks by
    assert st["why"].startswith("on these 8 GPUs TP 8 x PP 1 x DP 1 meets the targets at ")
    assert st["why"].endswith(
        f"against {o['tokens_per_second']:,.0f} tokens/s ({o['tokens_per_second_per_user']:,.1f} per user)"
    )
    note = [n for n in o["notes"] if NOT_FILES in n]
    assert note == [f"TP 4, not the file's TP 8: {SERVING_RULE}; {st['why']}"]


def test_a_row_at_the_stated_tp_reads_as_before(tp8: dict[str, dict[str, Any]]) -> None:
    o = tp8["a40-48gb"]  # 96 x A40 run TP 8 x DP 12: the file's width
    assert o["layout"].startswith("TP 8 x")
    assert o["stated_layout"] == {
        "tensor": 8,
        "pipeline": None,
        "kept": True,
        "stated": None,
        "used": None,
        "rule": None,
        "why": None,
    }
    assert not any(NOT_FILES in n for n in o["notes"])


def test_a_width_not_weighed_says_why(tp8: dict[str, dict[str, Any]]) -> None:
    # one GH200 superchip a node: TP is not run over the network
    assert (
        tp8["gh200-96gb"]["stated_layout"]["why"]
        == "TP 8 is wider than a 1-GPU node, over which TP is not run"
    )


def test_no_stated_width_no_field_and_notes_unchanged() -> None:
    plain = rows(case("serve-qwen3-235b-fp8-100"), "mi325x-256gb")["mi325x-256gb"]
    assert "stated_layout" not in plain
    assert not any(NOT_FILES in n for n in plain["notes"])


def test_the_rows_are_the_same_with_the_width_stated(tp8: dict[str, dict[str, Any]]) -> None:
    # the search weighs every width whatever the file states: count, layout and speed unchanged
    plain = rows(case("serve-qwen3-235b-fp8-100"), "mi325x-256gb", "h200-141gb")
    for gpu, o in plain.items():
        for key in ("gpus", "layout", "tokens_per_second", "cost_per_million_tokens", "rank"):
            assert tp8[gpu][key] == o[key], (gpu, key)


def test_compare_says_the_rule_once() -> None:
    options = gpusizer.compare_gpus(_tp8(), gpus=["mi325x-256gb", "h200-141gb", "a40-48gb", "gh200-96gb"])
    text = compare_text(options, training=False, targets=True)
    assert text.count(SERVING_RULE) == 1
    assert "Layout, not the file's TP 8 (3 of the top 4 rows): " in text
    assert "\n  TP 4 (mi325x-256gb): on these 8 GPUs TP 8 x PP 1 x DP 1 meets the targets at " in text
    assert not any(line.startswith("Note (") and NOT_FILES in line for line in text.splitlines())


def test_a_split_answer_says_which_answer_the_width_was_weighed_on() -> None:
    # DeepSeek-V3 P/D on SGLang stating TP 8: B200's answer is the split 1P2D (24 GPUs); the
    # file's TP was weighed on the aggregated answer's 64, which the row no longer shows. Since
    # MLA's down-projections are read whole on every TP rank (core/model/mla_whole.py) the
    # decode replicas run TP 2, not 4, and the aggregated answer is 60 GPUs, not 64
    d = case("serve-deepseek-v3-pd") | {"parallelism": {"tensor": 8}}
    o = rows(d, "b200-192gb")["b200-192gb"]
    assert o["pd_chosen"] == "1P2D" and o["gpus"] == 24
    why = o["stated_layout"]["why"]
    assert why.startswith("the split's decode replicas run TP 2; the aggregated answer (Other answer): ")
    assert "on these 60 GPUs TP 8 x PP 1 x DP 7 " in why
    assert [n for n in o["notes"] if NOT_FILES in n] == stated_notes(o["stated_layout"])


def test_stated_notes_unit() -> None:
    assert stated_notes(None) == []
    assert stated_notes({"kept": True}) == []
    st = {"kept": False, "stated": "TP 8 x PP 4", "used": "TP 2 x PP 3", "rule": "R", "why": None}
    assert stated_notes(st) == ["TP 2 x PP 3, not the file's TP 8 x PP 4: R"]


def test_training_rows_say_what_the_files_widths_do_on_their_gpus() -> None:
    # Megatron's Llama 3.1 70B recipe: TP 8 x PP 4 x DP 2 (64 GPUs), global batch 128
    o = rows(case("pretrain-llama-70b-megatron-vpp"), "h100-sxm-80gb")["h100-sxm-80gb"]
    st = o["stated_layout"]
    assert (st["stated"], st["kept"]) == ("TP 8 x PP 4", False)
    assert st["why"] == (
        "TP 8 x PP 4 x DP 3 on these 96 GPUs is not a valid layout: workload.global_batch_size: must be a "
        "multiple of micro_batch_size x data (3)"
    )


# --- 2. the B300's hourly price quotes its own stored line ---------------------------------------


@pytest.mark.parametrize(("path", "gpus"), [("gpus/b300-288gb", 1), ("systems/hgx-b300-8gpu", 8)])
def test_b300_price_quotes_the_stored_plans_yaml(path: str, gpus: int) -> None:
    data = json.loads((PRESETS / f"{path}.json").read_text())
    src = data["price_per_hour_source"]
    # before: "https://github.com/api-evangelist/runpod (RunPod plans YAML, ...)", the repository
    # whose stored copy holds a scaffold with no GPU line (round 55, Not done 1)
    assert (
        "raw.githubusercontent.com/api-evangelist/runpod/refs/heads/main/plans/runpod-plans-pricing.yml"
        in src
    )
    assert "'Pods - B300 $ 7.89 /hr 288 GB HBM3e 251 GB RAM 32 vCPUs'" in src
    assert data["price_per_hour"] == pytest.approx(7.89 * gpus)


# --- 3. five fresh cases -----------------------------------------------------------------------


def test_multi_turn_chat_reads_its_turns_and_history() -> None:
    # vLLM benchmarks/multi_turn/generate_multi_turn.json @ d175c56d: 12-18 turns, 120-160 new
    # tokens and 80-120 out a turn (15, 140, 100 here)
    got = rows(case("serve-qwen3-8b-multi-turn-15-prefix-vllm"), "h100-sxm-80gb", "gh200-96gb")
    for o in got.values():
        assert o["targets_met"] is True
        assert "multi-turn chats: 15 turns a conversation, mean prompt 1,820 tokens" in o["layout_reason"]
    # 140 new + the mean history of 7 turns x 240 = 1,820 tokens (docs/scenario-format.md, turns)
    assert got["gh200-96gb"]["gpus"] == 2


def test_phi4_qlora_on_one_consumer_card() -> None:
    # Unsloth requirements page: a 14B QLoRA needs about 8.5 GB at its minimum settings; at 2 x
    # 2,048 tokens the peak is 11.42 GiB, one 16 or 24 GB card
    got = rows(case("qlora-phi-4-unsloth-consumer-1day"), "rtx-4090-24gb", "rtx-5060-ti-16gb")
    for o in got.values():
        assert o["gpus"] == 1 and o["targets_met"] is True
        assert 11 * 2**30 < o["per_gpu_total"] < 12 * 2**30


def test_qwen3_coder_on_amd_says_the_recipes_tp8() -> None:
    # vLLM recipe Qwen3-Coder-480B-A35B, "Serving on 8xMI300x/MI325x/MI355x GPUs": BF16,
    # --tensor-parallel-size 8 --enable-expert-parallel, --max-model-len 32000
    o = rows(case("serve-qwen3-coder-480b-amd-vllm-tp8"), "mi355x-288gb")["mi355x-288gb"]
    assert o["gpus"] == 8 and o["layout"].startswith("TP 4 x PP 1 x DP 2")
    assert o["stated_layout"]["why"].startswith("on these 8 GPUs TP 8 x PP 1 x DP 1 meets the targets at ")


def test_dynamo_pd_recipe_rows_name_the_decode_tp() -> None:
    # NVIDIA Dynamo recipe Llama-3.3-70B FP8, disagg single node: 2 x TP2 prefill + 1 x TP4
    # decode on 8 H100/H200, 8K ISL / 1K OSL, 128 concurrency
    o = rows(case("serve-llama-3.3-70b-fp8-dynamo-pd-8k"), "h200-141gb")["h200-141gb"]
    st = o["stated_layout"]
    assert (st["stated"], st["used"], st["kept"]) == ("TP 4", "TP 1", False)
    # since round 58 the row is the 8P7D split on 16 GPUs, which meets the default level the
    # 8 aggregated miss (4.11 s to the first token): the why names the split's TP first
    other = "the aggregated answer (Other answer): on these 8 GPUs TP 4 x PP 1 x DP 2 meets the targets at "
    assert other in st["why"]


def test_verl_recipe_layout_on_each_rows_gpus() -> None:
    # verl examples/grpo_trainer/run_qwen3moe-30b_megatron_96gb.sh @ 6e7fdc2e: TP 1, PP 1, EP 8,
    # ETP 1 on 8 GPUs a node, rollout TP 4, 512 prompts x 16, 2K prompts, 8K responses. The file's
    # EP 8 is kept in the layout the row weighs; the ZeRO stage it does not state is the option's,
    # else the first above that holds the work, at the option's recompute, then at full
    got = rows(case("rl-verl-dapo-qwen3-30b-a3b-megatron-ep8"), "mi325x-256gb", "h200-141gb", "h100-sxm-80gb")
    mi, h200 = got["mi325x-256gb"]["stated_layout"], got["h200-141gb"]["stated_layout"]
    assert (mi["stated"], mi["used"]) == ("TP 1 x PP 1", "TP 1 x PP 2")
    assert mi["why"].startswith("on these 8 GPUs TP 1 x PP 1 x DP 8, EP 8 (ZeRO 2), no recompute trains ")
    # H200 x 8 holds it only with gradient checkpointing (227.2 GiB a GPU at ZeRO 3 without)
    assert h200["why"].startswith("on these 8 GPUs TP 1 x PP 1 x DP 8, EP 8 (ZeRO 1), recompute full trains ")
    fit = "TP 1 x PP 1 x DP 16, EP 8 (ZeRO 3), recompute full does not fit on these 16 GPUs: 75.6 GiB a GPU"
    assert got["h100-sxm-80gb"]["stated_layout"]["why"].startswith(fit)
    # the fill turns recompute on only where no layout holds the count without it: a file's
    # layout that needs it says so, faster or not (A100 x 24: 1.17x the row's tokens/s)
    a100 = rows(case("rl-verl-dapo-qwen3-30b-a3b-megatron-ep8"), "a100-sxm-80gb")["a100-sxm-80gb"]
    why = a100["stated_layout"]["why"]
    assert why.startswith("on these 24 GPUs TP 1 x PP 1 x DP 24, EP 8 (ZeRO 3), recompute full trains ")
    assert why.endswith("; the search turns recompute on only where no layout holds the count without it")


def test_plans_max_context_of_a_multi_turn_chat_is_the_conversations() -> None:
    # before: "Max context 2324" for 15-turn chats whose last turn sends 14 x 240 + 140 = 3,500
    # tokens: the probe varies each turn's new tokens (core/sizing/headroom.py); the conversation
    # at the largest of them reaches 15 x 2,324 = 34,860 tokens, past the engine's 32,768
    from gpusizer.core.sizing.solver import plan

    multi = case("serve-qwen3-8b-multi-turn-15-prefix-vllm")
    o = plan(multi, gpus=["h100-sxm-80gb"])[0]
    # round 57: the last turn must fit the engine's context (core/serving/turn_context.py), so
    # the largest conversation is 15 whole turns of 2,184 tokens within 32,768 (was 32,768)
    assert o["max_context_tokens"] == 32760
