"""Speculative ``mtp`` drafting more tokens than the checkpoint ships MTP layers
(core/serving/mtp_depth.py): accepted, the reused positions decayed; vLLM refuses a count above
the layers they do not divide (vllm/config/speculative.py, "must be divisible by {n_predict=}")."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.scenario import parse_scenario
from gpusizer.core.serving.mtp_depth import REUSE_DECAY, chain_tokens
from gpusizer.core.serving.speculative import expected_tokens
from tests.scenarios import RL_SPLIT

SERVE: dict[str, Any] = {
    "model": {"preset": "deepseek-v3"},
    "workload": {"kind": "inference", "prompt_tokens": 512, "generated_tokens": 64},
    "framework": "vllm",
    "hardware": {"gpu": "h200-141gb", "gpus_per_node": 8},
    "parallelism": {"tensor": 8},
    "serving": {"speculative": {"method": "mtp"}},
}


def _serve(
    spec: dict[str, Any], model: dict[str, Any] | None = None, framework: str = "vllm"
) -> dict[str, Any]:
    s = json.loads(json.dumps(SERVE))
    s["serving"]["speculative"] = spec
    s["framework"] = framework
    if model is not None:
        s["model"] = model
    return s


def test_the_reuse_decay_reproduces_the_published_acceptance_length() -> None:
    """nebius/MTP-DeepSeek-V3-0324 model card: DeepSeek-V3's original MTP layer reused to K = 7
    reads an acceptance length of 3.20 (temperature 0); the method's default 0.85 for the first
    token (DeepSeek-V3 report §5.4.3). Tolerance 0.01 (the factor is given to three places)."""
    assert chain_tokens(0.85, 7, 6) == pytest.approx(3.20, abs=0.01)
    assert expected_tokens(0.85, 7) == pytest.approx(4.85, abs=0.01)  # no decay reads 1.5x more
    # LMSYS's SGLang NEXTN at two steps on DeepSeek R1: accept length 2.4-2.7
    # (tests/core/data/disagg-large-ep.json, the decode row's note)
    assert 2.4 <= chain_tokens(0.85, 2, 1) <= 2.7
    assert chain_tokens(0.85, 3, 0) == pytest.approx(expected_tokens(0.85, 3))
    assert 0 < REUSE_DECAY < 1


def test_more_tokens_than_layers_run_with_the_reused_positions_decayed() -> None:
    one = estimate_report(_serve({"method": "mtp", "num_tokens": 1}))["serving"]
    three = estimate_report(_serve({"method": "mtp", "num_tokens": 3}))
    assert one["speculative_tokens_per_step"] == pytest.approx(1.85)  # no reuse: unchanged
    assert three["serving"]["speculative_tokens_per_step"] == pytest.approx(chain_tokens(0.85, 3, 2))
    assert three["serving"]["speculative_tokens_per_step"] < expected_tokens(0.85, 3)
    assert any("2 of 3 draft tokens reuse" in a for a in three["assumptions"])


def test_a_stated_acceptance_is_the_runs_own_and_is_not_decayed() -> None:
    """A stated rate was read from the run (e.g. an accept length), reuse included."""
    r = estimate_report(_serve({"method": "mtp", "num_tokens": 2, "acceptance_rate": 0.8416}))
    assert r["serving"]["speculative_tokens_per_step"] == pytest.approx(expected_tokens(0.8416, 2))
    assert not any("reuse the checkpoint" in a for a in r["assumptions"])


def test_vllm_refuses_a_count_the_layers_do_not_divide_naming_both_fields() -> None:
    two_layers = {"preset": "deepseek-v3", "mtp_layers": 2}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_serve({"method": "mtp", "num_tokens": 3}, two_layers))
    assert err.value.field == "serving.speculative.num_tokens"
    msg = err.value.message
    assert "model.mtp_layers (2)" in msg and "got 3" in msg and "2 or 4" in msg
    assert "\n" not in msg
    for k in (1, 2, 4):  # at most the layers, or a multiple of them
        parse_scenario(_serve({"method": "mtp", "num_tokens": k}, two_layers))


def test_sglang_reuses_the_layers_freely() -> None:
    """SGLang PR 3582: the one NextN layer drafts any number of steps (no divisibility rule)."""
    s = _serve({"method": "mtp", "num_tokens": 3}, {"preset": "deepseek-v3", "mtp_layers": 2}, "sglang")
    parse_scenario(s)


@pytest.mark.parametrize("k", [0, -1, 17, 2.5, "3", True, None])
def test_hostile_num_tokens_are_refused_by_field(k: Any) -> None:
    spec: dict[str, Any] = {"method": "mtp", "num_tokens": k}
    if k is None:
        parse_scenario(_serve(spec))  # null: the method's default (1)
        return
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_serve(spec))
    assert "num_tokens" in err.value.field


@pytest.mark.parametrize("layers", [-1, 2.5, "1", True])
def test_hostile_mtp_layers_are_refused_by_field(layers: Any) -> None:
    model = {"preset": "deepseek-v3", "mtp_layers": layers}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_serve({"method": "mtp", "num_tokens": 2}, model))
    assert err.value.field == "model.mtp_layers"


def test_the_rollout_refuses_the_same_count_on_vllm() -> None:
    s = json.loads(json.dumps(RL_SPLIT))
    s["model"] = {"preset": "qwen2.5-7b", "mtp_layers": 2}
    s["rl"]["rollout"]["speculative"] = {"method": "mtp", "num_tokens": 3}
    with pytest.raises(ScenarioError) as err:
        parse_scenario(s)
    assert err.value.field == "rl.rollout.speculative.num_tokens"
    s["rl"]["rollout"]["speculative"] = {"method": "mtp", "num_tokens": 4}
    parse_scenario(s)
