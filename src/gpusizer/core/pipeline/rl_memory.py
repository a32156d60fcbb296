"""Memory per phase of RL post-training (``workload.kind: "rl"``), in the component stack of
the other kinds, bytes per GPU.

A step runs four phases (HybridFlow, arXiv 2409.19256 §2.1 and §5; verl
``workers/fsdp_workers.py`` ``ActorRolloutRefWorker``):

- ``rollout``: the engine holds its weights and KV pool (vLLM ``gpu_memory_utilization`` of the
  device, SGLang ``mem_fraction_static``);
- ``log_probs``: forwards of the policy (old log-probs), the reference, the critic's values and a
  reward model over prompt + response, no saved activations: weights and the fp32 logits of one
  micro-batch (verl ``compute_log_prob``, ``logprobs_from_logits``);
- ``training``: the policy's training peak (the fine-tuning estimate on prompt + longest
  response sequences) beside the resident weights of the other roles;
- ``weight_sync``: the engine's weights woken beside the policy's (verl ``sharding_manager``
  loads the FSDP state into vLLM before the KV cache is re-allocated, vLLM sleep mode
  ``wake_up(tags=["weights"])``).

Colocated: one set of GPUs runs the phases in turn; the engine sleeps outside rollout (vLLM
``enable_sleep_mode`` level 1: weights to host, KV pool discarded; SGLang
``release_memory_occupation``), and with ``rl.offload_states`` the training states go to host
memory while the engine runs (verl ``param_offload`` / ``optimizer_offload``). An engine that
does not sleep (``rl.rollout.sleep_level`` 0: TRL v1.0.0-v1.9.0 colocate, whose
``GRPOConfig.vllm_enable_sleep_mode`` defaults to False, ``trl/generation/vllm_generation.py``
calling ``llm.sleep(level=2)`` only when it is set) keeps its weights and KV pool on the GPU
through the log-prob, training and sync phases; its profile-run activations are not held, as
TRL runs vLLM in the trainer's own process (``distributed_executor_backend=
"external_launcher"``), whose caching allocator hands the freed blocks to training. Split: the
engine's pool and the training pool are separate GPUs (OpenRLHF, arXiv 2405.11143 §3.1); a
GPU holds its own pool's phases only.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..memo import Memo
from ..model.result import COMPONENTS, Memory

FP32 = 4  # bytes per logit: log-softmax runs in fp32 (verl logprobs_from_logits)


@dataclass(frozen=True)
class RLParts:
    """What each role holds on one GPU, bytes: the policy's and critic's training peaks (None:
    no critic), the engine's memory, the reference's and reward model's weights (0: none), the
    reference kept on host between its forwards, and the fp32 logits of one forward's
    micro-batch."""

    policy: Memory
    critic: Memory | None
    engine: Memory
    reference: int
    reference_offloaded: bool
    reward: int
    logits: int
    # the policy's gradient buffer where its trainer keeps it through the step (Megatron-Core's
    # contiguous ``ParamAndGradBuffer``, zeroed in place by ``zero_grad_buffer``, never freed;
    # verl v0.5.0 ``verl/utils/megatron_utils.py`` wraps it with ``grad_reduce_in_fp32: True``):
    # 0 where the gradients are freed after each update (FSDP, DeepSpeed)
    held_gradients: int = 0
    # the critic's weights and optimizer go to host around each of its worker calls (verl's
    # critic with param_offload and optimizer_offload, read from ``rl.policy.offload_per_call``
    # under ``rl.offload_states``): absent while the actor updates (``training_side``)
    critic_per_call: bool = False
    # the critic's own update peak where it pads its rows (core/pipeline/rl_critic_padding_memory.py):
    # its saved activations over the padded rows; None where it packs them, its update then
    # under the actor's
    critic_update: Memory | None = None


def _mem(phase: str, host: int = 0, **parts: int) -> Memory:
    values = {c: int(parts.get(c, 0)) for c in COMPONENTS}
    alive = tuple(c for c in COMPONENTS if values[c])
    return Memory(
        **values, total=sum(values.values()), peak_phase=phase, alive_at_peak=alive, host_memory=host
    )


def _states(p: RLParts) -> tuple[int, int]:
    """(weights, optimizer) of the trained roles between their updates (gradients are freed)."""
    c = p.critic
    return p.policy.weights + (c.weights if c else 0), p.policy.optimizer + (c.optimizer if c else 0)


def _frozen(p: RLParts, phase_uses_reference: bool) -> int:
    """Weights of the frozen roles resident in a phase."""
    ref = p.reference if (phase_uses_reference or not p.reference_offloaded) else 0
    return ref + p.reward


def training_side(p: RLParts) -> dict[str, Memory]:
    """The phases of the training pool: log-prob forwards and the update."""
    weights, optimizer = _states(p)
    over = p.policy.overhead
    log_probs = _mem(
        "log_probs",
        weights=weights + _frozen(p, True),
        optimizer=optimizer,
        temporary=p.logits,
        overhead=over,
    )
    c = p.critic
    # The critic updates before the actor (verl ray_trainer: update_critic, then update_actor):
    # its weights and optimizer stay while the policy's training peak runs, unless its worker
    # sent them to host after its update (verl/workers/fsdp_workers.py CriticWorker.update_critic:
    # offload_fsdp_model_to_cpu / offload_fsdp_optimizer under param_offload / optimizer_offload,
    # v0.3.0.post1 lines 857-859, v0.4.0 1067-1069, v0.5.0 1259-1261; update_actor loads only the
    # actor's). Bytes: the critic's weights and optimizer, not held beside the actor's peak.
    kept = c if c and not p.critic_per_call else None
    more_w, more_o = (kept.weights if kept else 0) + _frozen(p, False), kept.optimizer if kept else 0
    training = replace(
        p.policy,
        weights=p.policy.weights + more_w,
        optimizer=p.policy.optimizer + more_o,
        total=p.policy.total + more_w + more_o,  # the policy's peak (not the sum of its parts) and more
        peak_phase="training",
    )
    critic = _critic_update(p)  # a padded critic's update can outweigh the actor's
    heavier = critic if critic and critic.total > training.total else training
    return {"log_probs": log_probs, "training": heavier}


def critic_update_peaks(p: RLParts) -> bool:
    """Whether the training phase is the padded critic's update rather than the actor's
    (:func:`training_side` keeps the heavier; read by core/pipeline/rl_role_memory.py)."""
    c = _critic_update(p)
    return c is not None and training_side(p)["training"] == c


def _critic_update(p: RLParts) -> Memory | None:
    """The critic's update beside the actor's weights and optimizer (and a held gradient
    buffer), or without them where the actor's worker sends its states to host around each
    call as the critic's does (``critic_per_call``), and the resident frozen roles; None
    without a padded critic's own peak (core/pipeline/rl_critic_padding_memory.py)."""
    c = p.critic_update
    if c is None:
        return None
    actor = (0, 0, 0) if p.critic_per_call else (p.policy.weights, p.policy.optimizer, p.held_gradients)
    w, o, g = actor[0] + _frozen(p, False), actor[1], actor[2]
    alive = tuple(k for k in COMPONENTS if k in {*c.alive_at_peak, *(("weights",) if w else ())})
    return replace(
        c,
        weights=c.weights + w,
        optimizer=c.optimizer + o,
        gradients=c.gradients + g,
        total=c.total + w + o + g,
        alive_at_peak=alive,
    )


