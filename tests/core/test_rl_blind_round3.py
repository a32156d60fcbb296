"""Published verl step times replayed blind, round three (docs/evidence/rl.md, the section "verl
step times from public benchmark reports and run logs, replayed blind"; records in
tests/core/data/rl-time-blind3.json, each with its source link, the quoted log lines, the settings
read from the run's script and verl's example at the month it ran, and what had to be assumed).

Four steps, none tuned to: verl GRPO on Llama-3.2-1B and Qwen2.5-7B on 8 H100 (two public
benchmark reports of August 2025, the last step less its validation and checkpoint timers), and
GRPO and PPO on Qwen2.5-0.5B on 8 A100 (dingxianzhong/play-verl's logs, April 2025). Nothing in
the estimator was changed for them; the ratios below are what it gave on first replay."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from tests.core.blind_replay import by_id, load, step_ratio, within, within_inverted
from tests.core.blind_replay import rl_step as _step

RECORDS: list[dict[str, Any]] = load("rl-time-blind3.json")

# estimate / published step, as docs/evidence/rl.md records it (the first replay, blind: 0.301 and
# 0.775 for the two August runs and 0.624 for the GRPO 0.5B, moved since by verl's reference
# offloaded and copied in at every micro-batch, rl.reference.offload_per_forward: the section
# "verl's reference, offloaded by FSDP, copied in at every micro-batch"; 0.315 and 0.418 for the
# Llama and the PPO 0.5B before verl's Hugging Face layers were paced by the host,
# rl.policy.hf_layer_ops: the section "verl's small models: the host issues every layer"; the PPO
# 0.5B 0.769 before its old policy's forwards ran at the script's log-prob micro-batch 8, not the
# training's 4, rl.policy.log_prob_micro_batch_size)
# The Llama and the Qwen2.5-7B 0.497 and 0.782 before their ranks waited for the longest
# micro-batch (the script's fixed micro-batches, no use_dynamic_bsz:
# rl.policy.balanced_micro_batches false, core/pipeline/rl_stragglers.py); 0.548 and 0.861
# before verl's SPMD rollout asked V1 for each token's log-prob (rl.rollout.returns_logprobs,
# tests/core/test_rl_verl_v1_logprobs.py)
RECORDED = {
    "verl-grpo-llama3.2-1b-8xh100": 0.590,
    "verl-grpo-qwen2.5-7b-8xh100": 0.909,
    # the play-verl 0.5B runs on H100 since their logs' MFU counters read verl's H100 peak (rl.md,
    # the section on the 0.5B records' GPU): 0.626 and 0.712 on the A100 first recorded
    # 0.582 before a training micro-batch held at most its rank's share of the mini-batch (16 of
    # the 128-response mini-batch's responses, not the 32 its token budget holds:
    # core/pipeline/rl_logprob_batch.py training_micro); 0.624 with its reference resident
    "verl-grpo-qwen2.5-0.5b-8xa100": 0.618,
    # 0.736 before its critic's one-output value head (core/pipeline/rl_critic_head.py: Qwen2.5-0.5B's
    # 151,936 x 896 head is about a quarter of its matmul weights); 0.700 before its rows ran
    # the prompt cap they are padded to (rl.prompt_cap 512, core/pipeline/rl_tokens.py row_prompt)
    "verl-ppo-qwen2.5-0.5b-8xa100": 0.708,
}

LOG_PROB = "rl__policy__log_prob_"  # the log-prob passes' micro-batch, rl.policy.log_prob_micro_batch_size


def _with(record: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """The record's scenario with dotted paths (``rl.rollout.engine_version``) replaced."""
    scenario = copy.deepcopy(record["scenario"])
    for path, value in changes.items():
        node = scenario
        *parents, leaf = path.split("__")
        for key in parents:
            node = node[key]
        node[leaf] = value
    return scenario


def _record(record_id: str) -> dict[str, Any]:
    return by_id(RECORDS, record_id)


