"""``serving.redundant_experts`` (docs/scenario-format.md; core/model/redundant.py): the EP ranks
hold the routed experts plus these replicas, evenly (SGLang's FusedMoE: ``num_experts =
n_routed_experts + ep_num_redundant_experts``, ``num_experts % moe_ep_size == 0``; vLLM's
``n_local_physical_experts = n_physical_experts // ep_size``). Null and 0 change nothing; the
replicas cost each rank their weights; bad values are refused naming the field. Also the heads
check at attention TP under attention data parallelism (SGLang dp_attention.py ``attn_tp_size =
tp_size // dp_size``; DeepseekV2AttentionMLA asserts ``num_heads % attn_tp_size == 0``)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.model.redundant import expert_divisor, physical_experts
from gpusizer.core.pipeline.scenario import parse_scenario

# Qwen3-30B-A3B (128 experts of 8 a token) under SGLang, 8 attention-DP ranks on 8 H100s
EP8: dict[str, Any] = {
    "model": {"preset": "qwen3-30b-a3b"},
    "framework": "sglang",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"tensor": 8, "attention_data": 8},
    "workload": {"kind": "inference", "prompt_tokens": 1000, "generated_tokens": 200, "batch_size": 256},
    "serving": {"load": "steady"},
}


def _with(base: dict[str, Any], **serving: Any) -> dict[str, Any]:
    sc = copy.deepcopy(base)
    sc["serving"].update(serving)
    return sc


def _without_echo(report: dict[str, Any]) -> dict[str, Any]:
    out = copy.deepcopy(report)
    out["scenario"]["serving"].pop("redundant_experts", None)
    return out


def test_null_and_zero_are_the_answer_before() -> None:
    """Unset, null and 0 give the same report (the echoed field apart)."""
    base = estimate_report(EP8)
    for value in (None, 0):
        assert _without_echo(estimate_report(_with(EP8, redundant_experts=value))) == _without_echo(base)


def test_each_rank_holds_its_replicas() -> None:
    """128 + 8 experts over 8 ranks are 17 a GPU instead of 16 (the assumptions say so): the
    GPU's weights grow by one expert's share, 1/16 of its routed experts' bytes (the rest
    unchanged)."""
    s = parse_scenario(_with(EP8, redundant_experts=8))
    assert physical_experts(s) == 136
    assert expert_divisor(parse_scenario(EP8)) == 1  # the view's split is applied later
    plain = estimate_report(EP8)["per_gpu"]["weights"]
    report = estimate_report(_with(EP8, redundant_experts=8))
    more = report["per_gpu"]["weights"]
    assert any("136 physical experts (8 redundant)" in a for a in report["assumptions"])
    # Qwen3-30B-A3B's routed experts: 48 layers x 128 x 3 x 2048 x 768 parameters, bf16
    routed = 48 * 128 * 3 * 2048 * 768 * 2
    assert more - plain == pytest.approx(routed / 8 / 16, rel=1e-6)


def test_replicas_read_and_placed_by_eplb() -> None:
    """With replicas and no stated balance the step reads the replicas it holds and its busiest
    rank is the one EPLB's placement leaves (core/speed/expert_load.py ``eplb_rank_factor``):
    the decode runs 11 % faster than without replicas (0.89 of the time per token; within 0.02),
    where the replicas drawn as experts of their own left it within a few per cent; a stated
    balance sets the busiest rank as before."""
    plain = estimate_report(EP8)["serving"]["tpot_seconds"]
    spare = estimate_report(_with(EP8, redundant_experts=8))["serving"]["tpot_seconds"]
    assert spare / plain == pytest.approx(0.89, abs=0.02)
    at = estimate_report(_with(EP8, redundant_experts=8, expert_balance=0.8))["serving"]["tpot_seconds"]
    at0 = estimate_report(_with(EP8, expert_balance=0.8))["serving"]["tpot_seconds"]
    assert at == pytest.approx(at0, rel=0.05)


@pytest.mark.parametrize(
    ("serving", "field", "words"),
    [
        ({"redundant_experts": -1}, "serving.redundant_experts", "greater than or equal to 0"),
        ({"redundant_experts": 1.5}, "serving.redundant_experts", "whole number"),
        ({"redundant_experts": 4}, "serving.redundant_experts", "multiple of the 8 ranks"),
    ],
)
def test_bad_values_name_the_field(serving: dict[str, Any], field: str, words: str) -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_with(EP8, **serving))
    assert err.value.field == field and words in str(err.value) and "\n" not in str(err.value)


def test_a_dense_model_is_refused_and_training_keeps_it_unread() -> None:
    dense = {
        "model": {"preset": "llama-3.1-8b"},
        "framework": "sglang",
        "workload": {"kind": "inference"},
        "serving": {"redundant_experts": 8},
    }
    with pytest.raises(ScenarioError) as err:
        estimate_report(dense)
    assert err.value.field == "serving.redundant_experts" and "MoE" in str(err.value)
    train: dict[str, Any] = {"model": {"preset": "qwen3-30b-a3b"}, "workload": {"kind": "lora"}}
    held = copy.deepcopy(train)
    held["serving"] = {"redundant_experts": 5}
    assert _without_echo(estimate_report(held))["per_gpu"] == estimate_report(train)["per_gpu"]


def test_one_rank_keeps_it_unread() -> None:
    """Experts on one rank: the replicas are not read (kept, like ``serving.expert_balance``)."""
    one = {**EP8, "parallelism": {"tensor": 1}}
    assert estimate_report(_with(one, redundant_experts=3))["per_gpu"] == estimate_report(one)["per_gpu"]


def test_heads_split_at_attention_tp() -> None:
    """DeepSeek-V3's 128 heads: tensor 48 with 48 attention-DP ranks runs attention at TP 1 and is
    accepted (SGLang's GB200 decode, --tp-size 48 --dp-size 48); tensor 48 without attention DP,
    or attention TP 3 (tensor 6 over 2 ranks), is refused on ``parallelism.tensor``."""
    sc: dict[str, Any] = {
        "model": {"preset": "deepseek-v3"},
        "framework": "sglang",
        "hardware": {"gpu": "gb200-186gb"},
        "parallelism": {"tensor": 48, "attention_data": 48},
        "workload": {"kind": "inference", "batch_size": 48 * 64},
        "serving": {"redundant_experts": 32},
    }
    assert estimate_report(sc)["fits"] in (True, False)
    for par, words in (
        ({"tensor": 48}, "attention_heads (128)"),
        ({"tensor": 6, "attention_data": 2}, "attention TP 3"),
    ):
        bad = {**sc, "parallelism": par, "serving": {}}
        with pytest.raises(ScenarioError) as err:
            estimate_report(bad)
        assert err.value.field == "parallelism.tensor" and words in str(err.value)


def test_the_speed_assumption_says_eplb_placed_the_replicas() -> None:
    """The report's speed line says the replicas are placed as EPLB places them where they are
    read and no balance is stated; a stated balance is named instead, and without replicas the
    line says neither."""

    def speed_line(d: dict[str, Any]) -> str:
        return next(a for a in estimate_report(d)["assumptions"] if a.startswith("speed for"))

    placed = "redundant experts placed as EPLB places them"
    assert placed in speed_line(_with(EP8, redundant_experts=8))
    assert placed not in speed_line(_with(EP8, redundant_experts=8, expert_balance=0.8))
    assert placed not in speed_line(EP8)
