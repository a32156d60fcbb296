"""Fine-tuning and RL stacks' own option names, round 4 (docs/evidence/serving.md, "Real
deployments and RL runs as published, round 4"): the names an axolotl, LLaMA-Factory,
torchtune or Hugging Face config and a verl, OpenRLHF, TRL or NeMo RL launch script carry, each
with the one-line answer a refusal gives in place of "unknown field" or a list of ids (the field
that states it, or what is not modelled and what to state instead).
core/registry/training_flags.py holds round 3's; core/registry/engine_flags.py consults both.

Sources, by stack:

- axolotl ``src/axolotl/utils/schemas/config.py`` (0.10-0.12): ``adapter`` (lora, qlora),
  ``lora_r``, ``lora_alpha``, ``lora_target_linear``, ``load_in_4bit`` / ``load_in_8bit``,
  ``sample_packing``, ``sequence_len``, ``num_epochs``, ``learning_rate``, ``optimizer``.
- LLaMA-Factory ``src/llamafactory/hparams/finetuning_args.py`` / ``model_args.py``:
  ``finetuning_type`` (lora, full, freeze), ``lora_target``, ``quantization_bit``,
  ``cutoff_len``, ``packing``; ``use_dora`` (PEFT ``LoraConfig(use_dora=True)``: a magnitude
  vector and a weight-norm pass a layer, not priced here).
- LLaMA-Factory ``stage`` (``pt``, ``sft``, ``rm``, ``ppo``, ``dpo``, ``kto``).
- torchtune recipes' YAML (v0.6): ``enable_activation_checkpointing``,
  ``enable_activation_offloading``, ``max_seq_len``, ``batch_size``.
- Hugging Face ``TrainingArguments.optim`` (``adamw_torch``, ``adamw_torch_fused``,
  ``adamw_bnb_8bit``, ``paged_adamw_32bit``...): the same optimizer states as the ids here.
- verl ``verl/trainer/config/ppo_trainer.yaml`` (v0.5-v0.7): ``data.train_batch_size`` (prompts
  a step), ``actor.ppo_mini_batch_size`` (prompts, times ``rollout.n``), ``rollout.name``,
  ``actor.fsdp_config.param_offload`` / ``optimizer_offload``, ``rollout.free_cache_engine``,
  ``rollout.enforce_eager``, ``rollout.mode`` (``async``: vLLM's AsyncLLM), ``use_dynamic_bsz``,
  ``actor.policy_loss.loss_mode`` (``gspo``...), ``algorithm.kl_ctrl.kl_coef``, ``use_kl_loss``.
- OpenRLHF ``openrlhf/cli/train_ppo_ray.py``: ``--vllm_num_engines``,
  ``--vllm_tensor_parallel_size``, ``--colocate_all_models``, ``--vllm_enable_sleep``,
  ``--n_samples_per_prompt``, ``--rollout_batch_size``, ``--advantage_estimator``
  (``reinforce`` is REINFORCE++).
- TRL ``GRPOConfig``: ``max_completion_length``, ``max_prompt_length``,
  ``vllm_gpu_memory_utilization``, ``beta`` (0: no reference model loaded), ``loss_type``
  (``dr_grpo``...). GSPO (Zheng et al. 2025, arXiv 2507.18071), Dr. GRPO (Liu et al. 2025,
  arXiv 2503.20783) and CISPO (MiniMax-M1, arXiv 2506.13585) change the loss only: the passes
  and memory are GRPO's.
- NeMo RL ``examples/configs/grpo_math_1B.yaml``: ``grpo.num_prompts_per_step``,
  ``grpo.num_generations_per_prompt``, ``policy.max_total_sequence_length``.
"""

from __future__ import annotations

from ..errors import excerpt
from .rl_algorithms import RL_ALGORITHMS

