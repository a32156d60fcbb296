"""The scenario's ``rl`` block (contract: docs/scenario-format.md "RL post-training"): the
roles of RL post-training (``workload.kind: "rl"``) and where they run.

Role models are preset ids (null: the policy's, the scenario's ``model``). Rules that tie the
block to the rest of the scenario (a reference must share the policy's vocabulary and
architecture, split placement needs rollout GPUs) live in core/pipeline/rl_roles.py. The
rollout engine's block (``rl.rollout``) is core/model/rl_rollout_spec.py."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator

from ..errors import check_id, excerpt
from ..limits import Batch, PosInt, Strict, Tokens, Whole
from ..registry.hf_layer_ops import HF_INVENTORIES
from ..registry.rl_algorithms import RL_ALGORITHMS
from ..registry.rl_frameworks import RL_FRAMEWORKS
from ..registry.stack_names import rl_algorithm_hint
from ..registry.workloads import WORKLOAD_KINDS
from .rl_eval_spec import EvalSpec
from .rl_rollout_spec import VERL_MAX_SEQUENCES, RolloutSpec, Spread

# the rollout engine's block lives in core/model/rl_rollout_spec.py; its names stay importable
# from here
__all__ = [
    "VERL_MAX_SEQUENCES",
    "CriticSpec",
    "PolicySpec",
    "PresetId",
    "RLSpec",
    "ReferenceSpec",
    "RewardSpec",
    "RolloutSpec",
    "Spread",
]

PresetId = Annotated[str, Field(min_length=1, max_length=100)]


class ReferenceSpec(Strict):
    """The frozen reference of the KL term (null ``enabled``: the algorithm's default)."""

    enabled: bool | None = None
    model: PresetId | None = None  # null: the policy's
    offload: bool = False  # kept in host memory between its forwards (verl ref param_offload)
    # with offload: copied to the GPU at every micro-batch's forward, not once a step (FSDP
    # CPUOffload, which verl forces on its reference: core/pipeline/rl_reference_copy.py)
    offload_per_forward: bool = False


class RewardSpec(Strict):
    """The reward: ``rule`` (a verifier or a function: no GPU) or a reward model's forward."""

    kind: Literal["rule", "model"] = "rule"
    model: PresetId | None = None  # null: the policy's
    # rule: CPU workers verifying the step's responses in parallel, each its share in series at
    # one Math-Verify call a response, serial with the rollout (NeMo RL env.math.num_workers);
    # null: the verification not priced (core/pipeline/rl_verify.py)
    verify_workers: Annotated[int, Whole, Field(ge=1, le=4096)] | None = None

    @model_validator(mode="before")
    @classmethod
    def _stated_model(cls, data: object) -> object:
        # a reward model named with no kind is a model reward (docs/scenario-format.md,
        # rl.reward.kind): before, the default "rule" left the named model silently unused
        if isinstance(data, dict) and data.get("model") is not None and "kind" not in data:
            return {**data, "kind": "model"}
        return data


class CriticSpec(Strict):
    """The value model of PPO-like algorithms, trained like the policy."""

    model: PresetId | None = None  # null: the policy's
    # whether the critic removes its rows' padding as a packed policy does (verl
    # critic.model.use_remove_padding); null: the RL framework's default, verl's FSDP critic
    # False at v0.3.0.post1-v0.7.0, else the policy's (core/pipeline/rl_critic_padding.py)
    remove_padding: bool | None = None


class PolicySpec(Strict):
    """How the policy trains (its layout and precision are the scenario's)."""

    kind: Literal["full_finetune", "lora"] = "full_finetune"
    epochs: Annotated[int, Whole, Field(ge=1, le=64)] = 1  # verl ppo_epochs: updates per rollout batch
    micro_batch_size: Batch | None = None  # sequences per forward (null: workload.micro_batch_size)
    # sequences per scoring forward of the policy's old log-probs and the reference's (verl
    # rollout. / ref.log_prob_micro_batch_size_per_gpu, NeMo RL logprob_batch_size, OpenRLHF
    # micro_rollout_batch_size); null: micro_batch_size (core/pipeline/rl_logprob_batch.py)
    log_prob_micro_batch_size: Batch | None = None
    # sequences per optimizer step (verl ppo_mini_batch_size x rollout.n, NeMo-RL
    # train_global_batch_size); null: every response of the step in one update
    mini_batch_size: Batch | None = None
    # responses packed end to end into micro-batches of micro_batch_size x (prompt + longest)
    # tokens (NeMo RL sequence_packing, on in its GRPO configs; verl use_remove_padding);
    # false: each response padded to prompt + longest
    sequence_packing: bool = True
    # packed, and under pipeline parallelism, every micro-batch padded to its batch's longest
    # packed row (NeMo RL's Megatron policy, tags v0.4.0-v0.7.0: core/pipeline/rl_padding.py);
    # false: each row runs its own tokens
    pad_packed_rows: bool = False
    # packed, every micro-batch's row padded to its capacity (prompt + longest) x micro-batch, as
    # NeMo RL's DTensor policy does (pack_sequences min_seq_len=train_mb_tokens): "training", its
    # update (tags v0.3.0-v0.5.0); "all", the log-prob forwards too (v0.6.0 on, the v2 worker);
    # "none": each row runs its own tokens (core/pipeline/rl_capacity_padding.py)
    pad_rows_to_capacity: Literal["none", "training", "all"] = "none"
    # MoE under EP, its training and log-prob passes (parallelism.expert_routing): the router's
    # own load, as RL runs it (NeMo RL grpo_math_1B.yaml: moe_router_load_balancing_type "none",
    # freeze_moe_router, dropless), or "balanced" as the training benchmarks force it
    expert_routing: Literal["balanced", "router"] = "router"
    # what a micro-batch counts when packed: "row", prompt + longest tokens per sequence (NeMo
    # RL train_mb_tokens = max_total_sequence_length x train_micro_batch_size); "response",
    # micro_batch_size responses at their own lengths, prompt + mean tokens each (verl
    # ppo_micro_batch_size_per_gpu with use_remove_padding)
    micro_batch_unit: Literal["row", "response"] = "row"
    # packed with micro_batch_unit "response": the data-parallel ranks' micro-batches hold about
    # the same tokens (verl use_dynamic_bsz with balance_batch, Miles --balance-data); false:
    # each rank's holds micro_batch_size whole responses as they fall and the ranks wait for the
    # longest, FSDP / ZeRO-3 at every micro-batch, others at the optimizer step
    # (core/pipeline/rl_stragglers.py). Left out under rl.framework: the release's (verl,
    # OpenRLHF and TRL false: no token-budget micro-batches by default)
    balanced_micro_batches: bool = True
    # colocated with offload_states: the weights go to the GPU and back around every worker call
    # (verl param_offload: the rollout's weight sync, each log-prob forward, the update), not once
    # a step (NeMo RL)
    offload_per_call: bool = False
    # FSDP prefetches each layer's all-gather beside the previous layer's compute; false: the
    # passes through the adapters wait for every gather (verl's LoRA actor: each adapter matrix
    # its own FSDP unit, core/pipeline/rl_gathers.py)
    prefetch_gathers: bool = True
    # Megatron's fused MoE token permutation (``moe_permute_fusion``; NeMo RL grpo_math_1B.yaml:
    # false, its DeepSeek V3 and Qwen3-235B recipes true): fewer host ops a MoE layer
    # (core/speed/train_host.py)
    moe_permute_fusion: bool = False
    # NeMo RL's log-probs and loss over FP32 logits (its Megatron policy: grpo_math_1B.yaml
    # defer_fp32_logits false, DistributedLogprob's eager log-softmax): the bytes each pass moves
    # per logit (core/pipeline/rl_logits.py); false: the training step's own loss
    fp32_logprobs: bool = False
    # Megatron's fused SwiGLU (``bias_activation_fusion``; NeMo RL v0.4.0 leaves it at
    # Megatron-Bridge's false for Qwen3 models, v0.5.0 on set it true): false, the eager ops'
    # bytes in the policy's passes (core/pipeline/rl_swiglu.py; Megatron policies only)
    bias_activation_fusion: bool = True
    # Megatron-Core's ``gradient_accumulation_fusion`` (the wgrad GEMM accumulates into the FP32
    # main_grad): false, as verl v0.5.0-v0.7.0 and NeMo RL leave it, DDP's hook adds each micro-batch's
    # 16-bit gradient into main_grad (core/pipeline/rl_grad_accumulation.py; Megatron policies only)
    gradient_accumulation_fusion: bool = True
    # the policy's own log-prob forward over the rollout before training (NeMo RL prev_logprobs,
    # verl old_log_prob); false: skipped, as NeMo RL does under loss_fn.force_on_policy_ratio with
    # one update a rollout (nemo_rl/algorithms/grpo.py at v0.7.0: "Skipping prev_logprobs"; the
    # loss takes the ratio as 1)
    old_logprobs: bool = True
    # the op inventory of a Hugging Face policy's eager layers (core/registry/hf_layer_ops.py:
    # "hf-fsdp1", verl's FSDP workers): its log-prob forwards and training (the critic's too)
    # take, layer by layer, the larger of their GPU time and the host's time to issue the layer's
    # ops (core/speed/train_host_hf.py); null: not paced. Megatron policies: their own inventory
    hf_layer_ops: Annotated[str, Field(max_length=40)] | None = None

    @field_validator("hf_layer_ops", mode="before")  # any type: the message names the ids
    @classmethod
    def _hf_layer_ops(cls, v: object) -> str | None:
        return None if v is None else check_id(v, HF_INVENTORIES, "Hugging Face layer op inventory")

    @property
    def is_adapter(self) -> bool:
        """Trains adapters on a frozen base (its workload kind's ``is_adapter``)."""
        return WORKLOAD_KINDS[self.kind].is_adapter


class RLSpec(Strict):
    """RL post-training: the algorithm, placement, run length and roles."""

    algorithm: str = "grpo"
    # the RL framework whose release defaults fill the knobs left out (core/registry/
    # rl_frameworks.py, core/pipeline/rl_framework.py); null: the knobs as set, nothing filled
    framework: str | None = None
    # the framework's release as it tags it ("0.6.0"); null: the newest modelled, a version
    # between two modelled ones the older one's
    framework_version: Annotated[str, Field(max_length=40)] | None = None
    placement: Literal["colocated", "split"] = "colocated"
    steps: PosInt = 100
    # colocated: training states (policy and critic weights, gradients, optimizer) go to host
    # memory while the engine runs (verl param_offload / optimizer_offload)
    offload_states: bool = True
    # colocated with offload_states: the host memory the optimizer states go to. "pageable": a
    # fresh unpinned tensor per state each step (NeMo RL's optimizer.state v.to("cpu") and back),
    # at pageable copy rates on a PCIe host (core/pipeline/rl_transitions.py); "pinned": the link
    offload_memory: Literal["pinned", "pageable"] = "pinned"
    # split: rollout of step n+1 overlaps training on step n (one step off-policy); null: true
    overlap: bool | None = None
    # split with overlap: the oldest policy a trained response may come from, in steps (NeMo RL
    # grpo.async_grpo.max_trajectory_age_steps); above 1 the rollout pool holds that many steps'
    # requests at once and refills each slot as a response ends (core/pipeline/rl_time.py)
    off_policy_steps: Annotated[int, Whole, Field(ge=1, le=64)] = 1
    prompt_tokens: Tokens = 512  # mean prompt length
    # the prompt cap each padded row is left-padded to (verl data.max_prompt_length): an
    # unpacked policy's or a padded critic's rows run prompt_cap + longest tokens
    # (core/pipeline/rl_tokens.py); null: the mean prompt, as before
    prompt_cap: Tokens | None = None
    # split: the sync broadcasts each exported tensor in its own NCCL call over one group of the
    # training and rollout GPUs, each engine loading it on its own (verl's fully-async and
    # one-step-off sync with the checkpoint engine off); false: the gathered model's bytes only
    # (core/pipeline/rl_split_sync.py)
    broadcast_per_tensor: bool = False
    # split: how the sync moves the weights (NeMo RL policy.generation.refit_transport). null: the
    # gathered 16-bit model through one GPU's network link (NeMo RL v0.3's group of the training
    # rank 0 and the engines); "collective": NeMo RL v0.4.0-v0.7.0's non-colocated refit, one NCCL
    # group of every training and rollout GPU, packed buckets broadcast beside the export
    # (core/pipeline/rl_split_sync.py); "stage_broadcast": Miles' / slime's
    # update_weights_from_distributed, each pipeline stage's source rank gathering its Megatron
    # tensors and broadcasting them to itself and the engines, the stages in turn
    # (core/pipeline/rl_stage_broadcast.py)
    sync_transport: Literal["collective", "stage_broadcast"] | None = None
    # Megatron under pipeline parallelism: what the refit's gather broadcasts over the pipeline
    # group from stages on other nodes, each GPU through its own network link. null: nothing
    # beyond the node-shared gather (as before); "full": each stage's TP-gathered tensors (NeMo
    # RL v0.3.x refit_utils.gather_params); "shard": each GPU's own TP / EP shard before the
    # all-gathers (Megatron-Bridge export_hf_weights, NeMo RL v0.4.0 on):
    # core/pipeline/rl_pp_gather.py
    refit_gather: Literal["full", "shard"] | None = None
    # colocated: GB/s per direction of the GPU's link to host memory (null: the GPU's PCIe or
    # NVLink-C2C, core/pipeline/rl_transitions.py)
    host_link_gb_per_s: Annotated[float, Field(gt=0.0, le=10000.0)] | None = None
    policy: PolicySpec = Field(default_factory=PolicySpec)
    reference: ReferenceSpec = Field(default_factory=ReferenceSpec)
    reward: RewardSpec = Field(default_factory=RewardSpec)
    critic: CriticSpec = Field(default_factory=CriticSpec)
    rollout: RolloutSpec = Field(default_factory=RolloutSpec)
    # the periodic evaluation inside the framework's step timer (core/model/rl_eval_spec.py);
    # null: none
    eval: EvalSpec | None = None

    @field_validator("algorithm", mode="before")  # any type: the message names the algorithms
    @classmethod
    def _algorithm(cls, v: object) -> str:
        hint = rl_algorithm_hint(v)  # GSPO, Dr. GRPO, REINFORCE++...: core/registry/stack_names.py
        if hint:
            raise ValueError(f"{hint}; got {excerpt(v)}")
        return check_id(v, RL_ALGORITHMS, "RL algorithm")

    @field_validator("framework", mode="before")
    @classmethod
    def _framework(cls, v: object) -> str | None:
        return None if v is None else check_id(v, RL_FRAMEWORKS, "RL framework")

    @property
    def has_critic(self) -> bool:
        return RL_ALGORITHMS[self.algorithm].critic

    @property
    def has_reference(self) -> bool:
        on = self.reference.enabled
        return RL_ALGORITHMS[self.algorithm].reference if on is None else on

    @property
    def overlaps(self) -> bool:
        """Rollout and training run at once (split pools, one step off-policy)."""
        return self.placement == "split" and self.overlap is not False

    @property
    def steps_in_flight(self) -> int:
        """Steps whose requests the rollout pool decodes at once: ``off_policy_steps`` where the
        pools overlap, else one."""
        return self.off_policy_steps if self.overlaps else 1
