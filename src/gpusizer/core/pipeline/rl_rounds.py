"""Generation in rounds (``rl.rollout.generation_rounds``): a step's responses split into that
many generate calls in series, each a barrier that returns only when its longest response ends.

TRL's ``GRPOTrainer`` from v0.14.0 (its first GRPO release) through v0.16.x generates in
``_prepare_inputs`` for every gradient-accumulation micro-step: the main process gathers the
micro-step's prompts (``gather_object``), generates them in one vLLM call (``self.llm.generate``
at v0.14.0 and v0.15.0, ``self.vllm_client.generate`` at v0.16.0), broadcasts the completions,
and every rank scores and trains on its share before the next micro-step's call
(``trl/trainer/grpo_trainer.py`` at tags v0.14.0-v0.16.0). An optimizer step is therefore
``gradient_accumulation_steps`` rounds. PR #3283 ("Generate once per effective batch", tag
v0.17.0) buffered one generation per ``gradient_accumulation_steps x num_iterations`` micro-steps:
one round. OpenRLHF 0.2.x generates one ``micro_rollout_batch_size`` at a time per actor rank
(``openrlhf/trainer/ppo_utils/experience_maker.py`` ``_generate_vllm`` at 391e1de4), the
same barrier (docs/evidence/rl.md section 25b).

Each round is priced as the rollout prices one synchronous generate call today
(core/pipeline/rl_preempt.py ``scheduled_rollout``: vLLM's scheduler run, else the drain of
core/pipeline/rl_time.py), with the round's responses on each replica: its prompts' prefill,
its responses' lengths under the maximum-entropy law of the mean and the cap, the longest at the
cap (``rl.rollout.response_spread``), the batch falling as they end. The rounds run in series.

The training between rounds: TRL runs each micro-step's reference forward and forward /
backward after its round, the optimizer step after the last; OpenRLHF 0.2.x scores each
micro-batch after its round and trains after the last. With the pools taking turns
(``rl.placement: "split"``, ``rl.overlap: false``) the phases add in either order, so the step
is the rounds' generation + the passes + the sync as before; rounds are refused colocated (each
round would move the engine's memory in and out: not modelled) and with overlapping pools (a
round's training waits for its generation, so nothing of the step overlaps:
core/pipeline/rl_check.py ``check_rounds``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import replace

from ..model.specs import Scenario
from ..speed.step import StepModel
from .rl_check import rl_of
from .rl_preempt import Pool, RunStats, scheduled_rollout
from .rl_roles import per_replica, responses, rollout_gpus
from .rl_time import Decode, prefill_seconds


def _sizes(s: Scenario) -> dict[int, int]:
    """Responses one replica generates in a round -> how many rounds of that size: the step's
    responses dealt evenly over the rounds, a round's over the replicas (the busiest's share)."""
    rl = rl_of(s)
    rounds = rl.rollout.generation_rounds
    replicas = max(1, rollout_gpus(s) // rl.rollout.tensor)
    q, rem = divmod(responses(rl), rounds)
    out: dict[int, int] = {}
    for size, count in ((q + 1, rem), (q, rounds - rem)):
        share = math.ceil(size / replicas)
        if count and share:
            out[share] = out.get(share, 0) + count
    return out


def round_share(s: Scenario) -> int:
    """Responses a replica generates in one call: its whole step's (``per_replica``) in one
    round, else the largest round's share."""
    if rl_of(s).rollout.generation_rounds == 1:
        return per_replica(s)
    return max(_sizes(s))


def rounds_rollout(
    s: Scenario, d: Decode, step: StepModel, pool: Pool | None, key: Hashable, owners: tuple[object, ...]
) -> tuple[float, RunStats | None]:
    """A replica's generation over the step: ``scheduled_rollout`` of ``d`` (the largest round)
    once per round, a smaller round at its own responses, batch and prefill; the run of the
    largest round."""
    if rl_of(s).rollout.generation_rounds == 1:
        return scheduled_rollout(d, step, pool, key, owners)
    budget = rl_of(s).rollout.max_batched_tokens
    total, run = 0.0, None
    for share, count in _sizes(s).items():
        batch = min(d.batch, share)
        r = (
            d
            if share == d.responses
            else replace(
                d, responses=share, batch=batch, prefill=prefill_seconds(step, batch, d.prompt, budget)
            )
        )
        seconds, stats = scheduled_rollout(r, step, pool, key, owners)
        total += count * seconds
        run = stats if share == d.responses else run
    return total, run


def rounds_note(s: Scenario) -> str | None:
    """The assumption line of a rollout in rounds (None: one call for the step)."""
    rounds = rl_of(s).rollout.generation_rounds
    if rounds == 1:
        return None
    return (
        f"rollout in {rounds:,} generate calls in series (rl.rollout.generation_rounds), up to "
        f"{round_share(s):,} responses a replica each, each waiting for its longest response"
    )
