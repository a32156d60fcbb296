"""The work of RL post-training (``workload.kind: "rl"``, core/pipeline/work.py key ``rl``):
memory per phase (core/pipeline/rl_memory.py) with the peak phase's as the GPU's, time per step
(core/pipeline/rl_time.py), and the report's ``rl`` block (docs/scenario-format.md "RL
post-training"). Roles' scenarios: core/pipeline/rl_roles.py."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import ScenarioError
from ..evidence.confidence import rl_step_note
from ..memo import Memo
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.presets import host_cpu, scenario_gpu
from ..model.result import EngineMemory, Memory
from ..model.specs import GPUSpec, Scenario
from ..serving.engine_memory import engine_memory
from ..serving.engine_settings import EngineSettings
from ..serving.features import with_speculative
from ..serving.load import engine_costs
from ..serving.lora_serving import with_lora
from ..serving.mtp import mtp_note
from ..speed.compute import compute_estimate
from ..speed.step import StepModel
from ..speed.step_model import step_model
from ..speed.train_host import INVENTORIES, paced_seconds
from ..speed.train_layer import loss_bytes_per_logit
from ..speed.train_rates import memory_rate
from .rl_advice import split_options
from .rl_check import rl_of, role_model
from .rl_colocated import colocated_transitions, frozen_bytes, weight_sync_seconds
from .rl_framework import framework_block, framework_note, rollout_release_note
from .rl_gathers import exposed_gathers
from .rl_logits import fp32_logprob_seconds, fp32_loss_seconds
from .rl_memory import FP32, RLParts, allocator_counted, colocated_phases, layout_peak, peak, split_phases
from .rl_preempt import Pool, RunStats, engine_pool, scheduled_rollout
from .rl_roles import (
    computed_tokens,
    longest_response,
    paced_policy,
    per_replica,
    reference_in_policy,
    responses,
    role_names,
    rollout_gpus,
    rollout_scenario,
    trained_tokens,
    trainer_scenario,
)
from .rl_swiglu import unfused_swiglu_seconds
from .rl_time import (
    Decode,
    forward_flops,
    forward_seconds,
    host_seconds_per_token,
    prefill_seconds,
    step_seconds,
)
from .rl_transitions import Transition
from .runs_on import check_runs_on
from .work import RL_KEY, Job, Work, WorkBuilder, register_work, training_peak


@dataclass(frozen=True)
class RLPlan:
    """One RL scenario worked out: memory per phase, seconds per phase, the roles' scenarios."""

    phases: dict[str, Memory]
    seconds: dict[str, float]
    policy: Scenario
    rollout: Scenario
    batch: int
    replicas: int
    engine_refusal: str | None = None  # why the rollout engine would not start (None: it starts)
    # colocated: the moves between phases (core/pipeline/rl_transitions.py); split: none
    transitions: tuple[Transition, ...] = ()
    counted: int = 0  # bytes torch.cuda.max_memory_allocated() reads (rl_memory.allocator_counted)
    # one replica's run under vLLM's scheduler (core/pipeline/rl_preempt.py); None where it
    # does not run (another engine, k steps off-policy, a pool too small for its bundles)
    run: RunStats | None = None

    def step(self, overlaps: bool) -> float:
        """Seconds per step: the phases (as rl_time.step_seconds sets them) and the moves."""
        return step_seconds(self.seconds, overlaps) + sum(t.seconds for t in self.transitions)


_PLANS: Memo[RLPlan] = Memo(128)


@dataclass(frozen=True)
class RLMemory:
    """The memory half of an :class:`RLPlan`: what the layout search weighs (its phases, the
    engine's refusal), without the step's seconds (the rollout's simulated run, the forwards'
    compute), which took about half of each of an RL catalog compare's ~110,000 estimates."""

    phases: dict[str, Memory]
    policy: Scenario
    rollout: Scenario
    engine: EngineMemory
    settings: EngineSettings
    parts: RLParts
    refusal: str | None


_MEMORIES: Memo[RLMemory] = Memo(128)


def rl_memory(s: Scenario, gpu: GPUSpec) -> RLMemory:
    """The phases' memory of a validated RL scenario on its GPU (kept per scenario)."""
    return _MEMORIES.get((id(s), id(gpu)), lambda: _memory_of(s, gpu), (s, gpu))


def _memory_of(s: Scenario, gpu: GPUSpec) -> RLMemory:
    rl = rl_of(s)
    policy = trainer_scenario(s)
    held = per_replica(s) * rl.steps_in_flight  # requests a replica holds: later steps' too
    rs = rollout_scenario(s, min(held, 1 << 20))
    em, st = engine_memory(rs, resolve(rs.model), count_parameters(rs.model), gpu)
    parts = _parts(s, policy, em.memory)
    phases = (
        colocated_phases(parts, rl.offload_states, rl.rollout.sleep_level)
        if rl.placement == "colocated"
        else split_phases(parts)
    )
    refusal = None if em.starts else (em.reason or "its KV pool does not hold one request")
    return RLMemory(phases, policy, rs, em, st, parts, refusal)


