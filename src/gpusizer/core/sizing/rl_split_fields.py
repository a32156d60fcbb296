"""One split placement weighed beside a colocated RL answer (core/sizing/rl_split_alt.py
searches it; core/sizing/option.py carries it): its own module so that the option can name the
type without importing the search."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SplitAlternative:
    """One split of ``total`` GPUs of the option's type: the rollout and training pools, the
    step and run (seconds, the estimate's ``rl`` block), the whole step's trained tokens per
    second, the run's band (``speed/rl/split``, seconds; None without one) and whether the
    pools overlap (one step off-policy); ``stated``: the user set ``rl.placement`` colocated."""

    rollout_gpus: int
    training_gpus: int
    time_per_step_seconds: float
    run_seconds: float
    tokens_trained_per_second: float
    run_seconds_range: tuple[float, float] | None
    overlaps: bool
    stated: bool = False

    @property
    def total(self) -> int:
        return self.rollout_gpus + self.training_gpus

    def fields(self) -> dict[str, Any]:
        """The public fields (docs/scenario-format.md, ``rl_split_alternative``)."""
        rng = self.run_seconds_range
        return {
            "rollout_gpus": self.rollout_gpus,
            "training_gpus": self.training_gpus,
            "total_gpus": self.total,
            "time_per_step_seconds": self.time_per_step_seconds,
            "run_seconds": self.run_seconds,
            "run_seconds_range": None if rng is None else list(rng),
            "tokens_trained_per_second": self.tokens_trained_per_second,
            "overlap": self.overlaps,
            "placement_stated": self.stated,
        }
