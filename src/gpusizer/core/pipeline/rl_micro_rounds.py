"""Generation once per gradient-accumulation micro-step: the rounds a framework release that
generates so (RLRelease ``rounds_per_micro_step``, TRL before v0.17.0) gives
``rl.rollout.generation_rounds`` where the scenario leaves it out.

TRL's ``GRPOTrainer`` at tags v0.14.0-v0.16.0 generates inside ``_prepare_inputs``, which the
``Trainer`` calls once per micro-step (``trl/trainer/grpo_trainer.py``): each call covers the
micro-step's ``per_device_train_batch_size`` completions on every training process, so an
optimizer step over the step's responses is ``responses / (micro-batch x data-parallel
ranks)`` calls, its ``gradient_accumulation_steps`` (open-r1 #251: 112 / (2 x 7) = 8). PR #3283
(first in v0.17.0) buffers one generation for the step: one round. The rounds are priced by
core/pipeline/rl_rounds.py. Filled before validation, as the release's fixed defaults are
(core/pipeline/rl_framework.py ``fill_rl_framework``): a value the scenario states wins, and a
batch field that is not a whole number is left for validation to name.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..model.rl_spec import RLSpec
from ..model.workload_spec import ParallelismSpec, WorkloadSpec
from ..registry.rl_framework_releases import RLRelease

_RL = RLSpec()


def _whole(block: object, key: str, default: int) -> int | None:
    """``block[key]`` when a positive whole number, ``default`` when absent; None otherwise."""
    value = block.get(key, default) if isinstance(block, dict) else default
    if value is None:
        return default
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def micro_step_rounds(data: dict[str, Any], rl: dict[str, Any]) -> int | None:
    """The micro-steps of an optimizer step: ceil(responses / (micro-batch x data ranks)),
    at most the responses; None where a batch field is not a positive whole number. ``rl`` is
    the filled ``rl`` block (the release's ``samples_per_prompt`` in it), ``data`` the scenario."""
    rollout, policy = rl.get("rollout"), rl.get("policy")
    prompts = _whole(rollout, "prompts_per_step", _RL.rollout.prompts_per_step)
    samples = _whole(rollout, "samples_per_prompt", _RL.rollout.samples_per_prompt)
    micro = _whole(data.get("workload"), "micro_batch_size", WorkloadSpec().micro_batch_size)
    micro = _whole(policy, "micro_batch_size", micro) if micro is not None else None
    ranks = _whole(data.get("parallelism"), "data", ParallelismSpec().data)
    if prompts is None or samples is None or micro is None or ranks is None:
        return None
    return min(prompts * samples, math.ceil(prompts * samples / (micro * ranks)))


def fill_micro_rounds(data: dict[str, Any], rl: dict[str, Any]) -> None:
    """Set ``rl['rollout']['generation_rounds']`` (in place) to the micro-steps where the
    scenario leaves it out and the batch reads; ``rl`` is the filled copy. Only on TRL's own
    layout (split pools taking turns): a colocated or overlapping run stated by the user is not
    how these releases generate, and rounds there are refused (core/pipeline/rl_check.py)."""
    rollout = rl.setdefault("rollout", {})
    if not isinstance(rollout, dict) or "generation_rounds" in rollout:
        return
    if rl.get("placement") != "split" or rl.get("overlap") is not False:
        return
    rounds = micro_step_rounds(data, rl)
    if rounds is not None:
        rollout["generation_rounds"] = rounds


def _derived(rel: RLRelease | None, read: Callable[[str], object], edits: dict[str, object]) -> int:
    """The rounds ``rel`` gives on the window's values (``edits`` over ``read``): its
    micro-steps on TRL's layout (split, the pools in turn) where it generates per micro-step,
    else 1 (the field's default)."""

    def now(path: str) -> object:
        return edits[path] if path in edits else read(path)

    if (
        rel is None
        or not rel.rounds_per_micro_step
        or (now("rl.placement"), now("rl.overlap")) != ("split", False)
    ):
        return 1
    data = {
        "workload": {"micro_batch_size": now("workload.micro_batch_size")},
        "parallelism": {"data": now("parallelism.data")},
    }
    rollout = {k: now(f"rl.rollout.{k}") for k in ("prompts_per_step", "samples_per_prompt")}
    rl = {"rollout": rollout, "policy": {"micro_batch_size": now("rl.policy.micro_batch_size")}}
    return micro_step_rounds(data, rl) or 1


def switch_rounds(
    read: Callable[[str], object], old: RLRelease | None, new: RLRelease | None, edits: dict[str, object]
) -> dict[str, object]:
    """The window's switch of framework or release (core/pipeline/rl_framework.py
    ``switch_edits``, whose ``edits`` come first): ``rl.rollout.generation_rounds`` follows
    the new release's derived rounds where it holds the old one's (it came with the framework),
    and stays where the user set it otherwise. Nothing where neither release derives rounds."""
    if not any(r is not None and r.rounds_per_micro_step for r in (old, new)):
        return {}
    path = "rl.rollout.generation_rounds"
    if read(path) != _derived(old, read, {}):
        return {}
    return {path: _derived(new, read, edits)}
