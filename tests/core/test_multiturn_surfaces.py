"""serving.prefix.turns on the remaining surfaces (docs/evidence/serving.md, the multi-turn
surfaces section): the compare/plan Why (core/sizing/feature_words.py), the P/D split
(core/serving/disaggregated.py: the prefill pool runs the mean turn, its history hits skipped)
and the users-against-context chart (core/views/capacity.py: the request is the mean turn's)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.estimate import estimate
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.sizing.feature_words import feature_part
from gpusizer.core.views.capacity import capacity_curve


def _chat(
    turns: int | None = 5, hit_rate: float | None = None, offload: float | None = None
) -> dict[str, Any]:
    """5 turns of 1,000 new user tokens and 100 of reply: turn k sends (k-1) x 1,100 of
    history, the mean turn's prompt 1,000 + 2,200 = 3,200 tokens."""
    prefix: dict[str, Any] = {"turns": turns}
    if hit_rate is not None:
        prefix["hit_rate"] = hit_rate
    serving: dict[str, Any] = {"prefix": prefix}
    if offload is not None:
        serving["kv_offload"] = {"capacity_gb": offload, "medium": "cpu"}
    return {
        "model": {"preset": "llama-3.1-8b"},
        "hardware": {"gpu": "h100-sxm-80gb"},
        "framework": "vllm",
        "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 100, "batch_size": 32},
        "serving": serving,
    }


def _split(data: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(data)
    out["serving"]["disaggregated"] = {"prefill_gpus": 1, "decode_gpus": 1}
    return out


def test_why_states_the_turns() -> None:
    """The Why names the turns, the mean turn's prompt (3,200: the module docstring's arithmetic)
    and the history hit rate; without an offload tier it says none is loaded from one."""
    part = feature_part(estimate(parse_scenario(_chat())))
    assert part is not None
    assert part.startswith("multi-turn chats: 5 turns a conversation, mean prompt 3,200 tokens; ")
    assert "of turns after the first found their history" in part
    assert "none from an offload tier" in part


def test_why_states_where_the_tier_serves_hits() -> None:
    """With 500 GB of host memory the clause gives the tokens loaded from the tier and the tier
    clause speaks of the histories, not of a shared prefix."""
    est = estimate(parse_scenario(_chat(offload=500)))
    part = feature_part(est)
    assert part is not None and est.serving is not None
    assert f"{est.serving.prefix_offload_tokens:,} of them loaded from the offload tier" in part
    assert "KV offload (cpu, 500 GB)" in part and "every live history" in part
    assert "shared prefix" not in part


def test_why_without_turns_unchanged() -> None:
    """A scenario without turns reads no multi-turn clause (the 22K shared-prefix phrase is the
    round-54 one, tests/cli/test_buyer_review_round54.py)."""
    assert feature_part(estimate(parse_scenario(_chat(turns=None)))) is None
    shared = _chat(turns=None, offload=200)
    shared["serving"]["prefix"] = {"shared_tokens": 768}
    part = feature_part(estimate(parse_scenario(shared)))
    assert part is not None and "multi-turn" not in part and part.endswith("the shared prefix")


def test_split_prefill_skips_the_history_hits() -> None:
    """P/D: the prefill pool runs the mean turn (3,200 tokens) and skips the cached history, as
    vLLM's scheduler looks up its own prefix cache on every instance, the prefill instance
    included (v1/core/sched/scheduler.py, ``get_computed_blocks`` before the connector's
    ``get_num_new_matched_tokens``). Hit rate 0 prefills the whole 3,200: the split's TTFT with
    the hits must be below it (measured here 0.135 s against 1.08 s)."""
    hits = estimate_report(_split(_chat()))["serving"]
    none = estimate_report(_split(_chat(hit_rate=0.0)))["serving"]
    assert hits["prefix_mean_prompt_tokens"] == 3200 and hits["prefix_cached_tokens"] > 0
    assert hits["disaggregated_ttft_seconds"] < 0.5 * none["disaggregated_ttft_seconds"]
    # the decode pool is the same either way: only the prefill differs
    assert hits["disaggregated_tpot_seconds"] == pytest.approx(none["disaggregated_tpot_seconds"], rel=1e-9)


def test_capacity_marks_the_mean_turns_request() -> None:
    """Users against context: the scenario's request is the mean turn's, 3,200 + 100 tokens,
    and the users at any context are as without turns (the KV a request holds is its length's)."""
    on, off = capacity_curve(_chat()), capacity_curve(_chat(turns=None))
    assert on.context == 3300 and off.context == 1100 and 3300 in on.contexts
    grid = [1100, 3300, 8192]
    assert capacity_curve(_chat(), grid).users == capacity_curve(_chat(turns=None), grid).users
