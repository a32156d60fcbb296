"""The log-prob passes' own micro-batch (``rl.policy.log_prob_micro_batch_size``): the policy's
old log-prob forward and the reference's run at a micro-batch of their own, not the training's.

Read at the sources:

- verl (tags v0.3.0.post1 and v0.5.0): ``verl/workers/fsdp_workers.py`` ``compute_log_prob`` hands
  ``rollout.log_prob_micro_batch_size_per_gpu`` to the actor as ``meta_info["micro_batch_size"]``,
  ``compute_ref_log_prob`` hands ``ref.log_prob_micro_batch_size_per_gpu``, and
  ``verl/workers/actor/dp_actor.py`` ``compute_log_prob`` splits the GPU's batch by it
  (``batch.split(micro_batch_size)``) when ``use_dynamic_bsz`` is off. Both knobs are null in
  ``verl/trainer/config/ppo_trainer.yaml`` (a run script sets them); the critic's values forward
  runs at ``critic.forward_micro_batch_size_per_gpu``, whose default there is the critic's
  ``ppo_micro_batch_size_per_gpu``: the training micro-batch, as priced here.
- NeMo RL (in ``examples/configs/grpo_math_1B.yaml`` at tags v0.3.0-v0.7.0):
  ``policy.logprob_batch_size`` (4 beside ``train_micro_batch_size`` 4), read at v0.4.0 by
  ``get_logprobs`` and ``get_reference_policy_logprobs`` of
  ``nemo_rl/models/policy/dtensor_policy_worker.py`` and ``megatron_policy_worker.py``
  (``make_microbatch_iterator(logprob_batch_size)``; ``policy/workers/`` from v0.5.0); packed, the
  bins hold ``logprob_mb_tokens`` = ``max_total_sequence_length x logprob_batch_size``.
- OpenRLHF (tag v0.5.7): ``--micro_rollout_batch_size`` (default 8), the chunk
  ``openrlhf/trainer/ppo_utils/experience_maker.py`` ``make_experience_list`` scores at a time
  (``generate_samples`` splits the prompts by it, ``make_experience`` scores each chunk). It
  chunks the critic's and a reward model's forwards too, which stay at the training micro-batch
  here.

What it moves: the scoring forwards' micro-batches a step (so the exposed gathers,
core/pipeline/rl_gathers.py, and the reference's per-forward copies,
core/pipeline/rl_reference_copy.py), each forward's achieved rate and host pace (the fine-tuning
estimate of the policy at this micro-batch), the packed rows' capacity of the log-prob passes
(core/pipeline/rl_tokens.py) and the fp32 logits of one micro-batch, the log-prob phase's peak
temporary (core/pipeline/rl_plan.py). Null: the training micro-batch, as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from ..model.specs import Scenario
from .rl_check import rl_of

# (scenario, its training seconds, scoring passes) -> (log-prob, training) seconds of a pace
Pacer = Callable[[Scenario, float, int], tuple[float, float]]


def stated_micro(s: Scenario) -> int:
    """The training micro-batch as stated (``rl.policy.micro_batch_size``, else the workload's)."""
    return rl_of(s).policy.micro_batch_size or s.workload.micro_batch_size


def training_micro(s: Scenario) -> int:
    """Sequences per training micro-batch: the stated one, at most a data-parallel rank's share of
    an optimizer step where both count responses (``micro_batch_unit`` "response", or unpacked).

    verl splits each rank's share of the batch into mini-batches first and each mini-batch into
    micro-batches (tags v0.3.0.post1 and v0.5.0: ``verl/workers/fsdp_workers.py`` normalises
    ``ppo_mini_batch_size`` to ``x rollout.n // (world size // ulysses size)`` a rank, the critic's
    likewise; ``verl/workers/actor/dp_actor.py`` and ``critic/dp_critic.py`` ``update_policy`` /
    ``update_critic``: ``batch.split(ppo_mini_batch_size)``, then ``mini_batch.split(
    ppo_micro_batch_size_per_gpu)`` or, under ``use_dynamic_bsz``, ``rearrange_micro_batches(
    batch=mini_batch, max_token_len=...)``), so no micro-batch spans two optimizer steps: a
    token budget larger than the rank's mini-batch packs that mini-batch alone (without
    ``use_dynamic_bsz`` verl asserts the divisibility that keeps the stated micro-batch within
    it). A "row" micro-batch (packed rows of prompt + longest tokens) is not a count of
    responses: kept as stated."""
    rl = rl_of(s)
    micro = stated_micro(s)
    mini = rl.policy.mini_batch_size
    if not mini or (rl.policy.sequence_packing and rl.policy.micro_batch_unit != "response"):
        return micro
    return max(1, min(micro, mini // max(1, s.parallelism.data)))


def log_prob_micro(s: Scenario) -> int:
    """Sequences per log-prob forward of the policy and the reference: the stated one, else the
    training micro-batch as stated (the scoring passes split the whole batch, not a mini-batch:
    ``dp_actor.py`` ``compute_log_prob``)."""
    return rl_of(s).policy.log_prob_micro_batch_size or stated_micro(s)


def scoring_policy(s: Scenario, policy: Scenario) -> Scenario:
    """The policy's fine-tuning scenario (core/pipeline/rl_roles.py ``trainer_scenario``) at the
    log-prob micro-batch, its optimizer step whole micro-batches on every rank; ``policy`` itself
    where the two micro-batches are one."""
    return _at_micro(policy, log_prob_micro(s))


def values_policy(s: Scenario, policy: Scenario) -> Scenario:
    """The same at the stated training micro-batch: the critic's values forward (verl
    ``critic.forward_micro_batch_size_per_gpu``, whose default is the critic's
    ``ppo_micro_batch_size_per_gpu``) splits the whole batch, so the rank's mini-batch share that
    bounds a training micro-batch (:func:`training_micro`) does not bound it."""
    return _at_micro(policy, stated_micro(s))


def _at_micro(policy: Scenario, micro: int) -> Scenario:
    """``policy`` at ``micro`` sequences a micro-batch, its optimizer step whole micro-batches on
    every rank; ``policy`` itself where it already runs that micro-batch."""
    if micro == policy.workload.micro_batch_size:
        return policy
    unit = micro * policy.parallelism.data
    batch = max(unit, math.ceil((policy.workload.global_batch_size or unit) / unit) * unit)
    w = policy.workload.model_copy(update={"micro_batch_size": micro, "global_batch_size": batch})
    return policy.model_copy(update={"workload": w})


def split_paced(
    pace: Pacer,
    policy: Scenario,
    scoring: Scenario,
    times: tuple[float, ...],
    passes: tuple[int, int],
    valued: Scenario | None = None,
) -> tuple[float, float]:
    """(log-prob, training) seconds of ``pace``: ``passes`` (log-prob, other) scoring passes of the
    policy's model, the log-prob ones on ``scoring``, the others on ``valued`` where given
    (:func:`values_policy`; ``times``: the training seconds of ``policy``, ``scoring`` and
    ``valued``). One call where ``scoring`` is ``policy`` and ``valued`` is too."""
    if valued is not None and valued is not policy:
        train = pace(policy, times[0], 0)[1]
        return pace(scoring, times[1], passes[0])[0] + pace(valued, times[2], passes[1])[0], train
    if scoring is policy:
        return pace(policy, times[0], passes[0] + passes[1])
    fwd, train = pace(policy, times[0], passes[1])
    return fwd + pace(scoring, times[1], passes[0])[0], train
