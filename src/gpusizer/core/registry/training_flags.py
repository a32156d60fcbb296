"""Training stacks' own option names and kinds, as a scenario written from a trainer's config
spells them, with the one-line answer a refusal gives in place of "unknown field" or the list
of kinds: the scenario field that states the same setting, or what is not modelled and what
to state instead (docs/evidence/training.md, "Real training, fine-tuning and RL runs the
estimate refused, round 3").

Each entry is a setting the stack runs; sources, by stack (at the tags named):

- TRL (``trl/trainer/dpo_trainer.py``, ``kto_trainer.py``, ``orpo_trainer.py``,
  ``cpo_trainer.py``, v0.19-v0.24): DPO and KTO keep a reference model, created as a frozen
  copy of the policy (``create_reference_model``) unless the policy is a PEFT model (the
  reference is the base with the adapters disabled) or ``precompute_ref_log_probs`` is set;
  ORPO and CPO / SimPO (``loss_type="simpo"``) have none. DPO, ORPO and CPO run the chosen and
  rejected completions in one forward (``concatenated_forward``: the batch doubled).
  ``GRPOConfig.vllm_mode`` ``"server"`` (``trl vllm-serve`` on GPUs of its own) or
  ``"colocate"``; ``num_generations``.
- verl (``verl/trainer/config/ppo_trainer.yaml``, v0.5-v0.6): ``actor_rollout_ref.rollout.n``,
  ``.gpu_memory_utilization``, ``.tensor_model_parallel_size``, ``actor.ulysses_sequence_parallel_size``;
  ``model.lora_rank`` (LoRA policy, FSDP backend).
- Unsloth ``FastLanguageModel.from_pretrained(fast_inference=True)`` (unsloth/models/
  llama.py, 2025.x): vLLM loaded first in the trainer's process (``load_vllm``), and the HF
  model built over its tensors (unsloth_zoo/vllm_utils.py ``convert_vllm_to_huggingface``):
  one weight copy, the LoRA model's base.
- PyTorch FSDP2 ``fully_shard(mesh=2-D DeviceMesh)`` (HSDP: replicate x shard), FSDP1
  ``ShardingStrategy.HYBRID_SHARD``; torchtitan ``data_parallel_replicate_degree`` /
  ``data_parallel_shard_degree`` (torchtitan/config/job_config.py).
- torchtune ``qat_distributed`` (torchao ``Int8DynActInt4WeightQATQuantizer``: fake-quantised
  weights and activations) and ``knowledge_distillation_distributed`` (a frozen teacher's
  forward, ``ForwardKLWithChunkedOutputLoss`` over both models' logits), v0.6.
- axolotl ``sequence_parallel_degree`` (ring-flash-attn, docs/sequence_parallelism.qmd);
  Megatron-LM ``--tensor-model-parallel-size``, ``--pipeline-model-parallel-size``,
  ``--context-parallel-size``, ``--expert-model-parallel-size``,
  ``--num-layers-per-virtual-pipeline-stage``; HF ``TrainingArguments``
  ``per_device_train_batch_size``, ``gradient_accumulation_steps``, ``gradient_checkpointing``.
"""

from __future__ import annotations

from .megatron_flags import megatron_field_hint

_PAIRS = "micro_batch_size 2 x pairs (chosen + rejected in one forward, TRL concatenated_forward)"
_PREFERENCE = "state workload.preference {method: dpo, ipo, kto, orpo or simpo, reference: ...}"
_REFERENCE = (
    "TRL DPO / KTO is not a kind: "
    + _PREFERENCE
    + " with workload.kind full_finetune, lora or qlora (reference: copy, adapter_off, "
    "precomputed, none; micro_batch_size: pairs)"
)
_REFERENCE_FREE = (
    "ORPO / CPO / SimPO is not a kind: "
    + _PREFERENCE
    + " with workload.kind full_finetune, lora or qlora (no reference; micro_batch_size: pairs)"
)
_REWARD = (
    "reward-model training (TRL RewardTrainer, a one-output score head) is not a kind here: state "
    "workload.kind full_finetune or lora with " + _PAIRS + " (priced with LM-head logits: an upper bound)"
)
_SFT = "supervised fine-tuning: state workload.kind full_finetune, lora or qlora"
_RL = "state workload.kind rl with rl.algorithm (grpo, ppo, dapo, rloo, reinforce_pp)"
_KD = (
    "knowledge distillation (torchtune knowledge_distillation_*: a frozen teacher's forward and "
    "logits beside the student's) is not modelled; state the student's training (model, "
    "workload.kind) and add the teacher's 16-bit weights (an inference estimate of it gives them)"
)
_QAT = (
    "quantisation-aware training (torchtune qat_distributed, torchao fake-quantised weights and "
    "activations) is not modelled; state workload.kind full_finetune (priced without the "
    "fake-quantised copies)"
)
_HSDP = (
    "hybrid sharding (HSDP: FSDP2 fully_shard on a 2-D mesh, FSDP1 HYBRID_SHARD, torchtitan's "
    "replicate x shard degrees) is not modelled; for a GPU's "
    "memory state parallelism.data = the shard degree with zero_stage 3 (every replica holds "
    "the same), not replicas x shard (that shards over every rank and prices less)"
)
_CONTEXT = "state parallelism.context (the ranks a sequence is split over)"
_FAST_INFERENCE = (
    "Unsloth's fast_inference (vLLM in the trainer's process sharing the LoRA model's base "
    "weights): state rl.rollout.shared_weights true, rl.placement colocated"
)
_VLLM_MODE = (
    'TRL\'s vllm_mode: "server" is rl.placement split with rl.rollout.gpus (the trl vllm-serve '
    'GPUs), "colocate" is rl.placement colocated'
)