_RANK = "state workload.lora_rank"
_KIND = "state workload.kind lora or qlora (full: full_finetune)"
_QLORA = "a 4-bit base: state workload.kind qlora (precision.weights nf4)"
_SEQ = "state workload.sequence_length (tokens)"
_NOT_A_FIGURE = "no memory or speed figure depends on it; leave it out"
_TARGETS = "state workload.lora_targets (q, k, v, o, gate, up, down, lm_head)"
_PACKING = (
    "packed rows are what workload.sequence_length x micro_batch_size prices; state "
    "workload.sequence_length (the packed row)"
)
_RECOMPUTE = "state parallelism.recompute (none, selective, full)"
_PROMPTS = "state rl.rollout.prompts_per_step"
_SAMPLES = "state rl.rollout.samples_per_prompt"
_KL = "a KL term runs the reference: state rl.reference.enabled (true, false)"
_LOSS = "the loss changes no pass or memory: state rl.algorithm (grpo, ppo, dapo, rloo, reinforce_pp)"
_ROLLOUT_GPUS = (
    "state rl.rollout.gpus (engines x their TP) with rl.placement split, or rl.placement "
    "colocated with rl.rollout.tensor"
)
_LENGTHS = (
    "state rl.prompt_tokens and rl.rollout.response_tokens (means), the longest by rl.rollout.response_spread"
)
STACK_FIELDS: dict[str, str] = {
    "workload.stage": (
        "LLaMA-Factory's stage: state workload.kind (pt: pretraining; sft: full_finetune, lora "
        "or qlora; dpo / kto: with workload.preference; ppo: rl)"
    ),
    "workload.adapter": _KIND,
    "workload.finetuning_type": _KIND,
    "workload.lora_r": _RANK,
    "workload.lora_alpha": _NOT_A_FIGURE,
    "workload.load_in_4bit": _QLORA,
    "workload.quantization_bit": _QLORA + "; 8-bit: precision.weights int8",
    "workload.load_in_8bit": "an 8-bit base: state workload.kind qlora with precision.weights int8",
    "workload.lora_target_linear": _TARGETS,
    "workload.lora_target": _TARGETS,
    "workload.lora_target_modules": _TARGETS,
    "workload.sample_packing": _PACKING,
    "workload.packing": _PACKING,
    "workload.cutoff_len": _SEQ,
    "workload.max_seq_len": _SEQ,
    "workload.num_epochs": "state workload.training_tokens (tokens of the run: epochs x the set's)",
    "workload.learning_rate": _NOT_A_FIGURE,
    "workload.neftune_noise_alpha": _NOT_A_FIGURE,
    "workload.bf16": "state precision.weights and precision.activations (bf16, fp16)",
    "workload.optimizer": "state precision.optimizer (adamw, adamw_8bit, paged_adamw_8bit, lion...)",
    "workload.use_dora": (
        "DoRA (a magnitude vector and a weight-norm pass a layer) is not modelled; state "
        "workload.kind lora (priced without them)"
    ),
    "parallelism.enable_activation_checkpointing": _RECOMPUTE,
    "parallelism.enable_activation_offloading": (
        "state parallelism.activation_offload (none, checkpoints, all)"
    ),
    "parallelism.cpu_offload": (
        "state parallelism.offload_parameters and offload_optimizer (FSDP's CPU offload: both)"
    ),
    "parallelism.fsdp": (
        "state framework fsdp with parallelism.zero_stage 3 (full_shard) or 2 (shard_grad_op)"
    ),
    "parallelism.deepspeed": "state framework deepspeed with parallelism.zero_stage (0-3)",
    "parallelism.context_parallel_degree": "state parallelism.context",
    "rl.train_batch_size": "verl's data.train_batch_size: " + _PROMPTS,
    "rl.rollout_batch_size": _PROMPTS,
    "rl.num_prompts_per_step": _PROMPTS,
    "rl.n_samples_per_prompt": _SAMPLES,
    "rl.num_generations_per_prompt": _SAMPLES,
    "rl.ppo_mini_batch_size": "state rl.policy.mini_batch_size (sequences: verl's prompts x rollout.n)",
    "rl.rollout.name": "state rl.rollout.engine (vllm, sglang)",
    "rl.rollout.log_prob_micro_batch_size_per_gpu": "state rl.policy.micro_batch_size",
    "rl.policy.param_offload": "verl's param_offload: state rl.policy.offload_per_call true",
    "rl.policy.optimizer_offload": (
        "state rl.offload_states (training states in host memory outside training)"
    ),
    "rl.vllm_num_engines": _ROLLOUT_GPUS,
    "rl.vllm_tensor_parallel_size": "state rl.rollout.tensor",
    "rl.colocate_all_models": "state rl.placement colocated",
    "rl.deepspeed_enable_sleep": (
        "state rl.offload_states true (training states in host memory while the engine runs)"
    ),
    "rl.vllm_enable_sleep": "state rl.rollout.sleep_level (1, 2; 0: no sleep)",
    "rl.rollout.free_cache_engine": "state rl.rollout.sleep_level (1, 2; 0: the engine keeps its memory)",
    "rl.max_total_sequence_length": _LENGTHS,
    "rl.max_completion_length": _LENGTHS,
    "rl.max_prompt_length": _LENGTHS,
    "rl.rollout.response_length": _LENGTHS,
    "rl.rollout.prompt_length": _LENGTHS,
    "rl.vllm_gpu_memory_utilization": "state rl.rollout.memory_fraction (0-1)",
    "rl.beta": _KL,
    "rl.kl_coef": _KL,
    "rl.use_kl_loss": _KL,
    "rl.rollout.max_num_batched_tokens": "state rl.rollout.max_batched_tokens (tokens)",
    "rl.rollout.enforce_eager": "state rl.rollout.cuda_graphs false",
    "rl.rollout.mode": "verl's async rollout (vLLM's AsyncLLM): state rl.rollout.async_engine true",
    "rl.rollout.speculative_config": "state rl.rollout.speculative {method, num_tokens, acceptance_rate}",
    "rl.policy.use_dynamic_bsz": (
        "micro-batches by a token budget are not modelled; state rl.policy.micro_batch_size "
        "with rl.policy.micro_batch_unit, and rl.policy.balanced_micro_batches true"
    ),
    "rl.policy.ulysses_sequence_parallel_size": "state parallelism.context (the training pool's)",
    "rl.loss_type": _LOSS,
    "rl.loss_mode": _LOSS,
    "rl.advantage_estimator": _LOSS,
}

