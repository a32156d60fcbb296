"""The rule reward's verification of a step's responses (``rl.reward.verify_workers``): CPU
workers running Math-Verify one response after another, serial with the rollout.

NeMo RL's math environment (``nemo_rl/environments/math_environment.py``, tags v0.3.0-v0.7.0):
``MathEnvironment.step`` splits the responses in order over ``env.math.num_workers`` Ray actors
(``chunk_list_to_workers``, ``nemo_rl/environments/utils.py``: ceil(N / workers) each) and each
``HFVerifyWorker.verify`` calls Math-Verify's ``math_metric`` (gold ``LatexExtractionConfig``,
prediction ``ExprExtractionConfig`` then ``LatexExtractionConfig``, gold wrapped in
``\\boxed{}``) response after response; the driver waits on ``ray.get``. The synchronous rollout
(``nemo_rl/experience/rollouts.py`` ``run_multi_turn_rollout``: ``calculate_rewards`` after the
whole batch is generated) runs this inside ``grpo.py``'s ``generation`` timer, before
``finish_generation``. ``examples/configs/grpo_math_1B.yaml`` sets ``num_workers: 8`` at every
tag; no performance recipe of the Llama or Qwen3 rows overrides it.

The asynchronous engine (``run_async_multi_turn_rollout``) verifies each response in its own
coroutine as it ends, beside the engine's decoding of the rest: only the last response's
verification follows the last token (one call).

One call: :data:`VERIFY_SECONDS`, the one published serial rate of this call: verl PR #1206
("Add ray-based distributed reward manager", 2025-04-22): verl's naive reward manager, one
process, ``verl/utils/reward_score/math_verify.py`` ``compute_score`` (the same ``math_metric``
configuration and boxed gold as NeMo RL's; ``verl/workers/reward_manager/naive.py`` decodes
each prompt and response before it, a fraction of a millisecond), "200+ seconds" for "256 x 64 =
16384 generations": 200 / 16,384 = 12.2 ms a response. The other reading of that sentence (200 s
for 2,048, 98 ms) is ruled out by this project's timing of NeMo RL's call (``scripts/measure_math_verify.py``,
docs/evidence/rl.md section 29: medians 7.2-23.2 ms at 12,800 characters, 35.6 ms at most at
22,800). The PR states no response length, so the rate is one figure for any length."""

from __future__ import annotations

from math import ceil

from ..model.specs import Scenario
from .rl_check import rl_of

VERIFY_SECONDS = 200.0 / 16384  # one Math-Verify call, verl PR #1206 (module docstring)


def verify_seconds(s: Scenario) -> float:
    """Seconds the step's rollout waits on the rule verifier: ceil(responses / workers) calls in
    series on the synchronous engine, one call after the last token on the asynchronous one; 0
    for a reward model or with ``rl.reward.verify_workers`` null."""
    rl = rl_of(s)
    workers = rl.reward.verify_workers
    if rl.reward.kind != "rule" or workers is None:
        return 0.0
    if rl.rollout.async_engine:
        return VERIFY_SECONDS
    responses = rl.rollout.prompts_per_step * rl.rollout.samples_per_prompt
    return ceil(responses / workers) * VERIFY_SECONDS