def _training_memory(s: Scenario) -> Memory:
    arch, counts = resolve(s.model), count_parameters(s.model)
    return training_peak(s, arch, counts).memory()


def _decode(
    s: Scenario, gpu: GPUSpec, m: RLMemory | None = None
) -> tuple[Decode, Scenario, EngineMemory, StepModel, Pool | None]:
    """The rollout's decode; ``m``: the plan's memory (None: worked out anew)."""
    rl = rl_of(s)
    n = per_replica(s)
    held = n * rl.steps_in_flight  # requests a replica holds: later steps' too when k steps off
    m = m or _memory_of(s, gpu)
    rs, em, st = m.rollout, m.engine, m.settings
    mean = float(rl.rollout.response_tokens)
    live = rl.prompt_tokens + mean  # responses at every stage: half-grown on the mean
    fit = int(em.kv_capacity_tokens // live) if live else held
    batch = max(1, min(held, em.max_sequences or held, fit))
    # the serving load simulation's own step (kernel floors, collectives at alpha + bytes /
    # beta over the link they cross, skewed MoE routing, the engine's host cost)
    costs = engine_costs(rs, gpu, st)  # the drafts' steps, where the rollout speculates, over it
    step = with_speculative(rs, gpu, costs, with_lora(rs, step_model(rs, gpu, costs)))
    prefill = prefill_seconds(step, batch, rl.prompt_tokens, rl.rollout.max_batched_tokens)
    ro = rl.rollout  # the host's work per generated token, serial with the replica's steps
    dispatch = host_cpu(s.hardware).op_dispatch  # the copy's PyTorch op on this host
    out = host_seconds_per_token(ro.detokenize_in_step, ro.returns_logprobs, ro.copies_logprobs, dispatch)
    steady = rl.steps_in_flight > 1
    d = Decode(
        n, batch, rl.prompt_tokens, mean, longest_response(rl), prefill, step.decode_seconds, out, steady
    )
    return d, rs, em, step, engine_pool(rl.rollout.engine, st, em)


def _parts(s: Scenario, policy: Scenario, engine: Memory) -> RLParts:
    rl, p = rl_of(s), s.parallelism
    critic = (
        trainer_scenario(s, role_model(s, "", rl.critic.model), "full_finetune") if rl.has_critic else None
    )
    separate = rl.has_reference and not reference_in_policy(rl)
    ref = frozen_bytes(role_model(s, "", rl.reference.model), s) if separate else 0
    reward = frozen_bytes(role_model(s, "", rl.reward.model), s) if rl.reward.kind == "model" else 0
    vocab = resolve(s.model).vocab
    mb = policy.workload.micro_batch_size * policy.workload.sequence_length
    return RLParts(
        _training_memory(policy),
        _training_memory(critic) if critic else None,
        engine,
        ref,
        rl.reference.offload,
        reward,
        int(mb * vocab * FP32 / p.tensor),
    )


def _forwards(s: Scenario, policy: Scenario, gpu: GPUSpec) -> tuple[float, float]:
    """(log-prob forward seconds, training seconds) per step on the training pool."""
    rl, gpus = rl_of(s), s.parallelism.gpus
    arch, counts = resolve(policy.model), count_parameters(policy.model)
    c = compute_estimate(policy, counts, gpu, gpus, arch)
    rate = c.flops_per_token * c.tokens_per_second_per_gpu  # achieved FLOP/s per GPU
    # the policy's own scoring pass unless the run skips it (``rl.policy.old_logprobs``)
    models = [s.model] * rl.policy.old_logprobs + [role_model(s, "", rl.reference.model)] * rl.has_reference
    models += [role_model(s, "", rl.critic.model)] * rl.has_critic
    models += [role_model(s, "", rl.reward.model)] * (rl.reward.kind == "model")
    tokens = computed_tokens(s)  # the padded rows run the math too (core/pipeline/rl_padding.py)
    rows, causal = policy.workload.sequence_length, policy.parallelism.attention == "flash"
    fwd = sum(forward_seconds(tokens, forward_flops(m, rows, causal), gpus, rate) for m in models)
    train = c.time_seconds * (2 if rl.has_critic else 1)  # the critic: as much again (its model's)
    waits = exposed_gathers(s, gpu)
    forwards = models.count(s.model)  # the policy's and a reference of its own model
    host = paced_seconds(
        policy, gpu, rl.policy.moe_permute_fusion, c.time_seconds, forwards, rl.policy.epochs
    )
    flags = _policy_flags(s, policy, gpu, forwards)
    return fwd + waits[0] + host[0] + flags[0], train + waits[1] + host[1] + flags[1]


def _policy_flags(s: Scenario, policy: Scenario, gpu: GPUSpec, forwards: int) -> tuple[float, float]:
    """(log-prob, training) seconds the policy's stated framework flags add: NeMo RL's FP32
    log-softmax over the logits (core/pipeline/rl_logits.py) and Megatron's unfused SwiGLU
    (core/pipeline/rl_swiglu.py), over ``forwards`` scoring passes and each epoch's training."""
    rl, p = rl_of(s), policy.parallelism
    tokens, bw, epochs = computed_tokens(s), memory_rate(gpu), rl.policy.epochs
    fwd = train = 0.0
    if rl.policy.fp32_logprobs:
        vocab, loss = resolve(policy.model).vocab, loss_bytes_per_logit(policy)
        fwd += fp32_logprob_seconds(tokens, vocab, p.pipeline, p.gpus, bw, forwards)
        train += fp32_loss_seconds(tokens * epochs, vocab, p.pipeline, p.gpus, bw, loss)
    if not rl.policy.bias_activation_fusion and policy.framework in INVENTORIES:
        full = p.recompute == "full"
        glu = unfused_swiglu_seconds(policy.model, tokens, p.gpus, bw, forwards, full)
        fwd, train = fwd + glu[0], train + epochs * glu[1]
    return fwd, train


def rl_plan(s: Scenario, gpu: GPUSpec) -> RLPlan:
    """The phases' memory and seconds of a validated RL scenario on its GPU (kept per scenario)."""

    def compute() -> RLPlan:
        rl = rl_of(s)
        m = rl_memory(s, gpu)
        policy, parts, phases = m.policy, m.parts, m.phases
        d, rs, _, step, pool = _decode(s, gpu, m)
        fwd, train = _forwards(s, policy, gpu)
        # the engine's scenario and GPU set its step: layouts of one rollout share the run
        rollout, run = scheduled_rollout(d, step, pool, (rs.model_dump_json(), id(gpu)), (gpu,))
        seconds = {
            "rollout": rollout,
            "log_probs": fwd,
            "training": train,
            "weight_sync": weight_sync_seconds(s, gpu),
        }
        replicas = max(1, rollout_gpus(s) // rl.rollout.tensor)
        moves = colocated_transitions(s, gpu, parts)
        counted = allocator_counted(phases, parts.engine, rl.placement)
        return RLPlan(phases, seconds, policy, rs, d.batch, replicas, m.refusal, moves, counted, run)

    return _PLANS.get((id(s), id(gpu)), compute, (s, gpu))


def rl_block(s: Scenario, gpu: GPUSpec, plan: RLPlan) -> dict[str, Any]:
    """The report's ``rl`` block (contract: docs/scenario-format.md "RL post-training")."""
    rl = rl_of(s)
    step = plan.step(rl.overlaps)
    train_gpus = s.parallelism.gpus
    gpus = train_gpus + (rl.rollout.gpus if rl.placement == "split" else 0)
    generated = responses(rl) * rl.rollout.response_tokens
    run = step * rl.steps
    hours = run * gpus / 3600
    split = rl.placement == "split"
    return {
        "algorithm": rl.algorithm,
        "placement": rl.placement,
        "roles": role_names(rl),
        "training_gpus": train_gpus,
        "rollout_gpus": rollout_gpus(s),
        "total_gpus": gpus,
        "rollout_replicas": plan.replicas,
        "rollout_batch": plan.batch,
        "rollout_peak_running": plan.run.peak_running if plan.run else None,
        "rollout_preemptions": plan.run.preemptions if plan.run else None,
        "responses_per_step": responses(rl),
        "tokens_generated_per_step": generated,
        "tokens_trained_per_step": trained_tokens(rl),
        "time_per_step_seconds": step,
        "phases": [
            {
                "name": name,
                "pool": ("rollout" if name in ("rollout", "weight_sync") else "training")
                if split
                else "shared",
                "seconds": plan.seconds[name],
                "share": plan.seconds[name] / step if step else 0.0,
                "memory": mem.as_dict(),
                "host_memory_bytes": mem.host_memory,
            }
            for name, mem in plan.phases.items()
        ],
        "transitions": [{**m.as_dict(), "share": m.seconds / step if step else 0} for m in plan.transitions],
        "peak_phase": peak(plan.phases).peak_phase,
        "max_memory_allocated_bytes": plan.counted,
        "tokens_generated_per_second": generated / step if step else 0.0,
        "tokens_trained_per_second": trained_tokens(rl) * rl.policy.epochs / step if step else 0.0,
        "steps": rl.steps,
        "run_seconds": run,
        "gpu_hours": hours,
        "cost": hours * gpu.price_per_hour if gpu.price_per_hour is not None else None,
        **(_advice(s, gpu) if split else {}),
        # rl.framework set: its release and the knobs at its defaults (absent where null)
        **({"framework": fw} if (fw := framework_block(rl)) else {}),
    }


def _step_of(s: Scenario, gpu: GPUSpec) -> float:
    return rl_plan(s, gpu).step(rl_of(s).overlaps)


def _advice(s: Scenario, gpu: GPUSpec) -> dict[str, Any]:
    """Split placement: every split of the same GPUs and the fastest (core/pipeline/rl_advice.py)."""
    options = split_options(s, gpu, _step_of)
    best = min(options, key=lambda o: o["time_per_step_seconds"], default=None)
    return {"split_options": options, "best_rollout_gpus": best["rollout_gpus"] if best else None}


@register_work
class RLWork(WorkBuilder):
    """RL post-training: the roles' phases, the heaviest phase's memory as the GPU's."""

    key: ClassVar[str] = RL_KEY
    times_run: ClassVar[bool] = True  # rl.steps steps of the RL step (a deadline sizes on it)
    memory_per_gpu: ClassVar[bool] = True  # the engine holds its memory fraction of each GPU

    def build(self, job: Job) -> Work:
        plan = rl_plan(job.s, job.gpu)
        mem = peak(plan.phases)
        placement = rl_of(job.s).placement
        # what the step time is worth: its regime's band (core/evidence, scripts/evidence_bands.py)
        step_note = rl_step_note(job.s, job.gpu)
        notes: tuple[str, ...] = (f"RL peak in the {mem.peak_phase} phase", step_note)
        fw_note = framework_note(framework_block(rl_of(job.s)))
        notes += (fw_note,) if fw_note else ()
        notes += tuple(n for n in (rollout_release_note(rl_of(job.s)),) if n)
        if plan.engine_refusal:
            notes += (f"the rollout engine would not start: {plan.engine_refusal}",)
        return Work(
            mem,
            None,
            "fp32" if job.s.precision.optimizer_states == "fp32" else None,
            (),
            notes,
            rl=rl_block(job.s, job.gpu, plan),
            layout_bytes=None if placement == "colocated" else layout_peak(plan.phases, placement).total,
        )

    def memory(self, s: Scenario) -> Memory:
        return peak(rl_memory(s, scenario_gpu(s)).phases)

    def sizing_memory(self, s: Scenario) -> Memory:
        """rl_memory.layout_peak; a rollout engine that would not start fits no layout. The
        memory half of the plan only (:func:`rl_memory`): the search weighs no step time."""
        m = rl_memory(s, scenario_gpu(s))
        if m.refusal:
            raise ScenarioError("rl.rollout", f"the rollout engine would not start: {m.refusal}")
        return layout_peak(m.phases, rl_of(s).placement)

    def settings(self, job: Job, states: str | None) -> list[str]:
        rl, ro = rl_of(job.s), rl_of(job.s).rollout
        return [
            f"RL {rl.algorithm}, {rl.placement}, roles {', '.join(role_names(rl))}",
            f"rollout {ro.engine} TP {ro.tensor}: {ro.prompts_per_step} prompts x "
            f"{ro.samples_per_prompt} samples, {rl.prompt_tokens} + {ro.response_tokens} tokens "
            f"(longest response {longest_response(rl):,})",
            f"policy {rl.policy.kind}, {rl.policy.epochs} epoch(s) per step",
            *filter(None, [mtp_note(job.s, ro.speculative.method if ro.speculative else None)]),
        ]

    def trainable(self, job: Job, adapters: int) -> int:
        """The policy's (``adapters``: its LoRA parameters, the timed scenario's)."""
        if rl_plan(job.s, job.gpu).policy.workload.is_adapter:
            return adapters
        return job.counts.total + job.counts.vision

    def timed(self, job: Job) -> Scenario:
        return rl_plan(job.s, job.gpu).policy

    def run_seconds(self, est: Any) -> float | None:
        return float(est.rl["run_seconds"]) if est.rl else None  # rl.steps steps

    def run_seconds_of(self, s: Scenario) -> float | None:
        """The estimate's ``rl.run_seconds`` without the rest of it: a split estimate also times
        each other split of its pools (24 steps more), which a deadline's search of hundreds
        of counts does not read (a split run under a deadline it missed took 33 s of CPU)."""
        check_runs_on(s)  # as the estimate would refuse it
        rl = rl_of(s)
        return rl_plan(s, scenario_gpu(s)).step(rl.overlaps) * rl.steps

    def paced(self, s: Scenario) -> Scenario:
        """The policy's step: at a fixed count the rollout and moves hardly vary by layout."""
        return paced_policy(s)

    def context(self, job: Job) -> tuple[int, str]:
        return rl_plan(job.s, job.gpu).policy.workload.sequence_length, "sequence"
