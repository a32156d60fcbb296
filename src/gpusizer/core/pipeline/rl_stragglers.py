"""Data-parallel stragglers: micro-batches of whole responses as they fall, the ranks waiting for
the longest (``rl.policy.balanced_micro_batches`` false; core/pipeline/rl_forwards.py adds them).

Pre-training's batches are packed rows of one length, so every data-parallel rank computes the
same tokens. An RL policy trains on the step's responses, whose lengths spread from a few tokens
to the cap. Where each rank's micro-batch holds ``micro_batch_size`` whole responses at their own
lengths (verl ``ppo_micro_batch_size_per_gpu`` with ``use_remove_padding`` and no
``use_dynamic_bsz``; UniRL one trajectory a rank an update), the ranks' micro-batches differ in
tokens, and synchronous data parallelism runs each at its slowest rank:

- FSDP / ZeRO-3 all-gathers every layer's parameters before its forward and its backward and
  reduce-scatters its gradients after (``torchtitan/docs/fsdp.md``; core/speed/train_dp.py), so
  the ranks meet at every layer of every micro-batch: each micro-batch takes the longest rank's
  tokens, in the training and in the log-prob forwards alike.
- DeepSpeed ZeRO-2 all-reduces the gradients in every backward, not once a step
  (core/speed/zero2_reduce.py, ``stage_1_and_2.py`` at v0.15.4-v0.17.0): each training
  micro-batch waits for the longest rank's backward; its forwards do not.
- DDP and Megatron's data parallelism reduce the gradients once an optimizer step (PyTorch DDP
  ``no_sync``; Megatron-LM ``--overlap-grad-reduce`` in the last micro-batch's backward): a rank's
  whole share of the optimizer step counts, and a forward-only pass never waits.

Measured: UniRL's Qwen3-4B DPPO profile on 8 H20 (
``Tencent-Hunyuan/UniRL/docs/profiling/qwen3_ar_performance_report.md`` at b1f78ffc, FSDP2,
one trajectory a rank an update): "slowest rank / median 1.289, slowest / fastest 1.854 ...
The main remaining performance problem is therefore long-output/rank imbalance plus fragmented
replay/FSDP work", its NCCL all-gather and reduce-scatter kernels 6.27 + 6.74 GPU-s beside
GEMM's 6.52 GPU-s (the collectives' kernels spin while a rank waits for the slowest).

The longest of ``ranks`` micro-batches is the expectation under the response-length law the
rollout uses (core/pipeline/rl_time.py: maximum entropy on [0, cap] with the step's mean). One
response a micro-batch: E[max] = integral over t of 1 - (1 - alive(t))^ranks, exact. Several:
their sum taken as normal (central limit) with k x the law's mean and variance, and the
expected largest of ``ranks`` standard normals. Each response adds the prompt's tokens. Where
the framework balances the micro-batches in tokens (verl ``use_dynamic_bsz`` with
``balance_batch``, Miles ``--balance-data`` with its token budget, NeMo RL's packed rows of
``train_mb_tokens``), the field is true (the default) and nothing is added. Left out, the field
follows ``rl.framework``'s release (core/registry/rl_framework_releases_verl.py and
rl_framework_releases_trl.py): verl, OpenRLHF and TRL build fixed counts of responses unless told
otherwise (verl ``use_dynamic_bsz`` false at every tag), so their releases fill false. The tokens are taken
as the time (attention's growth with a response's length is left out: a lower bound).
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..model.specs import Scenario
from ..speed.zero2_reduce import early_reductions
from .rl_check import rl_of
from .rl_logprob_batch import log_prob_micro, training_micro
from .rl_time import alive, law_rate

GRID = 512  # pieces of [0, cap] the law's integrals are summed over


def _moments(mean: float, cap: int) -> tuple[float, float]:
    """Mean and variance (tokens, tokens^2) of the length law on [0, cap] with ``mean``."""
    rate, width = law_rate(mean, cap), cap / GRID
    m1 = m2 = 0.0
    for i in range(GRID):
        t = (i + 0.5) * width
        a = alive(t, rate, cap)
        m1, m2 = m1 + a * width, m2 + 2 * t * a * width
    return m1, max(0.0, m2 - m1 * m1)


def _longest_one(mean: float, cap: int, ranks: int) -> float:
    """Expected longest of ``ranks`` responses drawn from the law, tokens."""
    rate, width = law_rate(mean, cap), cap / GRID
    return sum((1 - (1 - alive((i + 0.5) * width, rate, cap)) ** ranks) * width for i in range(GRID))


@lru_cache(maxsize=64)
def _largest_normal(ranks: int) -> float:
    """Expected largest of ``ranks`` independent standard normals (by the integral of its
    survival over [-8, 8] in 0.01 steps)."""
    total, step = 0.0, 0.01
    for i in range(1600):
        x = -8 + (i + 0.5) * step
        cdf = 0.5 * (1 + math.erf(x / math.sqrt(2)))
        total += ((1 - cdf**ranks) if x > 0 else -(cdf**ranks)) * step
    return total


@lru_cache(maxsize=1024)
def straggler_share(per_rank: int, ranks: int, prompt: int, mean: float, cap: int) -> float:
    """The longest of ``ranks`` micro-batches of ``per_rank`` responses over their mean, in
    tokens (>= 1; module docstring)."""
    if ranks <= 1 or per_rank <= 0 or cap <= 0:
        return 1.0
    if per_rank == 1:
        return (prompt + _longest_one(mean, cap, ranks)) / (prompt + mean)
    m, var = _moments(mean, cap)
    spread = math.sqrt(per_rank * var) * _largest_normal(ranks)
    return 1 + spread / (per_rank * (prompt + m))


def stragglers(s: Scenario) -> tuple[float, float]:
    """(log-prob, training) shares over 1 that the slowest rank adds to the token-bound time of
    the policy's passes: 0 where the micro-batches are balanced, the responses are not packed at
    their own lengths, or one rank trains."""
    rl, p = rl_of(s), s.parallelism
    pol = rl.policy
    if pol.balanced_micro_batches or not pol.sequence_packing or pol.micro_batch_unit != "response":
        return 0.0, 0.0
    if p.data <= 1:
        return 0.0, 0.0
    law = (rl.prompt_tokens, float(rl.rollout.response_tokens), rl.rollout.longest_tokens)
    gathers = p.zero_stage >= 3  # the ranks meet at every layer of every pass
    scored = straggler_share(log_prob_micro(s), p.data, *law) - 1 if gathers else 0.0
    if gathers or early_reductions(s, 2, p.pipeline > 1):  # every backward reduces
        return scored, straggler_share(training_micro(s), p.data, *law) - 1
    mini = pol.mini_batch_size or rl.rollout.prompts_per_step * rl.rollout.samples_per_prompt
    return 0.0, straggler_share(math.ceil(mini / p.data), p.data, *law) - 1
