"""Time per step of RL post-training (``workload.kind: "rl"``), seconds.

- Rollout: every response of the step (``prompts_per_step`` x ``samples_per_prompt``) spread
  over the engine's replicas; each replica decodes ``batch`` sequences at once (its
  max_sequences and KV pool allow) under the serving load simulation's step model
  (core/speed/step_model.py: kernel floors, each tensor-parallel all-reduce at alpha + bytes /
  beta over the link it crosses, skewed MoE routing, the engine's host cost per step); the
  bare roofline, which leaves out latency and launches, made a cross-node TP 32 DeepSeek V3
  decode step at batch 64 9 ms, this model 22 ms. A synchronous rollout decodes until
  its last sequence ends, its batch shrinking as sequences finish (the long tail of RL
  rollouts, DAPO arXiv 2503.14476 §3.2; verl docs "perf tuning", the rollout's straggler):
  response lengths follow the maximum-entropy law on [0, cap] with the given mean (a truncated
  exponential, Jaynes 1957: the least-committal spread that knows only the mean and the
  engine's ``max_new_tokens`` cap), and each decode step runs at the sequences still alive and
  their context. The last response runs to the cap: among a replica's hundreds of samples at
  temperature 1 one at least is cut by ``max_new_tokens`` (the clip ratio NeMo RL and verl
  log; NeMo RL v0.3's 70B generation, 84 s for 398-token means, is the cap's 3,968 steps).
- Log-prob forwards (old policy, reference, critic values, reward model): forward FLOPs (2 x
  active parameters per token, Kaplan et al. arXiv 2001.08361 §2.1, plus attention's Q·Kᵀ and
  P·V over the training rows, as the training step counts its own forward) at the training
  step's achieved FLOP rate.
- Training: the fine-tuning step model over the step's prompt + response tokens, ``epochs``
  times (verl ``ppo_epochs``); the critic as much again, less its vocabulary head (a one-output
  value head: core/pipeline/rl_critic_head.py).
- Weight sync: colocated, the policy's 16-bit weights gathered into the engine over the GPUs'
  link (verl FSDP -> vLLM resharding, HybridFlow arXiv 2409.19256 §5); split, broadcast from the
  training pool to the engines over the network (OpenRLHF arXiv 2405.11143 §3.1, NCCL).

Colocated phases add; split pools overlap (rollout of step n+1 beside training on step n,
one step off-policy) up to the slower one, the sync after. With k > 1 steps off-policy
(``rl.off_policy_steps``, NeMo RL ``max_trajectory_age_steps``) the rollout pool decodes k steps'
requests at once and refills each slot as a response ends: a step's rollout is its tokens at the
full batch, without the drain.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..model.architecture import resolve
from ..model.flops import attention_flops_per_token
from ..model.params import count_parameters
from ..model.specs import ModelSpec
from ..speed.step import StepModel

StepAt = Callable[[int, float], float]  # (sequences decoding, tokens each holds) -> seconds
SEGMENTS = 64  # pieces of the drain priced at their middle (the step cost varies slowly)
# Detokenising one generated token in the engine's own thread: vLLM PR #818 (2023-08, Llama 70B
# on 4 A100, 500 requests of 128 prompt tokens in a 512-token context) timed the tokenizer at
# 3.8 - 1.4 = 2.4 s of the engine's steps; at 384 tokens a request (the context's rest, so a
# lower bound per token), 12.5 us a token.
DETOKENIZE_SECONDS_PER_TOKEN = 2.4 / (500 * 384)
# The sampled token's log-prob returned per generated token (vLLM SamplingParams logprobs=0, as
# NeMo RL asks at tags v0.3.0-v0.6.0): vLLM PR #57442 (2026, Qwen3-4B on one L20, 512 concurrent
# 256-token requests) measured 4,130 tok/s without it and 3,922 with it, 12.8 us a token. There
# the GPU sets the pace (the API process's CPU at 0.37) and the engine core's CPU rose 0.33 ->
# 0.40, so the loss is the core's own serial work (the per-request LogprobsLists slicing and
# its output); an in-process engine also builds the Logprob objects in that thread: a lower bound.
LOGPROBS_SECONDS_PER_TOKEN = 1 / 3922 - 1 / 4130
# Copying each token's log-prob into a tensor one element at a time (NeMo RL vllm_worker.generate,
# ``full_logprobs[position] = ...``, after the engine's generate returns): PyTorch PR #32841
# measured a scalar tensor assignment ``v[0] = 1`` at 7.04 us.
COPY_SECONDS_PER_TOKEN = 7.04e-6


def host_seconds_per_token(detokenize: bool, logprobs: bool, copies: bool, op_dispatch: float = 1.0) -> float:
    """Host seconds per generated token serial with a replica's rollout: detokenising in the
    step's thread, the engine returning each token's log-prob, and the worker copying them
    (``rl.rollout.detokenize_in_step``, ``returns_logprobs``, ``copies_logprobs``).

    The copy is one PyTorch op issued from Python per token (a scalar ``Tensor.__setitem__``,
    timed on an x86 host), so it takes the host CPU's ``op_dispatch`` (core/registry/host_cpus.py:
    Grace 2.75x, TransformerEngine #2053), as the eager serving steps' launches and the Megatron
    layers' ops do (core/serving/load.py, core/speed/train_host.py). Detokenising and the
    engine's log-prob output are interpreted Python and Rust work, for which no Grace-against-x86
    figure was found: unscaled (docs/evidence/rl.md, the GB200 dense pairs section)."""
    return (
        DETOKENIZE_SECONDS_PER_TOKEN * detokenize
        + LOGPROBS_SECONDS_PER_TOKEN * logprobs
        + COPY_SECONDS_PER_TOKEN * op_dispatch * copies
    )


@dataclass(frozen=True)
class Decode:
    """One rollout replica's work and speeds: responses it generates, sequences decoding at once,
    mean prompt, mean and capped (longest possible) response in tokens, prefill seconds of
    ``batch`` prompts, and the decode step's seconds at a batch and context (``step_at``)."""

    responses: int
    batch: int
    prompt: int
    mean: float
    longest: int
    prefill: float
    step_at: StepAt
    output_per_token: float = 0.0  # host seconds per generated token serial with the steps
    steady: bool = False  # later steps' requests refill the batch: no drain (steady_rollout_seconds)


