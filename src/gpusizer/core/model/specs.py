"""The scenario: everything a user chose, as frozen pydantic models.

Field names are the public contract (``shared/docs/scenario-format.md``): add, never rename.
Validation of single fields lives here; rules that tie fields together (TP divides heads...)
live in :mod:`gpusizer.core.pipeline.validate`, so that both raise :class:`ScenarioError` naming the field.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from ..errors import check_id, excerpt
from ..limits import (
    Batch,
    Bytes,
    Degree,
    Efficiency,
    Experts,
    Heads,
    Layers,
    LinkRate,
    NonNegRate,
    PosBytes,
    PosInt,
    Rate,
    SomeExperts,
    SomeLayers,
    SomeTokens,
    Strict,
    Tokens,
    TrainingTokens,
    Vocab,
    Whole,
    Width,
)
from ..registry.bitsandbytes import check_version
from ..registry.dtypes import DTYPES, STATE_DTYPES, TRAINING_DTYPES
from ..registry.frameworks import FRAMEWORKS, FrameworkProfile
from ..registry.fused_kernels import check_kernels
from ..registry.host_cpus import HOST_CPUS
from ..registry.lightning_precision import LIGHTNING_PRECISION
from ..registry.loss_kinds import LOSS_KINDS
from ..registry.optimizers import OPTIMIZER_KINDS
from ..registry.quant_rules import QUANT_RULES, check_modules
from ..registry.recompute_modules import check_recompute_modules
from ..registry.workloads import WORKLOAD_KINDS, WorkloadKind
from .checkpoint import CheckpointPrecision
from .rl_spec import RLSpec
from .serving_spec import ServingSpec
from .specs_mixers import LinearAttentionSpec, MambaSpec, VisionSpec

Fraction = Annotated[float, Field(gt=0.0, le=1.0)]
# When a price was read: "2026-05", or "2026" where the source gives the year only
PriceDate = Annotated[str, Field(pattern=r"^\d{4}(-(0[1-9]|1[0-2]))?$")]
GPUCategory = Literal["datacenter", "workstation", "consumer", "unified_memory"]
ComputeCapability = Annotated[str, Field(pattern=r"^\d{1,2}\.\d$")]  # CUDA "major.minor", "9.0"
# The link a GPU's interconnect_gb_per_s is (a system's scale-up or scale-out link, system_spec.py)
LinkKind = Literal[
    "nvlink", "infinity_fabric", "ethernet", "infiniband", "pcie", "thunderbolt", "nvlink_c2c", "none"
]


def _check_dtype(value: str | None, allowed: tuple[str, ...] | None = None) -> str | None:
    if value is None:
        return value
    ids = allowed or tuple(DTYPES)
    if value not in ids:
        raise ValueError(f"must be one of {', '.join(ids)}; got {excerpt(value)}")
    return value


class MoESpec(Strict):
    """Mixture of experts: routed experts, shared experts and leading dense layers."""

    experts: Experts
    experts_per_token: Experts
    expert_ffn_hidden_size: Width
    shared_experts: SomeExperts = 0
    shared_expert_ffn_hidden_size: Width | None = None  # default: expert_ffn_hidden_size
    dense_layers: SomeLayers = 0  # the first N layers keep a dense MLP (DeepSeek V3: 3)
    router_bias: bool = False  # score-correction bias (DeepSeek V3): a buffer, no parameters
    shared_expert_gate: bool = False  # sigmoid gate on the shared expert (Qwen2-MoE)
    layer_step: Layers = 1  # MoE on every k-th layer after dense_layers (Llama 4 Maverick: 2)
    router_linear_bias: bool = False  # the router Linear has a learned bias (gpt-oss)

    @property
    def shared_ffn(self) -> int:
        """FFN width of the shared experts together (0 without them): the given width, else
        one expert's width per shared expert."""
        if not self.shared_experts:
            return 0
        return self.shared_expert_ffn_hidden_size or self.expert_ffn_hidden_size * self.shared_experts


class MLASpec(Strict):
    """Multi-head latent attention (DeepSeek V2/V3, arXiv 2405.04434 §2.1)."""

    q_lora_rank: Width | None = None  # None: plain q projection (DeepSeek V2 Lite)
    kv_lora_rank: Width
    qk_nope_head_dim: Width
    qk_rope_head_dim: Width
    v_head_dim: Width


