"""RL post-training algorithms (the scenario's ``rl.algorithm``): which roles each one runs.

Sources:
- PPO trains a critic (value model) beside the policy and keeps a frozen reference for the KL
  penalty (Ouyang et al. 2022, arXiv 2203.02155 §3.5; verl ``algorithm.adv_estimator: gae``).
- GRPO replaces the critic by the group's mean reward over ``samples_per_prompt`` responses and
  keeps the reference for its KL loss (Shao et al. 2024, DeepSeekMath, arXiv 2402.03300 §4.1;
  verl ``adv_estimator: grpo``, ``actor.use_kl_loss: True``).
- DAPO drops the KL term, so no reference (Yu et al. 2025, arXiv 2503.14476 §3; verl
  recipe/dapo ``use_kl_loss: False``).
- RLOO: leave-one-out baseline, no critic, KL to a reference (Ahmadian et al. 2024, arXiv
  2402.14740 §3); REINFORCE++: no critic, token KL to a reference (Hu 2025, arXiv 2501.03262).
"""

from __future__ import annotations

from dataclasses import dataclass

from .table import add


@dataclass(frozen=True)
class RLAlgorithm:
    """One algorithm: whether a critic is trained and whether a reference runs by default."""

    id: str
    label: str
    critic: bool
    reference: bool
    source: str


RL_ALGORITHMS: dict[str, RLAlgorithm] = {}


def register(algo: RLAlgorithm) -> RLAlgorithm:
    """Add an algorithm (a DuplicateId if its id is taken)."""
    return add(RL_ALGORITHMS, algo.id, algo, "RL algorithm")


for _a in (
    RLAlgorithm("grpo", "GRPO", False, True, "arXiv 2402.03300"),
    RLAlgorithm("ppo", "PPO", True, True, "arXiv 2203.02155"),
    RLAlgorithm("dapo", "DAPO", False, False, "arXiv 2503.14476"),
    RLAlgorithm("rloo", "RLOO", False, True, "arXiv 2402.14740"),
    RLAlgorithm("reinforce_pp", "REINFORCE++", False, True, "arXiv 2501.03262"),
):
    register(_a)
