"""The RL plan of a validated RL scenario on its GPU (read by core/pipeline/work_rl.py): memory per
phase (core/pipeline/rl_memory.py), the rollout's decode on its engine (the serving load
simulation's step, core/serving/load.py), the training pool's passes
(core/pipeline/rl_forwards.py) and seconds per phase (core/pipeline/rl_time.py)."""

from __future__ import annotations

from dataclasses import dataclass

from ..memo import Memo
from ..model.architecture import resolve
from ..model.params import count_parameters
from ..model.presets import host_cpu
from ..model.result import EngineMemory, Memory
from ..model.specs import GPUSpec, Scenario
from ..serving.engine_memory import engine_memory
from ..serving.engine_settings import EngineSettings
from ..serving.features import with_speculative
from ..serving.load import engine_costs
from ..serving.lora_serving import with_lora
from ..speed.step import StepModel
from ..speed.step_model import step_model
from .rl_check import rl_of, role_model
from .rl_colocated import colocated_transitions, frozen_bytes, weight_sync_seconds
from .rl_critic_head import critic_states, scorer_bytes
from .rl_critic_padding_memory import padded_critic_peak
from .rl_eval import eval_seconds
from .rl_forwards import forwards
from .rl_logprob_batch import log_prob_micro
from .rl_memory import FP32, RLParts, allocator_counted, colocated_phases, split_phases
from .rl_one_copy import one_copy_parts, shared_counted, shared_phases
from .rl_preempt import Pool, RunStats, engine_pool
from .rl_roles import longest_response, reference_in_policy, rollout_gpus
from .rl_rounds import round_share, rounds_rollout
from .rl_shared import shared_rollout, shared_trainer
from .rl_time import Decode, host_seconds_per_token, prefill_seconds, step_seconds
from .rl_transitions import Transition
from .rl_verify import verify_seconds


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
    # a step's share of the periodic evaluation inside the step timer (core/pipeline/rl_eval.py);
    # 0 without rl.eval. The engine runs it after the update, beside no other phase
    evaluation: float = 0.0

    def step(self, overlaps: bool) -> float:
        """Seconds per step: the phases (as rl_time.step_seconds sets them), the moves and the
        evaluation's share."""
        return (
            step_seconds(self.seconds, overlaps) + sum(t.seconds for t in self.transitions) + self.evaluation
        )


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


def engine_refusal(s: Scenario, gpu: GPUSpec) -> str | None:
    """Why the rollout engine of a validated RL scenario would not start on its GPU (None: it
    starts), without the trainer: the engine reads none of it. The layout search asks first
    (RLWork.sizing_memory): of the 143,000 layouts x GPUs an RL compare of Qwen3 30B-A3B
    weighed, 111,000 had an engine that would not start (cProfile, 2026-12), and each built
    and validated its trainer for nothing."""
    m = _MEMORIES.peek((id(s), id(gpu)))
    return m.refusal if m is not None else _refusal(_engine(s, gpu)[1])


def _engine(s: Scenario, gpu: GPUSpec) -> tuple[Scenario, EngineMemory, EngineSettings]:
    """The rollout engine's scenario, memory and settings (each kept: rl_shared.py, the
    engine's memory per scenario and GPU)."""
    held = round_share(s) * rl_of(s).steps_in_flight  # requests a replica holds: later steps' too
    rs = shared_rollout(s, min(held, 1 << 20))
    em, st = engine_memory(rs, resolve(rs.model), count_parameters(rs.model), gpu)
    return rs, em, st


def _refusal(em: EngineMemory) -> str | None:
    return None if em.starts else (em.reason or "its KV pool does not hold one request")