def colocated_phases(p: RLParts, offload_states: bool, sleep_level: int = 1) -> dict[str, Memory]:
    """The four phases on one set of GPUs (the engine asleep outside rollout; its weights in
    host memory at sleep level 1, dropped at level 2). A held gradient buffer stays beside the
    engine unless the states go to host (verl ``grad_offload`` with ``param_offload``)."""
    weights, optimizer = _states(p)
    e = p.engine
    kept_w, kept_o = (0, 0) if offload_states else (weights, optimizer)
    kept_g = 0 if offload_states else p.held_gradients
    frozen = 0 if offload_states else _frozen(p, False)
    rollout = _mem(
        "rollout",
        host=weights + optimizer if offload_states else 0,
        weights=e.weights + kept_w + frozen,
        gradients=kept_g,
        optimizer=kept_o,
        activations=e.activations,
        kv_cache=e.kv_cache,
        temporary=e.temporary,
        overhead=e.overhead,
    )
    # vLLM sleep level 1 keeps the engine's weights in host memory while the training side runs
    asleep = e.weights if sleep_level == 1 else 0
    side = _awake_side(p, e) if sleep_level == 0 else _asleep_side(p, asleep)
    out = {"rollout": rollout, **side}
    if kept_g:  # the log-prob forwards run beside the held buffer too
        lp = out["log_probs"]
        alive = tuple(c for c in COMPONENTS if c in {*lp.alive_at_peak, "gradients"})
        out["log_probs"] = replace(
            lp, gradients=lp.gradients + kept_g, total=lp.total + kept_g, alive_at_peak=alive
        )
    out["weight_sync"] = _mem(
        "weight_sync",
        weights=e.weights + weights + _frozen(p, False),
        gradients=kept_g,
        optimizer=kept_o,  # offloaded states come back for the update, after the sync
        kv_cache=e.kv_cache if sleep_level == 0 else 0,  # an engine awake keeps its pool
        overhead=max(e.overhead, p.policy.overhead),
    )
    return out


