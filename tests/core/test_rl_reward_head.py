"""The reward model's one-output head (core/pipeline/rl_critic_head.py, ``rl.reward.kind:
"model"``).

Sources, each read at its release: verl's ``RewardModelWorker`` sets ``num_labels = 1`` and builds
``AutoModelForTokenClassification`` (``verl/workers/fsdp_workers.py`` v0.3.0.post1 lines 898-962,
v0.7.0 lines 1629-1730; Megatron: ``is_value_model=True``, ``output_layer`` swapped for
``LinearForLastLayer(hidden_size, 1)``, ``verl/models/mcore/bridge.py`` v0.7.0 lines 97-133);
OpenRLHF's ``RewardModelActor`` runs the base model under ``nn.Linear(config.hidden_size, 1,
bias=False)`` (``openrlhf/models/model.py`` v0.11.0 lines 177-186,
``openrlhf/trainer/ray/launcher.py`` line 161); TRL's GRPO and RLOO load a named reward as
``AutoModelForSequenceClassification(num_labels=1)`` (``trl/trainer/grpo_trainer.py`` v1.9.0 lines
518-520); NeMo RL's Bradley-Terry ``RewardModelEnvironment`` as
``NeMoAutoModelForSequenceClassification`` with ``num_labels = 1``
(``nemo_rl/models/automodel/setup.py`` v0.7.0 lines 345-372). No published RL step with a reward
model is counted (the one record with one, OpenRLHF's 70B PPO bracket in
``rl-time-papers.json``, is a bracket); the checks are the rule's arithmetic on the estimate.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpusizer import estimate_report
from gpusizer.core.model.params import count_parameters
from gpusizer.core.pipeline.rl_critic_head import critic_cost_share, kept_share, scorer_bytes
from gpusizer.core.pipeline.scenario import parse_scenario

GiB = 2**30
BASE: dict[str, Any] = {
    "model": {"preset": "qwen2.5-7b"},
    "workload": {"kind": "rl", "micro_batch_size": 4},
    "framework": "fsdp",
    "hardware": {"gpu": "h100-sxm-80gb"},
    "parallelism": {"data": 8, "zero_stage": 3, "recompute": "full"},
}


def _rl(**rl: Any) -> dict[str, Any]:
    s = copy.deepcopy(BASE)
    # the scoring passes at one micro-batch, so the reference's rate is the reward model's
    s["rl"] = {"policy": {"log_prob_micro_batch_size": 4}, **rl}
    return s


def _phase(s: dict[str, Any], name: str) -> dict[str, Any]:
    return next(p for p in estimate_report(s)["rl"]["phases"] if p["name"] == name)


def test_the_reward_models_weights_leave_out_the_untied_head() -> None:
    # Qwen2.5-7B's untied lm_head is 152,064 x 3,584 = 545 M of its 7.6 G parameters: the reward
    # model's 16-bit weights are 0.929 of the LM-headed model's (plus the score's hidden + 1)
    qwen = parse_scenario(BASE).model
    counts = count_parameters(qwen)
    assert counts.lm_head == 152064 * 3584
    kept = (counts.total - counts.lm_head + 3584 + 1) / counts.total
    assert kept_share(qwen) == pytest.approx(kept) and kept == pytest.approx(0.9285, abs=0.001)
    assert scorer_bytes(10**9, qwen) == int(10**9 * kept)
    # a tied model (Qwen2.5-0.5B) keeps its embedding: unchanged
    tied = parse_scenario({**BASE, "model": {"preset": "qwen2.5-0.5b"}}).model
    assert scorer_bytes(10**9, tied) == 10**9


def test_the_log_prob_phase_holds_the_headless_reward_model() -> None:
    # with the reward model's forward the log-prob phase holds its 16-bit weights, ZeRO-3 over 8
    # GPUs: 7.62 G x 0.9285 x 2 B / 8 = 1.65 GiB (1.78 with the LM head); tolerance 0.01 GiB
    rule, model = _rl(), _rl(reward={"kind": "model"})
    counts = count_parameters(parse_scenario(BASE).model)
    added = _phase(model, "log_probs")["memory"]["total"] - _phase(rule, "log_probs")["memory"]["total"]
    expected = int(counts.total * 2 / 8) * kept_share(parse_scenario(BASE).model)
    assert added == pytest.approx(expected, abs=0.01 * GiB)
    assert added / GiB == pytest.approx(1.65, abs=0.02)


def test_the_reward_forward_costs_the_reference_forward_less_the_head() -> None:
    # the reference (an LM head) and the reward model (a one-output head) are the same Qwen2.5-7B
    # at the same rate and tokens: the reward's forward costs the reference's x the scorer's FLOPs
    # a token over the LM-headed model's (0.930 for Qwen2.5-7B; critic_cost_share); tolerance
    # 0.005 of the ratio
    none, ref = _rl(reference={"enabled": False}), _rl()
    rm = _rl(reference={"enabled": False}, reward={"kind": "model"})
    base = _phase(none, "log_probs")["seconds"]
    reference = _phase(ref, "log_probs")["seconds"] - base
    reward = _phase(rm, "log_probs")["seconds"] - base
    s = parse_scenario(rm)
    share = critic_cost_share(s.model, s.workload.sequence_length, True)
    assert reward / reference == pytest.approx(share, abs=0.005)
    assert share == pytest.approx(0.930, abs=0.005)


def test_a_tied_reward_model_keeps_its_embedding() -> None:
    # Qwen2.5-0.5B ties its head to the input embedding, which the scorer still reads: the
    # log-prob phase adds its whole 16-bit weights, ZeRO-3 over 8 GPUs; tolerance 1 kB
    small = {"preset": "qwen2.5-0.5b"}
    rule, model = _rl(), _rl(reward={"kind": "model"})
    rule["model"] = model["model"] = small
    counts = count_parameters(parse_scenario(rule).model)
    added = _phase(model, "log_probs")["memory"]["total"] - _phase(rule, "log_probs")["memory"]["total"]
    assert counts.lm_head == 0
    assert added == pytest.approx(int(counts.total * 2 / 8), abs=1024)
