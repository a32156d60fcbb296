"""What is done with the model and how it is split: the scenario's ``workload`` block
(:class:`WorkloadSpec`: the kind of work, its sizes and training techniques) and its
``parallelism`` block (:class:`ParallelismSpec`: TP, PP, DP, CP, EP, ZeRO, recompute, offload).

Field names are the public contract (docs/scenario-format.md); ids are checked against their
registries (core/registry/workloads.py, loss_kinds.py, fused_kernels.py, expert_kernels.py,
recompute_modules.py) so a bad one names the allowed values. Sizes are tokens and sequences.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import (
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from ..errors import check_id, excerpt
from ..limits import Batch, Degree, Layers, SomeTokens, Strict, Tokens, TrainingTokens, Whole, Width
from ..registry.expert_kernels import check_expert_kernel
from ..registry.fused_kernels import check_kernels
from ..registry.loss_kinds import LOSS_KINDS
from ..registry.mlx_releases import check_mlx_version
from ..registry.preference import Reference
from ..registry.recompute_modules import check_recompute_modules
from ..registry.training_flags import kind_hint
from ..registry.workloads import WORKLOAD_KINDS, WorkloadKind
from .preference_spec import PreferenceSpec, forward_share, reference_of

LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down", "lm_head")


def _with_hint(value: object, registry: Mapping[str, object], what: str) -> str:
    """``check_id``, but a training stack's own kind or loss name (TRL's ``dpo``, ``orpo``...)
    is answered with what states it (core/registry/training_flags.py)."""
    hint = None if isinstance(value, str) and value in registry else kind_hint(value)
    if hint:
        raise ValueError(f"{hint}; got {excerpt(value)}")
    return check_id(value, registry, what)


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
    # tensors as Inductor partitions them (core/memory/activations_parts.py ``fused``)
    compile: bool = False
    # fused training kernels in force (core/registry/fused_kernels.py FUSED_KERNELS)
    fused_kernels: tuple[str, ...] = Field((), strict=False)
    # how the routed experts run (core/registry/expert_kernels.py EXPERT_KERNELS): what a
    # per-expert loop keeps beyond a grouped GEMM (core/memory/expert_loop.py)
    expert_kernel: str = "grouped"
    # a preference fine-tune (DPO, KTO, ORPO, SimPO; core/model/preference_spec.py): null, a
    # plain fine-tune; left out of the echo when null (scenarios without it read as before)
    preference: PreferenceSpec | None = None
    # the MLX core release a framework "mlx" run trains on (core/registry/mlx_releases.py):
    # from 0.25.0 its attention runs unfused under a gradient trace; null: 0.24.0's rule, and
    # left out of the echo (scenarios without it read as before)
    mlx_version: str | None = None
    # not a field: the tokens each causal attention spans where a row packs several sequences
    # masked apart (RL's packed responses, core/pipeline/rl_packed_attention.py); None: the
    # row's own ``sequence_length``
    _attention_span: float | None = PrivateAttr(default=None)
    # not a field: the batch counts the policy's rows, not a preference fine-tune's examples
    # (core/memory/preference.py ``rows_view``)
    _rows: bool = PrivateAttr(default=False)

    @property
    def rows_view(self) -> bool:
        """The batch counts the policy's rows (a preference fine-tune's step as priced)."""
        return self._rows

    def as_rows(self) -> WorkloadSpec:
        """This workload, its batch read as rows; set once, on a workload just copied."""
        self._rows = True
        return self

    @property
    def attention_span(self) -> float:
        """Tokens one causal attention spans (the mean context of its queries follows from it,
        core/model/flops.py): ``sequence_length`` unless :meth:`spanning` set it."""
        return self.sequence_length if self._attention_span is None else self._attention_span

    def spanning(self, span: float | None) -> WorkloadSpec:
        """This workload with each row's attention over sequences of ``span`` tokens (None: the
        row's own); set once, on a workload just built (it is not a field: no echo changes)."""
        self._attention_span = span
        return self

    @field_validator("lora_targets")
    @classmethod
    def _targets(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [t for t in v if t not in LORA_TARGETS]
        if bad:
            raise ValueError(f"unknown target {excerpt(bad[0])}; allowed: {', '.join(LORA_TARGETS)}")
        return tuple(dict.fromkeys(v))

    @field_validator("kind", mode="before")  # any type: the message names the kinds
    @classmethod
    def _kind(cls, v: object) -> str:
        return _with_hint(v, WORKLOAD_KINDS, "workload kind")

    @field_validator("fused_kernels")
    @classmethod
    def _kernels(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        return check_kernels(v)

    @field_validator("expert_kernel", mode="before")  # any type: the message names the ids
    @classmethod
    def _expert_kernel(cls, v: object) -> str:
        return check_expert_kernel(v)

    @field_validator("mlx_version")
    @classmethod
    def _mlx(cls, v: str | None) -> str | None:
        return check_mlx_version(v)

    @field_validator("loss", mode="before")  # any type: the message names the kinds
    @classmethod
    def _loss(cls, v: object) -> str:
        return _with_hint(v, LOSS_KINDS, "loss")

    @model_validator(mode="after")
    def _preference_fits(self) -> WorkloadSpec:
        pref = self.preference
        if pref is None:
            return self
        ref = reference_of(pref, self.is_adapter)
        if ref.adapter and not self.is_adapter:
            raise ValueError(
                f"preference.reference: {ref.id} needs workload.kind lora or qlora (the base "
                f"with the adapters disabled); got kind {self.kind}; use copy or precomputed"
            )
        return self

    @model_serializer(mode="wrap")
    def _echo(self, handler: SerializerFunctionWrapHandler) -> dict[str, object]:
        data = handler(self)
        if self.preference is None:
            data.pop("preference", None)
        if self.mlx_version is None:
            data.pop("mlx_version", None)
        return data

    @property
    def reference_info(self) -> Reference | None:
        """The reference in force (core/registry/preference.py REFERENCES); None: no preference."""
        p = self.preference
        return None if p is None else reference_of(p, self.is_adapter)

    @property
    def extra_forward_share(self) -> float:
        """No-grad forward rows a preference step runs per row with gradients (0: none)."""
        return forward_share(self.preference, self.reference_info)

    @property
    def info(self) -> WorkloadKind:
        """The kind's registry entry (labels and properties)."""
        return WORKLOAD_KINDS[self.kind]

    @property
    def label(self) -> str:
        """The kind's label, with a preference fine-tune's method ("LoRA fine-tune, DPO")."""
        return self.info.label + (f", {self.preference.info.label}" if self.preference else "")

    @property
    def in_sentence(self) -> str:
        """The kind as a sentence names it, with a preference fine-tune's method."""
        return self.info.in_sentence + (f" {self.preference.info.label}" if self.preference else "")

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


class ParallelismSpec(Strict):
    """How the work is split across GPUs, and what is recomputed."""

    @property
    def engine_group(self) -> tuple[int, int]:
        """(tensor, attention_data) of the whole engine: the one an attention-DP rank's view
        came from (SGLang's ``tp_size`` and ``dp_size``), else as set."""
        return self._engine_group or (self.tensor, self.attention_data)

    def rank_of(self, tensor: int, attention_data: int) -> ParallelismSpec:
        """This view remembering the engine (``tensor``, ``attention_data``) it is a rank of."""
        self._engine_group = (tensor, attention_data)
        return self

    @property
    def expert_in_tensor(self) -> int:
        """Whole-expert shards inside each tensor-parallel group of an engine's view (vLLM
        ``--enable-expert-parallel`` with TP; core/serving/expert_in_tensor.py), else 1."""
        return self._expert_in_tensor

    def experts_within(self, shards: int) -> ParallelismSpec:
        """This view with the routed experts split ``shards`` ways, whole, inside each TP group."""
        self._expert_in_tensor = shards
        return self

    tensor: Degree = 1
    pipeline: Degree = 1
    virtual_stages: Degree = 1
    data: Degree = 1
    context: Degree = 1
    expert: Degree = 1
    # Megatron-Core expert_tensor_parallel_size: the routed experts' own TP, apart from the
    # attention's (MoE parallel folding; null = tensor, Megatron's default;
    # core/model/expert_tensor.py)
    expert_tensor: Degree | None = None
    # Serving: attention data-parallel ranks inside the tensor-parallel group (SGLang
    # --enable-dp-attention --dp N, TensorRT-LLM enable_attention_dp): each rank runs attention
    # at TP tensor / attention_data on its own requests; the experts span the whole group
    # (core/serving/attention_dp.py)
    attention_data: Degree = 1
    # not a field: the (tensor, attention_data) of the attention-DP engine one rank's view
    # belongs to (core/serving/attention_dp.py ``rank_view``), None for the scenario as set
    _engine_group: tuple[int, int] | None = PrivateAttr(default=None)
    # not a field: the engine view's whole-expert shards inside each TP group
    # (core/serving/expert_in_tensor.py ``tensor_view``), 1 for the scenario as set
    _expert_in_tensor: int = PrivateAttr(default=1)
    # not a field: the context ranks split the heads (Ulysses) where the RL framework's workers
    # do so on this training framework (core/model/context_algorithm.py); None: the
    # training framework's own algorithm
    _heads_split: bool | None = PrivateAttr(default=None)
    zero_stage: Annotated[int, Whole, Field(ge=0, le=3)] = 0
    # DeepSpeed zero_optimization.overlap_comm: ZeRO's reductions and offload copies beside the
    # backward (null: DeepSpeed's default, on at stage 3 only; core/speed/zero2_reduce.py)
    overlap_comm: bool | None = None
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
    # FSDP1's no_sync() over a step's micro-batches before its last (Lightning Fabric's
    # no_backward_sync, accelerate's accumulate): each unit's gradient kept unsharded until the
    # sync (core/memory/fsdp_no_sync.py)
    fsdp_no_sync: bool = False
    # full recompute is the model's reentrant torch.utils.checkpoint around each FSDP1 unit
    # (transformers' gradient_checkpointing, default use_reentrant): over frozen units FSDP1
    # keeps every layer-input gradient to the backward's end (core/memory/fsdp1_reentrant.py)
    reentrant_checkpoint: bool = False
    # DeepSpeed ZeRO-3's zero_optimization.sub_group_size (elements; DeepSpeed's default 1e9):
    # the step converts one sub-group's gradients to the master dtype at a time
    # (core/memory/zero3_step.py); null: that conversion not priced (the answers as before)
    zero_sub_group_size: Annotated[int, Field(ge=1, le=10**13)] | None = None
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
    # EP all-to-all of one micro-batch hidden behind the other's compute (Megatron-Core
    # --overlap-moe-expert-parallel-comm, DeepSeek-V3's DualPipe; core/speed/train_layer.py)
    expert_overlap: bool = False
    # Recurrent token mixers (Gated DeltaNet, Mamba-2) run whole on every TP rank, not split by
    # it: Miles' HuggingfaceAttention wrapper of Qwen3.5 / Qwen3-Next (core/speed/train_mixers.py)
    replicated_mixers: bool = False
    # Megatron-Core's token dispatcher for the EP all-to-all: "alltoall" (NCCL), or the flex
    # dispatcher's DeepEP / HybridEP, which send a token once to each other node holding any of
    # its experts (core/speed/alltoall_network.py)
    expert_dispatcher: Literal["alltoall", "deepep", "hybridep"] = "alltoall"
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
    def heads_split(self) -> bool | None:
        """Whether the context ranks split the heads as the RL framework set it (None: unset)."""
        return self._heads_split

    def splitting_heads(self, split: bool | None) -> ParallelismSpec:
        """This layout with the RL framework's context algorithm; set once, on a layout just
        copied (not a field: no echo changes)."""
        self._heads_split = split
        return self

    @property
    def gpus(self) -> int:
        return self.tensor * self.pipeline * self.data * self.context
