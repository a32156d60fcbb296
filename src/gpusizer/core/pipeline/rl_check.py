"""Rules tying the scenario's ``rl`` block to the rest of the scenario (RL post-training,
``workload.kind: "rl"``); each violation names the field.

- The reference's log-probabilities enter the KL term token by token, so it must share the
  policy's tokenizer (vocabulary) and, as verl builds it from the actor's config
  (``actor_rollout_ref.ref`` reuses ``actor_rollout_ref.model.path``), its architecture.
- Split placement runs the engine on its own GPUs (OpenRLHF ``--vllm_num_engines`` x
  ``--vllm_tensor_parallel_size``): at least one engine of ``rollout.tensor`` GPUs.
- vLLM's prefill budget (``rollout.max_batched_tokens``) within what its scheduler accepts
  (:func:`check_prefill_budget`).
"""

from __future__ import annotations

from functools import cache

from pydantic import ValidationError

from ..errors import ScenarioError, excerpt
from ..model.presets import model_presets, scenario_gpu
from ..model.rl_spec import RLSpec
from ..model.specs import ModelSpec, Scenario
from ..registry.engines import release
from ..registry.frameworks import FRAMEWORKS
from ..serving.mtp import check_mtp
from ..serving.mtp_depth import check_depth
from ..serving.spec_tree import check_tree
from ..serving.speculative import settings
from .rl_engine_seqs import engine_sequences


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
    spec = ro.speculative
    if spec is not None and (spec.draft_model is not None or spec.method == "draft_model"):
        raise ScenarioError(
            "rl.rollout.speculative.draft_model"
            if spec.draft_model is not None
            else "rl.rollout.speculative.method",
            "a draft model is not offered in the rollout; use method mtp, eagle, eagle3 or ngram",
        )
    if spec is not None:  # the rollout drafts for the policy: its checkpoint's MTP layers
        table = FRAMEWORKS[ro.engine].features(ro.engine_version)
        check_mtp(s.model, spec.method, "rl.rollout.speculative.method", table, ("eagle", "eagle3", "ngram"))
        check_depth(s.model, spec, "rl.rollout.speculative.num_tokens", table)
        if spec.method is not None:  # SGLang's draft tree, as serving's (core/serving/spec_tree.py)
            check_tree(spec, settings(spec)[0], "rl.rollout.speculative", table, ro.engine_version)
    if ro.async_engine and ro.engine != "vllm":
        raise ScenarioError(
            "rl.rollout.async_engine",
            f"applies to a vLLM rollout (vLLM's AsyncLLM); rl.rollout.engine is {ro.engine!r}: set it false",
        )
    check_mini_batch(rl)
    check_prompt_cap(rl)
    check_rounds(rl)
    check_prefill_budget(rl, engine_sequences(ro, scenario_gpu(s)))


def check_mini_batch(rl: RLSpec) -> None:
    """``rl.policy.mini_batch_size`` (sequences per optimizer step) at most the step's responses,
    ``rollout.prompts_per_step x rollout.samples_per_prompt``: verl asserts
    ``data.train_batch_size >= actor.ppo_mini_batch_size`` (both in prompts;
    verl/trainer/ppo/ray_trainer.py ``_validate_config``), and a larger one read as one optimizer
    step over rows that do not exist (a pipeline's micro-batches counted from it)."""
    ro, mini = rl.rollout, rl.policy.mini_batch_size
    step = ro.prompts_per_step * ro.samples_per_prompt
    if mini is not None and mini > step:
        raise ScenarioError(
            "rl.policy.mini_batch_size",
            f"at most the step's responses ({step:,}: rollout.prompts_per_step {ro.prompts_per_step:,} x "
            f"samples_per_prompt {ro.samples_per_prompt:,}), or null for all of them; got {mini:,}",
        )