def _rate(mean: float, cap: float) -> float:
    """The exponent (per token) of the maximum-entropy density exp(rate x) on [0, cap] whose
    mean is ``mean`` (0: uniform, mean cap / 2), by bisection on the monotone mean."""
    target = min(max(mean / cap, 1e-6), 1 - 1e-6)
    lo, hi = -1e4, 1e4
    for _ in range(100):
        mid = (lo + hi) / 2
        if _mean_share(mid) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2 / cap


def law_rate(mean: float, cap: float) -> float:
    """:func:`_rate`: the length law's exponent per token (core/pipeline/rl_preempt.py draws a
    replica's response lengths from it)."""
    return _rate(mean, cap)


def _mean_share(k: float) -> float:
    """Mean / cap of the density exp(k u) on u in [0, 1]."""
    if abs(k) < 1e-9:
        return 0.5
    if k > 50:
        return 1 - 1 / k
    return math.exp(k) / math.expm1(k) - 1 / k


def alive(t: float, rate: float, cap: float) -> float:
    """Share of responses longer than ``t`` tokens under :func:`_rate`'s law."""
    if t >= cap:
        return 0.0
    if abs(rate * cap) < 1e-9:
        return 1 - t / cap
    # (e^{r cap} - e^{r t}) / (e^{r cap} - 1), scaled by e^{-r cap} when r > 0 to stay finite
    if rate > 0:
        return -math.expm1(rate * (t - cap)) / -math.expm1(-rate * cap)
    return (math.expm1(rate * cap) - math.expm1(rate * t)) / math.expm1(rate * cap)


