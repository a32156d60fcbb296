"""The report's ``rl`` block of an RL plan (core/pipeline/rl_plan.py; contract:
docs/scenario-format.md "RL post-training"): the pools, the step's phases and moves with their
shares, the run's hours and cost, and on split placement every split of the same GPUs
(core/pipeline/rl_advice.py)."""

from __future__ import annotations

from typing import Any

from ..model.specs import GPUSpec, Scenario
from .rl_advice import split_options
from .rl_check import rl_of
from .rl_framework import framework_block
from .rl_memory import peak
from .rl_plan import RLPlan, rl_memory, rl_plan
from .rl_role_memory import memory_by_role, ordered
from .rl_roles import responses, role_names, rollout_gpus, trained_tokens


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
        "phases": _phase_rows(plan, step, split, by_role := _by_role(s, gpu, plan)),
        "transitions": [{**m.as_dict(), "share": m.seconds / step if step else 0} for m in plan.transitions],
        "peak_phase": peak(plan.phases).peak_phase,
        # the peak phase's roles, largest first (core/pipeline/rl_role_memory.py)
        "peak_roles": ordered(by_role[peak(plan.phases).peak_phase]),
        "max_memory_allocated_bytes": plan.counted,
        "tokens_generated_per_second": generated / step if step else 0.0,
        "tokens_trained_per_second": trained_tokens(rl) * rl.policy.epochs / step if step else 0.0,
        "steps": rl.steps,
        "run_seconds": run,
        "gpu_hours": hours,
        "cost": hours * gpu.price_per_hour if gpu.price_per_hour is not None else None,
        **(_advice(s, gpu) if split else {}),
        # rl.eval set: a step's share of the evaluation inside the step (absent where null)
        **({"evaluation_seconds": plan.evaluation} if rl.eval and rl.eval.on else {}),
        # rl.framework set: its release and the knobs at its defaults (absent where null)
        **({"framework": fw} if (fw := framework_block(rl)) else {}),
    }


def _by_role(s: Scenario, gpu: GPUSpec, plan: RLPlan) -> dict[str, dict[str, dict[str, int]]]:
    """Each phase's memory by role (core/pipeline/rl_role_memory.py)."""
    rl = rl_of(s)
    awake = rl.rollout.sleep_level == 0 or rl.rollout.shared_weights
    colocated = rl.placement == "colocated" or rl.rollout.shared_weights
    parts = rl_memory(s, gpu).parts
    return memory_by_role(parts, plan.phases, colocated, rl.offload_states, awake)


def _phase_rows(
    plan: RLPlan, step: float, split: bool, by_role: dict[str, dict[str, dict[str, int]]]
) -> list[dict[str, Any]]:
    """The block's ``phases``: each phase's pool, seconds, share of the step, memory and the
    memory by role."""
    return [
        {
            "name": name,
            "pool": ("rollout" if name in ("rollout", "weight_sync") else "training") if split else "shared",
            "seconds": plan.seconds[name],
            "share": plan.seconds[name] / step if step else 0.0,
            "memory": mem.as_dict(),
            "host_memory_bytes": mem.host_memory,
            "memory_by_role": by_role[name],
        }
        for name, mem in plan.phases.items()
    ]


def _step_of(s: Scenario, gpu: GPUSpec) -> float:
    return rl_plan(s, gpu).step(rl_of(s).overlaps)


def _advice(s: Scenario, gpu: GPUSpec) -> dict[str, Any]:
    """Split placement: every split of the same GPUs and the fastest (core/pipeline/rl_advice.py)."""
    options = split_options(s, gpu, _step_of)
    best = min(options, key=lambda o: o["time_per_step_seconds"], default=None)
    return {"split_options": options, "best_rollout_gpus": best["rollout_gpus"] if best else None}