class ModelSpec(Strict):
    """A transformer architecture, or a model known only by its parameter count."""

    name: str = "custom"
    preset: str | None = None  # the preset this block was expanded from, if any
    family: str = "llama"
    parameters: PosInt | None = None  # only for models known by size alone
    layers: Layers | None = None
    hidden_size: Width | None = None
    attention_heads: Heads | None = None
    kv_heads: Heads | None = None  # default: attention_heads (MHA)
    head_dim: Width | None = None  # default: hidden_size / attention_heads
    ffn_hidden_size: Width | None = None
    mlp: Literal["gated", "plain"] = "gated"
    activation: str = "silu"
    vocab_size: Vocab | None = None
    tied_embeddings: bool = False
    position_embeddings: SomeTokens = 0  # learned absolute positions (GPT-2: 1024)
    max_context: Tokens | None = None
    norm: Literal["rmsnorm", "layernorm"] = "rmsnorm"
    norms_per_layer: Annotated[int, Whole, Field(ge=0, le=8)] = 2
    final_norm: bool = True
    qk_norm: Literal["none", "head", "full"] = "none"
    qkv_bias: bool = False
    attention_output_bias: bool = False
    mlp_bias: bool = False
    lm_head_bias: bool = False
    fused_qkv: bool = False  # one query_key_value matrix (GPT-2, Falcon, Phi-3): LoRA sees one module
    fused_gate_up: bool = False  # one gate_up matrix (Phi-3)
    parallel_attention: bool = False  # attention and MLP read the same input (Falcon, GPT-J)
    dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    attention_softcap: Rate | None = None  # Gemma 2: tanh on scores
    final_logit_softcap: Rate | None = None  # Gemma 2: tanh on logits
    sliding_window: Tokens | None = None
    sliding_window_layers: SomeLayers = 0  # how many layers use the window (the rest are global)
    mla: MLASpec | None = None
    moe: MoESpec | None = None
    attention_sinks: bool = False  # one learned logit per head and layer (gpt-oss)
    attention_output_gate: bool = False  # q_proj also gives a sigmoid output gate (Qwen3-Next)
    linear_attention: LinearAttentionSpec | None = None
    mamba: MambaSpec | None = None
    mlp_layers: SomeLayers | None = None  # layers with an MLP/MoE block; None: all (Nemotron-H)
    vision: VisionSpec | None = None
    source_url: str | None = None
    # How the released checkpoint stores its weights; serving scenarios that set no
    # precision.weights follow it (core/model/checkpoint.py).
    checkpoint_precision: CheckpointPrecision | None = None


LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down", "lm_head")


