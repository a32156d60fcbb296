"""What a buyer reads of an RL compare: the money is spread over the whole RL step and run (the
rollout, log-prob forwards and refit included, not the training phase alone), a split run is
priced on both pools, and every server GPU is offered (a heaviest savings rung that holds
nothing no longer turns the count search's own find away)."""

from __future__ import annotations

from typing import Any

import pytest

import gpusizer
from gpusizer.core.sizing.compare_rank import speed_of
from gpusizer.io.compare_table import columns_for, compare_text

# GRPO of Qwen3 8B with the defaults (256 prompts x 8 samples, 1,024-token responses), verl's
# FSDP backend: the buyer case of the advice review
GRPO_8B: dict[str, Any] = {
    "model": {"preset": "qwen3-8b"},
    "workload": {"kind": "rl", "micro_batch_size": 1},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "rl": {"algorithm": "grpo", "steps": 200},
}
SPLIT = {"placement": "split", "rollout": {"gpus": 4}}


def _by_gpu(rows: list[dict]) -> dict[str, dict]:
    return {o["gpu"]: o for o in rows}


@pytest.fixture(scope="module")
def catalog() -> dict[str, dict]:
    return _by_gpu(gpusizer.compare_gpus(GRPO_8B))


def test_server_gpus_are_offered_for_rl(catalog: dict[str, dict]) -> None:
    # before: every 8-GPU server (H100, H200, B200, MI300X...) read "practical_limit: the
    # targets need more than 4,096 GPUs" in a scenario with no target at all
    for gpu in ("h100-sxm-80gb", "h200-141gb", "b200-192gb", "mi300x-192gb"):
        o = catalog[gpu]
        assert o["fits"] and o["unmet"] is None, (gpu, o["notes"])
        assert o["gpus"] == 8  # one server


def test_money_is_spread_over_the_whole_rl_step(catalog: dict[str, dict]) -> None:
    o = catalog["h100-sxm-80gb"]
    step_rate = o["rl_tokens_trained_per_second"]
    # the step's trained tokens over the step's time, slower than the training phase alone
    assert 0 < step_rate < o["tokens_per_second"]
    assert o["cost_per_million_tokens"] == pytest.approx(o["cost_per_hour"] * 1e6 / (step_rate * 3600))
    assert o["training_cost"] == pytest.approx(o["cost_per_hour"] * o["rl_run_seconds"] / 3600)
    assert speed_of(o) == step_rate
    assert o["time_seconds"] is None  # the contract: the run is rl_run_seconds


def test_split_is_priced_on_both_pools() -> None:
    rows = gpusizer.compare_gpus({**GRPO_8B, "rl": {**GRPO_8B["rl"], **SPLIT}}, gpus=["h100-pcie-80gb"])
    o = rows[0]
    assert o["rl_total_gpus"] == o["gpus"] + 4
    # H100 PCIe is rented by the card: the hourly cost is every GPU of the run's
    assert o["cost_per_hour"] == pytest.approx(o["price_per_hour"] * o["rl_total_gpus"])
    assert any("the prices and costs are both pools'" in n for n in o["notes"])


def test_the_table_shows_the_rl_step_and_run(catalog: dict[str, dict]) -> None:
    cols = [c.key for c in columns_for(True, False, rl=True)]
    assert {
        "rl_total_gpus",
        "rl_time_per_step_seconds",
        "rl_run_seconds",
        "rl_tokens_trained_per_second",
    } <= set(cols)
    assert "tokens_per_second" not in cols and "time_seconds" not in cols  # the training phase's
    assert "rl_run_seconds" not in [c.key for c in columns_for(True, False)]
    text = compare_text([catalog["h100-sxm-80gb"]], training=True, targets=False)
    assert "RL run" in text.splitlines()[0]


def test_an_engine_that_starts_at_no_width_names_the_widest() -> None:
    # GRPO of a 70B on one 24 GB card: the advice tries the rollout widths up to the node (1 on
    # a desktop card) and none starts, so the widest's refusal is the reason, naming what is
    # left to change (core/sizing/engine_width.py, core/sizing/rl_unmet.py)
    s = {**GRPO_8B, "model": {"preset": "llama-3.3-70b"}}
    o = gpusizer.compare_gpus(s, gpus=["rtx-4090-24gb"])[0]
    assert not o["fits"] and o["unmet"] == "memory"
    assert "the rollout engine would not start" in o["unmet_reason"]
    assert "raise rl.rollout.memory_fraction or choose a smaller format" in o["unmet_reason"]
