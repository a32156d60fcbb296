"""The periodic evaluation inside a framework's step timer (``rl.eval``,
core/model/rl_eval_spec.py), seconds a step.

Miles / slime and NeMo RL run the evaluation on the rollout engine between two training calls,
inside the published step (radixark/miles@90b66b5 ``train.py:66-95``: ``eval(rollout_id)`` when
``rollout_id`` hits ``--eval-interval``; NVIDIA-NeMo/RL v0.7.0 ``grpo.py:2758``: ``validate``
inside ``total_step_time``). It is one synchronous generation of the eval set (prompts x
samples) spread over the engine's replicas, priced as the rollout's own decode
(core/pipeline/rl_time.py ``rollout_seconds``: prefill, full batches, the drain to the cap) at
the eval's mean response and cap, its batch the engine's KV pool at the eval's context. A step
carries 1 / ``every_steps`` of it, as a mean over many steps does. The rollout's per-token host
work and speeds carry over: the same engine and step model."""

from __future__ import annotations

import math
from dataclasses import replace

from ..model.result import EngineMemory
from ..model.specs import Scenario
from ..speed.step import StepModel
from .rl_check import rl_of
from .rl_roles import rollout_gpus
from .rl_time import Decode, prefill_seconds, rollout_seconds


def eval_seconds(s: Scenario, d: Decode, em: EngineMemory, step: StepModel) -> float:
    """One step's share of the evaluation, seconds (0 without ``rl.eval.every_steps``): ``d`` the
    step's rollout decode on one replica (its longest response the eval's where the cap is
    null), ``em`` the engine's memory, ``step`` its step model."""
    rl = rl_of(s)
    ev = rl.eval
    if ev is None or ev.every_steps is None:
        return 0.0
    replicas = max(1, rollout_gpus(s) // rl.rollout.tensor)
    prompts = ev.prompts or rl.rollout.prompts_per_step
    n = math.ceil(prompts * ev.samples_per_prompt / replicas)  # one replica's eval responses
    mean = float(ev.response_tokens or rl.rollout.response_tokens)
    live = rl.prompt_tokens + mean  # the half-grown mean, as the rollout's batch
    fit = int(em.kv_capacity_tokens // live)
    batch = max(1, min(n, em.max_sequences or n, fit))
    prefill = prefill_seconds(step, batch, rl.prompt_tokens, rl.rollout.max_batched_tokens)
    once = replace(
        d,
        responses=n,
        batch=batch,
        mean=mean,
        longest=ev.max_response_tokens or d.longest,
        prefill=prefill,
        steady=False,  # the evaluation waits for its last response
    )
    return rollout_seconds(once) / ev.every_steps
