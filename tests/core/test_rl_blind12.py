"""Published RL step times replayed blind, round twelve (docs/evidence/rl.md, the section "A
twelfth blind round of published RL step times"; records in tests/core/data/rl-time-blind12.json,
each with its notebook link, the quoted lines, the settings its cells state and what had to be
assumed).

Eleven Unsloth ``fast_inference`` GRPO runs, one GPU each, from unslothai/notebooks' saved outputs
(each notebook at the commit whose source ran the logged release): the trainer's progress bar,
elapsed over its steps, is the step; the logged per-step completion length, averaged over the
run, is the mean response. Counted in the other sources' group (``rl.framework`` null: Unsloth
patches TRL's GRPOTrainer and runs vLLM in its own process). On first replay 6 of 11 within 25 %
(the last two, DeepSeek-R1-0528-Qwen3-8B and Llama-3.1-8B's first saved run, recorded and replayed
after the first nine); the five misses are short, four of them a bitsandbytes 4-bit base on a
Tesla T4.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from tests.core.blind_replay import by_id, load, step_ratio, within

RECORDS: list[dict[str, Any]] = load("rl-time-blind12.json")
SOURCE = "https://github.com/unslothai/notebooks/blob/"

# estimate / published step on first replay (blind), record by record
FIRST_REPLAY = {
    "unsloth-grpo-llama3.1-8b-nf4-t4": 0.410,
    "unsloth-grpo-mistral-7b-nf4-rtx4090": 0.820,
    "unsloth-grpo-qwen2.5-3b-nf4-t4": 0.282,
    "unsloth-grpo-phi-4-nf4-t4": 0.184,
    "unsloth-grpo-qwen3-4b-base-fp16-t4": 0.782,
    "unsloth-grpo-qwen3-8b-fp8-l4": 0.880,
    "unsloth-grpo-llama3.2-1b-fp8-l4": 0.571,
    "unsloth-grpo-llama3.2-3b-bf16-a100-40gb": 0.987,
    "unsloth-grpo-llama3.2-3b-fp16-t4": 1.193,
    "unsloth-grpo-deepseek-r1-0528-qwen3-8b-nf4-t4": 0.874,
    "unsloth-grpo-llama3.1-8b-nf4-t4-feb2025": 0.222,
}
NF4_ON_T4 = [
    "unsloth-grpo-llama3.1-8b-nf4-t4",
    "unsloth-grpo-qwen2.5-3b-nf4-t4",
    "unsloth-grpo-phi-4-nf4-t4",
    "unsloth-grpo-llama3.1-8b-nf4-t4-feb2025",
]


@cache
def _ratio(rid: str) -> float:
    return step_ratio(by_id(RECORDS, rid))


def test_every_record_names_its_notebook_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith(SOURCE) and record["source"].endswith(".ipynb"), record["id"]
        assert record["settings_source"] == record["source"], record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert record["group"] == "others" and record["counted"], record["id"]
    assert [r["id"] for r in RECORDS] == list(FIRST_REPLAY)


def test_each_step_is_the_progress_bar_over_its_steps() -> None:
    # source: each notebook's saved trainer bar ('[250/250 3:47:51, Epoch 0/1]' and the like,
    # quoted in the record); the step is its elapsed seconds over its steps; tolerance 0.001 s
    for record in RECORDS:
        pub = record["published"]
        assert record["measured"]["step"] == pytest.approx(pub["seconds"] / pub["steps"], abs=1e-3)
        assert str(pub["steps"]) in record["quote"], record["id"]


def test_the_notebook_settings_are_stated() -> None:
    # source: each notebook's GRPOConfig and from_pretrained cells at the record's commit; exact.
    # Unsloth resets per_device_train_batch_size to num_generations, so a micro-batch is one
    # prompt's completions; the longest response sits at max_completion_length
    for record in RECORDS:
        sc, pub = record["scenario"], record["published"]
        ro, pol = sc["rl"]["rollout"], sc["rl"]["policy"]
        assert ro["shared_weights"] and sc["rl"]["placement"] == "colocated", record["id"]
        assert pol["micro_batch_size"] == ro["samples_per_prompt"] == pol["log_prob_micro_batch_size"]
        assert ro["prompts_per_step"] == pub["gradient_accumulation_steps"], record["id"]
        assert ro["response_tokens"] == round(pub["mean_completion_tokens"]), record["id"]
        longest = ro["response_tokens"] * (1 + ro["response_spread"])
        assert longest == pytest.approx(pub["max_completion_tokens"], abs=1), record["id"]
        assert sc["hardware"]["gpus_per_node"] == 1 and sc["framework"] == "unsloth"


@pytest.mark.parametrize("rid", list(FIRST_REPLAY))
def test_each_step_ratio_is_as_first_replayed(rid: str) -> None:
    # source: the record's notebook and quoted lines; tolerance 0.02 of the ratio (drift of the
    # model, not accuracy: the count below says how many are within 25 %)
    assert _ratio(rid) == pytest.approx(FIRST_REPLAY[rid], abs=0.02)


def test_six_of_eleven_within_25_percent() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25): 6 of 11 on first
    # replay; the five misses all short
    ratios = {rid: _ratio(rid) for rid in FIRST_REPLAY}
    inside = within(ratios)
    assert len(inside) == 6
    assert all(ratios[rid] < 0.75 for rid in FIRST_REPLAY if rid not in inside)


def test_the_bitsandbytes_bases_on_a_t4_read_shortest() -> None:
    # diagnostic (rl.md, the section's misses): four 4-bit bases on a T4 read 0.18-0.41, below
    # every other record; the same notebook on an RTX 4090 reads within, and the fifth 4-bit T4
    # run (its longest response priced at a 1,867-token cap against a 157-token mean) reads 0.87
    others = [rid for rid in FIRST_REPLAY if rid not in NF4_ON_T4]
    assert max(_ratio(rid) for rid in NF4_ON_T4) < min(_ratio(rid) for rid in others)