def _memory_of(s: Scenario, gpu: GPUSpec) -> RLMemory:
    rl = rl_of(s)
    policy, trained = shared_trainer(s)  # shared by the GPUs of a catalog search (rl_shared.py)
    rs, em, st = _engine(s, gpu)
    parts = _parts(s, policy, em.memory, trained)
    if rl.rollout.shared_weights:  # one copy of the weights (rl_one_copy.py)
        parts = one_copy_parts(parts)
        phases = shared_phases(parts, rl.rollout.standby)
    elif rl.placement == "colocated":
        phases = colocated_phases(parts, rl.offload_states, rl.rollout.sleep_level)
    else:
        phases = split_phases(parts)
    return RLMemory(phases, policy, rs, em, st, parts, _refusal(em))


def decode(
    s: Scenario, gpu: GPUSpec, m: RLMemory | None = None
) -> tuple[Decode, Scenario, EngineMemory, StepModel, Pool | None]:
    """The rollout's decode; ``m``: the plan's memory (None: worked out anew)."""
    rl = rl_of(s)
    n = round_share(s)  # a generate call's responses on a replica: the step's, or a round's
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


def _parts(s: Scenario, policy: Scenario, engine: Memory, trained: Memory) -> RLParts:
    """What each role holds (``trained``: the policy's training peak)."""
    rl, p = rl_of(s), s.parallelism
    critic = None
    if rl.has_critic:  # the critic's own model, trained in full on the policy's layout
        model = role_model(s, "", rl.critic.model)  # with a one-output value head (rl_critic_head.py)
        critic = critic_states(shared_trainer(s, model, "full_finetune")[1], model)
    separate = rl.has_reference and not reference_in_policy(rl)
    ref = frozen_bytes(role_model(s, "", rl.reference.model), s) if separate else 0
    rm = role_model(s, "", rl.reward.model)  # a one-output scorer (rl_critic_head.py)
    reward = scorer_bytes(frozen_bytes(rm, s), rm) if rl.reward.kind == "model" else 0
    vocab = resolve(s.model).vocab
    mb = log_prob_micro(s) * policy.workload.sequence_length  # the log-prob passes' (rl_logprob_batch.py)
    return RLParts(
        trained,
        critic,
        engine,
        ref,
        rl.reference.offload,
        reward,
        int(mb * vocab * FP32 / p.tensor),
        trained.gradients if policy.profile.persistent_gradients else 0,
        # verl offloads the critic's states around its calls as the actor's (core/pipeline/rl_memory.py)
        critic is not None
        and rl.placement == "colocated"
        and rl.offload_states
        and rl.policy.offload_per_call,
        padded_critic_peak(s, critic),  # its update over padded rows (rl_critic_padding_memory.py)
    )


def rl_plan(s: Scenario, gpu: GPUSpec) -> RLPlan:
    """The phases' memory and seconds of a validated RL scenario on its GPU (kept per scenario)."""

    def compute() -> RLPlan:
        rl = rl_of(s)
        m = rl_memory(s, gpu)
        policy, parts, phases = m.policy, m.parts, m.phases
        d, rs, _, step, pool = decode(s, gpu, m)
        evaluation = eval_seconds(s, d, m.engine, step)
        fwd, train = forwards(s, policy, gpu)
        # the engine's scenario and GPU set its step: layouts of one rollout share the run
        rollout, run = rounds_rollout(s, d, step, pool, (rs.model_dump_json(), id(gpu)), (gpu,))
        seconds = {
            # the rule verifier runs inside the rollout (NeMo RL's generation timer)
            "rollout": rollout + verify_seconds(s),
            "log_probs": fwd,
            "training": train,
            "weight_sync": weight_sync_seconds(s, gpu),
        }
        replicas = max(1, rollout_gpus(s) // rl.rollout.tensor)
        moves = colocated_transitions(s, gpu, parts)
        counted = (
            shared_counted(phases, parts.engine.kv_cache, rl.rollout.standby)
            if rl.rollout.shared_weights
            else allocator_counted(phases, parts.engine, rl.placement, rl.rollout.sleep_level)
        )
        return RLPlan(
            phases, seconds, policy, rs, d.batch, replicas, m.refusal, moves, counted, run, evaluation
        )

    return _PLANS.get((id(s), id(gpu)), compute, (s, gpu))
