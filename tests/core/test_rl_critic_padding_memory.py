"""The memory of a critic that keeps its rows padded (core/pipeline/rl_critic_padding_memory.py).

Source: verl's FSDP critic without ``use_remove_padding`` runs its model on the whole (batch,
prompt + response) tensors (``verl/workers/critic/dp_critic.py`` ``_forward_micro_batch``,
v0.3.0.post1 lines 50-113) and ``update_critic`` runs that forward and its backward per
micro-batch (lines 166-231), before ``update_actor`` (``verl/trainer/ppo/ray_trainer.py``
v0.3.0.post1 lines 899-908). Its value head is one output (``values = output.logits``, line 111;
core/pipeline/rl_critic_head.py). The record: the ninth blind round
(``tests/core/data/rl-time-blind9.json``, dingxianzhong/play-verl's Qwen2-7B PPO on 8 A100, the
critic ``use_remove_padding False``, published ``perf/max_memory_allocated_gb`` 83.563 and 54.493
GiB): the min run's counter is unchanged, as its padded critic's update stays under the actor's;
the recommended run's rises 2 GiB since its rows are padded to the 512 + 1,024 caps
(``rl.prompt_cap``, core/pipeline/rl_tokens.py ``row_prompt``).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.presets import scenario_gpu
from gpusizer.core.pipeline.rl_check import rl_of, role_model
from gpusizer.core.pipeline.rl_critic_padding_memory import one_output
from gpusizer.core.pipeline.rl_plan import rl_memory
from gpusizer.core.pipeline.rl_shared import shared_trainer
from gpusizer.core.pipeline.scenario import parse_scenario
from tests.core.blind_replay import by_id, load

GiB = 2**30
RECORDS = load("rl-time-blind9.json")
REC = "verl-ppo-qwen2-7b-8xa100-recommended"
MIN = "verl-ppo-qwen2-7b-8xa100-min"


def _scenario(rid: str, recompute: str | None = None, remove_padding: bool | None = None) -> dict[str, Any]:
    s = copy.deepcopy(by_id(RECORDS, rid)["scenario"])
    if recompute:
        s["parallelism"]["recompute"] = recompute
    if remove_padding is not None:
        s["rl"].setdefault("critic", {})["remove_padding"] = remove_padding
    return s


def _memory(data: dict[str, Any]) -> Any:
    s = parse_scenario(data)
    return rl_memory(s, scenario_gpu(s))


def test_the_padded_rows_save_their_activations() -> None:
    # the recommended run: responses packed at prompt + mean (94 + 200 = 294 tokens a row, 40 a
    # micro-batch), the critic's padded to the prompt cap + longest (512 + 1,024 = 1,536; 1,118
    # before rl.prompt_cap was stated): its layers' saved activations (a one-output head: no
    # vocabulary logits) grow 1,536 / 294 = 5.22x; tolerance 0.02 of the ratio
    s = parse_scenario(_scenario(REC))
    model = one_output(role_model(s, "", rl_of(s).critic.model))
    packed = shared_trainer(s, model, "full_finetune")[1]
    padded = _memory(_scenario(REC)).parts.critic_update
    assert padded is not None and padded.peak_phase == "training"
    assert padded.activations / packed.activations == pytest.approx(1536 / 294, abs=0.02)
    # the one-output head keeps no vocabulary logits: the critic's own peak is 38.4 GiB (13.1 of
    # them saved activations; 31.4 and 9.55 over 1,118-token rows) (tolerance 0.3 GiB, model drift)
    assert padded.total / GiB == pytest.approx(38.4, abs=0.3)
    assert padded.activations / GiB == pytest.approx(13.13, abs=0.1)


# the min run 60.74 GiB before a training micro-batch held at most its rank's share of the
# mini-batch (4 responses of its 32, not 29: core/pipeline/rl_logprob_batch.py training_micro)
@pytest.mark.parametrize(("rid", "counted"), [(MIN, 60.20)])
def test_the_records_counters_are_unchanged(rid: str, counted: float) -> None:
    # the padded critic's update (its 31.4 / 26.3 GiB peak, beside the actor's 10.6 GiB of
    # weights and optimizer in the recommended run, without them in the min run where both
    # offload around each call) stays under the actor's training phase (42.1 < 47.0, 26.3 <
    # 29.8 GiB): the phases and the counters are those with the padding removed (82.74 and
    # 60.74 GiB against the published 83.563 and 54.493: 0.990 and 1.115, within 15 %; the min
    # run's GiB as they read before its micro-batch was bounded by the mini-batch, 60.20 and
    # 1.105 since, both its updates lighter still); tolerance 0.02 GiB
    padded, packed = _memory(_scenario(rid)), _memory(_scenario(rid, remove_padding=True))
    assert packed.parts.critic_update is None
    assert {k: v.total for k, v in padded.phases.items()} == {k: v.total for k, v in packed.phases.items()}
    assert estimate_report(_scenario(rid))["rl"]["max_memory_allocated_bytes"] / GiB == pytest.approx(
        counted, abs=0.02
    )


def test_the_recommended_runs_critic_sets_its_training_phase_over_the_caps() -> None:
    # over rows padded to the 512 + 1,024 caps (rl.prompt_cap) the recommended run's critic
    # update (38.4 GiB) beside the actor's weights and optimizer outweighs the actor's own peak:
    # the training phase 47.01 -> 49.04 GiB, the counter 82.74 -> 84.75 GiB (published 83.563:
    # 0.990 -> 1.014, within 15 % both; before the cap, 82.74 with the phases the packed
    # critic's); tolerance 0.02 GiB
    padded, packed = _memory(_scenario(REC)), _memory(_scenario(REC, remove_padding=True))
    assert padded.phases["training"].total / GiB == pytest.approx(49.04, abs=0.02)
    assert packed.phases["training"].total / GiB == pytest.approx(47.01, abs=0.02)
    assert {k: v.total for k, v in padded.phases.items() if k != "training"} == {
        k: v.total for k, v in packed.phases.items() if k != "training"
    }
    assert estimate_report(_scenario(REC))["rl"]["max_memory_allocated_bytes"] / GiB == pytest.approx(
        84.75, abs=0.02
    )


def test_without_recompute_the_critics_update_is_the_heaviest() -> None:
    # without gradient checkpointing every layer's activations are saved: over the padded rows
    # the critic's update outweighs the actor's (packed rows, vocabulary logits and all); the
    # training phase is then the critic's peak beside the actor's weights and optimizer and the
    # resident frozen roles (the reference is offloaded: none). With the padding removed the
    # phase is the actor's, as before
    padded = _memory(_scenario(REC, recompute="none"))
    packed = _memory(_scenario(REC, recompute="none", remove_padding=True))
    critic, actor = padded.parts.critic_update, padded.parts.policy
    assert critic is not None
    train = padded.phases["training"]
    assert train.total == critic.total + actor.weights + actor.optimizer
    assert train.activations == critic.activations
    assert packed.phases["training"].total < train.total
    # 2.56 over 1,118-token rows, before the prompt cap was stated
    assert train.total / packed.phases["training"].total == pytest.approx(3.45, abs=0.05)
