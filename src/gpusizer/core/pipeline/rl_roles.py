"""The scenarios of RL post-training's roles (``workload.kind: "rl"``): each role is a one-role
kind's scenario built from the RL scenario, so its memory and speed are the estimator's own.

- The policy (and PPO's critic) fine-tunes on sequences of the prompt plus the longest response
  (verl ``data.max_prompt_length + data.max_response_length``), over the step's tokens.
- The rollout engine serves the policy's model with its own TP, ``max_model_len`` the same
  prompt + response (verl ``rollout.max_model_len``), all the replica's responses sent at once.

The step's responses and tokens are core/pipeline/rl_tokens.py (whose names stay importable
from here).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..errors import ScenarioError
from ..model.context_algorithm import CARRIED, rl_row_align, rl_splits_heads
from ..model.presets import scenario_gpu
from ..model.rl_spec import RLSpec, RolloutSpec
from ..model.specs import ModelSpec, Scenario
from ..registry.engines import release
from ..registry.frameworks import FRAMEWORKS
from .rl_capacity_padding import pass_share
from .rl_check import rl_of
from .rl_engine_seqs import engine_sequences
from .rl_engine_weights import engine_weights
from .rl_logprob_batch import training_micro
from .rl_one_copy import engine_fraction
from .rl_packed_attention import packed_span, spanned
from .rl_tokens import computed_tokens, longest_response, responses, row_prompt, row_response
from .rl_tokens import trained_tokens as trained_tokens  # importable from here (rl_report.py)
from .rl_unsloth_vllm import unsloth_serving
from .role_model import role_model_block
from .scenario import parse_role_dict, parse_scenario

# verl's examples' gpu_memory_utilization 0.5 beside the training states
# (examples/grpo_trainer/*.sh); its max_num_seqs default is rl_spec.VERL_MAX_SEQUENCES
COLOCATED_MEMORY_FRACTION = 0.5


def _batches(s: Scenario) -> tuple[int, int, int]:
    """(sequence length, micro-batch, optimizer-step batch) of the policy's training scenario.
    A "sequence" is a micro-batch row of prompt + longest tokens; packed, it holds several
    responses end to end (NeMo RL ``train_mb_tokens`` = max_total_sequence_length x
    train_micro_batch_size), so an optimizer step over ``mini_batch_size`` responses runs
    mini x (prompt + mean) / (prompt + longest) rows: fewer micro-batches per pipeline, the
    bubble (p - 1) / (m + p - 1) as Megatron's schedule has it (Narayanan et al. 2021
    arXiv 2104.04473 §2.2). Rows fill whole micro-batches on every data-parallel rank.
    Packed with ``micro_batch_unit`` "response" (verl: ``ppo_micro_batch_size_per_gpu``
    responses, padding removed, ``verl/workers/actor/dp_actor.py`` ``mini_batch.split``), a
    micro-batch holds that many responses at their own lengths: prompt + mean tokens each on
    average, so the row is prompt + mean. Where the RL framework's workers pad each sequence
    for context parallelism (verl's Megatron workers: ``rl_row_align``), the row is rounded up
    to that multiple."""
    rl = rl_of(s)
    align = rl_row_align(s)
    seq = -(-(row_prompt(rl) + row_response(rl)) // align) * align
    micro = training_micro(s)  # at most a rank's share of the optimizer step (rl_logprob_batch.py)
    unit = micro * s.parallelism.data
    mini = rl.policy.mini_batch_size or responses(rl)
    if rl.policy.sequence_packing:
        pad = pass_share(s, seq * micro, mini, True)  # padded rows (core/pipeline/rl_capacity_padding.py)
        mini = math.ceil(mini * (rl.prompt_tokens + rl.rollout.response_tokens) * pad / seq)
    return seq, micro, max(unit, math.ceil(mini / unit) * unit)


# A role scenario's field -> the rl field the user set it through (an error names that one)
_USER_FIELDS = {
    "workload.global_batch_size": "rl.rollout.prompts_per_step",
    "workload.training_tokens": "rl.rollout.prompts_per_step",
    "workload.batch_size": "rl.rollout.prompts_per_step",
    "workload.sequence_length": "rl.rollout.response_tokens",
    "workload.generated_tokens": "rl.rollout.response_tokens",
    "workload.prompt_tokens": "rl.prompt_tokens",
    "serving.max_context": "rl.rollout.response_tokens",
    "serving.engine_version": "rl.rollout.engine_version",
    "serving.memory_fraction": "rl.rollout.memory_fraction",
    "serving.max_sequences": "rl.rollout.max_sequences",
    "parallelism.tensor": "rl.rollout.tensor",
    "serving.cuda_graphs": "rl.rollout.cuda_graphs",
    "serving.moe_backend": "rl.rollout.moe_backend",
    "serving.prefill_chunk_tokens": "rl.rollout.max_batched_tokens",
    "precision.weights": "rl.rollout.weights",
    "serving.lora.rank": "workload.lora_rank",
    "serving.lora.targets": "workload.lora_targets",
    # the rollout's speculative decoding is rl.rollout.speculative (a method the release does
    # not run was named at serving.speculative.method, which an RL scenario has no widget for)
    "serving.speculative.method": "rl.rollout.speculative.method",
    "serving.speculative.num_tokens": "rl.rollout.speculative.num_tokens",
    "serving.speculative.acceptance_rate": "rl.rollout.speculative.acceptance_rate",
}


def parse_role(
    data: dict[str, Any], role: str, validate: Callable[[dict[str, Any]], Scenario] = parse_scenario
) -> Scenario:
    """A role's scenario (``validate``: how its dict is validated); its errors name the rl
    field behind the role's field where there is one, else the role's field with the role named."""
    try:
        return validate(data)
    except ScenarioError as err:
        if role == "critic" and err.field.startswith("parallelism."):  # the policy's layout: the
            # critic's model is the choice that breaks it (the rollout's TP was named before)
            msg = f"{err.field} {err.message} (the critic trains on the policy's layout)"
            raise ScenarioError("rl.critic.model", msg) from None
        field = _USER_FIELDS.get(err.field)
        if field is None:
            raise ScenarioError(err.field, f"{err.message} (the {role} of RL post-training)") from None
        # the release the message asks for is the rollout's own (rl.rollout.engine_version)
        message = err.message.replace(
            "set serving.engine_version", f"set {_USER_FIELDS['serving.engine_version']}"
        )
        raise ScenarioError(field, f"{message} (as the {role}'s {err.field})") from None


def _base(s: Scenario, model: ModelSpec | None) -> dict[str, Any]:
    data = s.model_dump(mode="json", exclude={"model"})  # scenario_dict but the model's block
    data["model"] = role_model_block(model or s.model)  # the validated model (role_model.py)
    data["rl"] = None
    return data


def trainer_scenario(s: Scenario, model: ModelSpec | None = None, kind: str | None = None) -> Scenario:
    """The policy's (or, with ``model`` and ``full_finetune``, the critic's) fine-tuning scenario:
    the RL scenario's layout, framework and precision on the step's sequences and tokens."""
    data = trainer_data(s, model, trainer_fields(s, kind))
    # verl's FSDP workers' Ulysses rides in the dict, which only parse_role_dict takes
    policy = parse_role(data, trainer_role(model), parse_role_dict if CARRIED in data else parse_scenario)
    return spanned(policy, packed_span(rl_of(s)))  # packed: attention per response


def trainer_role(model: ModelSpec | None) -> str:
    """The role a trainer scenario's errors name: the policy, or the critic (its own model)."""
    return "policy" if model is None else "critic"


