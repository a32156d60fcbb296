"""Rules tying the scenario's ``rl`` block to the rest of the scenario (RL post-training,
``workload.kind: "rl"``); each violation names the field.

- The reference's log-probabilities enter the KL term token by token, so it must share the
  policy's tokenizer (vocabulary) and, as verl builds it from the actor's config
  (``actor_rollout_ref.ref`` reuses ``actor_rollout_ref.model.path``), its architecture.
- Split placement runs the engine on its own GPUs (OpenRLHF ``--vllm_num_engines`` x
  ``--vllm_tensor_parallel_size``): at least one engine of ``rollout.tensor`` GPUs.
"""

from __future__ import annotations

from functools import cache

from pydantic import ValidationError

from ..errors import ScenarioError, excerpt
from ..model.presets import model_presets
from ..model.rl_spec import RLSpec
from ..model.specs import ModelSpec, Scenario


@cache
def _preset_model(name: str) -> ModelSpec:
    data = {k: v for k, v in model_presets()[name].items() if k not in ("id", "aliases", "notes")}
    return ModelSpec.model_validate({**data, "preset": name})


def role_model(s: Scenario, field: str, name: str | None) -> ModelSpec:
    """The model of a role: the preset ``name`` (a ScenarioError naming ``field`` if unknown),
    or the policy's (the scenario's model) when null."""
    if name is None:
        return s.model
    if name not in model_presets():
        raise ScenarioError(field, f"unknown model preset {excerpt(name)}; run `gpusizer-cli presets`")
    try:
        return _preset_model(name)
    except ValidationError as exc:  # a preset file is ours: should not happen
        raise ScenarioError(field, str(exc).splitlines()[0]) from None


def rl_of(s: Scenario) -> RLSpec:
    """The scenario's ``rl`` block (its defaults when null)."""
    return s.rl if s.rl is not None else RLSpec()


def _same_shape(a: ModelSpec, b: ModelSpec) -> str | None:
    """What differs between two models' architecture (None: nothing the KL term cares about)."""
    for name in ("vocab_size", "family", "layers", "hidden_size", "attention_heads", "kv_heads"):
        if getattr(a, name) != getattr(b, name):
            return f"{name} {getattr(a, name)} vs the policy's {getattr(b, name)}"
    return None


def check_rl(s: Scenario) -> None:
    """The ``rl`` block of an RL scenario (nothing for other kinds)."""
    if s.workload.info.work_key != "rl":
        return
    rl = rl_of(s)
    if not s.profile.trains:
        raise ScenarioError("framework", f"{s.profile.label} does not train: the policy needs a training one")
    ref = role_model(s, "rl.reference.model", rl.reference.model)
    if rl.has_reference and (diff := _same_shape(ref, s.model)):
        raise ScenarioError(
            "rl.reference.model",
            f"{ref.name} does not match the policy {s.model.name}: {diff} (the reference must be the "
            "policy's architecture and vocabulary)",
        )
    role_model(s, "rl.reward.model", rl.reward.model)
    role_model(s, "rl.critic.model", rl.critic.model)
    ro = rl.rollout
    if rl.placement == "split" and ro.gpus < ro.tensor:
        raise ScenarioError(
            "rl.rollout.gpus",
            f"split placement needs at least one engine of rollout.tensor ({ro.tensor}) GPUs; got {ro.gpus}",
        )
    if rl.placement == "split" and ro.gpus % ro.tensor:
        raise ScenarioError(
            "rl.rollout.gpus", f"must be a multiple of rollout.tensor ({ro.tensor}); got {ro.gpus}"
        )
    if rl.placement == "colocated" and s.parallelism.gpus % ro.tensor:
        raise ScenarioError(
            "rl.rollout.tensor",
            f"must divide the GPUs the roles share ({s.parallelism.gpus}) when colocated; got {ro.tensor}",
        )
