"""Which RL role holds the bytes of each phase: the phases' memory (core/pipeline/rl_memory.py)
split by role, bytes per GPU, no new model.

The phases sum the roles' parts (:class:`RLParts`); this reads the same parts back out of each
phase: the critic's weights and optimizer states (trained in full, fp32 Adam and master weights:
HybridFlow arXiv 2409.19256 §2.1; verl ``CriticWorker``), the frozen reference and reward model's
weights where the phase holds them, and the rollout engine's memory where it is on the GPU
(rollout, the sync's woken weights, an engine that does not sleep; split placement: the rollout
pool's phases). The policy holds the rest: its training peak (weights, gradients, optimizer,
activations), a held gradient buffer, the log-prob forwards' fp32 logits and the CUDA context.
Each part is clipped to what the phase holds of its component, so the roles' bytes add up to
the phase's, component by component and in total, to the byte.
"""

from __future__ import annotations

from ..model.result import COMPONENTS, Memory
from .rl_memory import RLParts, critic_update_peaks

Parts = dict[str, int]  # bytes by component
ENGINE = "rollout"  # the engine's role, as the report's ``rl.roles`` names it


def _critic(p: RLParts, phase: str, colocated: bool, offload: bool) -> Parts:
    c = p.critic
    if c is None or (colocated and offload and phase == "rollout"):
        return {}
    if phase == "training":
        if critic_update_peaks(p) and p.critic_update is not None:
            return {k: getattr(p.critic_update, k) for k in COMPONENTS}
        if p.critic_per_call:  # its states went to host after its own update
            return {}
    # offloaded optimizer states come back for the update, after the sync
    optimizer = 0 if (phase == "weight_sync" and offload) else c.optimizer
    return {"weights": c.weights, "optimizer": optimizer}


def _frozen(p: RLParts, phase: str, colocated: bool, offload: bool) -> tuple[int, int]:
    """(reference, reward) weights resident in the phase."""
    if colocated and offload and phase == "rollout":
        return 0, 0
    ref = p.reference if (phase == "log_probs" or not p.reference_offloaded) else 0
    return ref, p.reward


def _engine(p: RLParts, phase: str, colocated: bool, awake: bool) -> Parts:
    e = p.engine
    if phase == "rollout":
        return {k: getattr(e, k) for k in COMPONENTS}
    if not colocated:  # split: the sync's side on the rollout pool is the engine's own
        return {k: getattr(e, k) for k in COMPONENTS} if phase == "weight_sync" else {}
    if phase == "weight_sync":
        return {"weights": e.weights, "kv_cache": e.kv_cache if awake else 0}
    return {"weights": e.weights, "kv_cache": e.kv_cache} if awake else {}


def _known(p: RLParts, phase: str, colocated: bool, offload: bool, awake: bool) -> dict[str, Parts]:
    split_rollout = not colocated and phase in ("rollout", "weight_sync")
    if split_rollout:
        return {ENGINE: _engine(p, phase, colocated, awake)}
    ref, reward = _frozen(p, phase, colocated, offload)
    return {
        ENGINE: _engine(p, phase, colocated, awake),
        "critic": _critic(p, phase, colocated, offload),
        "reference": {"weights": ref},
        "reward_model": {"weights": reward},
    }


def roles_of_phase(
    p: RLParts, name: str, m: Memory, colocated: bool, offload: bool, awake: bool
) -> dict[str, dict[str, int]]:
    """{role: {component: bytes, ..., "total": bytes}} of phase ``name`` (``m``: its memory),
    roles holding nothing left out; ``awake``: an engine that keeps its weights and KV pool
    beside the training side (sleep level 0, or one copy of the weights)."""
    left = {k: getattr(m, k) for k in COMPONENTS}
    out: dict[str, dict[str, int]] = {}
    for role, parts in _known(p, name, colocated, offload, awake).items():
        got = {k: min(int(parts.get(k, 0)), left[k]) for k in COMPONENTS}
        for k in COMPONENTS:
            left[k] -= got[k]
        if any(got.values()):
            out[role] = {**got, "total": sum(got.values())}
    # the policy holds the rest; its total is the phase's peak less the others' (a training
    # peak is not the sum of its parts where activations are freed before the optimizer step)
    rest = m.total - sum(r["total"] for r in out.values())
    if rest or any(left.values()):
        out = {"policy": {**left, "total": rest}, **out}
    return out


def memory_by_role(
    p: RLParts, phases: dict[str, Memory], colocated: bool, offload: bool, awake: bool
) -> dict[str, dict[str, dict[str, int]]]:
    """Each phase's :func:`roles_of_phase`."""
    return {n: roles_of_phase(p, n, m, colocated, offload, awake) for n, m in phases.items()}


def ordered(roles: dict[str, dict[str, int]]) -> list[dict[str, object]]:
    """The roles of one phase largest first: ``[{"role", "total", components...}]``."""
    rows = sorted(roles.items(), key=lambda kv: -kv[1]["total"])
    return [{"role": r, **parts} for r, parts in rows]