# Field path the scenario was written with -> the refusal's one line.
TRAINING_FIELDS: dict[str, str] = {
    "parallelism.data_shard": _HSDP,
    "parallelism.data_replicate": _HSDP,
    "parallelism.replicate": _HSDP,
    "parallelism.hsdp": _HSDP,
    "parallelism.data_parallel_shard_degree": _HSDP,
    "parallelism.data_parallel_replicate_degree": _HSDP,
    "parallelism.sharding_strategy": _HSDP,
    "parallelism.zeropp": (
        "DeepSpeed ZeRO++ is three settings: state parallelism.zero_hpz_partition_size, "
        "zero_quantized_weights, zero_quantized_gradients (with zero_stage 3)"
    ),
    "parallelism.sequence_parallel_degree": "axolotl's sequence_parallel_degree: " + _CONTEXT,
    "parallelism.ulysses_sequence_parallel_size": "verl's Ulysses degree: " + _CONTEXT,
    "parallelism.context_parallel_size": _CONTEXT,
    "parallelism.tensor_model_parallel_size": "state parallelism.tensor",
    "parallelism.pipeline_model_parallel_size": "state parallelism.pipeline",
    "parallelism.expert_model_parallel_size": "state parallelism.expert",
    "parallelism.virtual_pipeline_model_parallel_size": "state parallelism.virtual_stages (chunks a stage)",
    "parallelism.gradient_checkpointing": "state parallelism.recompute (none, selective, full)",
    "parallelism.activation_checkpointing": "state parallelism.recompute (none, selective, full)",
    "parallelism.zero_optimization": "state parallelism.zero_stage (0-3)",
    "workload.per_device_train_batch_size": "state workload.micro_batch_size",
    "workload.gradient_accumulation_steps": (
        "state workload.global_batch_size (micro-batch x accumulation steps x data-parallel GPUs)"
    ),
    "workload.max_seq_length": "state workload.sequence_length (tokens)",
    "workload.sequence_len": "state workload.sequence_length (tokens)",
    "workload.qat": _QAT,
    "workload.quantizer": _QAT,
    "workload.teacher": _KD,
    "workload.teacher_model": _KD,
    "workload.kd_ratio": _KD,
    "workload.distillation": _KD,
    "workload.ref_model": "state workload.preference.reference (copy, adapter_off, precomputed, none)",
    "workload.precompute_ref_log_probs": "state workload.preference.reference precomputed",
    "workload.loss_type": _PREFERENCE,
    "workload.beta": "the loss's beta does not change memory or speed; " + _PREFERENCE,
    "rl.vllm_mode": _VLLM_MODE,
    "rl.rollout.vllm_mode": _VLLM_MODE,
    "rl.use_vllm": "the rollout engine: state rl.rollout.engine (vllm or sglang)",
    "rl.num_generations": "state rl.rollout.samples_per_prompt",
    "rl.rollout.n": "verl's rollout.n: state rl.rollout.samples_per_prompt",
    "rl.rollout.num_generations": "state rl.rollout.samples_per_prompt",
    "rl.rollout.gpu_memory_utilization": "state rl.rollout.memory_fraction (0-1)",
    "rl.rollout.tensor_model_parallel_size": "state rl.rollout.tensor",
    "rl.lora_rank": "a LoRA policy: state rl.policy.kind lora with workload.lora_rank",
    "rl.policy.lora_rank": "a LoRA policy: state rl.policy.kind lora with workload.lora_rank",
    "rl.fast_inference": _FAST_INFERENCE,
    "rl.rollout.fast_inference": _FAST_INFERENCE,
}

# A stack's kind or loss name given as workload.kind or workload.loss -> the refusal's line.
TRAINING_KINDS: dict[str, str] = {
    **dict.fromkeys(("dpo", "ipo", "kto", "sigmoid", "hinge", "rpo", "bco"), _REFERENCE),
    **dict.fromkeys(("orpo", "simpo", "cpo"), _REFERENCE_FREE),
    **dict.fromkeys(("reward", "reward_modeling", "rm"), _REWARD),
    **dict.fromkeys(("sft", "finetune", "fine_tune"), _SFT),
    **dict.fromkeys(("grpo", "ppo", "rloo", "dapo", "gspo", "rlhf"), _RL),
    **dict.fromkeys(("kd", "distillation", "knowledge_distillation"), _KD),
    "qat": _QAT,
}


def training_field_hint(path: str) -> str | None:
    """The refusal's line for a training stack's own option name at ``path`` (Megatron-Core's:
    core/registry/megatron_flags.py); None: not one."""
    return TRAINING_FIELDS.get(path) or megatron_field_hint(path)


def kind_hint(value: object) -> str | None:
    """The refusal's line for a stack's own kind or loss name (``workload.kind`` /
    ``workload.loss``); None: not one."""
    return TRAINING_KINDS.get(value.lower()) if isinstance(value, str) else None
