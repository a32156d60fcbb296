"""Goodput: the share of a training run's wall-clock time spent on useful training steps
(the rest: restarts after failures and maintenance, and the work lost since the last
checkpoint). The step model gives the ideal time; the run takes ``ideal / share``.

Mechanism: interruptions arrive in proportion to the GPUs (each GPU, host and link can fail),
and each costs a fixed wall time (detection, restart, reloading the checkpoint, redoing the
steps since it). Per wall hour a run on ``N`` GPUs loses ``rate * N * cost`` hours per useful
hour, so ``share = 1 / (1 + rate * N * cost)``.

Source: Meta, "The Llama 3 Herd of Models" (arXiv:2407.21783), section 3.3.4: during a 54-day
snapshot of pre-training on 16,384 H100s, 466 job interruptions (47 planned, 419 unexpected),
"higher than 90% effective training time" (useful training time over elapsed time). The rate
is 466 / (54 x 24 h x 16,384 GPUs); the cost per interruption is the one that gives 90% at
16,384 GPUs (about 18.5 minutes; Meta's figure is a lower bound, so this errs long). A run on
8 GPUs loses under 0.01%, on 1,024 about 0.7%, on 16,384 10%. ``compute.effective_time_share``
overrides it.
"""

from __future__ import annotations

from ..model.specs import Scenario

META_GPUS = 16_384
META_SHARE = 0.90  # "higher than 90% effective training time"
INTERRUPTIONS_PER_GPU_HOUR = 466 / (54 * 24 * META_GPUS)
HOURS_LOST_PER_INTERRUPTION = (1 / META_SHARE - 1) / (INTERRUPTIONS_PER_GPU_HOUR * META_GPUS)


def effective_time_share(s: Scenario, gpus: int) -> float:
    """The share of wall time spent training, for ``s`` on ``gpus`` GPUs (the scenario's
    ``compute.effective_time_share`` when set)."""
    if s.compute.effective_time_share is not None:
        return float(s.compute.effective_time_share)
    return 1.0 / (1.0 + INTERRUPTIONS_PER_GPU_HOUR * max(1, gpus) * HOURS_LOST_PER_INTERRUPTION)


def wall_seconds(s: Scenario, gpus: int, ideal: float | None) -> float | None:
    """The run's wall-clock time: the step model's ``ideal`` over the effective share."""
    return None if ideal is None else ideal / effective_time_share(s, gpus)