def trainer_fields(s: Scenario, kind: str | None = None) -> dict[str, Any]:
    """What :func:`trainer_scenario` sets over the RL scenario's blocks: its workload's kind,
    sequences and tokens, and ``expert_routing`` (its parallelism's)."""
    rl = rl_of(s)
    seq, micro, mini = _batches(s)
    return {
        "kind": kind or rl.policy.kind,
        "sequence_length": seq,
        "micro_batch_size": micro,
        "global_batch_size": mini,
        "training_tokens": computed_tokens(s, training=True) * rl.policy.epochs,
        "expert_routing": rl.policy.expert_routing,
    }


def trainer_data(s: Scenario, model: ModelSpec | None, fields: dict[str, Any]) -> dict[str, Any]:
    """:func:`trainer_scenario`'s dict, before validation (``fields``: :func:`trainer_fields`)."""
    data = _base(s, model)
    if rl_splits_heads(s):  # the RL framework's context algorithm (core/model/context_algorithm.py)
        data[CARRIED] = True
    work = {k: v for k, v in fields.items() if k != "expert_routing"}
    data["parallelism"] = {**data["parallelism"], "expert_routing": fields["expert_routing"]}
    data["workload"] = {**data["workload"], **work}
    return data


def paced_policy(s: Scenario) -> Scenario:
    """:func:`trainer_scenario`'s workload on ``s`` as laid out, unchecked and without a run
    length: the layout search prices the training step of layouts it has not validated yet
    (core/sizing/pace.TrainingClock; an invalid one is refused by its memory check)."""
    rl = rl_of(s)
    seq, micro, mini = _batches(s)
    w = s.workload.model_copy(
        update={
            "kind": rl.policy.kind,
            "sequence_length": seq,
            "micro_batch_size": micro,
            "global_batch_size": mini,
            "training_tokens": None,
        }
    ).spanning(packed_span(rl))  # packed: attention per response (rl_packed_attention.py)
    p = s.parallelism.model_copy(update={"expert_routing": rl.policy.expert_routing})
    if rl_splits_heads(s):  # verl's FSDP workers: Ulysses (core/model/context_algorithm.py)
        p.splitting_heads(True)
    return s.model_copy(update={"workload": w, "parallelism": p, "rl": None})