# An RL algorithm's name the registry does not hold -> the refusal's line
RL_ALGORITHM_NAMES: dict[str, str] = {
    "gspo": "GSPO changes the loss only: state grpo",
    "dr_grpo": "Dr. GRPO changes the loss only: state grpo",
    "drgrpo": "Dr. GRPO changes the loss only: state grpo",
    "cispo": "CISPO changes the loss only: state grpo",
    "reinforce++": "state reinforce_pp",
    "reinforce_plus_plus": "state reinforce_pp",
    "reinforce": "OpenRLHF's reinforce is REINFORCE++: state reinforce_pp",
    "remax": (
        "ReMax's greedy baseline (one more response a prompt) is not modelled; state grpo with "
        "rl.rollout.samples_per_prompt one more"
    ),
    "gpg": "GPG (no critic, no reference): state grpo with rl.reference.enabled false",
}

# An RL framework's name rl.framework does not hold -> the refusal's line
RL_FRAMEWORK_NAMES: dict[str, str] = {
    "nemo-rl": "state nemo_rl",
    "nemorl": "state nemo_rl",
    "open-rlhf": "state openrlhf",
    **{
        name: f"{name}'s release defaults are not modelled: leave rl.framework null and state its knobs"
        for name in ("slime", "miles", "areal", "skyrl", "prime-rl", "roll")
    },
}


def stack_field_hint(path: str) -> str | None:
    """The refusal's line for a fine-tuning or RL stack's own option name at ``path``; None:
    not one."""
    return STACK_FIELDS.get(path)


def rl_algorithm_hint(value: object) -> str | None:
    """The refusal's line for an algorithm's name ``rl.algorithm`` does not hold; None: not one
    (or a registered id)."""
    if not isinstance(value, str) or value in RL_ALGORITHMS:
        return None
    return RL_ALGORITHM_NAMES.get(value.lower())


def rl_framework_hint(value: object) -> str | None:
    """The refusal's line for an RL framework's name ``rl.framework`` does not hold (its other
    spelling, or one whose defaults are not modelled); None: not one (a registered id in
    another case is answered by core/pipeline/rl_framework.py's did-you-mean)."""
    return RL_FRAMEWORK_NAMES.get(value.lower()) if isinstance(value, str) else None


def rollout_engine(value: object) -> object:
    """``rl.rollout.engine`` as read: ``vLLM`` / ``SGLang`` in any case become the engine's id;
    another serving engine raises ValueError with its line; anything else goes to the schema."""
    if not isinstance(value, str):
        return value
    low = value.lower()
    if low in ("vllm", "sglang"):
        return low
    if low in ("trtllm", "tensorrt-llm", "tensorrt_llm", "hf", "huggingface"):
        raise ValueError(f"the rollout engines modelled are vllm and sglang; got {excerpt(value)}")
    return value


# Hugging Face TrainingArguments.optim names -> the optimizer id with the same states
_HF_OPTIM = {
    "adamw_torch": "adamw",
    "adamw_torch_fused": "adamw",
    "adamw_hf": "adamw",
    "adamw_apex_fused": "adamw",
    "adamw_bnb_8bit": "adamw_8bit",
    "paged_adamw_32bit": "paged_adamw",
    "paged_adamw_bnb_8bit": "paged_adamw_8bit",
}


def optimizer_hint(value: object) -> str | None:
    """The refusal's line for a Hugging Face ``optim`` name ``precision.optimizer`` does not
    hold; None: not one."""
    same = _HF_OPTIM.get(value) if isinstance(value, str) else None
    return f"state {same} (the same states)" if same else None