def _awake_side(p: RLParts, e: Memory) -> dict[str, Memory]:
    """:func:`training_side` beside an engine that does not sleep: its weights and KV pool
    stay allocated on the GPU (module docstring)."""
    return {
        k: replace(
            v,
            weights=v.weights + e.weights,
            kv_cache=v.kv_cache + e.kv_cache,
            total=v.total + e.weights + e.kv_cache,
            alive_at_peak=tuple(c for c in COMPONENTS if c in {*v.alive_at_peak, "weights", "kv_cache"}),
        )
        for k, v in training_side(p).items()
    }


# The training side by its parts: a layout's on every GPU of a catalog search (the trained
# roles' peaks are shared among them, core/pipeline/rl_shared.py), the engine's weights aside.
_SIDES: Memo[dict[str, Memory]] = Memo(4096)


def _asleep_side(p: RLParts, asleep: int) -> dict[str, Memory]:
    """:func:`training_side` with ``asleep`` bytes of host memory (the sleeping engine's)."""
    key = (
        id(p.policy),
        id(p.critic),
        p.reference,
        p.reference_offloaded,
        p.reward,
        p.logits,
        asleep,
        p.critic_per_call,
        id(p.critic_update),
    )

    def side() -> dict[str, Memory]:
        return {k: replace(v, host_memory=asleep) for k, v in training_side(p).items()}

    return _SIDES.get(key, side, (p.policy, p.critic, p.critic_update))


def split_phases(p: RLParts) -> dict[str, Memory]:
    """The phases on two pools: rollout and the engine's side of the sync on the rollout GPUs
    (the KV pool stays allocated), log-probs and training on the training GPUs."""
    e = p.engine
    return {
        "rollout": replace(e, peak_phase="rollout"),
        **training_side(p),
        "weight_sync": replace(e, peak_phase="weight_sync"),
    }


TRAINING_POOL = ("log_probs", "training")  # split placement: the phases on the training GPUs


def allocator_counted(phases: dict[str, Memory], engine: Memory, placement: str, sleep_level: int = 1) -> int:
    """Bytes ``torch.cuda.max_memory_allocated()`` reads on a training GPU over a step (verl
    logs it as ``perf/max_memory_allocated_gb``, in GiB, after ``update_actor``:
    ``verl/workers/fsdp_workers.py``). It counts the tensors PyTorch's allocator holds, not the
    CUDA context or NCCL's buffers (each phase's ``overhead``). Colocated, the sleeping engine
    stays counted: vLLM's sleep mode allocates its weights and KV pool through a pluggable
    allocator (``vllm/device_allocator/cumem.py``, CuMemAllocator) and at sleep unmaps their
    physical memory but keeps the tensors, so PyTorch's counters still hold them (SGLang's
    ``torch_memory_saver`` likewise; vllm-project/vllm #17117: ``memory_allocated()`` unchanged
    by ``sleep()``; verl-project/verl PR #1101: sleep mode breaks PyTorch's memory statistics;
    verl's six counters read 1.13-1.73x the heaviest phase the estimate holds awake). The
    figure is then the engine's weights and KV pool on top of the heaviest training-side
    phase, and can exceed the GPU's memory: verl's log of Qwen2.5-72B LoRA reads 82.9 GiB
    reserved on an 80 GB H100 (docs/evidence/rl.md sections 5 and 8a). Split placement: the
    training pool's phases alone. An engine that does not sleep (``sleep_level`` 0) is in every
    phase already."""
    if placement != "colocated" or sleep_level == 0:
        pool = TRAINING_POOL if placement != "colocated" else tuple(phases)
        return max(phases[k].total - phases[k].overhead for k in pool)
    asleep = {"rollout": 0, "weight_sync": engine.kv_cache}  # the rest: weights and KV pool
    return max(
        m.total - m.overhead + asleep.get(name, engine.weights + engine.kv_cache)
        for name, m in phases.items()
    )


def peak(phases: dict[str, Memory]) -> Memory:
    """The phase with the largest total (the first on a tie), named in ``peak_phase``."""
    name = max(phases, key=lambda k: phases[k].total)
    return phases[name]


def layout_peak(phases: dict[str, Memory], placement: str) -> Memory:
    """The heaviest phase on the GPUs ``parallelism`` lays out: every phase colocated; split,
    the training pool's (the rollout pool holds the engine at its own memory fraction)."""
    if placement == "colocated":
        return peak(phases)
    return peak({k: v for k, v in phases.items() if k in TRAINING_POOL})
