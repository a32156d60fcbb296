"""Time per step of RL post-training (``workload.kind: "rl"``), seconds.

- Rollout: every response of the step (``prompts_per_step`` x ``samples_per_prompt``) spread
  over the engine's replicas; each replica decodes ``batch`` sequences at once (its
  max_sequences and KV pool allow) under the serving step model (core/speed/roofline.py plus
  the engine's fixed cost per step, core/serving/load.py). The bulk of the tokens runs at the
  full batch; the longest response sets the end: its tokens beyond the mean run nearly alone
  (the long tail of RL rollouts, DAPO arXiv 2503.14476 §3.2; verl docs "perf tuning",
  dynamic batch and the rollout's straggler).
- Log-prob forwards (old policy, reference, critic values, reward model): forward FLOPs (2 x
  active parameters per token, Kaplan et al. arXiv 2001.08361 §2.1) at the training step's
  achieved FLOP rate.
- Training: the fine-tuning step model over the step's prompt + response tokens, ``epochs``
  times (verl ``ppo_epochs``); the critic as much again.
- Weight sync: colocated, the policy's 16-bit weights gathered into the engine over the GPUs'
  link (verl FSDP -> vLLM resharding, HybridFlow arXiv 2409.19256 §5); split, broadcast from the
  training pool to the engines over the network (OpenRLHF arXiv 2405.11143 §3.1, NCCL).

Colocated phases add; split pools overlap (rollout of step n+1 beside training on step n,
one step off-policy) up to the slower one, the sync after.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class Decode:
    """One rollout replica's work and speeds: responses it generates, sequences decoding at once,
    mean prompt, mean and longest response (tokens), prefill seconds of ``batch`` prompts and
    the decode step seconds at ``batch`` and alone."""

    responses: int
    batch: int
    prompt: int
    mean: float
    longest: int
    prefill: float
    step: float
    tail_step: float


def rollout_seconds(d: Decode) -> float:
    """Prefill of every wave, the bulk of the tokens at the full batch, the longest tail alone."""
    waves = math.ceil(d.responses / d.batch)
    bulk = d.responses * d.mean / d.batch
    return waves * d.prefill + bulk * d.step + max(0.0, d.longest - d.mean) * d.tail_step


def forward_seconds(tokens: float, flops_per_token: float, gpus: int, flops_per_gpu: float) -> float:
    """A forward over ``tokens`` at the training step's achieved FLOP/s per GPU."""
    return tokens * flops_per_token / (gpus * flops_per_gpu) if flops_per_gpu else 0.0


def sync_seconds(weight_bytes: float, gb_per_s: float, efficiency: float) -> float:
    """Moving the policy's weights once over a link of ``gb_per_s`` (GB/s, 10^9 bytes)."""
    return weight_bytes / (gb_per_s * 1e9 * efficiency) if gb_per_s else 0.0


def step_seconds(phases: dict[str, float], overlaps: bool) -> float:
    """Colocated: the phases add. Split with overlap: rollout beside log-probs + training, the
    slower one sets the pace, then the sync."""
    if not overlaps:
        return sum(phases.values())
    train = phases["log_probs"] + phases["training"]
    return max(phases["rollout"], train) + phases["weight_sync"]