def reference_in_policy(rl: RLSpec) -> bool:
    """The reference is the LoRA policy's own frozen base with its adapters disabled, so it
    holds no weights of its own: verl ``compute_ref_log_prob`` ("if _is_lora, actor without
    lora applied is the ref", ``verl/workers/fsdp_workers.py``: ``disable_adapter()``), as
    TRL does with a PEFT model (``trl/trainer/grpo_trainer.py``: no ``ref_model``, the reference
    log-probs under ``disable_adapter()``). Only where the reference is the policy's model."""
    return rl.has_reference and rl.policy.is_adapter and rl.reference.model is None


def role_names(rl: RLSpec) -> list[str]:
    """The roles of the RL block, as the report's ``rl.roles`` names them."""
    out = ["policy", "rollout"]
    out += ["reference"] * rl.has_reference + ["critic"] * rl.has_critic
    return [*out, "reward_model" if rl.reward.kind == "model" else "reward_rule"]


def rollout_gpus(s: Scenario) -> int:
    """GPUs the engine runs on: the shared ones, or the split placement's rollout pool."""
    rl = rl_of(s)
    return rl.rollout.gpus if rl.placement == "split" else s.parallelism.gpus


def per_replica(s: Scenario) -> int:
    """Responses one engine replica generates per step."""
    rl = rl_of(s)
    replicas = max(1, rollout_gpus(s) // rl.rollout.tensor)
    return math.ceil(responses(rl) / replicas)


def rollout_scenario(s: Scenario, batch: int) -> Scenario:
    """The engine serving the policy's model: its TP, ``batch`` requests at once."""
    rl = rl_of(s)
    ro = rl.rollout
    data = _base(s, None)
    data["framework"] = ro.engine
    data["parallelism"] = {"tensor": ro.tensor}
    if ro.tensor > s.hardware.gpus_per_node:  # an engine wider than a node (NeMo-RL: vLLM TP 32)
        data["hardware"] = {**data["hardware"], "allow_cross_node_tensor_parallel": True}
    # the weights the policy syncs, not the checkpoint's stored format (rl_engine_weights.py)
    data["precision"] = {"kv_cache": s.precision.kv_cache, "weights": engine_weights(s, rl)}
    data["workload"] = {
        "kind": "inference",
        "batch_size": batch,
        "prompt_tokens": rl.prompt_tokens,
        "generated_tokens": longest_response(rl),
    }
    data["serving"] = _rollout_serving(s, batch)
    return parse_role(data, "rollout engine", parse_role_dict)


def _rollout_serving(s: Scenario, batch: int) -> dict[str, Any]:
    """The rollout engine's ``serving`` block: its memory share, ``batch`` sequences at once in a
    burst at the rollout's longest length, its stated engine flags, drafts and LoRA slot."""
    rl = rl_of(s)
    ro = rl.rollout
    fraction = ro.memory_fraction
    if fraction is None and rl.placement == "colocated":
        fraction = engine_fraction(s, scenario_gpu(s)) or COLOCATED_MEMORY_FRACTION
    serving = {
        "engine_version": ro.engine_version,
        "memory_fraction": fraction,
        "max_sequences": engine_sequences(ro, scenario_gpu(s)),
        "max_context": rl.prompt_tokens + longest_response(rl),
        # not refused past the model's length here (core/serving/context_limit.py): whether a
        # framework passes this length to vLLM is its own (TRL passes none), and the RL block
        # has no switch to state; the estimate's note says the length exceeds the model's
        "allow_long_context": True,
        "concurrency": batch,
        "load": "burst",
        "api_server": False,
        "cuda_graphs": ro.cuda_graphs,  # verl rollout.enforce_eager: true is cuda_graphs false
        "prefill_chunk_tokens": ro.max_batched_tokens,
        "async_output": serial_output(ro),
        "moe_backend": ro.moe_backend,  # vLLM's --moe-backend (NeMo RL v0.7.0's vllm_kwargs)
    }
    # Unsloth's fast_inference sizes vLLM itself (rl_unsloth_vllm.py)
    out: dict[str, Any] = unsloth_serving(s, {k: v for k, v in serving.items() if v is not None})
    if ro.speculative is not None and ro.speculative.method is not None:  # drafts in every step
        out["speculative"] = ro.speculative.model_dump(exclude_none=True)
    if serves_adapter(rl) and ro.engine == "vllm":
        w = s.workload  # one adapter, the policy's, in vLLM's one slot (verl: max_loras 1)
        out["lora"] = {
            "adapters": 1,
            "max_loaded": 1,
            "rank": w.lora_rank,
            "targets": w.lora_targets,
        }
    return out


def serial_output(ro: RolloutSpec) -> bool | None:
    """False where the rollout engine processes each step's outputs before the next step
    (``serving.async_output`` false, core/registry/engine_releases.py ``V0_SERIAL_OUTPUT``): vLLM's
    V0 engine under ``enforce_eager`` (``rl.rollout.cuda_graphs`` false), whose platform check
    refuses the asynchronous output processor (``vllm/platforms/cuda.py``
    ``is_async_output_supported`` while V0 shipped: "Since, enforce-eager is enabled, async output
    processor cannot be used", the warning every verl GRPO-LoRA log replayed prints at start).
    None (the engine's own default) otherwise: V1 processes outputs in its own process."""
    if ro.engine != "vllm" or ro.cuda_graphs is not False:
        return None
    try:
        rel = release(FRAMEWORKS["vllm"].releases, ro.engine_version)
    except KeyError:  # an unknown version: the rollout scenario's own check names it
        return None
    return False if rel.vllm.serial_output[1] else None


def serves_adapter(rl: RLSpec) -> bool:
    """The engine decodes through the LoRA policy's adapter on its base weights: verl at June
    2025 (``verl/workers/sharding_manager/fsdp_vllm.py`` ``update_params``: once the base is
    loaded, each step hands vLLM only the adapter, ``TensorLoRARequest``, and the rollout sends
    every prompt with its ``LoRARequest``, ``vllm_rollout_spmd.py``), so every decode step runs
    vLLM's LoRA kernels (core/serving/lora_serving.py: one slot of the policy's rank on its
    targets). ``rl.rollout.serves_adapter`` false: merged weights are synced instead."""
    return rl.policy.is_adapter and rl.rollout.serves_adapter is not False
