"""``rl.eval``: the periodic evaluation a framework's published step timer holds (RLSpec.eval).

Miles / slime's ``perf/step_time`` runs from one ``train()`` call to the next, and the launcher's
evaluation (``--eval-interval``, ``--n-samples-per-eval-prompt``, ``--eval-max-response-len``)
runs inside it (radixark/miles@90b66b5 ``train.py:66-95``, ``miles/utils/train_metric_utils.py:
38-41``); NeMo RL's ``total_step_time`` holds its ``validate`` call every ``grpo.val_period``
steps (NVIDIA-NeMo/RL v0.7.0 ``nemo_rl/algorithms/grpo.py:2258,2758``). Priced by
core/pipeline/rl_eval.py; null (or ``every_steps`` null): no evaluation inside the step, every
answer as before."""

from __future__ import annotations

from ..limits import PosInt, Strict, Tokens


class EvalSpec(Strict):
    """One evaluation of the eval set every ``every_steps`` training steps, on the rollout engine.
    The nulls take the step's rollout: its prompts, its mean response, its longest."""

    # steps between evaluations (Miles --eval-interval, NeMo RL val_period); null: none
    every_steps: PosInt | None = None
    prompts: PosInt | None = None  # the eval set's prompts (aime-2024: 30)
    samples_per_prompt: PosInt = 1  # responses a prompt (Miles --n-samples-per-eval-prompt)
    response_tokens: Tokens | None = None  # mean eval response, tokens
    max_response_tokens: Tokens | None = None  # the eval's cap (Miles --eval-max-response-len)

    @property
    def on(self) -> bool:
        """An evaluation runs inside the step."""
        return self.every_steps is not None