def test_every_record_names_its_source_settings_and_assumptions() -> None:
    for record in RECORDS:
        assert record["source"].startswith("https://"), record["id"]
        assert record["settings_source"].startswith("https://github.com/"), record["id"]
        assert record["quote"] and record["settings"] and record["assumptions"], record["id"]
        assert record["counted"] and set(record["measured"]) == {"step"}
        assert record["scenario"]["rl"]["framework"] == "verl", record["id"]
    assert len({r["id"] for r in RECORDS}) == len(RECORDS) == len(RECORDED)


def test_the_reports_steps_are_their_timers_less_validation_and_checkpoint() -> None:
    # the two reports print the last step (105), whose verl step timer holds a validation and a
    # checkpoint save; the replayed step is the difference (the records' assumptions), within the
    # timers' printed rounding
    for record_id in ("verl-grpo-llama3.2-1b-8xh100", "verl-grpo-qwen2.5-7b-8xh100"):
        t = _record(record_id)["measured_timers"]
        step = t["step_with_testing_and_checkpoint"] - t["testing"] - t["save_checkpoint"]
        assert _record(record_id)["measured"]["step"] == pytest.approx(step, abs=0.01), record_id


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_step_is_as_recorded(record: dict[str, Any]) -> None:
    # source: the record's link and quote; tolerance 3 % of the recorded ratio (drift of the model,
    # not accuracy: the count below says how many are within 25 %)
    ratio = step_ratio(record)
    assert ratio == pytest.approx(RECORDED[record["id"]], rel=0.03)


def test_the_count_within_25_percent_is_as_recorded() -> None:
    # docs/evidence/rl.md's convention (estimate / published within 0.75-1.25, as its 62 of 120):
    # 1 of 4, the Qwen2.5-7B step at 0.775 (0.782 since the reference's copies per micro-batch);
    # all RL step and phase figures 62 of 120 -> 63 of 124. 2 of 4 since the host paces verl's
    # Hugging Face layers (the PPO 0.5B 0.418 -> 0.769). 1 of 4 again since the PPO 0.5B's old
    # policy forwards run at the script's log-prob micro-batch 8 (0.769 -> 0.736); 0.712 with the
    # critic's one-output value head.
    # As published / estimate within 0.75-1.25 (the bands' ratio) none of the four held (1.29 the
    # nearest) until the 7B's ranks waited for the longest micro-batch (1.16)
    ratios = {r["id"]: step_ratio(r) for r in RECORDS}
    held = sorted(within(ratios))
    assert held == ["verl-grpo-qwen2.5-7b-8xh100"]
    assert within_inverted(ratios) == ["verl-grpo-qwen2.5-7b-8xh100"]


def test_the_unpublished_settings_move_the_ratios_as_recorded() -> None:
    # each record's assumptions: the alternative it names and the ratio it reads there (3 %)
    llama, qwen = _record("verl-grpo-llama3.2-1b-8xh100"), _record("verl-grpo-qwen2.5-7b-8xh100")
    grpo, ppo = _record("verl-grpo-qwen2.5-0.5b-8xa100"), _record("verl-ppo-qwen2.5-0.5b-8xa100")
    cases = (
        # Llama under vLLM V0's rules instead of 0.9.1's V1 (0.643 before the reference's copies
        # per micro-batch, 0.657 before the host's pace of its layers; 0.838 before the ranks
        # waited for the longest micro-batch)
        (llama, {"rl__rollout__engine_version": "0.7.0"}, 0.889),
        # Qwen2.5-7B at the author's micro-batch of the Llama run (4) instead of the script's 40
        # (1.076 before: 160 copies of the reference's shard instead of 16; 1.152 before the
        # host's pace of its layers; 1.175 before the ranks waited for the longest micro-batch,
        # which four responses spread more than forty; 1.443 before the rollout's log-prob output)
        # (the log-prob micro-batch with them, as that run edited all three)
        (qwen, {f"{k}micro_batch_size": 4 for k in ("workload__", "rl__policy__", LOG_PROB)}, 1.491),
        # the play-verl runs on A100, as first recorded (their experiment names), instead of the
        # H100 their MFU counters read (0.582 and 0.700 on the A100 were these cases' H100 reading
        # before the records moved; 0.564 and 0.333 before the host's pace of the layers)
        (grpo, {"hardware__gpu": "a100-sxm-80gb"}, 0.626),
        # (the PPO 0.745 and 0.827 below before its log-prob micro-batch 8 was stated)
        # (0.712 and 0.794 before the critic's one-output value head, core/pipeline/rl_critic_head.py;
        # 0.712 before the rows ran the prompt cap: the padding shows on the slower card)
        (ppo, {"hardware__gpu": "a100-sxm-80gb"}, 0.735),
        # PPO's rows padded to the prompt cap as the mean prompt instead, which also puts the
        # padding in the rollout's prefill (0.625 before; 0.745 on the A100; 0.712 before
        # rl.prompt_cap was stated)
        (ppo, {"rl__prompt_tokens": 512}, 0.712),
        # the prompt cap left out (null: the mean prompt, the record as first replayed)
        (ppo, {"rl__prompt_cap": None}, 0.700),
    )
    for record, changes, ratio in cases:
        estimate = _step(_with(record, **changes)) / record["measured"]["step"]
        assert estimate == pytest.approx(ratio, rel=0.03), (record["id"], changes)