def check_prompt_cap(rl: RLSpec) -> None:
    """``rl.prompt_cap`` (verl ``data.max_prompt_length``, core/pipeline/rl_tokens.py) at least the
    mean prompt: verl's dataset truncates or refuses a longer prompt (``truncation`` "error" by
    default, ``verl/utils/torch_functional.py`` ``tokenize_and_postprocess_data``), so a mean
    above the cap is no run's."""
    if rl.prompt_cap is not None and rl.prompt_cap < rl.prompt_tokens:
        raise ScenarioError(
            "rl.prompt_cap",
            f"at least rl.prompt_tokens ({rl.prompt_tokens:,}, the mean prompt), or null for no "
            f"padding to a cap; got {rl.prompt_cap:,}",
        )


def check_rounds(rl: RLSpec) -> None:
    """``rl.rollout.generation_rounds`` (core/pipeline/rl_rounds.py) at most the step's responses
    (a generate call holds one at least), and above 1 only where the pools take turns: each round
    is followed by its scoring and training (TRL before v0.17.0), so nothing of a step overlaps,
    and colocated each round would move the engine's memory in and out (not modelled)."""
    ro = rl.rollout
    rounds, step = ro.generation_rounds, ro.prompts_per_step * ro.samples_per_prompt
    if rounds > step:
        raise ScenarioError(
            "rl.rollout.generation_rounds",
            f"at most the step's responses ({step:,}: rollout.prompts_per_step {ro.prompts_per_step:,} x "
            f"samples_per_prompt {ro.samples_per_prompt:,}); got {rounds:,}",
        )
    if rounds > 1 and (rl.placement != "split" or rl.overlaps):
        why = "overlap on" if rl.placement == "split" else "placement 'colocated'"
        raise ScenarioError(
            "rl.rollout.generation_rounds",
            f"above 1 needs rl.placement 'split' with rl.overlap false (the pools taking turns); "
            f"got {rounds:,} with {why}",
        )


def check_prefill_budget(rl: RLSpec, sequences: int | None = None) -> None:
    """``rl.rollout.max_batched_tokens`` (vLLM ``max_num_batched_tokens``) where vLLM refuses it
    at start: ``SchedulerConfig.verify_max_model_len`` (``vllm/config/scheduler.py``; V0's
    ``SchedulerConfig._verify_args`` the same) raises when the budget is below ``max_num_seqs``,
    and, with chunked prefill off, below ``max_model_len`` (a whole prompt must fit one step).
    The rollout's ``max_model_len`` is the prompt plus the longest response and its
    ``max_num_seqs`` ``sequences``: ``rl.rollout.max_sequences``, else the engine's default
    (core/pipeline/rl_engine_seqs.py; None: ``rl.rollout.max_sequences`` or verl's 1024);
    whether the release chunks is its rule (V1 always, V0 only above 32,768 tokens:
    core/registry/engines.py ``chunks_prefill``). SGLang's ``chunked_prefill_size`` has no
    such floor."""
    ro = rl.rollout
    budget = ro.max_batched_tokens
    if budget is None or ro.engine != "vllm":
        return
    try:
        rel = release(FRAMEWORKS["vllm"].releases, ro.engine_version)
    except KeyError:  # the rollout engine's own scenario names the unknown version
        return
    model_len = rl.prompt_tokens + ro.longest_tokens
    floor, why = ro.sequences, f"its max_num_seqs (rl.rollout.max_sequences, {ro.sequences:,})"
    if sequences is not None and sequences != ro.sequences:  # the async engine's own default
        floor, why = sequences, f"its max_num_seqs ({sequences:,}, the default of rl.rollout.async_engine)"
    if not rel.chunks_prefill(model_len) and model_len > floor:
        floor = model_len
        why = (
            f"max_model_len {model_len:,} (rl.prompt_tokens {rl.prompt_tokens:,} + the longest response "
            f"{ro.longest_tokens:,}) where it prefills whole prompts, as vLLM {rel.version} does "
            "at this length"
        )
    if budget < floor:
        raise ScenarioError(
            "rl.rollout.max_batched_tokens",
            f"must be at least {floor:,} tokens: vLLM refuses to start below {why}; got {budget:,}",
        )
