"""The training pool's passes of an RL step (core/pipeline/rl_plan.py): the scoring forwards
(the policy's old log-probs, the reference, the critic, a reward model) and the training, at
the policy's achieved FLOP/s (core/speed/compute.py), with the exposed gathers
(core/pipeline/rl_gathers.py), the host's pacing (core/speed/train_host.py for Megatron's
layers, core/speed/train_host_hf.py for Hugging Face ones) and the policy's stated framework
flags (core/pipeline/rl_logits.py, core/pipeline/rl_swiglu.py,
core/pipeline/rl_grad_accumulation.py)."""

from __future__ import annotations

from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.specs import GPUSpec, ModelSpec, Scenario
from ..speed.compute import compute_estimate
from ..speed.train_host import INVENTORIES, pace_seconds, paced_seconds
from ..speed.train_host_hf import hf_host_pace
from ..speed.train_layer import loss_bytes_per_logit
from ..speed.train_rates import memory_rate
from .rl_check import rl_of, role_model
from .rl_critic_head import critic_cost_share, critic_forward_flops
from .rl_critic_padding import critic_pads, critic_scenario, padded_span
from .rl_gathers import exposed_gathers
from .rl_grad_accumulation import unfused_accumulation_seconds
from .rl_logits import fp32_logprob_seconds, fp32_loss_seconds
from .rl_logprob_batch import scoring_policy, split_paced, values_policy
from .rl_reference_copy import reference_copy_seconds
from .rl_roles import computed_tokens
from .rl_shared import shared_trainer
from .rl_stragglers import stragglers
from .rl_swiglu import unfused_swiglu_seconds
from .rl_time import forward_flops, forward_seconds


def forwards(s: Scenario, policy: Scenario, gpu: GPUSpec) -> tuple[float, float]:
    """(log-prob forward seconds, training seconds) per step on the training pool. The policy's
    old log-probs and the reference's run at the log-prob micro-batch
    (core/pipeline/rl_logprob_batch.py), the critic's values and a reward model at the training's
    as stated (``values_policy``: not bounded by the rank's share of a mini-batch)."""
    rl, gpus = rl_of(s), s.parallelism.gpus
    arch, counts = resolve(policy.model), count_parameters(policy.model)
    c = compute_estimate(policy, counts, gpu, gpus, arch)
    scoring, valued = scoring_policy(s, policy), values_policy(s, policy)
    cs, cv = (c if x is policy else compute_estimate(x, counts, gpu, gpus, arch) for x in (scoring, valued))
    scored = cs.flops_per_token * cs.tokens_per_second_per_gpu  # the same, at the log-prob micro-batch
    rate_v = cv.flops_per_token * cv.tokens_per_second_per_gpu  # achieved FLOP/s, the values' micro-batch
    # the policy's own scoring pass unless the run skips it (``rl.policy.old_logprobs``)
    models = [s.model] * rl.policy.old_logprobs + [role_model(s, "", rl.reference.model)] * rl.has_reference
    logprob = len(models)
    critic = role_model(s, "", rl.critic.model)
    models += [critic] * rl.has_critic
    models += [role_model(s, "", rl.reward.model)] * (rl.reward.kind == "model")
    rates = [scored] * logprob + [rate_v] * (len(models) - logprob)
    tokens = computed_tokens(s)  # the padded rows run the math too (core/pipeline/rl_capacity_padding.py)
    rows, causal = policy.workload.attention_span, policy.parallelism.attention == "flash"
    # the one-output scorers: the critic's values and a reward model's score
    scorers = {i for i, on in ((logprob, rl.has_critic), (len(models) - 1, rl.reward.kind == "model")) if on}
    flops = _pass_flops(models, scorers, rows, causal)
    fwd = sum(forward_seconds(tokens, f, gpus, r) for f, r in zip(flops, rates, strict=True))
    share = critic_cost_share(critic, rows, causal) if rl.has_critic else 0.0
    train = c.time_seconds * (1 + share)  # the critic: as much again, less its vocabulary head
    pad = _critic_padding(s, gpu, c.time_seconds * share, rate_v, rows)
    fwd, train = fwd + pad[0], train + pad[1]
    waits = exposed_gathers(s, gpu)
    passes = models[:logprob].count(s.model), models[logprob:].count(s.model)  # the policy's model's
    times = c.time_seconds, cs.time_seconds, cv.time_seconds
    fusion, epochs = rl.policy.moe_permute_fusion, rl.policy.epochs

    def megatron(x: Scenario, t: float, n: int) -> tuple[float, float]:
        return paced_seconds(x, gpu, fusion, t, n, epochs)

    host = split_paced(megatron, policy, scoring, times, passes, valued)
    hf = split_paced(lambda x, t, n: _hf_paced(s, x, gpu, t, n), policy, scoring, times, passes, valued)
    flags = _policy_flags(s, policy, gpu, sum(passes))
    copies = reference_copy_seconds(s, gpu)  # an offloaded reference brought in per micro-batch
    late = _waits_for_longest(s, c.training_step, fwd, train)
    # Megatron-Core's unfused gradient accumulation, per micro-batch (the critic's too)
    adds = unfused_accumulation_seconds(s, policy, gpu, train)
    return (
        fwd + waits[0] + host[0] + hf[0] + flags[0] + copies + late[0],
        train + waits[1] + host[1] + hf[1] + flags[1] + late[1] + adds,
    )