class WorkloadSpec(Strict):
    """What is done with the model: train, fine-tune or serve, and at what size."""

    kind: str = "pretraining"  # an id of core/workloads.WORKLOAD_KINDS
    sequence_length: Tokens = 2048
    micro_batch_size: Batch = 1
    global_batch_size: Batch | None = None  # default: micro_batch_size x data parallel
    training_tokens: TrainingTokens | None = None
    lora_rank: Width = 16
    # a JSON list is the natural spelling of a tuple: not strict
    lora_targets: tuple[str, ...] = Field(("q", "k", "v", "o", "gate", "up", "down"), strict=False)
    # adapters on the last N decoder layers only (mlx_lm.lora --num-layers, PEFT
    # layers_to_transform of the last N); None: every layer
    lora_layers: Layers | None = None
    batch_size: Batch = 1
    prompt_tokens: Tokens = 1024
    generated_tokens: SomeTokens = 256
    # Training techniques (core/memory/loss.py, core/memory/peft.py; scenario-format.md "Training techniques")
    loss: str = "full"  # core/memory/loss.py LOSS_KINDS
    loss_chunks: Width | None = None  # null: the technique's default (chunked 8; fused: Liger)
    compile_loss: bool = False  # torch.compile of the chunked loss (torchtune compile: True)
    lora_dropout: Annotated[float, Field(ge=0.0, lt=1.0)] = 0.0
    kbit_prepare: bool = False  # PEFT prepare_model_for_kbit_training (quantised base)
    # torch.compile of the layers (torchtitan training.compile): speed, and each layer's saved
    # tensors as Inductor partitions them (core/memory/activations.py ``fused``)
    compile: bool = False
    # fused training kernels in force (core/registry/fused_kernels.py FUSED_KERNELS)
    fused_kernels: tuple[str, ...] = Field((), strict=False)

    @field_validator("lora_targets")
    @classmethod
    def _targets(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [t for t in v if t not in LORA_TARGETS]
        if bad:
            raise ValueError(f"unknown target {excerpt(bad[0])}; allowed: {', '.join(LORA_TARGETS)}")
        return tuple(dict.fromkeys(v))

    @field_validator("kind")
    @classmethod
    def _kind(cls, v: str) -> str:
        return check_id(v, WORKLOAD_KINDS, "workload kind")

    @field_validator("fused_kernels")
    @classmethod
    def _kernels(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_kernels(v)

    @field_validator("loss")
    @classmethod
    def _loss(cls, v: str) -> str:
        return check_id(v, LOSS_KINDS, "loss")

    @property
    def info(self) -> WorkloadKind:
        """The kind's registry entry (labels and properties)."""
        return WORKLOAD_KINDS[self.kind]

    @property
    def trains(self) -> bool:
        """Training applies (the kind's, core/registry/workloads.py)."""
        return WORKLOAD_KINDS[self.kind].trains

    @property
    def serves(self) -> bool:
        """Serving applies (the kind's, core/registry/workloads.py)."""
        return WORKLOAD_KINDS[self.kind].serves

    @property
    def is_adapter(self) -> bool:
        """LoRA-like: adapters are trained, the base weights frozen."""
        return WORKLOAD_KINDS[self.kind].is_adapter


class PrecisionSpec(Strict):
    """Data type of each kind of tensor (ids from :mod:`gpusizer.core.registry.dtypes`)."""

    weights: str = "bf16"
    activations: str = "bf16"
    gradients: str = "bf16"
    master_weights: str | None = "fp32"
    optimizer: str = "adamw"
    optimizer_states: str = "fp32"
    kv_cache: str = "bf16"
    adapters: str = "fp32"  # PEFT keeps LoRA weights in fp32 (autocast_adapter_dtype=True)
    # Which tensors the weight format leaves alone (core/registry/quant_rules.py; null: the format's
    # default rule) and per-group overrides {group: dtype | "weights" | "unquantised"}.
    quantization_rule: str | None = None
    modules: dict[str, str] | None = None
    # Float8 training (torchao Float8Linear, Transformer Engine): the linear layers' matmuls run
    # in FP8 with dynamic scales; saved activations and attention stay in ``activations``.
    matmuls: Literal["fp8"] | None = None
    # FSDP mixed precision (FSDP1 ``MixedPrecision``, FSDP2 ``MixedPrecisionPolicy``): the dtype
    # each gathered unit's parameters are cast to for compute, so no autocast copy of every
    # weight (null: the weights' own dtype, or autocast where the framework autocasts), and the
    # gradient reduction's dtype (null: param_dtype, as FSDP does when reduce_dtype is None)
    param_dtype: str | None = None
    reduce_dtype: str | None = None
    # Megatron / NeMo DDP ``grad_reduce_in_fp32`` (Megatron-LM's
    # --accumulate-allreduce-grads-in-fp32, forced on with --bf16): the main_grad buffer in fp32
    # (true) or in the parameters' dtype (false); null: the framework's default
    grad_reduce_in_fp32: bool | None = None
    # fp32 master weights kept as the bf16 parameter plus its low 16 bits (Transformer Engine
    # FusedAdam / Megatron-Core ``store_param_remainders``, apex DistributedFusedAdam): the
    # master copy costs 2 bytes per parameter, not 4; only over bf16 weights with fp32 masters
    master_weights_remainders: bool = False
    # bitsandbytes release of a 4-bit base (core/registry/bitsandbytes.py; null: the newest)
    bitsandbytes_version: str | None = None
    # Lightning's ``precision=`` setting (core/registry/lightning_precision.py): fills the fields
    # above that the scenario leaves out; its ``-mixed`` settings autocast fp32 weights
    lightning: str | None = None

    @field_validator("quantization_rule")
    @classmethod
    def _rule(cls, v: str | None) -> str | None:
        return v if v is None else check_id(v, QUANT_RULES, "quantisation rule")

    @field_validator("modules")
    @classmethod
    def _modules(cls, v: dict[str, str] | None) -> dict[str, str] | None:
        if v is not None:
            check_modules(v)
        return v

    @field_validator("weights", "kv_cache")
    @classmethod
    def _any(cls, v: str) -> str | None:
        return _check_dtype(v)

    @field_validator("activations", "gradients", "adapters")
    @classmethod
    def _train(cls, v: str) -> str | None:
        return _check_dtype(v, TRAINING_DTYPES)

    @field_validator("lightning")
    @classmethod
    def _lightning(cls, v: str | None) -> str | None:
        return v if v is None else check_id(v, LIGHTNING_PRECISION, "Lightning precision")

    @field_validator("bitsandbytes_version")
    @classmethod
    def _bnb(cls, v: str | None) -> str | None:
        return check_version(v)

    @field_validator("master_weights", "param_dtype", "reduce_dtype")
    @classmethod
    def _master(cls, v: str | None) -> str | None:
        return _check_dtype(v, ("fp32", "bf16", "fp16"))

    @field_validator("optimizer_states")
    @classmethod
    def _states(cls, v: str) -> str | None:
        return _check_dtype(v, STATE_DTYPES)

    @field_validator("optimizer")
    @classmethod
    def _opt(cls, v: str) -> str:
        if v not in OPTIMIZER_KINDS:  # read at validation: registered optimizers are accepted
            raise ValueError(f"must be one of {', '.join(OPTIMIZER_KINDS)}; got {excerpt(v)}")
        return v


class ParallelismSpec(Strict):
    """How the work is split across GPUs, and what is recomputed."""

    tensor: Degree = 1
    pipeline: Degree = 1
    virtual_stages: Degree = 1
    data: Degree = 1
    context: Degree = 1
    expert: Degree = 1
    # Serving: attention data-parallel ranks inside the tensor-parallel group (SGLang
    # --enable-dp-attention --dp N, TensorRT-LLM enable_attention_dp): each rank runs attention
    # at TP tensor / attention_data on its own requests; the experts span the whole group
    # (core/serving/attention_dp.py)
    attention_data: Degree = 1
    zero_stage: Annotated[int, Whole, Field(ge=0, le=3)] = 0
    sequence_parallel: bool = False
    recompute: Literal["none", "selective", "full"] = "none"
    attention: Literal["eager", "flash"] = "flash"
    offload_optimizer: bool = False
    offload_parameters: bool = False
    optimizer_in_backward: bool = False  # each tensor steps as its gradient is ready
    # FSDP1's root unit (embedding, LM head outside a transformer-layer wrap policy: accelerate,
    # HF Trainer) stays gathered from the forward through the backward
    root_unit_gathered: bool = False
    # which FSDP the ZeRO-3 path follows where the two differ: FSDP2 (fully_shard) keeps
    # per-parameter gradients, so the root unit's unsharded gradient is only the LM head's
    # until the embedding's arrives at the end of the backward
    fsdp_version: Literal[1, 2] = 1
    # Megatron-Core cpu_offloading_num_layers: that many layers of each stage keep their saved
    # activations in host RAM (null: as activation_offload says)
    offload_layers: Annotated[int, Field(ge=0, le=10**6)] | None = None
    # Megatron-LM --make-vocab-size-divisible-by (its default 128; NeMo / Megatron-Bridge
    # should_pad_vocab): the vocabulary is padded to a multiple of this x TP (null: none)
    vocab_divisible_by: Annotated[int, Field(ge=1, le=2**20)] | None = None
    activation_offload: Literal["none", "checkpoints", "all"] = "none"  # to host RAM
    # How the weights reach the GPU (core/memory/loading.py): one tensor at a time, the whole
    # 16-bit model before sharding, or FSDP's full state dict unit by unit
    model_loading: Literal["sharded", "whole_model", "full_state_dict"] = "sharded"
    # TP collectives overlapped with the matmuls (torchtitan async TP, Megatron --tp-comm-overlap)
    async_tensor_parallel: bool = False
    # Megatron-Core --recompute-modules (core/registry/recompute_modules.py RECOMPUTE_MODULES)
    recompute_modules: tuple[str, ...] = Field((), strict=False)
    # Training passes of a MoE under EP: "balanced" every EP rank gets the mean share of the
    # routed tokens (the benchmarks' forced balance); "router" the router's own, skewed load, the
    # busiest EP rank setting each MoE layer (core/speed/expert_load.py; RL's policy sets it)
    expert_routing: Literal["balanced", "router"] = "balanced"

    @field_validator("recompute_modules")
    @classmethod
    def _modules(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_recompute_modules(v)

    @property
    def gpus(self) -> int:
        return self.tensor * self.pipeline * self.data * self.context


PEAK_DTYPES = ("fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")  # GPUSpec.dense_tflops keys


class GPUSpec(Strict):
    """One accelerator. Catalog entries are files in ``gpusizer/presets/gpus/``.

    ``memory_bytes`` is the physical capacity; ``usable_memory_bytes`` what the driver exposes
    (nvidia-smi total), which is what must hold the peak. For a ``unified_memory`` device
    (Apple M-series, DGX Spark, Ryzen AI Max) ``memory_bytes`` is the system RAM and the GPU
    may use ``gpu_memory_fraction`` of it (:attr:`capacity_bytes`).
    """

    id: str = "custom-gpu"
    name: str = "Custom GPU"
    vendor: str = "custom"
    memory_gb_as_sold: NonNegRate = 80.0
    memory_bytes: Bytes = 80 * 2**30
    usable_memory_bytes: PosBytes | None = None  # 0 would hold nothing (it was ignored)
    hbm_bandwidth_gb_per_s: Rate = 3350.0
    dense_tflops: dict[str, Rate] = Field(default_factory=lambda: {"bf16": 989.0})
    interconnect_gb_per_s: LinkRate = 450.0  # per direction, per GPU
    gpus_per_node: Degree = 8
    tdp_watts: NonNegRate | None = None
    price_per_hour: NonNegRate | None = None
    source_url: str | None = None
    # Additive (buyer's catalog, docs/scenario-format.md "GPU fields"): class, memory, dated
    # prices with sources, and the share of system RAM a unified-memory GPU may use.
    category: GPUCategory | None = None
    memory_type: str | None = None
    list_price_usd: NonNegRate | None = None
    list_price_date: PriceDate | None = None
    list_price_source: str | None = None
    price_per_hour_date: PriceDate | None = None
    price_per_hour_source: str | None = None
    # One stated basis per price column, the provider named, a reason where none.
    list_price_basis: str | None = None
    list_price_null_reason: str | None = None
    # new | used (None: new); rankings count used prices only when asked (compare_rank.Money)
    list_price_condition: Literal["new", "used"] | None = None
    price_per_hour_provider: str | None = None
    price_per_hour_basis: str | None = None
    price_per_hour_null_reason: str | None = None
    price_per_hour_marketplace: NonNegRate | None = None
    price_per_hour_marketplace_provider: str | None = None
    price_per_hour_marketplace_date: PriceDate | None = None
    price_per_hour_marketplace_source: str | None = None
    interconnect_kind: LinkKind | None = None  # what interconnect_gb_per_s is
    network_gb_per_s: LinkRate | None = None  # scale-out per GPU, per direction
    unified_memory: bool = False
    gpu_memory_fraction: Fraction | None = None
    # CUDA compute capability (NVIDIA only): engines pick kernels by it (core/serving/moe_layout.py)
    compute_capability: ComputeCapability | None = None

    @field_validator("dense_tflops")
    @classmethod
    def _peaks(cls, v: dict[str, float]) -> dict[str, float]:
        """Rates of dtypes the speed model knows (core/roofline.peak_tflops), with the 16-bit
        one that every dtype without a rate of its own falls back to (``{}`` ran at 0 FLOP/s)."""
        bad = [k for k in v if k not in PEAK_DTYPES]
        if bad:
            raise ValueError(f"unknown dtype {excerpt(bad[0])}; allowed: {', '.join(PEAK_DTYPES)}")
        if not v.keys() & {"bf16", "fp16"}:
            raise ValueError(
                'needs the 16-bit rate, {"bf16": TFLOPS} or {"fp16": TFLOPS}: '
                "dtypes without a rate of their own fall back to it"
            )
        return v

    @property
    def capacity_bytes(self) -> int:
        """Bytes the peak must fit in: the driver's total, else (unified memory) the GPU's
        share of system RAM, else the memory as sold."""
        if self.usable_memory_bytes:
            return self.usable_memory_bytes
        if self.unified_memory and self.gpu_memory_fraction is not None:
            return int(self.memory_bytes * self.gpu_memory_fraction)
        return self.memory_bytes


class HardwareSpec(Strict):
    """The GPU (catalog id or inline spec) and the node shape."""

    gpu: str | GPUSpec = "h100-sxm-80gb"
    gpus_per_node: Degree = 8
    allow_cross_node_tensor_parallel: bool = False
    # Unified-memory GPUs only (null: the device's default share); see core/model/unified.py.
    gpu_memory_fraction: Fraction | None = None
    host_memory_bytes: PosInt | None = None  # system RAM of one node (null: not checked)
    # Network bandwidth per GPU and direction between nodes (null: the GPU class's reference
    # NIC, core/speed/train_rates.py); training collectives that cross nodes use it.
    network_gb_per_s: Rate | None = None
    # The host CPU the engine's Python runs on (core/registry/host_cpus.py; null: the GPU's
    # systems' host where they agree, else x86): it sets the per-op launch cost of eager steps.
    host_cpu: str | None = None

    @field_validator("host_cpu", mode="before")  # any type: the message names the ids
    @classmethod
    def _host_cpu(cls, v: object) -> str | None:
        return None if v is None else check_id(v, HOST_CPUS, "host CPU")


class OverheadSpec(Strict):
    """Memory outside tensors. ``None`` takes the framework's default (see overhead.py)."""

    cuda_context_bytes: Bytes | None = None
    workspace_bytes: Bytes | None = None
    allocator_fraction: Annotated[float, Field(ge=0.0, le=1.0)] | None = None


class ComputeSpec(Strict):
    """Efficiency factors for time estimates: explicit settings, shown to the user."""

    # Training: the share of the GPUs' peak the executed FLOPs run at; null = from the layout
    # (core/speed/train_step.py). A number overrides the step model, as before.
    mfu: Efficiency | None = None
    flops_efficiency: Efficiency = 0.7
    bandwidth_efficiency: Efficiency = 0.8
    interconnect_efficiency: Efficiency = 0.7
    # Training: the share of wall time spent on useful steps (restarts, lost work); null = from
    # the GPU count (core/speed/goodput.py, Meta's Llama 3 report)
    effective_time_share: Efficiency | None = None


class TargetsSpec(Strict):
    """Targets a deployment must meet; null = no target. Serving: ``compare_gpus`` grows the
    GPU count with replicas or wider tensor parallelism until they hold. Training:
    ``max_training_days``, data-parallel replicas and nodes grow until
    ``workload.training_tokens`` are trained in that many days (core/sizing/compare_scale.py)."""

    users: PosInt | None = None  # requests served at once, over all replicas
    min_tokens_per_second_per_user: Annotated[float, Field(gt=0)] | None = None
    max_ttft_seconds: Annotated[float, Field(gt=0)] | None = None
    max_training_days: Annotated[float, Field(gt=0, le=1e6)] | None = None
    # serving: the stated default service level (core/sizing/service_level.py) applies to the
    # speeds not set above; false clears it
    default_service_level: bool = True

    @property
    def serving_active(self) -> bool:
        """Whether a serving target is set."""
        return any(
            v is not None for v in (self.users, self.min_tokens_per_second_per_user, self.max_ttft_seconds)
        )

    @property
    def active(self) -> bool:
        """Whether any target is set (serving or training)."""
        return self.serving_active or self.max_training_days is not None

    def applies(self, training: bool) -> bool:
        """Whether a target of this kind of work is set."""
        return self.max_training_days is not None if training else self.serving_active


class Scenario(Strict):
    """One complete, validated scenario (a ``*.gpusizer.json`` file)."""

    format: Literal["gpusizer.scenario/1"] = "gpusizer.scenario/1"
    name: str = ""
    model: ModelSpec = Field(default_factory=ModelSpec)
    workload: WorkloadSpec = Field(default_factory=WorkloadSpec)
    precision: PrecisionSpec = Field(default_factory=PrecisionSpec)
    parallelism: ParallelismSpec = Field(default_factory=ParallelismSpec)
    framework: str = "huggingface"  # an id of core/frameworks.FRAMEWORKS
    hardware: HardwareSpec = Field(default_factory=HardwareSpec)
    overhead: OverheadSpec = Field(default_factory=OverheadSpec)
    compute: ComputeSpec = Field(default_factory=ComputeSpec)
    targets: TargetsSpec = Field(default_factory=TargetsSpec)  # serving
    serving: ServingSpec = Field(default_factory=ServingSpec)
    rl: RLSpec | None = None  # RL post-training's roles (workload.kind "rl"; null: the defaults)

    @field_validator("framework")
    @classmethod
    def _framework(cls, v: str) -> str:
        return check_id(v, FRAMEWORKS, "framework")

    @property
    def profile(self) -> FrameworkProfile:
        """The framework's registry entry (its memory rules)."""
        return FRAMEWORKS[self.framework]
