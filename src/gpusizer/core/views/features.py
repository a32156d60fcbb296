"""Output tokens/s against users, with the scenario's serving features (prefix caching,
speculative decoding, LoRA slots, KV offload) and without them: what each buys, and where the
gain shrinks (speculative decoding at large batches: core/serving/speculative.py).

Each point is the scenario's own estimate at ``users`` steady users per replica (core/serving
/engine_memory.py); "without" is the same scenario with every feature block null (multi-turn
chats kept, their histories found at hit rate 0: core/serving/multi_turn.py). A scenario
without features draws one curve. With ``serving.disaggregated`` the same estimates also give the
split's output tokens/s (core/serving/disaggregated.py: the decode pool's, its users' prompts
run on the prefill pool), drawn beside the aggregated curve with both pools' GPUs named.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import ScenarioError
from ..model.specs import Scenario
from ..pipeline.estimate import estimate

FEATURES = ("prefix", "speculative", "lora", "kv_offload")  # the serving blocks the chart weighs
MAX_USERS = 1024


@dataclass(frozen=True)
class FeatureCurve:
    """Total output tokens/s at ``users[i]`` users, with and without the features (0: the
    engine does not start), and the features that are on."""

    users: tuple[int, ...]
    with_features: tuple[float, ...]
    without: tuple[float, ...]
    active: tuple[str, ...]
    concurrency: int
    split: tuple[float, ...] = ()  # the split P/D's output tokens/s at users[i] (): not set
    split_gpus: tuple[int, int] = (0, 0)  # its prefill and decode pools' GPUs


def active_features(s: Scenario) -> tuple[str, ...]:
    """The feature blocks the scenario sets."""
    return tuple(f for f in FEATURES if getattr(s.serving, f) is not None)


def user_grid(concurrency: int) -> list[int]:
    """1, 2, 4... to twice the scenario's users (at least 64, at most MAX_USERS), its own included."""
    top = min(MAX_USERS, max(64, 2 * concurrency))
    grid, u = {concurrency}, 1
    while u <= top:
        grid.add(u)
        u *= 2
    return sorted(g for g in grid if 1 <= g <= MAX_USERS)


def _served(s: Scenario, users: int) -> tuple[float, float, tuple[int, int]]:
    """(aggregated output tokens/s, the split's, its two pools' GPUs) at ``users`` steady users;
    0 where the engine does not start."""
    sv = s.serving.model_copy(update={"concurrency": users, "load": "steady"})
    try:
        sv_est = estimate(s.model_copy(update={"serving": sv})).serving
    except ScenarioError:
        return 0.0, 0.0, (0, 0)
    if sv_est is None or not sv_est.starts:
        return 0.0, 0.0, (0, 0)
    pools = (sv_est.disaggregated_prefill_gpus, sv_est.disaggregated_decode_gpus)
    return sv_est.tokens_per_second, sv_est.disaggregated_tokens_per_second, pools


def feature_curve(s: Scenario) -> FeatureCurve:
    """The curves of an inference scenario (module docstring)."""
    active = active_features(s)
    off: dict[str, object] = dict.fromkeys(FEATURES)
    chats = s.serving.prefix
    if chats is not None and chats.turns is not None:  # the same chats, each history recomputed
        off["prefix"] = chats.model_copy(update={"hit_rate": 0.0})
    plain = s.model_copy(update={"serving": s.serving.model_copy(update=off)})
    conc = max(1, s.serving.concurrency or s.workload.batch_size)
    grid = user_grid(conc)
    bare = [_served(plain, u) for u in grid]
    full = [_served(s, u) for u in grid] if active else bare
    # on only with a prefill pool (a block kept with prefill_gpus null is off); the pools as set
    # where no run started (they were drawn as "0 prefill + 0 decode GPUs")
    spec = s.serving.disaggregated
    split_on = spec is not None and spec.prefill_gpus is not None
    pools = max((p[2] for p in full), default=(0, 0))
    if split_on and spec is not None and pools == (0, 0):
        pools = (spec.prefill_gpus or 0, spec.decode_gpus or 0)
    return FeatureCurve(
        tuple(grid),
        tuple(p[0] for p in full),
        tuple(p[0] for p in bare),
        active,
        conc,
        tuple(p[1] for p in full) if split_on else (),
        pools if split_on else (0, 0),
    )
