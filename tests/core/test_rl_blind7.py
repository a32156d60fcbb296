"""Published RL throughputs replayed blind, round seven (docs/evidence/rl.md, the section "A seventh
blind round of published RL step times"; records in tests/core/data/rl-time-blind7.json, each with
its source link, the quoted table, the settings read from the blog's scripts and what had to be
assumed).

Eight counted figures, not tuned to: AMD's ROCm blog "Reinforcement Learning from Human Feedback
on AMD GPUs with verl and ROCm Integration" (ROCm/rocm-blogs
blogs/artificial-intelligence/verl-large-scale/README.md at 20c92779, 2025-04-24) runs verl
v0.3.0.post0's single-node PPO and GRPO scripts on Qwen2-7B-Instruct and deepseek-llm-7b-chat
(GSM8K) on 8 H100 and on 8 MI300X with the same settings, and prints verl's ``perf/throughput``
(prompt + response tokens of a step / (step seconds x GPUs), averaged over 350 steps).

The table gives no lengths. Each record states the mean prompt (94) and response (190) read from
a verl log of the same GRPO recipe on Qwen2-7B-Instruct (eric-haibin-lin/verl-data
gsm8k/qwen2-7b-fsdp2.log); the published step is the step those tokens imply at the published
throughput (``implied_step``), so estimate / published reads as the published throughput over
the estimate's. On first replay 6 of 8 lie within 25 %, all eight short (``FIRST_REPLAY``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.core.blind_replay import by_id, load, within
from tests.core.blind_replay import rl_step as _step

RECORDS: list[dict[str, Any]] = load("rl-time-blind7.json")
GPUS = 8  # every row: one node of 8 (the blog's trainer.n_gpus_per_node 8, nnodes 1)

# estimate / published step on first replay (blind), as docs/evidence/rl.md records it
FIRST_REPLAY = {
    "verl-rocm-blog-ppo-qwen2-7b-8xh100": 0.760,
    "verl-rocm-blog-ppo-qwen2-7b-8xmi300x": 0.795,
    "verl-rocm-blog-ppo-deepseek-7b-8xh100": 0.600,
    "verl-rocm-blog-ppo-deepseek-7b-8xmi300x": 0.752,
    "verl-rocm-blog-grpo-qwen2-7b-8xh100": 0.732,
    "verl-rocm-blog-grpo-qwen2-7b-8xmi300x": 0.853,
    "verl-rocm-blog-grpo-deepseek-7b-8xh100": 0.763,
    "verl-rocm-blog-grpo-deepseek-7b-8xmi300x": 0.911,
}
# since: verl's critic runs its rows padded where the actor packs them (critic.model.
# use_remove_padding False, core/pipeline/rl_critic_padding.py), the four PPO rows' critic
# forward and update priced over padded rows (docs/evidence/rl.md, the critic's padded rows);
# then its one-output value head, not the vocabulary's (core/pipeline/rl_critic_head.py; before:
# 0.963, 1.016, 0.732, 0.924). Since the records state the blog's PPO script's
# critic.model.use_remove_padding=True (rl.critic.remove_padding true: the critic packs, as the
# actor does; before: 0.936, 0.986, 0.717, 0.905; docs/evidence/rl.md, "verl's padded rows and
# the seventh round's packed critic")
RECORDED = dict(FIRST_REPLAY) | {
    "verl-rocm-blog-ppo-qwen2-7b-8xh100": 0.747,
    "verl-rocm-blog-ppo-qwen2-7b-8xmi300x": 0.781,
    "verl-rocm-blog-ppo-deepseek-7b-8xh100": 0.592,
    "verl-rocm-blog-ppo-deepseek-7b-8xmi300x": 0.743,
}

# the ratio at a mean response of 150 and of 250 tokens (the record's assumption is 190)
AT_MEANS = {
    # the PPO rows with the critic's padded rows (before: (0.790, 0.724), (0.825, 0.759),
    # (0.614, 0.582), (0.769, 0.730)); the padding is to the longest, so a shorter mean pads more.
    # With the critic's value head (before: (1.057, 0.859), (1.116, 0.905), (0.788, 0.669),
    # (0.996, 0.844)). With the critic packed as the blog's script sets it (before: (1.025,
    # 0.836), (1.081, 0.881), (0.770, 0.657), (0.973, 0.828))
    "verl-rocm-blog-ppo-qwen2-7b-8xh100": (0.777, 0.711),
    "verl-rocm-blog-ppo-qwen2-7b-8xmi300x": (0.811, 0.745),
    "verl-rocm-blog-ppo-deepseek-7b-8xh100": (0.606, 0.575),
    "verl-rocm-blog-ppo-deepseek-7b-8xmi300x": (0.760, 0.721),
    "verl-rocm-blog-grpo-qwen2-7b-8xh100": (0.739, 0.725),
    "verl-rocm-blog-grpo-qwen2-7b-8xmi300x": (0.860, 0.844),
    "verl-rocm-blog-grpo-deepseek-7b-8xh100": (0.768, 0.801),
    "verl-rocm-blog-grpo-deepseek-7b-8xmi300x": (0.912, 0.916),
}


def step_tokens(scenario: dict[str, Any]) -> float:
    """Prompt + response tokens of one step (verl's ``perf/total_num_tokens``): prompts x samples
    x (mean prompt + mean response)."""
    rl = scenario["rl"]
    ro = rl["rollout"]
    return ro["prompts_per_step"] * ro["samples_per_prompt"] * (rl["prompt_tokens"] + ro["response_tokens"])


def implied_step(record: dict[str, Any]) -> float:
    """The step (seconds) the published throughput implies for the record's tokens: verl's
    ``perf/throughput`` is tokens / (step seconds x GPUs) (verl/trainer/ppo/metric_utils.py
    compute_throughout_metrics at v0.3.0.post0)."""
    published = record["measured"]["throughput_tokens_per_gpu_s"]
    return step_tokens(record["scenario"]) / (published * GPUS)


def ratio(record: dict[str, Any], scenario: dict[str, Any] | None = None) -> float:
    """Estimate / published step (the published throughput over the estimate's) of a record, or
    of a variant of its scenario (its own tokens, the published throughput)."""
    sc = record["scenario"] if scenario is None else scenario
    published = record["measured"]["throughput_tokens_per_gpu_s"]
    return _step(sc) * published * GPUS / step_tokens(sc)


def _at_mean(record: dict[str, Any], mean: int) -> dict[str, Any]:
    """The record's scenario at another mean response, the longest still at the cap."""
    sc = copy.deepcopy(record["scenario"])
    ro = sc["rl"]["rollout"]
    cap = 1024 if sc["rl"]["algorithm"] == "grpo" else 512  # the scripts' max_response_length
    ro["response_tokens"] = mean
    ro["response_spread"] = (cap - mean) / mean
    return sc


def test_every_record_names_its_source_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://github.com/ROCm/rocm-blogs/"), record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert set(record["measured"]) == {"throughput_tokens_per_gpu_s"}, record["id"]
        assert record["group"] == "verl" and record["counted"], record["id"]
    assert [r["id"] for r in RECORDS] == list(RECORDED)


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_ratio_is_as_recorded(record: dict[str, Any]) -> None:
    # source: the record's link and quoted table; tolerance 0.02 of the ratio (drift of the model,
    # not accuracy: the count below says how many are within 25 %)
    assert ratio(record) == pytest.approx(RECORDED[record["id"]], abs=0.02)


def test_the_count_within_25_percent_is_as_recorded() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25): 6 of 8 on first
    # replay, every one short on first replay; the misses were two H100 rows. With the critic's
    # padded rows the PPO MI300X Qwen2 row read long (1.016); with its one-output value head
    # (core/pipeline/rl_critic_head.py) 0.986, every row short again. With the critic packed as
    # the blog's script sets it, 4 of 8: the PPO H100 Qwen2 (0.747) and MI300X deepseek (0.743)
    # rows fall just under 0.75
    ratios = {r["id"]: ratio(r) for r in RECORDS}
    missed = {"verl-rocm-blog-ppo-deepseek-7b-8xh100", "verl-rocm-blog-grpo-qwen2-7b-8xh100"}
    packed = {"verl-rocm-blog-ppo-qwen2-7b-8xh100", "verl-rocm-blog-ppo-deepseek-7b-8xmi300x"}
    now: list[str] = within(ratios)
    first: list[str] = within(FIRST_REPLAY)
    assert set(RECORDED) - set(now) == missed | packed
    assert set(RECORDED) - set(first) == missed
    assert all(v < 1 for v in FIRST_REPLAY.values())
    assert all(v < 1 for v in ratios.values())


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_the_unpublished_mean_moves_the_ratio_as_recorded(record: dict[str, Any]) -> None:
    # the records' assumption (the mean response, 190, from a log of the same GRPO recipe): at 150
    # and 250 tokens each ratio moves by under 0.04 (0.02 pinned), the PPO rows by up to 0.04
    # (0.11 while their critic was priced padded to the longest); the GRPO H100 Qwen2 row and
    # the PPO H100 deepseek row miss at all three
    for mean, pinned in zip((150, 250), AT_MEANS[record["id"]], strict=True):
        assert ratio(record, _at_mean(record, mean)) == pytest.approx(pinned, abs=0.02)


def test_the_estimate_rates_h100_and_mi300x_alike_where_the_blog_does_not() -> None:
    # the blog: MI300X 1.02-1.23x H100's throughput at the same settings (921.24 / 907.24 ...
    # 1899.04 / 1624.42); the estimate: within 4 % of each other, H100 ahead, so the H100 rows
    # read 0.04-0.15 shorter than their MI300X twins
    for algo, model in (("ppo", "qwen2"), ("ppo", "deepseek"), ("grpo", "qwen2"), ("grpo", "deepseek")):
        h100 = by_id(RECORDS, f"verl-rocm-blog-{algo}-{model}-7b-8xh100")
        mi300x = by_id(RECORDS, f"verl-rocm-blog-{algo}-{model}-7b-8xmi300x")
        published = (
            mi300x["measured"]["throughput_tokens_per_gpu_s"]
            / h100["measured"]["throughput_tokens_per_gpu_s"]
        )
        estimated = _step(h100["scenario"]) / _step(mi300x["scenario"])
        assert 1.0 < published < 1.25
        assert 0.96 < estimated < 1.0