def _pass_flops(models: list[ModelSpec], scorers: set[int], rows: float, causal: bool) -> list[float]:
    """FLOPs per token of each scoring pass of ``models`` over ``rows``-token rows; those at the
    indices ``scorers`` (the critic's values, a reward model's score) run a one-output head
    instead of the vocabulary's (core/pipeline/rl_critic_head.py)."""
    return [
        critic_forward_flops(m, rows, causal) if i in scorers else forward_flops(m, rows, causal)
        for i, m in enumerate(models)
    ]


def _critic_padding(
    s: Scenario, gpu: GPUSpec, packed: float, rate: float, rows: float
) -> tuple[float, float]:
    """(values forward, update) seconds a critic that does not remove its padding adds over
    one priced at the packed policy's cost (``packed``: its update's seconds, value head and
    all, core/pipeline/rl_critic_head.py) (core/pipeline/rl_critic_padding.py): its passes
    over rows padded to prompt + longest, at that trainer's own achieved FLOP/s; 0 otherwise."""
    if not critic_pads(s):
        return 0.0, 0.0
    rl, gpus, padded = rl_of(s), s.parallelism.gpus, critic_scenario(s)
    trainer = _respanned(shared_trainer(padded)[0], padded_span(s))  # the policy's model, as above
    arch, counts = resolve(trainer.model), count_parameters(trainer.model)
    c = compute_estimate(trainer, counts, gpu, gpus, arch)
    model, causal = role_model(s, "", rl.critic.model), trainer.parallelism.attention == "flash"
    valued = values_policy(padded, trainer)  # the values forward at the stated micro-batch
    cv = c if valued is trainer else compute_estimate(valued, counts, gpu, gpus, arch)
    fresh = cv.flops_per_token * cv.tokens_per_second_per_gpu
    span = trainer.workload.attention_span
    now = forward_seconds(computed_tokens(padded), critic_forward_flops(model, span, causal), gpus, fresh)
    was = forward_seconds(computed_tokens(s), critic_forward_flops(model, rows, causal), gpus, rate)
    return now - was, c.time_seconds * critic_cost_share(model, span, causal) - packed


def _respanned(trainer: Scenario, span: float | None) -> Scenario:
    """A copy of the kept trainer ``trainer`` with its rows' attention over ``span`` tokens
    (the kept one is shared through the memo, so it is not changed in place)."""
    if span is None:
        return trainer
    out = trainer.model_copy(update={"workload": trainer.workload.model_copy()})
    out.workload.spanning(span)
    return out


def _waits_for_longest(
    s: Scenario, step: dict[str, float | bool] | None, fwd: float, train: float
) -> tuple[float, float]:
    """(log-prob, training) seconds the ranks wait for the one with the longest micro-batch
    (core/pipeline/rl_stragglers.py): its share over the passes' token-bound seconds, the
    training's less its optimizer step and data-parallel collectives."""
    lp, tr = stragglers(s)
    if not (lp or tr) or step is None:
        return 0.0, 0.0
    total = float(step.get("seconds", 0.0))
    fixed = float(step.get("optimizer_seconds", 0.0)) + float(step.get("dp_communication_seconds", 0.0))
    bound = 1 - fixed / total if total else 1.0
    return lp * fwd, tr * train * bound


def _hf_paced(
    s: Scenario, policy: Scenario, gpu: GPUSpec, train: float, forwards: int
) -> tuple[float, float]:
    """(log-prob, training) seconds the host's pace adds to a Hugging Face policy's eager layers
    (``rl.policy.hf_layer_ops``, core/speed/train_host_hf.py): ``forwards`` scoring passes of the
    policy's model, and its training, the critic's as much again (verl's critic is the same
    Hugging Face model under FSDP). Nothing for a Megatron policy (its own inventory) or null."""
    rl = rl_of(s)
    if rl.policy.hf_layer_ops is None or policy.framework in INVENTORIES:
        return 0.0, 0.0
    pace = hf_host_pace(policy, gpu, rl.policy.hf_layer_ops)
    fwd, trained = pace_seconds(pace, policy, gpu, train, forwards, rl.policy.epochs)
    return fwd, trained * (2 if rl.has_critic else 1)


def _policy_flags(s: Scenario, policy: Scenario, gpu: GPUSpec, forwards: int) -> tuple[float, float]:
    """(log-prob, training) seconds the policy's stated framework flags add: NeMo RL's FP32
    log-softmax over the logits (core/pipeline/rl_logits.py) and Megatron's unfused SwiGLU
    (core/pipeline/rl_swiglu.py), over ``forwards`` scoring passes and each epoch's training."""
    rl, p = rl_of(s), policy.parallelism
    tokens, bw, epochs = computed_tokens(s), memory_rate(gpu), rl.policy.epochs
    trained = computed_tokens(s, training=True)  # padded to capacity: the update's rows only
    fwd = train = 0.0
    if rl.policy.fp32_logprobs:
        vocab, loss = resolve(policy.model).vocab, loss_bytes_per_logit(policy)
        fwd += fp32_logprob_seconds(tokens, vocab, p.pipeline, p.gpus, bw, forwards)
        train += fp32_loss_seconds(trained * epochs, vocab, p.pipeline, p.gpus, bw, loss)
    if not rl.policy.bias_activation_fusion and policy.framework in INVENTORIES:
        full = p.recompute == "full"
        glu = unfused_swiglu_seconds(policy.model, tokens, p.gpus, bw, forwards, full)[0]
        glu_train = unfused_swiglu_seconds(policy.model, trained, p.gpus, bw, forwards, full)[1]
        fwd, train = fwd + glu, train + epochs * glu_train
    return fwd, train
