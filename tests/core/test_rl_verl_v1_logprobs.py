"""verl's SPMD vLLM rollout asks the engine for each token's log-prob: ``rl.rollout.returns_logprobs``
left out is verl's release default on a vLLM V1 rollout (0.8.0 on) from v0.3.0 to v0.6.x, and false
from v0.7.0 (core/registry/rl_framework_releases_verl.py; docs/evidence/rl.md, the section on
verl's V1 log-prob request).

Sources, read at the tags in the volcengine/verl mirror: ``verl/workers/rollout/vllm_rollout/
vllm_rollout_spmd.py`` ``SamplingParams(n=1, logprobs=0, ...)`` "can be set to 0 and let actor to
recompute" at v0.3.0.post1 (l.131), v0.4.1 (l.176), v0.5.0 (l.193) and v0.6.0 (l.218), the rollout
of ``rollout.mode: sync`` (v0.6.0 ``verl/trainer/config/rollout/rollout.yaml``); v0.7.0 makes
``mode: async`` the default, whose agent loop asks ``logprobs=config.calculate_log_probs`` (False)
and whose server sets ``sampling_params["logprobs"] = 0 if ... else None``
(``verl/experimental/agent_loop/agent_loop.py`` l.431, ``vllm_async_server.py`` l.494). The
knob's price is vLLM V1's engine-core figure (12.8 us a token, vLLM PR #57442,
core/pipeline/rl_time.py), so a V0 rollout (before 0.8.0) does not take it."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.pipeline.rl_framework import fill_rl_framework
from gpusizer.core.registry.rl_framework_releases_verl import VERL

DATA = Path(__file__).parent / "data"
BLIND3 = {r["id"]: r for r in json.loads((DATA / "rl-time-blind3.json").read_text(encoding="utf-8"))}
FIELD = "rollout.returns_logprobs"


def _filled(version: str | None, engine: str = "vllm", engine_version: str | None = None) -> object:
    rollout: dict[str, Any] = {"engine": engine}
    if engine_version is not None:
        rollout["engine_version"] = engine_version
    rl = fill_rl_framework({"rl": {"framework": "verl", "framework_version": version, "rollout": rollout}})
    return rl["rl"]["rollout"].get("returns_logprobs")


@pytest.mark.parametrize("version", ["0.3.0", "0.4.1", "0.5.0", "0.6.0"])
def test_the_sync_spmd_rollout_asks_for_log_probs_on_v1(version: str) -> None:
    assert _filled(version, engine_version="0.9.1") is True
    assert _filled(version, engine_version="0.8.0") is True
    assert _filled(version) is True  # unset: the catalog's newest vLLM, a V1 release


@pytest.mark.parametrize("version", ["0.3.0", "0.5.0", "0.6.0"])
def test_a_v0_rollout_and_an_sglang_rollout_take_no_default(version: str) -> None:
    # vLLM 0.7.0 (V0: the XFORMERS runs' rules) and 0.6.3; SGLang's output is not vLLM's figure
    assert _filled(version, engine_version="0.7.0") is None
    assert _filled(version, engine_version="0.6.3") is None
    assert _filled(version, engine="sglang") is None


def test_v0_7_0_s_async_rollout_asks_for_none() -> None:
    assert _filled("0.7.0", engine_version="0.9.1") is False
    assert _filled(None) is False  # the newest modelled release
    assert VERL[-1].value(FIELD) is False


def test_a_stated_knob_wins() -> None:
    rl = {"framework": "verl", "framework_version": "0.5.0", "rollout": {"returns_logprobs": False}}
    assert fill_rl_framework({"rl": rl})["rl"]["rollout"]["returns_logprobs"] is False


def _ratio(scenario: dict[str, Any], published: float) -> float:
    return float(estimate_report(scenario)["rl"]["time_per_step_seconds"]) / published


# verl's two August 2025 GSM8K reports on 8 H100 (rl-time-blind3.json: vLLM 0.9.1, V1, eager),
# estimate / published step (71.044 s and 80.320 s): before the default (the knob false) and
# after; 1 % (the estimator is deterministic; the tolerance covers later rounding only)
MOVES = {
    "verl-grpo-llama3.2-1b-8xh100": (0.548, 0.590),
    "verl-grpo-qwen2.5-7b-8xh100": (0.861, 0.909),
}


@pytest.mark.parametrize("rid", sorted(MOVES))
def test_the_v1_reports_take_the_log_prob_output(rid: str) -> None:
    rec = BLIND3[rid]
    before, after = MOVES[rid]
    s = rec["scenario"]
    assert "returns_logprobs" not in s["rl"]["rollout"]
    published = rec["measured"]["step"]
    assert _ratio(s, published) == pytest.approx(after, rel=0.01)
    off = copy.deepcopy(s)
    off["rl"]["rollout"]["returns_logprobs"] = False
    assert _ratio(off, published) == pytest.approx(before, rel=0.01)


def test_the_v0_play_verl_logs_do_not_move() -> None:
    # play-verl's 0.5B GRPO and PPO logs ran vLLM 0.8.3's V0 fallback (engine_version 0.7.0); the
    # PPO 0.736 before its critic's one-output value head (core/pipeline/rl_critic_head.py); 0.626
    # and 0.712 before both records moved to the H100 their MFU counters read; the GRPO 0.582
    # before its training micro-batch held at most the rank's share of the mini-batch
    # (core/pipeline/rl_logprob_batch.py training_micro); the PPO 0.700 before its rows ran the
    # prompt cap they are padded to (rl.prompt_cap, core/pipeline/rl_tokens.py row_prompt)
    for rid, ratio in (("verl-grpo-qwen2.5-0.5b-8xa100", 0.618), ("verl-ppo-qwen2.5-0.5b-8xa100", 0.708)):
        rec = BLIND3[rid]
        assert rec["scenario"]["rl"]["rollout"]["engine_version"] == "0.7.0"
        assert _ratio(rec["scenario"], rec["measured"]["step"]) == pytest.approx(ratio, abs=0.002)


def test_the_report_names_the_default_only_where_it_holds() -> None:
    v1 = copy.deepcopy(BLIND3["verl-grpo-llama3.2-1b-8xh100"]["scenario"])
    block = estimate_report(v1)["rl"]["framework"]
    assert block["defaults"]["rl.rollout.returns_logprobs"] is True
    v0 = BLIND3["verl-grpo-qwen2.5-0.5b-8xa100"]["scenario"]
    block = estimate_report(v0)["rl"]["framework"]
    assert "rl.rollout.returns_logprobs" not in block["defaults"]
    assert "rl.rollout.returns_logprobs" not in block["as_set"] + block["others_set"]