def drain_seconds(d: Decode, live: int) -> float:
    """``live`` sequences started together decode until the cap: the bulk ends as the law
    says, the longest response runs to ``max_new_tokens`` (at least one sequence decodes)."""
    rate = _rate(d.mean, d.longest)
    width = d.longest / SEGMENTS
    total = 0.0
    for i in range(SEGMENTS):
        t = (i + 0.5) * width
        total += width * d.step_at(max(1, round(live * alive(t, rate, d.longest))), d.prompt + t)
    return total


def steady_rollout_seconds(d: Decode) -> float:
    """One step's share of a rollout that never drains: NeMo RL's async GRPO
    (``nemo_rl/algorithms/async_utils.py`` ``AsyncTrajectoryCollector``, tag v0.6.0) keeps up to
    ``num_prompts_per_step x max_trajectory_age_steps`` prompt groups in flight, each its own
    request thread started as a semaphore slot frees, for up to that many future steps; with more
    than one step in flight the slots a step's last responses leave are taken by the next step's
    requests, so each of the step's tokens is decoded at the full ``batch`` (half-grown context,
    as the queued responses of :func:`rollout_seconds`) and its prompts' prefill, no drain."""
    tokens = d.responses * d.mean
    prefill = d.responses / d.batch * d.prefill
    return (
        prefill + tokens / d.batch * d.step_at(d.batch, d.prompt + d.mean / 2) + tokens * d.output_per_token
    )


def rollout_seconds(d: Decode) -> float:
    """Prefill of every wave; responses beyond one batch at the full batch (continuous batching
    refills the slots), then the last batch's drain at its falling batch; and the output work of
    every generated token where it runs in the step's thread (``output_per_token``). With later
    steps' requests in flight (``steady``): :func:`steady_rollout_seconds`."""
    if d.steady:
        return steady_rollout_seconds(d)
    waves = math.ceil(d.responses / d.batch)
    queued = max(0, d.responses - d.batch) * d.mean / d.batch
    full = d.step_at(d.batch, d.prompt + d.mean / 2) if queued else 0.0
    output = d.responses * d.mean * d.output_per_token
    return waves * d.prefill + queued * full + drain_seconds(d, min(d.batch, d.responses)) + output


def prefill_seconds(step: StepModel, batch: int, prompt: int, budget: int | None) -> float:
    """``batch`` prompts of ``prompt`` tokens each: one step, or as many steps as a token budget
    (vLLM ``max_num_batched_tokens``) needs, each an equal share. vLLM V0 without chunked prefill
    runs prompt-only steps of at most the budget (``vllm/core/scheduler.py`` ``_schedule_default``:
    prefills first, under ``SchedulingBudget(token_budget=max_num_batched_tokens)``), each with
    the step's fixed and, eager, launch costs."""
    attn, read = step.chunk(0.0, prompt)
    steps = max(1, math.ceil(batch * prompt / budget)) if budget else 1
    share = batch / steps
    return steps * step.seconds(0, 0.0, share * prompt, share, share * attn, share * read, share)


def forward_flops(model: ModelSpec, rows: float, causal: bool) -> float:
    """FLOPs per token of one log-prob forward of ``model`` over packed training rows of ``rows``
    tokens: 2 x active parameters plus attention's Q·Kᵀ and P·V (Narayanan et al. 2021 arXiv
    2104.04473 §5.1), the forward the training step prices at the same rows
    (core/model/flops.training_flops_per_token); ``causal`` as the training's attention kernel.
    Without the attention term a forward was priced below the training step's own forward, the
    more so the longer the rows: Qwen3-30B-A3B at 4,096 tokens 24 %, Llama 3.1 8B 7 %."""
    attention = attention_flops_per_token(resolve(model), rows, causal)
    return 2.0 * count_parameters(model).active + attention


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