# estimate / published timer by phase (rollout / gen; log-probs / old_log_prob + ref + values;
# training / update_actor + update_critic), as docs/evidence/rl.md's table of this section gives them
PHASES = {
    # log-probs 0.197 and 0.936 before the reference's copies per micro-batch; the Llama's passes
    # 0.245 and 0.301, the PPO 0.5B's 0.292 and 0.235, before the host paced their layers
    # the Llama's passes 0.518 and 0.564, the 7B's 0.970 and 1.017, before the ranks waited for
    # the longest micro-batch (rl.policy.balanced_micro_batches false); the rollouts 0.413 and
    # 0.491 before verl's SPMD rollout asked V1 for each token's log-prob (returns_logprobs)
    "verl-grpo-llama3.2-1b-8xh100": (0.552, 0.583, 0.647),
    "verl-grpo-qwen2.5-7b-8xh100": (0.607, 1.102, 1.159),
    # the GRPO 0.5B on H100 (0.662, 0.489, 0.452 on the A100; log-probs 0.486 before that); its
    # training 0.282 before its micro-batch was bounded by the rank's share of the mini-batch
    "verl-grpo-qwen2.5-0.5b-8xa100": (0.661, 0.383, 0.505),
    # the PPO 0.5B's log-probs 0.997 before its old policy's forwards ran at the log-prob micro-batch 8;
    # (0.754, 0.639) before its critic's one-output value head (core/pipeline/rl_critic_head.py)
    # (1.016, 0.720, 0.609) on the A100: its host-paced passes barely move on the H100;
    # (1.011, 0.701, 0.596) before its rows ran the prompt cap (rl.prompt_cap 512)
    "verl-ppo-qwen2.5-0.5b-8xa100": (1.011, 0.718, 0.606),
}


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: r["id"])
def test_each_phase_is_as_recorded(record: dict[str, Any]) -> None:
    # source: the record's quoted timers; tolerance 5 % of the recorded ratio. The 7B misses in its
    # rollout alone (its passes within 7 %); the 1B and the GRPO 0.5B in every phase; the PPO 0.5B
    # in its log-prob passes (0.720) and training (its V0 rollout within 2 %; its log-prob and
    # value passes read within 1 % while the old policy's forwards ran at the training micro-batch)
    t = record["measured_timers"]
    phases = {p["name"]: p["seconds"] for p in estimate_report(record["scenario"])["rl"]["phases"]}
    published = (
        t["gen"],
        t["old_log_prob"] + t.get("ref", 0) + t.get("values", 0),
        t["update_actor"] + t.get("update_critic", 0),
    )
    estimated = (phases["rollout"], phases["log_probs"], phases["training"])
    for est, pub, ratio in zip(estimated, published, PHASES[record["id"]], strict=True):
        assert est / pub == pytest.approx(ratio, rel=0.05), record["id"]
