"""A critic that does not remove its rows' padding (``rl.critic.remove_padding``,
core/pipeline/rl_critic_padding.py).

Source: verl's FSDP critic, ``critic.model.use_remove_padding`` default False
(``verl/trainer/config/ppo_trainer.yaml`` line 120 at v0.3.0.post1, line 617 at v0.4.1;
``verl/trainer/config/critic/dp_critic.yaml`` line 43 at v0.5.0, line 44 at v0.7.0), and
``verl/workers/critic/dp_critic.py`` ``_forward_micro_batch`` running the padded
(batch, prompt + response) tensor without it. The record is the ninth blind round's
recommended run (dingxianzhong/play-verl ``logs/verl_qwen2_7b_recommended.log`` at 7716a615,
``tests/core/data/rl-time-blind9.json``): PPO, Qwen2-7B-Instruct, 5,120 responses of 94 + 200
tokens, the longest at the 1,024 cap, on 8 H100 (the GPU its log's MFU counters name,
docs/evidence/rl.md, the section on that run's actor; 8 A100 as first replayed).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.errors import ScenarioError
from gpusizer.core.pipeline.rl_critic_padding import critic_pads, critic_scenario, padded_span
from gpusizer.core.pipeline.rl_tokens import trained_tokens
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.blind_replay import by_id, load

REC = "verl-ppo-qwen2-7b-8xa100-recommended"
RECORD: dict[str, Any] = by_id(load("rl-time-blind9.json"), REC)


def _with(remove_padding: object, **rl: Any) -> dict[str, Any]:
    sc = copy.deepcopy(RECORD["scenario"])
    sc["rl"].update(rl)
    sc["rl"]["critic"] = {"remove_padding": remove_padding}
    return sc


def _phases(sc: dict[str, Any]) -> dict[str, float]:
    return {p["name"]: p["seconds"] for p in estimate_report(sc)["rl"]["phases"]}


def test_verl_release_default_pads_the_critic() -> None:
    # verl's yaml: critic.model.use_remove_padding False at every modelled release, while the
    # actor packs (the record states sequence_packing true); null reads verl's default
    s = parse_scenario(RECORD["scenario"])
    assert s.rl is not None and s.rl.critic.remove_padding is None
    assert critic_pads(s)
    assert not critic_pads(parse_scenario(_with(True)))
    # no framework: null is the policy's packing (every answer before the field, unchanged)
    assert not critic_pads(parse_scenario(_with(None, framework=None, framework_version=None)))
    # stated false without a framework pads too
    assert critic_pads(parse_scenario(_with(False, framework=None, framework_version=None)))


def test_the_padded_critic_runs_prompt_plus_longest_tokens() -> None:
    # 5,120 responses: packed 94 + 200 = 294 tokens each, padded to the 512 + 1,024 caps, 1,536
    # (the record's rl.prompt_cap 512: verl's dataset pads each prompt to data.max_prompt_length,
    # core/pipeline/rl_tokens.py row_prompt); without the cap stated, 94 + 1,024 = 1,118
    s = parse_scenario(RECORD["scenario"])
    rl, critic_rl = s.rl, critic_scenario(s).rl
    assert rl is not None and critic_rl is not None  # an RL record
    assert trained_tokens(rl) == pytest.approx(5120 * 294)
    assert trained_tokens(critic_rl) == pytest.approx(5120 * 1536)
    uncapped = critic_scenario(parse_scenario(_with(None, prompt_cap=None))).rl
    assert uncapped is not None and trained_tokens(uncapped) == pytest.approx(5120 * 1118)
    # flash attention unpads the attention: its span shrinks by real over padded tokens
    span = padded_span(s)
    assert span is not None and span < 294


def test_the_padded_critic_costs_time_and_bytes_on_the_record() -> None:
    # the published timers: values 27.412 s (4.1x old_log_prob's 6.683), update_critic 99.200 s
    # (2.9x update_actor's 34.411). Estimated on the H100 with the critic's one-output value head
    # (core/pipeline/rl_critic_head.py), rows padded to the 512 + 1,024 caps (rl.prompt_cap): the
    # critic's padded passes add 26.7 s to the scoring forwards (21.7 -> 48.4 s; published
    # old_log_prob + ref + values 40.6 s) and 99.0 s to the training (51.5 -> 150.5 s; published
    # 133.6 s) (to prompt + longest, 94 + 1,024: 17.7 s and 65.7 s; on the H100 with the
    # vocabulary head: 19.1 s and 70.8 s; on the A100 as first replayed: 41.2 s and 153 s);
    # tolerance 1 s (drift of the model)
    packed, padded = _phases(_with(True)), _phases(RECORD["scenario"])
    assert padded["log_probs"] - packed["log_probs"] == pytest.approx(26.7, abs=1.0)
    assert padded["training"] - packed["training"] == pytest.approx(99.0, abs=1.0)
    assert padded["rollout"] == packed["rollout"]
    # bytes: over the 1,536-token rows the critic's update (38.4 GiB,
    # core/pipeline/rl_critic_padding_memory.py) outweighs the actor's training phase, so the
    # counter reads 84.75 GiB against 82.74 packed (published 83.563; 1.014 of it, within 15 %);
    # tolerance 0.02 GiB
    rep_packed, rep_padded = estimate_report(_with(True))["rl"], estimate_report(RECORD["scenario"])["rl"]
    assert rep_padded["max_memory_allocated_bytes"] / 2**30 == pytest.approx(84.75, abs=0.02)
    assert rep_packed["max_memory_allocated_bytes"] / 2**30 == pytest.approx(82.74, abs=0.02)


def test_an_unpacked_policy_is_unchanged() -> None:
    # an unpacked policy already pads every role's rows: the flag is not read
    off = _with(False)
    off["rl"]["policy"]["sequence_packing"] = False
    on = copy.deepcopy(off)
    on["rl"]["critic"]["remove_padding"] = True
    assert _phases(off) == _phases(on)


def test_a_non_bool_is_refused() -> None:
    with pytest.raises(ScenarioError) as err:
        estimate_report(_with("yes"))
    assert err.value.field == "rl.critic.remove_padding"


def test_a_prompt_cap_under_the_mean_prompt_is_refused() -> None:
    # verl's dataset truncates or refuses a prompt over data.max_prompt_length, so a mean prompt
    # above the cap is no run's (core/pipeline/rl_check.py check_prompt_cap)
    with pytest.raises(ScenarioError) as err:
        estimate_report(_with(None, prompt_cap=50))
    assert err.value.field == "rl.prompt_cap" and "at least rl.prompt_tokens (94" in err.value.message


def test_a_packed_policy_does_not_read_the_prompt_cap() -> None:
    # packed rows run each response's own tokens: the cap moves a packed critic's record nothing
    assert _phases(_with(True)) == _phases(_with(True, prompt_cap=None))
